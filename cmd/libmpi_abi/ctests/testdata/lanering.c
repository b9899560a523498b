/* lanering.c — the receive lane's posting-order ring filled behind an old
 * receive. Rank 0 queues a receive from rank 1 that rank 1 answers only at
 * the end, then posts and completes ROUNDS receives from rank 2, one at a
 * time: each completes in C while the old one stays queued, so the ring of
 * posting positions (4 x the lane's 256 entries) fills with completed
 * entries behind it. The ring's head moves lazily (fastlane.c, ring_trim):
 * were room made over the old entry, it would be lost from the posting
 * order and never reach Go: the wildcard receive posted after it would
 * then get its message. Every message carries its round, so a receive
 * matched to the wrong message fails. */
#include "check.h"

enum { ROUNDS = 3000 };

int main(int argc, char **argv)
{
	int rank, size;
	CHECK_RC(MPI_Init(&argc, &argv));
	CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
	CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
	CHECK(size == 3);
	if (rank == 0) {
		int old = -1, v = -1;
		MPI_Request rq;
		MPI_Status st;
		CHECK_RC(MPI_Irecv(&old, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &rq));
		for (int r = 0; r < ROUNDS; r++) {
			MPI_Request q;
			CHECK_RC(MPI_Irecv(&v, 1, MPI_INT, 2, 8, MPI_COMM_WORLD, &q));
			/* MPI_Waitall, which yields for a message not yet sent
			 * (3 ranks on fewer CPUs) where MPI_Wait would go to Go. */
			CHECK_RC(MPI_Waitall(1, &q, &st));
			CHECK(v == r && st.MPI_SOURCE == 2 && st.MPI_TAG == 8);
		}
		/* A wildcard receive goes to Go, which first takes the queued
		 * ones in posting order: the old receive must come first and
		 * get rank 1's first message. */
		int later = -1;
		MPI_Request rq2;
		CHECK_RC(MPI_Irecv(&later, 1, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &rq2));
		CHECK_RC(MPI_Send(&v, 1, MPI_INT, 1, 9, MPI_COMM_WORLD)); /* rank 1 may send now */
		CHECK_RC(MPI_Wait(&rq, &st));
		CHECK(old == 12345 && st.MPI_SOURCE == 1 && st.MPI_TAG == 7);
		CHECK_RC(MPI_Wait(&rq2, &st));
		CHECK(later == 555 && st.MPI_SOURCE == 1 && st.MPI_TAG == 7);
	} else if (rank == 1) {
		int go = 0, x = 12345;
		CHECK_RC(MPI_Recv(&go, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
		CHECK(go == ROUNDS - 1);
		CHECK_RC(MPI_Send(&x, 1, MPI_INT, 0, 7, MPI_COMM_WORLD));
		x = 555;
		CHECK_RC(MPI_Send(&x, 1, MPI_INT, 0, 7, MPI_COMM_WORLD));
	} else {
		for (int r = 0; r < ROUNDS; r++) CHECK_RC(MPI_Send(&r, 1, MPI_INT, 0, 8, MPI_COMM_WORLD));
	}
	report_ok();
	CHECK_RC(MPI_Finalize());
	return 0;
}
