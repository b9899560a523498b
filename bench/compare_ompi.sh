#!/usr/bin/env bash
# compare_ompi.sh: hympi against Open MPI, point to point, on this machine.
#
# Runs hympi's Go osu_latency/osu_bw (under bin/hympirun) and the same
# algorithm in C (bench/c/osu_pt2pt.c) under Open MPI, interleaved within
# each repetition so that both see the same machine weather, then prints
# two Markdown tables (latency 0 B-8 KiB, bandwidth 1 KiB-4 MiB) of medians
# over the repetitions with the ratio hympi / Open MPI.
#
# Usage: bench/compare_ompi.sh [REPS]        (default 5; or REPS=N in the env)
#
# Environment:
#   REPS              repetitions (default 5)
#   OUT               directory for the raw outputs and table.md
#                     (default bench/results/compare-ompi-<UTC time>)
#   LAT_SIZES         latency sizes, MIN:MAX (default 0:8192)
#   BW_SIZES          bandwidth sizes, MIN:MAX (default 1024:4194304)
#   OMPI_SINGLE_COPY  Open MPI's vader single-copy mechanism: none (default,
#                     copy-in/copy-out through shared memory) or cma
#                     (process_vm_readv, the mechanism hympi's direct
#                     protocol uses); empty keeps Open MPI's own choice
#   HYMPI_*           passed to every hympi rank (e.g. HYMPI_DIRECT=off)
#
# Installs Open MPI with apt-get when mpicc.openmpi is missing (needs root;
# see bench/ompi.sh).
set -euo pipefail

cd "$(dirname "$0")/.."

REPS=${1:-${REPS:-5}}
LAT_SIZES=${LAT_SIZES:-0:8192}
BW_SIZES=${BW_SIZES:-1024:4194304}
OMPI_SINGLE_COPY=${OMPI_SINGLE_COPY-none}
# Per-run ceiling: a hung job must fail the comparison, not stall it.
RUN_TIMEOUT=${RUN_TIMEOUT:-300}

if ! [[ $REPS =~ ^[1-9][0-9]*$ ]]; then
	echo "compare_ompi: REPS must be a positive integer, got '$REPS'" >&2
	exit 2
fi

# shellcheck source=bench/ompi.sh
source bench/ompi.sh
ompi_setup "$OMPI_SINGLE_COPY"
go build -o bin/ ./cmd/hympirun ./bench/osu_latency ./bench/osu_bw ./bench/cmd/osutable

hympi_args=(-n 2 --bind-to core --timeout "${RUN_TIMEOUT}s")
for v in $(compgen -e | grep '^HYMPI_' || true); do
	hympi_args+=(-x "$v")
done

# bench/results/ is git-ignored: runs accumulate there for later reading.
OUT=${OUT:-bench/results/compare-ompi-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$OUT"
# osutable takes every run it finds: old runs in a reused OUT would be
# counted as repetitions of this one.
if compgen -G "$OUT/*.txt" >/dev/null; then
	echo "compare_ompi: $OUT already holds outputs; choose an empty OUT" >&2
	exit 2
fi

# Each run's stdout and stderr go to one file: osutable skips launcher noise,
# and a failed run keeps its error next to its partial table.
sizes_of() { # kind
	if [[ $1 == bw ]]; then echo "$BW_SIZES"; else echo "$LAT_SIZES"; fi
}
run_hympi() { # kind rep
	local prog=osu_latency out="$OUT/$1.hympi.$2.txt"
	[[ $1 == bw ]] && prog=osu_bw
	# hympirun's own --timeout stops the ranks; timeout(1) is the backstop
	# should the launcher itself hang.
	timeout $((RUN_TIMEOUT + 30)) bin/hympirun "${hympi_args[@]}" "bin/$prog" -m "$(sizes_of "$1")" \
		>"$out" 2>&1 || fail "hympi $1" "$out"
}
run_ompi() { # kind rep
	local mode=latency out="$OUT/$1.ompi.$2.txt"
	[[ $1 == bw ]] && mode=bw
	timeout "$RUN_TIMEOUT" mpirun.openmpi "${ompi_args[@]}" bin/osu_pt2pt.openmpi "$mode" -m "$(sizes_of "$1")" \
		>"$out" 2>&1 || fail "Open MPI $1" "$out"
}
fail() {
	echo "compare_ompi: $1 run failed; its output ($2):" >&2
	cat "$2" >&2
	exit 1
}

echo "compare_ompi: $REPS repetitions, raw outputs in $OUT" >&2
echo "compare_ompi: Open MPI: mpirun.openmpi ${ompi_args[*]}" >&2
echo "compare_ompi: hympi:    bin/hympirun ${hympi_args[*]}" >&2
for ((r = 1; r <= REPS; r++)); do
	echo "compare_ompi: repetition $r/$REPS" >&2
	# Alternate who goes first, so neither side always runs on a machine
	# the other has just warmed (caches, frequency) or disturbed.
	for kind in lat bw; do
		if ((r % 2)); then
			run_hympi $kind $r
			run_ompi $kind $r
		else
			run_ompi $kind $r
			run_hympi $kind $r
		fi
	done
done

{
	echo "### Point-to-point latency, 2 ranks ($(nproc) CPUs, $(date -u +%Y-%m-%d))"
	echo
	bin/osutable hympi="$OUT/lat.hympi.*.txt" "Open MPI=$OUT/lat.ompi.*.txt"
	echo
	echo "### Point-to-point bandwidth, 2 ranks, window 64"
	echo
	bin/osutable hympi="$OUT/bw.hympi.*.txt" "Open MPI=$OUT/bw.ompi.*.txt"
	echo
	echo "Open MPI: $(mpirun.openmpi --version 2>/dev/null | head -1), ${ompi_args[*]}"
} | tee "$OUT/table.md"
