#!/usr/bin/env bash
# Installs the build and test dependencies (as root), builds everything and runs the whole
# test suite with CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
# Let ccache reuse objects compiled in another checkout of the same sources.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1

if [ "$(id -u)" = 0 ]; then ./scripts/setup-deps.sh; fi
# GANTRY_CMAKE_ARGS: extra configure options (CI passes -DGANTRY_WERROR=ON).
# shellcheck disable=SC2086
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo ${GANTRY_CMAKE_ARGS:-}
cmake --build build -j"$(nproc)"
cd build && ctest --output-on-failure -j"$(nproc)"
