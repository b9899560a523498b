#!/usr/bin/env bash
# callgrind.sh: what one small message costs in instructions, counted with
# valgrind --tool=callgrind, which (unlike a clock) gives the same figure on
# a loaded machine. Method and reading: docs/bench/callgrind.md.
#
# Runs bench/cg_pingpong (Go API) and bench/c/cg_pingpong.c (C ABI) with
# two ranks under bin/hympirun, valgrind inside each rank, ITERS round trips
# of SIZE bytes. In both programs a receive is called only once its message
# is published (a side channel outside MPI says so), so no count includes
# hympi's polling, whose amount depends on scheduling. Prints per rank:
#   Go: inclusive instructions of Comm.Send and Comm.Recv per round trip,
#       and their sum, the cost of one round trip to that rank (every
#       thread's file: the main goroutine may move between threads);
#   C:  instructions of the calling thread over the loop alone (zeroed
#       before it, dumped after it), less the side-channel wait, per round
#       trip: MPI_Send + MPI_Recv with the C→Go transitions;
# then the TOP functions of the C loop by self instructions per round trip.
#
# Usage: bench/callgrind.sh                  (make bench-callgrind)
# Environment: ITERS (default 300), SIZE (default 8), TOP (default 25),
#              OUT (default bench/results/callgrind-<UTC time>)
set -euo pipefail

cd "$(dirname "$0")/.."
ITERS=${ITERS:-300}
SIZE=${SIZE:-8}
TOP=${TOP:-25}
OUT=${OUT:-bench/results/callgrind-$(date -u +%Y%m%dT%H%M%SZ)}
for v in "$ITERS" "$SIZE" "$TOP"; do
	[[ $v =~ ^[0-9]+$ ]] || {
		echo "callgrind: ITERS, SIZE and TOP take whole numbers, got '$v'" >&2
		exit 2
	}
done
((ITERS > 0)) || { echo "callgrind: ITERS must be positive" >&2; exit 2; }
command -v valgrind >/dev/null || {
	echo "callgrind: valgrind is not installed (apt-get install valgrind)" >&2
	exit 1
}
[[ -x bin/hympicc ]] || {
	echo "callgrind: bin/hympicc is missing: run make first" >&2
	exit 1
}

mkdir -p "$OUT"
go build -o bin/ ./cmd/hympirun ./bench/cg_pingpong
bin/hympicc -O2 -g -o bin/cg_pingpong_c bench/c/cg_pingpong.c

# Go's asynchronous preemption signals trip an assertion in callgrind.
export GODEBUG=asyncpreemptoff=1

run() { # name prog
	rm -f "$OUT/flags.$1"
	bin/hympirun -n 2 --timeout 600s valgrind --tool=callgrind --separate-threads=yes \
		--callgrind-out-file="$OUT/$1.%p" "$2" -i "$ITERS" -m "$SIZE" -flags "$OUT/flags.$1" \
		>"$OUT/$1.log" 2>&1 || {
		echo "callgrind: the $1 run failed, see $OUT/$1.log" >&2
		exit 1
	}
	rm -f "$OUT/flags.$1"
}

# inclusive FILE FUNC: the inclusive instructions of the function whose
# callgrind_annotate name ends in FUNC (plain text). Each program calls
# Send and Recv once per round trip, and nowhere else.
inclusive() {
	callgrind_annotate --auto=no --inclusive=yes --threshold=100 "$1" 2>/dev/null |
		awk -v f="$2 [" 'index($0, f) { v = $1; gsub(",", "", v); s += v } END { print s + 0 }'
}

echo "callgrind: $ITERS round trips of $SIZE B per run, outputs in $OUT" >&2
run go bin/cg_pingpong
run c bin/cg_pingpong_c

echo "### Instructions per $SIZE-byte round trip, per rank (callgrind, $ITERS round trips)"
echo
echo "| Path | Rank | Send | Recv | Round trip |"
echo "|---|---:|---:|---:|---:|"
for f in "$OUT"/go.*-01; do
	pid=${f##*/go.}
	pid=${pid%-01}
	# The main goroutine may run on any thread: add up every thread's file.
	si=0 ri=0
	for t in "$OUT"/go."$pid"-*; do
		si=$((si + $(inclusive "$t" 'mpi.(*Comm).blockingSend')))
		ri=$((ri + $(inclusive "$t" 'mpi.(*Comm).Recv')))
	done
	awk -v si="$si" -v ri="$ri" -v n="$ITERS" -v who="pid $pid" 'BEGIN {
		printf "| hympi-Go (Comm.Send, Comm.Recv) | %s | %.0f | %.0f | %.0f |\n", who, si / n, ri / n, (si + ri) / n }'
done
for f in "$OUT"/c.*.1-01; do
	pid=${f##*/c.}
	pid=${pid%.1-01}
	total=$(sed -n 's/^summary: *//p' "$f" | awk 'NR == 1')
	wait=$(callgrind_annotate --auto=no --threshold=100 "$f" 2>/dev/null | awk '/await_peer/ { gsub(",", "", $1); s += $1 } END { print s + 0 }')
	awk -v t="$total" -v w="$wait" -v n="$ITERS" -v who="pid $pid" 'BEGIN {
		printf "| hympi-C (MPI_Send + MPI_Recv, calling thread) | %s | | | %.0f |\n", who, (t - w) / n }'
done
echo
f=$(ls "$OUT"/c.*.1-01 | awk 'NR == 1')
echo "Top functions of the C ABI loop ($(basename "$f")), self instructions per round trip:"
echo
echo '```'
callgrind_annotate --auto=no --threshold=100 "$f" 2>/dev/null |
	awk -v n="$ITERS" '/^ *[0-9,]+ \(/ && !/PROGRAM TOTALS/ && !/await_peer/ {
		v = $1; gsub(",", "", v); fn = $0; sub(/^ *[0-9,]+ +\([^)]*\) +/, "", fn); sub(/ \[.*$/, "", fn); sub(/^.*:/, "", fn)
		printf "%8.1f  %s\n", v / n, fn }' | awk -v top="$TOP" 'NR <= top'
echo '```'
