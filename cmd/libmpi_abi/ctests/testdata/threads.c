/* MPI_THREAD_MULTIPLE: several threads of every rank communicate at once
 * (blocking and nonblocking, each thread on its own tag), and a thread
 * other than the main one is not the main thread. Then each thread posts a
 * window of requests that another thread completes: request slots move
 * between the threads' slot caches, and the windows are larger than a
 * cache (HC_REQCACHE), so caches refill from and spill to the shared free
 * list while other threads do the same. */
#include <pthread.h>
#include "check.h"

#define NTHREADS 4
#define ITERS 300

static int rank, size;

#define WIN 100
#define ROUNDS 30
static MPI_Request xreq[NTHREADS][2 * WIN];
static int xin[NTHREADS][WIN], xout[NTHREADS][WIN];
static pthread_barrier_t bar;

/* handoff: thread t posts WIN self-messages on its own tag; after a
 * barrier thread t completes thread t+1's requests (MPI_Wait one by one or
 * MPI_Waitall, alternately) and checks what they received. */
static void handoff(int t)
{
	int o = (t + 1) % NTHREADS;
	for (int round = 0; round < ROUNDS; round++) {
		for (int j = 0; j < WIN; j++) {
			xout[t][j] = rank * 1000000 + round * 1000 + j;
			xin[t][j] = -1;
			CHECK_RC(MPI_Irecv(&xin[t][j], 1, MPI_INT, rank, 100 + t, MPI_COMM_WORLD, &xreq[t][j]));
			CHECK_RC(MPI_Isend(&xout[t][j], 1, MPI_INT, rank, 100 + t, MPI_COMM_WORLD, &xreq[t][WIN + j]));
		}
		pthread_barrier_wait(&bar);
		if (round % 2) {
			CHECK_RC(MPI_Waitall(2 * WIN, xreq[o], MPI_STATUSES_IGNORE));
		} else {
			for (int j = 2 * WIN - 1; j >= 0; j--) {
				MPI_Status st;
				CHECK_RC(MPI_Wait(&xreq[o][j], &st));
			}
		}
		for (int j = 0; j < 2 * WIN; j++) CHECK(xreq[o][j] == MPI_REQUEST_NULL);
		for (int j = 0; j < WIN; j++) CHECK(xin[o][j] == rank * 1000000 + round * 1000 + j);
		pthread_barrier_wait(&bar);
	}
}

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
	handoff(t);
	return NULL;
}

int main(int argc, char **argv)
{
	int provided;
	CHECK_RC(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
	CHECK(provided == MPI_THREAD_MULTIPLE);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	CHECK(pthread_barrier_init(&bar, NULL, NTHREADS) == 0);
	pthread_t th[NTHREADS];
	for (int t = 0; t < NTHREADS; t++) CHECK(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) == 0);
	for (int t = 0; t < NTHREADS; t++) pthread_join(th[t], NULL);
	CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
	report_ok();
	MPI_Finalize();
	return 0;
}
