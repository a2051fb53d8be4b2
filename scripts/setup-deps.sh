#!/usr/bin/env bash
# Installs everything gantry's build and tests need on Debian 12 (run as root), and the
# npm test peers (official MCP servers) pinned in tests/peers/package-lock.json.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive

# openssl: the CLI the HTTPS test of gantry-fetch makes its certificates with.
packages=(cmake g++ make pkg-config git ca-certificates ccache
  libpoco-dev libsodium-dev libtomlplusplus-dev libcctz-dev rapidjson-dev libsqlite3-dev libgumbo-dev
  catch2 tzdata clang-format clang-tidy openssl)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Debian's npm (on its Node 18) only installs the peers: they run on the Node 22 that
# tests/peers pins (node-linux-* from npm), so no machine's own Node decides a result.
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ -f tests/peers/package-lock.json ]; then
  npm ci --prefix tests/peers --no-audit --no-fund --loglevel=error
fi
