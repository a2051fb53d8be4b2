// The official MCP TypeScript SDK client, pointed at a stdio server: lists its tools and
// calls one, printing {"server", "tools", "result"} as one JSON line.
//
//   node sdk_client.mjs TOOL ARGS_JSON -- COMMAND [ARG...]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [tool, argsJson, dashes, command, ...commandArgs] = process.argv.slice(2);
if (dashes !== "--" || !command) {
  console.error("usage: node sdk_client.mjs TOOL ARGS_JSON -- COMMAND [ARG...]");
  process.exit(2);
}
const transport = new StdioClientTransport({ command, args: commandArgs });
const client = new Client({ name: "gantry-sdk-test", version: "0.0.0" });
await client.connect(transport);
const { tools } = await client.listTools();
const result = await client.callTool({ name: tool, arguments: JSON.parse(argsJson) });
console.log(JSON.stringify({
  server: client.getServerVersion(),
  tools: tools.map((t) => t.name),
  result,
}));
await client.close();
