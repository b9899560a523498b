/*
 * osu_pt2pt: point-to-point latency and bandwidth in the manner of the OSU
 * micro-benchmarks (osu_latency, osu_bw, osu_bibw), written for hympi so that
 * the same algorithm runs under any MPI library (Open MPI, MPICH, hympi's C
 * ABI) and its output can be laid beside bench/osu_latency, bench/osu_bw and
 * bench/osu_bibw.
 *
 * Usage: mpirun -np 2 osu_pt2pt latency|bw|bibw|mbw_mr [-m [MIN:]MAX] [-i ITERS]
 *                                         [-x WARMUP] [-W WINDOW] [-reps N]
 *                                         [-b reuse|fresh] [-pool MiB]
 *
 * Output is OSU's format: '#' header lines, then "%-10d%18.2f" rows
 * (latency in microseconds, bandwidth in MB/s with 1 MB = 1e6 bytes; bibw
 * counts both directions, as OSU's osu_bibw does).
 * With -reps N the whole sweep runs N times and each row is the median over
 * the N sweeps, because a single sweep on a shared machine is noisy.
 *
 * -b reuse (the default) is OSU's: every message is sent from one buffer
 * and received into one, hot in the caches. -b fresh gives each message
 * the next slot of a pool larger than the caches, so the caches (and TLBs)
 * are cold, as for an application sending fresh data. The pool, its slots
 * and their order are those of the Go benchmarks (bench/internal/osu,
 * buffers.go): per side, the largest data cache of cpu0 bounded to
 * 64 MiB..1 GiB and to a quarter of memory per rank, or -pool MiB; slots
 * page-aligned from 4 KiB and cache-line aligned below; each message steps
 * about n/phi slots (coprime with the n slots) from the previous one.
 *
 * mbw_mr is OSU's osu_mbw_mr and bench/osu_mbw_mr: any even number of ranks,
 * rank i < N/2 streams osu_bw's loop to rank i+N/2, all pairs at once; the
 * time is the mean of the senders' times, the rate covers all pairs, and
 * the rows carry a third column, messages per second.
 *
 * Standard MPI C only; nothing here is specific to one implementation.
 */
/* posix_memalign and sysconf are POSIX, not ISO C: ask for them explicitly
 * so the file builds under -std=c11 as well as GNU C. */
#define _POSIX_C_SOURCE 200809L

#include <mpi.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* OSU's schedule (osu_util.h): sizes above LARGE_MESSAGE_SIZE get fewer
 * iterations, because each one costs more and the estimate is already stable. */
enum {
	LARGE_MESSAGE_SIZE = 8192,
	LAT_LOOP_SMALL = 10000,
	LAT_SKIP_SMALL = 100,
	LAT_LOOP_LARGE = 1000,
	LAT_SKIP_LARGE = 10,
	BW_LOOP_SMALL = 100,
	BW_SKIP_SMALL = 10,
	BW_LOOP_LARGE = 20,
	BW_SKIP_LARGE = 2,
	DEFAULT_WINDOW = 64,
	MAX_WINDOW = 1024,
	MAX_POOL_MIB = 64 << 10,
	CACHE_LINE = 64,
	ACK_SIZE = 4, /* osu_bw's acknowledgement message */
	TAG_LAT = 1,
	TAG_BW = 100,
	TAG_ACK = 101,
	TAG_BIBW_BACK = 10, /* bibw: rank 1 to rank 0 (bench/osu_bibw's tags) */
};

#define DEFAULT_MAX_SIZE (4L << 20)
#define MIN_FRESH_POOL (64L << 20)
#define MAX_FRESH_POOL (1L << 30)

enum mode { MODE_LATENCY, MODE_BW, MODE_BIBW, MODE_MBW_MR };

struct options {
	enum mode mode;
	long min_size, max_size;
	int iters, skip;             /* -i / -x: 0 means OSU's per-size default */
	int window;
	int reps;
	int fresh;     /* -b fresh */
	long pool_mib; /* -pool; 0 means the default size */
};

/* check aborts the whole job on an MPI error: a benchmark that carries on
 * after a failed call would deadlock its peer or print a wrong number. */
#define CHECK(call)                                                          \
	do {                                                                 \
		int rc_ = (call);                                            \
		if (rc_ != MPI_SUCCESS) {                                    \
			fprintf(stderr, "osu_pt2pt: %s failed (%d) at %s:%d\n", \
			        #call, rc_, __FILE__, __LINE__);             \
			MPI_Abort(MPI_COMM_WORLD, 1);                        \
		}                                                            \
	} while (0)

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: osu_pt2pt latency|bw|bibw|mbw_mr [-m [MIN:]MAX] [-i ITERS] [-x WARMUP]\n"
	        "                                 [-W WINDOW] [-reps N] [-b reuse|fresh] [-pool MiB]\n"
	        "  -m     message size range in bytes (default 0:%ld for latency,\n"
	        "         1:%ld for bw and bibw)\n"
	        "  -i     timed iterations per size (default: OSU's, fewer above %d B)\n"
	        "  -x     warm-up iterations per size (default: OSU's)\n"
	        "  -W     bw/bibw window: sends in flight per iteration and direction (default %d)\n"
	        "  -reps  repeat the sweep N times and print per-size medians (default 1)\n"
	        "  -b     message buffers: reuse (OSU's, one per side, default) or fresh\n"
	        "         (each message in the next slot of a pool larger than the caches)\n"
	        "  -pool  with -b fresh, MiB per pool (default: the last-level cache,\n"
	        "         64 to 1024 MiB)\n",
	        DEFAULT_MAX_SIZE, DEFAULT_MAX_SIZE, LARGE_MESSAGE_SIZE, DEFAULT_WINDOW);
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

/* parse_args returns 0 on success, 1 for -h, -1 for a usage error. */
static int parse_args(int argc, char **argv, struct options *o)
{
	if (argc < 2)
		return -1;
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)
		return 1;
	if (strcmp(argv[1], "latency") == 0) {
		o->mode = MODE_LATENCY;
		o->min_size = 0;
	} else if (strcmp(argv[1], "bw") == 0 || strcmp(argv[1], "bibw") == 0 ||
	           strcmp(argv[1], "mbw_mr") == 0) {
		o->mode = strcmp(argv[1], "bw") == 0     ? MODE_BW
		          : strcmp(argv[1], "bibw") == 0 ? MODE_BIBW
		                                         : MODE_MBW_MR;
		o->min_size = 1; /* OSU's bw starts at 1: a 0-byte rate is meaningless */
	} else {
		return -1;
	}
	o->max_size = DEFAULT_MAX_SIZE;
	o->iters = 0;
	o->skip = -1;
	o->window = DEFAULT_WINDOW;
	o->reps = 1;
	o->fresh = 0;
	o->pool_mib = 0;

	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		long v;
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
			return 1;
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
		} else if (strcmp(a, "-W") == 0) {
			if (parse_long(val, &v) != 0 || v < 1 || v > MAX_WINDOW)
				return -1;
			o->window = (int)v;
		} else if (strcmp(a, "-reps") == 0 || strcmp(a, "--reps") == 0) {
			if (parse_long(val, &v) != 0 || v < 1 || v > 10000)
				return -1;
			o->reps = (int)v;
		} else if (strcmp(a, "-b") == 0) {
			if (strcmp(val, "reuse") == 0)
				o->fresh = 0;
			else if (strcmp(val, "fresh") == 0)
				o->fresh = 1;
			else
				return -1;
		} else if (strcmp(a, "-pool") == 0) {
			if (parse_long(val, &v) != 0 || v < 1 || v > MAX_POOL_MIB)
				return -1;
			o->pool_mib = v;
		} else {
			return -1;
		}
	}
	if (o->min_size > o->max_size || o->max_size > INT32_MAX)
		return -1;
	if (o->pool_mib != 0 && !o->fresh)
		return -1; /* a pool size needs -b fresh */
	return 0;
}

/* schedule gives OSU's iteration and warm-up counts for one size; -i and -x,
 * like OSU's, override small and large sizes alike. */
static void schedule(const struct options *o, long size, int *iters, int *skip)
{
	int large = size > LARGE_MESSAGE_SIZE;
	if (o->mode == MODE_LATENCY) {
		*iters = large ? LAT_LOOP_LARGE : LAT_LOOP_SMALL;
		*skip = large ? LAT_SKIP_LARGE : LAT_SKIP_SMALL;
	} else {
		*iters = large ? BW_LOOP_LARGE : BW_LOOP_SMALL;
		*skip = large ? BW_SKIP_LARGE : BW_SKIP_SMALL;
	}
	if (o->iters > 0)
		*iters = o->iters;
	if (o->skip >= 0)
		*skip = o->skip;
}

/* next_size is OSU's progression: 0, 1, 2, 4, ... (doubling from MIN). */
static long next_size(long size) { return size ? size * 2 : 1; }

/* alloc_touched returns a page-aligned buffer with every page written, so
 * that first-touch page faults happen here and not inside a timed loop. */
static char *alloc_touched(long size, char fill)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p;
	if (size < 1)
		size = 1;
	if (posix_memalign(&p, (size_t)page, (size_t)size) != 0)
		return NULL;
	memset(p, fill, (size_t)size);
	return p;
}

/* cache_size_of reads one sysfs cache size ("491520K") in bytes; 0 if absent. */
static long cache_size_of(const char *path)
{
	FILE *f = fopen(path, "r");
	long n = 0;
	char unit = 0;
	if (f == NULL)
		return 0;
	if (fscanf(f, "%ld%c", &n, &unit) < 1)
		n = 0;
	fclose(f);
	if (unit == 'K')
		n <<= 10;
	else if (unit == 'M')
		n <<= 20;
	else if (unit == 'G')
		n <<= 30;
	return n;
}

/* last_level_cache returns the largest data or unified cache of cpu0 in
 * bytes (0 if unknown), from $HYMPI_SYSFS (default /sys) as hympi does. */
static long last_level_cache(void)
{
	const char *root = getenv("HYMPI_SYSFS");
	long best = 0;
	if (root == NULL || root[0] == '\0')
		root = "/sys";
	for (int i = 0; i < 16; i++) {
		char path[512], type[32] = "";
		snprintf(path, sizeof path, "%s/devices/system/cpu/cpu0/cache/index%d/type", root, i);
		FILE *f = fopen(path, "r");
		if (f == NULL)
			continue;
		if (fscanf(f, "%31s", type) != 1)
			type[0] = '\0';
		fclose(f);
		if (strcmp(type, "Data") != 0 && strcmp(type, "Unified") != 0)
			continue;
		snprintf(path, sizeof path, "%s/devices/system/cpu/cpu0/cache/index%d/size", root, i);
		long n = cache_size_of(path);
		if (n > best)
			best = n;
	}
	return best;
}

/* fresh_pool_size is osu.FreshPoolSize: the last-level cache bounded to
 * MIN_FRESH_POOL..MAX_FRESH_POOL, all pools of the job (two per rank)
 * within half of memory, rounded down to MiB, at least 1 MiB. */
static long fresh_pool_size(long llc, long mem_total, int ranks)
{
	long p = llc < MIN_FRESH_POOL ? MIN_FRESH_POOL : llc;
	if (p > MAX_FRESH_POOL)
		p = MAX_FRESH_POOL;
	if (mem_total > 0 && ranks > 0 && p > mem_total / (4L * ranks))
		p = mem_total / (4L * ranks);
	p = p >> 20 << 20;
	return p < (1L << 20) ? 1L << 20 : p;
}

/* slot_stride is osu.SlotStride: page multiples from a page up, cache-line
 * multiples below. */
static long slot_stride(long size, long page)
{
	if (size >= page)
		return (size + page - 1) / page * page;
	if (size < 1)
		size = 1;
	return (size + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE;
}

static long gcd(long a, long b)
{
	while (b != 0) {
		long t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* slot_step is osu.SlotStep: near n/phi and coprime with n, so the walk
 * visits every slot before any repeats and consecutive slots lie far apart. */
static long slot_step(long n)
{
	if (n <= 1)
		return 0;
	long s = (long)((double)n * 0.6180339887);
	if (s < 1)
		s = 1;
	while (gcd(s, n) != 1)
		s++;
	return s;
}

/* slots hands out the buffers of one size: the start of the pool every
 * time under -b reuse (n = 1), the walk of the pool under -b fresh. */
struct slots {
	char *mem;
	long stride, n, step, next;
};

static struct slots slots_for(char *mem, long len, int fresh, long size)
{
	struct slots s = {mem, 0, 1, 0, 0};
	if (fresh) {
		s.stride = slot_stride(size, sysconf(_SC_PAGESIZE));
		s.n = len / s.stride;
		s.step = slot_step(s.n);
	}
	return s;
}

static char *slots_next(struct slots *s)
{
	char *p = s->mem + s->next * s->stride;
	s->next += s->step;
	if (s->next >= s->n)
		s->next -= s->n;
	return p;
}

/* latency returns the one-way latency in microseconds: half the round trip
 * of a blocking ping-pong, averaged over the timed iterations. */
static double latency(int rank, struct slots *sbuf, struct slots *rbuf, long size,
                      int iters, int skip)
{
	double t_start = 0, t_end;
	int n = (int)size;

	CHECK(MPI_Barrier(MPI_COMM_WORLD));
	if (rank == 0) {
		for (int i = 0; i < iters + skip; i++) {
			if (i == skip)
				t_start = MPI_Wtime();
			CHECK(MPI_Send(slots_next(sbuf), n, MPI_CHAR, 1, TAG_LAT, MPI_COMM_WORLD));
			CHECK(MPI_Recv(slots_next(rbuf), n, MPI_CHAR, 1, TAG_LAT, MPI_COMM_WORLD,
			               MPI_STATUS_IGNORE));
		}
	} else {
		for (int i = 0; i < iters + skip; i++) {
			if (i == skip)
				t_start = MPI_Wtime();
			CHECK(MPI_Recv(slots_next(rbuf), n, MPI_CHAR, 0, TAG_LAT, MPI_COMM_WORLD,
			               MPI_STATUS_IGNORE));
			CHECK(MPI_Send(slots_next(sbuf), n, MPI_CHAR, 0, TAG_LAT, MPI_COMM_WORLD));
		}
	}
	t_end = MPI_Wtime();
	return (t_end - t_start) * 1e6 / (2.0 * iters);
}

/* bandwidth returns MB/s (1e6 bytes) seen by rank 0: each iteration posts a
 * window of non-blocking sends and waits for a 4-byte acknowledgement, which
 * the receiver sends once its whole window of receives has completed. Under
 * -b reuse every message of a window uses the same buffer, as in OSU. */
static double bandwidth(int rank, struct slots *sbuf, struct slots *rbuf, long size,
                        int iters, int skip, int window, MPI_Request *reqs)
{
	double t_start = 0, t_end;
	int n = (int)size;
	char ack[ACK_SIZE] = {0};

	CHECK(MPI_Barrier(MPI_COMM_WORLD));
	if (rank == 0) {
		for (int i = 0; i < iters + skip; i++) {
			if (i == skip)
				t_start = MPI_Wtime();
			for (int j = 0; j < window; j++)
				CHECK(MPI_Isend(slots_next(sbuf), n, MPI_CHAR, 1, TAG_BW,
				                MPI_COMM_WORLD, &reqs[j]));
			CHECK(MPI_Waitall(window, reqs, MPI_STATUSES_IGNORE));
			CHECK(MPI_Recv(ack, ACK_SIZE, MPI_CHAR, 1, TAG_ACK, MPI_COMM_WORLD,
			               MPI_STATUS_IGNORE));
		}
		t_end = MPI_Wtime();
		return (double)size / 1e6 * iters * window / (t_end - t_start);
	}
	for (int i = 0; i < iters + skip; i++) {
		for (int j = 0; j < window; j++)
			CHECK(MPI_Irecv(slots_next(rbuf), n, MPI_CHAR, 0, TAG_BW, MPI_COMM_WORLD,
			                &reqs[j]));
		CHECK(MPI_Waitall(window, reqs, MPI_STATUSES_IGNORE));
		CHECK(MPI_Send(ack, ACK_SIZE, MPI_CHAR, 0, TAG_ACK, MPI_COMM_WORLD));
	}
	return 0;
}

/* bibw returns MB/s (1e6 bytes) of both directions together, as rank 0
 * sees it: in each iteration both ranks post a window of receives, then a
 * window of sends, and wait for all of them (OSU's osu_bibw; bench/osu_bibw
 * does the same with the same tags). */
static double bibw(int rank, struct slots *sbuf, struct slots *rbuf, long size,
                   int iters, int skip, int window, MPI_Request *reqs)
{
	double t_start = 0, t_end;
	int n = (int)size;
	int peer = rank == 0 ? 1 : 0;
	int send_tag = rank == 0 ? TAG_BW : TAG_BIBW_BACK;
	int recv_tag = rank == 0 ? TAG_BIBW_BACK : TAG_BW;
	MPI_Request *rreqs = reqs, *sreqs = reqs + window;

	CHECK(MPI_Barrier(MPI_COMM_WORLD));
	for (int i = 0; i < iters + skip; i++) {
		if (i == skip)
			t_start = MPI_Wtime();
		for (int j = 0; j < window; j++)
			CHECK(MPI_Irecv(slots_next(rbuf), n, MPI_CHAR, peer, recv_tag, MPI_COMM_WORLD,
			                &rreqs[j]));
		for (int j = 0; j < window; j++)
			CHECK(MPI_Isend(slots_next(sbuf), n, MPI_CHAR, peer, send_tag, MPI_COMM_WORLD,
			                &sreqs[j]));
		CHECK(MPI_Waitall(window, sreqs, MPI_STATUSES_IGNORE));
		CHECK(MPI_Waitall(window, rreqs, MPI_STATUSES_IGNORE));
	}
	t_end = MPI_Wtime();
	return (double)size / 1e6 * iters * window * 2 / (t_end - t_start);
}

/* mbw_mr returns MB/s (1e6 bytes) of all pairs together on rank 0 (0
 * elsewhere): osu_bw's loop between rank r < N/2 and rank r + N/2, every
 * pair at once, over the mean of the senders' times (OSU's osu_mbw_mr). */
static double mbw_mr(int rank, int nranks, struct slots *sbuf, struct slots *rbuf, long size,
                     int iters, int skip, int window, MPI_Request *reqs)
{
	int pairs = nranks / 2, n = (int)size;
	int sender = rank < pairs;
	int peer = sender ? rank + pairs : rank - pairs;
	char ack[ACK_SIZE] = {0};
	double t_start = 0, elapsed = 0, sum = 0;

	CHECK(MPI_Barrier(MPI_COMM_WORLD));
	for (int i = 0; i < iters + skip; i++) {
		if (i == skip && sender)
			t_start = MPI_Wtime();
		if (sender) {
			for (int j = 0; j < window; j++)
				CHECK(MPI_Isend(slots_next(sbuf), n, MPI_CHAR, peer, TAG_BW,
				                MPI_COMM_WORLD, &reqs[j]));
			CHECK(MPI_Waitall(window, reqs, MPI_STATUSES_IGNORE));
			CHECK(MPI_Recv(ack, ACK_SIZE, MPI_CHAR, peer, TAG_ACK, MPI_COMM_WORLD,
			               MPI_STATUS_IGNORE));
		} else {
			for (int j = 0; j < window; j++)
				CHECK(MPI_Irecv(slots_next(rbuf), n, MPI_CHAR, peer, TAG_BW,
				                MPI_COMM_WORLD, &reqs[j]));
			CHECK(MPI_Waitall(window, reqs, MPI_STATUSES_IGNORE));
			CHECK(MPI_Send(ack, ACK_SIZE, MPI_CHAR, peer, TAG_ACK, MPI_COMM_WORLD));
		}
	}
	if (sender)
		elapsed = MPI_Wtime() - t_start;
	CHECK(MPI_Reduce(&elapsed, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD));
	if (rank != 0)
		return 0;
	return (double)size / 1e6 * iters * window * pairs / (sum / pairs);
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

/* library_name copies the first line of MPI_Get_library_version up to the
 * first comma ("Open MPI v4.1.4", "MPICH Version: 4.0.2"), for the header. */
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
	if (o.mode == MODE_MBW_MR ? (nranks < 2 || nranks % 2 != 0) : nranks != 2) {
		if (rank == 0)
			fprintf(stderr, "osu_pt2pt: %s needs %s ranks, got %d\n", argv[1],
			        o.mode == MODE_MBW_MR ? "an even number of" : "exactly 2", nranks);
		MPI_Finalize();
		return 1;
	}

	/* All buffers are allocated once, so allocation and first-touch faults
	 * stay out of every timed loop: the largest message under -b reuse, the
	 * pool under -b fresh. In bw mode rank 0 only sends and rank 1 only
	 * receives, so each gets only the side it uses. */
	long len = o.max_size;
	if (o.fresh) {
		long pool = o.pool_mib << 20;
		if (pool == 0)
			pool = fresh_pool_size(last_level_cache(),
			                       sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE), nranks);
		long least = slot_stride(o.max_size, sysconf(_SC_PAGESIZE));
		len = pool > least ? pool : least;
	}
	int pairs = nranks / 2;
	int sends = o.mode == MODE_BW ? rank == 0 : o.mode == MODE_MBW_MR ? rank < pairs : 1;
	int recvs = o.mode == MODE_BW ? rank == 1 : o.mode == MODE_MBW_MR ? rank >= pairs : 1;
	char *sbuf = sends ? alloc_touched(len, 'a') : NULL;
	char *rbuf = recvs ? alloc_touched(len, 'b') : NULL;
	MPI_Request *reqs = malloc(sizeof *reqs * 2 * (size_t)o.window);
	int nsizes = 0;
	for (long s = o.min_size; s <= o.max_size; s = next_size(s))
		nsizes++;
	double *samples = malloc(sizeof *samples * (size_t)nsizes * (size_t)o.reps);
	if ((sends && sbuf == NULL) || (recvs && rbuf == NULL) || reqs == NULL || samples == NULL) {
		fprintf(stderr, "osu_pt2pt: out of memory\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}

	/* samples[k*reps + r] holds size k's result from sweep r. */
	for (int r = 0; r < o.reps; r++) {
		int k = 0;
		for (long s = o.min_size; s <= o.max_size; s = next_size(s), k++) {
			int iters, skip;
			schedule(&o, s, &iters, &skip);
			struct slots ss = slots_for(sbuf, len, o.fresh, s);
			struct slots rs = slots_for(rbuf, len, o.fresh, s);
			double v;
			if (o.mode == MODE_LATENCY)
				v = latency(rank, &ss, &rs, s, iters, skip);
			else if (o.mode == MODE_BW)
				v = bandwidth(rank, &ss, &rs, s, iters, skip, o.window, reqs);
			else if (o.mode == MODE_BIBW)
				v = bibw(rank, &ss, &rs, s, iters, skip, o.window, reqs);
			else
				v = mbw_mr(rank, nranks, &ss, &rs, s, iters, skip, o.window, reqs);
			samples[k * o.reps + r] = v;
		}
	}

	if (rank == 0) {
		char lib[128];
		library_name(lib, sizeof lib);
		int lat = o.mode == MODE_LATENCY;
		/* Same two header lines as bench/osu_latency, osu_bw and osu_bibw. */
		const char *name = lat                   ? "osu_latency"
		                   : o.mode == MODE_BW   ? "osu_bw"
		                   : o.mode == MODE_BIBW ? "osu_bibw"
		                                         : "osu_mbw_mr";
		int rate = o.mode == MODE_MBW_MR;
		printf("# hympi %s (C, %s)", name, lib);
		if (o.fresh)
			printf(", fresh buffers (pool of %ld MiB per side)", len >> 20);
		if (o.reps > 1)
			printf(", median of %d repetitions", o.reps);
		if (rate)
			printf("\n# [ pairs: %d ] [ window size: %d ]\n%-10s%18s%18s\n", pairs, o.window,
			       "# Size", "MB/s", "Messages/s");
		else
			printf("\n%-10s%18s\n", "# Size", lat ? "Latency (us)" : "Bandwidth (MB/s)");
		int k = 0;
		for (long s = o.min_size; s <= o.max_size; s = next_size(s), k++) {
			double v = median(&samples[k * o.reps], o.reps);
			if (rate)
				printf("%-10ld%18.2f%18.2f\n", s, v, v * 1e6 / (double)s);
			else
				printf("%-10ld%18.2f\n", s, v);
		}
		fflush(stdout);
	}

	free(samples);
	free(reqs);
	free(rbuf);
	free(sbuf);
	MPI_Finalize();
	return 0;
}
