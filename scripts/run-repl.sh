#!/usr/bin/env bash
# Builds gantry and starts the stdio REPL against a local OpenAI-compatible endpoint
# (Ollama's default, http://127.0.0.1:11434/v1). The first run scaffolds ./local/ with a
# persona, an empty MCP manifest and an env file; edit local/gantry.env to change the model
# or the endpoint. Any variable already set in the environment wins over the env file.
set -euo pipefail
cd "$(dirname "$0")/.."
# Let ccache reuse objects compiled in another checkout of the same sources.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1

if [ "$(id -u)" = 0 ]; then ./scripts/setup-deps.sh >/dev/null; fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" --target gantry channel_stdio provider_openai >/dev/null

[ -f local/gantry.env ] || ./build/gantry init local >&2

# Values from the environment override the file's.
overrides=$(env | grep -E '^(LLM_|CHANNEL=|STREAM_REPLIES=|LOG_LEVEL=|MCP_MANIFEST=)' || true)
set -a
. local/gantry.env
while IFS= read -r line; do [ -n "$line" ] && export "$line"; done <<<"$overrides"
set +a
exec ./build/gantry run
