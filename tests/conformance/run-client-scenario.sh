#!/bin/sh
# Runs one client scenario of the official MCP conformance harness against gantry and passes
# only when the harness prints OVERALL: PASSED with at least one check actually run.
#   run-client-scenario.sh SCENARIO      (exit 77 = skipped: the npm peers are not installed)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/peers.sh"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
status=0
"$node" "$harness" client --command "sh $here/gantry-client.sh" --scenario "$1" \
  --timeout 60000 >"$out" 2>&1 || status=$?
cat "$out"
[ "$status" = 0 ] || exit 1
grep -q "OVERALL: PASSED" "$out" || exit 1
grep -Eq "Passed: [1-9][0-9]*/" "$out" || { echo "no check was run" >&2; exit 1; }
