/*
 * collane.c — small collectives without a call into Go: the communicator's
 * plan (mpi/coll_cplan.go), which is the Go engine's own memoised schedule
 * written out as data, run on the collective rings under the rules of
 * Go's direct run (mpi/coll_direct.go):
 *   - it starts only while the fast lane may run (shm/fastlane.go) and the
 *     engine holds no posted or unexpected receive, no collective in
 *     flight, no queued send and no read (the busy word), and not on every
 *     64th run on the communicator, which goes to Go for a progress pass
 *     first; while the communicator's nonblocking starts defer their
 *     receives to MPI_Test (mpi/coll_cadapt.go: the program tests while
 *     it computes), a nonblocking call takes only messages already there
 *     (no spin), and hands the rest to Go, whose tests do it; one that
 *     may stay pending in C (nbc_pend.c) does not spin either, unless
 *     the program waits at once (nbc_atonce.c), when nonblocking starts
 *     spin, or yield, as the blocking calls do;
 *   - a send is published when no collective message of ours is queued
 *     toward the peer in Go and a slot is free;
 *   - a receive takes the head of the peer's collective ring when it is a
 *     published message of this collective (context, tag) of exactly the
 *     expected length, after a short spin; when ranks outnumber CPUs a
 *     blocking call yields the CPU instead, a few times (the peer it waits
 *     for may need it), before it hands over;
 *   - a message of up to HC_COLL_MSG_MAX bytes travels the ring, one
 *     slot up to HC_COLL_INLINE_MAX and a span of consecutive positions
 *     above (shm/coll.go, whose protocol put and take follow).
 * The first transfer that cannot be done hands the collective to Go at
 * that round with the round's transfers done so far (hympi_go_cc_run),
 * and Go goes on exactly as its direct run stopped there would. The tag is
 * drawn from the sequence word Go's nextTag uses, in the plan area.
 *
 * The area holds one plan per slot of the communicator's memo, so that a
 * loop of different collectives (a benchmark's collective and its
 * Barrier) finds a plan for each: a call runs the plan whose key is its
 * own, found by kind first. A v, w or neighbourhood collective's key
 * includes its count, displacement (and type) arrays, kept with the plan
 * when C learns it (hc_cc_learn_v) and compared byte for byte on each call:
 * the schedule was built from them.
 *
 * Every value read from the shared region (publish word, context, tag,
 * length, reserved word) is checked before use; anything unexpected is
 * left for Go, which reports corruption. The plan itself is this process's
 * private memory; its indexes are checked all the same.
 */
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collane.h"
#include "dtype.h"
#include "fastlane.h"
#include "nbc.h"
#include "_cgo_export.h"
#include "golane.h"

#define U32(p, off) (*(uint32_t *)((p) + (off)))
#define U64(p, off) (*(uint64_t *)((p) + (off)))

/* Collectives C ran to the end, and handed to Go part-way, for HYMPI_DEBUG. */
static unsigned long cc_served, cc_handed, cc_passes, cc_yields, cc_yield_hits;
/* Calls that found their plan by their raw arguments (hc_cc_first). */
static unsigned long cc_first;
/* Of those, the ones of each v, w and neighbourhood kind (hc_cc_try_v). */
static unsigned long cc_vserved[HC_CC_END - HC_CC_GATHERV];

void hc_cc_report(int rank)
{
	fprintf(stderr, "hympi[debug]: rank %d: collective lane: %lu collectives without Go, %lu continued in Go, %lu progress passes\n",
		rank, cc_served, cc_handed, cc_passes);
	fprintf(stderr, "hympi[debug]: rank %d: collective lane: %lu yields, %lu messages found after one\n", rank, cc_yields,
		cc_yield_hits);
	fprintf(stderr, "hympi[debug]: rank %d: collective lane: %lu calls found their plan before their argument checks\n",
		rank, cc_first);
	static const char *names[] = {"gatherv", "scatterv", "allgatherv", "alltoallv", "alltoallw", "reduce_scatter", "neighbor"};
	_Static_assert(sizeof names / sizeof names[0] == HC_CC_END - HC_CC_GATHERV, "a name per kind");
	/* One write, so that ranks' lines do not interleave. */
	char line[512];
	int at = snprintf(line, sizeof line, "hympi[debug]: rank %d: collective lane, started in C by kind:", rank);
	for (int i = 0; i < HC_CC_END - HC_CC_GATHERV && at > 0 && at < (int)sizeof line; i++)
		at += snprintf(line + at, sizeof line - at, " %s=%lu", names[i], cc_vserved[i]);
	fprintf(stderr, "%s\n", line);
}

/* Looks at an empty ring head before handing over (Go's flSpins). */
enum { CC_SPINS = 512, CC_PASS_EVERY = 64 };

/* Oversubscribed, a blocking call waits for a peer's message by yielding
 * the CPU, at most CC_YIELDS times a message and CC_YIELD_NS a call,
 * before it hands over. Handing over costs a call into Go (~800
 * instructions of cgo alone) whose wait then does what this does, with a
 * progress pass per look: at 4 ranks on 2 CPUs C's Barrier and Allreduce
 * cost 1.3-1.5x Go's instructions a call (make bench-callgrind-coll NP=4)
 * and more in time. The bound in time keeps a loaded machine, where a
 * yield can give the CPU away for a whole time slice, from holding us in
 * C (no progress for the rest of the engine) for long; Go's wait yields
 * for longer (mpi/internal/progress) and only then sleeps. */
enum { CC_YIELDS = 16, CC_YIELDING = -1 /* spins: yield instead */ };
#define CC_YIELD_NS 50000

/* The call whose yields end at cc_until (its tag: one per call). Only
 * one thread runs the lane (hc_fl_threads_ok). */
static uint32_t cc_until_tag = UINT32_MAX;
static int64_t cc_until;

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ccyield gives the CPU away once if the call of tag has time left: 0
 * when not. */
static int ccyield(uint32_t tag)
{
	int64_t t = now_ns();
	if (cc_until_tag != tag)
		cc_until_tag = tag, cc_until = t + CC_YIELD_NS;
	else if (t >= cc_until)
		return 0;
	cc_yields++;
	sched_yield();
	return 1;
}
enum { CC_SEQ_MASK = (1 << 30) - 1 };

/* move copies n bytes, the ends possibly overlapping (memmove's rule),
 * inline up to 32: libc's call cost a small collective's 8 bytes ~20
 * instructions a copy, and a call copies up to four times. */
static inline __attribute__((always_inline)) void move(void *d, const void *s, uint64_t n)
{
	unsigned char *dp = d;
	const unsigned char *sp = s;
	if (n - 1 >= 32) {
		if (n) memmove(d, s, n);
		return;
	}
	/* Every load before any store: overlap cannot corrupt. */
	if (n >= 16) {
		uint64_t a, b, c, e;
		memcpy(&a, sp, 8), memcpy(&b, sp + 8, 8), memcpy(&c, sp + n - 16, 8), memcpy(&e, sp + n - 8, 8);
		memcpy(dp, &a, 8), memcpy(dp + 8, &b, 8), memcpy(dp + n - 16, &c, 8), memcpy(dp + n - 8, &e, 8);
	} else if (n >= 8) {
		uint64_t a, b;
		memcpy(&a, sp, 8), memcpy(&b, sp + n - 8, 8);
		memcpy(dp, &a, 8), memcpy(dp + n - 8, &b, 8);
	} else if (n >= 4) {
		uint32_t a, b;
		memcpy(&a, sp, 4), memcpy(&b, sp + n - 4, 4);
		memcpy(dp, &a, 4), memcpy(dp + n - 4, &b, 4);
	} else {
		unsigned char a = sp[0], b = sp[n / 2], c = sp[n - 1];
		dp[0] = a, dp[n / 2] = b, dp[n - 1] = c;
	}
}

/* copy_span copies a span's payload with libc's memcpy: gcc inlined the
 * copies in put_span and take_span as rep movsq, 128 iterations a KiB
 * (callgrind counts each; libc's vector loop is a quarter of that). */
static __attribute__((noinline)) void copy_span(void *d, const void *s, uint64_t n)
{
	memcpy(d, s, n);
}

/* small_sum applies MPI_SUM of up to 64 bytes of float, double, int or
 * int64 as a plain loop (the kernels' dispatch cost two floats ~75
 * instructions), bit for bit what hc_reduce_builtin does: inout = in +
 * inout per element, integers wrapping. 0: not such a step. */
#define CC_SUM_LOOP(T, U)                                                                  \
	for (uint64_t i = 0; i + sizeof(T) <= n; i += sizeof(T)) {                        \
		T x_, y_;                                                                  \
		memcpy(&x_, (const unsigned char *)in + i, sizeof(T));                     \
		memcpy(&y_, (unsigned char *)inout + i, sizeof(T));                        \
		y_ = (T)((U)x_ + (U)y_);                                                   \
		memcpy((unsigned char *)inout + i, &y_, sizeof(T));                        \
	}
static inline __attribute__((always_inline)) int small_sum(int64_t op, int64_t dt, const void *in, void *inout, uint64_t n)
{
	if (op != (int64_t)(intptr_t)MPI_SUM || n > 64) return 0;
	if (dt == (int64_t)(intptr_t)MPI_FLOAT) {
		CC_SUM_LOOP(float, float)
	} else if (dt == (int64_t)(intptr_t)MPI_DOUBLE) {
		CC_SUM_LOOP(double, double)
	} else if (dt == (int64_t)(intptr_t)MPI_INT || dt == (int64_t)(intptr_t)MPI_INT32_T) {
		CC_SUM_LOOP(int32_t, uint32_t)
	} else if (dt == (int64_t)(intptr_t)MPI_INT64_T || dt == (int64_t)(intptr_t)MPI_LONG ||
		   dt == (int64_t)(intptr_t)MPI_LONG_LONG) {
		CC_SUM_LOOP(int64_t, uint64_t)
	} else {
		return 0;
	}
	return 1;
}

static inline uint32_t ld32(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

/* Wakes the owner of a doorbell if it sleeps (as fastlane.c's ring). */
static inline __attribute__((always_inline)) void bell(unsigned char *e, int seq_off, int sleep_off)
{
	uint32_t *sleepers = (uint32_t *)(uintptr_t)U64(e, sleep_off);
	if (__atomic_load_n(sleepers, __ATOMIC_SEQ_CST) == 0) return;
	uint32_t *seq = (uint32_t *)(uintptr_t)U64(e, seq_off);
	__atomic_add_fetch(seq, 1, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, seq, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static inline unsigned char *entry(unsigned char *st, int64_t w)
{
	if (w < 0 || w >= (int64_t)U32(st, HC_FL_SIZE) || w == (int64_t)U32(st, HC_FL_RANK)) return NULL;
	return st + HC_FL_HEADER + (size_t)w * HC_FL_ENTRY;
}

static inline unsigned char *coll_slot(unsigned char *slots, uint64_t pos)
{
	return slots + (pos & (HC_COLL_SLOTS - 1)) * HC_COLL_SLOT_SIZE;
}

/* announce, after a publish toward e's peer: the summary bit, then (all
 * sequentially consistent) the peer's doorbell. */
static inline void announce(unsigned char *st, unsigned char *e)
{
	uint64_t *sum = (uint64_t *)(uintptr_t)U64(e, HC_FE_SUM_WORD);
	uint64_t bit = (uint64_t)1 << (U32(st, HC_FL_RANK) & 63);
	if (!(__atomic_load_n(sum, __ATOMIC_SEQ_CST) & bit)) __atomic_fetch_or(sum, bit, __ATOMIC_SEQ_CST);
	bell(e, HC_FE_BELL_SEQ, HC_FE_BELL_SLEEP);
}

/* put_span is put of a message of HC_COLL_INLINE_MAX < n <=
 * HC_COLL_MSG_MAX bytes, a span of k positions (shm/coll.go): all checked
 * free for their laps (in ring order, the head first), the payload written
 * in one piece over them (two when it wraps the ring's end), the head's
 * envelope and then its publish word last. Out of line, as take_span:
 * inlined into run, the spans' code cost every 8-byte collective some 20
 * instructions (make bench-callgrind-coll). */
__attribute__((noinline)) static int put_span(unsigned char *st, unsigned char *e, unsigned char *slots, const hc_cp_xfer *x,
					      uint32_t ctx, uint32_t tag)
{
	uint64_t n = x->n;
	if (n > HC_COLL_MSG_MAX) return 0;
	uint64_t pos = U64(e, HC_FE_COLL_OPOS);
	uint64_t k = (HC_COLL_HEADER + n + HC_COLL_SLOT_SIZE - 1) / HC_COLL_SLOT_SIZE;
	/* Acquire: the consumer is done with each position's last message. */
	for (uint64_t q = pos; q < pos + k; q++)
		if (__atomic_load_n((uint64_t *)coll_slot(slots, q), __ATOMIC_ACQUIRE) != 2 * (q / HC_COLL_SLOTS)) return 0;
	unsigned char *slot = coll_slot(slots, pos);
	const unsigned char *src = (const unsigned char *)(uintptr_t)x->ptr;
	uint64_t off = (uint64_t)(slot - slots) + HC_COLL_HEADER, ring = (uint64_t)HC_COLL_SLOTS * HC_COLL_SLOT_SIZE;
	uint64_t first = n < ring - off ? n : ring - off;
	copy_span(slot + HC_COLL_HEADER, src, first);
	if (first < n) copy_span(slots, src + first, n - first);
	uint32_t len = (uint32_t)n, zero = 0;
	memcpy(slot + HC_COLL_CTX, &ctx, 4);
	memcpy(slot + HC_COLL_TAG, &tag, 4);
	memcpy(slot + HC_COLL_LEN, &len, 4);
	memcpy(slot + HC_COLL_RSVD, &zero, 4);
	__atomic_store_n((uint64_t *)slot, 2 * (pos / HC_COLL_SLOTS) + 1, __ATOMIC_SEQ_CST);
	U64(e, HC_FE_COLL_OPOS) = pos + k;
	announce(st, e);
	return 1;
}

/* put publishes x in its peer's collective ring: 0 when the rule says no. */
static inline __attribute__((always_inline)) int put(unsigned char *st, const hc_cp_xfer *x, uint32_t ctx, uint32_t tag)
{
	unsigned char *e = entry(st, x->peer);
	if (!e || !U32(e, HC_FE_COLL_OPEN)) return 0;
	unsigned char *slots = (unsigned char *)(uintptr_t)U64(e, HC_FE_COLL_OUT);
	if (!slots) return 0;
	if (x->n > HC_COLL_INLINE_MAX) return put_span(st, e, slots, x, ctx, tag);
	uint64_t pos = U64(e, HC_FE_COLL_OPOS);
	unsigned char *slot = coll_slot(slots, pos);
	uint64_t lap = 2 * (pos / HC_COLL_SLOTS);
	/* Acquire: the consumer is done with the slot's last message. */
	if (__atomic_load_n((uint64_t *)slot, __ATOMIC_ACQUIRE) != lap) return 0;
	uint32_t n = (uint32_t)x->n, zero = 0;
	memcpy(slot + HC_COLL_CTX, &ctx, 4);
	memcpy(slot + HC_COLL_TAG, &tag, 4);
	memcpy(slot + HC_COLL_LEN, &n, 4);
	memcpy(slot + HC_COLL_RSVD, &zero, 4);
	move(slot + HC_COLL_HEADER, (const void *)(uintptr_t)x->ptr, n);
	/* The publish, then the summary and bell. */
	__atomic_store_n((uint64_t *)slot, lap + 1, __ATOMIC_SEQ_CST);
	U64(e, HC_FE_COLL_OPOS) = pos + 1;
	announce(st, e);
	return 1;
}

/* take_span is take's end for a message of HC_COLL_INLINE_MAX < n bytes
 * whose head (at pos, published, this collective's, n == x->n) is slot:
 * the length bounded, the payload copied out (one piece, or two when it
 * wraps the ring's end), then the k positions handed back, the
 * continuations first and the head last (shm/coll.go says why). */
__attribute__((noinline)) static int take_span(unsigned char *e, unsigned char *slots, uint64_t pos, unsigned char *slot,
					       const hc_cp_xfer *x, uint64_t n)
{
	if (n > HC_COLL_MSG_MAX) return 0;
	uint64_t k = (HC_COLL_HEADER + n + HC_COLL_SLOT_SIZE - 1) / HC_COLL_SLOT_SIZE;
	unsigned char *dst = (unsigned char *)(uintptr_t)x->ptr;
	uint64_t off = (uint64_t)(slot - slots) + HC_COLL_HEADER, ring = (uint64_t)HC_COLL_SLOTS * HC_COLL_SLOT_SIZE;
	uint64_t first = n < ring - off ? n : ring - off;
	copy_span(dst, slot + HC_COLL_HEADER, first);
	if (first < n) copy_span(dst + first, slots, n - first);
	for (uint64_t q = pos + 1; q < pos + k; q++)
		__atomic_store_n((uint64_t *)coll_slot(slots, q), 2 * (q / HC_COLL_SLOTS) + 2, __ATOMIC_RELEASE);
	__atomic_store_n((uint64_t *)slot, 2 * (pos / HC_COLL_SLOTS) + 2, __ATOMIC_SEQ_CST);
	U64(e, HC_FE_COLL_IPOS) = pos + k;
	bell(e, HC_FE_SND_SEQ, HC_FE_SND_SLEEP);
	return 1;
}

/* await_head waits for the message of lap to be published in slot, for
 * spins looks or, CC_YIELDING, up to CC_YIELDS yields within the call's
 * time: 0 when it is not (or the slot is corrupt: Go reports it). Out of
 * line: a message already there costs take one look. */
static __attribute__((noinline)) int await_head(unsigned char *slot, uint64_t lap, int spins, uint32_t tag)
{
	int yields = spins == CC_YIELDING ? CC_YIELDS : 0;
	for (;;) {
		uint64_t v = __atomic_load_n((uint64_t *)slot, __ATOMIC_ACQUIRE);
		if (v == lap + 1) break;
		if (v != lap) return 0;
		if (spins-- > 0) {
			__builtin_ia32_pause();
			continue;
		}
		if (yields-- <= 0 || !ccyield(tag)) return 0;
		if (__atomic_load_n((uint64_t *)slot, __ATOMIC_ACQUIRE) == lap + 1) {
			cc_yield_hits++;
			break;
		}
	}
	return 1;
}

/* take receives x off the head of its peer's collective ring: 0 when the
 * head is not there after await_head's wait of spins, or is anything but
 * this collective's message of x's length. */
static inline __attribute__((always_inline)) int take(unsigned char *st, const hc_cp_xfer *x, uint32_t ctx, uint32_t tag, int spins)
{
	unsigned char *e = entry(st, x->peer);
	if (!e || !U32(e, HC_FE_IN_KNOWN)) return 0;
	unsigned char *slots = (unsigned char *)(uintptr_t)U64(e, HC_FE_COLL_IN);
	if (!slots) return 0;
	uint64_t pos = U64(e, HC_FE_COLL_IPOS);
	unsigned char *slot = coll_slot(slots, pos);
	uint64_t lap = 2 * (pos / HC_COLL_SLOTS);
	/* spins 0 (a start that may stay pending, a test): no call. */
	if (__builtin_expect(__atomic_load_n((uint64_t *)slot, __ATOMIC_ACQUIRE) != lap + 1, 0) &&
	    (spins == 0 || !await_head(slot, lap, spins, tag)))
		return 0;
	uint32_t n = ld32(slot + HC_COLL_LEN);
	if (ld32(slot + HC_COLL_CTX) != ctx || ld32(slot + HC_COLL_TAG) != tag || ld32(slot + HC_COLL_RSVD) != 0 || n != x->n)
		return 0;
	if (n > HC_COLL_INLINE_MAX) return take_span(e, slots, pos, slot, x, n);
	move((void *)(uintptr_t)x->ptr, slot + HC_COLL_HEADER, n);
	/* Hand the slot back after our reads. */
	__atomic_store_n((uint64_t *)slot, lap + 2, __ATOMIC_SEQ_CST);
	U64(e, HC_FE_COLL_IPOS) = pos + 1;
	bell(e, HC_FE_SND_SEQ, HC_FE_SND_SLEEP);
	return 1;
}

/* rounds runs plan p's rounds with tag (key[5], key[4] and key[7], a
 * call key's operator, type and element size, for its reduction steps)
 * from round k0, whose transfers in done0 are done: 1 when all ran, 0 when
 * a transfer could not be done, with *kp the round it stopped in and
 * *donep that round's transfers done, -1 when a reduction failed (checked
 * when the plan was learned: cannot happen). run's loop is this one from
 * round 0, kept apart in its own words: the general one cost a blocking
 * Barrier ~20 instructions more. For the persistent collectives
 * (nbc_persist.c) and the nonblocking ones pending in C (nbc_pend.c). */
static inline __attribute__((always_inline)) int rounds(unsigned char *st, const hc_cp_plan *p, uint32_t ctx,
							uint32_t tag, const int64_t *key, int spins, uint32_t k0,
							uint64_t done0, uint32_t *kp, uint64_t *donep)
{
	uint64_t nr = p->nrounds;
	for (uint32_t k = k0; k < nr; k++) {
		/* In locals: the copies below may alias the plan for all the
		 * compiler knows. */
		const hc_cp_round *r = &p->rounds[k];
		uint32_t x0 = r->x0, x1 = r->x1, s0 = r->s0, s1 = r->s1;
		/* skip: what was done before (a constant 0 from a call's run). */
		uint64_t skip = k == k0 ? done0 : 0, done = skip;
		for (uint32_t i = x0; i < x1; i++) {
			if (!p->xfers[i].send || (skip >> (i - x0) & 1)) continue;
			if (!put(st, &p->xfers[i], ctx, tag)) goto stop;
			done |= (uint64_t)1 << (i - x0);
		}
		for (uint32_t i = x0; i < x1; i++) {
			if (p->xfers[i].send || (skip >> (i - x0) & 1)) continue;
			if (!take(st, &p->xfers[i], ctx, tag, spins)) goto stop;
			done |= (uint64_t)1 << (i - x0);
		}
		for (uint32_t i = s0; i < s1; i++) {
			const hc_cp_step *s = &p->steps[i];
			void *dst = (void *)(uintptr_t)s->dst;
			const void *src = (const void *)(uintptr_t)s->src;
			if (s->kind == HC_CP_COPY) {
				move(dst, src, s->n);
			} else if (!hc_reduce_builtin((MPI_Op)(intptr_t)key[5], (MPI_Datatype)(intptr_t)key[4], src, dst,
						      (int64_t)s->n / key[7])) {
				return -1;
			}
		}
		continue;
	stop:
		*kp = k;
		*donep = done;
		return 0;
	}
	return 1;
}

/* general is rounds for run, out of line: plans of several sends or
 * receives a round (learn says which), run from round 0. */
static __attribute__((noinline)) int general(unsigned char *st, const hc_cp_plan *p, uint32_t ctx, uint32_t tag,
					     const int64_t *key, int spins, uint32_t *kp, uint64_t *donep)
{
	return rounds(st, p, ctx, tag, key, spins, 0, 0, kp, donep);
}

/* quiet: whether no point-to-point message from any rank waits at the
 * head of its channel to us (every channel known to C, none in a stream).
 * The lane's every CC_PASS_EVERY-th run gives Go a progress pass for what
 * other ranks send us; with the lane open (no posted or unexpected
 * receive, no queued send, read or collective in flight) that is all Go
 * could have to do, so a quiet look skips the pass: at 2 ranks it cost a
 * Barrier ~50 of its ~460 instructions a call. Out of line: one call in
 * CC_PASS_EVERY. */
static __attribute__((noinline)) int quiet(const unsigned char *st)
{
	uint32_t n = U32(st, HC_FL_SIZE), me = U32(st, HC_FL_RANK);
	for (uint32_t w = 0; w < n; w++) {
		if (w == me) continue;
		const unsigned char *e = st + HC_FL_HEADER + (size_t)w * HC_FL_ENTRY;
		uint64_t nslots = U64(e, HC_FE_IN_N), pos = U64(e, HC_FE_IN_POS);
		const unsigned char *slots = (const unsigned char *)(uintptr_t)U64(e, HC_FE_IN_SLOTS);
		if (!U32(e, HC_FE_IN_KNOWN) || U32(e, HC_FE_IN_STREAM) || !slots || !nslots || (nslots & (nslots - 1)))
			return 0;
		const unsigned char *slot = slots + (pos & (nslots - 1)) * HC_SLOT_SIZE;
		if (__atomic_load_n((const uint64_t *)slot, __ATOMIC_ACQUIRE) != 2 * (pos >> __builtin_ctzll(nslots)))
			return 0;
	}
	return 1;
}

/* lane_open: whether the lane may run now (the rules at the top); others
 * is what C holds that Go does not know: queued lane receives and, for a
 * new run, nonblocking collectives pending in C (nbc_pend.c), which a
 * call into Go hands over first. */
static inline int lane_open(const unsigned char *st, uint64_t oversub, int others)
{
	return U32(st, HC_FL_RUN) && !U64(st, HC_FL_POSTED) && !U64(st, HC_FL_UNEXP) && !U32(st, HC_FL_BUSY) &&
	       !others && !hc_in_callback && U32(st, HC_FL_OVERSUB) == oversub;
}

/* reduce_step applies reduction step s of a call of key for run: 0 when
 * it failed. Out of line: inline, its loops cost the collectives without
 * reductions ~10-20 instructions (registers). */
static __attribute__((noinline)) int reduce_step(const hc_cp_step *s, const int64_t *key)
{
	void *dst = (void *)(uintptr_t)s->dst;
	const void *src = (const void *)(uintptr_t)s->src;
	return small_sum(key[5], key[4], src, dst, s->n) ||
	       hc_reduce_builtin((MPI_Op)(intptr_t)key[5], (MPI_Datatype)(intptr_t)key[4], src, dst, (int64_t)s->n / key[7]);
}

/* run does plan p of area a; *rc as hc_cc_try's. The plan's key serves
 * its reduction steps (the call's equals it). */
static inline __attribute__((always_inline)) int run(int ci, const hc_flcomm *f, hc_cplan *a, hc_cp_plan *p,
						     MPI_Request *req, int *rc)
{
	const int64_t *key = p->key;
	unsigned char *st = f->st;
	/* hc_cn_n: while a nonblocking collective is pending in C
	 * (nbc_pend.c), the call goes to Go, which takes that one over first. */
	if (!U32(st, HC_FL_RUN) || U64(st, HC_FL_POSTED) || U64(st, HC_FL_UNEXP) || U32(st, HC_FL_BUSY) ||
	    (hc_lane_n | hc_cn_n) || hc_in_callback || U32(st, HC_FL_OVERSUB) != p->oversub)
		return 0;
	uint64_t nr = p->nrounds;
	if (a->runs++ % CC_PASS_EVERY == CC_PASS_EVERY - 1 && !quiet(st)) {
		cc_passes++;
		*rc = hympi_go_cc_run(ci, (int)(p - a->plans), -1, 0, 0, (intptr_t *)req, req ? hc_thread_reqcache() : NULL);
		return 1;
	}
	uint32_t tag = ++a->seq & CC_SEQ_MASK, ctx = (uint32_t)a->ctx;
	move((void *)(uintptr_t)p->own_dst, (const void *)(uintptr_t)p->own_src, p->own_len);
	/* A deferring start (nbdefer) takes only messages already there: the
	 * rest is left to the tests, in Go from the round where it stopped.
	 * Nor does one that may stay pending in C (nbc_pend.c): its wait
	 * spins, and its computing caller overlaps the peers' sends. A
	 * blocking call when oversubscribed yields a few times (await_head). */
	int spins;
	if (__builtin_expect(req == NULL, 1)) {
		spins = U32(st, HC_FL_OVERSUB) ? CC_YIELDING : CC_SPINS;
	} else {
		/* A program that waits at once (nbc_atonce.c) is served as
		 * the blocking call is. */
		int atonce = hc_nb_atonce && !a->nbdefer;
		hc_nb_atonce_starts += atonce;
		spins = U32(st, HC_FL_OVERSUB) ? (atonce ? CC_YIELDING : 0)
		        : !atonce && (hc_cn_room || a->nbdefer) ? 0 : CC_SPINS;
	}
	uint32_t k = 0;
	uint64_t done = 0;
	if (__builtin_expect(!p->csimple, 0)) {
		int r = general(st, p, ctx, tag, key, spins, &k, &done);
		if (r < 0) {
			/* Checked when the key was learned; cannot happen. */
			*rc = MPI_ERR_INTERN;
			return 1;
		}
		if (!r) goto hand;
	} else {
		/* At most one send and one receive a round (learn): no scan of
		 * the round's transfers for each. */
		for (; k < nr; k++) {
			const hc_cp_round *r = &p->rounds[k];
			int xs = p->csend[k], xr = p->crecv[k];
			done = 0;
			if (xs >= 0) {
				if (!put(st, &p->xfers[xs], ctx, tag)) goto hand;
				done = (uint64_t)1 << (xs - r->x0);
			}
			if (xr >= 0 && !take(st, &p->xfers[xr], ctx, tag, spins)) goto hand;
			for (uint32_t i = r->s0; i < r->s1; i++) {
				const hc_cp_step *s = &p->steps[i];
				if (s->kind == HC_CP_COPY) {
					move((void *)(uintptr_t)s->dst, (const void *)(uintptr_t)s->src, s->n);
				} else if (!reduce_step(s, key)) {
					*rc = MPI_ERR_INTERN;
					return 1;
				}
			}
		}
	}
	if (0) {
	hand:
		/* Kept pending in C only while every rank has a CPU: with more
		 * ranks than CPUs the peers' rounds need this one's tests to
		 * reach Go, whose deferred run overlapped 60-90% where the C
		 * pending run overlapped 0-40% (compare-coll, 4 and 8 ranks). */
		if (req && hc_cn_room && !U32(st, HC_FL_OVERSUB) && hc_cn_keep(ci, a, p, tag, k, done, key, req)) {
			hc_nb_started(*req);
			*rc = MPI_SUCCESS;
			return 1;
		}
		cc_handed++;
		*rc = hympi_go_cc_run(ci, (int)(p - a->plans), (int)tag, (int)k, done, (intptr_t *)req, req ? hc_thread_reqcache() : NULL);
		/* Go may have completed it: HC_REQ_DONE is also a send's. */
		if (req) *req == HC_REQ_DONE ? hc_nb_done_start() : hc_nb_started(*req);
		return 1;
	}
	a->served++;
	cc_served++;
	if (req) {
		*req = HC_REQ_DONE;
		hc_nbc_lane_ci = ci + 1;
		hc_nb_done_start();
	}
	*rc = MPI_SUCCESS;
	return 1;
}

/* vmatch: whether v's arrays are those p was learned with. */
static int vmatch(const hc_cp_plan *p, const hc_cc_vec *v)
{
	uint64_t off = 0, lim = p->vlen;
	if (lim > HC_CP_VEC) return 0;
	for (int i = 0; i < v->n; i++) {
		uint64_t n = v->s[i].len;
		if (n > lim - off || (n && memcmp(p->vec + off, v->s[i].p, n))) return 0;
		off += n;
	}
	return off == lim;
}

/* match: whether p is a plan of the call of key k. */
static inline int match(const hc_cp_plan *p, const int64_t *k)
{
	return p->valid && p->keyed && memcmp(p->key, k, sizeof p->key) == 0;
}

/* hc_cc_first's memory (collane.h). hc_cc_found: the call's plan is there but may not
 * run now (the gate unsettled, the lane closed), so the same call's
 * hc_cc_try, which would find it and stop alike, stops at once.
 * HC_CC_MISSED,
 * in a kind's hint: its last full look found no plan of its raw arguments,
 * and none has been keyed or found since (learn and hc_cc_try clear it):
 * at 4 ranks on 2 CPUs, where Allreduce, Allgather and Alltoall have no
 * plan, the two fruitless looks cost them ~140 instructions a call. */
int hc_cc_found;

int hc_cc_try(int ci, hc_cc_key *k, int settles, MPI_Request *req, int *rc)
{
	const hc_flcomm *f = hc_comms[ci].fl;
	hc_cplan *a = f ? f->cc : NULL;
	if (!a) {
		k->gen = 0;
		return 0;
	}
	k->gen = a->gen;
	if (hc_cc_found) { /* the call's plan, which hc_cc_first found may not run now */
		hc_cc_found = 0;
		return 0;
	}
	/* Where this kind's call ran last, then every plan. */
	unsigned h = (unsigned)k->k[0] & (HC_CP_HINTS - 1);
	hc_cp_plan *p = &a->plans[a->hint[h] & (HC_CP_PLANS - 1)];
	const hc_cc_vec *v = k->v;
	if (!match(p, k->k) || (__builtin_expect(v != NULL, 0) && !vmatch(p, v))) {
		int i = 0;
		/* The kind first: it tells most plans apart. */
		while (i < HC_CP_PLANS && (a->plans[i].key[0] != k->k[0] || !match(&a->plans[i], k->k) ||
					   (v && !vmatch(&a->plans[i], v))))
			i++;
		if (i == HC_CP_PLANS) return 0;
		p = &a->plans[i];
	}
	/* Found: hc_cc_first looks again (a plan may have become valid
	 * again without C keying it anew). */
	a->hint[h] = (uint8_t)(p - a->plans);
	if (settles && p->unsettled) return 0;
	return run(ci, f, a, p, req, rc);
}

/* rawmatch: whether p was keyed by a call of the raw arguments raw. */
static inline int rawmatch(const hc_cp_plan *p, const int64_t *raw)
{
	return p->valid && p->keyed && memcmp(p->raw, raw, sizeof p->raw) == 0;
}

int hc_cc_first_run(int ci, const hc_flcomm *f, hc_cplan *a, const int64_t *raw, const hc_cc_vec *v, int settles,
		     MPI_Request *req, int *rc)
{
	unsigned h = (unsigned)raw[0] & (HC_CP_HINTS - 1);
	unsigned hv = a->hint[h];
	hc_cp_plan *p = &a->plans[hv & (HC_CP_PLANS - 1)];
	if (__builtin_expect(!rawmatch(p, raw) || (v != NULL && !vmatch(p, v)), 0)) {
		int i = 0;
		while (i < HC_CP_PLANS && (a->plans[i].raw[0] != raw[0] || !rawmatch(&a->plans[i], raw) ||
					   (v && !vmatch(&a->plans[i], v))))
			i++;
		if (i == HC_CP_PLANS) {
			a->hint[h] = (uint8_t)(hv | HC_CC_MISSED);
			return 0;
		}
		a->hint[h] = (uint8_t)i;
		p = &a->plans[i];
	}
	if (!(settles && p->unsettled)) {
		cc_first++;
		if (run(ci, f, a, p, req, rc)) return 1;
	}
	hc_cc_found = 1;
	return 0;
}

/* learnable: whether a call of key k may run from a plan in C: a
 * reduction only of a predefined operator on a predefined type that
 * hc_reduce_builtin handles (a derived type's handle may be freed and
 * reused for another type behind the same key). */
static int learnable(const hc_cp_plan *p, const int64_t *k)
{
	/* The plan's indexes, once (Go wrote them; run trusts them). */
	uint64_t nr = p->nrounds, nx = p->nxfers, ns = p->nsteps;
	if (nr > HC_CP_MAX_ROUNDS || nx > HC_CP_MAX_XFERS || ns > HC_CP_MAX_STEPS) return 0;
	for (uint64_t i = 0; i < nr; i++) {
		const hc_cp_round *r = &p->rounds[i];
		if (r->x0 > r->x1 || r->x1 > nx || r->x1 - r->x0 > 64 || r->s0 > r->s1 || r->s1 > ns) return 0;
	}
	int red = (k[0] >= HC_CC_RED && k[0] < HC_CC_MOVE) || k[0] == HC_CC_RS;
	for (uint64_t i = 0; i < ns; i++)
		if (p->steps[i].kind == HC_CP_REDUCE && (!red || k[7] <= 0 || p->steps[i].n % k[7])) return 0;
	if (!red) return 1;
	MPI_Datatype dt = (MPI_Datatype)(intptr_t)k[4];
	hc_dt *t = hc_dt_get(dt);
	if (!t || !t->predefined || t->handle != (intptr_t)dt || k[7] <= 0) return 0;
	return hc_reduce_builtin((MPI_Op)(intptr_t)k[5], dt, NULL, NULL, 0);
}

/* learn is hc_cc_learn; v, when not NULL, the call's arrays, kept with
 * the key (a call of more than the plan holds is not learned). */
static void learn(int ci, const hc_cc_key *k, const hc_cc_vec *v)
{
	if (!hc_fl_threads_ok) return;
	/* The plan lives beside the fast lane's view of the communicator
	 * (malloc'd by fastlane.c, so writable), whose state page it needs. */
	hc_flcomm *c = (hc_flcomm *)hc_fl_comm_get(ci);
	if (!c || c->cc_state < 0) return;
	hc_cplan *a = c->cc;
	if (!a) {
		hc_cplan *m = (hc_cplan *)hympi_go_cc_area(ci);
		if (!m || m->version != HC_CP_VERSION || m->size != sizeof(hc_cplan) || m->nplans != HC_CP_PLANS) {
			c->cc_state = -1;
			return;
		}
		c->cc = m;
		c->cc_state = 1;
		return;
	}
	/* The Go call made exactly one plan valid without a key: this call's
	 * (with more, which one is not known; the key waits for a later call). */
	if (a->gen != k->gen + 1 || a->last >= HC_CP_PLANS) return;
	hc_cp_plan *p = &a->plans[a->last];
	if (!p->valid || p->keyed || !learnable(p, k->k)) return;
	uint64_t off = 0;
	for (int i = 0; v && i < v->n; i++) {
		uint64_t n = v->s[i].len;
		if (n > HC_CP_VEC - off) return;
		if (n) memcpy(p->vec + off, v->s[i].p, n);
		off += n;
	}
	p->vlen = off;
	/* The plan is fixed while keyed: note whether each round has at most
	 * one send and one receive, and which (run's short loop). */
	int simple = 1;
	for (uint64_t r = 0; r < p->nrounds; r++) {
		int ns = 0, nr = 0;
		p->csend[r] = p->crecv[r] = -1;
		for (uint32_t i = p->rounds[r].x0; i < p->rounds[r].x1; i++) {
			if (p->xfers[i].send)
				ns++, p->csend[r] = (int8_t)i;
			else
				nr++, p->crecv[r] = (int8_t)i;
		}
		if (ns > 1 || nr > 1) simple = 0;
	}
	p->csimple = (uint64_t)simple;
	memcpy(p->key, k->k, sizeof p->key);
	a->hint[k->k[0] & (HC_CP_HINTS - 1)] &= (uint8_t)~HC_CC_MISSED;
	if (k->raw)
		memcpy(p->raw, k->raw, sizeof p->raw);
	else
		p->raw[0] = 0;
	p->keyed = 1;
}

void hc_cc_learn(int ci, const hc_cc_key *k)
{
	learn(ci, k, NULL);
}

void hc_cc_learn_v(int ci, const hc_cc_key *k, const hc_cc_vec *v)
{
	learn(ci, k, v);
}

/* The v-kinds take hc_cc_try's path (run stays inlined in one caller:
 * a second cost every collective ~15 instructions), their arrays in the
 * key. */
int hc_cc_try_v(int ci, hc_cc_key *k, const hc_cc_vec *v, MPI_Request *req, int *rc)
{
	k->v = v;
	unsigned long before = cc_served + cc_handed;
	int ran = hc_cc_try(ci, k, 0, req, rc);
	if (cc_served + cc_handed != before && k->k[0] >= HC_CC_GATHERV && k->k[0] < HC_CC_END)
		cc_vserved[k->k[0] - HC_CC_GATHERV]++;
	return ran;
}

/* The v-kinds count what they started in C (hc_cc_try_v's count). */
int hc_cc_first_v(int ci, const int64_t *raw, const hc_cc_vec *v, MPI_Request *req, int *rc)
{
	unsigned long before = cc_served + cc_handed;
	int ran = hc_cc_first(ci, raw, v, 0, req, rc);
	if (cc_served + cc_handed != before && raw[0] >= HC_CC_GATHERV && raw[0] < HC_CC_END)
		cc_vserved[raw[0] - HC_CC_GATHERV]++;
	return ran;
}

int hc_cc_plan_ok(const hc_cp_plan *p, const int64_t *k)
{
	return learnable(p, k);
}

int hc_cc_prun(const hc_flcomm *f, const hc_cp_plan *p, uint32_t ctx, uint32_t tag, MPI_Op op, MPI_Datatype dt,
	       int64_t esize, MPI_Request h, uint32_t *kp, uint64_t *donep)
{
	unsigned char *st = f->st;
	if (!lane_open(st, p->oversub, hc_lane_n | hc_cn_n)) return -1;
	hc_cplan *a = f->cc;
	int spins = a && a->nbdefer ? 0 : CC_SPINS;
	/* Oversubscribed, a start that cannot finish at once costs two Go
	 * calls (C's try, then Go from where it stopped) against Go's one:
	 * persistent starts go to Go whole then (compare-coll's p/b, 4 and
	 * 8 ranks on 2 CPUs: 1.14-1.15 with them in C), unless the program
	 * waits at once (nbc_atonce.c), when the start runs as the blocking
	 * call, yielding a few times for the peers (a fresh budget: the tag
	 * is the same at every start), and rarely stops. Only then does a
	 * start's stamp matter (its Go start leaves one too: p2p.c). */
	if (__builtin_expect(p->oversub != 0, 0)) { /* the page's word, as lane_open checked */
		if (!hc_nb_atonce) return -1;
		spins = CC_YIELDING;
		cc_until_tag = UINT32_MAX;
		hc_nb_atonce_starts++;
		hc_nb_stamp_req = h; /* stamped at the end */
	}
	move((void *)(uintptr_t)p->own_dst, (const void *)(uintptr_t)p->own_src, p->own_len);
	int64_t key[8] = {0, 0, 0, 0, (int64_t)(intptr_t)dt, (int64_t)(intptr_t)op, 0, esize};
	int r = rounds(st, p, ctx, tag, key, spins, 0, 0, kp, donep);
	if (__builtin_expect(p->oversub != 0, 0)) hc_nb_started(hc_nb_stamp_req);
	if (r < 0) return -2;
	if (r) {
		cc_served++;
		if (a) a->served++;
	} else {
		cc_handed++;
	}
	return r;
}

int hc_cc_resume(int ci, const hc_cp_plan *p, uint32_t tag, MPI_Op op, MPI_Datatype dt, int64_t esize, int spins,
		 uint32_t *kp, uint64_t *donep)
{
	const hc_flcomm *f = hc_comms[ci].fl;
	/* Only this run is pending in C (its plan's others go to Go first). */
	if (!f || !f->cc || !lane_open(f->st, p->oversub, hc_lane_n)) return -1;
	hc_cplan *a = f->cc;
	if (U32(f->st, HC_FL_OVERSUB)) spins = 0;
	int64_t key[8] = {0, 0, 0, 0, (int64_t)(intptr_t)dt, (int64_t)(intptr_t)op, 0, esize};
	int r = rounds(f->st, p, (uint32_t)a->ctx, tag, key, spins, *kp, *donep, kp, donep);
	if (r < 0) return -2;
	if (r) {
		a->served++;
		cc_served++;
	}
	return r;
}
