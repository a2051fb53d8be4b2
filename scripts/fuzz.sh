#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz, clang under ASan+UBSan, in build-fuzz/) and runs
# each for SECONDS (default 300) on a copy of its seed corpus, as many at once as there are
# cores. Exits non-zero when any target crashes; its input is kept in
# build-fuzz/fuzz/artifacts/<target>/ and its output in build-fuzz/fuzz/logs/<target>.log.
# Installs clang and its fuzzer runtime first when missing (as root, Debian 12).
set -euo pipefail
cd "$(dirname "$0")/.."
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
seconds=${1:-300}
jobs=$(nproc)

if ! command -v clang++ >/dev/null || ! compgen -G "/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a" >/dev/null; then
  if [ "$(id -u)" != 0 ]; then
    echo "fuzz.sh: clang with libFuzzer is missing; as root: apt-get install clang libclang-rt-dev" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends clang libclang-rt-dev
fi

# -O1 keeps assertions on (no NDEBUG) and compiles faster than -O2.
cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DGANTRY_FUZZ=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g" >/dev/null
cmake --build build-fuzz -j"$jobs" --target gantry_fuzz

out=build-fuzz/fuzz
rm -rf "$out/work" "$out/logs"
mkdir -p "$out/work" "$out/logs" "$out/artifacts"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# run_target NAME: fuzzes NAME for $seconds on a scratch copy of its corpus.
run_target() {
  local name=$1 corpus="$out/work/$1"
  mkdir -p "$corpus" "$out/artifacts/$name"
  cp -r "tests/fuzz/corpus/$name/." "$corpus/"
  if "$out/fuzz_$name" "$corpus" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -max_len=16384 -print_final_stats=1 -artifact_prefix="$out/artifacts/$name/" \
      >"$out/logs/$name.log" 2>&1; then
    echo "fuzz $name: ok ($(grep -o 'stat::number_of_executed_units: *[0-9]*' "$out/logs/$name.log" | grep -o '[0-9]*$') runs)"
  else
    echo "fuzz $name: FAILED (see $out/logs/$name.log, input in $out/artifacts/$name/)"
    tail -n 40 "$out/logs/$name.log"
    return 1
  fi
}

targets=()
for dir in tests/fuzz/corpus/*/; do targets+=("$(basename "$dir")"); done
failed=0
pids=()
for name in "${targets[@]}"; do
  run_target "$name" &
  pids+=($!)
  if [ ${#pids[@]} -ge "$jobs" ]; then
    wait "${pids[0]}" || failed=1
    pids=("${pids[@]:1}")
  fi
done
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
if [ "$failed" != 0 ]; then
  echo "fuzz: a target crashed" >&2
  exit 1
fi
echo "fuzz: ${#targets[@]} targets ran ${seconds}s each without a crash"
