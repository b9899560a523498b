#!/usr/bin/env bash
# skew.sh: the LiMIC2 study's process-skew benchmark in hympi's three protocol modes.
#
# Runs bench/osu_skew under bin/hympirun -n 2 with HYMPI_DIRECT=off (all
# shared memory), auto (thresholds, skew feedback) and always (all direct
# copy), interleaved within each repetition and in a rotating order so that
# no mode always runs first on a cold or last on a warm machine. Then prints
# a Markdown table of the producer time per (S, c2), medians over the
# repetitions, with the ratios auto/off and auto/always, and writes plots of
# producer time against c2 with bench/plot/cmd/skewplot.
#
# Usage: bench/skew.sh [REPS]        (default 3; or REPS=N in the env)
#
# Environment:
#   REPS         repetitions (default 3)
#   OUT          directory for the raw outputs, table.md and the plots
#                (default bench/results/skew-<UTC time>); must hold no outputs
#   SIZES        message sizes, comma-separated (default 64K,256K,1M)
#   C2           consumer compute per message in µs (default 0,10,50,100,200,500)
#   WINDOW       Isends per window, osu_skew -n (default 16)
#   C1           producer compute per message in µs (default 1)
#   ITERS        timed iterations per row, median reported (default 20)
#   WARMUP       warm-up iterations per row (default 2)
#   PLOT_S       size of skew.svg (default: the last of SIZES); skew-<S>.svg is
#                written for every size
#   RUN_TIMEOUT  seconds per run before it counts as hung (default 300)
#   FRESH        1: every size in a process of its own, as a job that streams
#                one size meets it (default 0: one process sweeps the sizes,
#                and each size starts from the threshold the last one left)
#   BEFORE       a directory holding another build of osu_skew (e.g. of the
#                commit before a change): adds the column "before", that
#                build under HYMPI_DIRECT=auto, for a same-run A/B of auto
#   HYMPI_*      passed to every rank (HYMPI_DIRECT excepted: this script sets it)
#
# Writes OUT/<mode>.<rep>.txt, OUT/table.md (the table, then per-mode details:
# the seed's formulas next to the measurement, and the counters), OUT/skew.svg
# and OUT/skew-<S>.svg.
set -euo pipefail

cd "$(dirname "$0")/.."

REPS=${1:-${REPS:-3}}
SIZES=${SIZES:-64K,256K,1M}
C2=${C2:-0,10,50,100,200,500}
WINDOW=${WINDOW:-16}
C1=${C1:-1}
ITERS=${ITERS:-20}
WARMUP=${WARMUP:-2}
PLOT_S=${PLOT_S:-${SIZES##*,}}
RUN_TIMEOUT=${RUN_TIMEOUT:-300}
FRESH=${FRESH:-0}
MODES=(off auto always)
BEFORE=${BEFORE:-}
if [[ -n $BEFORE ]]; then
	[[ -x $BEFORE/osu_skew ]] || { echo "skew: no $BEFORE/osu_skew" >&2; exit 2; }
	MODES+=(before)
fi

if ! [[ $REPS =~ ^[1-9][0-9]*$ ]]; then
	echo "skew: REPS must be a positive integer, got '$REPS'" >&2
	exit 2
fi

mkdir -p bin
go build -o bin/ ./cmd/hympirun ./bench/osu_skew ./bench/plot/cmd/skewplot

hympi_args=(-n 2 --bind-to core --timeout "${RUN_TIMEOUT}s")
for v in $(compgen -e | grep '^HYMPI_' || true); do
	[[ $v == HYMPI_DIRECT ]] || hympi_args+=(-x "$v")
done
skew_args=(-c2 "$C2" -n "$WINDOW" -c1 "$C1" -i "$ITERS" -x "$WARMUP")

# bench/results/ is git-ignored: runs accumulate there for later reading.
OUT=${OUT:-bench/results/skew-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$OUT"
# skewplot takes every run it is given: old runs in a reused OUT would be
# counted as repetitions of this one.
if compgen -G "$OUT/*.txt" >/dev/null; then
	echo "skew: $OUT already holds outputs; choose an empty OUT" >&2
	exit 2
fi

run_mode() { # mode rep
	local out="$OUT/$1.$2.txt" runs=("$SIZES") s mode=$1 prog=bin/osu_skew
	[[ $1 == before ]] && mode=auto prog=$BEFORE/osu_skew
	[[ $FRESH == 1 ]] && IFS=, read -ra runs <<<"$SIZES"
	: >"$out"
	for s in "${runs[@]}"; do
		# hympirun's own --timeout stops the ranks; timeout(1) is the
		# backstop should the launcher itself hang.
		if ! timeout $((RUN_TIMEOUT + 30)) bin/hympirun "${hympi_args[@]}" -x "HYMPI_DIRECT=$mode" \
			"$prog" -S "$s" "${skew_args[@]}" >>"$out" 2>&1; then
			echo "skew: HYMPI_DIRECT=$1 run $2 failed; its output ($out):" >&2
			cat "$out" >&2
			exit 1
		fi
	done
}

echo "skew: $REPS repetitions, raw outputs in $OUT" >&2
echo "skew: bin/hympirun ${hympi_args[*]} -x HYMPI_DIRECT=<mode> bin/osu_skew -S ${SIZES} ${skew_args[*]} (FRESH=$FRESH)" >&2
for ((r = 1; r <= REPS; r++)); do
	echo "skew: repetition $r/$REPS" >&2
	for ((k = 0; k < ${#MODES[@]}; k++)); do
		run_mode "${MODES[(k + r - 1) % ${#MODES[@]}]}" "$r"
	done
done

sets=()
for m in "${MODES[@]}"; do
	sets+=("$m=$OUT/$m.*.txt")
done
{
	echo "### Process skew: osu_skew, 2 ranks ($(nproc) CPUs, $(date -u +%Y-%m-%d))"
	echo
	bin/skewplot -md - "${sets[@]}"
	echo
	bin/skewplot -details - "${sets[@]}"
} >"$OUT/table.md"
bin/skewplot -S "$PLOT_S" -o "$OUT/skew.svg" "${sets[@]}"
IFS=, read -ra sizes <<<"$SIZES"
for s in "${sizes[@]}"; do
	bin/skewplot -S "$s" -o "$OUT/skew-$s.svg" "${sets[@]}"
done

bin/skewplot -md - "${sets[@]}"
echo "skew: table and details in $OUT/table.md, plot in $OUT/skew.svg" >&2
