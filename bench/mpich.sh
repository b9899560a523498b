# mpich.sh: running hympi's C benchmarks under MPICH, for compare.sh.
# Source it from the repository root, then call
#
#   mpich_setup
#
# which installs MPICH with apt-get when mpicc.mpich or mpiexec.mpich is
# missing (needs root), and sets the array mpich_launch to the mpiexec.mpich
# arguments that start ranks on this one machine (callers add -n N).
#
# MPICH's default Hydra launcher wants ssh (or rsh) even for a local job on
# some installs; "-launcher fork" starts the ranks as local children, which
# is what a one-machine benchmark wants, so it is tried first. The first
# set of arguments under which a two-rank job really runs is kept; if none
# works, mpich_setup returns 1 with the error of the last attempt.
#
# Debian's alternatives keep mpicc/mpirun pointing at Open MPI (its
# priority is higher), so installing MPICH beside it changes nothing for
# the unsuffixed commands.

mpich_setup() {
	if ! command -v mpicc.mpich >/dev/null || ! command -v mpiexec.mpich >/dev/null; then
		echo "mpich: installing MPICH (mpich, libmpich-dev)" >&2
		apt-get update
		DEBIAN_FRONTEND=noninteractive apt-get install -y mpich libmpich-dev
	fi
	mkdir -p bin
	local probe=bin/.mpich_probe
	if ! mpicc.mpich -O2 -o "$probe" bench/c/osu_coll.c; then
		echo "mpich: mpicc.mpich cannot build bench/c/osu_coll.c" >&2
		return 1
	fi
	local try out
	for try in "-launcher fork" "" "-launcher ssh"; do
		# shellcheck disable=SC2206 # split the flags on purpose
		mpich_launch=($try)
		if out=$(timeout 60 mpiexec.mpich "${mpich_launch[@]}" -n 2 "$probe" barrier -i 10 -x 1 2>&1); then
			echo "mpich: mpiexec.mpich ${try:-(no flags)} -n 2 works" >&2
			rm -f "$probe"
			return 0
		fi
	done
	echo "mpich: no mpiexec.mpich invocation ran a 2-rank job; last attempt said:" >&2
	echo "$out" >&2
	rm -f "$probe"
	return 1
}
