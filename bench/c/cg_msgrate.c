/*
 * cg_msgrate: bench/cg_msgrate (the Go program) for the C ABI, osu_bw's
 * window for counting instructions under valgrind --tool=callgrind
 * (bench/callgrind_msgrate.sh), not for timing. Rank 0 starts a window of
 * MPI_Isends and MPI_Waitalls them; rank 1 posts a window of MPI_Irecvs,
 * waits outside MPI (await_peer) until rank 0's window is published, then
 * MPI_Waitalls them and acknowledges with a 4-byte MPI_Send; rank 0 waits
 * outside MPI for that before its MPI_Recv. So no count includes polling.
 *
 * The windows after WARMUP are counted apart from MPI_Init and
 * MPI_Finalize: callgrind's counters are zeroed before them and dumped
 * after (callgrind.out.PID.1), and await_peer is subtracted by name.
 *
 * Usage: hympirun -n 2 cg_msgrate -flags FILE [-i ITERS] [-m SIZE] [-w WINDOW]
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
enum { WARMUP = 5 };

#ifndef CALLGRIND_ZERO_STATS
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_DUMP_STATS_AT(s)
#endif

__attribute__((noinline)) static void await_peer(_Atomic uint64_t *c, uint64_t n)
{
	if (atomic_load(c) >= n)
		return;
	while (atomic_load(c) < n)
		__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	long iters = 50, size = 8, window = 64;
	const char *path = NULL;
	MPI_Init(&argc, &argv);
	for (int i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "-i") == 0)
			iters = atol(argv[i + 1]);
		else if (strcmp(argv[i], "-m") == 0)
			size = atol(argv[i + 1]);
		else if (strcmp(argv[i], "-w") == 0)
			window = atol(argv[i + 1]);
		else if (strcmp(argv[i], "-flags") == 0)
			path = argv[i + 1];
	}
	int rank, nranks;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	if (path == NULL || nranks != 2 || iters < 1 || size < 0 || window < 1) {
		if (rank == 0)
			fprintf(stderr, "usage: hympirun -n 2 cg_msgrate -flags FILE [-i ITERS] [-m SIZE] [-w WINDOW]\n");
		MPI_Finalize();
		return 2;
	}
	int fd = open(path, O_RDWR | O_CREAT, 0600);
	if (fd < 0 || ftruncate(fd, 4096) != 0) {
		perror("cg_msgrate: flags file");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	char *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		perror("cg_msgrate: mmap");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	close(fd);
	_Atomic uint64_t *cnt[2] = {(_Atomic uint64_t *)m, (_Atomic uint64_t *)(m + 64)};
	char *bufs = calloc((size_t)window, (size_t)size + 1);
	MPI_Request *reqs = calloc((size_t)window, sizeof *reqs);
	char ack[4] = {0};
	MPI_Barrier(MPI_COMM_WORLD);
	const uint64_t warm = WARMUP;
	for (uint64_t i = 1; i <= warm + (uint64_t)iters; i++) {
		if (i == warm + 1)
			CALLGRIND_ZERO_STATS;
		if (rank == 0) {
			for (long j = 0; j < window; j++)
				MPI_Isend(bufs + j * (size + 1), (int)size, MPI_CHAR, 1, 1, MPI_COMM_WORLD, &reqs[j]);
			MPI_Waitall((int)window, reqs, MPI_STATUSES_IGNORE);
			atomic_fetch_add(cnt[0], 1);
			await_peer(cnt[1], i);
			MPI_Recv(ack, 4, MPI_CHAR, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			continue;
		}
		for (long j = 0; j < window; j++)
			MPI_Irecv(bufs + j * (size + 1), (int)size, MPI_CHAR, 0, 1, MPI_COMM_WORLD, &reqs[j]);
		await_peer(cnt[0], i);
		MPI_Waitall((int)window, reqs, MPI_STATUSES_IGNORE);
		MPI_Send(ack, 4, MPI_CHAR, 0, 2, MPI_COMM_WORLD);
		atomic_fetch_add(cnt[1], 1);
	}
	CALLGRIND_DUMP_STATS_AT("windows");
	free(reqs);
	free(bufs);
	munmap(m, 4096);
	MPI_Finalize();
	return 0;
}
