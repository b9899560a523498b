#!/usr/bin/env bash
# make test-backends: the multi-process scenarios of package mpi on the
# system-MPI backends, 4 ranks each, through each MPI's own launcher.
# Scenarios of hympi-only behaviour (direct copy modes, skew, Counters
# values, async progress) are not run here: a system MPI has none of them.
set -euo pipefail
cd "$(dirname "$0")/../../.."
GO=${GO:-go}
RANKS=${RANKS:-4}
SCENARIOS=${SCENARIOS:-"sizes order anysource probe truncate special ssend allpairs bsend requests barrier errors coll nbc comms collerrors mprobe intercomm intercoll graphnbr collmatrix nbrmatrix backend backendreq rma rmaerrors rmaatomic rmapscw rmasplit"}
SKIPPED="counters (hympi's transport counters) window skewadapt streamwindows bothways (skew feedback) async (HYMPI_ASYNC_PROGRESS) rmapassive (progress while the target never calls MPI: hympi's guarantee, not MPI's) rmanocma (hympi's separate-model fallback)"
# Scenarios one MPI cannot run, with the reason (reproduced in C):
# Open MPI 4.1's rdma one-sided component fails to create windows on the
# halves of a split communicator (its shared-memory file names collide);
# MPICH 4.0 misdirects PSCW puts when the groups hold one process.
# MPICH 4.0 (UCX) segfaults in collmatrix at an in-place MPI_Reduce to
# root 3 of 4 (not yet reproduced in C).
SKIP_ompi="rmasplit"
SKIP_mpich="rmapscw collmatrix"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# Open MPI as root needs its two consent variables; --oversubscribe lets 4
# ranks share 2 cores. Two Open MPI 4.1 defects are worked around:
# the AVX reduction kernels (the backend turns them off itself) and the
# vader CMA single copy, which crashes a receive truncating a large message
# (the truncate scenario does that). The one-sided scenarios keep CMA: the
# rdma one-sided component cannot create windows without it.
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
launch() {
	case $1 in
	ompi)
		local cma=none
		case $2 in rma*) cma=cma ;; esac
		OMPI_MCA_btl_vader_single_copy_mechanism=$cma mpirun.openmpi --oversubscribe -n "$RANKS" "$out/scenarios-ompi" "$2"
		;;
	mpich) mpiexec.mpich -n "$RANKS" "$out/scenarios-mpich" "$2" ;;
	esac
}

fails=0
for impl in ompi mpich; do
	$GO build -tags "$impl" -o "$out/scenarios-$impl" ./mpi/internal/scenarios
	$GO test -count=1 -tags "$impl" -run 'BackendAPI' ./mpi/ >/dev/null
	for s in $SCENARIOS; do
		skip=SKIP_$impl
		if [[ " ${!skip} " == *" $s "* ]]; then
			echo "skip $impl $s"
			continue
		fi
		if log=$(timeout 180 bash -c "$(declare -f launch); out=$out RANKS=$RANKS launch $impl $s" 2>&1) &&
			grep -q "scenario $s passed" <<<"$log"; then
			echo "ok   $impl $s"
		else
			echo "FAIL $impl $s"
			tail -20 <<<"$log"
			fails=$((fails + 1))
		fi
	done
done
echo "skipped on both backends: $SKIPPED"
echo "skipped on Open MPI: $SKIP_ompi; on MPICH: $SKIP_mpich (see the reasons above SKIP_ompi)"
[ "$fails" = 0 ] || { echo "$fails backend scenario runs failed"; exit 1; }
