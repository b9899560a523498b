#!/usr/bin/env bash
# compare.sh: hympi against Open MPI and MPICH, point to point and
# collectives, on this machine, in one interleaved run.
#
# Columns (implementations, IMPLS):
#   floor     what the machine allows with no MPI at all (bench/c/floor_pingpong.c):
#             for latency one cache-line hand-off between two processes pinned
#             to two CPUs (plus the copy into and out of a shared buffer above
#             56 bytes); for bw memcpy in one pinned process, for bibw and
#             mbw_mr two at once, summed; none for collectives
#   hympi-C   bench/c/osu_pt2pt.c and osu_coll.c built with bin/hympicc (the
#             C ABI), run as bin/hympirun -n N ./prog; skipped (n/a) while
#             bin/hympicc does not exist
#   hympi-Go  the Go benchmarks (bin/osu_latency, bin/osu_bcast, ...) under
#             bin/hympirun
#   ompi      the same C sources built with mpicc.openmpi, run by
#             mpirun.openmpi over the shared-memory BTL with Open MPI's own
#             collectives (tuned); installed with apt-get if missing
#   mpich     the same C sources built with mpicc.mpich, run by
#             mpiexec.mpich; installed with apt-get if missing
#
# Benchmarks (BENCHES): latency (LAT_SIZES, 2 ranks), bw and bibw (BW_SIZES,
# 2 ranks, window 64), mbw_mr (BW_SIZES, MBW_RANKS ranks, i.e. MBW_RANKS/2
# pairs, window 64), and barrier, bcast, allreduce, alltoall at each
# size of COLL_SIZES on each job size of COLL_RANKS (4 ranks on this 2-CPU
# machine is oversubscribed). Every job runs once per repetition, all
# implementations back to back, in an order that rotates from one
# repetition to the next, so that all of them see the same machine weather.
#
# Prints the CPU model (lscpu) and one Markdown table: per benchmark and size, the median over the
# repetitions of Open MPI in its unit and of every other column as a ratio
# to Open MPI (latency: below 1 is faster than Open MPI; bandwidth: above 1
# is), followed by the medians themselves, and writes both to RESULT; writes
# an SVG of the latency and bandwidth curves to SVG. A column that could
# not run (not built, collective not implemented yet, failed) reads n/a and
# the notes under the table say why.
#
# Usage: bench/compare.sh [REPS]          (or make compare [REPS=N])
#
# Environment:
#   REPS           repetitions (default 5)
#   IMPLS          columns, of: floor hympi-C hympi-Go ompi mpich (default all)
#   BENCHES        of: latency bw bibw mbw_mr barrier bcast allreduce alltoall
#                  (default all)
#   LAT_SIZES      latency sizes MIN:MAX (default 0:8192)
#   BW_SIZES       bw, bibw and mbw_mr sizes MIN:MAX (default 1:4194304)
#   MBW_RANKS      ranks of mbw_mr, an even number (default 4: 2 pairs)
#   COLL_SIZES     collective sizes in bytes (default "8 1024 65536 1048576")
#   COLL_RANKS     collective job sizes (default "2 4")
#   ITERS, WARMUP  -i and -x of every run (default: OSU's per-size counts)
#   OVERSUB_ITERS  -i of oversubscribed runs, -x a tenth of it (default 100;
#                  an oversubscribed MPICH call takes milliseconds, so OSU's
#                  1000 would take minutes per size); empty: as other runs
#   RESULT, SVG    table and plot (default bench/results/compare.md and
#                  .svg; SVG empty: no plot)
#   OUT            raw outputs (default bench/results/compare-<UTC time>)
#   TABLE          relative (default: Open MPI in its unit, others as
#                  ratios) or ratio (medians and hympi-Go / Open MPI)
#   TITLE          the table's heading
#   RUN_TIMEOUT    seconds per run (default 300)
#   HYMPI_*        passed to every hympi rank
set -euo pipefail

cd "$(dirname "$0")/.."

REPS=${1:-${REPS:-5}}
IMPLS=${IMPLS:-floor hympi-C hympi-Go ompi mpich}
BENCHES=${BENCHES:-latency bw bibw mbw_mr barrier bcast allreduce alltoall}
LAT_SIZES=${LAT_SIZES:-0:8192}
BW_SIZES=${BW_SIZES:-1:4194304}
MBW_RANKS=${MBW_RANKS:-4}
COLL_SIZES=${COLL_SIZES:-8 1024 65536 1048576}
COLL_RANKS=${COLL_RANKS:-2 4}
ITERS=${ITERS:-}
WARMUP=${WARMUP:-}
OVERSUB_ITERS=${OVERSUB_ITERS-100}
RESULT=${RESULT:-bench/results/compare.md}
SVG=${SVG-bench/results/compare.svg}
TABLE=${TABLE:-relative}
TITLE=${TITLE:-hympi against Open MPI and MPICH}
RUN_TIMEOUT=${RUN_TIMEOUT:-300}

usage_error() {
	echo "compare: $*" >&2
	exit 2
}
[[ $REPS =~ ^[1-9][0-9]*$ ]] || usage_error "REPS must be a positive integer, got '$REPS'"
for i in $IMPLS; do
	[[ $i =~ ^(floor|hympi-C|hympi-Go|ompi|mpich)$ ]] || usage_error "unknown implementation '$i' in IMPLS (want floor, hympi-C, hympi-Go, ompi, mpich)"
done
[[ " $IMPLS " == *" ompi "* ]] || usage_error "IMPLS must include ompi: the table is relative to Open MPI"
for b in $BENCHES; do
	[[ $b =~ ^(latency|bw|bibw|mbw_mr|barrier|bcast|allreduce|alltoall)$ ]] ||
		usage_error "unknown benchmark '$b' in BENCHES (want latency, bw, bibw, mbw_mr, barrier, bcast, allreduce, alltoall)"
done
[[ $MBW_RANKS =~ ^[1-9][0-9]*$ ]] && ((MBW_RANKS % 2 == 0)) || usage_error "MBW_RANKS must be a positive even number, got '$MBW_RANKS'"
for s in $COLL_SIZES $COLL_RANKS $ITERS $WARMUP $OVERSUB_ITERS; do
	[[ $s =~ ^[0-9]+$ ]] || usage_error "COLL_SIZES, COLL_RANKS, ITERS, WARMUP and OVERSUB_ITERS take whole numbers, got '$s'"
done
[[ $TABLE =~ ^(relative|ratio)$ ]] || usage_error "TABLE must be relative or ratio, got '$TABLE'"

has() { [[ " $IMPLS " == *" $1 "* ]]; }
# pt2pt BENCH: whether BENCH is point to point (the floor has a column there).
pt2pt() { [[ $1 =~ ^(latency|bw|bibw|mbw_mr)$ ]]; }

# --- build ---------------------------------------------------------------
mkdir -p bin
go build -o bin/ ./cmd/hympirun ./bench/cmd/osutable
if has hympi-Go; then
	go build -o bin/ ./bench/osu_latency ./bench/osu_bw ./bench/osu_bibw ./bench/osu_mbw_mr \
		./bench/osu_barrier ./bench/osu_bcast ./bench/osu_allreduce ./bench/osu_alltoall
fi
# shellcheck source=bench/ompi.sh
source bench/ompi.sh
# Open MPI's own single-copy choice (cma here), as for an application.
ompi_setup ""
mpicc.openmpi -O2 -o bin/osu_coll.openmpi bench/c/osu_coll.c
declare -A skip_impl=() # implementation → why it has no column
if has mpich; then
	# shellcheck source=bench/mpich.sh
	source bench/mpich.sh
	# -Wno-stringop-overflow: GCC misreads MPICH's MPI_STATUSES_IGNORE (a
	# pointer constant) as a zero-length array in MPI_Waitall.
	if mpich_setup &&
		mpicc.mpich -O2 -Wno-stringop-overflow -o bin/osu_pt2pt.mpich bench/c/osu_pt2pt.c &&
		mpicc.mpich -O2 -Wno-stringop-overflow -o bin/osu_coll.mpich bench/c/osu_coll.c; then
		:
	else
		skip_impl[mpich]="MPICH could not be installed, built or launched (see above)"
	fi
fi
if has hympi-C; then
	if [[ ! -x bin/hympicc ]]; then
		skip_impl[hympi-C]="bin/hympicc does not exist yet (the C ABI is not built)"
	elif ! { bin/hympicc -O2 -o bin/osu_pt2pt.hympi bench/c/osu_pt2pt.c &&
		bin/hympicc -O2 -o bin/osu_coll.hympi bench/c/osu_coll.c; }; then
		skip_impl[hympi-C]="bin/hympicc could not build bench/c/osu_pt2pt.c or osu_coll.c (see above)"
	fi
fi
if has floor && ! ${CC:-cc} -O2 -o bin/floor_pingpong bench/c/floor_pingpong.c; then
	skip_impl[floor]="bench/c/floor_pingpong.c could not be built with ${CC:-cc} (see above)"
fi
for i in "${!skip_impl[@]}"; do
	echo "compare: no $i column: ${skip_impl[$i]}" >&2
done

hympi_env=()
for v in $(compgen -e | grep '^HYMPI_' || true); do
	hympi_env+=(-x "$v")
done

# bench/results/ is git-ignored: runs accumulate there for later reading.
OUT=${OUT:-bench/results/compare-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$OUT" "$(dirname "$RESULT")"
[[ -z $SVG ]] || mkdir -p "$(dirname "$SVG")"
if compgen -G "$OUT/*.txt" >/dev/null; then
	usage_error "$OUT already holds outputs; choose an empty OUT"
fi

# --- jobs ----------------------------------------------------------------
# A job is "bench ranks size" (size "-" for a sweep or a barrier); each
# writes $OUT/<bench>.n<ranks>.<impl>.<rep>.<size>.txt.
jobs=()
for b in $BENCHES; do
	case $b in
	latency | bw | bibw) jobs+=("$b 2 -") ;;
	mbw_mr) jobs+=("$b $MBW_RANKS -") ;;
	barrier) for n in $COLL_RANKS; do jobs+=("$b $n -"); done ;;
	*) for n in $COLL_RANKS; do for s in $COLL_SIZES; do jobs+=("$b $n $s"); done; done ;;
	esac
done

# iter_args RANKS: the -i/-x arguments of a run.
iter_args() {
	local n=$1
	if ((n > $(nproc))) && [[ -n $OVERSUB_ITERS ]]; then
		echo "-i $OVERSUB_ITERS -x $((OVERSUB_ITERS / 10))"
		return
	fi
	[[ -n $ITERS ]] && echo -n "-i $ITERS "
	[[ -n $WARMUP ]] && echo -n "-x $WARMUP"
	echo
}

# command_for IMPL BENCH RANKS SIZE: sets the array cmd to the command line.
command_for() {
	local impl=$1 b=$2 n=$3 s=$4 prog mode range
	# shellcheck disable=SC2207
	local iters=($(iter_args "$n"))
	case $b in
	latency) prog=pt2pt mode=latency range=$LAT_SIZES ;;
	bw | bibw | mbw_mr) prog=pt2pt mode=$b range=$BW_SIZES ;;
	*) prog=coll mode=$b range=$s:$s ;;
	esac
	[[ $s == - && $b == barrier ]] && range=0:0
	local args=("$mode" -m "$range" "${iters[@]}")
	case $impl in
	floor)
		# Two copiers use both CPUs of this class of machine; more pairs
		# than CPUs could not copy faster.
		[[ $mode == mbw_mr ]] && mode=bibw
		cmd=(bin/floor_pingpong "$mode" -m "$range" "${iters[@]}")
		;;
	hympi-Go)
		cmd=(bin/hympirun -n "$n" --timeout "${RUN_TIMEOUT}s" "${hympi_env[@]}" "bin/osu_$b" -m "$range" "${iters[@]}")
		;;
	hympi-C)
		cmd=(bin/hympirun -n "$n" --timeout "${RUN_TIMEOUT}s" "${hympi_env[@]}" "./bin/osu_$prog.hympi" "${args[@]}")
		;;
	ompi)
		ompi_args_for "$n"
		cmd=(mpirun.openmpi "${ompi_run[@]}" "bin/osu_$prog.openmpi" "${args[@]}")
		;;
	mpich)
		local bind=()
		((n <= $(nproc))) && bind=(-bind-to core)
		cmd=(mpiexec.mpich "${mpich_launch[@]}" -n "$n" "${bind[@]}" "bin/osu_$prog.mpich" "${args[@]}")
		;;
	esac
}

declare -A failed=() # "impl bench ranks" → why, once it failed: not run again
run_job() { # impl bench ranks size rep
	local impl=$1 b=$2 n=$3 s=$4 rep=$5
	local key="$impl $b $n"
	[[ -n ${skip_impl[$impl]:-} || -n ${failed[$key]:-} ]] && return 0
	[[ $impl == floor ]] && ! pt2pt "$b" && return 0
	local out="$OUT/$b.n$n.$impl.$rep.$s.txt"
	command_for "$impl" "$b" "$n" "$s"
	echo "$ ${cmd[*]}" >"$out.cmd"
	local rc=0
	timeout $((RUN_TIMEOUT + 30)) "${cmd[@]}" >"$out" 2>&1 || rc=$?
	((rc == 0)) && return 0
	# Kept for reading, but out of osutable's globs.
	mv "$out" "$out.failed"
	if grep -q "not implemented yet" "$out.failed"; then
		failed[$key]="not implemented yet in this build ($(grep -m1 -o '[A-Za-z]* is not implemented yet' "$out.failed" || echo "placeholder"))"
	else
		failed[$key]="failed (exit $rc, see $out.failed)"
	fi
	echo "compare: $impl $b n=$n: ${failed[$key]}" >&2
}

impls=()
for i in $IMPLS; do impls+=("$i"); done
echo "compare: $REPS repetitions of ${#jobs[@]} jobs × ${#impls[@]} implementations; raw outputs in $OUT" >&2
for ((r = 1; r <= REPS; r++)); do
	echo "compare: repetition $r/$REPS" >&2
	for job in "${jobs[@]}"; do
		read -r b n s <<<"$job"
		for ((k = 0; k < ${#impls[@]}; k++)); do
			run_job "${impls[(k + r - 1) % ${#impls[@]}]}" "$b" "$n" "$s" "$r"
		done
	done
done

# --- table ---------------------------------------------------------------
column() { # impl → the column's name
	case $1 in
	ompi) echo "Open MPI" ;;
	mpich) echo "MPICH" ;;
	*) echo "$1" ;;
	esac
}
# group_args [BENCH...]: osutable's GROUP:NAME=FILES arguments.
group_args() {
	local want=" $* " job b n s impl label
	local seen=" "
	for job in "${jobs[@]}"; do
		read -r b n s <<<"$job"
		[[ $want == "  " || $want == *" $b "* ]] || continue
		[[ $seen == *" $b.$n "* ]] && continue
		seen+="$b.$n "
		label="osu_$b n=$n"
		((n > $(nproc))) && label+="*"
		for impl in "${impls[@]}"; do
			[[ $impl == floor ]] && ! pt2pt "$b" && continue
			echo "$label:$(column "$impl")=$OUT/$b.n$n.$impl.*.txt"
		done
	done
}
mapfile -t all < <(group_args)
mode=(-relative "Open MPI")
[[ $TABLE == ratio ]] && mode=(-ratio "hympi-Go/Open MPI")

cpu_model() {
	local m
	m=$(LC_ALL=C lscpu 2>/dev/null | sed -n 's/^Model name:[[:space:]]*//p' | head -1)
	[[ -n $m ]] || m=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -1)
	echo "${m:-unknown}"
}

notes() {
	local i key
	for i in "${!skip_impl[@]}"; do
		echo "- $(column "$i"): ${skip_impl[$i]}"
	done
	for key in "${!failed[@]}"; do
		read -r i b n <<<"$key"
		echo "- $(column "$i") osu_$b n=$n: ${failed[$key]}"
	done | sort
}

{
	echo "### $TITLE ($(nproc) CPUs, $(date -u +%Y-%m-%d))"
	echo
	echo "CPU: $(cpu_model)"
	echo
	bin/osutable -grouped -allow-missing "${mode[@]}" "${all[@]}"
	if [[ $TABLE == relative ]]; then
		echo
		echo "Medians:"
		echo
		bin/osutable -grouped -allow-missing "${all[@]}"
	fi
	echo
	over=
	for n in $COLL_RANKS; do
		if ((n > $(nproc))); then over+=" $n"; fi
	done
	echo -n "Open MPI: $(mpirun.openmpi --version 2>/dev/null | head -1), mpirun.openmpi ${ompi_args[*]:2}"
	if [[ -n $over ]]; then
		echo -n " (oversubscribed: --oversubscribe --bind-to none --mca mpi_yield_when_idle 1)"
	fi
	echo
	if has mpich && [[ -z ${skip_impl[mpich]:-} ]]; then
		echo "MPICH: $(mpichversion 2>/dev/null | head -1 | tr -s ' \t' ' '), mpiexec.mpich ${mpich_launch[*]} -n N (-bind-to core up to $(nproc) ranks)"
	fi
	if [[ -n $over ]]; then
		echo -n "\\* oversubscribed:$over ranks on $(nproc) CPUs"
		if [[ -n $OVERSUB_ITERS ]]; then
			echo -n ", -i $OVERSUB_ITERS -x $((OVERSUB_ITERS / 10)) for every column"
		fi
		echo "."
	fi
	if [[ -n $(notes) ]]; then
		echo
		echo "Notes:"
		echo
		notes
	fi
} | tee "$RESULT"

if [[ -n $SVG ]]; then
	mapfile -t curves < <(group_args) # every benchmark with two or more sizes: pt2pt and collectives
	if ((${#curves[@]} > 0)) && bin/osutable -grouped -allow-missing -svg "$SVG" "${curves[@]}" >/dev/null; then
		echo "compare: table in $RESULT, curves in $SVG" >&2
	else
		echo "compare: table in $RESULT (no curves to plot)" >&2
	fi
fi
