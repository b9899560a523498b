/*
 * window_quantiles.c — osu_bw's window and osu_latency's ping-pong timed
 * sample by sample, for comparing two builds on a loaded machine.
 *
 * osu_bw and osu_latency print one average over thousands of iterations,
 * which on a shared machine is mostly how often the ranks were descheduled.
 * Here rank 0 times every sample on its own and prints quantiles: a
 * sample preempted by another process lands in the tail, and the low
 * quantiles of two builds (or two MPIs) run alternately in the same minutes
 * compare what the code costs. Still not a quiet machine's figure: say so
 * with every number.
 *
 *   window_quantiles bw  SIZE [SAMPLES]   one sample = a window of 64 Isends
 *                                         of SIZE bytes, Waitall, 4-byte ack;
 *                                         prints ns per message
 *   window_quantiles lat SIZE [SAMPLES]   one sample = 8 round trips of SIZE
 *                                         bytes; prints ns per one-way half
 *
 * Two ranks; 100 samples of warm-up. Builds with any MPI's mpicc
 * (bin/hympicc, mpicc.openmpi).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { WINDOW = 64, ROUND_TRIPS = 8, WARMUP = 100 };

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int me, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int bw = argc > 1 && strcmp(argv[1], "bw") == 0, lat = argc > 1 && strcmp(argv[1], "lat") == 0;
	long n = argc > 2 ? atol(argv[2]) : -1, samples = argc > 3 ? atol(argv[3]) : 5000;
	if (size != 2 || !(bw || lat) || n < 0 || n > (1 << 24) || samples < 1) {
		if (me == 0) fprintf(stderr, "usage: window_quantiles bw|lat SIZE [SAMPLES] (2 ranks)\n");
		MPI_Finalize();
		return 2;
	}
	char *buf = malloc(n ? (size_t)n : 1), ack[4] = {0};
	double *t = malloc(sizeof *t * (size_t)samples);
	if (!buf || !t) MPI_Abort(MPI_COMM_WORLD, 1);
	memset(buf, 1, (size_t)n);
	MPI_Request r[WINDOW];
	int peer = 1 - me;
	for (long s = -WARMUP; s < samples; s++) {
		double t0 = MPI_Wtime();
		if (bw && me == 0) {
			for (int i = 0; i < WINDOW; i++) MPI_Isend(buf, (int)n, MPI_CHAR, peer, 1, MPI_COMM_WORLD, &r[i]);
			MPI_Waitall(WINDOW, r, MPI_STATUSES_IGNORE);
			MPI_Recv(ack, 4, MPI_CHAR, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else if (bw) {
			for (int i = 0; i < WINDOW; i++) MPI_Irecv(buf, (int)n, MPI_CHAR, peer, 1, MPI_COMM_WORLD, &r[i]);
			MPI_Waitall(WINDOW, r, MPI_STATUSES_IGNORE);
			MPI_Send(ack, 4, MPI_CHAR, peer, 2, MPI_COMM_WORLD);
		} else {
			for (int i = 0; i < ROUND_TRIPS; i++) {
				if (me == 0) MPI_Send(buf, (int)n, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
				MPI_Recv(buf, (int)n, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				if (me == 1) MPI_Send(buf, (int)n, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
			}
		}
		if (s >= 0) t[s] = (MPI_Wtime() - t0) * 1e9 / (bw ? WINDOW : 2 * ROUND_TRIPS);
	}
	if (me == 0) {
		qsort(t, (size_t)samples, sizeof *t, cmp);
		printf("%s %ld B: ns per %s: min %.0f p10 %.0f p25 %.0f median %.0f (%ld samples)\n", argv[1], n,
		       bw ? "message" : "half round trip", t[0], t[samples / 10], t[samples / 4], t[samples / 2],
		       samples);
	}
	free(buf);
	free(t);
	MPI_Finalize();
	return 0;
}
