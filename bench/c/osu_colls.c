/*
 * osu_colls: every MPI collective in one OSU-style run, so that one launch
 * per library and job size covers the whole table of `make compare-coll`
 * (bench/compare_coll.sh). The Go twin is bench/osu_colls; both print the
 * same lines, read by bench/cmd/colltable.
 *
 * Usage: mpirun -np N osu_colls [-c LIST] [-forms LIST] [-m SIZES] [-i ITERS] [-x WARMUP]
 *                               [-t TESTS]
 *   -c      collectives, comma-separated, or "all" (default): barrier bcast
 *           gather gatherv scatter scatterv allgather allgatherv alltoall
 *           alltoallv alltoallw reduce allreduce reduce_scatter
 *           reduce_scatter_block scan exscan reduce_local
 *           neighbor_allgather neighbor_allgatherv neighbor_alltoall
 *           neighbor_alltoallv neighbor_alltoallw
 *   -forms  of b (blocking), nb (MPI_I* waited at once), p (persistent:
 *           MPI_*_init once, then MPI_Start + MPI_Wait), ov (OSU's overlap
 *           measurement; only iallreduce, ibcast, ialltoall); default b,nb,p,ov
 *   -m      message sizes in bytes, comma-separated (default 8,1024,65536,1048576,4194304)
 *   -i      timed iterations up to 16 KiB (default 200); above, ITERS*16384/size,
 *           at least 5; warm-up a tenth of that, at least 1 (or -x)
 *   -t      MPI_Test calls spread over each compute phase of ov, a comma list
 *           (default 0: progress only from the library itself)
 *
 * The size is the bytes each rank contributes per peer: a Bcast or Reduce
 * buffer, one rank's block of a Gather, Allgather or Alltoall (as in OSU),
 * the whole send buffer of a reduction (and of Reduce_local, which has
 * only the blocking form and no communicator), one block per neighbour of
 * the neighbourhood collectives, which run on a periodic ring
 * (MPI_Cart_create of all ranks in one dimension: two neighbours each).
 * Alltoallw and Neighbor_alltoallw count MPI_CHARs. Reduce_scatter_block and
 * Reduce_scatter give each rank size/N bytes (at least one float), the
 * v-variants put the remainder on the last rank. Reductions sum MPI_FLOATs
 * (as OSU's do), roots are rank 0.
 *
 * Before the timed loop of each collective, form and size, one call runs on
 * patterned data and every rank checks its result against the value the
 * standard defines; the row says ok or WRONG (and the first bad byte goes
 * to stderr). Timing follows OSU: each call timed on its own with a barrier
 * after it (but for barrier itself); the row is the mean over ranks of each
 * rank's average, with the smallest and largest rank average. Per-rank
 * figures reach rank 0 by MPI_Send/MPI_Recv, so a run leans on no
 * collective but MPI_Barrier between calls.
 *
 * Output (rank 0), one line per measurement:
 *   row COLL FORM SIZE AVG_US MIN_US MAX_US ITERS CHECK
 *   ovl COLL SIZE TESTS OVERALL_US COMPUTE_US PURE_US OVERLAP_PCT ITERS CHECK
 *   skip COLL FORM REASON...
 *   csw COLL FORM SIZE VOLUNTARY INVOLUNTARY  (only with OSU_COLLS_CSW=1 in
 *       the environment: context switches of all ranks' processes, every
 *       thread, per call of the timed loop and its warm-up, the barrier
 *       after each call included; from getrusage)
 * with '#' lines for the header. Overlap is OSU's
 * max(0, 100 - 100*(overall - compute)/pure).
 *
 * Standard MPI C; the persistent forms need MPI 4.0 or Open MPI's MPIX_
 * pcollreq extension, and are skipped without either.
 */
#define _POSIX_C_SOURCE 200809L

#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

#include <errno.h>
#include <sys/resource.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if MPI_VERSION >= 4
#define HAVE_PERSISTENT 1
#define PINIT(name) MPI_##name##_init
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ)
#define HAVE_PERSISTENT 1
#define PINIT(name) MPIX_##name##_init
#else
#define HAVE_PERSISTENT 0
#endif

enum {
	MAX_SIZES = 32,
	MAX_TESTS = 8,
	TAG_STATS = 7002,
	LARGE = 16384,
	MIN_LARGE_ITERS = 5,
};

enum coll {
	C_BARRIER, C_BCAST, C_GATHER, C_GATHERV, C_SCATTER, C_SCATTERV, C_ALLGATHER,
	C_ALLGATHERV, C_ALLTOALL, C_ALLTOALLV, C_ALLTOALLW, C_REDUCE, C_ALLREDUCE, C_REDUCE_SCATTER,
	C_REDUCE_SCATTER_BLOCK, C_SCAN, C_EXSCAN, C_REDUCE_LOCAL, C_NBR_ALLGATHER, C_NBR_ALLGATHERV,
	C_NBR_ALLTOALL, C_NBR_ALLTOALLV, C_NBR_ALLTOALLW, NCOLL
};

static const char *coll_names[NCOLL] = {
	"barrier", "bcast", "gather", "gatherv", "scatter", "scatterv", "allgather",
	"allgatherv", "alltoall", "alltoallv", "alltoallw", "reduce", "allreduce", "reduce_scatter",
	"reduce_scatter_block", "scan", "exscan", "reduce_local", "neighbor_allgather", "neighbor_allgatherv",
	"neighbor_alltoall", "neighbor_alltoallv", "neighbor_alltoallw",
};

enum form { F_B, F_NB, F_P, F_OV, NFORM };
static const char *form_names[NFORM] = {"b", "nb", "p", "ov"};

struct options {
	int colls[NCOLL];
	int forms[NFORM];
	long sizes[MAX_SIZES];
	int nsizes;
	int iters, skip; /* skip -1: a tenth of the iterations */
	int tests[MAX_TESTS];
	int ntests;
};

static int rank, nranks;
/* The neighbourhood collectives' communicator, a periodic ring, and each
 * rank's two neighbours on it (below, above), as MPI_Cart_shift has them. */
static MPI_Comm ring;
static int nbr[2];

#define CHECK(call)                                                                   \
	do {                                                                          \
		int rc_ = (call);                                                     \
		if (rc_ != MPI_SUCCESS) {                                             \
			fprintf(stderr, "osu_colls: rank %d: %s failed (%d) at %s:%d\n", \
			        rank, #call, rc_, __FILE__, __LINE__);                \
			MPI_Abort(MPI_COMM_WORLD, 1);                                 \
		}                                                                     \
	} while (0)

static int is_reduction(enum coll c) { return c >= C_REDUCE && c <= C_REDUCE_LOCAL; }

/* has_overlap says whether OSU has an overlap benchmark of c we reproduce. */
static int has_overlap(enum coll c) { return c == C_ALLREDUCE || c == C_BCAST || c == C_ALLTOALL; }

static int parse_long(const char *s, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < 0)
		return -1;
	*out = v;
	return 0;
}

/* each_item calls f on every item of the comma-separated list s; it fails
 * on an empty item or when f fails. */
static int each_item(const char *s, int (*f)(const char *, void *), void *arg)
{
	char buf[512];
	if (strlen(s) >= sizeof buf)
		return -1;
	strcpy(buf, s);
	char *save = NULL;
	int n = 0;
	for (char *tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		if (f(tok, arg) != 0)
			return -1;
		n++;
	}
	return n > 0 ? 0 : -1;
}

static int add_coll(const char *s, void *arg)
{
	struct options *o = arg;
	if (strcmp(s, "all") == 0) {
		for (int i = 0; i < NCOLL; i++)
			o->colls[i] = 1;
		return 0;
	}
	for (int i = 0; i < NCOLL; i++) {
		if (strcmp(s, coll_names[i]) == 0) {
			o->colls[i] = 1;
			return 0;
		}
	}
	return -1;
}

static int add_form(const char *s, void *arg)
{
	struct options *o = arg;
	for (int i = 0; i < NFORM; i++) {
		if (strcmp(s, form_names[i]) == 0) {
			o->forms[i] = 1;
			return 0;
		}
	}
	return -1;
}

static int add_size(const char *s, void *arg)
{
	struct options *o = arg;
	long v;
	if (o->nsizes >= MAX_SIZES || parse_long(s, &v) != 0 || v < 1 || v > (1L << 26))
		return -1;
	o->sizes[o->nsizes++] = v;
	return 0;
}

static int add_test(const char *s, void *arg)
{
	struct options *o = arg;
	long v;
	if (o->ntests >= MAX_TESTS || parse_long(s, &v) != 0 || v > 1000000)
		return -1;
	o->tests[o->ntests++] = (int)v;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: osu_colls [-c all|COLL,...] [-forms b,nb,p,ov] [-m SIZE,...] [-i ITERS] [-x WARMUP] [-t TESTS,...]\n"
	           "  collectives:");
	for (int i = 0; i < NCOLL; i++)
		fprintf(f, " %s", coll_names[i]);
	fprintf(f, "\n");
}

/* parse_args returns 0 on success, 1 for -h, -1 for a usage error. */
static int parse_args(int argc, char **argv, struct options *o)
{
	memset(o, 0, sizeof *o);
	o->iters = 200;
	o->skip = -1;
	const char *colls = "all", *forms = "b,nb,p,ov", *sizes = "8,1024,65536,1048576,4194304", *tests = "0";
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		long v;
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
			return 1;
		if (i + 1 >= argc)
			return -1;
		const char *val = argv[++i];
		if (strcmp(a, "-c") == 0)
			colls = val;
		else if (strcmp(a, "-forms") == 0)
			forms = val;
		else if (strcmp(a, "-m") == 0)
			sizes = val;
		else if (strcmp(a, "-t") == 0)
			tests = val;
		else if (strcmp(a, "-i") == 0) {
			if (parse_long(val, &v) != 0 || v < 1 || v > INT32_MAX)
				return -1;
			o->iters = (int)v;
		} else if (strcmp(a, "-x") == 0) {
			if (parse_long(val, &v) != 0 || v > INT32_MAX)
				return -1;
			o->skip = (int)v;
		} else
			return -1;
	}
	if (each_item(colls, add_coll, o) || each_item(forms, add_form, o) ||
	    each_item(sizes, add_size, o) || each_item(tests, add_test, o))
		return -1;
	return 0;
}

static void schedule(const struct options *o, long size, int *iters, int *skip)
{
	long it = o->iters;
	if (size > LARGE) {
		it = it * LARGE / size;
		if (it < MIN_LARGE_ITERS)
			it = MIN_LARGE_ITERS;
		if (it > o->iters)
			it = o->iters;
	}
	*iters = (int)it;
	*skip = o->skip >= 0 ? o->skip : (it / 10 > 0 ? (int)(it / 10) : 1);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (p == NULL) {
		fprintf(stderr, "osu_colls: out of memory (%zu bytes)\n", n);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	memset(p, 0, n ? n : 1); /* first-touch faults here, not in a timed loop */
	return p;
}

/* One collective call's arguments, sized for one message size. */
struct call {
	enum coll coll;
	long size;  /* bytes, the option */
	int count;  /* bytes of a block, or floats of a reduction */
	int block;  /* reduce_scatter: floats per rank (last rank: +rem) */
	int rem;
	char *send, *recv;
	int *counts, *displs; /* per rank, in the call's unit */
	int *wdispls;         /* Alltoallw's: bytes */
	MPI_Datatype *types;  /* Alltoallw's: MPI_CHAR per rank */
	int ncounts[2], ndispls[2];       /* per neighbour */
	MPI_Aint nwdispls[2];             /* Neighbor_alltoallw's */
	MPI_Datatype ntypes[2];
};

/* blocks returns the byte size of the buffers: the largest need of any
 * collective at size. */
static void shape(struct call *c, long size)
{
	c->size = size;
	if (is_reduction(c->coll)) {
		c->count = (int)(size / (long)sizeof(float));
		if (c->count < 1)
			c->count = 1;
		c->block = c->count / nranks;
		if (c->block < 1)
			c->block = 1;
		c->rem = 0;
		if (c->coll == C_REDUCE_SCATTER && c->count > c->block * nranks)
			c->rem = c->count - c->block * nranks;
	} else {
		c->count = (int)size;
	}
	for (int k = 0; k < 2; k++) {
		c->ncounts[k] = c->count, c->ndispls[k] = k * c->count;
		c->nwdispls[k] = (MPI_Aint)k * c->count, c->ntypes[k] = MPI_CHAR;
	}
	for (int i = 0; i < nranks; i++) {
		c->wdispls[i] = i * c->count, c->types[i] = MPI_CHAR;
		if (c->coll == C_REDUCE_SCATTER) {
			c->counts[i] = c->block + (i == nranks - 1 ? c->rem : 0);
			c->displs[i] = i * c->block;
		} else {
			c->counts[i] = c->count;
			c->displs[i] = i * c->count;
		}
	}
}

/* floats of the send buffer of a reduction. */
static int red_len(const struct call *c)
{
	switch (c->coll) {
	case C_REDUCE_SCATTER_BLOCK:
		return c->block * nranks;
	case C_REDUCE_SCATTER:
		return c->block * nranks + c->rem;
	default:
		return c->count;
	}
}

static unsigned char pat(int from, int to, long j) { return (unsigned char)(from * 31 + to * 7 + j * 13 + 1); }
static float fpat(int r, long i) { return (float)(r + 1 + (int)(i % 5)); }

/* fill writes the send pattern of rank and clears the receive side. */
static void fill(struct call *c)
{
	long n = c->count;
	memset(c->recv, 0, (size_t)c->size * nranks + 64);
	switch (c->coll) {
	case C_BARRIER:
		break;
	case C_BCAST:
		for (long j = 0; j < n; j++)
			c->send[j] = rank == 0 ? (char)pat(0, 0, j) : 0;
		break;
	case C_GATHER:
	case C_GATHERV:
	case C_ALLGATHER:
	case C_ALLGATHERV:
	case C_NBR_ALLGATHER:
	case C_NBR_ALLGATHERV:
		for (long j = 0; j < n; j++)
			c->send[j] = (char)pat(rank, 0, j);
		break;
	case C_NBR_ALLTOALL:
	case C_NBR_ALLTOALLV:
	case C_NBR_ALLTOALLW:
		/* The pattern names the destination rank, not the block: on a
		 * ring of two both blocks go to one rank, and any pairing of
		 * them is then read alike. */
		for (int k = 0; k < 2; k++)
			for (long j = 0; j < n; j++)
				c->send[k * n + j] = (char)pat(rank, nbr[k], j);
		break;
	case C_SCATTER:
	case C_SCATTERV:
	case C_ALLTOALL:
	case C_ALLTOALLV:
	case C_ALLTOALLW:
		for (int d = 0; d < nranks; d++)
			for (long j = 0; j < n; j++)
				c->send[d * n + j] = (char)pat(rank, d, j);
		break;
	default: {
		float *f = (float *)(void *)c->send;
		for (long i = 0; i < red_len(c); i++)
			f[i] = fpat(rank, i);
	}
	}
}

/* sum_upto is the sum over ranks lo..hi-1 of fpat(r, i). */
static float sum_upto(int lo, int hi, long i)
{
	float s = 0;
	for (int r = lo; r < hi; r++)
		s += fpat(r, i);
	return s;
}

/* verify returns 0 if this rank's result is what the standard defines,
 * else 1 after saying where it differs. */
static int verify(const struct call *c, const char *form)
{
	long n = c->count;
	const unsigned char *rb = (const unsigned char *)c->recv;
	const float *rf = (const float *)(const void *)c->recv;
	long bad = -1;
	double got = 0, want = 0;
	switch (c->coll) {
	case C_BARRIER:
		return 0;
	case C_BCAST:
		for (long j = 0; j < n && bad < 0; j++)
			if ((unsigned char)c->send[j] != pat(0, 0, j))
				bad = j, got = (unsigned char)c->send[j], want = pat(0, 0, j);
		break;
	case C_GATHER:
	case C_GATHERV:
		if (rank != 0)
			return 0;
		/* fall through */
	case C_ALLGATHER:
	case C_ALLGATHERV:
		for (int s = 0; s < nranks && bad < 0; s++)
			for (long j = 0; j < n && bad < 0; j++)
				if (rb[s * n + j] != pat(s, 0, j))
					bad = s * n + j, got = rb[s * n + j], want = pat(s, 0, j);
		break;
	case C_SCATTER:
	case C_SCATTERV:
		for (long j = 0; j < n && bad < 0; j++)
			if (rb[j] != pat(0, rank, j))
				bad = j, got = rb[j], want = pat(0, rank, j);
		break;
	case C_NBR_ALLGATHER:
	case C_NBR_ALLGATHERV:
	case C_NBR_ALLTOALL:
	case C_NBR_ALLTOALLV:
	case C_NBR_ALLTOALLW: {
		int all = c->coll == C_NBR_ALLGATHER || c->coll == C_NBR_ALLGATHERV;
		for (int k = 0; k < 2 && bad < 0; k++)
			for (long j = 0; j < n && bad < 0; j++) {
				unsigned char w = pat(nbr[k], all ? 0 : rank, j);
				if (rb[k * n + j] != w)
					bad = k * n + j, got = rb[k * n + j], want = w;
			}
		break;
	}
	case C_REDUCE_LOCAL: /* recv was zero: it is now send */
		for (long i = 0; i < n && bad < 0; i++)
			if (rf[i] != fpat(rank, i))
				bad = i, got = rf[i], want = fpat(rank, i);
		break;
	case C_ALLTOALL:
	case C_ALLTOALLV:
	case C_ALLTOALLW:
		for (int s = 0; s < nranks && bad < 0; s++)
			for (long j = 0; j < n && bad < 0; j++)
				if (rb[s * n + j] != pat(s, rank, j))
					bad = s * n + j, got = rb[s * n + j], want = pat(s, rank, j);
		break;
	case C_REDUCE:
		if (rank != 0)
			return 0;
		/* fall through */
	case C_ALLREDUCE:
		for (long i = 0; i < n && bad < 0; i++)
			if (rf[i] != sum_upto(0, nranks, i))
				bad = i, got = rf[i], want = sum_upto(0, nranks, i);
		break;
	case C_REDUCE_SCATTER_BLOCK:
	case C_REDUCE_SCATTER: {
		long off = (long)rank * c->block;
		long len = c->block + (c->coll == C_REDUCE_SCATTER && rank == nranks - 1 ? c->rem : 0);
		for (long i = 0; i < len && bad < 0; i++)
			if (rf[i] != sum_upto(0, nranks, off + i))
				bad = i, got = rf[i], want = sum_upto(0, nranks, off + i);
		break;
	}
	case C_SCAN:
		for (long i = 0; i < n && bad < 0; i++)
			if (rf[i] != sum_upto(0, rank + 1, i))
				bad = i, got = rf[i], want = sum_upto(0, rank + 1, i);
		break;
	case C_EXSCAN:
		if (rank == 0) /* undefined there */
			return 0;
		for (long i = 0; i < n && bad < 0; i++)
			if (rf[i] != sum_upto(0, rank, i))
				bad = i, got = rf[i], want = sum_upto(0, rank, i);
		break;
	default:
		return 0;
	}
	if (bad < 0)
		return 0;
	fprintf(stderr, "osu_colls: WRONG %s %s size %ld on rank %d of %d: element %ld is %g, want %g\n",
	        coll_names[c->coll], form, c->size, rank, nranks, bad, got, want);
	return 1;
}

/* blocking runs c once as the blocking call. */
static int blocking(struct call *c)
{
	MPI_Comm w = MPI_COMM_WORLD;
	switch (c->coll) {
	case C_BARRIER:
		return MPI_Barrier(w);
	case C_BCAST:
		return MPI_Bcast(c->send, c->count, MPI_CHAR, 0, w);
	case C_GATHER:
		return MPI_Gather(c->send, c->count, MPI_CHAR, c->recv, c->count, MPI_CHAR, 0, w);
	case C_GATHERV:
		return MPI_Gatherv(c->send, c->count, MPI_CHAR, c->recv, c->counts, c->displs, MPI_CHAR, 0, w);
	case C_SCATTER:
		return MPI_Scatter(c->send, c->count, MPI_CHAR, c->recv, c->count, MPI_CHAR, 0, w);
	case C_SCATTERV:
		return MPI_Scatterv(c->send, c->counts, c->displs, MPI_CHAR, c->recv, c->count, MPI_CHAR, 0, w);
	case C_ALLGATHER:
		return MPI_Allgather(c->send, c->count, MPI_CHAR, c->recv, c->count, MPI_CHAR, w);
	case C_ALLGATHERV:
		return MPI_Allgatherv(c->send, c->count, MPI_CHAR, c->recv, c->counts, c->displs, MPI_CHAR, w);
	case C_ALLTOALL:
		return MPI_Alltoall(c->send, c->count, MPI_CHAR, c->recv, c->count, MPI_CHAR, w);
	case C_ALLTOALLV:
		return MPI_Alltoallv(c->send, c->counts, c->displs, MPI_CHAR, c->recv, c->counts, c->displs, MPI_CHAR, w);
	case C_ALLTOALLW:
		return MPI_Alltoallw(c->send, c->counts, c->wdispls, c->types, c->recv, c->counts, c->wdispls, c->types, w);
	case C_REDUCE_LOCAL:
		return MPI_Reduce_local(c->send, c->recv, c->count, MPI_FLOAT, MPI_SUM);
	case C_NBR_ALLGATHER:
		return MPI_Neighbor_allgather(c->send, c->count, MPI_CHAR, c->recv, c->count, MPI_CHAR, ring);
	case C_NBR_ALLGATHERV:
		return MPI_Neighbor_allgatherv(c->send, c->count, MPI_CHAR, c->recv, c->ncounts, c->ndispls, MPI_CHAR, ring);
	case C_NBR_ALLTOALL:
		return MPI_Neighbor_alltoall(c->send, c->count, MPI_CHAR, c->recv, c->count, MPI_CHAR, ring);
	case C_NBR_ALLTOALLV:
		return MPI_Neighbor_alltoallv(c->send, c->ncounts, c->ndispls, MPI_CHAR, c->recv, c->ncounts, c->ndispls,
		                              MPI_CHAR, ring);
	case C_NBR_ALLTOALLW:
		return MPI_Neighbor_alltoallw(c->send, c->ncounts, c->nwdispls, c->ntypes, c->recv, c->ncounts, c->nwdispls,
		                              c->ntypes, ring);
	case C_REDUCE:
		return MPI_Reduce(c->send, c->recv, c->count, MPI_FLOAT, MPI_SUM, 0, w);
	case C_ALLREDUCE:
		return MPI_Allreduce(c->send, c->recv, c->count, MPI_FLOAT, MPI_SUM, w);
	case C_REDUCE_SCATTER:
		return MPI_Reduce_scatter(c->send, c->recv, c->counts, MPI_FLOAT, MPI_SUM, w);
	case C_REDUCE_SCATTER_BLOCK:
		return MPI_Reduce_scatter_block(c->send, c->recv, c->block, MPI_FLOAT, MPI_SUM, w);
	case C_SCAN:
		return MPI_Scan(c->send, c->recv, c->count, MPI_FLOAT, MPI_SUM, w);
	case C_EXSCAN:
		return MPI_Exscan(c->send, c->recv, c->count, MPI_FLOAT, MPI_SUM, w);
	default:
		return MPI_ERR_ARG;
	}
}

/* start_nb starts c as its nonblocking call. */
static int start_nb(struct call *c, MPI_Request *r)
{
	MPI_Comm w = MPI_COMM_WORLD;
	switch (c->coll) {
	case C_BARRIER:
		return MPI_Ibarrier(w, r);
	case C_BCAST:
		return MPI_Ibcast(c->send, c->count, MPI_CHAR, 0, w, r);
	case C_GATHER:
		return MPI_Igather(c->send, c->count, MPI_CHAR, c->recv, c->count, MPI_CHAR, 0, w, r);
	case C_GATHERV:
		return MPI_Igatherv(c->send, c->count, MPI_CHAR, c->recv, c->counts, c->displs, MPI_CHAR, 0, w, r);
	case C_SCATTER:
		return MPI_Iscatter(c->send, c->count, MPI_CHAR, c->recv, c->count, MPI_CHAR, 0, w, r);
	case C_SCATTERV:
		return MPI_Iscatterv(c->send, c->counts, c->displs, MPI_CHAR, c->recv, c->count, MPI_CHAR, 0, w, r);
	case C_ALLGATHER:
		return MPI_Iallgather(c->send, c->count, MPI_CHAR, c->recv, c->count, MPI_CHAR, w, r);
	case C_ALLGATHERV:
		return MPI_Iallgatherv(c->send, c->count, MPI_CHAR, c->recv, c->counts, c->displs, MPI_CHAR, w, r);
	case C_ALLTOALL:
		return MPI_Ialltoall(c->send, c->count, MPI_CHAR, c->recv, c->count, MPI_CHAR, w, r);
	case C_ALLTOALLV:
		return MPI_Ialltoallv(c->send, c->counts, c->displs, MPI_CHAR, c->recv, c->counts, c->displs, MPI_CHAR, w, r);
	case C_ALLTOALLW:
		return MPI_Ialltoallw(c->send, c->counts, c->wdispls, c->types, c->recv, c->counts, c->wdispls, c->types, w, r);
	case C_NBR_ALLGATHER:
		return MPI_Ineighbor_allgather(c->send, c->count, MPI_CHAR, c->recv, c->count, MPI_CHAR, ring, r);
	case C_NBR_ALLGATHERV:
		return MPI_Ineighbor_allgatherv(c->send, c->count, MPI_CHAR, c->recv, c->ncounts, c->ndispls, MPI_CHAR, ring, r);
	case C_NBR_ALLTOALL:
		return MPI_Ineighbor_alltoall(c->send, c->count, MPI_CHAR, c->recv, c->count, MPI_CHAR, ring, r);
	case C_NBR_ALLTOALLV:
		return MPI_Ineighbor_alltoallv(c->send, c->ncounts, c->ndispls, MPI_CHAR, c->recv, c->ncounts, c->ndispls,
		                               MPI_CHAR, ring, r);
	case C_NBR_ALLTOALLW:
		return MPI_Ineighbor_alltoallw(c->send, c->ncounts, c->nwdispls, c->ntypes, c->recv, c->ncounts, c->nwdispls,
		                               c->ntypes, ring, r);
	case C_REDUCE:
		return MPI_Ireduce(c->send, c->recv, c->count, MPI_FLOAT, MPI_SUM, 0, w, r);
	case C_ALLREDUCE:
		return MPI_Iallreduce(c->send, c->recv, c->count, MPI_FLOAT, MPI_SUM, w, r);
	case C_REDUCE_SCATTER:
		return MPI_Ireduce_scatter(c->send, c->recv, c->counts, MPI_FLOAT, MPI_SUM, w, r);
	case C_REDUCE_SCATTER_BLOCK:
		return MPI_Ireduce_scatter_block(c->send, c->recv, c->block, MPI_FLOAT, MPI_SUM, w, r);
	case C_SCAN:
		return MPI_Iscan(c->send, c->recv, c->count, MPI_FLOAT, MPI_SUM, w, r);
	case C_EXSCAN:
		return MPI_Iexscan(c->send, c->recv, c->count, MPI_FLOAT, MPI_SUM, w, r);
	default:
		return MPI_ERR_ARG;
	}
}

/* init_p binds c to a persistent request. */
static int init_p(struct call *c, MPI_Request *r)
{
#if HAVE_PERSISTENT
	MPI_Comm w = MPI_COMM_WORLD;
	MPI_Info i = MPI_INFO_NULL;
	switch (c->coll) {
	case C_BARRIER:
		return PINIT(Barrier)(w, i, r);
	case C_BCAST:
		return PINIT(Bcast)(c->send, c->count, MPI_CHAR, 0, w, i, r);
	case C_GATHER:
		return PINIT(Gather)(c->send, c->count, MPI_CHAR, c->recv, c->count, MPI_CHAR, 0, w, i, r);
	case C_GATHERV:
		return PINIT(Gatherv)(c->send, c->count, MPI_CHAR, c->recv, c->counts, c->displs, MPI_CHAR, 0, w, i, r);
	case C_SCATTER:
		return PINIT(Scatter)(c->send, c->count, MPI_CHAR, c->recv, c->count, MPI_CHAR, 0, w, i, r);
	case C_SCATTERV:
		return PINIT(Scatterv)(c->send, c->counts, c->displs, MPI_CHAR, c->recv, c->count, MPI_CHAR, 0, w, i, r);
	case C_ALLGATHER:
		return PINIT(Allgather)(c->send, c->count, MPI_CHAR, c->recv, c->count, MPI_CHAR, w, i, r);
	case C_ALLGATHERV:
		return PINIT(Allgatherv)(c->send, c->count, MPI_CHAR, c->recv, c->counts, c->displs, MPI_CHAR, w, i, r);
	case C_ALLTOALL:
		return PINIT(Alltoall)(c->send, c->count, MPI_CHAR, c->recv, c->count, MPI_CHAR, w, i, r);
	case C_ALLTOALLV:
		return PINIT(Alltoallv)(c->send, c->counts, c->displs, MPI_CHAR, c->recv, c->counts, c->displs, MPI_CHAR, w, i, r);
	case C_ALLTOALLW:
		return PINIT(Alltoallw)(c->send, c->counts, c->wdispls, c->types, c->recv, c->counts, c->wdispls, c->types, w,
		                        i, r);
	case C_NBR_ALLGATHER:
		return PINIT(Neighbor_allgather)(c->send, c->count, MPI_CHAR, c->recv, c->count, MPI_CHAR, ring, i, r);
	case C_NBR_ALLGATHERV:
		return PINIT(Neighbor_allgatherv)(c->send, c->count, MPI_CHAR, c->recv, c->ncounts, c->ndispls, MPI_CHAR,
		                                  ring, i, r);
	case C_NBR_ALLTOALL:
		return PINIT(Neighbor_alltoall)(c->send, c->count, MPI_CHAR, c->recv, c->count, MPI_CHAR, ring, i, r);
	case C_NBR_ALLTOALLV:
		return PINIT(Neighbor_alltoallv)(c->send, c->ncounts, c->ndispls, MPI_CHAR, c->recv, c->ncounts, c->ndispls,
		                                 MPI_CHAR, ring, i, r);
	case C_NBR_ALLTOALLW:
		return PINIT(Neighbor_alltoallw)(c->send, c->ncounts, c->nwdispls, c->ntypes, c->recv, c->ncounts,
		                                 c->nwdispls, c->ntypes, ring, i, r);
	case C_REDUCE:
		return PINIT(Reduce)(c->send, c->recv, c->count, MPI_FLOAT, MPI_SUM, 0, w, i, r);
	case C_ALLREDUCE:
		return PINIT(Allreduce)(c->send, c->recv, c->count, MPI_FLOAT, MPI_SUM, w, i, r);
	case C_REDUCE_SCATTER:
		return PINIT(Reduce_scatter)(c->send, c->recv, c->counts, MPI_FLOAT, MPI_SUM, w, i, r);
	case C_REDUCE_SCATTER_BLOCK:
		return PINIT(Reduce_scatter_block)(c->send, c->recv, c->block, MPI_FLOAT, MPI_SUM, w, i, r);
	case C_SCAN:
		return PINIT(Scan)(c->send, c->recv, c->count, MPI_FLOAT, MPI_SUM, w, i, r);
	case C_EXSCAN:
		return PINIT(Exscan)(c->send, c->recv, c->count, MPI_FLOAT, MPI_SUM, w, i, r);
	default:
		return MPI_ERR_ARG;
	}
#else
	(void)c;
	(void)r;
	return MPI_ERR_OTHER;
#endif
}

/* run_form runs c once in form f (for p, by starting *preq). */
static int run_form(struct call *c, enum form f, MPI_Request *preq)
{
	MPI_Request r;
	int rc;
	switch (f) {
	case F_B:
		return blocking(c);
	case F_NB:
		if ((rc = start_nb(c, &r)) != MPI_SUCCESS)
			return rc;
		return MPI_Wait(&r, MPI_STATUS_IGNORE);
	case F_P:
		if ((rc = MPI_Start(preq)) != MPI_SUCCESS)
			return rc;
		return MPI_Wait(preq, MPI_STATUS_IGNORE);
	default:
		return MPI_ERR_ARG;
	}
}

/* gather_stats collects n doubles from every rank on rank 0 by point to
 * point: all[r*n + i]. */
static void gather_stats(const double *mine, int n, double *all)
{
	if (rank != 0) {
		CHECK(MPI_Send(mine, n, MPI_DOUBLE, 0, TAG_STATS, MPI_COMM_WORLD));
		return;
	}
	memcpy(all, mine, sizeof *mine * (size_t)n);
	for (int s = 1; s < nranks; s++)
		CHECK(MPI_Recv(all + s * n, n, MPI_DOUBLE, s, TAG_STATS, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
}

/* agree returns, on every rank, the largest of every rank's v (by point to
 * point through rank 0, leaning on no collective). */
static int agree(int v)
{
	double d = v, all[1024];
	double *buf = nranks <= 1024 ? all : xmalloc(sizeof(double) * (size_t)nranks);
	gather_stats(&d, 1, buf);
	int m = v;
	if (rank == 0) {
		for (int s = 0; s < nranks; s++)
			m = buf[s] > m ? (int)buf[s] : m;
		for (int s = 1; s < nranks; s++)
			CHECK(MPI_Send(&m, 1, MPI_INT, s, TAG_STATS, MPI_COMM_WORLD));
	} else {
		CHECK(MPI_Recv(&m, 1, MPI_INT, 0, TAG_STATS, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	}
	if (buf != all)
		free(buf);
	return m;
}

static void summarize(const double *all, int stride, int col, double *avg, double *lo, double *hi)
{
	*avg = 0;
	*lo = *hi = all[col];
	for (int s = 0; s < nranks; s++) {
		double v = all[s * stride + col];
		*avg += v;
		*lo = v < *lo ? v : *lo;
		*hi = v > *hi ? v : *hi;
	}
	*avg /= nranks;
}

static void error_text(int rc, char *out, int cap)
{
	int len = 0;
	if (MPI_Error_string(rc, out, &len) != MPI_SUCCESS || len >= cap)
		snprintf(out, (size_t)cap, "error %d", rc);
	for (char *p = out; *p; p++)
		if (*p == '\n')
			*p = ' ';
}

/* measure checks and times c in form f (b, nb or p). */
static void measure(const struct options *o, struct call *c, enum form f)
{
	MPI_Request preq = MPI_REQUEST_NULL;
	int iters, skip;
	schedule(o, c->size, &iters, &skip);
	fill(c);
	int rc = MPI_SUCCESS;
	if (f == F_P)
		rc = init_p(c, &preq);
	if (rc == MPI_SUCCESS)
		rc = run_form(c, f, &preq);
	if (agree(rc != MPI_SUCCESS)) {
		char msg[MPI_MAX_ERROR_STRING + 16] = "failed on another rank";
		if (rc != MPI_SUCCESS)
			error_text(rc, msg, sizeof msg);
		if (rank == 0)
			printf("skip %s %s %s\n", coll_names[c->coll], form_names[f], msg);
		if (preq != MPI_REQUEST_NULL)
			MPI_Request_free(&preq);
		CHECK(MPI_Barrier(MPI_COMM_WORLD));
		return;
	}
	int wrong = verify(c, form_names[f]);
	double timer = 0;
	struct rusage ru0, ru1;
	CHECK(MPI_Barrier(MPI_COMM_WORLD));
	getrusage(RUSAGE_SELF, &ru0);
	for (int i = 0; i < iters + skip; i++) {
		double t0 = MPI_Wtime();
		CHECK(run_form(c, f, &preq));
		double t1 = MPI_Wtime();
		if (i >= skip)
			timer += t1 - t0;
		if (c->coll != C_BARRIER)
			CHECK(MPI_Barrier(MPI_COMM_WORLD));
	}
	getrusage(RUSAGE_SELF, &ru1);
	if (preq != MPI_REQUEST_NULL)
		CHECK(MPI_Request_free(&preq));
	double calls = iters + skip;
	double mine[4] = {timer * 1e6 / iters, wrong, (double)(ru1.ru_nvcsw - ru0.ru_nvcsw) / calls,
			  (double)(ru1.ru_nivcsw - ru0.ru_nivcsw) / calls};
	double *all = xmalloc(sizeof(double) * 4 * (size_t)nranks);
	gather_stats(mine, 4, all);
	if (rank == 0) {
		double avg, lo, hi, w0, w1, anywrong, vol = 0, invol = 0;
		summarize(all, 4, 0, &avg, &lo, &hi);
		summarize(all, 4, 1, &w0, &w1, &anywrong);
		for (int r = 0; r < nranks; r++) {
			vol += all[4 * r + 2];
			invol += all[4 * r + 3];
		}
		printf("row %s %s %ld %.3f %.3f %.3f %d %s\n", coll_names[c->coll], form_names[f], c->size, avg, lo, hi,
		       iters, anywrong > 0 ? "WRONG" : "ok");
		const char *csw = getenv("OSU_COLLS_CSW");
		if (csw && strcmp(csw, "1") == 0)
			printf("csw %s %s %ld %.1f %.1f\n", coll_names[c->coll], form_names[f], c->size, vol, invol);
		fflush(stdout);
	}
	free(all);
}

/* dummy_compute keeps the CPU busy for about secs, as OSU's dummy_compute
 * does, calling MPI_Test tests times along the way until the request
 * completes; returns whether it did. */
static int dummy_compute(double secs, MPI_Request *r, int tests)
{
	enum { DIM = 25 };
	static float a[DIM][DIM], x[DIM], y[DIM];
	for (int i = 0; i < DIM; i++) {
		x[i] = 1;
		for (int j = 0; j < DIM; j++)
			a[i][j] = 2;
	}
	double start = MPI_Wtime();
	int probed = 0, done = 0;
	for (;;) {
		double el = MPI_Wtime() - start;
		if (el >= secs)
			break;
		while (!done && probed < tests && el >= secs * probed / tests) {
			CHECK(MPI_Test(r, &done, MPI_STATUS_IGNORE));
			probed++;
		}
		for (int i = 0; i < DIM; i++) {
			float s = 0;
			for (int j = 0; j < DIM; j++)
				s += a[i][j] * x[j];
			y[i] = s;
		}
		x[0] += y[DIM - 1] * 1e-9f;
	}
	return done;
}

/* overlap is osu_iallreduce's measurement of c's nonblocking form: the
 * pure communication time (start, wait), then start, compute for as long,
 * wait. */
static void overlap(const struct options *o, struct call *c, int tests)
{
	int iters, skip;
	schedule(o, c->size, &iters, &skip);
	fill(c);
	MPI_Request r;
	int rc = start_nb(c, &r);
	if (rc == MPI_SUCCESS)
		rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
	if (agree(rc != MPI_SUCCESS)) {
		if (rank == 0)
			printf("skip %s ov nonblocking form failed\n", coll_names[c->coll]);
		return;
	}
	int wrong = verify(c, "ov");
	CHECK(MPI_Barrier(MPI_COMM_WORLD));
	double pure = 0;
	for (int i = 0; i < iters + skip; i++) {
		double t0 = MPI_Wtime();
		CHECK(start_nb(c, &r));
		CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
		if (i >= skip)
			pure += MPI_Wtime() - t0;
		CHECK(MPI_Barrier(MPI_COMM_WORLD));
	}
	pure /= iters;
	double overall = 0, compute = 0;
	for (int i = 0; i < iters + skip; i++) {
		double t0 = MPI_Wtime();
		CHECK(start_nb(c, &r));
		double t1 = MPI_Wtime();
		dummy_compute(pure, &r, tests);
		double t2 = MPI_Wtime();
		CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE)); /* a completed, freed request waits at once */
		double t3 = MPI_Wtime();
		if (i >= skip) {
			overall += t3 - t0;
			compute += t2 - t1;
		}
		CHECK(MPI_Barrier(MPI_COMM_WORLD));
	}
	double mine[4] = {overall * 1e6 / iters, compute * 1e6 / iters, pure * 1e6, wrong};
	double *all = xmalloc(sizeof(double) * 4 * (size_t)nranks);
	gather_stats(mine, 4, all);
	if (rank == 0) {
		double ov, cp, pu, lo, hi, anywrong;
		summarize(all, 4, 0, &ov, &lo, &hi);
		summarize(all, 4, 1, &cp, &lo, &hi);
		summarize(all, 4, 2, &pu, &lo, &hi);
		summarize(all, 4, 3, &lo, &hi, &anywrong);
		double pct = pu > 0 ? 100 - 100 * (ov - cp) / pu : 0;
		printf("ovl %s %ld %d %.3f %.3f %.3f %.2f %d %s\n", coll_names[c->coll], c->size, tests, ov, cp, pu,
		       pct > 0 ? pct : 0, iters, anywrong > 0 ? "WRONG" : "ok");
		fflush(stdout);
	}
	free(all);
}

static void library_name(char *out, size_t cap)
{
	char v[MPI_MAX_LIBRARY_VERSION_STRING];
	int len;
	if (MPI_Get_library_version(v, &len) != MPI_SUCCESS)
		v[0] = '\0';
	size_t n = strcspn(v, ",\n");
	if (n >= cap)
		n = cap - 1;
	memcpy(out, v, n);
	out[n] = '\0';
	for (char *p = out; *p; p++) /* MPICH's "Version:\t4.0.2" */
		if (*p == '\t')
			*p = ' ';
}

int main(int argc, char **argv)
{
	struct options o;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	int pr = parse_args(argc, argv, &o);
	if (pr != 0) {
		if (rank == 0)
			usage(pr > 0 ? stdout : stderr);
		MPI_Finalize();
		return pr > 0 ? 0 : 2;
	}
	if (nranks < 2) {
		if (rank == 0)
			fprintf(stderr, "osu_colls: needs at least 2 ranks, got %d\n", nranks);
		MPI_Finalize();
		return 1;
	}
	/* A failing collective is reported as a skipped form, not a dead job. */
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

	long max = 0;
	for (int k = 0; k < o.nsizes; k++)
		max = o.sizes[k] > max ? o.sizes[k] : max;
	/* Every buffer holds a block per rank plus slack for a reduction's
	 * rounding up to whole floats and per-rank blocks. */
	size_t cap = (size_t)max * (size_t)nranks + 4 * (size_t)nranks + 64;
	struct call c = {
		.send = xmalloc(cap),
		.recv = xmalloc(cap),
		.counts = xmalloc(sizeof(int) * (size_t)nranks),
		.displs = xmalloc(sizeof(int) * (size_t)nranks),
		.wdispls = xmalloc(sizeof(int) * (size_t)nranks),
		.types = xmalloc(sizeof(MPI_Datatype) * (size_t)nranks),
	};
	int dims[1] = {nranks}, periods[1] = {1};
	CHECK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
	CHECK(MPI_Cart_shift(ring, 0, 1, &nbr[0], &nbr[1]));
	if (rank == 0) {
		char lib[128];
		library_name(lib, sizeof lib);
		printf("# hympi osu_colls (C, %s), %d ranks, -i %d\n", lib, nranks, o.iters);
		printf("# row COLL FORM SIZE AVG_US MIN_US MAX_US ITERS CHECK\n");
		printf("# ovl COLL SIZE TESTS OVERALL_US COMPUTE_US PURE_US OVERLAP_PCT ITERS CHECK\n");
		fflush(stdout);
	}
	for (int k = 0; k < NCOLL; k++) {
		if (!o.colls[k])
			continue;
		c.coll = (enum coll)k;
		int nsz = c.coll == C_BARRIER ? 1 : o.nsizes;
		for (int f = 0; f < NFORM; f++) {
			if (!o.forms[f] || (f == F_OV && !has_overlap(c.coll)))
				continue;
			if (c.coll == C_REDUCE_LOCAL && f != F_B)
				continue; /* no nonblocking or persistent form in MPI */
			if (f == F_P && !HAVE_PERSISTENT) {
				if (rank == 0)
					printf("skip %s p this MPI has no persistent collectives\n", coll_names[k]);
				continue;
			}
			for (int s = 0; s < nsz; s++) {
				shape(&c, c.coll == C_BARRIER ? 0 : o.sizes[s]);
				if (f == F_OV) {
					for (int t = 0; t < o.ntests; t++)
						overlap(&o, &c, o.tests[t]);
				} else {
					measure(&o, &c, (enum form)f);
				}
			}
		}
	}
	free(c.send);
	free(c.recv);
	free(c.counts);
	free(c.displs);
	free(c.wdispls);
	free(c.types);
	MPI_Comm_free(&ring);
	MPI_Finalize();
	return 0;
}
