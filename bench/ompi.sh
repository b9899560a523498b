# ompi.sh: running bench/c/osu_pt2pt.c under Open MPI, shared by
# compare_ompi.sh and modes.sh. Source it from the repository root, then call
#
#   ompi_setup SINGLE_COPY
#
# which installs Open MPI with apt-get when mpicc.openmpi is missing (needs
# root), builds bin/osu_pt2pt.openmpi, lets Open MPI run as root, and sets
# the array ompi_args to the mpirun.openmpi arguments of a two-rank run over
# the shared-memory BTL. SINGLE_COPY is the BTL's single-copy mechanism:
# none (copy-in/copy-out through shared memory), cma (process_vm_readv, the
# mechanism of hympi's direct protocol), or empty for Open MPI's own choice.
# ompi_single_copy is then the mechanism in force, as Open MPI reports it.

ompi_setup() {
	local single_copy=$1
	if ! command -v mpicc.openmpi >/dev/null; then
		echo "ompi: installing Open MPI (openmpi-bin, libopenmpi-dev)" >&2
		apt-get update
		DEBIAN_FRONTEND=noninteractive apt-get install -y openmpi-bin libopenmpi-dev
	fi
	# Debian names the launcher mpirun.openmpi but ompi_info has no suffix.
	local ompi_info
	ompi_info=$(command -v ompi_info.openmpi || command -v ompi_info)

	# Open MPI refuses to run as root unless told twice.
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

	mkdir -p bin
	mpicc.openmpi -O2 -o bin/osu_pt2pt.openmpi bench/c/osu_pt2pt.c

	# The shared-memory BTL is "vader" in Open MPI 4 and "sm" in 5; pick the
	# one this install has, and its single-copy parameter if there is one.
	# pml ob1 is forced because only ob1 uses the BTLs: with pml ucx
	# selected, --mca btl would be silently ignored and UCX's own transport
	# measured instead.
	ompi_args=(-np 2 --bind-to core --mca pml ob1)
	# Captured, not piped into grep -q: under pipefail, grep quitting early
	# would fail the pipeline whenever ompi_info got SIGPIPE.
	local vader_params sm_params btl=
	vader_params=$("$ompi_info" --param btl vader --level 9 2>/dev/null || true)
	sm_params=$("$ompi_info" --param btl sm --level 9 2>/dev/null || true)
	if [[ $vader_params == *btl_vader_single_copy_mechanism* ]]; then
		btl=vader
	elif [[ $sm_params == *btl_sm_single_copy_mechanism* ]]; then
		btl=sm
	fi
	ompi_args+=(--mca btl "self,${btl:-sm}")
	ompi_single_copy=unknown
	if [[ -z $btl ]]; then
		echo "ompi: no single-copy parameter in this Open MPI; single copy '$single_copy' ignored" >&2
		return
	fi
	if [[ -n $single_copy ]]; then
		ompi_args+=(--mca "btl_${btl}_single_copy_mechanism" "$single_copy")
		ompi_single_copy=$single_copy
	else
		local params=$vader_params
		[[ $btl == sm ]] && params=$sm_params
		# 'parameter "btl_vader_single_copy_mechanism" (current value: "cma", ...'
		if [[ $params =~ btl_${btl}_single_copy_mechanism\"\ \(current\ value:\ \"([a-z]+)\" ]]; then
			ompi_single_copy="${BASH_REMATCH[1]} (Open MPI's default)"
		fi
	fi
}

# ompi_args_for N sets the array ompi_run to the mpirun.openmpi arguments
# of an N-rank job over the same transport as ompi_args. Beyond the CPUs
# of this machine the job is oversubscribed: Open MPI then needs
# --oversubscribe, ranks are left unbound (--bind-to none), and
# mpi_yield_when_idle makes a waiting rank yield its CPU instead of
# spinning through its whole time slice while the rank it waits for is
# descheduled (without it a 4-rank collective on 2 cores takes
# milliseconds).
ompi_args_for() {
	local n=$1
	if [[ ${ompi_args[0]} != -np || ${ompi_args[2]} != --bind-to ]]; then
		echo "ompi: unexpected ompi_args '${ompi_args[*]}'" >&2
		return 1
	fi
	local rest=("${ompi_args[@]:4}")
	if ((n > $(nproc))); then
		ompi_run=(-np "$n" --oversubscribe --bind-to none --mca mpi_yield_when_idle 1 "${rest[@]}")
	else
		ompi_run=(-np "$n" --bind-to core "${rest[@]}")
	fi
}
