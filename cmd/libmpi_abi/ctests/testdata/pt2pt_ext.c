/* Point-to-point beyond the basics: matched probe (a matched message is
 * invisible to every other receive), MPI_MESSAGE_NO_PROC, Isendrecv and
 * Isendrecv_replace, Request_get_status_all/any/some, generalized requests
 * (callbacks called as the standard says), partitioned communication, and
 * receives from MPI_PROC_NULL with any datatype. */
#include "check.h"

static int queries, frees, cancels, last_complete;

static int query_fn(void *extra, MPI_Status *st)
{
	queries++;
	MPI_Status_set_elements(st, MPI_BYTE, *(int *)extra);
	MPI_Status_set_cancelled(st, 0);
	st->MPI_SOURCE = MPI_UNDEFINED;
	st->MPI_TAG = MPI_UNDEFINED;
	return MPI_SUCCESS;
}
static int free_fn(void *extra)
{
	(void)extra;
	frees++;
	return MPI_SUCCESS;
}
static int cancel_fn(void *extra, int complete)
{
	(void)extra;
	cancels++;
	last_complete = complete;
	return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size, flag, count;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	int right = (rank + 1) % size, left = (rank + size - 1) % size;
	MPI_Status st;

	/* Matched probe: two messages with the same envelope; the first one
	 * matched by Mprobe must not be taken by the Recv posted after it. */
	{
		int a = 100 + rank, b = 200 + rank, got;
		MPI_Request rq[2];
		CHECK_RC(MPI_Isend(&a, 1, MPI_INT, right, 5, MPI_COMM_WORLD, &rq[0]));
		CHECK_RC(MPI_Isend(&b, 1, MPI_INT, right, 5, MPI_COMM_WORLD, &rq[1]));
		MPI_Message msg;
		CHECK_RC(MPI_Mprobe(left, 5, MPI_COMM_WORLD, &msg, &st));
		CHECK(msg != MPI_MESSAGE_NULL && msg != MPI_MESSAGE_NO_PROC);
		CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 5);
		CHECK_RC(MPI_Get_count(&st, MPI_INT, &count));
		CHECK(count == 1);
		CHECK_RC(MPI_Recv(&got, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &st));
		CHECK(got == 200 + left); /* the second: the first is owned by msg */
		CHECK_RC(MPI_Mrecv(&got, 1, MPI_INT, &msg, &st));
		CHECK(got == 100 + left && msg == MPI_MESSAGE_NULL);
		CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 5);
		CHECK_RC(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
	}
	/* Improbe: nothing yet, then a message, received with Imrecv. */
	{
		MPI_Message msg = MPI_MESSAGE_NULL;
		CHECK_RC(MPI_Improbe(MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &flag, &msg, &st));
		CHECK(!flag);
		MPI_Barrier(MPI_COMM_WORLD);
		double x = rank * 1.5, y = -1;
		CHECK_RC(MPI_Send(&x, 1, MPI_DOUBLE, right, 77, MPI_COMM_WORLD));
		do {
			CHECK_RC(MPI_Improbe(MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &flag, &msg, &st));
		} while (!flag);
		CHECK(st.MPI_SOURCE == left);
		MPI_Request rq;
		CHECK_RC(MPI_Imrecv(&y, 1, MPI_DOUBLE, &msg, &rq));
		CHECK(msg == MPI_MESSAGE_NULL);
		CHECK_RC(MPI_Wait(&rq, &st));
		CHECK(y == left * 1.5 && st.MPI_SOURCE == left && st.MPI_TAG == 77);
		/* A large message (rendezvous or streamed) through Mprobe. */
		int n = 1 << 18;
		int *big = malloc(n * sizeof *big), *in = malloc(n * sizeof *in);
		for (int i = 0; i < n; i++) big[i] = i ^ rank;
		MPI_Request sr;
		CHECK_RC(MPI_Isend(big, n, MPI_INT, right, 78, MPI_COMM_WORLD, &sr));
		CHECK_RC(MPI_Mprobe(left, 78, MPI_COMM_WORLD, &msg, &st));
		CHECK_RC(MPI_Get_count(&st, MPI_INT, &count));
		CHECK(count == n);
		CHECK_RC(MPI_Mrecv(in, n, MPI_INT, &msg, &st));
		for (int i = 0; i < n; i++) CHECK(in[i] == (i ^ left));
		CHECK_RC(MPI_Wait(&sr, MPI_STATUS_IGNORE));
		free(big);
		free(in);
	}
	/* MPI_PROC_NULL: Mprobe gives MPI_MESSAGE_NO_PROC, whose Mrecv is empty. */
	{
		MPI_Message msg;
		CHECK_RC(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &msg, &st));
		CHECK(msg == MPI_MESSAGE_NO_PROC);
		CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG);
		CHECK_RC(MPI_Improbe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &msg, &st));
		CHECK(flag && msg == MPI_MESSAGE_NO_PROC);
		int z = 9;
		CHECK_RC(MPI_Mrecv(&z, 1, MPI_INT, &msg, &st));
		CHECK(z == 9 && msg == MPI_MESSAGE_NULL && st.MPI_SOURCE == MPI_PROC_NULL);
		CHECK_RC(MPI_Get_count(&st, MPI_INT, &count));
		CHECK(count == 0);
		/* Mrecv of MPI_MESSAGE_NULL is an error, not a hang. */
		CHECK(MPI_Mrecv(&z, 1, MPI_INT, &msg, &st) != MPI_SUCCESS);
		/* Receives from MPI_PROC_NULL with any datatype. */
		MPI_Request rq;
		CHECK_RC(MPI_Irecv(&z, 1, MPI_DATATYPE_NULL, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &rq));
		CHECK_RC(MPI_Wait(&rq, &st));
		CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG);
		CHECK_RC(MPI_Recv(&z, 1, MPI_DATATYPE_NULL, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
		CHECK(z == 9);
	}
	/* Isendrecv and Isendrecv_replace around the ring. */
	{
		int out[3] = {rank, rank * 2, rank * 3}, in[3] = {-1, -1, -1};
		MPI_Request rq;
		CHECK_RC(MPI_Isendrecv(out, 3, MPI_INT, right, 11, in, 3, MPI_INT, left, 11, MPI_COMM_WORLD, &rq));
		CHECK_RC(MPI_Wait(&rq, &st));
		CHECK(rq == MPI_REQUEST_NULL);
		CHECK(in[0] == left && in[1] == 2 * left && in[2] == 3 * left);
		CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 11);
		CHECK_RC(MPI_Get_count(&st, MPI_INT, &count));
		CHECK(count == 3);
		/* A strided type on the receive side. */
		MPI_Datatype vec;
		MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
		MPI_Type_commit(&vec);
		int strided[6] = {-1, -1, -1, -1, -1, -1};
		CHECK_RC(MPI_Isendrecv(out, 3, MPI_INT, right, 12, strided, 1, vec, left, 12, MPI_COMM_WORLD, &rq));
		CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
		CHECK(strided[0] == left && strided[2] == 2 * left && strided[4] == 3 * left && strided[1] == -1);
		int buf[4] = {rank, rank + 1, rank + 2, rank + 3};
		CHECK_RC(MPI_Isendrecv_replace(buf, 4, MPI_INT, right, 13, left, 13, MPI_COMM_WORLD, &rq));
		CHECK_RC(MPI_Wait(&rq, &st));
		for (int i = 0; i < 4; i++) CHECK(buf[i] == left + i);
		strided[0] = rank, strided[2] = rank + 10, strided[4] = rank + 20;
		CHECK_RC(MPI_Isendrecv_replace(strided, 1, vec, right, 14, left, 14, MPI_COMM_WORLD, &rq));
		CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
		CHECK(strided[0] == left && strided[2] == left + 10 && strided[4] == left + 20);
		MPI_Type_free(&vec);
		/* With MPI_PROC_NULL on both sides it completes empty. */
		CHECK_RC(MPI_Isendrecv(out, 3, MPI_INT, MPI_PROC_NULL, 1, in, 3, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &rq));
		CHECK_RC(MPI_Wait(&rq, &st));
		CHECK(st.MPI_SOURCE == MPI_PROC_NULL);
		/* Bad arguments: an error, nothing started. */
		CHECK(MPI_Isendrecv(out, 3, MPI_INT, size, 1, in, 3, MPI_INT, left, 1, MPI_COMM_WORLD, &rq) == MPI_ERR_RANK);
		CHECK(MPI_Isendrecv(out, -1, MPI_INT, right, 1, in, 3, MPI_INT, left, 1, MPI_COMM_WORLD, &rq) == MPI_ERR_COUNT);
	}
	/* Request_get_status_all/any/some look without freeing. */
	{
		int v = rank, w[2] = {-1, -1};
		MPI_Request rq[3];
		CHECK_RC(MPI_Irecv(&w[0], 1, MPI_INT, left, 21, MPI_COMM_WORLD, &rq[0]));
		CHECK_RC(MPI_Irecv(&w[1], 1, MPI_INT, left, 22, MPI_COMM_WORLD, &rq[1]));
		rq[2] = MPI_REQUEST_NULL;
		MPI_Status sts[3];
		CHECK_RC(MPI_Request_get_status_all(3, rq, &flag, sts));
		CHECK(!flag);
		int idx = -5, out = -5, idxs[3];
		CHECK_RC(MPI_Request_get_status_any(3, rq, &idx, &flag, &st));
		CHECK(!flag && idx == MPI_UNDEFINED);
		CHECK_RC(MPI_Request_get_status_some(3, rq, &out, idxs, sts));
		CHECK(out == 0);
		MPI_Barrier(MPI_COMM_WORLD);
		CHECK_RC(MPI_Send(&v, 1, MPI_INT, right, 22, MPI_COMM_WORLD));
		do {
			CHECK_RC(MPI_Request_get_status_any(3, rq, &idx, &flag, &st));
		} while (!flag);
		CHECK(idx == 1 && st.MPI_TAG == 22 && rq[1] != MPI_REQUEST_NULL);
		CHECK_RC(MPI_Request_get_status_some(3, rq, &out, idxs, sts));
		CHECK(out == 1 && idxs[0] == 1 && sts[0].MPI_SOURCE == left);
		MPI_Barrier(MPI_COMM_WORLD); /* nobody sends tag 21 before every rank looked */
		CHECK_RC(MPI_Send(&v, 1, MPI_INT, right, 21, MPI_COMM_WORLD));
		do {
			CHECK_RC(MPI_Request_get_status_all(3, rq, &flag, sts));
		} while (!flag);
		CHECK(sts[0].MPI_TAG == 21 && sts[1].MPI_TAG == 22 && sts[2].MPI_SOURCE == MPI_ANY_SOURCE);
		CHECK(rq[0] != MPI_REQUEST_NULL && rq[1] != MPI_REQUEST_NULL);
		CHECK_RC(MPI_Waitall(3, rq, MPI_STATUSES_IGNORE));
		CHECK(w[0] == left && w[1] == left);
		rq[0] = rq[1] = rq[2] = MPI_REQUEST_NULL;
		CHECK_RC(MPI_Request_get_status_any(3, rq, &idx, &flag, &st));
		CHECK(flag && idx == MPI_UNDEFINED);
		CHECK_RC(MPI_Request_get_status_some(3, rq, &out, idxs, sts));
		CHECK(out == MPI_UNDEFINED);
		CHECK(MPI_Request_get_status_all(-1, rq, &flag, sts) == MPI_ERR_COUNT);
	}
	/* Generalized requests. */
	{
		int extra = 24;
		MPI_Request g;
		CHECK_RC(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &extra, &g));
		CHECK_RC(MPI_Test(&g, &flag, &st));
		CHECK(!flag && queries == 0 && frees == 0);
		CHECK_RC(MPI_Cancel(&g));
		CHECK(cancels == 1 && last_complete == 0);
		CHECK_RC(MPI_Grequest_complete(g));
		CHECK_RC(MPI_Request_get_status(g, &flag, &st));
		CHECK(flag && queries == 1 && frees == 0);
		CHECK_RC(MPI_Cancel(&g));
		CHECK(cancels == 2 && last_complete == 1);
		CHECK_RC(MPI_Wait(&g, &st));
		CHECK(g == MPI_REQUEST_NULL && queries == 2 && frees == 1);
		CHECK_RC(MPI_Get_count(&st, MPI_BYTE, &count));
		CHECK(count == 24);
		/* Freed before completion: free_fn runs when it completes. */
		CHECK_RC(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &extra, &g));
		MPI_Request keep = g;
		CHECK_RC(MPI_Request_free(&g));
		CHECK(g == MPI_REQUEST_NULL && frees == 1);
		CHECK_RC(MPI_Grequest_complete(keep));
		CHECK(frees == 2 && queries == 2);
		/* Completed, then waited among others with Waitall. */
		MPI_Request two[2];
		CHECK_RC(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &extra, &two[0]));
		CHECK_RC(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &extra, &two[1]));
		CHECK_RC(MPI_Grequest_complete(two[1]));
		CHECK_RC(MPI_Grequest_complete(two[0]));
		CHECK_RC(MPI_Waitall(2, two, MPI_STATUSES_IGNORE));
		CHECK(frees == 4 && queries == 4 && two[0] == MPI_REQUEST_NULL);
	}
	/* Partitioned: 4 partitions of 8 ints, made ready in pieces, twice. */
	{
		enum { P = 4, C = 8 };
		int sbuf[P * C], rbuf[P * C];
		MPI_Request sr, rr;
		CHECK_RC(MPI_Psend_init(sbuf, P, C, MPI_INT, right, 31, MPI_COMM_WORLD, MPI_INFO_NULL, &sr));
		CHECK_RC(MPI_Precv_init(rbuf, P, C, MPI_INT, left, 31, MPI_COMM_WORLD, MPI_INFO_NULL, &rr));
		for (int round = 0; round < 2; round++) {
			for (int i = 0; i < P * C; i++) sbuf[i] = rank * 1000 + round * 100 + i, rbuf[i] = -1;
			CHECK_RC(MPI_Start(&rr));
			CHECK_RC(MPI_Start(&sr));
			CHECK_RC(MPI_Pready(2, sr));
			CHECK(MPI_Pready(2, sr) != MPI_SUCCESS); /* already ready */
			CHECK(MPI_Pready(P, sr) != MPI_SUCCESS); /* no such partition */
			int list[2] = {3, 0};
			CHECK_RC(MPI_Pready_list(2, list, sr));
			CHECK_RC(MPI_Pready_range(1, 1, sr));
			int arrived = 0;
			while (!arrived) CHECK_RC(MPI_Parrived(rr, P - 1, &arrived));
			CHECK_RC(MPI_Wait(&rr, &st));
			CHECK_RC(MPI_Wait(&sr, MPI_STATUS_IGNORE));
			CHECK(rr != MPI_REQUEST_NULL && sr != MPI_REQUEST_NULL);
			for (int i = 0; i < P * C; i++) CHECK(rbuf[i] == left * 1000 + round * 100 + i);
		}
		CHECK(MPI_Parrived(rr, P, &flag) != MPI_SUCCESS);
		CHECK_RC(MPI_Request_free(&sr));
		CHECK_RC(MPI_Request_free(&rr));
		/* Bad peers and tags are refused at init, as MPI_Send_init's are. */
		struct {
			int recv, peer, tag, want;
		} bad[] = {{0, -999, 31, MPI_ERR_RANK}, {0, size, 31, MPI_ERR_RANK}, {1, -999, 31, MPI_ERR_RANK},
			   {0, right, -1, MPI_ERR_TAG}, {1, left, -5, MPI_ERR_TAG}};
		for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
			MPI_Request q = MPI_REQUEST_NULL;
			int rc = bad[k].recv ? MPI_Precv_init(rbuf, P, C, MPI_INT, bad[k].peer, bad[k].tag, MPI_COMM_WORLD,
							      MPI_INFO_NULL, &q)
					     : MPI_Psend_init(sbuf, P, C, MPI_INT, bad[k].peer, bad[k].tag, MPI_COMM_WORLD,
							      MPI_INFO_NULL, &q);
			int cls = -1;
			MPI_Error_class(rc, &cls);
			CHECK(rc != MPI_SUCCESS && cls == bad[k].want && q == MPI_REQUEST_NULL);
		}
		/* A non-contiguous receive type freed right after the init still
		 * lays out what arrives: every other int of each partition. */
		int vbuf[P * 2 * C];
		MPI_Datatype vt;
		CHECK_RC(MPI_Type_vector(C, 1, 2, MPI_INT, &vt));
		CHECK_RC(MPI_Type_commit(&vt));
		CHECK_RC(MPI_Precv_init(vbuf, P, 1, vt, left, 32, MPI_COMM_WORLD, MPI_INFO_NULL, &rr));
		CHECK_RC(MPI_Type_free(&vt));
		CHECK_RC(MPI_Psend_init(sbuf, P, C, MPI_INT, right, 32, MPI_COMM_WORLD, MPI_INFO_NULL, &sr));
		for (int i = 0; i < P * C; i++) sbuf[i] = rank * 1000 + i;
		for (int i = 0; i < P * 2 * C; i++) vbuf[i] = -1;
		CHECK_RC(MPI_Start(&rr));
		CHECK_RC(MPI_Start(&sr));
		CHECK_RC(MPI_Pready_range(0, P - 1, sr));
		CHECK_RC(MPI_Wait(&rr, MPI_STATUS_IGNORE));
		CHECK_RC(MPI_Wait(&sr, MPI_STATUS_IGNORE));
		for (int p = 0; p < P; p++)
			for (int j = 0; j < C; j++) CHECK(vbuf[p * (2 * C - 1) + 2 * j] == left * 1000 + p * C + j);
		CHECK_RC(MPI_Request_free(&sr));
		CHECK_RC(MPI_Request_free(&rr));
	}
	MPI_Barrier(MPI_COMM_WORLD);
	report_ok();
	MPI_Finalize();
	return 0;
}
