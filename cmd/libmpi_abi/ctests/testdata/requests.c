/* Requests: persistent sends and receives (Send_init, Ssend_init,
 * Recv_init, Start, Startall), Waitany/Testany, Waitsome/Testsome,
 * Testall, Request_get_status, Request_free, Cancel of a receive,
 * MPI_REQUEST_NULL entries and MPI_ERR_IN_STATUS. */
#include "check.h"

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int next = (rank + 1) % size, prev = (rank + size - 1) % size;
	MPI_Status st, sts[8];

	/* Persistent ring, several rounds, both send modes. */
	int sbuf, rbuf;
	MPI_Request pr[3];
	int s2 = 0, r2 = -1;
	CHECK_RC(MPI_Recv_init(&rbuf, 1, MPI_INT, prev, 1, MPI_COMM_WORLD, &pr[0]));
	CHECK_RC(MPI_Send_init(&sbuf, 1, MPI_INT, next, 1, MPI_COMM_WORLD, &pr[1]));
	CHECK_RC(MPI_Ssend_init(&s2, 1, MPI_INT, rank, 2, MPI_COMM_WORLD, &pr[2]));
	MPI_Request selfr;
	for (int round = 0; round < 5; round++) {
		sbuf = rank * 100 + round;
		s2 = round;
		CHECK_RC(MPI_Irecv(&r2, 1, MPI_INT, rank, 2, MPI_COMM_WORLD, &selfr));
		CHECK_RC(MPI_Startall(3, pr));
		CHECK_RC(MPI_Waitall(3, pr, sts));
		CHECK(pr[0] != MPI_REQUEST_NULL && pr[1] != MPI_REQUEST_NULL);
		CHECK(rbuf == prev * 100 + round);
		CHECK(sts[0].MPI_SOURCE == prev && sts[0].MPI_TAG == 1);
		CHECK_RC(MPI_Wait(&selfr, &st));
		CHECK(r2 == round && st.MPI_TAG == 2);
	}
	/* An inactive persistent request completes at once with an empty status. */
	CHECK_RC(MPI_Wait(&pr[0], &st));
	CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG);
	int flag = 0;
	CHECK_RC(MPI_Test(&pr[0], &flag, MPI_STATUS_IGNORE));
	CHECK(flag);
	/* Start one at a time. */
	sbuf = 7;
	CHECK_RC(MPI_Start(&pr[0]));
	CHECK_RC(MPI_Start(&pr[1]));
	CHECK_RC(MPI_Wait(&pr[1], MPI_STATUS_IGNORE));
	CHECK_RC(MPI_Wait(&pr[0], MPI_STATUS_IGNORE));
	CHECK(rbuf == 7);
	for (int i = 0; i < 3; i++) {
		CHECK_RC(MPI_Request_free(&pr[i]));
		CHECK(pr[i] == MPI_REQUEST_NULL);
	}

	/* Self messages with Waitany / Testany / Waitsome / Testsome. */
	int vals[4], got[4] = {-1, -1, -1, -1};
	MPI_Request rq[6];
	for (int i = 0; i < 4; i++) {
		vals[i] = 10 + i;
		CHECK_RC(MPI_Irecv(&got[i], 1, MPI_INT, rank, 30 + i, MPI_COMM_WORLD, &rq[i]));
	}
	rq[4] = MPI_REQUEST_NULL;
	rq[5] = MPI_REQUEST_NULL;
	/* Nothing sent yet: Testany and Testsome find nothing. */
	int idx = -5, outcount = -5, indices[6];
	CHECK_RC(MPI_Testany(6, rq, &idx, &flag, &st));
	CHECK(!flag && idx == MPI_UNDEFINED);
	CHECK_RC(MPI_Testsome(6, rq, &outcount, indices, sts));
	CHECK(outcount == 0);
	/* Request_get_status does not complete a pending request. */
	CHECK_RC(MPI_Request_get_status(rq[0], &flag, &st));
	CHECK(!flag);
	CHECK_RC(MPI_Send(&vals[2], 1, MPI_INT, rank, 32, MPI_COMM_WORLD));
	CHECK_RC(MPI_Waitany(6, rq, &idx, &st));
	CHECK(idx == 2 && got[2] == 12 && st.MPI_TAG == 32 && rq[2] == MPI_REQUEST_NULL);
	CHECK_RC(MPI_Send(&vals[0], 1, MPI_INT, rank, 30, MPI_COMM_WORLD));
	/* Peek until done, then the request is still there to complete. */
	do CHECK_RC(MPI_Request_get_status(rq[0], &flag, &st)); while (!flag);
	CHECK(st.MPI_TAG == 30 && rq[0] != MPI_REQUEST_NULL && got[0] == 10);
	CHECK_RC(MPI_Wait(&rq[0], &st));
	CHECK(st.MPI_TAG == 30 && rq[0] == MPI_REQUEST_NULL);
	CHECK_RC(MPI_Send(&vals[1], 1, MPI_INT, rank, 31, MPI_COMM_WORLD));
	CHECK_RC(MPI_Send(&vals[3], 1, MPI_INT, rank, 33, MPI_COMM_WORLD));
	int done = 0;
	while (done < 2) {
		CHECK_RC(MPI_Waitsome(6, rq, &outcount, indices, sts));
		CHECK(outcount >= 1);
		for (int k = 0; k < outcount; k++) {
			CHECK(indices[k] == 1 || indices[k] == 3);
			CHECK(sts[k].MPI_TAG == 30 + indices[k]);
			CHECK(got[indices[k]] == 10 + indices[k]);
		}
		done += outcount;
	}
	/* All null now: Waitsome says MPI_UNDEFINED, Waitany too. */
	CHECK_RC(MPI_Waitsome(6, rq, &outcount, indices, sts));
	CHECK(outcount == MPI_UNDEFINED);
	CHECK_RC(MPI_Waitany(6, rq, &idx, &st));
	CHECK(idx == MPI_UNDEFINED);
	CHECK_RC(MPI_Testall(6, rq, &flag, MPI_STATUSES_IGNORE));
	CHECK(flag);

	/* Testsome that completes two at once. */
	CHECK_RC(MPI_Irecv(&got[0], 1, MPI_INT, rank, 40, MPI_COMM_WORLD, &rq[0]));
	CHECK_RC(MPI_Irecv(&got[1], 1, MPI_INT, rank, 41, MPI_COMM_WORLD, &rq[1]));
	CHECK_RC(MPI_Send(&vals[0], 1, MPI_INT, rank, 40, MPI_COMM_WORLD));
	CHECK_RC(MPI_Send(&vals[1], 1, MPI_INT, rank, 41, MPI_COMM_WORLD));
	done = 0;
	while (done < 2) {
		CHECK_RC(MPI_Testsome(2, rq, &outcount, indices, MPI_STATUSES_IGNORE));
		done += outcount;
	}
	/* Testall with pending, then complete. */
	CHECK_RC(MPI_Irecv(&got[0], 1, MPI_INT, rank, 50, MPI_COMM_WORLD, &rq[0]));
	CHECK_RC(MPI_Isend(&vals[0], 1, MPI_INT, rank, 51, MPI_COMM_WORLD, &rq[1]));
	CHECK_RC(MPI_Recv(&got[1], 1, MPI_INT, rank, 51, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	CHECK_RC(MPI_Testall(2, rq, &flag, sts));
	CHECK(!flag && rq[0] != MPI_REQUEST_NULL);
	CHECK_RC(MPI_Send(&vals[2], 1, MPI_INT, rank, 50, MPI_COMM_WORLD));
	do CHECK_RC(MPI_Testall(2, rq, &flag, sts)); while (!flag);
	CHECK(got[0] == 12 && sts[0].MPI_TAG == 50 && rq[0] == MPI_REQUEST_NULL && rq[1] == MPI_REQUEST_NULL);

	/* Cancel a receive nobody will match. */
	MPI_Request cr;
	CHECK_RC(MPI_Irecv(&got[0], 1, MPI_INT, rank, 999, MPI_COMM_WORLD, &cr));
	CHECK_RC(MPI_Cancel(&cr));
	CHECK_RC(MPI_Wait(&cr, &st));
	CHECK_RC(MPI_Test_cancelled(&st, &flag));
	CHECK(flag);

	/* Request_free on a pending send: the message still arrives. */
	MPI_Request fr;
	CHECK_RC(MPI_Isend(&vals[3], 1, MPI_INT, next, 60, MPI_COMM_WORLD, &fr));
	CHECK_RC(MPI_Request_free(&fr));
	CHECK(fr == MPI_REQUEST_NULL);
	int v60;
	CHECK_RC(MPI_Recv(&v60, 1, MPI_INT, prev, 60, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	CHECK(v60 == 13);

	/* MPI_ERR_IN_STATUS: one of two receives truncates. */
	CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
	int big[4] = {1, 2, 3, 4}, small = 0, ok = 0;
	CHECK_RC(MPI_Irecv(&small, 1, MPI_INT, rank, 70, MPI_COMM_WORLD, &rq[0]));
	CHECK_RC(MPI_Irecv(&ok, 1, MPI_INT, rank, 71, MPI_COMM_WORLD, &rq[1]));
	CHECK_RC(MPI_Send(big, 4, MPI_INT, rank, 70, MPI_COMM_WORLD));
	CHECK_RC(MPI_Send(big, 1, MPI_INT, rank, 71, MPI_COMM_WORLD));
	int rc = MPI_Waitall(2, rq, sts);
	CHECK(rc == MPI_ERR_IN_STATUS);
	CHECK(sts[0].MPI_ERROR == MPI_ERR_TRUNCATE && sts[1].MPI_ERROR == MPI_SUCCESS);
	CHECK(small == 1 && ok == 1);
	/* A bogus request handle is an error, not a crash. */
	MPI_Request bogus = (MPI_Request)(intptr_t)0x3ffffff;
	rc = MPI_Wait(&bogus, MPI_STATUS_IGNORE);
	CHECK(rc == MPI_ERR_REQUEST);

	/* MPI_Waitall over more requests than one engine batch (64), with
	 * MPI_REQUEST_NULL entries in every batch: each status belongs to its
	 * own request. A bad handle anywhere fails the call before any request
	 * completes, so the same array can then be waited for. */
	enum { NW = 150 };
	static MPI_Request wr[NW];
	static MPI_Status wst[NW];
	static int win[NW], wout[NW];
	for (int i = 0; i < NW; i++) {
		wout[i] = rank * 1000 + i;
		win[i] = -1;
		wr[i] = MPI_REQUEST_NULL;
		if ((i / 2) % 7 == 3)
			continue; /* a pair left out: two MPI_REQUEST_NULLs */
		if (i % 2 == 0)
			CHECK_RC(MPI_Irecv(&win[i], 1, MPI_INT, prev, 200 + i, MPI_COMM_WORLD, &wr[i]));
		else
			CHECK_RC(MPI_Isend(&wout[i], 1, MPI_INT, next, 199 + i, MPI_COMM_WORLD, &wr[i]));
	}
	MPI_Request keep = wr[NW - 2];
	wr[NW - 2] = bogus;
	rc = MPI_Waitall(NW, wr, wst);
	CHECK(rc == MPI_ERR_REQUEST);
	CHECK(wr[0] != MPI_REQUEST_NULL && wr[1] != MPI_REQUEST_NULL && wr[NW - 1] != MPI_REQUEST_NULL);
	wr[NW - 2] = keep;
	CHECK_RC(MPI_Waitall(NW, wr, wst));
	for (int i = 0; i < NW; i++) {
		CHECK(wr[i] == MPI_REQUEST_NULL);
		if ((i / 2) % 7 != 3 && i % 2 == 0) {
			CHECK(win[i] == prev * 1000 + i + 1);
			CHECK(wst[i].MPI_SOURCE == prev && wst[i].MPI_TAG == 200 + i);
		} else if ((i / 2) % 7 == 3) {
			CHECK(wst[i].MPI_SOURCE == MPI_ANY_SOURCE && wst[i].MPI_TAG == MPI_ANY_TAG);
		}
	}

	CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
	report_ok();
	MPI_Finalize();
	return 0;
}
