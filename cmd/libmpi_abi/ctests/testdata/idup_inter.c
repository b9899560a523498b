/* MPI_Comm_idup on an intercommunicator completes through progress (issue
 * 18, MPICH's comm/comm_idup hung at 4 and 9 processes): each group's
 * leader receives from the other group's members, which send only after
 * starting their idup, and starts its own idup last. Two idups in flight
 * on one intercommunicator, with a nonblocking barrier between them, pair
 * up in the order they were started; one group has made a communicator
 * more than the other, so their next free contexts differ. */
#include "check.h"

/* The duplicate works: an allreduce over it sums the remote group's
 * ranks, and a message crosses to the remote rank of the same index. */
static void use(MPI_Comm d, int lrank, int rsize, int salt)
{
	int flag, rs;
	CHECK_RC(MPI_Comm_test_inter(d, &flag));
	CHECK(flag);
	CHECK_RC(MPI_Comm_remote_size(d, &rs));
	CHECK(rs == rsize);
	int sum = -1;
	CHECK_RC(MPI_Allreduce(&lrank, &sum, 1, MPI_INT, MPI_SUM, d));
	CHECK(sum == rsize * (rsize - 1) / 2);
	if (lrank < rsize) {
		int out = salt * 1000 + lrank, in = -1;
		CHECK_RC(MPI_Sendrecv(&out, 1, MPI_INT, lrank, 5, &in, 1, MPI_INT, lrank, 5, d, MPI_STATUS_IGNORE));
		CHECK(in == salt * 1000 + lrank);
	}
}

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size < 2) {
		report_ok();
		MPI_Finalize();
		return 0;
	}
	MPI_Comm local, ic;
	CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &local));
	CHECK_RC(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, rank == 0 ? 1 : 0, 77, &ic));
	MPI_Comm stagger = MPI_COMM_NULL;
	if (rank % 2) CHECK_RC(MPI_Comm_dup(local, &stagger));
	int lrank, lsize, rsize;
	MPI_Comm_rank(ic, &lrank);
	MPI_Comm_size(ic, &lsize);
	MPI_Comm_remote_size(ic, &rsize);

	MPI_Comm d1, d2;
	MPI_Request r[3];
	if (lrank == 0) {
		for (int i = 1; i < rsize; i++) {
			int buf;
			CHECK_RC(MPI_Recv(&buf, 1, MPI_INT, i, 0, ic, MPI_STATUS_IGNORE));
			CHECK(buf == i);
		}
		CHECK_RC(MPI_Comm_idup(ic, &d1, &r[0]));
		CHECK_RC(MPI_Ibarrier(ic, &r[2]));
		CHECK_RC(MPI_Comm_idup(ic, &d2, &r[1]));
	} else {
		CHECK_RC(MPI_Comm_idup(ic, &d1, &r[0]));
		CHECK_RC(MPI_Ibarrier(ic, &r[2]));
		CHECK_RC(MPI_Comm_idup(ic, &d2, &r[1]));
		CHECK_RC(MPI_Ssend(&lrank, 1, MPI_INT, 0, 0, ic));
	}
	CHECK_RC(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
	/* Used in the opposite order: each must still be its own context. */
	use(d2, lrank, rsize, 2);
	use(d1, lrank, rsize, 1);
	(void)lsize;
	CHECK_RC(MPI_Comm_free(&d1));
	CHECK_RC(MPI_Comm_free(&d2));
	CHECK_RC(MPI_Comm_free(&ic));
	CHECK_RC(MPI_Comm_free(&local));
	if (stagger != MPI_COMM_NULL) CHECK_RC(MPI_Comm_free(&stagger));
	report_ok();
	MPI_Finalize();
	return 0;
}
