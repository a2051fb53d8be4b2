#!/usr/bin/env bash
# Instructions a turn, counted by callgrind: a figure that does not move with the machine's
# load, for comparing two builds of gantry where wall and CPU times on a shared machine vary
# by more than most single changes win.
#
#   bench/instructions.sh BUILD_DIR [TURNS]     (TURNS: 200)
#
# Runs BUILD_DIR/bench/bench_host with every gantry process it starts under
# `valgrind --tool=callgrind`, then prints the instructions of the process that ran the
# measured turns, divided by TURNS (its start-up, about 75M, included), and those of its
# busiest thread, the one that ran the turns. The history fold's thread runs as the turns'
# timing lets it, so the process's figure moves from run to run; the turns' thread's moves
# less. The turns' thread's profile stays in
# BUILD_DIR/callgrind.turns.out for callgrind_annotate. User-space instructions only: system
# calls (the WAL's writes, the file locks, the socket) are not counted.
set -euo pipefail
build=$(cd "${1:?usage: instructions.sh BUILD_DIR [TURNS]}" && pwd)
turns=${2:-200}
command -v valgrind >/dev/null || { echo "instructions.sh: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
cmake --build "$build" --target gantry bench_host >/dev/null

out=$(mktemp -d)
# bench_host starts $build/gantry; for the run it is a script that starts the real binary,
# kept beside it so that the modules are found next to it as usual.
mv "$build/gantry" "$build/gantry.measured"
trap 'mv "$build/gantry.measured" "$build/gantry"; rm -rf "$out"' EXIT
printf '#!/bin/sh\nexec valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file=%s/%%p.out %s "$@"\n' \
  "$out" "$build/gantry.measured" >"$build/gantry"
chmod +x "$build/gantry"

"$build/bench/bench_host" "$turns" >"$out/bench.txt" 2>"$out/bench.err" || {
  tail -n 20 "$out/bench.err" >&2
  exit 1
}
# The measured turns' process is the last to end; it wrote a profile per thread.
last=$(find "$out" -name '*.out-*' -printf '%T@ %p\n' | sort -n | tail -n 1 | cut -d' ' -f2)
summary() { awk '/^summary:/ { print $2 }' "$1"; }
instructions=0 busiest=0 busiest_file=
for file in "${last%-*}"-*; do
  n=$(summary "$file")
  instructions=$((instructions + n))
  if [ "$n" -gt "$busiest" ]; then busiest=$n busiest_file=$file; fi
done
cp "$busiest_file" "$build/callgrind.turns.out"
echo "$turns turns: $instructions instructions, $((instructions / turns)) a turn (start-up included);" \
  "the turns' thread $((busiest / turns)) a turn"
