/* MPI_Request_free of nonblocking collectives still in flight, each
 * followed by another collective that is waited for. A freed collective
 * completes in the background, at its own pace on each rank: the later
 * collective's wait need not finish it (on one rank it may, on the other
 * not), so a rank that looks for the freed one's result must not decide
 * alone how many more collectives it calls. The ranks agree on when to
 * stop, and after every round a blocking collective checks that they are
 * still in step (a rank one collective ahead would show there, or earlier
 * as a tag and length mismatch).
 *
 * What makes a freed one late on one rank: starts that defer their
 * receives (the collective before was completed by MPI_Test), a schedule
 * not yet memoised (new buffers each round) and a peer that started both
 * collectives before this rank started the first (one rank sleeps). */
#include <unistd.h>
#include "check.h"

enum { ROUNDS = 24, MAXN = 5000 };

static int rank, size;

/* wait_landed makes progress with collectives until v[0..n) holds want on
 * every rank (or 30 s have passed on every rank); whether it does. */
static int wait_landed(const int *v, int n, int want)
{
	double t0 = MPI_Wtime();
	for (int all_in = 0; !all_in;) {
		int in = 1;
		for (int i = 0; i < n; i++)
			in &= ((volatile const int *)v)[i] == want;
		in |= MPI_Wtime() - t0 > 30;
		CHECK_RC(MPI_Allreduce(&in, &all_in, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
	}
	for (int i = 0; i < n; i++)
		if (v[i] != want) return 0;
	return 1;
}

/* in_step: every rank is at round k. */
static void in_step(int k)
{
	int mine[2] = {k, -k}, max[2] = {0, 0};
	CHECK_RC(MPI_Allreduce(mine, max, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
	CHECK(max[0] == k && max[1] == -k);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	/* Never freed, and new addresses each round (offset k): a freed
	 * collective gives no sign of when it is done with its buffers but
	 * its result landing everywhere. */
	static int in[MAXN + ROUNDS], out[MAXN + ROUNDS], bc[MAXN + ROUNDS], c[ROUNDS], d[ROUNDS];
	static const int counts[] = {1, 1, 1, 300, 1, MAXN};
	for (int k = 0; k < ROUNDS; k++) {
		int n = counts[k % 6], *o = out + k, *b = bc + k, flag = 0;
		MPI_Request r;
		for (int i = 0; i < n; i++) {
			in[k + i] = rank, o[i] = -1;
			b[i] = rank == k % size ? k : -1;
		}
		/* A collective completed by MPI_Test: the next starts defer. */
		int x = rank, y = -1;
		CHECK_RC(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r));
		while (!flag)
			CHECK_RC(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
		if (rank == k % size) usleep(2000);
		CHECK_RC(MPI_Iallreduce(in + k, o, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r));
		CHECK_RC(MPI_Request_free(&r));
		CHECK(r == MPI_REQUEST_NULL);
		if (k % 2) {
			/* An Ibcast and an Ibarrier freed too. */
			CHECK_RC(MPI_Ibcast(b, n, MPI_INT, k % size, MPI_COMM_WORLD, &r));
			CHECK_RC(MPI_Request_free(&r));
			CHECK_RC(MPI_Ibarrier(MPI_COMM_WORLD, &r));
			CHECK_RC(MPI_Request_free(&r));
		}
		c[k] = rank + k, d[k] = -1;
		CHECK_RC(MPI_Iallreduce(&c[k], &d[k], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r));
		CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
		CHECK(r == MPI_REQUEST_NULL && d[k] == size * (size - 1) / 2 + k * size);
		CHECK(wait_landed(o, n, size * (size - 1) / 2));
		if (k % 2) CHECK(wait_landed(b, n, k));
		in_step(k);
	}
	report_ok();
	MPI_Finalize();
	return 0;
}
