/* Sends that MPI_Isend completes at once (a small message published
 * without queueing): their handle owns no request slot, and every call
 * that takes a request must still treat it as a complete send. Each rank
 * sends to the next and receives from the previous one; with one rank
 * the sends go to itself and take the ordinary path. */
#include "check.h"

enum { BIG = 1 << 18 };

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int next = (rank + 1) % size, prev = (rank + size - 1) % size;
	MPI_Status st;
	int v[8], got[8], flag;
	for (int i = 0; i < 8; i++)
		v[i] = rank * 10 + i;

	/* Wait, Test, Request_free, Request_get_status and Cancel each end
	 * with the message delivered and the handle MPI_REQUEST_NULL. */
	MPI_Request a, b, c, d, e;
	CHECK_RC(MPI_Isend(&v[0], 1, MPI_INT, next, 1, MPI_COMM_WORLD, &a));
	CHECK_RC(MPI_Isend(&v[1], 1, MPI_INT, next, 2, MPI_COMM_WORLD, &b));
	CHECK(a != MPI_REQUEST_NULL && b != MPI_REQUEST_NULL);
	/* Both went out at once, to a peer: they share the one handle of a
	 * complete send (with one rank they are ordinary requests). */
	CHECK(size == 1 || a == b);
	CHECK_RC(MPI_Wait(&a, &st));
	CHECK(a == MPI_REQUEST_NULL);
	flag = 0;
	CHECK_RC(MPI_Test(&b, &flag, MPI_STATUS_IGNORE));
	CHECK(flag == 1 && b == MPI_REQUEST_NULL);
	CHECK_RC(MPI_Isend(&v[2], 1, MPI_INT, next, 3, MPI_COMM_WORLD, &c));
	CHECK_RC(MPI_Request_free(&c));
	CHECK(c == MPI_REQUEST_NULL);
	CHECK_RC(MPI_Isend(&v[3], 1, MPI_INT, next, 4, MPI_COMM_WORLD, &d));
	flag = 0;
	CHECK_RC(MPI_Request_get_status(d, &flag, &st));
	CHECK(flag == 1 && d != MPI_REQUEST_NULL);
	CHECK_RC(MPI_Wait(&d, MPI_STATUS_IGNORE));
	CHECK(d == MPI_REQUEST_NULL);
	CHECK_RC(MPI_Isend(&v[4], 1, MPI_INT, next, 5, MPI_COMM_WORLD, &e));
	CHECK_RC(MPI_Cancel(&e));
	CHECK_RC(MPI_Wait(&e, &st));
	CHECK_RC(MPI_Test_cancelled(&st, &flag));
	CHECK(e == MPI_REQUEST_NULL && flag == 0);
	for (int t = 1; t <= 5; t++) {
		CHECK_RC(MPI_Recv(&got[t - 1], 1, MPI_INT, prev, t, MPI_COMM_WORLD, &st));
		CHECK(got[t - 1] == prev * 10 + t - 1 && st.MPI_SOURCE == prev && st.MPI_TAG == t);
	}

	/* Arrays mixing such sends, receives and MPI_REQUEST_NULL, through
	 * every call that completes an array. */
	for (int call = 0; call < 6; call++) {
		MPI_Request rq[7];
		MPI_Status sts[7];
		for (int i = 0; i < 3; i++) {
			got[i] = -1;
			CHECK_RC(MPI_Irecv(&got[i], 1, MPI_INT, prev, 10 + i, MPI_COMM_WORLD, &rq[2 * i]));
			CHECK_RC(MPI_Isend(&v[i], 1, MPI_INT, next, 10 + i, MPI_COMM_WORLD, &rq[2 * i + 1]));
		}
		rq[6] = MPI_REQUEST_NULL;
		int left = 6, idx, out, ids[7];
		switch (call) {
		case 0:
			CHECK_RC(MPI_Waitall(7, rq, sts));
			break;
		case 1:
			for (flag = 0; !flag;)
				CHECK_RC(MPI_Testall(7, rq, &flag, sts));
			break;
		case 2:
			while (left > 0) {
				CHECK_RC(MPI_Waitany(7, rq, &idx, &st));
				CHECK(idx >= 0 && idx < 6 && rq[idx] == MPI_REQUEST_NULL);
				if (idx % 2 == 0)
					CHECK(st.MPI_SOURCE == prev && st.MPI_TAG == 10 + idx / 2);
				left--;
			}
			CHECK_RC(MPI_Waitany(7, rq, &idx, &st));
			CHECK(idx == MPI_UNDEFINED);
			break;
		case 3:
			while (left > 0) {
				CHECK_RC(MPI_Testany(7, rq, &idx, &flag, &st));
				if (flag && idx != MPI_UNDEFINED)
					left--;
			}
			break;
		case 4:
			while (left > 0) {
				CHECK_RC(MPI_Waitsome(7, rq, &out, ids, sts));
				CHECK(out >= 1);
				left -= out;
			}
			break;
		case 5:
			flag = 0;
			while (!flag)
				CHECK_RC(MPI_Request_get_status_all(7, rq, &flag, MPI_STATUSES_IGNORE));
			CHECK_RC(MPI_Waitall(7, rq, MPI_STATUSES_IGNORE));
			break;
		}
		for (int i = 0; i < 7; i++)
			CHECK(rq[i] == MPI_REQUEST_NULL);
		for (int i = 0; i < 3; i++)
			CHECK(got[i] == prev * 10 + i);
		if (call <= 1)
			for (int i = 0; i < 3; i++)
				CHECK(sts[2 * i].MPI_SOURCE == prev && sts[2 * i].MPI_TAG == 10 + i);
		if (call <= 1)
			CHECK(sts[6].MPI_SOURCE == MPI_ANY_SOURCE && sts[6].MPI_TAG == MPI_ANY_TAG);
	}

	/* A window of sends alone, as osu_bw's sender has: Waitall and
	 * Testall complete it, statuses or not. */
	MPI_Request w[8];
	MPI_Status ws[8];
	for (int i = 0; i < 8; i++)
		CHECK_RC(MPI_Isend(&v[i], 1, MPI_INT, next, 20, MPI_COMM_WORLD, &w[i]));
	CHECK_RC(MPI_Waitall(8, w, ws));
	for (int i = 0; i < 8; i++)
		CHECK(w[i] == MPI_REQUEST_NULL);
	for (int i = 0; i < 8; i++)
		CHECK_RC(MPI_Isend(&v[i], 1, MPI_INT, next, 20, MPI_COMM_WORLD, &w[i]));
	for (flag = 0; !flag;)
		CHECK_RC(MPI_Testall(8, w, &flag, MPI_STATUSES_IGNORE));
	for (int i = 0; i < 16; i++) {
		CHECK_RC(MPI_Recv(&got[0], 1, MPI_INT, prev, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
		CHECK(got[0] == prev * 10 + i % 8); /* in order */
	}

	/* A small message sent after a large one to the same rank, same tag,
	 * is not overtaken: the large one may still be queued. */
	char *big = calloc(BIG, 1), *rbig = calloc(BIG, 1);
	CHECK(big && rbig);
	big[BIG - 1] = 7;
	MPI_Request lq[2];
	CHECK_RC(MPI_Isend(big, BIG, MPI_CHAR, next, 30, MPI_COMM_WORLD, &lq[0]));
	CHECK_RC(MPI_Isend(&v[5], 1, MPI_INT, next, 30, MPI_COMM_WORLD, &lq[1]));
	CHECK_RC(MPI_Recv(rbig, BIG, MPI_CHAR, prev, 30, MPI_COMM_WORLD, &st));
	int n;
	CHECK_RC(MPI_Get_count(&st, MPI_CHAR, &n));
	CHECK(n == BIG && rbig[BIG - 1] == 7);
	CHECK_RC(MPI_Recv(&got[0], 1, MPI_INT, prev, 30, MPI_COMM_WORLD, &st));
	CHECK(got[0] == prev * 10 + 5);
	CHECK_RC(MPI_Waitall(2, lq, MPI_STATUSES_IGNORE));
	free(big);
	free(rbig);

	/* Such a handle is no persistent request. */
	CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
	MPI_Request s;
	CHECK_RC(MPI_Isend(&v[6], 1, MPI_INT, next, 40, MPI_COMM_WORLD, &s));
	MPI_Request keep = s;
	CHECK(MPI_Start(&s) != MPI_SUCCESS);
	s = keep;
	CHECK_RC(MPI_Wait(&s, MPI_STATUS_IGNORE));
	CHECK_RC(MPI_Recv(&got[0], 1, MPI_INT, prev, 40, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	CHECK(got[0] == prev * 10 + 6);

	CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
	report_ok();
	MPI_Finalize();
	return 0;
}
