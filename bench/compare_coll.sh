#!/usr/bin/env bash
# compare_coll.sh: every collective of hympi against Open MPI's (and
# MPICH's), on this machine, in one interleaved run.
#
# One program measures every collective (barrier, bcast, gather(v),
# scatter(v), allgather(v), alltoall(v), reduce, allreduce,
# reduce_scatter(_block), scan, exscan) at each size of SIZES in three
# forms — blocking, nonblocking waited at once, persistent — and OSU's
# overlap of Iallreduce, Ibcast and Ialltoall, checking each result once
# before timing it: bench/c/osu_colls.c built with bin/hympicc (hympi-C),
# mpicc.openmpi and mpicc.mpich, and its Go twin bench/osu_colls
# (hympi-Go). Each job size of RANKS runs every implementation once per
# repetition, in an order that rotates between repetitions. Open MPI runs
# with its tuned collectives over the shared-memory BTL (--oversubscribe
# --bind-to none --mca mpi_yield_when_idle 1 beyond the CPU count);
# MPICH only up to MPICH_MAX_RANKS (default: the CPU count, since an
# oversubscribed MPICH polls and takes hundreds of milliseconds a call).
#
# Prints the CPU model and, per job size, each collective and size as the
# median of Open MPI in µs and of the others as ratios to it, hympi's
# nonblocking/blocking and persistent/blocking ratios, then the overlap
# table; writes it to RESULT, and the short form (one row per collective)
# beside it, RESULT with -summary.md for .md.
#
# Usage: bench/compare_coll.sh [REPS]   (or make compare-coll [REPS=N] [QUICK=1])
#
# Environment:
#   REPS            repetitions (default 3; QUICK: 1)
#   QUICK=1         about two minutes: 8 B, 64 KiB and 1 MiB, 2 and 4 ranks, -i 30
#   IMPLS           of hympi-C hympi-Go ompi mpich (default all; ompi required)
#   RANKS           job sizes (default "2 4 8")
#   SIZES           message sizes in bytes (default "8 1024 65536 1048576 4194304")
#   ITERS           osu_colls -i: timed iterations up to 16 KiB, fewer above (default 100)
#   TESTS           MPI_Test calls spread over each overlap compute phase, one run each (default "0 8")
#   MPICH_MAX_RANKS largest MPICH job (default the CPU count)
#   RESULT          the table (default bench/results/compare-coll.md)
#   OUT             raw outputs (default bench/results/compare-coll-<UTC time>)
#   RUN_TIMEOUT     seconds per run (default 900)
#   HYMPI_*         passed to every hympi rank
set -euo pipefail

cd "$(dirname "$0")/.."

QUICK=${QUICK:-0}
if [[ $QUICK == 1 ]]; then
	REPS=${1:-${REPS:-1}}
	RANKS=${RANKS:-2 4}
	SIZES=${SIZES:-8 65536 1048576}
	ITERS=${ITERS:-30}
else
	REPS=${1:-${REPS:-3}}
fi
IMPLS=${IMPLS:-hympi-C hympi-Go ompi mpich}
RANKS=${RANKS:-2 4 8}
SIZES=${SIZES:-8 1024 65536 1048576 4194304}
ITERS=${ITERS:-100}
TESTS=${TESTS:-0 8}
MPICH_MAX_RANKS=${MPICH_MAX_RANKS:-$(nproc)}
RESULT=${RESULT:-bench/results/compare-coll.md}
OUT=${OUT:-bench/results/compare-coll-$(date -u +%Y%m%dT%H%M%SZ)}
RUN_TIMEOUT=${RUN_TIMEOUT:-900}

usage_error() {
	echo "compare-coll: $*" >&2
	exit 2
}
[[ $REPS =~ ^[1-9][0-9]*$ ]] || usage_error "REPS must be a positive integer, got '$REPS'"
for i in $IMPLS; do
	[[ $i =~ ^(hympi-C|hympi-Go|ompi|mpich)$ ]] || usage_error "unknown implementation '$i' in IMPLS (want hympi-C, hympi-Go, ompi, mpich)"
done
[[ " $IMPLS " == *" ompi "* ]] || usage_error "IMPLS must include ompi: the table is relative to Open MPI"
for s in $RANKS $SIZES $ITERS $TESTS $MPICH_MAX_RANKS $RUN_TIMEOUT; do
	[[ $s =~ ^[0-9]+$ ]] || usage_error "RANKS, SIZES, ITERS, TESTS, MPICH_MAX_RANKS and RUN_TIMEOUT take whole numbers, got '$s'"
done
for n in $RANKS; do ((n >= 2)) || usage_error "RANKS: a collective job needs at least 2 ranks, got $n"; done
has() { [[ " $IMPLS " == *" $1 "* ]]; }
csv() { echo "$*" | tr -s ' ' ','; }

# --- build ---------------------------------------------------------------
mkdir -p bin
go build -o bin/ ./cmd/hympirun ./bench/osu_colls ./bench/cmd/colltable
# shellcheck source=bench/ompi.sh
source bench/ompi.sh
ompi_setup ""
mpicc.openmpi -O2 -o bin/osu_colls.openmpi bench/c/osu_colls.c
declare -A skip_impl=() # implementation → why it has no column
if has mpich; then
	# shellcheck source=bench/mpich.sh
	source bench/mpich.sh
	# -Wno-stringop-overflow: GCC misreads MPICH's MPI_STATUSES_IGNORE.
	if ! { mpich_setup && mpicc.mpich -O2 -Wno-stringop-overflow -o bin/osu_colls.mpich bench/c/osu_colls.c; }; then
		skip_impl[mpich]="MPICH could not be installed, built or launched (see above)"
	fi
fi
if has hympi-C; then
	if [[ ! -x bin/hympicc ]]; then
		skip_impl[hympi-C]="bin/hympicc does not exist (run make first)"
	elif ! bin/hympicc -O2 -o bin/osu_colls.hympi bench/c/osu_colls.c; then
		skip_impl[hympi-C]="bin/hympicc could not build bench/c/osu_colls.c (see above)"
	fi
fi
for i in "${!skip_impl[@]}"; do
	echo "compare-coll: no $i column: ${skip_impl[$i]}" >&2
done

hympi_env=()
for v in $(compgen -e | grep '^HYMPI_' || true); do
	hympi_env+=(-x "$v")
done

mkdir -p "$OUT" "$(dirname "$RESULT")"
if compgen -G "$OUT/*.txt" >/dev/null; then
	usage_error "$OUT already holds outputs; choose an empty OUT"
fi

# --- runs ----------------------------------------------------------------
args=(-m "$(csv "$SIZES")" -i "$ITERS" -t "$(csv "$TESTS")")
declare -A failed=() # "impl ranks" → why; not run again
notes=()
run() { # impl ranks rep
	local impl=$1 n=$2 rep=$3 cmd
	[[ -n ${skip_impl[$impl]:-} || -n ${failed["$impl $n"]:-} ]] && return 0
	case $impl in
	hympi-C) cmd=(bin/hympirun -n "$n" --timeout "${RUN_TIMEOUT}s" "${hympi_env[@]}" ./bin/osu_colls.hympi "${args[@]}") ;;
	hympi-Go) cmd=(bin/hympirun -n "$n" --timeout "${RUN_TIMEOUT}s" "${hympi_env[@]}" bin/osu_colls "${args[@]}") ;;
	ompi)
		ompi_args_for "$n"
		# Open MPI's nonblocking and persistent forms are not in the table.
		cmd=(mpirun.openmpi "${ompi_run[@]}" bin/osu_colls.openmpi "${args[@]}" -forms b,ov)
		;;
	mpich)
		if ((n > MPICH_MAX_RANKS)); then
			[[ $rep == 1 ]] && notes+=("- MPICH at $n ranks: not run (MPICH_MAX_RANKS=$MPICH_MAX_RANKS; oversubscribed, its polling makes a call take up to hundreds of ms)")
			return 0
		fi
		local bind=()
		((n <= $(nproc))) && bind=(-bind-to core)
		cmd=(mpiexec.mpich "${mpich_launch[@]}" -n "$n" "${bind[@]}" bin/osu_colls.mpich "${args[@]}" -forms b,ov)
		;;
	esac
	local out="$OUT/n$n.$impl.$rep.txt" rc=0
	echo "$ ${cmd[*]}" >"$out.cmd"
	timeout $((RUN_TIMEOUT + 30)) "${cmd[@]}" >"$out" 2>"$out.err" || rc=$?
	if ((rc != 0)); then
		mv "$out" "$out.failed" # kept for reading, out of colltable's way
		failed["$impl $n"]="exit $rc, see $out.failed and $out.err"
		echo "compare-coll: $impl on $n ranks failed (${failed["$impl $n"]})" >&2
	elif grep -q WRONG "$out.err"; then
		echo "compare-coll: $impl on $n ranks computed wrong results: $(grep -m1 WRONG "$out.err")" >&2
	fi
}

impls=()
for i in $IMPLS; do impls+=("$i"); done
echo "compare-coll: $REPS repetitions × ranks ($RANKS) × ${#impls[@]} implementations; raw outputs in $OUT" >&2
for ((r = 1; r <= REPS; r++)); do
	for n in $RANKS; do
		echo "compare-coll: repetition $r/$REPS, $n ranks" >&2
		for ((k = 0; k < ${#impls[@]}; k++)); do
			run "${impls[(k + r - 1) % ${#impls[@]}]}" "$n" "$r"
		done
	done
done

# --- table ---------------------------------------------------------------
cpu_model() {
	local m
	m=$(LC_ALL=C lscpu 2>/dev/null | sed -n 's/^Model name:[[:space:]]*//p' | head -1)
	[[ -n $m ]] || m=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -1)
	echo "${m:-unknown}"
}
{
	echo "### Every collective against Open MPI ($(nproc) CPUs, $(date -u +%Y-%m-%d))"
	echo
	echo "CPU: $(cpu_model)"
	echo
	echo "Medians of $REPS interleaved runs; osu_colls -i $ITERS (fewer iterations above 16 KiB: $ITERS×16384/size, at least 5)."
	echo "Ratios: implementation / Open MPI, blocking calls (below 1: faster). nb/b: MPI_I* + MPI_Wait against the blocking call;"
	echo "p/b: MPI_Start + MPI_Wait of a persistent collective (MPI_*_init outside the loop) against the blocking call."
	echo
	bin/colltable -cpus "$(nproc)" "$OUT"
	echo "Open MPI: $(mpirun.openmpi --version 2>/dev/null | head -1), mpirun.openmpi ${ompi_args[*]:2} (oversubscribed: --oversubscribe --bind-to none --mca mpi_yield_when_idle 1)"
	if has mpich && [[ -z ${skip_impl[mpich]:-} ]]; then
		echo "MPICH: $(mpichversion 2>/dev/null | head -1 | tr -s ' \t' ' '), mpiexec.mpich ${mpich_launch[*]} -n N -bind-to core"
	fi
	if ((${#skip_impl[@]} + ${#failed[@]} + ${#notes[@]} > 0)); then
		echo
		for i in "${!skip_impl[@]}"; do echo "- no $i column: ${skip_impl[$i]}"; done
		for k in "${!failed[@]}"; do echo "- $k ranks: failed (${failed[$k]})"; done
		for s in "${notes[@]}"; do echo "$s"; done
	fi
} | tee "$RESULT"
summary=${RESULT%.md}-summary.md
bin/colltable -cpus "$(nproc)" -summary "$OUT" >"$summary"
echo "compare-coll: table in $RESULT, the README's short form in $summary" >&2
