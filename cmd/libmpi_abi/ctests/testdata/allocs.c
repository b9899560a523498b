/* allocs.c — the C ABI's hot paths allocate no Go memory of their own.
 * Every rank streams messages to itself (Irecv + Isend + Wait/Test/Waitall,
 * and polled with Testall/Waitany/Testany/Testsome; persistent requests) and
 * runs MPI_Allreduce, counting the Go heap objects allocated through
 * hympi_go_allocs (a test hook of libmpi_abi). The budget is nothing: request
 * slots and the engine requests in them are recycled (the Go API, by
 * contrast, allocates one mpi.Request per nonblocking operation). Before
 * that each request cost a C-side request object and an engine request. */
#include <stdint.h>
#include "check.h"

uint64_t hympi_go_allocs(void); /* libmpi_abi's test hook */

enum { N = 2000, W = 16 };

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	char sbuf[64] = "x", rbuf[W][64];
	MPI_Request rq[2 * W];

	for (int pass = 0; pass < 2; pass++) { /* pass 0 warms up */
		uint64_t a0 = hympi_go_allocs();
		for (int i = 0; i < N; i++) {
			for (int j = 0; j < W; j++) {
				CHECK_RC(MPI_Irecv(rbuf[j], 64, MPI_CHAR, rank, j, MPI_COMM_WORLD, &rq[j]));
				CHECK_RC(MPI_Isend(sbuf, 64, MPI_CHAR, rank, j, MPI_COMM_WORLD, &rq[W + j]));
			}
			CHECK_RC(MPI_Waitall(2 * W, rq, MPI_STATUSES_IGNORE));
			for (int j = 0; j < 2 * W; j++) CHECK(rq[j] == MPI_REQUEST_NULL);
		}
		uint64_t a1 = hympi_go_allocs();
		for (int i = 0; i < N; i++) {
			MPI_Status st;
			int flag = 0;
			CHECK_RC(MPI_Irecv(rbuf[0], 64, MPI_CHAR, rank, 1, MPI_COMM_WORLD, &rq[0]));
			CHECK_RC(MPI_Isend(sbuf, 64, MPI_CHAR, rank, 1, MPI_COMM_WORLD, &rq[1]));
			CHECK_RC(MPI_Wait(&rq[1], &st));
			while (!flag) CHECK_RC(MPI_Test(&rq[0], &flag, &st));
			CHECK(st.MPI_SOURCE == rank && st.MPI_TAG == 1);
		}
		uint64_t a2 = hympi_go_allocs();
		/* Polling: MPI_Testall, then Waitany, Testany and Testsome. */
		for (int i = 0; i < N; i++) {
			int flag = 0, idx, cnt, ids[4];
			for (int j = 0; j < 2; j++) {
				CHECK_RC(MPI_Irecv(rbuf[j], 64, MPI_CHAR, rank, 2, MPI_COMM_WORLD, &rq[j]));
				CHECK_RC(MPI_Isend(sbuf, 64, MPI_CHAR, rank, 2, MPI_COMM_WORLD, &rq[2 + j]));
			}
			while (!flag) CHECK_RC(MPI_Testall(2, rq, &flag, MPI_STATUSES_IGNORE));
			CHECK_RC(MPI_Waitany(2, rq + 2, &idx, MPI_STATUS_IGNORE));
			for (flag = 0; !flag;) CHECK_RC(MPI_Testany(2, rq + 2, &idx, &flag, MPI_STATUS_IGNORE));
			CHECK(rq[2] == MPI_REQUEST_NULL && rq[3] == MPI_REQUEST_NULL);
			CHECK_RC(MPI_Irecv(rbuf[0], 64, MPI_CHAR, rank, 3, MPI_COMM_WORLD, &rq[0]));
			CHECK_RC(MPI_Isend(sbuf, 64, MPI_CHAR, rank, 3, MPI_COMM_WORLD, &rq[1]));
			for (int got = 0; got < 2; got += cnt)
				CHECK_RC(MPI_Testsome(2, rq, &cnt, ids, MPI_STATUSES_IGNORE));
		}
		uint64_t a2b = hympi_go_allocs();
		/* Persistent requests: MPI_Startall reuses each slot's engine
		 * request. */
		MPI_Request pq[2];
		CHECK_RC(MPI_Recv_init(rbuf[0], 64, MPI_CHAR, rank, 4, MPI_COMM_WORLD, &pq[0]));
		CHECK_RC(MPI_Send_init(sbuf, 64, MPI_CHAR, rank, 4, MPI_COMM_WORLD, &pq[1]));
		uint64_t p0 = hympi_go_allocs();
		for (int i = 0; i < N; i++) {
			CHECK_RC(MPI_Startall(2, pq));
			CHECK_RC(MPI_Waitall(2, pq, MPI_STATUSES_IGNORE));
		}
		uint64_t p1 = hympi_go_allocs();
		CHECK_RC(MPI_Request_free(&pq[0]));
		CHECK_RC(MPI_Request_free(&pq[1]));
		uint64_t a2c = hympi_go_allocs();
		double in = 1, out = 0;
		for (int i = 0; i < N; i++) {
			CHECK_RC(MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
			CHECK_RC(MPI_Allreduce(MPI_IN_PLACE, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
		}
		uint64_t a3 = hympi_go_allocs();
		if (pass == 1) {
			/* Allow a few objects per phase (the hook's own
			 * ReadMemStats, a rare slow path), far below one per
			 * operation. */
			double win = (double)(a1 - a0) / (N * 2.0 * W), one = (double)(a2 - a1) / (N * 2.0),
			       poll = (double)(a2b - a2) / (N * 6.0), ar = (double)(a3 - a2c) / (N * 2.0),
			       pers = (double)(p1 - p0) / (N * 2.0);
			if (getenv("ALLOCS_VERBOSE"))
				fprintf(stderr,
					"rank %d: Go objects per request: Waitall %.3f, Wait/Test %.3f, "
					"Testall/Waitany/Testany/Testsome %.3f, persistent %.3f; per Allreduce %.3f\n",
					rank, win, one, poll, pers, ar);
			CHECK(win <= 0.01);
			CHECK(one <= 0.01);
			CHECK(poll <= 0.01);
			CHECK(pers <= 0.01);
			CHECK(ar <= 0.01);
		}
	}
	report_ok();
	MPI_Finalize();
	return 0;
}
