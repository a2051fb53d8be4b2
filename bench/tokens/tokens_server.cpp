// bench_tokens_server SERVERS_JSON NAME: a stdio MCP server publishing the tools listed under
// NAME in SERVERS_JSON (name, description, inputSchema), each answering any call with a
// short text. The schemas, not the answers, are what bench_tokens measures.
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <fstream>
#include <iostream>
#include <sstream>

#include "common/stdio_server.h"

using gantry::toolserver::StdioServer;
using gantry::toolserver::Tool;
using gantry::toolserver::ToolResult;

int main(int argc, char** argv) try {
  if (argc != 3) return std::cerr << "usage: bench_tokens_server SERVERS_JSON NAME\n", 2;
  std::ifstream in(argv[1]);
  std::stringstream text;
  text << in.rdbuf();
  auto all = Poco::JSON::Parser().parse(text.str()).extract<Poco::JSON::Object::Ptr>();
  auto tools = all->getArray(argv[2]);
  if (!tools) return std::cerr << "bench_tokens_server: no server " << argv[2] << "\n", 2;
  StdioServer server(std::string("bench-") + argv[2], "1.0");
  for (unsigned i = 0; i < tools->size(); ++i) {
    auto tool = tools->getObject(i);
    std::string name = tool->getValue<std::string>("name");
    server.add(Tool{name, tool->getValue<std::string>("description"),
                    tool->getObject("inputSchema"), [name](const Poco::JSON::Object::Ptr&) {
                      return ToolResult::ok(name + ": done (bench answer)");
                    }});
  }
  return server.run(0);
} catch (const std::exception& e) {
  std::cerr << "bench_tokens_server: " << e.what() << "\n";
  return 1;
}
