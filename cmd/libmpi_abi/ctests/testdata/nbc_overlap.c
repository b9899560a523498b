/* Nonblocking collectives completed by MPI_Test alone, the way a program
 * that overlaps them with computation completes them, with point-to-point
 * traffic in between; persistent ones completed by Test and by Wait; and,
 * with NBC_OVERLAP_ASYNC=1 in the environment (and
 * HYMPI_ASYNC_PROGRESS=1), a collective that completes while its ranks
 * compute without calling MPI at all.
 *
 * The starts adapt to how a communicator's collectives complete (a test
 * makes the next ones defer their receives, a wait makes them run at once;
 * mpi/coll_cstart.go), so the loops mix both, and which rank arrives
 * first changes every round (a short sleep), to go through every state. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "check.h"

static int rank, size;

static void nap(int us)
{
	struct timespec ts = {0, (long)us * 1000};
	nanosleep(&ts, NULL);
}

/* test_until polls r with MPI_Test only, with point-to-point exchanges
 * with both ring neighbours between the first tests (as many on every
 * rank, so that they pair up whatever the tests find). */
static void test_until(MPI_Request *r, int round)
{
	int flag = 0;
	for (int i = 0; i < 3 || !flag; i++) {
		if (!flag) CHECK_RC(MPI_Test(r, &flag, MPI_STATUS_IGNORE));
		if (i >= 3) continue;
		int right = (rank + 1) % size, left = (rank + size - 1) % size;
		int out = rank * 1000 + round * 10 + i, in = -1;
		MPI_Request pr[2];
		CHECK_RC(MPI_Irecv(&in, 1, MPI_INT, left, 77, MPI_COMM_WORLD, &pr[0]));
		CHECK_RC(MPI_Isend(&out, 1, MPI_INT, right, 77, MPI_COMM_WORLD, &pr[1]));
		CHECK_RC(MPI_Waitall(2, pr, MPI_STATUSES_IGNORE));
		CHECK(in == left * 1000 + round * 10 + i);
	}
	CHECK(*r == MPI_REQUEST_NULL);
}

static void nonblocking(void)
{
	for (int round = 0; round < 64; round++) {
		int late = round % size; /* this round's last rank to start */
		int root = (round / 2) % size;
		int by_wait = round % 5 == 4; /* now and then a wait, which flips the starts back */
		if (rank == late && round % 3 != 0) nap(200);

		int b[3] = {-1, -1, -1};
		if (rank == root) b[0] = round, b[1] = root, b[2] = -round;
		MPI_Request r;
		CHECK_RC(MPI_Ibcast(b, 3, MPI_INT, root, MPI_COMM_WORLD, &r));
		if (by_wait)
			CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
		else
			test_until(&r, round);
		CHECK(b[0] == round && b[1] == root && b[2] == -round);

		int in[2] = {rank + round, 1}, out[2] = {-1, -1};
		CHECK_RC(MPI_Iallreduce(in, out, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r));
		if (by_wait)
			CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
		else
			test_until(&r, round + 100);
		CHECK(out[0] == size * (size - 1) / 2 + size * round && out[1] == size);

		/* A Test that comes too early must leave the request alone. */
		int flag = 0;
		CHECK_RC(MPI_Ibarrier(MPI_COMM_WORLD, &r));
		CHECK_RC(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
		CHECK(flag ? r == MPI_REQUEST_NULL : r != MPI_REQUEST_NULL);
		test_until(&r, round + 200); /* its exchanges pair with the other ranks' */
	}
}

static void persistent(void)
{
	int b[2], in = 0, out = -1;
	MPI_Request pr[3];
	CHECK_RC(MPI_Bcast_init(b, 2, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &pr[0]));
	CHECK_RC(MPI_Allreduce_init(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &pr[1]));
	CHECK_RC(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &pr[2]));
	for (int round = 0; round < 48; round++) {
		if (rank == round % size && round % 3 != 0) nap(200);
		b[0] = b[1] = -1;
		if (rank == 0) b[0] = round, b[1] = 7;
		in = rank * round;
		out = -1;
		for (int i = 0; i < 3; i++) {
			CHECK_RC(MPI_Start(&pr[i]));
			int flag = 0;
			int idx = -1, ids[1] = {-1};
			switch (round % 6) { /* a start may have completed it: every call must see that */
			case 0:
				while (!flag)
					CHECK_RC(MPI_Test(&pr[i], &flag, MPI_STATUS_IGNORE));
				break;
			case 1:
				CHECK_RC(MPI_Wait(&pr[i], MPI_STATUS_IGNORE));
				break;
			case 2:
				CHECK_RC(MPI_Waitall(1, &pr[i], MPI_STATUSES_IGNORE));
				CHECK_RC(MPI_Wait(&pr[i], MPI_STATUS_IGNORE)); /* inactive: at once */
				break;
			case 3:
				while (!flag)
					CHECK_RC(MPI_Testall(1, &pr[i], &flag, MPI_STATUSES_IGNORE));
				break;
			case 4:
				CHECK_RC(MPI_Waitany(1, &pr[i], &idx, MPI_STATUS_IGNORE));
				CHECK(idx == 0);
				break;
			case 5:
				CHECK_RC(MPI_Waitsome(1, &pr[i], &flag, ids, MPI_STATUSES_IGNORE));
				CHECK(flag == 1 && ids[0] == 0);
				break;
			}
			CHECK(pr[i] != MPI_REQUEST_NULL); /* persistent: inactive, not freed */
		}
		CHECK(b[0] == round && b[1] == 7);
		CHECK(out == round * size * (size - 1) / 2);
	}
	for (int i = 0; i < 3; i++) CHECK_RC(MPI_Request_free(&pr[i]));
}

/* async: every rank but the root starts an Ibcast first and then computes,
 * calling nothing in MPI, until the root's data is in its buffer: only the
 * engine's progress goroutine can put it there (and forward it down the
 * tree). The root starts once the others are computing. */
static void async(void)
{
	for (int round = 0; round < 8; round++) {
		volatile int b[2] = {-1, -1};
		int root = round % size;
		CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
		MPI_Request r;
		if (rank == root) {
			nap(2000);
			b[0] = round, b[1] = 42;
		}
		CHECK_RC(MPI_Ibcast((void *)b, 2, MPI_INT, root, MPI_COMM_WORLD, &r));
		double x = 1;
		while (__atomic_load_n(&b[1], __ATOMIC_ACQUIRE) != 42)
			x = x * 1.0000001 + 1e-9; /* computing */
		CHECK(x > 0);
		CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
		CHECK(b[0] == round && b[1] == 42);
	}
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	const char *a = getenv("NBC_OVERLAP_ASYNC");
	if (a && strcmp(a, "1") == 0) {
		async();
	} else {
		nonblocking();
		persistent();
	}
	report_ok();
	MPI_Finalize();
	return 0;
}
