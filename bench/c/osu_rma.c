/* osu_rma.c — OSU-style one-sided micro-benchmarks in plain MPI C, built
 * against hympi (hympicc), Open MPI and MPICH alike, so bench/compare_rma.sh
 * can run the same loops on each.
 *
 * Rank 0 is the origin, rank 1 the target (which only synchronises).
 * Window memory comes from MPI_Win_allocate. Tests (argv[1], default all):
 *   put_lat, get_lat    latency of one Put/Get + Win_flush in a lock_all epoch
 *   put_fence, get_fence  latency of one Put/Get + Win_fence
 *   put_bw, get_bw      bandwidth: a window of 64 operations, then one flush
 *   acc_lat             Accumulate(SUM, MPI_DOUBLE) + flush
 *   gacc_lat            Get_accumulate(SUM, MPI_DOUBLE) + flush
 *   fop_lat, cas_lat    Fetch_and_op(SUM) / Compare_and_swap on one int64 + flush
 * Output: one line per test and size: "test size value" (µs, or MB/s for _bw). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXSIZE (1 << 22)
#define WINDOW 64

static int rank, iters = 2000, warmup = 200;

static int iters_for(size_t size)
{
	int n = iters;
	if (size > 65536) n = iters / 10;
	return n < 20 ? 20 : n;
}

static void lat(const char *name, MPI_Win win, char *buf, size_t size, int get, int fence)
{
	int n = iters_for(size);
	double t0 = 0;
	if (!fence) MPI_Win_lock_all(0, win);
	else MPI_Win_fence(0, win);
	for (int i = 0; i < n + warmup; i++) {
		if (i == warmup) t0 = MPI_Wtime();
		if (rank == 0) {
			if (get) MPI_Get(buf, (int)size, MPI_CHAR, 1, 0, (int)size, MPI_CHAR, win);
			else MPI_Put(buf, (int)size, MPI_CHAR, 1, 0, (int)size, MPI_CHAR, win);
			if (!fence) MPI_Win_flush(1, win);
		}
		if (fence) MPI_Win_fence(0, win);
	}
	double t = MPI_Wtime() - t0;
	if (!fence) MPI_Win_unlock_all(win);
	if (rank == 0) printf("%s %zu %.3f\n", name, size, t * 1e6 / n);
	MPI_Barrier(MPI_COMM_WORLD);
}

static void bw(const char *name, MPI_Win win, char *buf, size_t size, int get)
{
	int n = iters_for(size) / WINDOW + 5;
	double t0 = 0;
	MPI_Win_lock_all(0, win);
	for (int i = 0; i < n + 2; i++) {
		if (i == 2) t0 = MPI_Wtime();
		if (rank == 0) {
			for (int k = 0; k < WINDOW; k++) {
				if (get) MPI_Get(buf, (int)size, MPI_CHAR, 1, 0, (int)size, MPI_CHAR, win);
				else MPI_Put(buf, (int)size, MPI_CHAR, 1, 0, (int)size, MPI_CHAR, win);
			}
			MPI_Win_flush(1, win);
		}
	}
	double t = MPI_Wtime() - t0;
	MPI_Win_unlock_all(win);
	if (rank == 0) printf("%s %zu %.1f\n", name, size, (double)size * WINDOW * n / t / 1e6);
	MPI_Barrier(MPI_COMM_WORLD);
}

static void atomic_lat(const char *name, MPI_Win win, int kind, size_t size)
{
	int n = iters_for(size);
	double t0 = 0;
	int64_t one = 1, cmp = 0, res = 0;
	double *d = calloc(size / sizeof(double) + 1, sizeof(double));
	double *dr = calloc(size / sizeof(double) + 1, sizeof(double));
	int cnt = (int)(size / sizeof(double));
	MPI_Win_lock_all(0, win);
	for (int i = 0; i < n + warmup; i++) {
		if (i == warmup) t0 = MPI_Wtime();
		if (rank == 0) {
			switch (kind) {
			case 0: MPI_Accumulate(d, cnt, MPI_DOUBLE, 1, 0, cnt, MPI_DOUBLE, MPI_SUM, win); break;
			case 1:
				MPI_Get_accumulate(d, cnt, MPI_DOUBLE, dr, cnt, MPI_DOUBLE, 1, 0, cnt, MPI_DOUBLE, MPI_SUM, win);
				break;
			case 2: MPI_Fetch_and_op(&one, &res, MPI_INT64_T, 1, 0, MPI_SUM, win); break;
			case 3: MPI_Compare_and_swap(&one, &cmp, &res, MPI_INT64_T, 1, 0, win); break;
			}
			MPI_Win_flush(1, win);
		}
	}
	double t = MPI_Wtime() - t0;
	MPI_Win_unlock_all(win);
	if (rank == 0) printf("%s %zu %.3f\n", name, size, t * 1e6 / n);
	free(d);
	free(dr);
	MPI_Barrier(MPI_COMM_WORLD);
}

static int want(const char *which, const char *name) { return !which || strcmp(which, name) == 0; }

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	const char *which = argc > 1 && strcmp(argv[1], "all") ? argv[1] : NULL;
	if (getenv("RMA_ITERS")) iters = atoi(getenv("RMA_ITERS"));
	char *buf = malloc(MAXSIZE);
	memset(buf, 1, MAXSIZE);
	char *base;
	MPI_Win win;
	MPI_Win_allocate(MAXSIZE, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
	static const size_t lsizes[] = {8, 64, 1024, 8192, 65536};
	static const size_t bsizes[] = {65536, 1 << 20, 4 << 20};
	for (size_t i = 0; i < sizeof lsizes / sizeof *lsizes; i++) {
		if (want(which, "put_lat")) lat("put_lat", win, buf, lsizes[i], 0, 0);
		if (want(which, "get_lat")) lat("get_lat", win, buf, lsizes[i], 1, 0);
		if (want(which, "put_fence")) lat("put_fence", win, buf, lsizes[i], 0, 1);
		if (want(which, "get_fence")) lat("get_fence", win, buf, lsizes[i], 1, 1);
	}
	MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
	for (size_t i = 0; i < sizeof bsizes / sizeof *bsizes; i++) {
		if (want(which, "put_bw")) bw("put_bw", win, buf, bsizes[i], 0);
		if (want(which, "get_bw")) bw("get_bw", win, buf, bsizes[i], 1);
	}
	if (want(which, "acc_lat")) atomic_lat("acc_lat", win, 0, 8);
	if (want(which, "acc_lat")) atomic_lat("acc_lat", win, 0, 8192);
	if (want(which, "gacc_lat")) atomic_lat("gacc_lat", win, 1, 8);
	if (want(which, "fop_lat")) atomic_lat("fop_lat", win, 2, 8);
	if (want(which, "cas_lat")) atomic_lat("cas_lat", win, 3, 8);
	MPI_Win_free(&win);
	free(buf);
	MPI_Finalize();
	return 0;
}
