/* Collectives on intercommunicators: the world splits into a first group
 * of ranks [0, k) and a second of the rest (2+3 ranks of a 5-rank job),
 * and every collective with an intercommunicator form runs blocking,
 * nonblocking and persistent (started twice), rooted ones with MPI_ROOT
 * and MPI_PROC_NULL, checked against a serial reference computed from the
 * world ranks. Also a non-commutative user operator, a non-contiguous
 * datatype, _c forms, and MPI_ERR_COMM for Scan and Exscan. */
#include "check.h"

static int wrank, wsize, color, k, nl, nr, lrank;
static int rw[64]; /* world rank of each remote rank */
static MPI_Comm ic;

static int val(int w, int i) { return w * 100 + i + 1; }

enum { BLOCKING, NONBLOCKING, PERSISTENT };
static const int modes[] = {BLOCKING, NONBLOCKING, PERSISTENT};

/* finish completes a nonblocking or persistent call's request; a
 * persistent one is started (twice over, fill() resetting the buffers
 * between runs) by the caller through run(). */
static void finish(int mode, MPI_Request *r)
{
	if (mode == NONBLOCKING) CHECK_RC(MPI_Wait(r, MPI_STATUS_IGNORE));
	if (mode == PERSISTENT) {
		CHECK_RC(MPI_Start(r));
		CHECK_RC(MPI_Wait(r, MPI_STATUS_IGNORE));
		CHECK_RC(MPI_Start(r));
		CHECK_RC(MPI_Wait(r, MPI_STATUS_IGNORE));
		CHECK_RC(MPI_Request_free(r));
	}
}

#define CALL(mode, blocking, nonblocking, init)                                                                        \
	do {                                                                                                           \
		MPI_Request r_ = MPI_REQUEST_NULL;                                                                     \
		if ((mode) == BLOCKING) CHECK_RC(blocking);                                                            \
		if ((mode) == NONBLOCKING) CHECK_RC(nonblocking);                                                      \
		if ((mode) == PERSISTENT) CHECK_RC(init);                                                              \
		finish(mode, &r_);                                                                                     \
	} while (0)
#define R (&r_)
#define NI MPI_INFO_NULL

static void test_barrier(int mode) { CALL(mode, MPI_Barrier(ic), MPI_Ibarrier(ic, R), MPI_Barrier_init(ic, NI, R)); }

/* The root of rooted collectives: local rank `at` of group `g`. */
static int root_arg(int g, int at)
{
	if (color == g) return lrank == at ? MPI_ROOT : MPI_PROC_NULL;
	return at;
}

static void test_bcast(int mode, int g, int at)
{
	int buf[5], root = root_arg(g, at);
	int rootw = g == 0 ? at : k + at;
	for (int i = 0; i < 5; i++) buf[i] = root == MPI_ROOT ? val(wrank, i) : -1;
	CALL(mode, MPI_Bcast(buf, 5, MPI_INT, root, ic), MPI_Ibcast(buf, 5, MPI_INT, root, ic, R),
	     MPI_Bcast_init(buf, 5, MPI_INT, root, ic, NI, R));
	for (int i = 0; i < 5; i++) {
		if (root == MPI_ROOT) CHECK(buf[i] == val(wrank, i));
		else if (root == MPI_PROC_NULL) CHECK(buf[i] == -1);
		else CHECK(buf[i] == val(rootw, i));
	}
}

static void test_gather(int mode, int g, int at)
{
	int send[3], recv[3 * 64], root = root_arg(g, at);
	for (int i = 0; i < 3; i++) send[i] = val(wrank, i);
	for (int i = 0; i < 3 * 64; i++) recv[i] = -1;
	CALL(mode, MPI_Gather(send, 3, MPI_INT, recv, 3, MPI_INT, root, ic),
	     MPI_Igather(send, 3, MPI_INT, recv, 3, MPI_INT, root, ic, R),
	     MPI_Gather_init(send, 3, MPI_INT, recv, 3, MPI_INT, root, ic, NI, R));
	for (int j = 0; j < nr; j++)
		for (int i = 0; i < 3; i++) CHECK(recv[3 * j + i] == (root == MPI_ROOT ? val(rw[j], i) : -1));
	/* Gatherv: remote rank j sends j+1 ints, placed 4 apart. */
	int counts[64], displs[64], mine = color == g ? 0 : lrank + 1;
	for (int j = 0; j < nr; j++) counts[j] = j + 1, displs[j] = 4 * j;
	for (int i = 0; i < 3 * 64; i++) recv[i] = -1;
	CALL(mode, MPI_Gatherv(send, mine, MPI_INT, recv, counts, displs, MPI_INT, root, ic),
	     MPI_Igatherv(send, mine, MPI_INT, recv, counts, displs, MPI_INT, root, ic, R),
	     MPI_Gatherv_init(send, mine, MPI_INT, recv, counts, displs, MPI_INT, root, ic, NI, R));
	if (root == MPI_ROOT)
		for (int j = 0; j < nr; j++)
			for (int i = 0; i < 4; i++) CHECK(recv[4 * j + i] == (i <= j ? val(rw[j], i) : -1));
}

static void test_scatter(int mode, int g, int at)
{
	int send[3 * 64], recv[3] = {-1, -1, -1}, root = root_arg(g, at);
	int rootw = g == 0 ? at : k + at;
	for (int i = 0; i < 3 * 64; i++) send[i] = val(wrank, i);
	CALL(mode, MPI_Scatter(send, 3, MPI_INT, recv, 3, MPI_INT, root, ic),
	     MPI_Iscatter(send, 3, MPI_INT, recv, 3, MPI_INT, root, ic, R),
	     MPI_Scatter_init(send, 3, MPI_INT, recv, 3, MPI_INT, root, ic, NI, R));
	for (int i = 0; i < 3; i++) CHECK(recv[i] == (root >= 0 ? val(rootw, 3 * lrank + i) : -1));
	/* Scatterv: remote rank j gets j+1 ints from 4j on. */
	int counts[64], displs[64], mine = color == g ? 0 : lrank + 1;
	for (int j = 0; j < nr; j++) counts[j] = j + 1, displs[j] = 4 * j;
	recv[0] = recv[1] = recv[2] = -1;
	CALL(mode, MPI_Scatterv(send, counts, displs, MPI_INT, recv, mine, MPI_INT, root, ic),
	     MPI_Iscatterv(send, counts, displs, MPI_INT, recv, mine, MPI_INT, root, ic, R),
	     MPI_Scatterv_init(send, counts, displs, MPI_INT, recv, mine, MPI_INT, root, ic, NI, R));
	for (int i = 0; i < 3; i++) CHECK(recv[i] == (root >= 0 && i < mine ? val(rootw, 4 * lrank + i) : -1));
}

static void test_allgather(int mode)
{
	int send[2] = {val(wrank, 0), val(wrank, 1)}, recv[4 * 64];
	for (int i = 0; i < 4 * 64; i++) recv[i] = -1;
	CALL(mode, MPI_Allgather(send, 2, MPI_INT, recv, 2, MPI_INT, ic),
	     MPI_Iallgather(send, 2, MPI_INT, recv, 2, MPI_INT, ic, R),
	     MPI_Allgather_init(send, 2, MPI_INT, recv, 2, MPI_INT, ic, NI, R));
	for (int j = 0; j < nr; j++)
		for (int i = 0; i < 2; i++) CHECK(recv[2 * j + i] == val(rw[j], i));
	/* Allgatherv: remote rank j sends (j % 2) + 1 ints, blocks in reverse order. */
	int counts[64], displs[64];
	for (int j = 0; j < nr; j++) counts[j] = j % 2 + 1, displs[j] = 3 * (nr - 1 - j);
	for (int i = 0; i < 4 * 64; i++) recv[i] = -1;
	int mine = lrank % 2 + 1;
	CALL(mode, MPI_Allgatherv(send, mine, MPI_INT, recv, counts, displs, MPI_INT, ic),
	     MPI_Iallgatherv(send, mine, MPI_INT, recv, counts, displs, MPI_INT, ic, R),
	     MPI_Allgatherv_init(send, mine, MPI_INT, recv, counts, displs, MPI_INT, ic, NI, R));
	for (int j = 0; j < nr; j++)
		for (int i = 0; i < 3; i++) CHECK(recv[displs[j] + i] == (i < counts[j] ? val(rw[j], i) : -1));
}

static void test_alltoall(int mode)
{
	int send[2 * 64], recv[4 * 64];
	for (int i = 0; i < 2 * 64; i++) send[i] = val(wrank, i);
	for (int i = 0; i < 4 * 64; i++) recv[i] = -1;
	CALL(mode, MPI_Alltoall(send, 2, MPI_INT, recv, 2, MPI_INT, ic),
	     MPI_Ialltoall(send, 2, MPI_INT, recv, 2, MPI_INT, ic, R),
	     MPI_Alltoall_init(send, 2, MPI_INT, recv, 2, MPI_INT, ic, NI, R));
	for (int j = 0; j < nr; j++)
		for (int i = 0; i < 2; i++) CHECK(recv[2 * j + i] == val(rw[j], 2 * lrank + i));
	/* Alltoallv: to remote rank j go (my local rank + j) % 3 ints from 3j. */
	int sc[64], sd[64], rc[64], rd[64];
	for (int j = 0; j < nr; j++) {
		sc[j] = (lrank + j) % 3, sd[j] = 3 * j;
		rc[j] = (j + lrank) % 3, rd[j] = 3 * (nr - 1 - j);
	}
	for (int i = 0; i < 4 * 64; i++) recv[i] = -1;
	CALL(mode, MPI_Alltoallv(send, sc, sd, MPI_INT, recv, rc, rd, MPI_INT, ic),
	     MPI_Ialltoallv(send, sc, sd, MPI_INT, recv, rc, rd, MPI_INT, ic, R),
	     MPI_Alltoallv_init(send, sc, sd, MPI_INT, recv, rc, rd, MPI_INT, ic, NI, R));
	for (int j = 0; j < nr; j++)
		for (int i = 0; i < 3; i++) CHECK(recv[rd[j] + i] == (i < rc[j] ? val(rw[j], 3 * lrank + i) : -1));
	/* Alltoallw: the same with byte displacements and per-peer types. */
	int sdw[64], rdw[64];
	MPI_Datatype st[64], rt[64];
	for (int j = 0; j < nr; j++) sdw[j] = sd[j] * 4, rdw[j] = rd[j] * 4, st[j] = rt[j] = MPI_INT;
	for (int i = 0; i < 4 * 64; i++) recv[i] = -1;
	CALL(mode, MPI_Alltoallw(send, sc, sdw, st, recv, rc, rdw, rt, ic),
	     MPI_Ialltoallw(send, sc, sdw, st, recv, rc, rdw, rt, ic, R),
	     MPI_Alltoallw_init(send, sc, sdw, st, recv, rc, rdw, rt, ic, NI, R));
	for (int j = 0; j < nr; j++)
		for (int i = 0; i < 3; i++) CHECK(recv[rd[j] + i] == (i < rc[j] ? val(rw[j], 3 * lrank + i) : -1));
}

/* A non-commutative operator: 2x2 integer matrices multiplied modulo a
 * prime, inout = in x inout. */
#define P 1000003LL
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	int *a = in, *b = inout;
	for (int n = 0; n < *len; n++, a += 4, b += 4) {
		long long c0 = ((long long)a[0] * b[0] + (long long)a[1] * b[2]) % P;
		long long c1 = ((long long)a[0] * b[1] + (long long)a[1] * b[3]) % P;
		long long c2 = ((long long)a[2] * b[0] + (long long)a[3] * b[2]) % P;
		long long c3 = ((long long)a[2] * b[1] + (long long)a[3] * b[3]) % P;
		b[0] = c0, b[1] = c1, b[2] = c2, b[3] = c3;
	}
}
static void mat_of(int w, int *m) { m[0] = w + 2, m[1] = 1, m[2] = 3 * w + 1, m[3] = 0; }

static void test_reduce(int mode, int g, int at, MPI_Op mm, MPI_Datatype mat)
{
	int root = root_arg(g, at);
	int send[3], recv[3] = {-1, -1, -1};
	for (int i = 0; i < 3; i++) send[i] = val(wrank, i);
	CALL(mode, MPI_Reduce(send, recv, 3, MPI_INT, MPI_SUM, root, ic),
	     MPI_Ireduce(send, recv, 3, MPI_INT, MPI_SUM, root, ic, R),
	     MPI_Reduce_init(send, recv, 3, MPI_INT, MPI_SUM, root, ic, NI, R));
	for (int i = 0; i < 3; i++) {
		int want = 0;
		for (int j = 0; j < nr; j++) want += val(rw[j], i);
		CHECK(recv[i] == (root == MPI_ROOT ? want : -1));
	}
	/* In remote rank order with the non-commutative operator. */
	int m[4], res[4] = {-1, -1, -1, -1}, want[4];
	mat_of(wrank, m);
	CALL(mode, MPI_Reduce(m, res, 1, mat, mm, root, ic), MPI_Ireduce(m, res, 1, mat, mm, root, ic, R),
	     MPI_Reduce_init(m, res, 1, mat, mm, root, ic, NI, R));
	mat_of(rw[nr - 1], want);
	for (int j = nr - 2; j >= 0; j--) {
		int a[4], len = 1;
		mat_of(rw[j], a);
		matmul(a, want, &len, NULL);
	}
	for (int i = 0; i < 4; i++) CHECK(res[i] == (root == MPI_ROOT ? want[i] : -1));
}

static void test_allreduce(int mode, MPI_Op mm, MPI_Datatype mat)
{
	int send[3], recv[3];
	for (int i = 0; i < 3; i++) send[i] = val(wrank, i), recv[i] = -1;
	CALL(mode, MPI_Allreduce(send, recv, 3, MPI_INT, MPI_MAX, ic),
	     MPI_Iallreduce(send, recv, 3, MPI_INT, MPI_MAX, ic, R),
	     MPI_Allreduce_init(send, recv, 3, MPI_INT, MPI_MAX, ic, NI, R));
	for (int i = 0; i < 3; i++) CHECK(recv[i] == val(rw[nr - 1], i));
	int m[4], res[4], want[4];
	mat_of(wrank, m);
	CALL(mode, MPI_Allreduce(m, res, 1, mat, mm, ic), MPI_Iallreduce(m, res, 1, mat, mm, ic, R),
	     MPI_Allreduce_init(m, res, 1, mat, mm, ic, NI, R));
	mat_of(rw[nr - 1], want);
	for (int j = nr - 2; j >= 0; j--) {
		int a[4], len = 1;
		mat_of(rw[j], a);
		matmul(a, want, &len, NULL);
	}
	for (int i = 0; i < 4; i++) CHECK(res[i] == want[i]);
}

/* Reduce_scatter(_block): a vector of T ints, the same T in both groups,
 * reduced over the remote group and scattered over this one. */
static void test_reduce_scatter(int mode)
{
	int T = 2 * k * (wsize - k); /* a multiple of both group sizes */
	int rcount = T / nl, send[256], recv[256];
	for (int i = 0; i < T; i++) send[i] = val(wrank, i);
	for (int i = 0; i < 256; i++) recv[i] = -1;
	CALL(mode, MPI_Reduce_scatter_block(send, recv, rcount, MPI_INT, MPI_SUM, ic),
	     MPI_Ireduce_scatter_block(send, recv, rcount, MPI_INT, MPI_SUM, ic, R),
	     MPI_Reduce_scatter_block_init(send, recv, rcount, MPI_INT, MPI_SUM, ic, NI, R));
	for (int i = 0; i < rcount; i++) {
		int want = 0;
		for (int j = 0; j < nr; j++) want += val(rw[j], lrank * rcount + i);
		CHECK(recv[i] == want);
	}
	CHECK(recv[rcount] == -1);
	/* Uneven blocks: local rank i gets i+1 ints, the last the rest. */
	int counts[64], off = 0, at = 0;
	for (int i = 0; i < nl; i++) {
		counts[i] = i < nl - 1 ? i + 1 : T - off;
		if (i == lrank) at = off;
		off += counts[i];
	}
	for (int i = 0; i < 256; i++) recv[i] = -1;
	CALL(mode, MPI_Reduce_scatter(send, recv, counts, MPI_INT, MPI_SUM, ic),
	     MPI_Ireduce_scatter(send, recv, counts, MPI_INT, MPI_SUM, ic, R),
	     MPI_Reduce_scatter_init(send, recv, counts, MPI_INT, MPI_SUM, ic, NI, R));
	for (int i = 0; i < counts[lrank]; i++) {
		int want = 0;
		for (int j = 0; j < nr; j++) want += val(rw[j], at + i);
		CHECK(recv[i] == want);
	}
	CHECK(recv[counts[lrank]] == -1);
}

/* A strided type: every other int. */
static void test_noncontig(void)
{
	MPI_Datatype v;
	CHECK_RC(MPI_Type_vector(3, 1, 2, MPI_INT, &v));
	CHECK_RC(MPI_Type_commit(&v));
	int send[6], recv[6 * 64];
	for (int i = 0; i < 6; i++) send[i] = i % 2 ? -7 : val(wrank, i / 2);
	for (int i = 0; i < 6 * 64; i++) recv[i] = -1;
	/* One vector out, nr vectors in, each landing at its extent (5 ints). */
	CHECK_RC(MPI_Allgather(send, 1, v, recv, 1, v, ic));
	for (int j = 0; j < nr; j++)
		for (int i = 0; i < 5; i++) CHECK(recv[5 * j + i] == (i % 2 ? -1 : val(rw[j], i / 2)));
	int sum[6] = {-1, -1, -1, -1, -1, -1};
	CHECK_RC(MPI_Allreduce(send, sum, 1, v, MPI_SUM, ic));
	for (int i = 0; i < 6; i++) {
		int want = 0;
		for (int j = 0; j < nr; j++) want += val(rw[j], i / 2);
		CHECK(sum[i] == (i % 2 ? -1 : want));
	}
	/* Alltoallw with the strided type on the receive side: remote rank j's
	 * 3 ints land every other int from 8j on. */
	int out[3 * 64], sc[64], rc[64], sd[64], rd[64];
	MPI_Datatype st[64], rt[64];
	for (int j = 0; j < nr; j++) {
		for (int i = 0; i < 3; i++) out[3 * j + i] = val(wrank, 3 * j + i);
		sc[j] = 3, sd[j] = 12 * j, st[j] = MPI_INT;
		rc[j] = 1, rd[j] = 32 * j, rt[j] = v;
	}
	for (int i = 0; i < 6 * 64; i++) recv[i] = -1;
	CHECK_RC(MPI_Alltoallw(out, sc, sd, st, recv, rc, rd, rt, ic));
	for (int j = 0; j < nr; j++)
		for (int i = 0; i < 8; i++)
			CHECK(recv[8 * j + i] == (i % 2 || i > 4 ? -1 : val(rw[j], 3 * lrank + i / 2)));
	CHECK_RC(MPI_Type_free(&v));
}

static void test_bigcount(void)
{
	int send[4], recv[4 * 64];
	for (int i = 0; i < 4; i++) send[i] = val(wrank, i);
	CHECK_RC(MPI_Allreduce_c(send, recv, 4, MPI_INT, MPI_SUM, ic));
	for (int i = 0; i < 4; i++) {
		int want = 0;
		for (int j = 0; j < nr; j++) want += val(rw[j], i);
		CHECK(recv[i] == want);
	}
	MPI_Count rc[64];
	MPI_Aint rd[64];
	for (int j = 0; j < nr; j++) rc[j] = 2, rd[j] = 2 * j;
	MPI_Request r;
	CHECK_RC(MPI_Iallgatherv_c(send, 2, MPI_INT, recv, rc, rd, MPI_INT, ic, &r));
	CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
	for (int j = 0; j < nr; j++)
		for (int i = 0; i < 2; i++) CHECK(recv[2 * j + i] == val(rw[j], i));
	int buf[2] = {-1, -1};
	int root = root_arg(1, 0);
	if (root == MPI_ROOT) buf[0] = 5, buf[1] = 6;
	CHECK_RC(MPI_Bcast_c(buf, 2, MPI_INT, root, ic));
	CHECK(buf[0] == (root == MPI_PROC_NULL ? -1 : 5) && buf[1] == (root == MPI_PROC_NULL ? -1 : 6));
}

static void test_errors(void)
{
	int x = 1, y = 0;
	CHECK(MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, ic) == MPI_ERR_COMM);
	CHECK(MPI_Exscan(&x, &y, 1, MPI_INT, MPI_SUM, ic) == MPI_ERR_COMM);
	MPI_Request r;
	CHECK(MPI_Iscan(&x, &y, 1, MPI_INT, MPI_SUM, ic, &r) == MPI_ERR_COMM);
	CHECK(MPI_Exscan_init(&x, &y, 1, MPI_INT, MPI_SUM, ic, MPI_INFO_NULL, &r) == MPI_ERR_COMM);
	/* A root that is neither MPI_ROOT, MPI_PROC_NULL nor a remote rank. */
	CHECK(MPI_Bcast(&x, 1, MPI_INT, nr, ic) == MPI_ERR_ROOT);
	CHECK(MPI_Bcast(&x, 1, MPI_INT, -7, ic) == MPI_ERR_ROOT);
	/* No MPI_IN_PLACE on an intercommunicator. */
	CHECK(MPI_Allreduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_SUM, ic) == MPI_ERR_BUFFER);
	CHECK(y == 0);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
	MPI_Comm_size(MPI_COMM_WORLD, &wsize);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	if (wsize < 2) {
		report_ok();
		MPI_Finalize();
		return 0;
	}
	k = wsize < 5 ? 1 : 2;
	color = wrank < k ? 0 : 1;
	MPI_Comm local;
	CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, color, wrank, &local));
	CHECK_RC(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, color == 0 ? k : 0, 7, &ic));
	MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
	MPI_Comm_rank(ic, &lrank);
	MPI_Comm_size(ic, &nl);
	MPI_Comm_remote_size(ic, &nr);
	CHECK(nl == (color == 0 ? k : wsize - k) && nr == wsize - nl);
	for (int j = 0; j < nr; j++) rw[j] = color == 0 ? k + j : j;

	MPI_Op mm;
	MPI_Datatype mat;
	CHECK_RC(MPI_Op_create(matmul, 0, &mm));
	CHECK_RC(MPI_Type_contiguous(4, MPI_INT, &mat));
	CHECK_RC(MPI_Type_commit(&mat));
	for (int mi = 0; mi < 3; mi++) {
		int mode = modes[mi];
		test_barrier(mode);
		for (int g = 0; g < 2; g++) {
			int last = (g == 0 ? k : wsize - k) - 1;
			test_bcast(mode, g, last);
			test_gather(mode, g, last);
			test_scatter(mode, g, 0);
			test_reduce(mode, g, last, mm, mat);
		}
		test_allgather(mode);
		test_alltoall(mode);
		test_allreduce(mode, mm, mat);
		test_reduce_scatter(mode);
	}
	test_noncontig();
	test_bigcount();
	test_errors();
	/* A duplicate runs its own collectives. */
	MPI_Comm dup;
	CHECK_RC(MPI_Comm_dup(ic, &dup));
	int x = val(wrank, 0), y = -1;
	CHECK_RC(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_MIN, dup));
	CHECK(y == val(rw[0], 0));
	CHECK_RC(MPI_Comm_free(&dup));
	MPI_Op_free(&mm);
	MPI_Type_free(&mat);
	CHECK_RC(MPI_Comm_free(&ic));
	CHECK_RC(MPI_Comm_free(&local));
	report_ok();
	MPI_Finalize();
	return 0;
}
