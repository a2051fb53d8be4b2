#!/usr/bin/env bash
# Runs the benchmarks that compare gantry with its floor (bench/floor/) and prints one
# Markdown table, a row per build, with the machine it ran on. Ratios are against the floor
# measured in the same run; absolute figures move with the machine's load.
#
#   bench/run-all.sh                 configure and build build-bench/relwithdebinfo and
#                                    build-bench/release, then measure both
#   bench/run-all.sh BUILD_DIR...    measure existing build directories (built first)
#   bench/run-all.sh --readme [BUILD_DIR...]
#                                    also writes the table into README.md, between the
#                                    bench-table markers of its Benchmarks section
#
# Environment: STARTS (20), TURNS (1000), IDLE_SECONDS (30), RECALL_ROWS (100000),
# HOST_TURNS (1000).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" = --readme ]; then
  shift
  table=$(mktemp)
  "$0" "$@" | tee "$table"
  awk -v table="$table" '
    /<!-- bench-table:end -->/ { while ((getline line < table) > 0) print line; skip = 0 }
    !skip { print }
    /<!-- bench-table:begin -->/ { skip = 1 }' "$root/README.md" >"$table.readme"
  mv "$table.readme" "$root/README.md"
  rm -f "$table"
  exit 0
fi
starts=${STARTS:-20} turns=${TURNS:-1000} idle=${IDLE_SECONDS:-30}
rows=${RECALL_ROWS:-100000} host_turns=${HOST_TURNS:-1000}
targets=(bench_vs_floor bench_host bench_memory)

dirs=("$@")
if [ ${#dirs[@]} -eq 0 ]; then
  for type in RelWithDebInfo Release; do
    dir=$root/build-bench/${type,,}
    cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=$type >/dev/null
    dirs+=("$dir")
  done
fi

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
echo "Machine: $(nproc) cores, ${cpu}, Linux $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg) at the start; $(date -u +%Y-%m-%d)."
echo
echo "| build | start, exec → ready (median of $starts) | CPU to ready | host overhead per turn, wall − model: median, mean (gantry CPU) | private memory per extra instance | RSS growth, turns $turns → $((3 * turns)) | memory_recall p50, $((rows / 1000))k rows | idle wakeups per minute |"
echo "|---|---|---|---|---|---|---|---|"

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f×", a / b; else printf "—" }'; }
pair() {  # gantry floor unit divisor: "G / F unit (R×)"
  awk -v g="$1" -v f="$2" -v u="$3" -v d="$4" 'BEGIN { printf "%.1f / %.1f %s", g / d, f / d, u }'
  printf ' (%s)' "$(ratio "$1" "$2")"
}

for dir in "${dirs[@]}"; do
  cmake --build "$dir" --target "${targets[@]}" >/dev/null
  # Files just written stay dirty in the page cache until written back, and a mapping of a
  # dirty page counts as Private_Dirty: a binary linked a moment ago added its 2 MiB to the
  # private memory of each instance that ran it.
  sync
  type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$dir/CMakeCache.txt")
  declare -A m=()
  while read -r key value; do m[$key]=$value; done < <("$dir/bench/bench_vs_floor" "$starts" "$turns" "$idle")
  host_out=$("$dir/bench/bench_host" "$host_turns")
  host=$(sed -n 's/.*host overhead \([0-9.]*\) ms\/turn.*/\1/p' <<<"$host_out")
  host_cpu=$(sed -n 's/.*gantry CPU \([0-9.]*\) ms\/turn.*/\1/p' <<<"$host_out")
  host_floor=$(sed -n 's/.*exchange floor \([0-9.]*\) ms\/turn.*/\1/p' <<<"$host_out")
  host_median=$(sed -n 's/.*host overhead a turn, median \([0-9.]*\) ms.*/\1/p' <<<"$host_out")
  recall=$("$dir/bench/memory/bench_memory" "$rows" | awk '$2 == "recall" { print $4 }')
  printf '| %s | %s | %s | median %s ms; mean %s / %s ms (%s; CPU %s ms) | %s | %s / %s KiB | %s ms | %s |\n' "$type" \
    "$(pair "${m[start_ms.gantry]}" "${m[start_ms.floor]}" ms 1)" \
    "$(pair "${m[start_cpu_ms.gantry]}" "${m[start_cpu_ms.floor]}" ms 1)" \
    "${host_median:-?}" "${host:-?}" "${host_floor:-?}" "$(ratio "${host:-0}" "${host_floor:-0}")" "${host_cpu:-?}" \
    "$(pair "${m[private_kib.gantry]}" "${m[private_kib.floor]}" MiB 1024); as packaged $(pair "${m[packaged_private_kib.gantry]:-0}" "${m[packaged_private_kib.floor]:-0}" MiB 1024)" \
    "${m[rss_growth_kib.gantry]%.*}" "${m[rss_growth_kib.floor]%.*}" \
    "${recall:-?}" \
    "$(printf '%.0f / %.0f' "${m[wakeups_per_min.gantry]}" "${m[wakeups_per_min.floor]}")"
  unset m
done
echo
echo "Each cell is gantry / floor (ratio) where the floor has the figure. Private memory: Private_Dirty"
echo "(anonymous included) of the second of two instances side by side after $turns turns each; \"as"
echo "packaged\": both run with the GLIBC_TUNABLES of the systemd unit (packaging/debian/gantry@.service). RSS"
echo "growth includes the resident pages of the memory-mapped database, which grow with the file. Idle"
echo "wakeups: context switches of all threads over ${idle} s, per minute. Host overhead: $host_turns piped"
echo "turns, to the last reply, against a fake model that answers at once, with 50 tool schemas, 10k"
echo "memory rows and a 200-message history (bench_host); the model's part is the fake's own time"
echo "handling the requests. The median is of each turn's own figure (from the reply before it to its"
echo "own); the mean, all turns' wall time less the model's over their number, also counts the turns"
echo "that fold the history. Its floor: the same requests sent again by a client that does nothing"
echo "else, less the fake's time (the loopback exchange), a mean; the ratio is of the means. The CPU"
echo "figure includes what follows the last reply (the end of input)."
