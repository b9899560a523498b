/*
 * cg_pingpong: bench/cg_pingpong (the Go program) for the C ABI, a
 * ping-pong for counting instructions under valgrind --tool=callgrind
 * (bench/callgrind.sh), not for timing. A receiver first waits outside MPI,
 * in await_peer, on a counter the sender bumps in a shared file after
 * MPI_Send returns, so MPI_Recv finds its message on its first look and the
 * count of MPI_Send and MPI_Recv holds no polling, whose amount would
 * depend on how the two ranks happen to be scheduled.
 *
 * With valgrind's headers installed, the round trips are counted apart
 * from MPI_Init, the barrier and MPI_Finalize (whose waits do poll): the
 * counters are zeroed before the loop and dumped after it, as a part of
 * its own (callgrind.out.PID.1).
 *
 * Usage: hympirun -n 2 cg_pingpong -flags FILE [-i ITERS] [-m SIZE]
 * (FILE is created if missing; the caller removes it.)
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
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#endif
#endif
enum { WARMUP = 10 };

#ifndef CALLGRIND_ZERO_STATS
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_DUMP_STATS_AT(s)
#endif

/* await_peer spins until the peer has sent n messages; the first test sits
 * before the loop so that callgrind does not read each jump back to the
 * function's entry as a new call. */
__attribute__((noinline)) static void await_peer(_Atomic uint64_t *c, uint64_t n)
{
	if (atomic_load(c) >= n)
		return;
	while (atomic_load(c) < n)
		__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	long iters = 100, size = 8;
	const char *path = NULL;
	MPI_Init(&argc, &argv);
	for (int i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "-i") == 0)
			iters = atol(argv[i + 1]);
		else if (strcmp(argv[i], "-m") == 0)
			size = atol(argv[i + 1]);
		else if (strcmp(argv[i], "-flags") == 0)
			path = argv[i + 1];
	}
	int rank, nranks;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	if (path == NULL || nranks != 2 || iters < 1 || size < 0) {
		if (rank == 0)
			fprintf(stderr, "usage: hympirun -n 2 cg_pingpong -flags FILE [-i ITERS] [-m SIZE]\n");
		MPI_Finalize();
		return 2;
	}
	int fd = open(path, O_RDWR | O_CREAT, 0600);
	if (fd < 0 || ftruncate(fd, 4096) != 0) {
		perror("cg_pingpong: flags file");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	char *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		perror("cg_pingpong: mmap");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	close(fd);
	_Atomic uint64_t *sent[2] = {(_Atomic uint64_t *)m, (_Atomic uint64_t *)(m + 64)};
	char *buf = calloc(1, (size_t)size + 1);
	int peer = 1 - rank;
	/* Both ranks have the file before any counter moves. */
	MPI_Barrier(MPI_COMM_WORLD);
	/* WARMUP round trips first, so that first-call set-up (datatype
	 * tables, lazily built state) stays out of the count. */
	const uint64_t warm = WARMUP;
	for (uint64_t i = 1; i <= warm + (uint64_t)iters; i++) {
		if (i == warm + 1)
			CALLGRIND_ZERO_STATS;
		if (rank == 1) {
			await_peer(sent[peer], i);
			MPI_Recv(buf, (int)size, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		}
		MPI_Send(buf, (int)size, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
		atomic_fetch_add(sent[rank], 1);
		if (rank == 0) {
			await_peer(sent[peer], i);
			MPI_Recv(buf, (int)size, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		}
	}
	CALLGRIND_DUMP_STATS_AT("round trips");
	free(buf);
	munmap(m, 4096);
	MPI_Finalize();
	return 0;
}
