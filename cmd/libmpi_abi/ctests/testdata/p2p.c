/* Point-to-point: blocking, nonblocking, ANY_SOURCE/ANY_TAG, probe,
 * get_count, PROC_NULL, status ignore, truncation with MPI_ERRORS_RETURN,
 * Sendrecv and Sendrecv_replace, synchronous and buffered sends. */
#include "check.h"

int main(int argc, char **argv)
{
	CHECK_RC(MPI_Init(&argc, &argv));
	int rank, size, flag;
	CHECK_RC(MPI_Initialized(&flag));
	CHECK(flag);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int next = (rank + 1) % size, prev = (rank + size - 1) % size;

	/* Ring of ints, blocking, with a full status. */
	int out[100], in[100];
	for (int i = 0; i < 100; i++) out[i] = rank * 1000 + i;
	MPI_Status st;
	if (rank % 2 == 0) {
		CHECK_RC(MPI_Send(out, 100, MPI_INT, next, 7, MPI_COMM_WORLD));
		CHECK_RC(MPI_Recv(in, 100, MPI_INT, prev, 7, MPI_COMM_WORLD, &st));
	} else {
		CHECK_RC(MPI_Recv(in, 100, MPI_INT, prev, 7, MPI_COMM_WORLD, &st));
		CHECK_RC(MPI_Send(out, 100, MPI_INT, next, 7, MPI_COMM_WORLD));
	}
	CHECK(st.MPI_SOURCE == prev && st.MPI_TAG == 7);
	int count;
	CHECK_RC(MPI_Get_count(&st, MPI_INT, &count));
	CHECK(count == 100);
	CHECK_RC(MPI_Get_count(&st, MPI_DOUBLE, &count));
	CHECK(count == 50);
	CHECK_RC(MPI_Get_count(&st, MPI_BYTE, &count));
	CHECK(count == 400);
	for (int i = 0; i < 100; i++) CHECK(in[i] == prev * 1000 + i);

	/* Nonblocking ring of doubles, statuses ignored. */
	double dout[1000], din[1000];
	for (int i = 0; i < 1000; i++) dout[i] = rank + i * 0.5;
	MPI_Request rq[2];
	CHECK_RC(MPI_Irecv(din, 1000, MPI_DOUBLE, prev, 9, MPI_COMM_WORLD, &rq[0]));
	CHECK_RC(MPI_Isend(dout, 1000, MPI_DOUBLE, next, 9, MPI_COMM_WORLD, &rq[1]));
	CHECK_RC(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
	CHECK(rq[0] == MPI_REQUEST_NULL && rq[1] == MPI_REQUEST_NULL);
	for (int i = 0; i < 1000; i++) CHECK(din[i] == prev + i * 0.5);

	/* ANY_SOURCE / ANY_TAG gather at rank 0, with probe first. */
	if (rank == 0) {
		int seen = 0;
		for (int k = 1; k < size; k++) {
			CHECK_RC(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
			CHECK(st.MPI_TAG == 100 + st.MPI_SOURCE);
			CHECK_RC(MPI_Get_count(&st, MPI_CHAR, &count));
			CHECK(count == st.MPI_SOURCE);
			char buf[64];
			CHECK_RC(MPI_Recv(buf, 64, MPI_CHAR, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
			CHECK_RC(MPI_Get_count(&st, MPI_CHAR, &count));
			CHECK(count == st.MPI_SOURCE);
			for (int i = 0; i < count; i++) CHECK(buf[i] == (char)st.MPI_SOURCE);
			seen |= 1 << st.MPI_SOURCE;
		}
		CHECK(seen == ((1 << size) - 2));
	} else {
		char buf[64];
		memset(buf, rank, sizeof buf);
		CHECK_RC(MPI_Send(buf, rank, MPI_CHAR, 0, 100 + rank, MPI_COMM_WORLD));
	}
	/* Nothing else may reach rank 0's wildcard probe. */
	CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));

	/* Iprobe eventually sees a message to self. */
	int v = 42, w = 0;
	CHECK_RC(MPI_Send(&v, 1, MPI_INT, rank, 5, MPI_COMM_WORLD));
	flag = 0;
	while (!flag) CHECK_RC(MPI_Iprobe(rank, 5, MPI_COMM_WORLD, &flag, &st));
	CHECK(st.MPI_SOURCE == rank && st.MPI_TAG == 5);
	CHECK_RC(MPI_Recv(&w, 1, MPI_INT, rank, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	CHECK(w == 42);

	/* PROC_NULL. */
	CHECK_RC(MPI_Send(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
	CHECK_RC(MPI_Recv(&w, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
	CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG);
	CHECK_RC(MPI_Get_count(&st, MPI_INT, &count));
	CHECK(count == 0);

	/* Sendrecv and Sendrecv_replace around the ring. */
	int a = rank, b = -1;
	CHECK_RC(MPI_Sendrecv(&a, 1, MPI_INT, next, 11, &b, 1, MPI_INT, prev, 11, MPI_COMM_WORLD, &st));
	CHECK(b == prev && st.MPI_SOURCE == prev);
	long long r = rank;
	CHECK_RC(MPI_Sendrecv_replace(&r, 1, MPI_LONG_LONG, next, 12, prev, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	CHECK(r == prev);

	/* Ssend and Bsend. */
	static char bbuf[4096 + MPI_BSEND_OVERHEAD];
	CHECK_RC(MPI_Buffer_attach(bbuf, sizeof bbuf));
	int b2 = -1;
	CHECK_RC(MPI_Irecv(&b, 1, MPI_INT, prev, 13, MPI_COMM_WORLD, &rq[0]));
	CHECK_RC(MPI_Irecv(&b2, 1, MPI_INT, prev, 14, MPI_COMM_WORLD, &rq[1]));
	CHECK_RC(MPI_Ssend(&a, 1, MPI_INT, next, 13, MPI_COMM_WORLD));
	CHECK_RC(MPI_Bsend(&a, 1, MPI_INT, next, 14, MPI_COMM_WORLD));
	CHECK_RC(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
	CHECK(b2 == prev);
	CHECK(b == prev);
	void *det;
	int detsize;
	CHECK_RC(MPI_Buffer_detach(&det, &detsize));
	CHECK(det == bbuf && detsize == (int)sizeof bbuf);

	/* Truncation is an error the program can see with ERRORS_RETURN. */
	CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
	int big[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, small[4] = {0};
	CHECK_RC(MPI_Send(big, 10, MPI_INT, rank, 20, MPI_COMM_WORLD));
	int rc = MPI_Recv(small, 4, MPI_INT, rank, 20, MPI_COMM_WORLD, &st);
	int cls;
	MPI_Error_class(rc, &cls);
	CHECK(cls == MPI_ERR_TRUNCATE);
	CHECK(small[0] == 1 && small[3] == 4);
	/* Invalid arguments come back as codes. */
	rc = MPI_Send(big, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD);
	CHECK(rc == MPI_ERR_RANK);
	rc = MPI_Send(big, 1, MPI_INT, 0, -5, MPI_COMM_WORLD);
	CHECK(rc == MPI_ERR_TAG);
	rc = MPI_Send(big, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD);
	CHECK(rc == MPI_ERR_TYPE);
	rc = MPI_Send(big, -1, MPI_INT, 0, 0, MPI_COMM_WORLD);
	CHECK(rc == MPI_ERR_COUNT);
	rc = MPI_Send(big, 1, MPI_INT, 0, 0, MPI_COMM_NULL);
	CHECK(rc == MPI_ERR_COMM);

	double t0 = MPI_Wtime();
	CHECK(t0 > 0 && MPI_Wtick() > 0 && MPI_Wtime() >= t0);
	CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
	report_ok();
	CHECK_RC(MPI_Finalize());
	CHECK_RC(MPI_Finalized(&flag));
	CHECK(flag);
	return 0;
}
