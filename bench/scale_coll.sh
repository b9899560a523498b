#!/usr/bin/env bash
# Barrier and Allreduce (8 B) at many ranks on few CPUs, hympi against
# Open MPI --oversubscribe, for issue 15's goal "no slower than Open MPI at
# 16, 64 and 256 ranks". One OSU-style C program (bench/c/osu_colls.c) built
# with bin/hympicc and mpicc.openmpi; the runs alternate between the two
# libraries REPS times and the table gives medians and the ratio.
# Usage: bench/scale_coll.sh [N...]   (default 16 64 256; REPS=3, ITERS=100)
# A run that fails or passes RUN_TIMEOUT seconds shows as "-". The context
# switches are all the job's (every process and thread, voluntary +
# involuntary, from getrusage) per call, the median run's.
set -eu
ns=${*:-16 64 256}
reps=${REPS:-3}
iters=${ITERS:-100}
timeout_s=${RUN_TIMEOUT:-300}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

bin/hympicc -O2 -o "$out/colls.hympi" bench/c/osu_colls.c
have_ompi=0
if command -v mpicc.openmpi >/dev/null && mpicc.openmpi -O2 -o "$out/colls.ompi" bench/c/osu_colls.c 2>/dev/null; then
	have_ompi=1
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OSU_COLLS_CSW=1
args=(-c barrier,allreduce -forms b -m 8 -i "$iters")

run() { # impl n rep → appends "impl n coll us" lines
	local impl=$1 n=$2 cmd
	case $impl in
	hympi) cmd=(bin/hympirun --oversubscribe -n "$n" --timeout "${timeout_s}s" "$out/colls.hympi" "${args[@]}") ;;
	ompi) cmd=(timeout "$timeout_s" mpirun.openmpi --oversubscribe --bind-to none --mca mpi_yield_when_idle 1
		-n "$n" "$out/colls.ompi" "${args[@]}") ;;
	esac
	"${cmd[@]}" 2>/dev/null | awk -v i="$impl" -v n="$n" '
		$1 == "row" && $3 == "b" { us[$2] = $5 }
		$1 == "csw" && $3 == "b" { sw[$2] = $5 + $6 }
		END { for (c in us) print i, n, c, us[c], (c in sw) ? sw[c] : "-" }' >>"$out/rows" || true
}

for n in $ns; do
	for rep in $(seq "$reps"); do
		run hympi "$n" "$rep"
		((have_ompi)) && run ompi "$n" "$rep"
	done
done

echo "CPU: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) CPUs"
echo "Open MPI: $( ((have_ompi)) && mpirun.openmpi --version 2>/dev/null | head -1 || echo absent), --oversubscribe --bind-to none --mca mpi_yield_when_idle 1"
echo "median of $reps runs, $iters iterations each, µs per call (8 B for Allreduce)"
echo
echo "| ranks | collective | hympi (µs) | Open MPI (µs) | hympi / Open MPI | switches per call, hympi | Open MPI |"
echo "|---|---|---|---|---|---|---|"
# switches impl n coll us: the context switches of the run whose time is the median.
switches() { awk -v i="$1" -v n="$2" -v c="$3" -v t="$4" '$1 == i && $2 == n && $3 == c && $4 == t { s = $5 } END { print s == "" ? "-" : s }' "$out/rows"; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for n in $ns; do
	for c in barrier allreduce; do
		h=$(awk -v n="$n" -v c="$c" '$1 == "hympi" && $2 == n && $3 == c { print $4 }' "$out/rows" | median)
		o=$(awk -v n="$n" -v c="$c" '$1 == "ompi" && $2 == n && $3 == c { print $4 }' "$out/rows" | median)
		r=$(awk -v h="$h" -v o="$o" 'BEGIN { if (h == "-" || o == "-" || o == 0) print "-"; else printf "%.2f", h / o }')
		hs=$(switches hympi "$n" "$c" "$h")
		os=$(switches ompi "$n" "$c" "$o")
		echo "| $n | $c | $h | $o | $r | $hs | $os |"
	done
done
