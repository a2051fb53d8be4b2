#!/bin/sh
# An MCP client for the official conformance harness (`conformance client --command`): one
# gantry turn, in a scrubbed environment, whose model (the fake OpenAI server) calls the
# scenario's tool on the MCP server at URL. Exits non-zero when the tool call did not succeed.
#   gantry-client.sh URL
# GANTRY_BIN and FAKE_OPENAI_BIN come from CTest; MCP_CONFORMANCE_SCENARIO from the harness.
set -eu
url="$1"
work=$(mktemp -d)
fake_pid=
cleanup() {
  [ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/persona" "$work/data"
echo "You are the conformance test persona." >"$work/persona/IDENTITY.md"
printf '[[server]]\nname = "conf"\nurl = "%s"\n' "$url" >"$work/mcp.toml"

tool=
case "${MCP_CONFORMANCE_SCENARIO:-}" in
  tools_call) tool=add_numbers arguments='{\"a\":2,\"b\":3}' ;;
  sse-retry) tool=test_reconnection arguments='{}' ;;
esac
if [ -n "$tool" ]; then
  printf '{"tool_calls":[{"id":"c1","name":"conf__%s","arguments":"%s"}]}\n' "$tool" "$arguments" \
    >"$work/script.jsonl"
fi
echo '{"content":"conformance turn done"}' >>"$work/script.jsonl"

: >"$work/port"  # exists before the fake writes to it, so the poll below can read it
"$FAKE_OPENAI_BIN" --script "$work/script.jsonl" >>"$work/port" &
fake_pid=$!
port=
for _ in $(seq 100); do
  port=$(sed -n 's/^PORT //p' "$work/port")
  [ -n "$port" ] && break
  sleep 0.05
done
[ -n "$port" ] || { echo "fake_openai did not start" >&2; exit 1; }

echo '{"text":"run the conformance scenario"}' |
  env -i PATH=/usr/bin:/bin HOME="$work" CHANNEL=stdio STDIO_FORMAT=jsonl \
    LLM_BASE_URL="http://127.0.0.1:$port/v1" LLM_MODEL=fake-model \
    PERSONA_DIR="$work/persona" DATA_DIR="$work/data" MCP_MANIFEST="$work/mcp.toml" \
    "$GANTRY_BIN" run >"$work/out" 2>"$work/err"
cat "$work/out"
cat "$work/err" >&2
grep -q '"msg":"mcp_server_up","server":"conf"' "$work/err"
grep -q '"type":"reply","text":"conformance turn done"' "$work/out"
if [ -n "$tool" ]; then
  grep -q "\"type\":\"tool\",\"name\":\"conf__$tool\",\"ok\":true" "$work/out"
fi
