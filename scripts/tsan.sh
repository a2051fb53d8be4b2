#!/usr/bin/env bash
# Builds the unit and e2e suites under ThreadSanitizer (build-tsan/, -DGANTRY_SANITIZE=thread)
# and runs them with CTest. Every instrumented process (the test binaries, gantry, its modules'
# threads, the fakes and the bundled tool servers) writes its reports to
# build-tsan/tsan-reports/, so a race in a child fails the run even where its test does not
# look at the child's exit code. Suppressions for third-party code, each with its reason, are
# in tests/tsan.supp. Extra arguments go to ctest (e.g. -R 'chat: ').
set -euo pipefail
cd "$(dirname "$0")/.."
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
jobs=$(nproc)

cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGANTRY_SANITIZE=thread >/dev/null
cmake --build build-tsan -j"$jobs"
reports="$PWD/build-tsan/tsan-reports"
rm -rf "$reports" && mkdir -p "$reports"
export TSAN_OPTIONS="suppressions=$PWD/tests/tsan.supp second_deadlock_stack=1 log_path=$reports/r"
status=0
(cd build-tsan && ctest --output-on-failure -j"$jobs" "$@") || status=$?
if compgen -G "$reports/r.*" >/dev/null; then
  cat "$reports"/r.*
  echo "tsan.sh: ThreadSanitizer reports from $(ls "$reports" | wc -l) process(es), above" >&2
  exit 1
fi
exit "$status"
