#!/usr/bin/env bash
# The tree's C++ sources pass clang-format unchanged and clang-tidy (.clang-tidy, findings are
# errors) with the compile database of a configured build. Usage: check-style.sh BUILD_DIR [JOBS]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: check-style.sh BUILD_DIR [JOBS]}
jobs=${2:-$(nproc)}

# Ours only: the npm test peers under tests/peers are not.
find core modules tools tests bench -path tests/peers -prune -o \( -name '*.h' -o -name '*.cpp' \) \
  -print0 | xargs -0 clang-format --dry-run --Werror

start=$(date +%s)
# Every source file of the build: the product (core, modules, tools), its tests and benchmarks.
files="^$(pwd -P)/(core|modules|tools|tests|bench)/"
run-clang-tidy -p "$build" -j "$jobs" -quiet "$files" >"$build/clang-tidy.log" 2>&1 || {
  grep -E 'warning:|error:' "$build/clang-tidy.log" || tail -n 40 "$build/clang-tidy.log"
  echo "clang-tidy: findings above (full log: $build/clang-tidy.log)" >&2
  exit 1
}
echo "clang-tidy: clean in $(($(date +%s) - start)) s"
