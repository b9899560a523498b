/* p_order.c — persistent collectives match by the order of their *_init
 * calls (MPI 4.0), not of their MPI_Start calls: odd ranks start a set of
 * persistent broadcasts and allreduces in reverse order, and every run
 * (rotated each time) must still pair each one with itself everywhere. */
#include "check.h"

enum { K = 4, RUNS = 5 };

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);

	/* Ops 0 and 2 broadcast from rank i%size, 1 and 3 sum; counts differ so
	 * a mismatch is also a count error. */
	int bufs[K][K + 1], sums[K][K + 1];
	MPI_Request reqs[K];
	for (int i = 0; i < K; i++) {
		if (i % 2 == 0)
			CHECK_RC(MPI_Bcast_init(bufs[i], i + 1, MPI_INT, i % size, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[i]));
		else
			CHECK_RC(MPI_Allreduce_init(bufs[i], sums[i], i + 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
						    MPI_INFO_NULL, &reqs[i]));
	}
	for (int run = 0; run < RUNS; run++) {
		for (int i = 0; i < K; i++)
			for (int j = 0; j <= i; j++)
				bufs[i][j] = (i % 2 == 1 || rank == i % size) ? 100 * run + 10 * i + j + rank * (i % 2) : -1;
		for (int x = 0; x < K; x++) {
			int i = (x + run) % K;
			if (rank % 2 == 1)
				i = K - 1 - i;
			CHECK_RC(MPI_Start(&reqs[i]));
		}
		CHECK_RC(MPI_Waitall(K, reqs, MPI_STATUSES_IGNORE));
		for (int i = 0; i < K; i++)
			for (int j = 0; j <= i; j++) {
				int base = 100 * run + 10 * i + j;
				if (i % 2 == 0)
					CHECK(bufs[i][j] == base);
				else
					CHECK(sums[i][j] == size * base + size * (size - 1) / 2);
			}
	}
	for (int i = 0; i < K; i++)
		CHECK_RC(MPI_Request_free(&reqs[i]));
	report_ok();
	MPI_Finalize();
	return 0;
}
