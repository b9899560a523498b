#!/usr/bin/env bash
# callgrind_coll.sh: what one small collective costs a rank in
# instructions, counted with valgrind --tool=callgrind (the same figure on
# a loaded machine, unlike a clock). Method and figures:
# docs/bench/coll-callgrind.md.
#
# Runs bench/cg_coll (Go API) and bench/c/cg_coll.c (C ABI) under
# bin/hympirun with NP ranks; only the MEASURED rank runs under valgrind,
# and it calls each collective last (the others have published their
# first messages by then; see the programs), so the count holds the call's
# work and not a wait's polling. Prints, per collective, the instructions
# per call of the blocking form and of the nonblocking form waited at
# once (MPI_I* + MPI_Wait), from Go and from C:
#   Go: inclusive instructions of main.cg<Name>, every thread's file;
#   C:  the calling thread's instructions over the collective's loop
#       (zeroed after its warm-up, dumped after it) less await_peers
#       (inclusive: its clock reads too).
#
# Usage: bench/callgrind_coll.sh          (make bench-callgrind-coll)
# Environment: ITERS (default 200), SIZE (default 8, a multiple of 4),
#              NP (default 2), MEASURED (default "0 1": one run per rank),
#              OUT (default bench/results/callgrind-coll-<UTC time>),
#              ONLY (Go collectives to measure, in pairs of blocking and
#              nonblocking form, e.g. "Gather Igather Exscan Iexscan"; the
#              C program is not run then and its columns are empty),
#              GO_ONLY=1 (all Go collectives, no C run)
#              LANGS (default "go c": which programs run; a cell of a
#              program not run, or of a collective it lacks, prints "-")
set -euo pipefail

cd "$(dirname "$0")/.."
ITERS=${ITERS:-200}
SIZE=${SIZE:-8}
NP=${NP:-2}
MEASURED=${MEASURED:-0 1}
LANGS=${LANGS:-go c}
OUT=${OUT:-bench/results/callgrind-coll-$(date -u +%Y%m%dT%H%M%SZ)}
for v in "$ITERS" "$SIZE" "$NP" $MEASURED; do
	[[ $v =~ ^[0-9]+$ ]] || {
		echo "callgrind_coll: ITERS, SIZE, NP and MEASURED take whole numbers, got '$v'" >&2
		exit 2
	}
done
((ITERS > 0 && SIZE >= 4 && SIZE % 4 == 0 && NP >= 2)) || {
	echo "callgrind_coll: want ITERS > 0, SIZE a positive multiple of 4, NP >= 2" >&2
	exit 2
}
for l in $LANGS; do
	[[ $l == go || $l == c ]] || { echo "callgrind_coll: LANGS takes go and c, got '$l'" >&2; exit 2; }
done
has() { [[ " $LANGS " == *" $1 "* ]]; }
for m in $MEASURED; do
	((m < NP)) || { echo "callgrind_coll: MEASURED rank $m is not below NP=$NP" >&2; exit 2; }
done
command -v valgrind >/dev/null || {
	echo "callgrind_coll: valgrind is not installed (apt-get install valgrind)" >&2
	exit 1
}
[[ -x bin/hympicc ]] || {
	echo "callgrind_coll: bin/hympicc is missing: run make first" >&2
	exit 1
}

mkdir -p "$OUT"
go build -o bin/ ./cmd/hympirun ./bench/cg_coll

# Go's asynchronous preemption signals trip an assertion in callgrind.
export GODEBUG=asyncpreemptoff=1
COLLS=(Barrier Ibarrier Bcast Ibcast Allreduce Iallreduce Reduce Ireduce Scan Iscan
	ReduceScatterBlock IreduceScatterBlock Scatterv Iscatterv Allgather Iallgather Alltoallv Ialltoallv
	Gather Igather Scatter Iscatter Alltoall Ialltoall Gatherv Igatherv Allgatherv Iallgatherv
	Exscan Iexscan NeighborAllgather IneighborAllgather)

ONLY=${ONLY:-}
GO_ONLY=${GO_ONLY:-}
if [[ -n $ONLY ]]; then
	read -ra COLLS <<<"$ONLY"
	GO_ONLY=1
	((${#COLLS[@]} % 2 == 0)) || {
		echo "callgrind_coll: ONLY takes pairs (blocking nonblocking), got '$ONLY'" >&2
		exit 2
	}
fi
[[ -z $GO_ONLY ]] || LANGS=go
if has c; then bin/hympicc -O2 -g -o bin/cg_coll_c bench/c/cg_coll.c; fi
goonly=$(
	IFS=,
	echo "${COLLS[*]}"
)

run() { # name measured prog
	rm -f "$OUT/flags.$1"
	# shellcheck disable=SC2016 # expanded by the rank's shell
	bin/hympirun -n "$NP" --timeout 900s /bin/sh -c '
		if [ "$HYMPI_RANK" = "$1" ]; then
			exec valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$2" "$3" -measured "$1" -i "$4" -m "$5" -flags "$6" $7
		fi
		exec "$3" -measured "$1" -i "$4" -m "$5" -flags "$6" $7' sh \
		"$2" "$OUT/$1.%p" "$3" "$ITERS" "$SIZE" "$OUT/flags.$1" "${4:-}" >"$OUT/$1.log" 2>&1 || {
		echo "callgrind_coll: the $1 run failed, see $OUT/$1.log" >&2
		exit 1
	}
	rm -f "$OUT/flags.$1"
}

# inclusive FILE FUNC: the inclusive instructions of the function whose
# callgrind_annotate name ends in FUNC.
inclusive() {
	callgrind_annotate --auto=no --inclusive=yes --threshold=100 "$1" 2>/dev/null |
		awk -v f="$2 [" 'index($0, f) { v = $1; gsub(",", "", v); s += v } END { print s + 0 }'
}

echo "callgrind_coll: $NP ranks, $ITERS calls of $SIZE B per collective, outputs in $OUT" >&2
for m in $MEASURED; do
	if [[ -n $GO_ONLY ]]; then
		run "go$m" "$m" bin/cg_coll "-only $goonly"
	else
		if has go; then run "go$m" "$m" bin/cg_coll; fi
		if has c; then run "c$m" "$m" bin/cg_coll_c; fi
	fi
done

calls=$((ITERS + 10)) # the Go figure includes the 10 warm-up calls
echo "### Instructions per call, $SIZE B, $NP ranks (callgrind, $ITERS calls)"
echo
echo "| Collective | Rank | Go blocking | Go nb+wait | C blocking | C nb+wait |"
echo "|---|---:|---:|---:|---:|---:|"
for m in $MEASURED; do
	gofiles=()
	if has go; then
		gopid=$(ls "$OUT"/go"$m".*-01 | awk 'NR == 1')
		gopid=${gopid%-01}
		# The main goroutine may run on any thread: add up every thread's file.
		gofiles=("$gopid"-*)
	fi
	cpid=
	if has c; then
		cpid=$(ls "$OUT"/c"$m".*.1-01 | awk 'NR == 1')
		cpid=${cpid%.1-01}
	fi
	for ((i = 0; i < ${#COLLS[@]}; i += 2)); do
		row=("${COLLS[i]}" "${COLLS[i + 1]}")
		cells=()
		for name in "${row[@]}"; do
			s=0
			for t in "${gofiles[@]}"; do
				s=$((s + $(inclusive "$t" "main.cg$name")))
			done
			cells+=("$(awk -v s="$s" -v n="$calls" 'BEGIN { if (s == 0) print "-"; else printf "%.0f", s / n }')")
		done
		for k in $((i + 1)) $((i + 2)); do
			if [[ -n $GO_ONLY ]]; then
				cells+=("")
				continue
			fi
			f="$cpid.$k-01"
			if [[ -z $cpid || ! -f $f ]]; then
				cells+=("-")
				continue
			fi
			total=$(sed -n 's/^summary: *//p' "$f" | awk 'NR == 1')
			wait=$(inclusive "$f" await_peers)
			cells+=("$(awk -v t="$total" -v w="$wait" -v n="$ITERS" 'BEGIN { printf "%.0f", (t - w) / n }')")
		done
		echo "| ${COLLS[i]} | $m | ${cells[0]} | ${cells[1]} | ${cells[2]} | ${cells[3]} |"
	done
done
