#!/usr/bin/env bash
# modes.sh: hympi's protocols side by side, point to point, on this machine.
#
# Runs hympi's Go benchmarks under bin/hympirun with HYMPI_DIRECT=off (shared
# memory for every size), auto (the hybrid: shared memory up to the
# per-peer threshold, direct copy above) and always (direct copy for every
# non-empty message), for each buffer policy (-buffers reuse: OSU's one hot
# buffer; fresh: a pool larger than the caches). The three modes run one
# after the other within each repetition, in an order that rotates from one
# repetition to the next, so that all of them see the same machine weather.
# Then it prints one Markdown table per benchmark and buffer policy: per
# size the median of each mode over the repetitions, and the hybrid against
# the better pure protocol at that size, auto / best(off, always): max for
# bandwidth (above 1 the hybrid beats both), min for latency (below 1 it
# does). Near 1 is what the hybrid is for; well below (bandwidth) or above
# (latency) means its threshold is in the wrong place for that size.
#
# Usage: bench/modes.sh [REPS]        (default 5; or REPS=N in the env)
#
# Environment:
#   REPS         repetitions (default 5)
#   BENCHES      benchmarks, of: bw latency bibw mbw_mr (default "bw latency bibw")
#   BUFFERS      buffer policies (default "reuse fresh")
#   LAT_SIZES    latency sizes, MIN:MAX (default 0:4194304)
#   BW_SIZES     bw, bibw and mbw_mr sizes, MIN:MAX (default 1:4194304)
#   MBW_RANKS    ranks of osu_mbw_mr (default 4)
#   POOL         MiB per pool under -buffers fresh (default: the benchmarks',
#                the last-level cache within 64 MiB-1 GiB)
#   OUT          directory for the raw outputs and table.md
#                (default bench/results/modes-<UTC time>)
#   WITH_OMPI=1  adds Open MPI (bench/c/osu_pt2pt.c, same buffer policy) to
#                the bw tables over OMPI_SIZES (default 65536:4194304), with
#                the ratio auto / Open MPI; installs Open MPI if missing
#                (see bench/ompi.sh)
#   OMPI_SINGLE_COPY  Open MPI's single-copy mechanism (default cma, the
#                mechanism of hympi's direct protocol; empty: Open MPI's choice)
#   RUN_TIMEOUT  seconds per run (default 300)
#   HYMPI_*      passed to every hympi rank, but HYMPI_DIRECT, which this sets
set -euo pipefail

cd "$(dirname "$0")/.."

REPS=${1:-${REPS:-5}}
BENCHES=${BENCHES:-bw latency bibw}
BUFFERS=${BUFFERS:-reuse fresh}
LAT_SIZES=${LAT_SIZES:-0:4194304}
BW_SIZES=${BW_SIZES:-1:4194304}
MBW_RANKS=${MBW_RANKS:-4}
POOL=${POOL:-}
WITH_OMPI=${WITH_OMPI:-0}
OMPI_SIZES=${OMPI_SIZES:-65536:4194304}
OMPI_SINGLE_COPY=${OMPI_SINGLE_COPY-cma}
# Per-run ceiling: a hung job must fail the comparison, not stall it.
RUN_TIMEOUT=${RUN_TIMEOUT:-300}
MODES=(off auto always)

usage_error() {
	echo "modes: $*" >&2
	exit 2
}
[[ $REPS =~ ^[1-9][0-9]*$ ]] || usage_error "REPS must be a positive integer, got '$REPS'"
[[ $MBW_RANKS =~ ^[1-9][0-9]*$ ]] && ((MBW_RANKS % 2 == 0)) ||
	usage_error "MBW_RANKS must be a positive even number, got '$MBW_RANKS'"
[[ -z $POOL || $POOL =~ ^[1-9][0-9]*$ ]] || usage_error "POOL must be a number of MiB, got '$POOL'"
for b in $BENCHES; do
	[[ $b =~ ^(bw|latency|bibw|mbw_mr)$ ]] || usage_error "unknown benchmark '$b' in BENCHES (want bw, latency, bibw, mbw_mr)"
done
for f in $BUFFERS; do
	[[ $f =~ ^(reuse|fresh)$ ]] || usage_error "unknown buffer policy '$f' in BUFFERS (want reuse, fresh)"
done

mkdir -p bin
go build -o bin/ ./cmd/hympirun ./bench/osu_latency ./bench/osu_bw ./bench/osu_bibw ./bench/osu_mbw_mr ./bench/cmd/osutable
ompi=0
if [[ $WITH_OMPI == 1 && " $BENCHES " == *" bw "* ]]; then
	ompi=1
	# shellcheck source=bench/ompi.sh
	source bench/ompi.sh
	ompi_setup "$OMPI_SINGLE_COPY"
fi

# Every HYMPI_ variable of the caller goes to the ranks, except the one this
# script varies: -x after it would be overridden, but a stray value in the
# table's footer would mislead.
hympi_env=()
for v in $(compgen -e | grep '^HYMPI_' | grep -v '^HYMPI_DIRECT$' || true); do
	hympi_env+=(-x "$v")
done

# bench/results/ is git-ignored: runs accumulate there for later reading.
OUT=${OUT:-bench/results/modes-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$OUT"
# osutable takes every run it finds: old runs in a reused OUT would be
# counted as repetitions of this one.
if compgen -G "$OUT/*.txt" >/dev/null; then
	echo "modes: $OUT already holds outputs; choose an empty OUT" >&2
	exit 2
fi

# Each run's stdout and stderr go to one file: osutable skips launcher
# noise, and a failed run keeps its error next to its partial table.
fail() {
	echo "modes: $1 run failed; its output ($2):" >&2
	cat "$2" >&2
	exit 1
}
buffer_args() { # policy
	echo "-buffers $1"
	if [[ $1 == fresh && -n $POOL ]]; then echo "-pool $POOL"; fi
}
run_hympi() { # bench buffers mode rep
	local n=2 sizes=$BW_SIZES out="$OUT/$1.$2.$3.$4.txt"
	[[ $1 == latency ]] && sizes=$LAT_SIZES
	[[ $1 == mbw_mr ]] && n=$MBW_RANKS
	# hympirun's own --timeout stops the ranks; timeout(1) is the backstop
	# should the launcher itself hang.
	# shellcheck disable=SC2046 # buffer_args is words by design
	timeout $((RUN_TIMEOUT + 30)) bin/hympirun -n "$n" --bind-to core --timeout "${RUN_TIMEOUT}s" \
		"${hympi_env[@]}" -x "HYMPI_DIRECT=$3" "bin/osu_$1" -m "$sizes" $(buffer_args "$2") \
		>"$out" 2>&1 || fail "hympi osu_$1 -buffers $2 HYMPI_DIRECT=$3" "$out"
}
run_ompi() { # buffers rep
	local out="$OUT/bw.$1.ompi.$2.txt" b=(-b "$1")
	[[ $1 == fresh && -n $POOL ]] && b+=(-pool "$POOL")
	timeout "$RUN_TIMEOUT" mpirun.openmpi "${ompi_args[@]}" bin/osu_pt2pt.openmpi bw -m "$OMPI_SIZES" "${b[@]}" \
		>"$out" 2>&1 || fail "Open MPI bw -b $1" "$out"
}

echo "modes: $REPS repetitions of $BENCHES x buffers $BUFFERS x HYMPI_DIRECT ${MODES[*]}; raw outputs in $OUT" >&2
if ((ompi)); then
	echo "modes: Open MPI: mpirun.openmpi ${ompi_args[*]}" >&2
fi
for ((r = 1; r <= REPS; r++)); do
	echo "modes: repetition $r/$REPS" >&2
	for bench in $BENCHES; do
		for buf in $BUFFERS; do
			runs=("${MODES[@]}")
			[[ $bench == bw ]] && ((ompi)) && runs+=(ompi)
			# Rotate who goes first, so no mode always runs on a machine
			# another has just warmed (caches, frequency) or disturbed.
			k=$(((r - 1) % ${#runs[@]}))
			for run in "${runs[@]:k}" "${runs[@]:0:k}"; do
				if [[ $run == ompi ]]; then
					run_ompi "$buf" "$r"
				else
					run_hympi "$bench" "$buf" "$run" "$r"
				fi
			done
		done
	done
done

title() { # bench
	case $1 in
	latency) echo "osu_latency, 2 ranks" ;;
	bw) echo "osu_bw, 2 ranks, window 64" ;;
	bibw) echo "osu_bibw, 2 ranks, window 64, both directions" ;;
	mbw_mr) echo "osu_mbw_mr, $MBW_RANKS ranks ($((MBW_RANKS / 2)) pairs), window 64" ;;
	esac
}
{
	echo "## hympi protocol modes: HYMPI_DIRECT=off / auto / always ($(nproc) CPUs, $(date -u +%Y-%m-%d), $REPS repetitions)"
	for bench in $BENCHES; do
		for buf in $BUFFERS; do
			echo
			echo "### $(title "$bench"), $buf buffers"
			echo
			# Flags first: osutable's flags end at the first NAME=FILE.
			args=(-ratio 'auto/best(off,always)')
			sets=()
			for m in "${MODES[@]}"; do
				sets+=("$m=$OUT/$bench.$buf.$m.*.txt")
			done
			if [[ $bench == bw ]] && ((ompi)); then
				args+=(-ratio 'auto/Open MPI')
				sets+=("Open MPI=$OUT/bw.$buf.ompi.*.txt")
			fi
			bin/osutable "${args[@]}" "${sets[@]}"
		done
	done
	echo
	echo "hympi: bin/hympirun -n 2 --bind-to core${hympi_env[*]:+ ${hympi_env[*]}} -x HYMPI_DIRECT=MODE bin/osu_BENCH -buffers BUFFERS (osu_mbw_mr: -n $MBW_RANKS); $(git describe --always --dirty 2>/dev/null || echo 'unknown version')"
	if [[ " $BUFFERS " == *" fresh "* ]]; then
		# The benchmarks' titles say how large a pool they chose.
		pool=$(sed -n 's/.*fresh buffers (\(pool of [0-9]* MiB per side\)).*/\1/p' "$OUT"/*.fresh.auto.1.txt | head -1)
		echo "fresh buffers: ${pool:-see the outputs}"
	fi
	if ((ompi)); then
		echo "Open MPI: $(mpirun.openmpi --version 2>/dev/null | head -1), ${ompi_args[*]}; single copy: $ompi_single_copy"
	fi
} | tee "$OUT/table.md"
