/* collmatrix.c — the correctness matrix of the intracommunicator
 * collectives (issue 12): every collective in every form (blocking,
 * blocking _c, MPI_I*, MPI_I*_c, persistent *_init and *_init_c started
 * twice with fresh data), every root, MPI_IN_PLACE where the standard allows
 * it, three datatypes (MPI_INT, a strided vector, a struct with holes and a
 * non-zero lower bound), MPI_SUM, a non-commutative user op and
 * MINLOC/MAXLOC on MPI_2INT. Every rank computes the expected buffers
 * serially from deterministic inputs and compares whole buffers, so a write
 * into a gap or into a send buffer fails too. Point-to-point messages are
 * pending on the same communicator across every collective. A second part
 * runs different collectives on MPI_COMM_WORLD, a Comm_dup and a Comm_split
 * in flight at once. Rank 0 prints "cases N" (N summed over ranks' counts
 * of checked calls / size) so that a skipped section is noticed. */
#include "check.h"

#define MAXN 16
/* scale multiplies every count: 1 for the matrix, BIG for the pass over
 * the large-message paths (segmented, direct copy). */
#define BIG 8192
static int scale = 1, nbuf = 2048; /* nbuf: ints per buffer in use */
#define NBUF nbuf
#define NEL (2 * scale)  /* elements per block of the data-movement collectives */
#define NRED (3 * scale) /* elements reduced per block */
#define SENT (-7) /* what untouched ints hold */

enum { C_BARRIER, C_BCAST, C_GATHER, C_GATHERV, C_SCATTER, C_SCATTERV, C_ALLGATHER, C_ALLGATHERV,
       C_ALLTOALL, C_ALLTOALLV, C_ALLTOALLW, C_REDUCE, C_ALLREDUCE, C_RSB, C_RS, C_SCAN, C_EXSCAN,
       C_RLOCAL, NCOLL };
static const char *cname[NCOLL] = {"barrier", "bcast", "gather", "gatherv", "scatter", "scatterv",
				   "allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw", "reduce",
				   "allreduce", "reduce_scatter_block", "reduce_scatter", "scan", "exscan",
				   "reduce_local"};
enum { F_B, F_BC, F_I, F_IC, F_P, F_PC, NFORM };
static const char *fname[NFORM] = {"blocking", "blocking_c", "nonblocking", "nonblocking_c", "persistent",
				   "persistent_c"};

/* Datatype variants: where an element's ne payload ints sit among its ext
 * ints (off includes the lower bound). */
typedef struct {
	const char *name;
	MPI_Datatype dt;
	int ne, ext, off[3];
} tvar;
enum { T_INT, T_VEC, T_STRUCT, T_2INT, NTV };
static tvar tv[NTV];

enum { O_NONE, O_SUM, O_MAT, O_MAXLOC, O_MINLOC };
static MPI_Op matop;

static int isrooted(int c)
{
	return c == C_BCAST || c == C_GATHER || c == C_GATHERV || c == C_SCATTER || c == C_SCATTERV || c == C_REDUCE;
}
static int isred(int c) { return c >= C_REDUCE; }
static int hasinplace(int c) { return c != C_BARRIER && c != C_BCAST && c != C_RLOCAL; }
static int nforms(int c) { return c == C_RLOCAL ? 2 : NFORM; }

/* ---- values ---- */
static unsigned hash(int seed, int a, int b, int e, int j)
{
	unsigned h = (unsigned)seed * 1000003u ^ (unsigned)a * 7919u ^ (unsigned)b * 104729u ^ (unsigned)e * 31u ^
		     (unsigned)j * 131071u;
	h *= 2654435761u;
	return h ^ (h >> 15);
}
/* Data moved from rank src for block dst. */
static int dv(int seed, int src, int dst, int e, int j) { return (int)(hash(seed, src, dst, e, j) % 99991u) + 1; }

/* 2x2 matrices mod 7, four base-8 digits in an int: their product is
 * associative and not commutative. */
static int mm(int a, int b)
{
	int x[4], y[4];
	for (int i = 0; i < 4; i++) x[i] = a >> (3 * i) & 7, y[i] = b >> (3 * i) & 7;
	int z[4] = {(x[0] * y[0] + x[1] * y[2]) % 7, (x[0] * y[1] + x[1] * y[3]) % 7, (x[2] * y[0] + x[3] * y[2]) % 7,
		    (x[2] * y[1] + x[3] * y[3]) % 7};
	return z[0] | z[1] << 3 | z[2] << 6 | z[3] << 9;
}
/* Rank r's reduction input at element e, payload int j. */
static int rv(int op, int seed, int r, int e, int j)
{
	unsigned h = hash(seed, r, 99, e, j);
	switch (op) {
	case O_MAT: return (int)(h % 7 | (h >> 3) % 7 << 3 | (h >> 6) % 7 << 6 | (h >> 9) % 7 << 9);
	case O_MAXLOC:
	case O_MINLOC: return j == 0 ? (int)(h % 3) : r * 100 + e; /* ties on purpose */
	default: return (int)(h % 1000);
	}
}
/* acc = acc op x for one element. */
static void combine(int op, int ne, int *acc, const int *x)
{
	switch (op) {
	case O_SUM:
		for (int j = 0; j < ne; j++) acc[j] += x[j];
		break;
	case O_MAT:
		for (int j = 0; j < ne; j++) acc[j] = mm(acc[j], x[j]);
		break;
	case O_MAXLOC:
		if (x[0] > acc[0] || (x[0] == acc[0] && x[1] < acc[1])) acc[0] = x[0], acc[1] = x[1];
		break;
	case O_MINLOC:
		if (x[0] < acc[0] || (x[0] == acc[0] && x[1] < acc[1])) acc[0] = x[0], acc[1] = x[1];
		break;
	}
}
/* The reduction of ranks lo..hi-1's element e, in rank order. */
static void fold(int op, int ne, int seed, int lo, int hi, int e, int *out)
{
	for (int j = 0; j < ne; j++) out[j] = rv(op, seed, lo, e, j);
	for (int r = lo + 1; r < hi; r++) {
		int x[3];
		for (int j = 0; j < ne; j++) x[j] = rv(op, seed, r, e, j);
		combine(op, ne, out, x);
	}
}

/* The user op: inout = in op inout, walking whichever layout it is given. */
static void matfn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	const tvar *t = NULL;
	for (int i = 0; i < NTV; i++)
		if (tv[i].dt == *dt) t = &tv[i];
	if (t == NULL) {
		fprintf(stderr, "user op called with an unknown datatype\n");
		MPI_Abort(MPI_COMM_WORLD, 4);
		return;
	}
	int *a = in, *b = inout;
	for (int k = 0; k < *len; k++)
		for (int j = 0; j < t->ne; j++) {
			int i = k * t->ext + t->off[j];
			b[i] = mm(a[i], b[i]);
		}
}

/* ---- a case ---- */
typedef struct {
	int coll, form, root, inplace, t, op;
	MPI_Comm comm;
	int rank, size;
	MPI_Request req;
	int sc[MAXN], sd[MAXN], rc[MAXN], rd[MAXN], swb[MAXN], rwb[MAXN];
	MPI_Count csc[MAXN], crc[MAXN];
	MPI_Aint csd[MAXN], crd[MAXN], cswb[MAXN], crwb[MAXN];
	MPI_Datatype st[MAXN], rt[MAXN];
	int sflat[MAXN], rflat[MAXN];
	int *sb, *rb, *xs, *xr; /* buffers and what they should hold after */
	int len;                /* ints of them in use: all the layouts fit */
} kase;

static long ncases; /* checked calls on this rank */

/* The int index of payload j of element e of a block starting at element
 * base; a flat block holds the same ints as plain MPI_INTs. */
static int at(const tvar *t, int base, int flat, int e, int j)
{
	return base * t->ext + (flat ? e * t->ne + j : e * t->ext + t->off[j]);
}
static void sentinel(int *b, int n)
{
	for (int i = 0; i < n; i++) b[i] = SENT;
}

/* Irregular blocks, placed in reverse rank order with one element's gap. */
static int vc(int i) { return (i + 1) % 3 * scale; }
static int amt(const kase *k, int i, int j) { return (k->inplace ? (i + j) % 3 : (i + 2 * j) % 3) * scale; }
static void revlayout(int size, const int *cnt, int *dsp)
{
	int off = 0;
	for (int i = size - 1; i >= 0; i--) dsp[i] = off, off += cnt[i] + 1;
}

static void setup(kase *k)
{
	const tvar *t = &tv[k->t];
	int n = k->size, r = k->rank;
	for (int i = 0; i < n; i++) {
		switch (k->coll) {
		case C_GATHERV:
		case C_ALLGATHERV:
		case C_RS: k->rc[i] = vc(i); break;
		case C_SCATTERV: k->sc[i] = vc(i); break;
		case C_ALLTOALLV:
		case C_ALLTOALLW: k->sc[i] = amt(k, r, i), k->rc[i] = amt(k, i, r); break;
		}
	}
	revlayout(n, k->sc, k->sd);
	revlayout(n, k->rc, k->rd);
	for (int i = 0; i < n; i++) {
		/* Alltoallw: some peers' blocks go as plain ints. */
		k->sflat[i] = k->coll == C_ALLTOALLW && (r + i) % 2 == 1;
		k->rflat[i] = k->coll == C_ALLTOALLW && (k->inplace ? (r + i) % 2 == 1 : (r * 3 + i) % 2 == 0);
		k->st[i] = k->sflat[i] ? MPI_INT : t->dt;
		k->rt[i] = k->rflat[i] ? MPI_INT : t->dt;
		if (k->coll == C_ALLTOALLW) {
			k->swb[i] = k->sd[i] * t->ext * (int)sizeof(int);
			k->rwb[i] = k->rd[i] * t->ext * (int)sizeof(int);
			if (k->sflat[i]) k->sc[i] *= t->ne;
			if (k->rflat[i]) k->rc[i] *= t->ne;
		}
		k->csc[i] = k->sc[i], k->crc[i] = k->rc[i], k->csd[i] = k->sd[i], k->crd[i] = k->rd[i];
		k->cswb[i] = k->swb[i], k->crwb[i] = k->rwb[i];
	}
}

/* Elements in block i of an alltoallv/w, counted in elements of the type. */
static int a2a_send_elems(const kase *k, int j) { return amt(k, k->rank, j); }
static int a2a_recv_elems(const kase *k, int i) { return amt(k, i, k->rank); }

/* fill writes the inputs of seed and computes the expected buffers. */
static void fill(kase *k, int seed)
{
	const tvar *t = &tv[k->t];
	int n = k->size, r = k->rank, root = k->root, ip = k->inplace, ne = t->ne, op = k->op;
	sentinel(k->sb, k->len), sentinel(k->rb, k->len);
	int x[3];
	switch (k->coll) {
	case C_BARRIER: break;
	case C_BCAST:
		if (r == root)
			for (int e = 0; e < NEL; e++)
				for (int j = 0; j < ne; j++) k->rb[at(t, 0, 0, e, j)] = dv(seed, root, 0, e, j);
		break;
	case C_GATHER:
	case C_ALLGATHER: {
		int *mine = ip && (r == root || k->coll == C_ALLGATHER) ? k->rb : k->sb;
		int base = mine == k->rb ? r * NEL : 0;
		for (int e = 0; e < NEL; e++)
			for (int j = 0; j < ne; j++) mine[at(t, base, 0, e, j)] = dv(seed, r, 0, e, j);
		break;
	}
	case C_GATHERV:
	case C_ALLGATHERV: {
		int *mine = ip && (r == root || k->coll == C_ALLGATHERV) ? k->rb : k->sb;
		int base = mine == k->rb ? k->rd[r] : 0;
		for (int e = 0; e < vc(r); e++)
			for (int j = 0; j < ne; j++) mine[at(t, base, 0, e, j)] = dv(seed, r, 0, e, j);
		break;
	}
	case C_SCATTER:
	case C_SCATTERV:
		if (r == root)
			for (int i = 0; i < n; i++) {
				int m = k->coll == C_SCATTER ? NEL : vc(i), base = k->coll == C_SCATTER ? i * NEL : k->sd[i];
				for (int e = 0; e < m; e++)
					for (int j = 0; j < ne; j++) k->sb[at(t, base, 0, e, j)] = dv(seed, root, i, e, j);
			}
		break;
	case C_ALLTOALL:
		for (int i = 0; i < n; i++)
			for (int e = 0; e < NEL; e++)
				for (int j = 0; j < ne; j++) (ip ? k->rb : k->sb)[at(t, i * NEL, 0, e, j)] = dv(seed, r, i, e, j);
		break;
	case C_ALLTOALLV:
	case C_ALLTOALLW:
		for (int i = 0; i < n; i++) {
			/* In place, the data for peer i sits where i's block will land. */
			int base = ip ? k->rd[i] : k->sd[i], flat = ip ? k->rflat[i] : k->sflat[i];
			for (int e = 0; e < a2a_send_elems(k, i); e++)
				for (int j = 0; j < ne; j++) (ip ? k->rb : k->sb)[at(t, base, flat, e, j)] = dv(seed, r, i, e, j);
		}
		break;
	case C_REDUCE:
	case C_ALLREDUCE:
	case C_SCAN:
	case C_EXSCAN: {
		int *in = ip && (r == root || k->coll != C_REDUCE) ? k->rb : k->sb;
		for (int e = 0; e < NRED; e++)
			for (int j = 0; j < ne; j++) in[at(t, 0, 0, e, j)] = rv(op, seed, r, e, j);
		break;
	}
	case C_RSB:
	case C_RS: {
		int tot = 0;
		for (int i = 0; i < n; i++) tot += k->coll == C_RSB ? NRED : k->rc[i];
		for (int e = 0; e < tot; e++)
			for (int j = 0; j < ne; j++) (ip ? k->rb : k->sb)[at(t, 0, 0, e, j)] = rv(op, seed, r, e, j);
		break;
	}
	case C_RLOCAL: /* in: virtual rank 0, inout: virtual rank 1 */
		for (int e = 0; e < NRED; e++)
			for (int j = 0; j < ne; j++)
				k->sb[at(t, 0, 0, e, j)] = rv(op, seed, 0, e, j), k->rb[at(t, 0, 0, e, j)] = rv(op, seed, 1, e, j);
		break;
	}
	memcpy(k->xs, k->sb, k->len * sizeof(int));
	memcpy(k->xr, k->rb, k->len * sizeof(int));
	int *xr = k->xr;
	switch (k->coll) {
	case C_BCAST:
		for (int e = 0; e < NEL; e++)
			for (int j = 0; j < ne; j++) xr[at(t, 0, 0, e, j)] = dv(seed, root, 0, e, j);
		break;
	case C_GATHER:
	case C_ALLGATHER:
		if (k->coll == C_GATHER && r != root) break;
		for (int i = 0; i < n; i++)
			for (int e = 0; e < NEL; e++)
				for (int j = 0; j < ne; j++) xr[at(t, i * NEL, 0, e, j)] = dv(seed, i, 0, e, j);
		break;
	case C_GATHERV:
	case C_ALLGATHERV:
		if (k->coll == C_GATHERV && r != root) break;
		for (int i = 0; i < n; i++)
			for (int e = 0; e < vc(i); e++)
				for (int j = 0; j < ne; j++) xr[at(t, k->rd[i], 0, e, j)] = dv(seed, i, 0, e, j);
		break;
	case C_SCATTER:
	case C_SCATTERV:
		if (ip && r == root) break; /* the root's block stays in the send buffer */
		for (int e = 0; e < (k->coll == C_SCATTER ? NEL : vc(r)); e++)
			for (int j = 0; j < ne; j++) xr[at(t, 0, 0, e, j)] = dv(seed, root, r, e, j);
		break;
	case C_ALLTOALL:
		for (int i = 0; i < n; i++)
			for (int e = 0; e < NEL; e++)
				for (int j = 0; j < ne; j++) xr[at(t, i * NEL, 0, e, j)] = dv(seed, i, r, e, j);
		break;
	case C_ALLTOALLV:
	case C_ALLTOALLW:
		for (int i = 0; i < n; i++)
			for (int e = 0; e < a2a_recv_elems(k, i); e++)
				for (int j = 0; j < ne; j++) xr[at(t, k->rd[i], k->rflat[i], e, j)] = dv(seed, i, r, e, j);
		break;
	case C_REDUCE:
	case C_ALLREDUCE:
	case C_SCAN:
	case C_EXSCAN: {
		if (k->coll == C_REDUCE && r != root) break;
		if (k->coll == C_EXSCAN && r == 0) break; /* undefined there */
		int hi = k->coll == C_SCAN ? r + 1 : k->coll == C_EXSCAN ? r : n;
		for (int e = 0; e < NRED; e++) {
			fold(op, ne, seed, 0, hi, e, x);
			for (int j = 0; j < ne; j++) xr[at(t, 0, 0, e, j)] = x[j];
		}
		break;
	}
	case C_RSB:
	case C_RS: {
		int lo = 0, m = NRED;
		if (k->coll == C_RSB) {
			lo = r * NRED;
		} else {
			for (int i = 0; i < r; i++) lo += k->rc[i];
			m = k->rc[r];
		}
		for (int e = 0; e < m; e++) {
			fold(op, ne, seed, 0, n, lo + e, x);
			for (int j = 0; j < ne; j++) xr[at(t, 0, 0, e, j)] = x[j];
		}
		break;
	}
	case C_RLOCAL:
		for (int e = 0; e < NRED; e++) {
			fold(op, ne, seed, 0, 2, e, x);
			for (int j = 0; j < ne; j++) xr[at(t, 0, 0, e, j)] = x[j];
		}
		break;
	}
}

static void check(kase *k, int seed)
{
	int skip = k->coll == C_EXSCAN && k->rank == 0;
	/* In place, a reduce-scatter's input beyond the result is undefined. */
	int rlim = k->len;
	if (k->inplace && (k->coll == C_RSB || k->coll == C_RS))
		rlim = (k->coll == C_RSB ? NRED : k->rc[k->rank]) * tv[k->t].ext;
	for (int i = 0; i < k->len; i++) {
		int bad = k->sb[i] != k->xs[i] ? 's' : !skip && i < rlim && k->rb[i] != k->xr[i] ? 'r' : 0;
		if (bad) {
			fprintf(stderr,
				"rank %d: %s %s root %d inplace %d type %s op %d comm size %d seed %d: %cbuf[%d] = %d, want %d\n",
				k->rank, cname[k->coll], fname[k->form], k->root, k->inplace, tv[k->t].name, k->op, k->size,
				seed, bad, i, bad == 's' ? k->sb[i] : k->rb[i], bad == 's' ? k->xs[i] : k->xr[i]);
			const int *got = bad == 's' ? k->sb : k->rb, *want = bad == 's' ? k->xs : k->xr;
			for (int x = i < 4 ? 0 : i - 4; x < i + 12 && x < k->len; x++)
				fprintf(stderr, "  [%d] %d want %d\n", x, got[x], want[x]);
			fflush(stderr);
			MPI_Abort(MPI_COMM_WORLD, 3);
		}
	}
	ncases++;
}

static MPI_Op mpiop(int op)
{
	return op == O_SUM ? MPI_SUM : op == O_MAT ? matop : op == O_MAXLOC ? MPI_MAXLOC : MPI_MINLOC;
}

#define FORMS(b, bc, i, ic, p, pc)                                                                            \
	switch (k->form) {                                                                                    \
	case F_B: return b;                                                                                   \
	case F_BC: return bc;                                                                                 \
	case F_I: return i;                                                                                   \
	case F_IC: return ic;                                                                                 \
	case F_P: return p;                                                                                   \
	default: return pc;                                                                                   \
	}

/* start issues the call of k's form: a blocking call completes it, the
 * others leave a request in k->req (inactive for the persistent ones). */
static int start(kase *k)
{
	MPI_Comm w = k->comm;
	MPI_Request *q = &k->req;
	MPI_Info in = MPI_INFO_NULL;
	MPI_Datatype d = tv[k->t].dt;
	int r = k->rank, root = k->root, ip = k->inplace;
	void *IP = MPI_IN_PLACE;
	void *sb = k->sb, *rb = k->rb;
	MPI_Op op = mpiop(k->op);
	switch (k->coll) {
	case C_BARRIER:
		FORMS(MPI_Barrier(w), MPI_Barrier(w), MPI_Ibarrier(w, q), MPI_Ibarrier(w, q), MPI_Barrier_init(w, in, q),
		      MPI_Barrier_init(w, in, q));
	case C_BCAST:
		FORMS(MPI_Bcast(rb, NEL, d, root, w), MPI_Bcast_c(rb, NEL, d, root, w), MPI_Ibcast(rb, NEL, d, root, w, q),
		      MPI_Ibcast_c(rb, NEL, d, root, w, q), MPI_Bcast_init(rb, NEL, d, root, w, in, q),
		      MPI_Bcast_init_c(rb, NEL, d, root, w, in, q));
	case C_GATHER: {
		void *s = ip && r == root ? IP : sb;
		FORMS(MPI_Gather(s, NEL, d, rb, NEL, d, root, w), MPI_Gather_c(s, NEL, d, rb, NEL, d, root, w),
		      MPI_Igather(s, NEL, d, rb, NEL, d, root, w, q), MPI_Igather_c(s, NEL, d, rb, NEL, d, root, w, q),
		      MPI_Gather_init(s, NEL, d, rb, NEL, d, root, w, in, q),
		      MPI_Gather_init_c(s, NEL, d, rb, NEL, d, root, w, in, q));
	}
	case C_GATHERV: {
		void *s = ip && r == root ? IP : sb;
		int m = vc(r);
		FORMS(MPI_Gatherv(s, m, d, rb, k->rc, k->rd, d, root, w),
		      MPI_Gatherv_c(s, m, d, rb, k->crc, k->crd, d, root, w),
		      MPI_Igatherv(s, m, d, rb, k->rc, k->rd, d, root, w, q),
		      MPI_Igatherv_c(s, m, d, rb, k->crc, k->crd, d, root, w, q),
		      MPI_Gatherv_init(s, m, d, rb, k->rc, k->rd, d, root, w, in, q),
		      MPI_Gatherv_init_c(s, m, d, rb, k->crc, k->crd, d, root, w, in, q));
	}
	case C_SCATTER: {
		void *v = ip && r == root ? IP : rb;
		FORMS(MPI_Scatter(sb, NEL, d, v, NEL, d, root, w), MPI_Scatter_c(sb, NEL, d, v, NEL, d, root, w),
		      MPI_Iscatter(sb, NEL, d, v, NEL, d, root, w, q), MPI_Iscatter_c(sb, NEL, d, v, NEL, d, root, w, q),
		      MPI_Scatter_init(sb, NEL, d, v, NEL, d, root, w, in, q),
		      MPI_Scatter_init_c(sb, NEL, d, v, NEL, d, root, w, in, q));
	}
	case C_SCATTERV: {
		void *v = ip && r == root ? IP : rb;
		int m = vc(r);
		FORMS(MPI_Scatterv(sb, k->sc, k->sd, d, v, m, d, root, w),
		      MPI_Scatterv_c(sb, k->csc, k->csd, d, v, m, d, root, w),
		      MPI_Iscatterv(sb, k->sc, k->sd, d, v, m, d, root, w, q),
		      MPI_Iscatterv_c(sb, k->csc, k->csd, d, v, m, d, root, w, q),
		      MPI_Scatterv_init(sb, k->sc, k->sd, d, v, m, d, root, w, in, q),
		      MPI_Scatterv_init_c(sb, k->csc, k->csd, d, v, m, d, root, w, in, q));
	}
	case C_ALLGATHER: {
		void *s = ip ? IP : sb;
		int sn = ip ? 0 : NEL;
		MPI_Datatype sd = ip ? MPI_DATATYPE_NULL : d;
		FORMS(MPI_Allgather(s, sn, sd, rb, NEL, d, w), MPI_Allgather_c(s, sn, sd, rb, NEL, d, w),
		      MPI_Iallgather(s, sn, sd, rb, NEL, d, w, q), MPI_Iallgather_c(s, sn, sd, rb, NEL, d, w, q),
		      MPI_Allgather_init(s, sn, sd, rb, NEL, d, w, in, q),
		      MPI_Allgather_init_c(s, sn, sd, rb, NEL, d, w, in, q));
	}
	case C_ALLGATHERV: {
		void *s = ip ? IP : sb;
		int m = vc(r);
		FORMS(MPI_Allgatherv(s, m, d, rb, k->rc, k->rd, d, w), MPI_Allgatherv_c(s, m, d, rb, k->crc, k->crd, d, w),
		      MPI_Iallgatherv(s, m, d, rb, k->rc, k->rd, d, w, q),
		      MPI_Iallgatherv_c(s, m, d, rb, k->crc, k->crd, d, w, q),
		      MPI_Allgatherv_init(s, m, d, rb, k->rc, k->rd, d, w, in, q),
		      MPI_Allgatherv_init_c(s, m, d, rb, k->crc, k->crd, d, w, in, q));
	}
	case C_ALLTOALL: {
		void *s = ip ? IP : sb;
		int sn = ip ? 0 : NEL;
		MPI_Datatype sd = ip ? MPI_DATATYPE_NULL : d;
		FORMS(MPI_Alltoall(s, sn, sd, rb, NEL, d, w), MPI_Alltoall_c(s, sn, sd, rb, NEL, d, w),
		      MPI_Ialltoall(s, sn, sd, rb, NEL, d, w, q), MPI_Ialltoall_c(s, sn, sd, rb, NEL, d, w, q),
		      MPI_Alltoall_init(s, sn, sd, rb, NEL, d, w, in, q), MPI_Alltoall_init_c(s, sn, sd, rb, NEL, d, w, in, q));
	}
	case C_ALLTOALLV: {
		void *s = ip ? IP : sb;
		FORMS(MPI_Alltoallv(s, k->sc, k->sd, d, rb, k->rc, k->rd, d, w),
		      MPI_Alltoallv_c(s, k->csc, k->csd, d, rb, k->crc, k->crd, d, w),
		      MPI_Ialltoallv(s, k->sc, k->sd, d, rb, k->rc, k->rd, d, w, q),
		      MPI_Ialltoallv_c(s, k->csc, k->csd, d, rb, k->crc, k->crd, d, w, q),
		      MPI_Alltoallv_init(s, k->sc, k->sd, d, rb, k->rc, k->rd, d, w, in, q),
		      MPI_Alltoallv_init_c(s, k->csc, k->csd, d, rb, k->crc, k->crd, d, w, in, q));
	}
	case C_ALLTOALLW: {
		void *s = ip ? IP : sb;
		FORMS(MPI_Alltoallw(s, k->sc, k->swb, k->st, rb, k->rc, k->rwb, k->rt, w),
		      MPI_Alltoallw_c(s, k->csc, k->cswb, k->st, rb, k->crc, k->crwb, k->rt, w),
		      MPI_Ialltoallw(s, k->sc, k->swb, k->st, rb, k->rc, k->rwb, k->rt, w, q),
		      MPI_Ialltoallw_c(s, k->csc, k->cswb, k->st, rb, k->crc, k->crwb, k->rt, w, q),
		      MPI_Alltoallw_init(s, k->sc, k->swb, k->st, rb, k->rc, k->rwb, k->rt, w, in, q),
		      MPI_Alltoallw_init_c(s, k->csc, k->cswb, k->st, rb, k->crc, k->crwb, k->rt, w, in, q));
	}
	case C_REDUCE: {
		void *s = ip && r == root ? IP : sb;
		FORMS(MPI_Reduce(s, rb, NRED, d, op, root, w), MPI_Reduce_c(s, rb, NRED, d, op, root, w),
		      MPI_Ireduce(s, rb, NRED, d, op, root, w, q), MPI_Ireduce_c(s, rb, NRED, d, op, root, w, q),
		      MPI_Reduce_init(s, rb, NRED, d, op, root, w, in, q), MPI_Reduce_init_c(s, rb, NRED, d, op, root, w, in, q));
	}
	case C_ALLREDUCE: {
		void *s = ip ? IP : sb;
		FORMS(MPI_Allreduce(s, rb, NRED, d, op, w), MPI_Allreduce_c(s, rb, NRED, d, op, w),
		      MPI_Iallreduce(s, rb, NRED, d, op, w, q), MPI_Iallreduce_c(s, rb, NRED, d, op, w, q),
		      MPI_Allreduce_init(s, rb, NRED, d, op, w, in, q), MPI_Allreduce_init_c(s, rb, NRED, d, op, w, in, q));
	}
	case C_SCAN: {
		void *s = ip ? IP : sb;
		FORMS(MPI_Scan(s, rb, NRED, d, op, w), MPI_Scan_c(s, rb, NRED, d, op, w), MPI_Iscan(s, rb, NRED, d, op, w, q),
		      MPI_Iscan_c(s, rb, NRED, d, op, w, q), MPI_Scan_init(s, rb, NRED, d, op, w, in, q),
		      MPI_Scan_init_c(s, rb, NRED, d, op, w, in, q));
	}
	case C_EXSCAN: {
		void *s = ip ? IP : sb;
		FORMS(MPI_Exscan(s, rb, NRED, d, op, w), MPI_Exscan_c(s, rb, NRED, d, op, w),
		      MPI_Iexscan(s, rb, NRED, d, op, w, q), MPI_Iexscan_c(s, rb, NRED, d, op, w, q),
		      MPI_Exscan_init(s, rb, NRED, d, op, w, in, q), MPI_Exscan_init_c(s, rb, NRED, d, op, w, in, q));
	}
	case C_RSB: {
		void *s = ip ? IP : sb;
		FORMS(MPI_Reduce_scatter_block(s, rb, NRED, d, op, w), MPI_Reduce_scatter_block_c(s, rb, NRED, d, op, w),
		      MPI_Ireduce_scatter_block(s, rb, NRED, d, op, w, q),
		      MPI_Ireduce_scatter_block_c(s, rb, NRED, d, op, w, q),
		      MPI_Reduce_scatter_block_init(s, rb, NRED, d, op, w, in, q),
		      MPI_Reduce_scatter_block_init_c(s, rb, NRED, d, op, w, in, q));
	}
	case C_RS: {
		void *s = ip ? IP : sb;
		FORMS(MPI_Reduce_scatter(s, rb, k->rc, d, op, w), MPI_Reduce_scatter_c(s, rb, k->crc, d, op, w),
		      MPI_Ireduce_scatter(s, rb, k->rc, d, op, w, q), MPI_Ireduce_scatter_c(s, rb, k->crc, d, op, w, q),
		      MPI_Reduce_scatter_init(s, rb, k->rc, d, op, w, in, q),
		      MPI_Reduce_scatter_init_c(s, rb, k->crc, d, op, w, in, q));
	}
	case C_RLOCAL:
		return k->form == F_B ? MPI_Reduce_local(sb, rb, NRED, d, op) : MPI_Reduce_local_c(sb, rb, NRED, d, op);
	}
	return MPI_ERR_OTHER;
}

/* ---- pending point-to-point traffic ---- */
typedef struct {
	MPI_Request q[2];
	int out[4], in[4];
	MPI_Comm comm;
	int rank, size, seq;
} ring;
static void ring_post(ring *g, MPI_Comm c, int seq)
{
	MPI_Comm_rank(c, &g->rank);
	MPI_Comm_size(c, &g->size);
	g->comm = c, g->seq = seq;
	int right = (g->rank + 1) % g->size, left = (g->rank + g->size - 1) % g->size;
	for (int i = 0; i < 4; i++) g->out[i] = dv(seq, g->rank, right, i, 5), g->in[i] = SENT;
	/* MPI_ANY_TAG would also match a collective's messages if they leaked
	 * into the point-to-point space. */
	CHECK_RC(MPI_Irecv(g->in, 4, MPI_INT, left, MPI_ANY_TAG, c, &g->q[0]));
	CHECK_RC(MPI_Isend(g->out, 4, MPI_INT, right, seq % 1000, c, &g->q[1]));
}
/* ring_check completes the ring's requests, or takes the status of its
 * receive when they were completed elsewhere. */
static void ring_check(ring *g, const MPI_Status *done)
{
	MPI_Status st[2];
	if (done == NULL)
		CHECK_RC(MPI_Waitall(2, g->q, st));
	else
		st[0] = *done;
	int left = (g->rank + g->size - 1) % g->size;
	CHECK(st[0].MPI_TAG == g->seq % 1000 && st[0].MPI_SOURCE == left);
	for (int i = 0; i < 4; i++) CHECK(g->in[i] == dv(g->seq, left, g->rank, i, 5));
}

static void fail(kase *k, const char *what, int rc)
{
	char s[MPI_MAX_ERROR_STRING];
	int n = 0;
	MPI_Error_string(rc, s, &n);
	fprintf(stderr, "rank %d: %s %s %s root %d inplace %d type %s op %d comm size %d: %s\n", k->rank, what,
		cname[k->coll], fname[k->form], k->root, k->inplace, tv[k->t].name, k->op, k->size, s);
	fflush(stderr);
	MPI_Abort(MPI_COMM_WORLD, 3);
}

static void init_case(kase *k, MPI_Comm c, int coll, int form, int root, int ip, int t, int op)
{
	k->coll = coll, k->form = form, k->root = root, k->inplace = ip, k->t = t, k->op = op;
	k->comm = c;
	k->req = MPI_REQUEST_NULL;
	MPI_Comm_rank(c, &k->rank);
	MPI_Comm_size(c, &k->size);
	memset(k->sc, 0, sizeof k->sc), memset(k->rc, 0, sizeof k->rc);
	/* Elements its layouts span (v blocks: up to 2*scale and a gap each;
	 * the struct's lower bound adds an int). */
	int n = k->size, el;
	switch (coll) {
	case C_BARRIER: el = 0; break;
	case C_GATHER:
	case C_SCATTER:
	case C_ALLGATHER:
	case C_ALLTOALL: el = n * NEL; break;
	case C_GATHERV:
	case C_SCATTERV:
	case C_ALLGATHERV:
	case C_ALLTOALLV:
	case C_ALLTOALLW:
	case C_RS: el = n * (2 * scale + 1); break;
	case C_RSB: el = n * NRED; break;
	default: el = NRED; break;
	}
	k->len = (el + 1) * tv[t].ext + 8;
	CHECK(k->len <= NBUF);
	setup(k);
}

/* Data type and op pairs a collective runs with. */
typedef struct {
	int t, op;
} variant;
static const variant moves[] = {{T_INT, O_NONE}, {T_VEC, O_NONE}, {T_STRUCT, O_NONE}};
static const variant reds[] = {{T_INT, O_SUM},    {T_VEC, O_SUM},       {T_STRUCT, O_SUM},   {T_INT, O_MAT},
			       {T_VEC, O_MAT},    {T_STRUCT, O_MAT},    {T_2INT, O_MAXLOC}, {T_2INT, O_MINLOC}};

/* The split communicator's share of part 1, to keep the run short: one
 * nonblocking and one persistent form, derived types, the non-commutative
 * op and MAXLOC. */
static int onsplit(int c, int form, variant v)
{
	if (form != F_I && form != F_PC) return 0;
	if (c == C_BARRIER) return 1;
	if (!isred(c)) return v.t == T_STRUCT;
	return (v.t == T_VEC && v.op == O_MAT) || v.op == O_MAXLOC;
}

static kase K; /* the case of part 1 */
static int seq;

/* run1 runs one case of part 1 to the end, with ring traffic pending
 * across it; persistent ones run twice with new data. */
static void run1(MPI_Comm c, int coll, int form, int root, int ip, variant v)
{
	kase *k = &K;
	init_case(k, c, coll, form, root, ip, v.t, v.op);
	ring g;
	int rc;
	if (form == F_P || form == F_PC) {
		fill(k, 1);
		if ((rc = start(k)) != MPI_SUCCESS) fail(k, "init", rc);
		for (int s = 2; s <= 3; s++) {
			fill(k, s + seq);
			ring_post(&g, c, ++seq);
			if ((rc = MPI_Start(&k->req)) != MPI_SUCCESS) fail(k, "start", rc);
			if (s == 2) {
				if ((rc = MPI_Wait(&k->req, MPI_STATUS_IGNORE)) != MPI_SUCCESS) fail(k, "wait", rc);
			} else {
				int flag = 0;
				while (!flag)
					if ((rc = MPI_Test(&k->req, &flag, MPI_STATUS_IGNORE)) != MPI_SUCCESS) fail(k, "test", rc);
			}
			CHECK(k->req != MPI_REQUEST_NULL);
			ring_check(&g, NULL);
			check(k, s + seq - 1);
		}
		CHECK_RC(MPI_Request_free(&k->req));
		return;
	}
	int seed = ++seq;
	fill(k, seed);
	ring_post(&g, c, seed);
	if ((rc = start(k)) != MPI_SUCCESS) fail(k, "call", rc);
	if (form == F_I || form == F_IC) {
		/* Complete the collective together with the ring's requests. */
		MPI_Request all[3] = {g.q[0], k->req, g.q[1]};
		MPI_Status st[3];
		if ((rc = MPI_Waitall(3, all, st)) != MPI_SUCCESS) fail(k, "waitall", rc);
		CHECK(all[0] == MPI_REQUEST_NULL && all[1] == MPI_REQUEST_NULL && all[2] == MPI_REQUEST_NULL);
		ring_check(&g, &st[0]);
	} else {
		ring_check(&g, NULL);
	}
	check(k, seed);
}

/* ---- part 2: collectives of three communicators in flight at once ---- */
static kase P[3];

static void part2(MPI_Comm *comms, long *count)
{
	long before = ncases;
	for (int c = 0; c < NCOLL; c++) {
		if (c == C_RLOCAL) continue;
		for (int form = F_I; form <= F_PC; form++)
			for (int ip = 0; ip < 2; ip++) {
				int colls[3];
				for (int x = 0; x < 3; x++) {
					/* A different collective on each communicator. */
					int cc = (c + 5 * x) % NCOLL;
					if (cc == C_RLOCAL) cc = C_ALLREDUCE;
					colls[x] = cc;
					int sz;
					MPI_Comm_size(comms[x], &sz);
					variant v = isred(cc) ? reds[(c + x) % 6] : moves[(c + x) % 3];
					init_case(&P[x], comms[x], cc, form, sz - 1, ip && hasinplace(cc), v.t, v.op);
				}
				int seed = ++seq, rc;
				ring g;
				ring_post(&g, comms[2], seed);
				MPI_Request q[3];
				for (int x = 0; x < 3; x++) {
					fill(&P[x], seed + x);
					if ((rc = start(&P[x])) != MPI_SUCCESS) fail(&P[x], "start", rc);
				}
				int rounds = form >= F_P ? 2 : 1;
				for (int round = 0; round < rounds; round++) {
					if (form >= F_P) {
						for (int x = 0; x < 3; x++) fill(&P[x], seed + 10 * round + x);
						for (int x = 0; x < 3; x++) q[x] = P[x].req;
						if ((rc = MPI_Startall(3, q)) != MPI_SUCCESS) fail(&P[0], "startall", rc);
					}
					/* Complete in reverse order of starting. */
					for (int x = 2; x >= 0; x--)
						if ((rc = MPI_Wait(&P[x].req, MPI_STATUS_IGNORE)) != MPI_SUCCESS) fail(&P[x], "wait", rc);
					for (int x = 0; x < 3; x++) check(&P[x], seed + (form >= F_P ? 10 * round : 0) + x);
				}
				if (form >= F_P)
					for (int x = 0; x < 3; x++) CHECK_RC(MPI_Request_free(&P[x].req));
				ring_check(&g, NULL);
				(void)colls;
			}
	}
	*count = ncases - before;
}

static void mktypes(void)
{
	tv[T_INT] = (tvar){"int", MPI_INT, 1, 1, {0}};
	tv[T_2INT] = (tvar){"2int", MPI_2INT, 2, 2, {0, 1}};
	/* ints 0 and 3 of every 5 */
	MPI_Datatype v0, v;
	CHECK_RC(MPI_Type_vector(2, 1, 3, MPI_INT, &v0));
	CHECK_RC(MPI_Type_create_resized(v0, 0, 5 * sizeof(int), &v));
	CHECK_RC(MPI_Type_commit(&v));
	CHECK_RC(MPI_Type_free(&v0));
	tv[T_VEC] = (tvar){"vector", v, 2, 5, {0, 3}};
	/* ints 1, 2 and 4 of every 4 starting at int 1: lower bound 4 bytes */
	MPI_Datatype s;
	int bl[2] = {2, 1};
	MPI_Aint dis[2] = {4, 16};
	MPI_Datatype ty[2] = {MPI_INT, MPI_INT};
	CHECK_RC(MPI_Type_create_struct(2, bl, dis, ty, &s));
	CHECK_RC(MPI_Type_commit(&s));
	MPI_Aint lb, ext;
	CHECK_RC(MPI_Type_get_extent(s, &lb, &ext));
	CHECK(lb == 4 && ext == 16);
	tv[T_STRUCT] = (tvar){"struct", s, 3, 4, {1, 2, 4}};
}

int main(int argc, char **argv)
{
	int wrank, wsize;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
	MPI_Comm_size(MPI_COMM_WORLD, &wsize);
	CHECK(wsize <= MAXN);
	mktypes();
	CHECK_RC(MPI_Op_create(matfn, 0, &matop));
	/* Room for the large pass (ext of at most 5 ints). */
	int cap = (wsize * (3 * BIG + 1) + 2) * 5 + 8;
	kase *all[4] = {&K, &P[0], &P[1], &P[2]};
	for (int i = 0; i < 4; i++) {
		int **b[4] = {&all[i]->sb, &all[i]->rb, &all[i]->xs, &all[i]->xr};
		for (int j = 0; j < 4; j++) CHECK((*b[j] = malloc((i == 0 ? cap : nbuf) * sizeof(int))) != NULL);
	}

	MPI_Comm dup, split;
	CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
	/* Two halves, each in reverse world order. */
	CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wsize - wrank, &split));

	/* Part 1: the whole matrix on MPI_COMM_WORLD, and once more on the
	 * split communicator (other sizes, ranks not in world order). */
	long per[NCOLL] = {0}, part[2];
	MPI_Comm p1[2] = {MPI_COMM_WORLD, split};
	for (int ci = 0; ci < 2; ci++) {
		long start = ncases;
		int sz;
		MPI_Comm_size(p1[ci], &sz);
		for (int c = 0; c < NCOLL; c++) {
			long before = ncases;
			int nv = isred(c) ? (int)(sizeof reds / sizeof reds[0]) : c == C_BARRIER ? 1 : 3;
			for (int form = 0; form < nforms(c); form++)
				for (int root = 0; root < (isrooted(c) ? sz : 1); root++)
					for (int ip = 0; ip < (hasinplace(c) ? 2 : 1); ip++)
						for (int vi = 0; vi < nv; vi++) {
							variant v = isred(c) ? reds[vi] : moves[vi];
							if (ci == 1 && !onsplit(c, form, v)) continue;
							run1(p1[ci], c, form, root, ip, v);
						}
			if (ci == 0) per[c] = ncases - before;
		}
		part[ci] = ncases - start;
	}
	/* The halves ran different numbers of cases: agree on the seeds again. */
	int s0 = seq;
	CHECK_RC(MPI_Allreduce(&s0, &seq, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
	long p2 = 0;
	MPI_Comm comms[3] = {MPI_COMM_WORLD, dup, split};
	part2(comms, &p2);

	/* Part 3: counts BIG times larger, through the engine's large-message
	 * paths: one blocking, nonblocking and persistent form each, the
	 * first and last root, two datatypes and three (type, op) pairs. */
	scale = BIG, nbuf = cap;
	long large = ncases;
	for (int c = 0; c < NCOLL; c++) {
		static const variant lmoves[] = {{T_INT, O_NONE}, {T_VEC, O_NONE}};
		static const variant lreds[] = {{T_INT, O_SUM}, {T_VEC, O_MAT}, {T_2INT, O_MAXLOC}};
		int nv = isred(c) ? 3 : c == C_BARRIER ? 1 : 2;
		static const int lforms[] = {F_B, F_I, F_PC};
		for (int fi = 0; fi < 3; fi++) {
			if (lforms[fi] >= nforms(c)) continue;
			for (int ri = 0; ri < (isrooted(c) && wsize > 1 ? 2 : 1); ri++)
				for (int ip = 0; ip < (hasinplace(c) ? 2 : 1); ip++)
					for (int vi = 0; vi < nv; vi++) {
						/* The user op on large data is slow (it runs
						 * in rank order): not a third time. */
						if (lforms[fi] == F_PC && isred(c) && lreds[vi].op == O_MAT) continue;
						run1(MPI_COMM_WORLD, c, lforms[fi], ri ? wsize - 1 : 0, ip, isred(c) ? lreds[vi] : lmoves[vi]);
					}
		}
	}
	large = ncases - large;

	/* Every rank ran the same number of cases on MPI_COMM_WORLD and
	 * across communicators. */
	long mine[3] = {part[0], p2, large}, lo[3], hi[3];
	CHECK_RC(MPI_Allreduce(mine, lo, 3, MPI_LONG, MPI_MIN, MPI_COMM_WORLD));
	CHECK_RC(MPI_Allreduce(mine, hi, 3, MPI_LONG, MPI_MAX, MPI_COMM_WORLD));
	CHECK(lo[0] == hi[0] && lo[1] == hi[1] && lo[2] == hi[2]);
	if (wrank == 0) {
		for (int c = 0; c < NCOLL; c++) printf("coll %s %ld\n", cname[c], per[c]);
		printf("world %ld\nsplit %ld\ncrosscomm %ld\nlarge %ld\n", part[0], part[1], p2, large);
		fflush(stdout);
	}
	CHECK_RC(MPI_Comm_free(&dup));
	CHECK_RC(MPI_Comm_free(&split));
	CHECK_RC(MPI_Op_free(&matop));
	CHECK_RC(MPI_Type_free(&tv[T_VEC].dt));
	CHECK_RC(MPI_Type_free(&tv[T_STRUCT].dt));
	for (int i = 0; i < 4; i++) free(all[i]->sb), free(all[i]->rb), free(all[i]->xs), free(all[i]->xr);
	report_ok();
	MPI_Finalize();
	return 0;
}
