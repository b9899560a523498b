#!/usr/bin/env bash
# callgrind_msgrate.sh: what one message of osu_bw's window costs, in
# instructions (valgrind --tool=callgrind), from the Go API and the C ABI.
# The companion of callgrind.sh (ping-pong); method and reading in
# docs/bench/msgrate.md.
#
# Runs bench/cg_msgrate (Go; plain Isend/Irecv/Waitall, then the recycling
# IsendIn/IrecvIn/WaitallInto) and bench/c/cg_msgrate.c (C ABI) with two
# ranks under bin/hympirun, ITERS windows of WINDOW messages of SIZE bytes.
# No count includes polling: every wait on the peer happens outside MPI.
# Prints, per message: the sender's Isend and Waitall, the receiver's Irecv
# and Waitall (Go: inclusive instructions of the program's window
# functions; C: the calling thread's instructions over the counted windows
# less the side-channel wait, which includes 1/WINDOW of the
# acknowledgement's MPI_Send and MPI_Recv; the Go figures leave it out).
#
# Usage: bench/callgrind_msgrate.sh          (make bench-callgrind-msgrate)
# Environment: ITERS (default 40), SIZE (default 8), WINDOW (default 64),
#              TOP (default 25), OUT (default bench/results/cgmsgrate-<UTC time>)
set -euo pipefail

cd "$(dirname "$0")/.."
ITERS=${ITERS:-40}
SIZE=${SIZE:-8}
WINDOW=${WINDOW:-64}
TOP=${TOP:-25}
OUT=${OUT:-bench/results/cgmsgrate-$(date -u +%Y%m%dT%H%M%SZ)}
for v in "$ITERS" "$SIZE" "$WINDOW" "$TOP"; do
	[[ $v =~ ^[0-9]+$ ]] || {
		echo "callgrind_msgrate: ITERS, SIZE, WINDOW and TOP take whole numbers, got '$v'" >&2
		exit 2
	}
done
((ITERS > 0 && WINDOW > 0)) || { echo "callgrind_msgrate: ITERS and WINDOW must be positive" >&2; exit 2; }
command -v valgrind >/dev/null || {
	echo "callgrind_msgrate: valgrind is not installed (apt-get install valgrind)" >&2
	exit 1
}
[[ -x bin/hympicc ]] || {
	echo "callgrind_msgrate: bin/hympicc is missing: run make first" >&2
	exit 1
}

mkdir -p "$OUT"
go build -o bin/ ./cmd/hympirun ./bench/cg_msgrate
bin/hympicc -O2 -g -o bin/cg_msgrate_c bench/c/cg_msgrate.c

# Go's asynchronous preemption signals trip an assertion in callgrind.
export GODEBUG=asyncpreemptoff=1

run() { # name prog args...
	local name=$1
	shift
	rm -f "$OUT/flags.$name"
	bin/hympirun -n 2 --timeout 600s valgrind --tool=callgrind --separate-threads=yes \
		--callgrind-out-file="$OUT/$name.%p" "$@" -i "$ITERS" -m "$SIZE" -w "$WINDOW" -flags "$OUT/flags.$name" \
		>"$OUT/$name.log" 2>&1 || {
		echo "callgrind_msgrate: the $name run failed, see $OUT/$name.log" >&2
		exit 1
	}
	rm -f "$OUT/flags.$name"
}

inclusive() { # FILE FUNC
	callgrind_annotate --auto=no --inclusive=yes --threshold=100 "$1" 2>/dev/null |
		awk -v f="$2 [" 'index($0, f) { v = $1; gsub(",", "", v); s += v } END { print s + 0 }'
}

echo "callgrind_msgrate: $ITERS windows of $WINDOW x $SIZE B per run, outputs in $OUT" >&2
run go bin/cg_msgrate
run goin bin/cg_msgrate -in
run c bin/cg_msgrate_c

n=$((ITERS * WINDOW))
echo "### Instructions per $SIZE-byte message of a window of $WINDOW (callgrind, $ITERS windows)"
echo
echo "| Path | Rank | Isend or Irecv | Waitall | Per message |"
echo "|---|---:|---:|---:|---:|"
for name in go goin; do
	for f in "$OUT"/$name.*-01; do
		pid=${f##*/$name.}
		pid=${pid%-01}
		post=0 wait=0
		for t in "$OUT"/$name."$pid"-*; do
			post=$((post + $(inclusive "$t" 'main.(*ops).sendWindow') + $(inclusive "$t" 'main.(*ops).postWindow')))
			wait=$((wait + $(inclusive "$t" 'main.(*ops).wait')))
		done
		awk -v p="$post" -v w="$wait" -v n="$n" -v who="pid $pid" -v name="$name" 'BEGIN {
			printf "| hympi-Go (%s) | %s | %.0f | %.0f | %.0f |\n", name == "go" ? "Isend/Irecv/Waitall" : "IsendIn/IrecvIn/WaitallInto", who, p / n, w / n, (p + w) / n }'
	done
done
for f in "$OUT"/c.*.1-01; do
	pid=${f##*/c.}
	pid=${pid%.1-01}
	total=$(sed -n 's/^summary: *//p' "$f" | awk 'NR == 1')
	wait=$(callgrind_annotate --auto=no --threshold=100 "$f" 2>/dev/null | awk '/await_peer/ { gsub(",", "", $1); s += $1 } END { print s + 0 }')
	awk -v t="$total" -v w="$wait" -v n="$n" -v who="pid $pid" 'BEGIN {
		printf "| hympi-C (calling thread, incl. 1/W of the ack) | %s | | | %.0f |\n", who, (t - w) / n }'
done
echo
for f in "$OUT"/c.*.1-01; do
	echo "Top functions of the C ABI windows ($(basename "$f")), self instructions per message:"
	echo
	echo '```'
	callgrind_annotate --auto=no --threshold=100 "$f" 2>/dev/null |
		awk -v n="$n" '/^ *[0-9,]+ \(/ && !/PROGRAM TOTALS/ && !/await_peer/ {
			v = $1; gsub(",", "", v); fn = $0; sub(/^ *[0-9,]+ +\([^)]*\) +/, "", fn); sub(/ \[.*$/, "", fn); sub(/^.*:/, "", fn)
			printf "%8.1f  %s\n", v / n, fn }' | awk -v top="$TOP" 'NR <= top'
	echo '```'
done
