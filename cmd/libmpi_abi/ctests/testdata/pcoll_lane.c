/* Persistent collectives the C collective lane runs (nbc_persist.c): each
 * kind bound once and started ROUNDS times, its input changed before every
 * start (MPI lets the caller change it between runs: every start must read
 * it anew) and its result checked, completed by MPI_Wait, by MPI_Test in a
 * loop, and through the array calls; several started by one MPI_Startall;
 * a second MPI_Start of an active request refused with MPI_ERR_REQUEST;
 * MPI_Request_free of inactive requests, and MPI_Comm_free while one
 * exists. The debug report (pcoll_test.go) says whether C started them. */
#include "check.h"

enum { ROUNDS = 100, N = 4 };

static int rank, size;

/* complete finishes r as round i says: wait, test in a loop, or waitall. */
static void complete(MPI_Request *r, int i)
{
	MPI_Status st;
	switch (i % 3) {
	case 0:
		CHECK_RC(MPI_Wait(r, &st));
		break;
	case 1: {
		int flag = 0;
		while (!flag) CHECK_RC(MPI_Test(r, &flag, MPI_STATUS_IGNORE));
		break;
	}
	default:
		CHECK_RC(MPI_Waitall(1, r, MPI_STATUSES_IGNORE));
	}
	CHECK(*r != MPI_REQUEST_NULL); /* persistent: the handle stays */
}

static long expect_sum(int i) { return (long)size * i + (long)size * (size - 1) / 2; }

static void kinds(MPI_Comm comm)
{
	long in[N * 8], out[N * 8], one[N];
	MPI_Request r;
	/* Barrier. */
	CHECK_RC(MPI_Barrier_init(comm, MPI_INFO_NULL, &r));
	for (int i = 0; i < ROUNDS; i++) {
		CHECK_RC(MPI_Start(&r));
		complete(&r, i);
	}
	CHECK_RC(MPI_Request_free(&r));
	CHECK(r == MPI_REQUEST_NULL);
	/* Bcast from two roots. */
	for (int root = 0; root < size; root += size > 1 ? size - 1 : 1) {
		CHECK_RC(MPI_Bcast_init(one, N, MPI_LONG, root, comm, MPI_INFO_NULL, &r));
		for (int i = 0; i < ROUNDS; i++) {
			for (int j = 0; j < N; j++) one[j] = rank == root ? 1000L * i + j : -1;
			CHECK_RC(MPI_Start(&r));
			complete(&r, i);
			for (int j = 0; j < N; j++) CHECK(one[j] == 1000L * i + j);
		}
		CHECK_RC(MPI_Request_free(&r));
		if (size == 1) break;
	}
	/* Allreduce, Reduce, Scan, Exscan. */
	CHECK_RC(MPI_Allreduce_init(in, out, 1, MPI_LONG, MPI_SUM, comm, MPI_INFO_NULL, &r));
	for (int i = 0; i < ROUNDS; i++) {
		in[0] = rank + i;
		CHECK_RC(MPI_Start(&r));
		complete(&r, i);
		CHECK(out[0] == expect_sum(i));
	}
	CHECK_RC(MPI_Request_free(&r));
	CHECK_RC(MPI_Reduce_init(in, out, 1, MPI_LONG, MPI_SUM, size - 1, comm, MPI_INFO_NULL, &r));
	for (int i = 0; i < ROUNDS; i++) {
		in[0] = rank + i;
		out[0] = -7;
		CHECK_RC(MPI_Start(&r));
		complete(&r, i);
		CHECK(rank == size - 1 ? out[0] == expect_sum(i) : out[0] == -7);
	}
	CHECK_RC(MPI_Request_free(&r));
	CHECK_RC(MPI_Scan_init(in, out, 1, MPI_LONG, MPI_SUM, comm, MPI_INFO_NULL, &r));
	for (int i = 0; i < ROUNDS; i++) {
		in[0] = rank + i;
		CHECK_RC(MPI_Start(&r));
		complete(&r, i);
		CHECK(out[0] == (long)(rank + 1) * i + (long)rank * (rank + 1) / 2);
	}
	CHECK_RC(MPI_Request_free(&r));
	CHECK_RC(MPI_Exscan_init(in, out, 1, MPI_LONG, MPI_SUM, comm, MPI_INFO_NULL, &r));
	for (int i = 0; i < ROUNDS; i++) {
		in[0] = rank + i;
		CHECK_RC(MPI_Start(&r));
		complete(&r, i);
		if (rank > 0) CHECK(out[0] == (long)rank * i + (long)(rank - 1) * rank / 2);
	}
	CHECK_RC(MPI_Request_free(&r));
	/* Reduce_scatter_block: block k of everyone's input summed on rank k. */
	CHECK_RC(MPI_Reduce_scatter_block_init(in, out, 1, MPI_LONG, MPI_SUM, comm, MPI_INFO_NULL, &r));
	for (int i = 0; i < ROUNDS; i++) {
		for (int k = 0; k < size; k++) in[k] = 100L * k + rank + i;
		CHECK_RC(MPI_Start(&r));
		complete(&r, i);
		CHECK(out[0] == 100L * rank * size + expect_sum(i));
	}
	CHECK_RC(MPI_Request_free(&r));
	/* Gather, Scatter, Allgather, Alltoall. */
	CHECK_RC(MPI_Gather_init(one, 1, MPI_LONG, out, 1, MPI_LONG, 0, comm, MPI_INFO_NULL, &r));
	for (int i = 0; i < ROUNDS; i++) {
		one[0] = 10L * rank + i;
		CHECK_RC(MPI_Start(&r));
		complete(&r, i);
		if (rank == 0)
			for (int k = 0; k < size; k++) CHECK(out[k] == 10L * k + i);
	}
	CHECK_RC(MPI_Request_free(&r));
	CHECK_RC(MPI_Scatter_init(in, 1, MPI_LONG, one, 1, MPI_LONG, size - 1, comm, MPI_INFO_NULL, &r));
	for (int i = 0; i < ROUNDS; i++) {
		for (int k = 0; k < size; k++) in[k] = 10L * k + i;
		CHECK_RC(MPI_Start(&r));
		complete(&r, i);
		CHECK(one[0] == 10L * rank + i);
	}
	CHECK_RC(MPI_Request_free(&r));
	CHECK_RC(MPI_Allgather_init(one, 1, MPI_LONG, out, 1, MPI_LONG, comm, MPI_INFO_NULL, &r));
	for (int i = 0; i < ROUNDS; i++) {
		one[0] = 10L * rank + i;
		CHECK_RC(MPI_Start(&r));
		complete(&r, i);
		for (int k = 0; k < size; k++) CHECK(out[k] == 10L * k + i);
	}
	CHECK_RC(MPI_Request_free(&r));
	CHECK_RC(MPI_Alltoall_init(in, 1, MPI_LONG, out, 1, MPI_LONG, comm, MPI_INFO_NULL, &r));
	for (int i = 0; i < ROUNDS; i++) {
		for (int k = 0; k < size; k++) in[k] = 100L * rank + k + i;
		CHECK_RC(MPI_Start(&r));
		complete(&r, i);
		for (int k = 0; k < size; k++) CHECK(out[k] == 100L * k + rank + i);
	}
	CHECK_RC(MPI_Request_free(&r));
}

/* Three bound together and started by one MPI_Startall, completed by
 * MPI_Waitall, MPI_Testall, or one at a time through MPI_Waitany. */
static void startall(MPI_Comm comm)
{
	long a = 0, sum = 0, b[N];
	MPI_Request rs[3];
	CHECK_RC(MPI_Allreduce_init(&a, &sum, 1, MPI_LONG, MPI_SUM, comm, MPI_INFO_NULL, &rs[0]));
	CHECK_RC(MPI_Bcast_init(b, N, MPI_LONG, 0, comm, MPI_INFO_NULL, &rs[1]));
	CHECK_RC(MPI_Barrier_init(comm, MPI_INFO_NULL, &rs[2]));
	for (int i = 0; i < ROUNDS; i++) {
		a = rank + i;
		for (int j = 0; j < N; j++) b[j] = rank == 0 ? 7L * i + j : -1;
		CHECK_RC(MPI_Startall(3, rs));
		if (i % 3 == 0) {
			CHECK_RC(MPI_Waitall(3, rs, MPI_STATUSES_IGNORE));
		} else if (i % 3 == 1) {
			int flag = 0;
			while (!flag) CHECK_RC(MPI_Testall(3, rs, &flag, MPI_STATUSES_IGNORE));
		} else {
			for (int k = 0; k < 3; k++) {
				int idx = -1;
				CHECK_RC(MPI_Waitany(3, rs, &idx, MPI_STATUS_IGNORE));
				CHECK(idx >= 0 && idx < 3);
			}
			/* All inactive now: one more returns MPI_UNDEFINED. */
			int idx = 0;
			CHECK_RC(MPI_Waitany(3, rs, &idx, MPI_STATUS_IGNORE));
			CHECK(idx == MPI_UNDEFINED);
		}
		CHECK(sum == expect_sum(i));
		for (int j = 0; j < N; j++) CHECK(b[j] == 7L * i + j);
	}
	for (int k = 0; k < 3; k++) CHECK_RC(MPI_Request_free(&rs[k]));
}

int main(int argc, char **argv)
{
	if (getenv("FL_MULTIPLE")) { /* where the lane stays off */
		int provided;
		CHECK_RC(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
		CHECK(provided == MPI_THREAD_MULTIPLE);
	} else {
		CHECK_RC(MPI_Init(&argc, &argv));
	}
	CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
	CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
	/* The blocking lane's plans first, as a program's set-up would. */
	for (int i = 0; i < 4; i++) CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
	kinds(MPI_COMM_WORLD);
	startall(MPI_COMM_WORLD);

	/* A second MPI_Start of an active request is refused, and the run in
	 * progress is not disturbed. */
	CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
	long x = rank, y = -1;
	MPI_Request r;
	CHECK_RC(MPI_Allreduce_init(&x, &y, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
	for (int i = 0; i < 10; i++) {
		CHECK_RC(MPI_Start(&r));
		int rc = MPI_Start(&r), cls = -1;
		CHECK(rc != MPI_SUCCESS);
		CHECK_RC(MPI_Error_class(rc, &cls));
		CHECK(cls == MPI_ERR_REQUEST);
		CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
		CHECK(y == expect_sum(0));
	}
	CHECK_RC(MPI_Request_free(&r));

	/* A communicator of its own, freed while a persistent request on it
	 * exists (inactive); the request is freed afterwards, and the next
	 * communicator (which may get the freed one's index) runs its own. */
	for (int pass = 0; pass < 3; pass++) {
		MPI_Comm dup;
		CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
		long s = rank + pass, t = -1;
		CHECK_RC(MPI_Allreduce_init(&s, &t, 1, MPI_LONG, MPI_SUM, dup, MPI_INFO_NULL, &r));
		for (int i = 0; i < 20; i++) {
			CHECK_RC(MPI_Start(&r));
			complete(&r, i);
			CHECK(t == expect_sum(pass));
		}
		CHECK_RC(MPI_Comm_free(&dup));
		CHECK_RC(MPI_Request_free(&r));
	}
	kinds(MPI_COMM_WORLD);
	report_ok();
	CHECK_RC(MPI_Finalize());
	return 0;
}
