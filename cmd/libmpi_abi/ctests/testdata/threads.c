/* MPI_THREAD_MULTIPLE: several threads of every rank communicate at once
 * (blocking and nonblocking, each thread on its own tag), and a thread
 * other than the main one is not the main thread. */
#include <pthread.h>
#include "check.h"

#define NTHREADS 4
#define ITERS 300

static int rank, size;

static void *worker(void *arg)
{
	int t = (int)(intptr_t)arg;
	int next = (rank + 1) % size, prev = (rank + size - 1) % size;
	int main_thread = 1;
	CHECK_RC(MPI_Is_thread_main(&main_thread));
	CHECK(!main_thread);
	for (int i = 0; i < ITERS; i++) {
		int out[8], in[8] = {0};
		for (int k = 0; k < 8; k++) out[k] = rank * 1000000 + t * 10000 + i * 8 + k;
		if (i % 2) {
			CHECK_RC(MPI_Sendrecv(out, 8, MPI_INT, next, t, in, 8, MPI_INT, prev, t, MPI_COMM_WORLD,
					      MPI_STATUS_IGNORE));
		} else {
			MPI_Request rq[2];
			CHECK_RC(MPI_Irecv(in, 8, MPI_INT, prev, t, MPI_COMM_WORLD, &rq[0]));
			CHECK_RC(MPI_Isend(out, 8, MPI_INT, next, t, MPI_COMM_WORLD, &rq[1]));
			CHECK_RC(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
		}
		for (int k = 0; k < 8; k++) CHECK(in[k] == prev * 1000000 + t * 10000 + i * 8 + k);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int provided;
	CHECK_RC(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
	CHECK(provided == MPI_THREAD_MULTIPLE);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	pthread_t th[NTHREADS];
	for (int t = 0; t < NTHREADS; t++) CHECK(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) == 0);
	for (int t = 0; t < NTHREADS; t++) pthread_join(th[t], NULL);
	CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
	report_ok();
	MPI_Finalize();
	return 0;
}
