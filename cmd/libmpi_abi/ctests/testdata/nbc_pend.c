/* Nonblocking collectives the C lane keeps pending (nbc_pend.c).
 *
 * 1. Rank 0 starts an MPI_Iallreduce first (rank 1 starts only once it
 *    has rank 0's token, sent after the start), then completes it with
 *    MPI_Test in a loop: its start cannot complete, and C keeps it
 *    pending; tested, it completes in C. Then the same with MPI_Wait,
 *    and Ibcast and Ialltoall likewise, every result checked.
 * 2. The start must send what this rank contributes: rank 0 starts, then
 *    makes no MPI call at all until the others, which start and wait,
 *    have raised a flag in a shared window; only then does it wait. A
 *    start that left its sends to the wait would leave the others waiting
 *    for ever (the job times out).
 * 3. Pending runs meet other calls: a pending collective's handle in
 *    MPI_Waitall with a point-to-point receive, MPI_Request_get_status, a
 *    blocking collective and an MPI_Comm_dup before its wait.
 * The debug report (pcoll_test.go) says how many C kept and completed. */
#include <time.h>

#include "check.h"

enum { ROUNDS = 200, FLAGS = 40 };

static int rank, size;

static long sum_of(int i) { return (long)size * i + (long)size * (size - 1) / 2; }

/* first: rank 0 starts before the others (its token releases them). */
static void token_first(void)
{
	int t = 0;
	if (rank == 0)
		for (int p = 1; p < size; p++) CHECK_RC(MPI_Send(&t, 1, MPI_INT, p, 9, MPI_COMM_WORLD));
	else
		CHECK_RC(MPI_Recv(&t, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
}

static void finish(MPI_Request *r, int tested)
{
	if (tested) {
		int flag = 0;
		while (!flag) CHECK_RC(MPI_Test(r, &flag, MPI_STATUS_IGNORE));
	} else {
		CHECK_RC(MPI_Wait(r, MPI_STATUS_IGNORE));
	}
	CHECK(*r == MPI_REQUEST_NULL);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	CHECK_RC(MPI_Init(&argc, &argv));
	CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
	CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
	long in = 0, out = 0, a2a_in[64], a2a_out[64], b[4];
	MPI_Request r;
	/* Waited at once first, so that the lane learns the calls' plans. */
	for (int i = 0; i < 8; i++) {
		in = rank;
		CHECK_RC(MPI_Iallreduce(&in, &out, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &r));
		CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
		CHECK_RC(MPI_Ibcast(b, 4, MPI_LONG, 0, MPI_COMM_WORLD, &r));
		CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
		CHECK_RC(MPI_Ialltoall(a2a_in, 1, MPI_LONG, a2a_out, 1, MPI_LONG, MPI_COMM_WORLD, &r));
		CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
	}

	/* 1. */
	for (int i = 0; i < ROUNDS; i++) {
		int tested = i % 2 == 0;
		CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
		if (rank != 0) token_first();
		in = rank + i;
		out = -1;
		CHECK_RC(MPI_Iallreduce(&in, &out, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &r));
		if (rank == 0) token_first();
		finish(&r, tested);
		CHECK(out == sum_of(i));

		CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
		for (int j = 0; j < 4; j++) b[j] = rank == 1 % size ? 100L * i + j : -1;
		if (rank != 0) token_first();
		CHECK_RC(MPI_Ibcast(b, 4, MPI_LONG, 1 % size, MPI_COMM_WORLD, &r));
		if (rank == 0) token_first();
		finish(&r, tested);
		for (int j = 0; j < 4; j++) CHECK(b[j] == 100L * i + j);

		CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
		for (int p = 0; p < size; p++) a2a_in[p] = 1000L * rank + p + i, a2a_out[p] = -1;
		if (rank != 0) token_first();
		CHECK_RC(MPI_Ialltoall(a2a_in, 1, MPI_LONG, a2a_out, 1, MPI_LONG, MPI_COMM_WORLD, &r));
		if (rank == 0) token_first();
		finish(&r, tested);
		for (int p = 0; p < size; p++) CHECK(a2a_out[p] == 1000L * p + rank + i);
	}

	/* 2. At 2 ranks the Iallreduce (each rank's start sends its part);
	 * at any size the Ibcast from rank 0 (the root's start sends). */
	int *flags = NULL, disp = 0;
	MPI_Aint wsize = 0;
	MPI_Win win;
	CHECK_RC(MPI_Win_allocate_shared(rank == 0 ? (MPI_Aint)(2 * FLAGS * sizeof(int)) : 0, sizeof(int), MPI_INFO_NULL,
					 MPI_COMM_WORLD, &flags, &win));
	CHECK_RC(MPI_Win_shared_query(win, 0, &wsize, &disp, &flags));
	if (rank == 0) memset(flags, 0, 2 * FLAGS * sizeof(int));
	CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
	for (int i = 0; i < 2 * FLAGS; i++) {
		int bc = i % 2 || size != 2;
		CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
		in = rank + i;
		for (int j = 0; j < 4; j++) b[j] = rank == 0 ? 7L * i + j : -1;
		if (bc)
			CHECK_RC(MPI_Ibcast(b, 4, MPI_LONG, 0, MPI_COMM_WORLD, &r));
		else
			CHECK_RC(MPI_Iallreduce(&in, &out, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &r));
		if (rank == 0) {
			/* No MPI call until every other rank has its result. */
			double end = now() + 30;
			while (__atomic_load_n(&flags[i], __ATOMIC_ACQUIRE) != size - 1 && now() < end);
			CHECK(__atomic_load_n(&flags[i], __ATOMIC_ACQUIRE) == size - 1);
			CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
		} else {
			CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
			__atomic_fetch_add(&flags[i], 1, __ATOMIC_RELEASE);
		}
		if (bc)
			for (int j = 0; j < 4; j++) CHECK(b[j] == 7L * i + j);
		else
			CHECK(out == sum_of(i));
	}
	CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
	CHECK_RC(MPI_Win_free(&win));

	/* 3. */
	for (int i = 0; i < 20; i++) {
		CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
		if (rank != 0) token_first();
		in = rank + i;
		CHECK_RC(MPI_Iallreduce(&in, &out, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &r));
		if (rank == 0) token_first();
		switch (i % 4) {
		case 0: { /* in an array with a receive */
			MPI_Request rs[2];
			int v = -1, w = rank;
			rs[0] = r;
			CHECK_RC(MPI_Irecv(&v, 1, MPI_INT, (rank + size - 1) % size, 3, MPI_COMM_WORLD, &rs[1]));
			CHECK_RC(MPI_Send(&w, 1, MPI_INT, (rank + 1) % size, 3, MPI_COMM_WORLD));
			CHECK_RC(MPI_Waitall(2, rs, MPI_STATUSES_IGNORE));
			CHECK(v == (rank + size - 1) % size);
			break;
		}
		case 1: { /* its status asked first */
			int flag = 0;
			while (!flag) CHECK_RC(MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE));
			CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
			break;
		}
		case 2: /* a blocking collective in between */
			CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
			CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
			break;
		default: { /* a communicator made and freed in between */
			MPI_Comm d;
			CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &d));
			CHECK_RC(MPI_Comm_free(&d));
			CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
		}
		}
		CHECK(out == sum_of(i));
	}
	report_ok();
	CHECK_RC(MPI_Finalize());
	return 0;
}
