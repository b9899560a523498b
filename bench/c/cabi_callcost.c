/*
 * cabi_callcost: what a call into hympi's C ABI costs.
 *
 *   hympicc -O2 bench/c/cabi_callcost.c -o cabi_callcost
 *   hympirun -n 2 ./cabi_callcost [iterations]
 *
 * Prints ns per call for calls that stay in C (MPI_Wtime, MPI_Comm_rank on
 * MPI_COMM_WORLD and on a duplicate, MPI_Get_count), an empty call into the
 * Go runtime (hympi_go_noop, exported by libmpi_abi for this purpose: the
 * bare C->Go transition), operations that enter Go once (MPI_Iprobe with
 * nothing pending, MPI_Send to MPI_PROC_NULL), and the 1-byte ping-pong
 * half round trip between ranks 0 and 1 (OSU latency, microseconds).
 * Runs with one rank too (no ping-pong then). hympi only (hympi_go_noop).
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int hympi_go_noop(void); /* libmpi_abi's empty Go export */

static double now_ns(void) { return MPI_Wtime() * 1e9; }

#define TIME(label, n, stmt)                                                   \
	do {                                                                   \
		double t0_ = now_ns();                                         \
		for (long i_ = 0; i_ < (n); i_++) { stmt; }                    \
		double t1_ = now_ns();                                         \
		if (rank == 0) printf("%-40s %8.1f ns/call\n", label, (t1_ - t0_) / (n)); \
	} while (0)

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	int rank, size, r, flag, c;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm dup = MPI_COMM_WORLD;
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	if (MPI_Comm_dup(MPI_COMM_WORLD, &dup) != MPI_SUCCESS) dup = MPI_COMM_WORLD;
	MPI_Status st;
	char b = 0;
	volatile double sink = 0;

	TIME("MPI_Wtime (C)", n, sink += MPI_Wtime());
	TIME("MPI_Comm_rank(MPI_COMM_WORLD) (C)", n, MPI_Comm_rank(MPI_COMM_WORLD, &r));
	TIME("MPI_Comm_rank(dup) (C)", n, MPI_Comm_rank(dup, &r));
	MPI_Send(&b, 1, MPI_CHAR, rank, 0, MPI_COMM_WORLD);
	MPI_Recv(&b, 1, MPI_CHAR, rank, 0, MPI_COMM_WORLD, &st);
	TIME("MPI_Get_count (C)", n, MPI_Get_count(&st, MPI_CHAR, &c));
	TIME("hympi_go_noop (bare C->Go call)", n, hympi_go_noop());
	TIME("MPI_Send to MPI_PROC_NULL (Go once)", n, MPI_Send(&b, 1, MPI_CHAR, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
	TIME("MPI_Iprobe, nothing pending (Go once)", n / 10, MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, &st));

	if (size >= 2 && rank < 2) {
		long iters = n / 20, warm = iters / 10;
		int peer = 1 - rank;
		double t0 = 0;
		for (long i = 0; i < iters + warm; i++) {
			if (i == warm) t0 = MPI_Wtime();
			if (rank == 0) {
				MPI_Send(&b, 1, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
				MPI_Recv(&b, 1, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			} else {
				MPI_Recv(&b, 1, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				MPI_Send(&b, 1, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
			}
		}
		double t = MPI_Wtime() - t0;
		if (rank == 0) printf("%-40s %8.2f us\n", "1-byte ping-pong latency (half RTT)", t * 1e6 / (2.0 * iters));
		/* The same with Irecv + Isend + Waitall: three Go entries a side. */
		MPI_Request rq[2];
		for (long i = 0; i < iters + warm; i++) {
			if (i == warm) t0 = MPI_Wtime();
			if (rank == 0) {
				MPI_Irecv(&b, 1, MPI_CHAR, peer, 2, MPI_COMM_WORLD, &rq[0]);
				MPI_Isend(&b, 1, MPI_CHAR, peer, 2, MPI_COMM_WORLD, &rq[1]);
				MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
			} else {
				MPI_Recv(&b, 1, MPI_CHAR, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				MPI_Send(&b, 1, MPI_CHAR, peer, 2, MPI_COMM_WORLD);
			}
		}
		t = MPI_Wtime() - t0;
		if (rank == 0) printf("%-40s %8.2f us\n", "1-byte nonblocking ping-pong (half RTT)", t * 1e6 / (2.0 * iters));
	}
	if (dup != MPI_COMM_WORLD) MPI_Comm_free(&dup);
	MPI_Finalize();
	(void)sink;
	return 0;
}
