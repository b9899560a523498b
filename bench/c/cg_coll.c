/*
 * cg_coll: bench/cg_coll (the Go program) for the C ABI: small collectives
 * for counting instructions under valgrind --tool=callgrind
 * (bench/callgrind_coll.sh), not for timing. Only the measured rank runs
 * under valgrind. Before each call it waits outside MPI, in await_peers,
 * until every other rank has entered that call (a counter per rank in a
 * shared file) and a little longer, so that their first messages are
 * published and its own call finds them on its first look: no polling in
 * the count. Each collective and form is counted apart: callgrind's
 * counters are zeroed after its warm-up calls and dumped after its loop
 * (callgrind.out.PID.K, K in the order of the table below).
 *
 * Usage: hympirun -n N cg_coll -flags FILE -measured R [-i ITERS] [-m SIZE]
 */
#define _GNU_SOURCE

#include <mpi.h>

#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#endif
#endif
#ifndef CALLGRIND_ZERO_STATS
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_DUMP_STATS_AT(s)
#endif

enum { WARMUP = 10 };

static int n, me;
static float *sendb, *recvb, *big, *bigrecv;
static int *counts, *displs, cnt;

static int wait1(MPI_Request r) { return MPI_Wait(&r, MPI_STATUS_IGNORE); }

static int c_barrier(void) { return MPI_Barrier(MPI_COMM_WORLD); }
static int c_ibarrier(void)
{
	MPI_Request r;
	return MPI_Ibarrier(MPI_COMM_WORLD, &r) || wait1(r);
}
static int c_bcast(void) { return MPI_Bcast(sendb, cnt, MPI_FLOAT, 0, MPI_COMM_WORLD); }
static int c_ibcast(void)
{
	MPI_Request r;
	return MPI_Ibcast(sendb, cnt, MPI_FLOAT, 0, MPI_COMM_WORLD, &r) || wait1(r);
}
static int c_allreduce(void) { return MPI_Allreduce(sendb, recvb, cnt, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); }
static int c_iallreduce(void)
{
	MPI_Request r;
	return MPI_Iallreduce(sendb, recvb, cnt, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &r) || wait1(r);
}
static int c_reduce(void) { return MPI_Reduce(sendb, recvb, cnt, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD); }
static int c_ireduce(void)
{
	MPI_Request r;
	return MPI_Ireduce(sendb, recvb, cnt, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD, &r) || wait1(r);
}
static int c_scan(void) { return MPI_Scan(sendb, recvb, cnt, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); }
static int c_iscan(void)
{
	MPI_Request r;
	return MPI_Iscan(sendb, recvb, cnt, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &r) || wait1(r);
}
static int c_rsb(void) { return MPI_Reduce_scatter_block(big, recvb, cnt, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); }
static int c_irsb(void)
{
	MPI_Request r;
	return MPI_Ireduce_scatter_block(big, recvb, cnt, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &r) || wait1(r);
}
static int c_scatterv(void)
{
	return MPI_Scatterv(big, counts, displs, MPI_FLOAT, recvb, cnt, MPI_FLOAT, 0, MPI_COMM_WORLD);
}
static int c_iscatterv(void)
{
	MPI_Request r;
	return MPI_Iscatterv(big, counts, displs, MPI_FLOAT, recvb, cnt, MPI_FLOAT, 0, MPI_COMM_WORLD, &r) ||
	       wait1(r);
}
static int c_allgather(void)
{
	return MPI_Allgather(sendb, cnt, MPI_FLOAT, bigrecv, cnt, MPI_FLOAT, MPI_COMM_WORLD);
}
static int c_iallgather(void)
{
	MPI_Request r;
	return MPI_Iallgather(sendb, cnt, MPI_FLOAT, bigrecv, cnt, MPI_FLOAT, MPI_COMM_WORLD, &r) || wait1(r);
}
static int c_alltoallv(void)
{
	return MPI_Alltoallv(big, counts, displs, MPI_FLOAT, bigrecv, counts, displs, MPI_FLOAT, MPI_COMM_WORLD);
}
static int c_ialltoallv(void)
{
	MPI_Request r;
	return MPI_Ialltoallv(big, counts, displs, MPI_FLOAT, bigrecv, counts, displs, MPI_FLOAT, MPI_COMM_WORLD,
			      &r) ||
	       wait1(r);
}

static int c_gather(void) { return MPI_Gather(sendb, cnt, MPI_FLOAT, bigrecv, cnt, MPI_FLOAT, 0, MPI_COMM_WORLD); }
static int c_igather(void)
{
	MPI_Request r;
	return MPI_Igather(sendb, cnt, MPI_FLOAT, bigrecv, cnt, MPI_FLOAT, 0, MPI_COMM_WORLD, &r) || wait1(r);
}
static int c_scatter(void) { return MPI_Scatter(big, cnt, MPI_FLOAT, recvb, cnt, MPI_FLOAT, 0, MPI_COMM_WORLD); }
static int c_iscatter(void)
{
	MPI_Request r;
	return MPI_Iscatter(big, cnt, MPI_FLOAT, recvb, cnt, MPI_FLOAT, 0, MPI_COMM_WORLD, &r) || wait1(r);
}
static int c_alltoall(void) { return MPI_Alltoall(big, cnt, MPI_FLOAT, bigrecv, cnt, MPI_FLOAT, MPI_COMM_WORLD); }
static int c_ialltoall(void)
{
	MPI_Request r;
	return MPI_Ialltoall(big, cnt, MPI_FLOAT, bigrecv, cnt, MPI_FLOAT, MPI_COMM_WORLD, &r) || wait1(r);
}
static int c_gatherv(void)
{
	return MPI_Gatherv(sendb, cnt, MPI_FLOAT, bigrecv, counts, displs, MPI_FLOAT, 0, MPI_COMM_WORLD);
}
static int c_igatherv(void)
{
	MPI_Request r;
	return MPI_Igatherv(sendb, cnt, MPI_FLOAT, bigrecv, counts, displs, MPI_FLOAT, 0, MPI_COMM_WORLD, &r) ||
	       wait1(r);
}
static int c_allgatherv(void)
{
	return MPI_Allgatherv(sendb, cnt, MPI_FLOAT, bigrecv, counts, displs, MPI_FLOAT, MPI_COMM_WORLD);
}
static int c_iallgatherv(void)
{
	MPI_Request r;
	return MPI_Iallgatherv(sendb, cnt, MPI_FLOAT, bigrecv, counts, displs, MPI_FLOAT, MPI_COMM_WORLD, &r) ||
	       wait1(r);
}

static int c_exscan(void) { return MPI_Exscan(sendb, recvb, cnt, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); }
static int c_iexscan(void)
{
	MPI_Request r;
	return MPI_Iexscan(sendb, recvb, cnt, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &r) || wait1(r);
}
/* A periodic ring: two neighbours a rank (the same one twice at 2 ranks). */
static MPI_Comm ring;
static int c_nallgather(void)
{
	return MPI_Neighbor_allgather(sendb, cnt, MPI_FLOAT, bigrecv, cnt, MPI_FLOAT, ring);
}
static int c_inallgather(void)
{
	MPI_Request r;
	return MPI_Ineighbor_allgather(sendb, cnt, MPI_FLOAT, bigrecv, cnt, MPI_FLOAT, ring, &r) || wait1(r);
}

static const struct {
	const char *name;
	int (*fn)(void);
} colls[] = {
	{"Barrier", c_barrier},
	{"Ibarrier", c_ibarrier},
	{"Bcast", c_bcast},
	{"Ibcast", c_ibcast},
	{"Allreduce", c_allreduce},
	{"Iallreduce", c_iallreduce},
	{"Reduce", c_reduce},
	{"Ireduce", c_ireduce},
	{"Scan", c_scan},
	{"Iscan", c_iscan},
	{"ReduceScatterBlock", c_rsb},
	{"IreduceScatterBlock", c_irsb},
	{"Scatterv", c_scatterv},
	{"Iscatterv", c_iscatterv},
	{"Allgather", c_allgather},
	{"Iallgather", c_iallgather},
	{"Alltoallv", c_alltoallv},
	{"Ialltoallv", c_ialltoallv},
	{"Gather", c_gather},
	{"Igather", c_igather},
	{"Scatter", c_scatter},
	{"Iscatter", c_iscatter},
	{"Alltoall", c_alltoall},
	{"Ialltoall", c_ialltoall},
	{"Gatherv", c_gatherv},
	{"Igatherv", c_igatherv},
	{"Allgatherv", c_allgatherv},
	{"Iallgatherv", c_iallgatherv},
	{"Exscan", c_exscan},
	{"Iexscan", c_iexscan},
	{"NeighborAllgather", c_nallgather},
	{"IneighborAllgather", c_inallgather},
};

/* await_peers spins until every other rank has entered call k, then for
 * 100 µs more, while they publish their first messages; the script takes
 * its instructions away by name. The first test sits before the loops so
 * that callgrind does not read each jump back to the entry as a call. */
__attribute__((noinline)) static void await_peers(char *m, uint64_t k)
{
	for (int i = 0; i < n; i++) {
		_Atomic uint64_t *c = (_Atomic uint64_t *)(m + 64 * i);
		if (i == me || atomic_load(c) >= k)
			continue;
		while (atomic_load(c) < k)
			__asm__ volatile("" ::: "memory");
	}
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 100000);
}

int main(int argc, char **argv)
{
	long iters = 100, size = 8, measured = 0;
	const char *path = NULL;
	MPI_Init(&argc, &argv);
	for (int i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "-i") == 0)
			iters = atol(argv[i + 1]);
		else if (strcmp(argv[i], "-m") == 0)
			size = atol(argv[i + 1]);
		else if (strcmp(argv[i], "-flags") == 0)
			path = argv[i + 1];
		else if (strcmp(argv[i], "-measured") == 0)
			measured = atol(argv[i + 1]);
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	if (path == NULL || iters < 1 || size < 4 || size % 4 || measured < 0 || measured >= n) {
		if (me == 0)
			fprintf(stderr, "usage: hympirun -n N cg_coll -flags FILE -measured R [-i ITERS] [-m SIZE]\n");
		MPI_Finalize();
		return 2;
	}
	int fd = open(path, O_RDWR | O_CREAT, 0600);
	if (fd < 0 || ftruncate(fd, 64 * n) != 0) {
		perror("cg_coll: flags file");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	char *m = mmap(NULL, 64 * n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		perror("cg_coll: mmap");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	close(fd);
	cnt = (int)(size / 4);
	sendb = calloc(cnt, 4), recvb = calloc(cnt, 4);
	/* bigrecv holds a neighbour allgather's two blocks at any n. */
	big = calloc((size_t)cnt * n, 4), bigrecv = calloc((size_t)cnt * (n > 2 ? n : 2), 4);
	int dims[1] = {n}, periods[1] = {1};
	MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
	counts = calloc(n, sizeof(int)), displs = calloc(n, sizeof(int));
	for (int i = 0; i < n; i++)
		counts[i] = cnt, displs[i] = i * cnt;
	/* Every rank has the file before any counter moves. */
	MPI_Barrier(MPI_COMM_WORLD);
	uint64_t k = 0;
	for (size_t c = 0; c < sizeof colls / sizeof colls[0]; c++) {
		for (long i = 0; i < WARMUP + iters; i++) {
			if (i == WARMUP && me == measured)
				CALLGRIND_ZERO_STATS;
			k++;
			if (me == measured)
				await_peers(m, k);
			else
				atomic_store((_Atomic uint64_t *)(m + 64 * me), k);
			if (colls[c].fn() != MPI_SUCCESS) {
				fprintf(stderr, "cg_coll: %s failed\n", colls[c].name);
				MPI_Abort(MPI_COMM_WORLD, 1);
			}
		}
		if (me == measured)
			CALLGRIND_DUMP_STATS_AT(colls[c].name);
	}
	MPI_Comm_free(&ring);
	munmap(m, 64 * n);
	MPI_Finalize();
	return 0;
}
