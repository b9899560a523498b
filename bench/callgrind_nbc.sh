#!/usr/bin/env bash
# callgrind_nbc.sh: instructions of the C ABI's nonblocking and persistent
# collectives at 2 ranks, 8 B, start, test and wait apart (bench/c/cg_nbc.c
# says what each phase measures). Rank 1 runs under valgrind; the figure of
# each phase is the median over ITERS iterations of the instructions
# collected around its measured calls.
#
# Usage: bench/callgrind_nbc.sh    Environment: ITERS (default 40), OUT
set -euo pipefail

cd "$(dirname "$0")/.."
ITERS=${ITERS:-40}
OUT=${OUT:-bench/results/callgrind-nbc-$(date -u +%Y%m%dT%H%M%SZ)}
[[ $ITERS =~ ^[0-9]+$ ]] && ((ITERS > 0)) || { echo "callgrind_nbc: ITERS takes a positive number" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "callgrind_nbc: valgrind is not installed" >&2; exit 1; }
[[ -x bin/hympicc ]] || { echo "callgrind_nbc: bin/hympicc is missing: run make first" >&2; exit 1; }
mkdir -p "$OUT"
go build -o bin/ ./cmd/hympirun
bin/hympicc -O2 -g -o bin/cg_nbc_c bench/c/cg_nbc.c
export GODEBUG=asyncpreemptoff=1
# shellcheck disable=SC2016 # expanded by the rank's shell
bin/hympirun -n 2 --timeout 900s /bin/sh -c '
	if [ "$HYMPI_RANK" = 1 ]; then
		exec valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$1/o" bin/cg_nbc_c "$2"
	fi
	exec bin/cg_nbc_c "$2"' sh "$OUT" "$ITERS" >"$OUT/run.log" 2>&1 || {
	echo "callgrind_nbc: the run failed, see $OUT/run.log" >&2
	exit 1
}
names=$(sed -n 's/^phases: //p' "$OUT/run.log")
echo "### C nonblocking and persistent collectives, 2 ranks, 8 B, rank 1 (median instructions, $ITERS calls)"
echo
echo "| Phase | Instructions |"
echo "|---|---:|"
for k in $(seq 0 12); do
	med=$(for j in $(seq 1 "$ITERS"); do
		sed -n 's/^summary: *//p' "$OUT/o.$((k * ITERS + j))" | head -1
	done | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
	name=$(echo "$names" | tr ';' '\n' | sed -n "s/^ *$k=//p")
	echo "| $name | $med |"
done
