/* Nonblocking (MPI_I*), persistent (MPI_*_init) and large-count (_c)
 * collectives against serial references: every collective in each form,
 * two roots, MPI_IN_PLACE, a non-commutative user operator, a
 * non-contiguous datatype; all nonblocking ones outstanding at once and
 * completed in reverse order; persistent ones started several times with
 * fresh inputs, with MPI_Startall and freed inactive. */
#include "check.h"

#define MAXN 16
#define M 3 /* elements per block */

static int rank, size, root;

/* Forms a case can start in. */
enum { F_I, F_IC, F_INIT, F_INITC, F_BLOCKC, NFORMS };

static int val(int seed, int who, int j, int k) { return seed * 1000 + who * 100 + j * 10 + k; }

/* 2x2 int matrices, c = a then b: non-commutative. */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	int *a = in, *b = inout;
	for (int k = 0; k < *len; k++, a += 4, b += 4) {
		int c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
			    a[2] * b[1] + a[3] * b[3]};
		memcpy(b, c, sizeof c);
	}
}
static MPI_Op matop;
static MPI_Datatype mat, strided; /* 4 contiguous ints; every other int of 2*M */

static void matof(int *m, int who, int seed, int k)
{
	m[0] = 1, m[1] = (who + seed + k) % 3 + 1, m[2] = (who * 2 + k) % 2, m[3] = 1;
}
/* The product of the matrices of ranks lo..hi-1, in order. */
static void matfold(int *out, int lo, int hi, int seed, int k)
{
	matof(out, lo, seed, k);
	for (int r = lo + 1; r < hi; r++) {
		int x[4], one = 1;
		matof(x, r, seed, k);
		matmul(out, x, &one, &mat);
		memcpy(out, x, sizeof x);
	}
}

/* ---- buffers and counts ---- */
static int cnt[MAXN], dsp[MAXN], rcnt[MAXN], rdsp[MAXN];
static MPI_Count ccnt[MAXN], crcnt[MAXN];
static MPI_Aint cdsp[MAXN], crdsp[MAXN];
static MPI_Datatype types[MAXN];

/* Irregular blocks of the v forms: rank i's block has vsize(i) ints, placed
 * in reverse rank order with gaps. */
static int vsize(int i) { return (i * 2 + 1) % 4; }
static int vlayout(int *c, int *d, MPI_Count *cc, MPI_Aint *cd, int (*sz)(int))
{
	int off = 0;
	for (int i = size - 1; i >= 0; i--) {
		c[i] = sz(i), d[i] = off, cc[i] = c[i], cd[i] = d[i];
		off += c[i] + 1;
	}
	return off;
}
static int a2a_self; /* for alltoallv: amount(rank, j) */
static int amount(int i, int j) { return (i + 2 * j) % 3; }
static int amount_to(int j) { return amount(rank, j); }
static int amount_from(int i) { return amount(i, rank); }

static void fillneg(int *b, int n)
{
	for (int i = 0; i < n; i++) b[i] = -7;
}

/* A collective case: its buffers live in one struct so several are
 * outstanding at once. */
typedef struct tcase tcase;
struct tcase {
	const char *name;
	void (*fill)(tcase *, int seed);
	int (*start)(tcase *, int form, MPI_Request *req);
	void (*check)(tcase *, int seed);
	int s[MAXN * MAXN * M + 64], r[MAXN * MAXN * M + 64];
	int inplace;
};

#define NB(form, i, ic, init, initc, blockc)                                                                        \
	((form) == F_I ? (i) : (form) == F_IC ? (ic) : (form) == F_INIT ? (init) : (form) == F_INITC ? (initc) : (blockc))

/* Barrier */
static void f_none(tcase *t, int seed) {}
static void c_none(tcase *t, int seed) {}
static int s_barrier(tcase *t, int form, MPI_Request *q)
{
	return form == F_INIT || form == F_INITC ? MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, q)
	       : form == F_BLOCKC                ? MPI_Barrier(MPI_COMM_WORLD)
						 : MPI_Ibarrier(MPI_COMM_WORLD, q);
}

/* Bcast of a strided (non-contiguous) type: the gaps stay untouched. */
static void f_bcast(tcase *t, int seed)
{
	for (int k = 0; k < 2 * M * 2; k++) t->r[k] = rank == root && k % 2 == 0 ? val(seed, root, 0, k) : -7;
}
static void c_bcast(tcase *t, int seed)
{
	for (int k = 0; k < 2 * M * 2; k++) CHECK(t->r[k] == (k % 2 == 0 ? val(seed, root, 0, k) : -7));
}
static int s_bcast(tcase *t, int form, MPI_Request *q)
{
	MPI_Comm w = MPI_COMM_WORLD;
	return NB(form, MPI_Ibcast(t->r, 2, strided, root, w, q), MPI_Ibcast_c(t->r, 2, strided, root, w, q),
		  MPI_Bcast_init(t->r, 2, strided, root, w, MPI_INFO_NULL, q),
		  MPI_Bcast_init_c(t->r, 2, strided, root, w, MPI_INFO_NULL, q), MPI_Bcast_c(t->r, 2, strided, root, w));
}

/* Reduce with the matrix product, to root (in place there when t->inplace). */
static void f_reduce(tcase *t, int seed)
{
	fillneg(t->r, 8);
	int *in = t->inplace && rank == root ? t->r : t->s;
	for (int k = 0; k < 2; k++) matof(in + 4 * k, rank, seed, k);
}
static void c_reduce(tcase *t, int seed)
{
	if (rank != root) return;
	for (int k = 0; k < 2; k++) {
		int want[4];
		matfold(want, 0, size, seed, k);
		CHECK(memcmp(t->r + 4 * k, want, sizeof want) == 0);
	}
}
static int s_reduce(tcase *t, int form, MPI_Request *q)
{
	const void *sb = t->inplace && rank == root ? MPI_IN_PLACE : t->s;
	MPI_Comm w = MPI_COMM_WORLD;
	return NB(form, MPI_Ireduce(sb, t->r, 2, mat, matop, root, w, q),
		  MPI_Ireduce_c(sb, t->r, 2, mat, matop, root, w, q),
		  MPI_Reduce_init(sb, t->r, 2, mat, matop, root, w, MPI_INFO_NULL, q),
		  MPI_Reduce_init_c(sb, t->r, 2, mat, matop, root, w, MPI_INFO_NULL, q),
		  MPI_Reduce_c(sb, t->r, 2, mat, matop, root, w));
}

/* Allreduce of a strided type, in place, MPI_SUM. */
static void f_allreduce(tcase *t, int seed)
{
	for (int k = 0; k < 2 * M; k++) t->r[k] = k % 2 == 0 ? val(seed, rank, 1, k) : -7;
}
static void c_allreduce(tcase *t, int seed)
{
	for (int k = 0; k < 2 * M; k++) {
		int want = 0;
		for (int i = 0; i < size; i++) want += val(seed, i, 1, k);
		CHECK(t->r[k] == (k % 2 == 0 ? want : -7));
	}
}
static int s_allreduce(tcase *t, int form, MPI_Request *q)
{
	MPI_Comm w = MPI_COMM_WORLD;
	void *ip = MPI_IN_PLACE;
	return NB(form, MPI_Iallreduce(ip, t->r, 1, strided, MPI_SUM, w, q),
		  MPI_Iallreduce_c(ip, t->r, 1, strided, MPI_SUM, w, q),
		  MPI_Allreduce_init(ip, t->r, 1, strided, MPI_SUM, w, MPI_INFO_NULL, q),
		  MPI_Allreduce_init_c(ip, t->r, 1, strided, MPI_SUM, w, MPI_INFO_NULL, q),
		  MPI_Allreduce_c(ip, t->r, 1, strided, MPI_SUM, w));
}

/* Scan (inplace: 0) and Exscan (inplace: 1, and in place) with the
 * matrix product. */
static void f_scan(tcase *t, int seed)
{
	fillneg(t->r, 4);
	matof(t->inplace ? t->r : t->s, rank, seed, 0);
}
static void c_scan(tcase *t, int seed)
{
	int want[4];
	if (t->inplace) {
		if (rank == 0) return; /* undefined there */
		matfold(want, 0, rank, seed, 0);
	} else {
		matfold(want, 0, rank + 1, seed, 0);
	}
	CHECK(memcmp(t->r, want, sizeof want) == 0);
}
static int s_scan(tcase *t, int form, MPI_Request *q)
{
	MPI_Comm w = MPI_COMM_WORLD;
	if (t->inplace) {
		void *ip = MPI_IN_PLACE;
		return NB(form, MPI_Iexscan(ip, t->r, 1, mat, matop, w, q), MPI_Iexscan_c(ip, t->r, 1, mat, matop, w, q),
			  MPI_Exscan_init(ip, t->r, 1, mat, matop, w, MPI_INFO_NULL, q),
			  MPI_Exscan_init_c(ip, t->r, 1, mat, matop, w, MPI_INFO_NULL, q),
			  MPI_Exscan_c(ip, t->r, 1, mat, matop, w));
	}
	return NB(form, MPI_Iscan(t->s, t->r, 1, mat, matop, w, q), MPI_Iscan_c(t->s, t->r, 1, mat, matop, w, q),
		  MPI_Scan_init(t->s, t->r, 1, mat, matop, w, MPI_INFO_NULL, q),
		  MPI_Scan_init_c(t->s, t->r, 1, mat, matop, w, MPI_INFO_NULL, q), MPI_Scan_c(t->s, t->r, 1, mat, matop, w));
}

/* Reduce_scatter_block (MPI_SUM, M ints each) and Reduce_scatter (the
 * irregular counts, in place). */
static void f_rsb(tcase *t, int seed)
{
	fillneg(t->r, size * M);
	for (int k = 0; k < size * M; k++) (t->inplace ? t->r : t->s)[k] = val(seed, rank, 2, k);
}
static void c_rsb(tcase *t, int seed)
{
	int lo = 0, n = M;
	if (t->inplace) {
		for (int i = 0; i < rank; i++) lo += vsize(i);
		n = vsize(rank);
	} else {
		lo = rank * M;
	}
	for (int k = 0; k < n; k++) {
		int want = 0;
		for (int i = 0; i < size; i++) want += val(seed, i, 2, lo + k);
		CHECK(t->r[k] == want);
	}
}
static int s_rsb(tcase *t, int form, MPI_Request *q)
{
	MPI_Comm w = MPI_COMM_WORLD;
	if (t->inplace) {
		void *ip = MPI_IN_PLACE;
		MPI_Count cc[MAXN];
		int ic[MAXN];
		for (int i = 0; i < size; i++) cc[i] = ic[i] = vsize(i);
		return NB(form, MPI_Ireduce_scatter(ip, t->r, ic, MPI_INT, MPI_SUM, w, q),
			  MPI_Ireduce_scatter_c(ip, t->r, cc, MPI_INT, MPI_SUM, w, q),
			  MPI_Reduce_scatter_init(ip, t->r, ic, MPI_INT, MPI_SUM, w, MPI_INFO_NULL, q),
			  MPI_Reduce_scatter_init_c(ip, t->r, cc, MPI_INT, MPI_SUM, w, MPI_INFO_NULL, q),
			  MPI_Reduce_scatter_c(ip, t->r, cc, MPI_INT, MPI_SUM, w));
	}
	return NB(form, MPI_Ireduce_scatter_block(t->s, t->r, M, MPI_INT, MPI_SUM, w, q),
		  MPI_Ireduce_scatter_block_c(t->s, t->r, M, MPI_INT, MPI_SUM, w, q),
		  MPI_Reduce_scatter_block_init(t->s, t->r, M, MPI_INT, MPI_SUM, w, MPI_INFO_NULL, q),
		  MPI_Reduce_scatter_block_init_c(t->s, t->r, M, MPI_INT, MPI_SUM, w, MPI_INFO_NULL, q),
		  MPI_Reduce_scatter_block_c(t->s, t->r, M, MPI_INT, MPI_SUM, w));
}

/* Gather (in place at root when t->inplace) and Gatherv. */
static void f_gather(tcase *t, int seed)
{
	fillneg(t->r, size * M + 8);
	int *mine = t->inplace && rank == root ? t->r + root * M : t->s;
	for (int k = 0; k < M; k++) mine[k] = val(seed, rank, 3, k);
}
static void c_gather(tcase *t, int seed)
{
	if (rank != root) return;
	for (int i = 0; i < size; i++)
		for (int k = 0; k < M; k++) CHECK(t->r[i * M + k] == val(seed, i, 3, k));
	CHECK(t->r[size * M] == -7);
}
static int s_gather(tcase *t, int form, MPI_Request *q)
{
	const void *sb = t->inplace && rank == root ? MPI_IN_PLACE : t->s;
	MPI_Comm w = MPI_COMM_WORLD;
	return NB(form, MPI_Igather(sb, M, MPI_INT, t->r, M, MPI_INT, root, w, q),
		  MPI_Igather_c(sb, M, MPI_INT, t->r, M, MPI_INT, root, w, q),
		  MPI_Gather_init(sb, M, MPI_INT, t->r, M, MPI_INT, root, w, MPI_INFO_NULL, q),
		  MPI_Gather_init_c(sb, M, MPI_INT, t->r, M, MPI_INT, root, w, MPI_INFO_NULL, q),
		  MPI_Gather_c(sb, M, MPI_INT, t->r, M, MPI_INT, root, w));
}
static void f_gatherv(tcase *t, int seed)
{
	fillneg(t->r, MAXN * 4);
	for (int k = 0; k < vsize(rank); k++) t->s[k] = val(seed, rank, 4, k);
}
static void c_gatherv(tcase *t, int seed)
{
	if (rank != root) return;
	for (int i = 0; i < size; i++) {
		for (int k = 0; k < cnt[i]; k++) CHECK(t->r[dsp[i] + k] == val(seed, i, 4, k));
		CHECK(t->r[dsp[i] + cnt[i]] == -7);
	}
}
static int s_gatherv(tcase *t, int form, MPI_Request *q)
{
	MPI_Comm w = MPI_COMM_WORLD;
	int n = vsize(rank);
	return NB(form, MPI_Igatherv(t->s, n, MPI_INT, t->r, cnt, dsp, MPI_INT, root, w, q),
		  MPI_Igatherv_c(t->s, n, MPI_INT, t->r, ccnt, cdsp, MPI_INT, root, w, q),
		  MPI_Gatherv_init(t->s, n, MPI_INT, t->r, cnt, dsp, MPI_INT, root, w, MPI_INFO_NULL, q),
		  MPI_Gatherv_init_c(t->s, n, MPI_INT, t->r, ccnt, cdsp, MPI_INT, root, w, MPI_INFO_NULL, q),
		  MPI_Gatherv_c(t->s, n, MPI_INT, t->r, ccnt, cdsp, MPI_INT, root, w));
}

/* Scatter and Scatterv (in place at root when t->inplace). */
static void f_scatter(tcase *t, int seed)
{
	fillneg(t->r, M + 1);
	if (rank == root)
		for (int i = 0; i < size; i++)
			for (int k = 0; k < M; k++) t->s[i * M + k] = val(seed, i, 5, k);
}
static void c_scatter(tcase *t, int seed)
{
	for (int k = 0; k < M; k++) CHECK(t->r[k] == val(seed, rank, 5, k));
	CHECK(t->r[M] == -7);
}
static int s_scatter(tcase *t, int form, MPI_Request *q)
{
	MPI_Comm w = MPI_COMM_WORLD;
	return NB(form, MPI_Iscatter(t->s, M, MPI_INT, t->r, M, MPI_INT, root, w, q),
		  MPI_Iscatter_c(t->s, M, MPI_INT, t->r, M, MPI_INT, root, w, q),
		  MPI_Scatter_init(t->s, M, MPI_INT, t->r, M, MPI_INT, root, w, MPI_INFO_NULL, q),
		  MPI_Scatter_init_c(t->s, M, MPI_INT, t->r, M, MPI_INT, root, w, MPI_INFO_NULL, q),
		  MPI_Scatter_c(t->s, M, MPI_INT, t->r, M, MPI_INT, root, w));
}
static void f_scatterv(tcase *t, int seed)
{
	fillneg(t->r, MAXN * 4);
	fillneg(t->s, MAXN * 4);
	if (rank == root)
		for (int i = 0; i < size; i++)
			for (int k = 0; k < cnt[i]; k++) t->s[dsp[i] + k] = val(seed, i, 6, k);
}
static void c_scatterv(tcase *t, int seed)
{
	if (rank == root) {
		/* In place: the root's block stays where it is. */
		for (int k = 0; k < cnt[root]; k++) CHECK(t->s[dsp[root] + k] == val(seed, root, 6, k));
		return;
	}
	for (int k = 0; k < vsize(rank); k++) CHECK(t->r[k] == val(seed, rank, 6, k));
	CHECK(t->r[vsize(rank)] == -7);
}
static int s_scatterv(tcase *t, int form, MPI_Request *q)
{
	MPI_Comm w = MPI_COMM_WORLD;
	void *rb = rank == root ? MPI_IN_PLACE : t->r;
	int n = vsize(rank);
	return NB(form, MPI_Iscatterv(t->s, cnt, dsp, MPI_INT, rb, n, MPI_INT, root, w, q),
		  MPI_Iscatterv_c(t->s, ccnt, cdsp, MPI_INT, rb, n, MPI_INT, root, w, q),
		  MPI_Scatterv_init(t->s, cnt, dsp, MPI_INT, rb, n, MPI_INT, root, w, MPI_INFO_NULL, q),
		  MPI_Scatterv_init_c(t->s, ccnt, cdsp, MPI_INT, rb, n, MPI_INT, root, w, MPI_INFO_NULL, q),
		  MPI_Scatterv_c(t->s, ccnt, cdsp, MPI_INT, rb, n, MPI_INT, root, w));
}

/* Allgather in place, Allgatherv. */
static void f_allgather(tcase *t, int seed)
{
	fillneg(t->r, size * M + 1);
	for (int k = 0; k < M; k++) t->r[rank * M + k] = val(seed, rank, 7, k);
}
static void c_allgather(tcase *t, int seed)
{
	for (int i = 0; i < size; i++)
		for (int k = 0; k < M; k++) CHECK(t->r[i * M + k] == val(seed, i, 7, k));
	CHECK(t->r[size * M] == -7);
}
static int s_allgather(tcase *t, int form, MPI_Request *q)
{
	MPI_Comm w = MPI_COMM_WORLD;
	void *ip = MPI_IN_PLACE;
	return NB(form, MPI_Iallgather(ip, 0, MPI_DATATYPE_NULL, t->r, M, MPI_INT, w, q),
		  MPI_Iallgather_c(ip, 0, MPI_DATATYPE_NULL, t->r, M, MPI_INT, w, q),
		  MPI_Allgather_init(ip, 0, MPI_DATATYPE_NULL, t->r, M, MPI_INT, w, MPI_INFO_NULL, q),
		  MPI_Allgather_init_c(ip, 0, MPI_DATATYPE_NULL, t->r, M, MPI_INT, w, MPI_INFO_NULL, q),
		  MPI_Allgather_c(ip, 0, MPI_DATATYPE_NULL, t->r, M, MPI_INT, w));
}
static void f_allgatherv(tcase *t, int seed)
{
	fillneg(t->r, MAXN * 4);
	for (int k = 0; k < vsize(rank); k++) t->s[k] = val(seed, rank, 8, k);
}
static void c_allgatherv(tcase *t, int seed)
{
	for (int i = 0; i < size; i++) {
		for (int k = 0; k < cnt[i]; k++) CHECK(t->r[dsp[i] + k] == val(seed, i, 8, k));
		CHECK(t->r[dsp[i] + cnt[i]] == -7);
	}
}
static int s_allgatherv(tcase *t, int form, MPI_Request *q)
{
	MPI_Comm w = MPI_COMM_WORLD;
	int n = vsize(rank);
	return NB(form, MPI_Iallgatherv(t->s, n, MPI_INT, t->r, cnt, dsp, MPI_INT, w, q),
		  MPI_Iallgatherv_c(t->s, n, MPI_INT, t->r, ccnt, cdsp, MPI_INT, w, q),
		  MPI_Allgatherv_init(t->s, n, MPI_INT, t->r, cnt, dsp, MPI_INT, w, MPI_INFO_NULL, q),
		  MPI_Allgatherv_init_c(t->s, n, MPI_INT, t->r, ccnt, cdsp, MPI_INT, w, MPI_INFO_NULL, q),
		  MPI_Allgatherv_c(t->s, n, MPI_INT, t->r, ccnt, cdsp, MPI_INT, w));
}

/* Alltoall in place; Alltoallv; Alltoallw (bytes displacements). */
static void f_alltoall(tcase *t, int seed)
{
	for (int j = 0; j < size; j++)
		for (int k = 0; k < M; k++) t->r[j * M + k] = val(seed, rank * MAXN + j, 9, k);
}
static void c_alltoall(tcase *t, int seed)
{
	for (int i = 0; i < size; i++)
		for (int k = 0; k < M; k++) CHECK(t->r[i * M + k] == val(seed, i * MAXN + rank, 9, k));
}
static int s_alltoall(tcase *t, int form, MPI_Request *q)
{
	MPI_Comm w = MPI_COMM_WORLD;
	void *ip = MPI_IN_PLACE;
	return NB(form, MPI_Ialltoall(ip, 0, MPI_DATATYPE_NULL, t->r, M, MPI_INT, w, q),
		  MPI_Ialltoall_c(ip, 0, MPI_DATATYPE_NULL, t->r, M, MPI_INT, w, q),
		  MPI_Alltoall_init(ip, 0, MPI_DATATYPE_NULL, t->r, M, MPI_INT, w, MPI_INFO_NULL, q),
		  MPI_Alltoall_init_c(ip, 0, MPI_DATATYPE_NULL, t->r, M, MPI_INT, w, MPI_INFO_NULL, q),
		  MPI_Alltoall_c(ip, 0, MPI_DATATYPE_NULL, t->r, M, MPI_INT, w));
}
static int scnt[MAXN], sdsp[MAXN];
static MPI_Count cscnt[MAXN];
static MPI_Aint csdsp[MAXN], bsdsp[MAXN], brdsp[MAXN];
static int ibsdsp[MAXN], ibrdsp[MAXN];
static void f_alltoallv(tcase *t, int seed)
{
	fillneg(t->r, MAXN * 4);
	for (int j = 0; j < size; j++)
		for (int k = 0; k < scnt[j]; k++) t->s[sdsp[j] + k] = val(seed, rank * MAXN + j, 10, k);
}
static void c_alltoallv(tcase *t, int seed)
{
	for (int i = 0; i < size; i++) {
		for (int k = 0; k < rcnt[i]; k++) CHECK(t->r[rdsp[i] + k] == val(seed, i * MAXN + rank, 10, k));
		CHECK(t->r[rdsp[i] + rcnt[i]] == -7);
	}
}
static int s_alltoallv(tcase *t, int form, MPI_Request *q)
{
	MPI_Comm w = MPI_COMM_WORLD;
	if (t->inplace) { /* Alltoallw */
		return NB(form,
			  MPI_Ialltoallw(t->s, scnt, ibsdsp, types, t->r, rcnt, ibrdsp, types, w, q),
			  MPI_Ialltoallw_c(t->s, cscnt, bsdsp, types, t->r, crcnt, brdsp, types, w, q),
			  MPI_Alltoallw_init(t->s, scnt, ibsdsp, types, t->r, rcnt, ibrdsp, types, w, MPI_INFO_NULL, q),
			  MPI_Alltoallw_init_c(t->s, cscnt, bsdsp, types, t->r, crcnt, brdsp, types, w, MPI_INFO_NULL, q),
			  MPI_Alltoallw_c(t->s, cscnt, bsdsp, types, t->r, crcnt, brdsp, types, w));
	}
	return NB(form, MPI_Ialltoallv(t->s, scnt, sdsp, MPI_INT, t->r, rcnt, rdsp, MPI_INT, w, q),
		  MPI_Ialltoallv_c(t->s, cscnt, csdsp, MPI_INT, t->r, crcnt, crdsp, MPI_INT, w, q),
		  MPI_Alltoallv_init(t->s, scnt, sdsp, MPI_INT, t->r, rcnt, rdsp, MPI_INT, w, MPI_INFO_NULL, q),
		  MPI_Alltoallv_init_c(t->s, cscnt, csdsp, MPI_INT, t->r, crcnt, crdsp, MPI_INT, w, MPI_INFO_NULL, q),
		  MPI_Alltoallv_c(t->s, cscnt, csdsp, MPI_INT, t->r, crcnt, crdsp, MPI_INT, w));
}

/* Non-contiguous data movement, packed: Alltoallv of the strided type on
 * both sides (one element each way, reversed displacements) and Gatherv of
 * plain ints into strided elements at root. */
static int one[MAXN], rev[MAXN];
static MPI_Count cone[MAXN];
static MPI_Aint crev[MAXN];
static void f_strided(tcase *t, int seed)
{
	fillneg(t->r, size * 2 * M + 2 * M);
	fillneg(t->s, size * 2 * M);
	for (int j = 0; j < size; j++)
		for (int k = 0; k < M; k++) t->s[rev[j] * 2 * M + 2 * k] = val(seed, rank * MAXN + j, 11, k);
}
static void c_strided(tcase *t, int seed)
{
	for (int i = 0; i < size; i++)
		for (int k = 0; k < 2 * M; k++) {
			int got = t->r[rev[i] * 2 * M + k];
			CHECK(got == (k % 2 ? -7 : val(seed, i * MAXN + rank, 11, k / 2)));
		}
}
static int s_strided(tcase *t, int form, MPI_Request *q)
{
	MPI_Comm w = MPI_COMM_WORLD;
	MPI_Datatype d = strided;
	return NB(form, MPI_Ialltoallv(t->s, one, rev, d, t->r, one, rev, d, w, q),
		  MPI_Ialltoallv_c(t->s, cone, crev, d, t->r, cone, crev, d, w, q),
		  MPI_Alltoallv_init(t->s, one, rev, d, t->r, one, rev, d, w, MPI_INFO_NULL, q),
		  MPI_Alltoallv_init_c(t->s, cone, crev, d, t->r, cone, crev, d, w, MPI_INFO_NULL, q),
		  MPI_Alltoallv(t->s, one, rev, d, t->r, one, rev, d, w));
}
static void f_gstrided(tcase *t, int seed)
{
	fillneg(t->r, size * 2 * M + 2 * M);
	for (int k = 0; k < M; k++) t->s[k] = val(seed, rank, 12, k);
}
static void c_gstrided(tcase *t, int seed)
{
	if (rank != root) return;
	for (int i = 0; i < size; i++)
		for (int k = 0; k < 2 * M; k++)
			CHECK(t->r[rev[i] * 2 * M + k] == (k % 2 ? -7 : val(seed, i, 12, k / 2)));
}
static int s_gstrided(tcase *t, int form, MPI_Request *q)
{
	MPI_Comm w = MPI_COMM_WORLD;
	MPI_Datatype d = strided;
	return NB(form, MPI_Igatherv(t->s, M, MPI_INT, t->r, one, rev, d, root, w, q),
		  MPI_Igatherv_c(t->s, M, MPI_INT, t->r, cone, crev, d, root, w, q),
		  MPI_Gatherv_init(t->s, M, MPI_INT, t->r, one, rev, d, root, w, MPI_INFO_NULL, q),
		  MPI_Gatherv_init_c(t->s, M, MPI_INT, t->r, cone, crev, d, root, w, MPI_INFO_NULL, q),
		  MPI_Gatherv(t->s, M, MPI_INT, t->r, one, rev, d, root, w));
}

static tcase cases[] = {
	{.name = "alltoallv strided", .fill = f_strided, .start = s_strided, .check = c_strided},
	{.name = "gatherv strided", .fill = f_gstrided, .start = s_gstrided, .check = c_gstrided},
	{.name = "barrier", .fill = f_none, .start = s_barrier, .check = c_none},
	{.name = "bcast", .fill = f_bcast, .start = s_bcast, .check = c_bcast},
	{.name = "reduce", .fill = f_reduce, .start = s_reduce, .check = c_reduce},
	{.name = "reduce in place", .fill = f_reduce, .start = s_reduce, .check = c_reduce, .inplace = 1},
	{.name = "allreduce", .fill = f_allreduce, .start = s_allreduce, .check = c_allreduce},
	{.name = "scan", .fill = f_scan, .start = s_scan, .check = c_scan},
	{.name = "exscan", .fill = f_scan, .start = s_scan, .check = c_scan, .inplace = 1},
	{.name = "reduce_scatter_block", .fill = f_rsb, .start = s_rsb, .check = c_rsb},
	{.name = "reduce_scatter", .fill = f_rsb, .start = s_rsb, .check = c_rsb, .inplace = 1},
	{.name = "gather", .fill = f_gather, .start = s_gather, .check = c_gather},
	{.name = "gather in place", .fill = f_gather, .start = s_gather, .check = c_gather, .inplace = 1},
	{.name = "gatherv", .fill = f_gatherv, .start = s_gatherv, .check = c_gatherv},
	{.name = "scatter", .fill = f_scatter, .start = s_scatter, .check = c_scatter},
	{.name = "scatterv", .fill = f_scatterv, .start = s_scatterv, .check = c_scatterv},
	{.name = "allgather", .fill = f_allgather, .start = s_allgather, .check = c_allgather},
	{.name = "allgatherv", .fill = f_allgatherv, .start = s_allgatherv, .check = c_allgatherv},
	{.name = "alltoall", .fill = f_alltoall, .start = s_alltoall, .check = c_alltoall},
	{.name = "alltoallv", .fill = f_alltoallv, .start = s_alltoallv, .check = c_alltoallv},
	{.name = "alltoallw", .fill = f_alltoallv, .start = s_alltoallv, .check = c_alltoallv, .inplace = 1},
};
#define NCASES (int)(sizeof cases / sizeof cases[0])

static void fail(const char *what, const char *name, int form)
{
	fprintf(stderr, "rank %d: %s %s form %d root %d failed\n", rank, what, name, form, root);
	MPI_Abort(MPI_COMM_WORLD, 3);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	CHECK(size <= MAXN);
	CHECK_RC(MPI_Op_create(matmul, 0, &matop));
	CHECK_RC(MPI_Type_contiguous(4, MPI_INT, &mat));
	CHECK_RC(MPI_Type_commit(&mat));
	CHECK_RC(MPI_Type_vector(M, 1, 2, MPI_INT, &strided));
	CHECK_RC(MPI_Type_commit(&strided));
	/* The vector's extent is 2M-1 ints: two of them start 2M-1 apart;
	 * resize so consecutive elements tile every other int. */
	MPI_Datatype tmp = strided;
	CHECK_RC(MPI_Type_create_resized(tmp, 0, 2 * M * sizeof(int), &strided));
	CHECK_RC(MPI_Type_commit(&strided));
	CHECK_RC(MPI_Type_free(&tmp));
	vlayout(cnt, dsp, ccnt, cdsp, vsize);
	vlayout(scnt, sdsp, cscnt, csdsp, amount_to);
	vlayout(rcnt, rdsp, crcnt, crdsp, amount_from);
	for (int i = 0; i < size; i++) {
		one[i] = 1, cone[i] = 1, rev[i] = size - 1 - i, crev[i] = rev[i];
		types[i] = MPI_INT;
		bsdsp[i] = csdsp[i] * sizeof(int), brdsp[i] = crdsp[i] * sizeof(int);
		ibsdsp[i] = (int)bsdsp[i], ibrdsp[i] = (int)brdsp[i];
	}
	(void)a2a_self;

	int roots[2] = {0, size - 1};
	for (int ri = 0; ri < 2; ri++) {
		root = roots[ri];
		/* Nonblocking, int and _c: all outstanding, waited in reverse. */
		for (int form = F_I; form <= F_IC; form++) {
			for (int seed = 1; seed <= 2; seed++) {
				MPI_Request q[NCASES];
				for (int i = 0; i < NCASES; i++) {
					cases[i].fill(&cases[i], seed);
					if (cases[i].start(&cases[i], form, &q[i]) != MPI_SUCCESS) fail("start", cases[i].name, form);
				}
				for (int i = NCASES - 1; i >= 0; i--) {
					if (MPI_Wait(&q[i], MPI_STATUS_IGNORE) != MPI_SUCCESS) fail("wait", cases[i].name, form);
					CHECK(q[i] == MPI_REQUEST_NULL);
				}
				for (int i = 0; i < NCASES; i++) cases[i].check(&cases[i], seed);
			}
		}
		/* Persistent: bound once, started three times (one by one or
		 * with MPI_Startall), completed in reverse or with Waitall. */
		for (int form = F_INIT; form <= F_INITC; form++) {
			MPI_Request q[NCASES];
			for (int i = 0; i < NCASES; i++) {
				cases[i].fill(&cases[i], 0);
				if (cases[i].start(&cases[i], form, &q[i]) != MPI_SUCCESS) fail("init", cases[i].name, form);
			}
			for (int seed = 3; seed <= 5; seed++) {
				for (int i = 0; i < NCASES; i++) cases[i].fill(&cases[i], seed);
				if (seed == 4) {
					CHECK_RC(MPI_Startall(NCASES, q));
					CHECK_RC(MPI_Waitall(NCASES, q, MPI_STATUSES_IGNORE));
				} else {
					for (int i = 0; i < NCASES; i++) CHECK_RC(MPI_Start(&q[i]));
					for (int i = NCASES - 1; i >= 0; i--) {
						int flag = 0;
						if (seed == 5) {
							while (!flag) CHECK_RC(MPI_Test(&q[i], &flag, MPI_STATUS_IGNORE));
						} else {
							CHECK_RC(MPI_Wait(&q[i], MPI_STATUS_IGNORE));
						}
					}
				}
				for (int i = 0; i < NCASES; i++) {
					CHECK(q[i] != MPI_REQUEST_NULL); /* persistent: inactive, not freed */
					cases[i].check(&cases[i], seed);
				}
			}
			for (int i = 0; i < NCASES; i++) {
				CHECK_RC(MPI_Request_free(&q[i]));
				CHECK(q[i] == MPI_REQUEST_NULL);
			}
		}
		/* The blocking large-count forms. */
		for (int i = 0; i < NCASES; i++) {
			cases[i].fill(&cases[i], 6);
			if (cases[i].start(&cases[i], F_BLOCKC, NULL) != MPI_SUCCESS) fail("blocking _c", cases[i].name, 0);
			cases[i].check(&cases[i], 6);
		}
	}

	/* Blocking Alltoallw with int counts. */
	{
		tcase *t = &cases[NCASES - 1];
		t->fill(t, 7);
		CHECK_RC(MPI_Alltoallw(t->s, scnt, ibsdsp, types, t->r, rcnt, ibrdsp, types, MPI_COMM_WORLD));
		t->check(t, 7);
	}

	/* Blocking Allgather and Alltoall of the strided type (packed around
	 * their own path). */
	{
		static int sa[MAXN * 2 * M], ra[MAXN * 2 * M];
		fillneg(ra, size * 2 * M);
		for (int k = 0; k < 2 * M; k++) sa[k] = k % 2 ? -5 : val(8, rank, 13, k / 2);
		CHECK_RC(MPI_Allgather(sa, 1, strided, ra, 1, strided, MPI_COMM_WORLD));
		for (int i = 0; i < size; i++)
			for (int k = 0; k < 2 * M; k++) CHECK(ra[i * 2 * M + k] == (k % 2 ? -7 : val(8, i, 13, k / 2)));
		fillneg(ra, size * 2 * M);
		for (int j = 0; j < size; j++)
			for (int k = 0; k < M; k++) sa[j * M + k] = val(9, rank * MAXN + j, 14, k);
		CHECK_RC(MPI_Alltoall(sa, M, MPI_INT, ra, 1, strided, MPI_COMM_WORLD));
		for (int i = 0; i < size; i++)
			for (int k = 0; k < 2 * M; k++)
				CHECK(ra[i * 2 * M + k] == (k % 2 ? -7 : val(9, i * MAXN + rank, 14, k / 2)));
		/* In place: the receive buffer is the input. */
		for (int j = 0; j < size; j++)
			for (int k = 0; k < 2 * M; k++) ra[j * 2 * M + k] = k % 2 ? -5 : val(10, rank * MAXN + j, 14, k / 2);
		CHECK_RC(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ra, 1, strided, MPI_COMM_WORLD));
		for (int i = 0; i < size; i++)
			for (int k = 0; k < 2 * M; k++)
				CHECK(ra[i * 2 * M + k] == (k % 2 ? -5 : val(10, i * MAXN + rank, 14, k / 2)));
		for (int k = 0; k < size * 2 * M; k++) ra[k] = k / (2 * M) == rank && k % 2 == 0 ? val(11, rank, 14, k % (2 * M) / 2) : -7;
		CHECK_RC(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ra, 1, strided, MPI_COMM_WORLD));
		for (int i = 0; i < size; i++)
			for (int k = 0; k < 2 * M; k++) CHECK(ra[i * 2 * M + k] == (k % 2 ? -7 : val(11, i, 14, k / 2)));
	}

	/* Alltoallw with a strided type to and from every other peer and
	 * plain ints with the rest (byte displacements, reversed). */
	{
		static int sa[MAXN * 2 * M], ra[MAXN * 2 * M];
		int wc[MAXN], wd[MAXN];
		MPI_Datatype wt[MAXN];
		for (int j = 0; j < size; j++) {
			int strd = j % 2;
			wt[j] = strd ? strided : MPI_INT;
			wc[j] = strd ? 1 : M;
			wd[j] = rev[j] * 2 * M * (int)sizeof(int);
			for (int k = 0; k < 2 * M; k++)
				sa[rev[j] * 2 * M + k] = strd ? (k % 2 ? -5 : val(10, rank * MAXN + j, 17, k / 2))
							: (k < M ? val(10, rank * MAXN + j, 17, k) : -5);
		}
		for (int nb = 0; nb < 2; nb++) {
			fillneg(ra, size * 2 * M);
			/* Rank i's block for me has the type I expect from i. */
			MPI_Request q;
			if (nb) {
				CHECK_RC(MPI_Ialltoallw(sa, wc, wd, wt, ra, wc, wd, wt, MPI_COMM_WORLD, &q));
				CHECK_RC(MPI_Wait(&q, MPI_STATUS_IGNORE));
			} else {
				CHECK_RC(MPI_Alltoallw(sa, wc, wd, wt, ra, wc, wd, wt, MPI_COMM_WORLD));
			}
			for (int i = 0; i < size; i++)
				for (int k = 0; k < 2 * M; k++) {
					int got = ra[rev[i] * 2 * M + k];
					int want = i % 2 ? (k % 2 ? -7 : val(10, i * MAXN + rank, 17, k / 2))
							 : (k < M ? val(10, i * MAXN + rank, 17, k) : -7);
					CHECK(got == want);
				}
		}
	}

	/* MPI_IN_PLACE with the strided type: Iallgather, Igather and
	 * Gather at the root, Iscatter from it, Ialltoall and Ialltoallv. */
	{
		static int b[MAXN * 2 * M], keep[MAXN * 2 * M];
		MPI_Request q;
		MPI_Comm w = MPI_COMM_WORLD;
		void *ip = MPI_IN_PLACE;
		for (int form = 0; form < 6; form++) {
			/* Every int is its place's value; odd places are gaps. */
			for (int k = 0; k < size * 2 * M; k++) b[k] = k % 2 ? -5 : -1;
			for (int k = 0; k < 2 * M; k += 2) b[rank * 2 * M + k] = val(form, rank, 18, k / 2);
			if (form == 4 || form == 5)
				for (int j = 0; j < size; j++)
					for (int k = 0; k < 2 * M; k += 2) b[j * 2 * M + k] = val(form, rank * MAXN + j, 18, k / 2);
			if (form == 3)
				for (int j = 0; j < size; j++)
					for (int k = 0; k < 2 * M; k += 2) b[j * 2 * M + k] = val(form, j, 18, k / 2);
			memcpy(keep, b, sizeof b);
			int root0 = rank == 0;
			switch (form) {
			case 0: CHECK_RC(MPI_Iallgather(ip, 0, MPI_DATATYPE_NULL, b, 1, strided, w, &q)); break;
			case 1:
				CHECK_RC(MPI_Igather(root0 ? ip : b + rank * 2 * M, 1, strided, b, 1, strided, 0, w, &q));
				break;
			case 2:
				q = MPI_REQUEST_NULL;
				CHECK_RC(MPI_Gather(root0 ? ip : b + rank * 2 * M, 1, strided, b, 1, strided, 0, w));
				break;
			case 3:
				CHECK_RC(MPI_Iscatter(b, 1, strided, root0 ? ip : b + rank * 2 * M, 1, strided, 0, w, &q));
				break;
			case 4: CHECK_RC(MPI_Ialltoall(ip, 0, MPI_DATATYPE_NULL, b, 1, strided, w, &q)); break;
			case 5: CHECK_RC(MPI_Ialltoallv(ip, NULL, NULL, MPI_DATATYPE_NULL, b, one, rev, strided, w, &q)); break;
			}
			CHECK_RC(MPI_Wait(&q, MPI_STATUS_IGNORE));
			for (int i = 0; i < size; i++)
				for (int k = 0; k < 2 * M; k++) {
					int got = b[i * 2 * M + k], want = keep[i * 2 * M + k];
					if (k % 2 == 0 && (form == 0 || ((form == 1 || form == 2) && root0)))
						want = val(form, i, 18, k / 2);
					if (k % 2 == 0 && form == 4) want = val(form, i * MAXN + rank, 18, k / 2);
					/* Ialltoallv's blocks are reversed: place i holds
					 * what rank rev[i] sent from its place rev[rank]. */
					if (k % 2 == 0 && form == 5) want = val(form, rev[i] * MAXN + rev[rank], 18, k / 2);
					if (got != want) {
						fprintf(stderr, "rank %d: in-place form %d block %d[%d]: %d, want %d\n", rank, form, i, k, got, want);
						MPI_Abort(MPI_COMM_WORLD, 3);
					}
				}
		}
	}

	/* Reduce-scatters of the strided type (packed), blocking and not,
	 * in place and not. */
	{
		static int in[MAXN * 2 * M], out[MAXN * 2 * M];
		for (int pass = 0; pass < 4; pass++) {
			int inplace = pass & 1, nb = pass >> 1;
			for (int k = 0; k < size * 2 * M; k++) in[k] = k % 2 ? -5 : val(pass, rank, 15, k / 2);
			fillneg(out, size * 2 * M);
			int *rb = inplace ? in : out;
			MPI_Request q;
			if (nb)
				CHECK_RC(MPI_Ireduce_scatter_block(inplace ? MPI_IN_PLACE : in, rb, 1, strided, MPI_SUM,
								   MPI_COMM_WORLD, &q));
			else
				CHECK_RC(MPI_Reduce_scatter_block(inplace ? MPI_IN_PLACE : in, rb, 1, strided, MPI_SUM,
								  MPI_COMM_WORLD));
			if (nb) CHECK_RC(MPI_Wait(&q, MPI_STATUS_IGNORE));
			for (int k = 0; k < 2 * M; k++) {
				int want = 0;
				for (int i = 0; i < size; i++) want += val(pass, i, 15, (rank * 2 * M + k) / 2);
				CHECK(rb[k] == (k % 2 ? (inplace ? -5 : -7) : want));
			}
			int ones[MAXN];
			for (int i = 0; i < size; i++) ones[i] = 1;
			fillneg(out, size * 2 * M);
			for (int k = 0; k < size * 2 * M; k++) in[k] = k % 2 ? -5 : val(pass, rank, 16, k / 2);
			if (nb) {
				CHECK_RC(MPI_Ireduce_scatter(inplace ? MPI_IN_PLACE : in, rb, ones, strided, MPI_SUM,
							     MPI_COMM_WORLD, &q));
				CHECK_RC(MPI_Wait(&q, MPI_STATUS_IGNORE));
			} else {
				CHECK_RC(MPI_Reduce_scatter(inplace ? MPI_IN_PLACE : in, rb, ones, strided, MPI_SUM,
							    MPI_COMM_WORLD));
			}
			for (int k = 0; k < 2 * M; k++) {
				int want = 0;
				for (int i = 0; i < size; i++) want += val(pass, i, 16, (rank * 2 * M + k) / 2);
				CHECK(rb[k] == (k % 2 ? (inplace ? -5 : -7) : want));
			}
		}
	}

	/* Bad arguments: a clear error, nothing started. */
	CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
	MPI_Request q = MPI_REQUEST_NULL;
	int x[4];
	int rc = MPI_Igather(x, 1, MPI_INT, x, 1, MPI_INT, size, MPI_COMM_WORLD, &q);
	int cls;
	MPI_Error_class(rc, &cls);
	CHECK(cls == MPI_ERR_ROOT && q == MPI_REQUEST_NULL);
	rc = MPI_Ireduce_c(x, x, -1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &q);
	MPI_Error_class(rc, &cls);
	CHECK(cls == MPI_ERR_COUNT);
	rc = MPI_Bcast_init(x, 1, MPI_INT, -1, MPI_COMM_WORLD, MPI_INFO_NULL, &q);
	MPI_Error_class(rc, &cls);
	CHECK(cls == MPI_ERR_ROOT && q == MPI_REQUEST_NULL);
	/* Starting an active persistent collective is an error. */
	CHECK_RC(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &q));
	CHECK_RC(MPI_Start(&q));
	CHECK(MPI_Start(&q) != MPI_SUCCESS);
	CHECK_RC(MPI_Wait(&q, MPI_STATUS_IGNORE));
	CHECK_RC(MPI_Request_free(&q));

	CHECK_RC(MPI_Op_free(&matop));
	CHECK_RC(MPI_Type_free(&mat));
	CHECK_RC(MPI_Type_free(&strided));
	report_ok();
	MPI_Finalize();
	return 0;
}
