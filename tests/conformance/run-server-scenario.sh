#!/bin/sh
# Runs one server scenario of the official MCP conformance harness against gantry's /mcp (the
# local API) and passes only when the harness reports no failed check and at least one
# passed. The harness sends no credentials, so it talks through auth-proxy.mjs.
#   run-server-scenario.sh SCENARIO      (exit 77 = skipped: the npm peers are not installed)
# GANTRY_BIN comes from CTest.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/peers.sh"
work=$(mktemp -d)
pids=
cleanup() {
  for pid in $pids; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/persona" "$work/data"
echo "You are the conformance test persona." >"$work/persona/IDENTITY.md"
port=$("$node" -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
token=conformance-token

# The instance: a stdio REPL whose input stays open, the API on 127.0.0.1:$port.
mkfifo "$work/in"
env -i PATH=/usr/bin:/bin HOME="$work" CHANNEL=stdio LLM_MODEL=fake-model \
  PERSONA_DIR="$work/persona" DATA_DIR="$work/data" MCP_MANIFEST="$work/none.toml" \
  API_LISTEN="127.0.0.1:$port" API_TOKEN="$token" \
  "$GANTRY_BIN" run <"$work/in" >"$work/out" 2>"$work/err" &
pids="$!"
exec 3>"$work/in"  # holds the REPL's input open until this script ends

: >"$work/proxy"
TARGET_PORT="$port" TOKEN="$token" "$node" "$here/auth-proxy.mjs" >>"$work/proxy" &
pids="$pids $!"
proxy=
for _ in $(seq 200); do
  proxy=$(sed -n 's/^PORT //p' "$work/proxy")
  [ -n "$proxy" ] && grep -q '"msg":"api_listening"' "$work/err" && break
  sleep 0.05
done
[ -n "$proxy" ] || { echo "the proxy did not start" >&2; exit 1; }
grep -q '"msg":"api_listening"' "$work/err" || { cat "$work/err" >&2; exit 1; }

out="$work/harness"
status=0
# 127.0.0.1, not localhost: a minimal system may have no /etc/hosts to resolve the name.
"$node" "$harness" server --url "http://127.0.0.1:$proxy/mcp" --scenario "$1" >"$out" 2>&1 ||
  status=$?
cat "$out"
[ "$status" = 0 ] || { tail -n 20 "$work/err" >&2; exit 1; }
grep -Eq "Passed: [1-9][0-9]*/[0-9]+, 0 failed" "$out" || exit 1
