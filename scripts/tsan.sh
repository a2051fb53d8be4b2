#!/usr/bin/env bash
# Builds the unit and e2e suites under ThreadSanitizer (build-tsan/, -DGANTRY_SANITIZE=thread)
# and runs them with CTest; any race report fails its test (TSan exits 66). Suppressions for
# third-party code, each with its reason, are in tests/tsan.supp. Extra arguments go to ctest
# (e.g. -R 'chat: ').
set -euo pipefail
cd "$(dirname "$0")/.."
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
jobs=$(nproc)

cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGANTRY_SANITIZE=thread >/dev/null
cmake --build build-tsan -j"$jobs"
export TSAN_OPTIONS="suppressions=$PWD/tests/tsan.supp second_deadlock_stack=1"
cd build-tsan && ctest --output-on-failure -j"$jobs" "$@"
