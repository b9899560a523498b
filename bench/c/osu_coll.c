/*
 * osu_coll: collective latencies in the manner of the OSU micro-benchmarks
 * (osu_barrier, osu_bcast, osu_reduce, osu_allreduce, osu_gather,
 * osu_scatter, osu_allgather, osu_alltoall), written for hympi so that the
 * same loops run under any MPI library (Open MPI, MPICH, hympi's C ABI) and
 * their output can be laid beside hympi's Go benchmarks (bench/osu_barrier,
 * bench/osu_bcast, ..., see bench/internal/coll).
 *
 * Usage: mpirun -np N osu_coll barrier|bcast|reduce|allreduce|gather|scatter|allgather|alltoall
 *                              [-m [MIN:]MAX] [-i ITERS] [-x WARMUP] [-f] [-reps N]
 *
 * For each size (OSU's doubling, default 1 B to 1 MiB; reductions count
 * floats, so they start at 4 B) each rank times -i calls after -x warm-ups
 * (1000 and 100 up to 8 KiB, 100 and 10 above), with a barrier after each
 * call (but for barrier itself). The row is the mean over ranks of each
 * rank's average in microseconds; -f adds the smallest and largest rank
 * average and the iteration count. Roots are rank 0. Output is OSU's format:
 *
 *   # OSU MPI Allreduce Latency Test
 *   # hympi osu_allreduce (C, Open MPI v4.1.4), 4 ranks
 *   # Size       Avg Latency(us)
 *   4                       1.37
 *
 * barrier has no size column ("# Avg Latency(us)" and one value), as in OSU.
 * With -reps N the sweep runs N times and each value is the median over the
 * sweeps. The per-rank figures reach rank 0 by MPI_Send/MPI_Recv, not by a
 * reduction, as in the Go benchmarks: a run measures one collective and
 * relies on no other but MPI_Barrier.
 *
 * Standard MPI C only; nothing here is specific to one implementation.
 */
#define _POSIX_C_SOURCE 200809L

#include <mpi.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* OSU's collective schedule and sizes (osu_util.h). */
enum {
	LARGE_MESSAGE_SIZE = 8192,
	COLL_LOOP_SMALL = 1000,
	COLL_SKIP_SMALL = 100,
	COLL_LOOP_LARGE = 100,
	COLL_SKIP_LARGE = 10,
	DEFAULT_MIN_SIZE = 1,
	DEFAULT_MAX_SIZE = 1 << 20,
	MAX_REPS = 10000,
	TAG_STATS = 7001,
	/* Column widths (OSU's FIELD_WIDTH 18, FLOAT_PRECISION 2). */
	SIZE_WIDTH = 10,
	VALUE_WIDTH = 18,
	SIZELESS_WIDTH = 17,
	ITERS_WIDTH = 12,
};

enum op { OP_BARRIER, OP_BCAST, OP_REDUCE, OP_ALLREDUCE, OP_GATHER, OP_SCATTER, OP_ALLGATHER, OP_ALLTOALL };

static const struct {
	const char *mode;  /* command-line name */
	const char *name;  /* benchmark name, as the Go command */
	const char *title; /* OSU's title */
} ops[] = {
	[OP_BARRIER] = {"barrier", "osu_barrier", "Barrier"},
	[OP_BCAST] = {"bcast", "osu_bcast", "Broadcast"},
	[OP_REDUCE] = {"reduce", "osu_reduce", "Reduce"},
	[OP_ALLREDUCE] = {"allreduce", "osu_allreduce", "Allreduce"},
	[OP_GATHER] = {"gather", "osu_gather", "Gather"},
	[OP_SCATTER] = {"scatter", "osu_scatter", "Scatter"},
	[OP_ALLGATHER] = {"allgather", "osu_allgather", "Allgather"},
	[OP_ALLTOALL] = {"alltoall", "osu_alltoall", "All-to-All Personalized Exchange"},
};
enum { NOPS = sizeof ops / sizeof ops[0] };

struct options {
	enum op op;
	long min_size, max_size;
	int iters, skip; /* -i / -x: -1 means OSU's per-size default */
	int full;
	int reps;
};

#define CHECK(call)                                                               \
	do {                                                                      \
		int rc_ = (call);                                                 \
		if (rc_ != MPI_SUCCESS) {                                         \
			fprintf(stderr, "osu_coll: %s failed (%d) at %s:%d\n", #call, \
			        rc_, __FILE__, __LINE__);                         \
			MPI_Abort(MPI_COMM_WORLD, 1);                             \
		}                                                                 \
	} while (0)

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: osu_coll barrier|bcast|reduce|allreduce|gather|scatter|allgather|alltoall\n"
	        "                [-m [MIN:]MAX] [-i ITERS] [-x WARMUP] [-f] [-reps N]\n"
	        "  -m     message size range in bytes (default %d:%d; ignored by barrier)\n"
	        "  -i     timed iterations per size (default %d, %d above %d B)\n"
	        "  -x     warm-up iterations per size (default %d, %d above %d B)\n"
	        "  -f     full format: min and max over ranks, iterations\n"
	        "  -reps  repeat the sweep N times and print per-size medians (default 1)\n",
	        DEFAULT_MIN_SIZE, DEFAULT_MAX_SIZE, COLL_LOOP_SMALL, COLL_LOOP_LARGE,
	        LARGE_MESSAGE_SIZE, COLL_SKIP_SMALL, COLL_SKIP_LARGE, LARGE_MESSAGE_SIZE);
}

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

/* parse_range accepts OSU's -m forms: "MAX", "MIN:MAX", "MIN:" and ":MAX". */
static int parse_range(const char *s, long *min, long *max)
{
	const char *colon = strchr(s, ':');
	if (colon == NULL)
		return parse_long(s, max);
	char buf[64];
	size_t n = (size_t)(colon - s);
	if (n >= sizeof buf)
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (n > 0 && parse_long(buf, min) != 0)
		return -1;
	if (colon[1] != '\0' && parse_long(colon + 1, max) != 0)
		return -1;
	return 0;
}

static int is_reduction(enum op op) { return op == OP_REDUCE || op == OP_ALLREDUCE; }

/* parse_args returns 0 on success, 1 for -h, -1 for a usage error. */
static int parse_args(int argc, char **argv, struct options *o)
{
	if (argc < 2)
		return -1;
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)
		return 1;
	int found = 0;
	for (int i = 0; i < NOPS; i++) {
		if (strcmp(argv[1], ops[i].mode) == 0) {
			o->op = (enum op)i;
			found = 1;
		}
	}
	if (!found)
		return -1;
	o->min_size = DEFAULT_MIN_SIZE;
	o->max_size = DEFAULT_MAX_SIZE;
	o->iters = -1;
	o->skip = -1;
	o->full = 0;
	o->reps = 1;
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		long v;
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
			return 1;
		if (strcmp(a, "-f") == 0) {
			o->full = 1;
			continue;
		}
		if (i + 1 >= argc)
			return -1;
		const char *val = argv[++i];
		if (strcmp(a, "-m") == 0) {
			if (parse_range(val, &o->min_size, &o->max_size) != 0)
				return -1;
		} else if (strcmp(a, "-i") == 0) {
			if (parse_long(val, &v) != 0 || v < 1 || v > INT32_MAX)
				return -1;
			o->iters = (int)v;
		} else if (strcmp(a, "-x") == 0) {
			if (parse_long(val, &v) != 0 || v > INT32_MAX)
				return -1;
			o->skip = (int)v;
		} else if (strcmp(a, "-reps") == 0 || strcmp(a, "--reps") == 0) {
			if (parse_long(val, &v) != 0 || v < 1 || v > MAX_REPS)
				return -1;
			o->reps = (int)v;
		} else {
			return -1;
		}
	}
	if (o->min_size > o->max_size || o->max_size > INT32_MAX / 64)
		return -1;
	if (is_reduction(o->op) && o->min_size < (long)sizeof(float)) {
		o->min_size = sizeof(float); /* OSU's reductions count MPI_FLOATs */
		if (o->min_size > o->max_size)
			return -1;
	}
	if (o->op == OP_BARRIER)
		o->min_size = o->max_size = 0; /* one sizeless row */
	return 0;
}

static void schedule(const struct options *o, long size, int *iters, int *skip)
{
	int large = size > LARGE_MESSAGE_SIZE;
	*iters = large ? COLL_LOOP_LARGE : COLL_LOOP_SMALL;
	*skip = large ? COLL_SKIP_LARGE : COLL_SKIP_SMALL;
	if (o->iters > 0)
		*iters = o->iters;
	if (o->skip >= 0)
		*skip = o->skip;
}

static long next_size(long size) { return size ? size * 2 : 1; }

/* alloc_filled returns n bytes (at least 1) with every page written, so that
 * first-touch faults happen here and not in a timed loop. Reductions get
 * float ones: ordinary numbers, no denormal or NaN to slow the arithmetic. */
static char *alloc_filled(long n, int floats)
{
	if (n < 4)
		n = 4;
	char *p = malloc((size_t)n);
	if (p == NULL) {
		fprintf(stderr, "osu_coll: out of memory (%ld bytes)\n", n);
		MPI_Abort(MPI_COMM_WORLD, 1);
		return NULL;
	}
	if (floats) {
		float one = 1;
		for (long i = 0; i + 4 <= n; i += 4)
			memcpy(p + i, &one, sizeof one);
	} else {
		memset(p, 'a', (size_t)n);
	}
	return p;
}

struct buffers {
	char *send, *recv;
};

static void call(enum op op, struct buffers *b, long size, int nranks)
{
	int n = (int)size;
	switch (op) {
	case OP_BARRIER:
		CHECK(MPI_Barrier(MPI_COMM_WORLD));
		break;
	case OP_BCAST:
		CHECK(MPI_Bcast(b->send, n, MPI_CHAR, 0, MPI_COMM_WORLD));
		break;
	case OP_REDUCE:
		CHECK(MPI_Reduce(b->send, b->recv, n / (int)sizeof(float), MPI_FLOAT, MPI_SUM, 0,
		                 MPI_COMM_WORLD));
		break;
	case OP_ALLREDUCE:
		CHECK(MPI_Allreduce(b->send, b->recv, n / (int)sizeof(float), MPI_FLOAT, MPI_SUM,
		                    MPI_COMM_WORLD));
		break;
	case OP_GATHER:
		CHECK(MPI_Gather(b->send, n, MPI_CHAR, b->recv, n, MPI_CHAR, 0, MPI_COMM_WORLD));
		break;
	case OP_SCATTER:
		CHECK(MPI_Scatter(b->send, n, MPI_CHAR, b->recv, n, MPI_CHAR, 0, MPI_COMM_WORLD));
		break;
	case OP_ALLGATHER:
		CHECK(MPI_Allgather(b->send, n, MPI_CHAR, b->recv, n, MPI_CHAR, MPI_COMM_WORLD));
		break;
	case OP_ALLTOALL:
		CHECK(MPI_Alltoall(b->send, n, MPI_CHAR, b->recv, n, MPI_CHAR, MPI_COMM_WORLD));
		break;
	}
	(void)nranks;
}

/* measure returns, on rank 0, the mean, minimum and maximum over ranks of
 * each rank's average time per call in microseconds. */
static void measure(const struct options *o, struct buffers *b, long size, int rank, int nranks,
                    double out[3])
{
	int iters, skip;
	double timer = 0;
	schedule(o, size, &iters, &skip);
	CHECK(MPI_Barrier(MPI_COMM_WORLD));
	for (int i = 0; i < iters + skip; i++) {
		double t0 = MPI_Wtime();
		call(o->op, b, size, nranks);
		double t1 = MPI_Wtime();
		if (i >= skip)
			timer += t1 - t0;
		if (o->op != OP_BARRIER)
			CHECK(MPI_Barrier(MPI_COMM_WORLD));
	}
	double lat = timer * 1e6 / iters;
	if (rank != 0) {
		CHECK(MPI_Send(&lat, 1, MPI_DOUBLE, 0, TAG_STATS, MPI_COMM_WORLD));
		return;
	}
	double sum = lat, lo = lat, hi = lat;
	for (int src = 1; src < nranks; src++) {
		double v;
		CHECK(MPI_Recv(&v, 1, MPI_DOUBLE, src, TAG_STATS, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
		sum += v;
		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
	}
	out[0] = sum / nranks;
	out[1] = lo;
	out[2] = hi;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* median sorts v in place; for an even count it is the mean of the middle two. */
static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
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
}

static void print_header(const struct options *o, int nranks)
{
	char lib[128];
	library_name(lib, sizeof lib);
	printf("# OSU MPI %s Latency Test\n", ops[o->op].title);
	printf("# hympi %s (C, %s), %d ranks", ops[o->op].name, lib, nranks);
	if (o->reps > 1)
		printf(", median of %d repetitions", o->reps);
	printf("\n");
	if (o->op == OP_BARRIER)
		printf("%-*s", SIZELESS_WIDTH, "# Avg Latency(us)");
	else
		printf("%-*s%*s", SIZE_WIDTH, "# Size", VALUE_WIDTH, "Avg Latency(us)");
	if (o->full)
		printf("%*s%*s%*s", VALUE_WIDTH, "Min Latency(us)", VALUE_WIDTH, "Max Latency(us)",
		       ITERS_WIDTH, "Iterations");
	printf("\n");
}

static void print_row(const struct options *o, long size, const double v[3])
{
	int iters, skip;
	schedule(o, size, &iters, &skip);
	if (o->op == OP_BARRIER)
		printf("%*.2f", SIZELESS_WIDTH, v[0]);
	else
		printf("%-*ld%*.2f", SIZE_WIDTH, size, VALUE_WIDTH, v[0]);
	if (o->full)
		printf("%*.2f%*.2f%*d", VALUE_WIDTH, v[1], VALUE_WIDTH, v[2], ITERS_WIDTH, iters);
	printf("\n");
	fflush(stdout);
}

int main(int argc, char **argv)
{
	int rank, nranks;
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
			fprintf(stderr, "osu_coll: this benchmark needs at least 2 ranks, got %d\n", nranks);
		MPI_Finalize();
		return 1;
	}

	/* Largest buffers once: gather's receive and scatter's send hold a block
	 * per rank at the root, allgather's and alltoall's on every rank. */
	long max = o.max_size, per_rank = max * nranks;
	struct buffers b;
	int fl = is_reduction(o.op);
	switch (o.op) {
	case OP_GATHER:
		b.send = alloc_filled(max, 0);
		b.recv = alloc_filled(rank == 0 ? per_rank : 1, 0);
		break;
	case OP_SCATTER:
		b.send = alloc_filled(rank == 0 ? per_rank : 1, 0);
		b.recv = alloc_filled(max, 0);
		break;
	case OP_ALLGATHER:
		b.send = alloc_filled(max, 0);
		b.recv = alloc_filled(per_rank, 0);
		break;
	case OP_ALLTOALL:
		b.send = alloc_filled(per_rank, 0);
		b.recv = alloc_filled(per_rank, 0);
		break;
	default:
		b.send = alloc_filled(max, fl);
		b.recv = alloc_filled(max, fl);
		break;
	}

	int nsizes = 0;
	for (long s = o.min_size; s <= o.max_size; s = next_size(s))
		nsizes++;
	/* samples[(k*3 + c)*reps + r]: size k, column c (avg, min, max), sweep r. */
	double *samples = calloc((size_t)nsizes * 3 * (size_t)o.reps, sizeof *samples);
	if (samples == NULL) {
		fprintf(stderr, "osu_coll: out of memory\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	if (rank == 0 && o.reps == 1)
		print_header(&o, nranks);
	for (int r = 0; r < o.reps; r++) {
		int k = 0;
		for (long s = o.min_size; s <= o.max_size; s = next_size(s), k++) {
			double v[3] = {0, 0, 0};
			measure(&o, &b, s, rank, nranks, v);
			for (int c = 0; c < 3; c++)
				samples[(k * 3 + c) * o.reps + r] = v[c];
			if (rank == 0 && o.reps == 1)
				print_row(&o, s, v); /* stream rows, as OSU does */
		}
	}
	if (rank == 0 && o.reps > 1) {
		print_header(&o, nranks);
		int k = 0;
		for (long s = o.min_size; s <= o.max_size; s = next_size(s), k++) {
			double v[3];
			for (int c = 0; c < 3; c++)
				v[c] = median(&samples[(k * 3 + c) * o.reps], o.reps);
			print_row(&o, s, v);
		}
	}

	free(samples);
	free(b.send);
	free(b.recv);
	MPI_Finalize();
	return 0;
}
