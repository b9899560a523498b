/*
 * floor_pingpong: what this machine allows at best, beside which an MPI's
 * point-to-point figures can be read (bench/compare.sh's "floor" column).
 *
 * Usage: floor_pingpong latency|bw|bibw [-m [MIN:]MAX] [-i ITERS] [-x WARMUP]
 *
 * latency  Two processes (fork) share one mmap'd region and are pinned to
 *          two different CPUs. A round trip is two hand-offs of one cache
 *          line that holds a sequence word; a message of up to 56 bytes
 *          rides in that same line, a larger one is copied into a shared
 *          buffer before the publish and out of it after, as a one-copy
 *          transport must. Printed: half a round trip, OSU's latency.
 * bw       memcpy bandwidth of one pinned process between two buffers of
 *          the size (hot caches, as OSU's osu_bw reuses its buffers).
 * bibw     the same in two pinned processes at once, summed (osu_bibw counts
 *          both directions).
 *
 * No MPI: nothing can move a message between two cores faster than a
 * cache-line hand-off, and no transport can stream faster than the copy.
 * Output is OSU's format ('#' headers, "%-10d%18.2f" rows; MB/s with
 * 1 MB = 1e6 bytes), so bench/cmd/osutable reads it like any other column.
 * Waits spin with a pause: this is a measurement of the hardware, not a
 * library that shares the CPU.
 */
#define _GNU_SOURCE

#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum {
	LINE = 64,
	INLINE_MAX = LINE - 8, /* bytes that fit beside the sequence word */
	LARGE = 8192,          /* OSU's LARGE_MESSAGE_SIZE */
};

/* The line both processes hand back and forth: sequence word, then data. */
struct line {
	_Atomic uint64_t seq;
	unsigned char data[INLINE_MAX];
} __attribute__((aligned(LINE)));

struct opts {
	int mode; /* 0 latency, 1 bw, 2 bibw */
	long min, max;
	long iters, warmup; /* 0: OSU's per-size defaults */
};

static void usage(void)
{
	fprintf(stderr, "usage: floor_pingpong latency|bw|bibw [-m [MIN:]MAX] [-i ITERS] [-x WARMUP]\n");
	exit(2);
}

static long number(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || v < 0) {
		fprintf(stderr, "floor_pingpong: not a non-negative number: '%s'\n", s);
		exit(2);
	}
	return v;
}

static void parse(int argc, char **argv, struct opts *o)
{
	if (argc < 2)
		usage();
	if (strcmp(argv[1], "latency") == 0)
		o->mode = 0, o->min = 0, o->max = LARGE;
	else if (strcmp(argv[1], "bw") == 0)
		o->mode = 1, o->min = 1, o->max = 4 << 20;
	else if (strcmp(argv[1], "bibw") == 0)
		o->mode = 2, o->min = 1, o->max = 4 << 20;
	else
		usage();
	for (int i = 2; i < argc; i += 2) {
		if (i + 1 >= argc)
			usage();
		const char *a = argv[i], *v = argv[i + 1];
		if (strcmp(a, "-m") == 0) {
			const char *colon = strchr(v, ':');
			if (colon) {
				char buf[32];
				size_t n = (size_t)(colon - v);
				if (n >= sizeof buf)
					usage();
				memcpy(buf, v, n);
				buf[n] = '\0';
				o->min = number(buf);
				o->max = number(colon + 1);
			} else {
				o->max = number(v);
			}
		} else if (strcmp(a, "-i") == 0) {
			o->iters = number(v);
		} else if (strcmp(a, "-x") == 0) {
			o->warmup = number(v);
		} else {
			usage();
		}
	}
	if (o->min > o->max || o->max > (1L << 30))
		usage();
}

/* one_cpu is set when only one CPU is allowed: both sides then share it,
 * and a waiter must give it up for the other side to move at all. */
static int one_cpu;

/* cpus picks two CPUs this process may run on; -1 for the second when
 * there is only one (then both sides share it, and the figure says so). */
static void cpus(int *a, int *b)
{
	cpu_set_t set;
	*a = 0, *b = -1;
	if (sched_getaffinity(0, sizeof set, &set) != 0)
		return;
	int found = 0;
	for (int c = 0; c < CPU_SETSIZE && found < 2; c++) {
		if (!CPU_ISSET(c, &set))
			continue;
		if (found++ == 0)
			*a = c;
		else
			*b = c;
	}
	one_cpu = found < 2;
}

static void pin(int cpu)
{
	if (cpu < 0)
		return;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof set, &set) != 0)
		perror("floor_pingpong: sched_setaffinity");
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* wait_for waits until the counter reaches v. The counters only grow, and
 * the other side may already have moved past v when this one looks (a
 * descheduled waiter on a loaded machine), so equality would wait forever. */
static void wait_for(_Atomic uint64_t *w, uint64_t v)
{
	while (atomic_load_explicit(w, memory_order_acquire) < v) {
		if (one_cpu)
			sched_yield();
		else
			relax();
	}
}

static void *shared(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("floor_pingpong: mmap");
		exit(1);
	}
	return p;
}

static long next_size(long s) { return s == 0 ? 1 : s * 2; }

/* side runs one process's half of every latency size; side 0 starts each
 * round trip and reports. seq counts hand-offs over the whole run, so a
 * size's first publish cannot be mistaken for an earlier one. */
static void latency_side(int side, const struct opts *o, struct line *ln, unsigned char *buf,
			 unsigned char *mine)
{
	uint64_t seq = 0;
	if (side == 0) {
		printf("# floor_pingpong: one cache-line hand-off between two pinned processes\n");
		printf("# Size          Latency (us)\n");
		fflush(stdout);
	}
	for (long s = o->min; s <= o->max; s = next_size(s)) {
		long iters = o->iters ? o->iters : (s > LARGE ? 1000 : 10000);
		long warm = o->warmup ? o->warmup : (s > LARGE ? 10 : 100);
		double t0 = 0;
		for (long i = 0; i < iters + warm; i++) {
			if (i == warm)
				t0 = now();
			for (int turn = 0; turn < 2; turn++) {
				seq++;
				if ((seq & 1) == (uint64_t)(side == 0)) { /* this side publishes */
					if (s <= INLINE_MAX)
						memcpy(ln->data, mine, (size_t)s);
					else
						memcpy(buf, mine, (size_t)s);
					atomic_store_explicit(&ln->seq, seq, memory_order_release);
				} else {
					wait_for(&ln->seq, seq);
					if (s <= INLINE_MAX)
						memcpy(mine, ln->data, (size_t)s);
					else
						memcpy(mine, buf, (size_t)s);
				}
			}
		}
		if (side == 0) {
			double us = (now() - t0) * 1e6 / (2.0 * (double)iters);
			printf("%-10ld%18.2f\n", s, us);
			fflush(stdout);
		}
	}
}

static int latency(const struct opts *o)
{
	int a, b;
	cpus(&a, &b);
	if (one_cpu)
		fprintf(stderr, "floor_pingpong: one CPU allowed: both sides share it, no floor\n");
	size_t big = o->max > INLINE_MAX ? (size_t)o->max : 1;
	struct line *ln = shared(sizeof *ln);
	unsigned char *buf = shared(big);
	unsigned char *mine = malloc(big);
	if (!mine)
		return 1;
	memset(mine, 'a', big);
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		perror("floor_pingpong: fork");
		return 1;
	}
	if (pid == 0) {
		pin(b);
		latency_side(1, o, ln, buf, mine);
		_exit(0);
	}
	pin(a);
	latency_side(0, o, ln, buf, mine);
	int st;
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return 1;
	return 0;
}

/* copy_rate is one process's memcpy rate in MB/s at size s, over a run of
 * iterations sized like OSU's bandwidth loop (window 64). */
static double copy_rate(const struct opts *o, long s, unsigned char *src, unsigned char *dst)
{
	long iters = (o->iters ? o->iters : (s > LARGE ? 20 : 100)) * 64;
	long warm = (o->warmup ? o->warmup : (s > LARGE ? 2 : 10)) * 64;
	double t0 = 0;
	for (long i = 0; i < iters + warm; i++) {
		if (i == warm)
			t0 = now();
		memcpy(dst, src, (size_t)s);
		/* keep the compiler from dropping or merging the copies */
		__asm__ volatile("" ::"r"(dst) : "memory");
	}
	return (double)s * (double)iters / (now() - t0) / 1e6;
}

/* bandwidth runs the copies in one process (bw) or two at once (bibw),
 * each pinned to its own CPU, starting every size together. */
static int bandwidth(const struct opts *o)
{
	int procs = o->mode == 2 ? 2 : 1;
	int cpu[2];
	cpus(&cpu[0], &cpu[1]);
	int nsizes = 0;
	for (long s = o->min; s <= o->max; s = next_size(s))
		nsizes++;
	double *rate = shared(sizeof(double) * 2 * (size_t)(nsizes ? nsizes : 1));
	_Atomic uint64_t *gate = shared(sizeof *gate * 2);
	size_t n = (size_t)(o->max > 0 ? o->max : 1);
	pid_t pid = -1;
	int me = 0;
	if (procs == 2) {
		pid = fork();
		if (pid < 0) {
			perror("floor_pingpong: fork");
			return 1;
		}
		if (pid == 0)
			me = 1;
	}
	pin(cpu[me]);
	unsigned char *src = malloc(n), *dst = malloc(n);
	if (!src || !dst)
		return 1;
	memset(src, 'a', n);
	memset(dst, 'b', n);
	int k = 0;
	for (long s = o->min; s <= o->max; s = next_size(s), k++) {
		if (procs == 2) { /* both start each size together */
			atomic_fetch_add(&gate[0], 1);
			wait_for(&gate[0], 2 * (uint64_t)(k + 1));
		}
		rate[2 * k + me] = copy_rate(o, s, src, dst);
	}
	if (me == 1)
		_exit(0);
	if (pid > 0) {
		int st;
		if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			return 1;
	}
	printf("# floor_pingpong: memcpy bandwidth, %d pinned process%s (hot buffers)\n", procs,
	       procs == 2 ? "es summed" : "");
	printf("# Size      Bandwidth (MB/s)\n");
	k = 0;
	for (long s = o->min; s <= o->max; s = next_size(s), k++)
		printf("%-10ld%18.2f\n", s, rate[2 * k] + (procs == 2 ? rate[2 * k + 1] : 0));
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = {0};
	parse(argc, argv, &o);
	return o.mode == 0 ? latency(&o) : bandwidth(&o);
}
