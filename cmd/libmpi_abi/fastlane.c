/*
 * fastlane.c — blocking MPI_Send of a small contiguous message and MPI_Recv
 * of one already at the head of its channel, without entering Go.
 *
 * The rules are the Go engine's own fast lane (mpi/fastlane.go): a receive
 * naming a source may take the head of that source's channel only while the
 * engine holds no posted receive and no unexpected message, and only an
 * inline message of the receive's context and tag that fits; a send may
 * publish only while Go has nothing queued toward the peer. Anything else
 * returns 0 and the caller enters Go, which then does exactly what it did
 * before. The state words (shm/fastlane.go) say whether this may run at all:
 * never under MPI_THREAD_MULTIPLE, asynchronous progress, checksums, after a
 * fatal error or Finalize; so no Go code runs beside it.
 *
 * Messages of 1,041 B to 4 KiB travel the same way as spans over
 * consecutive slots (shm/span.go), which only C sends: up to the size Go
 * would send eager to that peer (the entry's spanMax), never across the
 * ring's end. Go's drain takes the spans C does not.
 *
 * Every value read from the shared region (the slot's publish word, kind,
 * flags, context, tag and length, a span's continuation words) is checked
 * before use; a slot that is not exactly a published inline message or span
 * goes to Go, which reports corruption.
 */
#include <limits.h>
#include <sched.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fastlane.h"
#include "_cgo_export.h"
#include "golane.h"

int hc_fl_threads_ok;

/* Calls served here, for HYMPI_DEBUG's report (and the tests that read it). */
static unsigned long hc_fl_sends, hc_fl_recvs, hc_fl_span_sends, hc_fl_span_recvs;

static unsigned long lane_posts, lane_done, lane_syncs;
/* Why MPI_Waitall over lane receives went on in Go: a head message the
 * lane may not take, or the wait's spin budget spent. */
static unsigned long lane_wa_stuck, lane_wa_idle;
/* Sleeping senders a batch of hand-backs woke (rel_flush). */
static unsigned long rel_wakes;

void hc_fl_report(int rank)
{
	fprintf(stderr, "hympi[debug]: rank %d: fast lane: %lu sends, %lu receives without Go\n", rank, hc_fl_sends,
		hc_fl_recvs);
	fprintf(stderr, "hympi[debug]: rank %d: spans: %lu sent, %lu received in C\n", rank, hc_fl_span_sends,
		hc_fl_span_recvs);
	fprintf(stderr, "hympi[debug]: rank %d: receive lane: %lu posted, %lu completed in C, %lu handed to Go\n", rank,
		lane_posts, lane_done, lane_syncs);
	fprintf(stderr,
		"hympi[debug]: rank %d: receive lane waitall: %lu to Go for a head it may not take, %lu after its spins; "
		"batched hand-backs woke %lu sleeping senders\n",
		rank, lane_wa_stuck, lane_wa_idle, rel_wakes);
}

/* Spins a receive makes for a message not there yet before it enters Go
 * (whose wait spins, yields and sleeps): a few microseconds, which covers a
 * peer that is just sending; none when ranks outnumber CPUs. */
enum { HC_FL_SPIN = 256 };

#define U32(p, off) (*(uint32_t *)((p) + (off)))
#define U64(p, off) (*(uint64_t *)((p) + (off)))

static inline uint32_t ld32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }

/* lap_of is the publish word that says "free" for ring position pos of
 * nslots (a power of two, Go's invariant): 2 * (pos / nslots), by a shift,
 * since a 64-bit divide takes ~40 cycles (shm/fifo.go does the same). */
static inline uint64_t lap_of(uint64_t pos, uint64_t nslots) { return 2 * (pos >> __builtin_ctzll(nslots)); }

static const hc_flcomm *hc_fl_load(int ci)
{
	hc_comm *c = &hc_comms[ci];
	if (c->fl_state < 0 || !hc_fl_threads_ok) return NULL;
	int size = c->size;
	if (size <= 0) return NULL;
	hc_flcomm *f = malloc(sizeof *f + (size_t)size * sizeof f->world[0]);
	if (!f) return NULL;
	uintptr_t st = 0;
	uint32_t ctx = 0;
	if (!hympi_go_fl_comm(ci, &st, &ctx, f->world, size) || !st || U32((unsigned char *)st, 0) != HC_FL_VERSION) {
		free(f);
		c->fl_state = -1;
		return NULL;
	}
	f->st = (unsigned char *)st;
	f->ctx = ctx;
	f->size = size;
	f->cc = NULL;
	f->cc_state = 0;
	int wsize = (int)U32(f->st, HC_FL_SIZE);
	for (int i = 0; i < size; i++) {
		if (f->world[i] < 0 || f->world[i] >= wsize) {
			free(f);
			c->fl_state = -1;
			return NULL;
		}
	}
	c->fl = f;
	c->fl_state = 1;
	return f;
}

static inline const hc_flcomm *hc_fl_comm(int ci)
{
	const hc_flcomm *f = hc_comms[ci].fl;
	if (__builtin_expect(f != NULL, 1)) return f;
	return hc_fl_load(ci);
}

const hc_flcomm *hc_fl_comm_get(int ci) { return hc_fl_comm(ci); }

void hc_fl_release(int ci)
{
	free(hc_comms[ci].fl);
	hc_comms[ci].fl = NULL;
	hc_comms[ci].fl_state = 0;
}

/* ring wakes the owner of a doorbell if it sleeps (shm/doorbell.go): one load
 * when it is awake. Sequentially consistent like the Go side's, so either the
 * sleeper's re-check sees our publish or we see its sleeper count. */
static inline int ring(unsigned char *e, int seq_off, int sleep_off)
{
	uint32_t *sleepers = (uint32_t *)(uintptr_t)U64(e, sleep_off);
	if (__atomic_load_n(sleepers, __ATOMIC_SEQ_CST) == 0) return 0;
	uint32_t *seq = (uint32_t *)(uintptr_t)U64(e, seq_off);
	__atomic_add_fetch(seq, 1, __ATOMIC_SEQ_CST);
	/* Not FUTEX_PRIVATE: the word is in a mapping shared between processes. */
	syscall(SYS_futex, seq, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	return 1;
}

/* Batched hand-backs. A receive hands its slots back with a store the
 * sender's doorbell check must follow with a full fence between (the
 * sender arms its sleeper count, then looks at the slot again): a locked
 * store per message. On x86 that store waits for the slot's first line to
 * come back exclusive from the sender, who read it since, and holds up the
 * next message's loads meanwhile. A call that takes several messages in a
 * row (MPI_Waitall, MPI_Testall over lane receives) sets rel_batch: each
 * hand-back is then a plain release store, and rel_flush makes the one
 * fence and doorbell check for all of them, before the call spins, returns
 * or takes from another peer. A sender that sleeps meanwhile waits at most
 * until then, and is never missed: its re-check sees the stores or we see
 * its sleeper count. */
static int rel_batch;
static unsigned char *rel_owed; /* the entry whose sender is owed the check */

static void rel_flush(void)
{
	if (!rel_owed) return;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	rel_wakes += ring(rel_owed, HC_FE_SND_SEQ, HC_FE_SND_SLEEP);
	rel_owed = NULL;
}

/* hand_back releases the n slots from slot on (a head, or a span's head
 * whose continuation words are already released) for lap's successor,
 * advances the read position and checks the sender's doorbell now or, in
 * a batch, by rel_flush. */
static inline __attribute__((always_inline)) void hand_back(unsigned char *e, unsigned char *slot, uint64_t lap,
							    uint64_t pos, uint64_t n)
{
	if (rel_batch) {
		if (rel_owed != e) {
			rel_flush();
			rel_owed = e;
		}
		__atomic_store_n((uint64_t *)slot, lap + 2, __ATOMIC_RELEASE);
		U64(e, HC_FE_IN_POS) = pos + n;
		return;
	}
	__atomic_store_n((uint64_t *)slot, lap + 2, __ATOMIC_SEQ_CST);
	U64(e, HC_FE_IN_POS) = pos + n;
	ring(e, HC_FE_SND_SEQ, HC_FE_SND_SLEEP);
}

/* span_slots is the number of slots a span of n bytes fills (n > HC_INLINE_MAX). */
static inline uint64_t span_slots(uint32_t n)
{
	if (n <= HC_SPAN_HEAD_MAX) return 1;
	return 1 + (n - HC_SPAN_HEAD_MAX + HC_SPAN_NEXT_MAX - 1) / HC_SPAN_NEXT_MAX;
}

static inline uint32_t min32(uint32_t a, uint32_t b) { return a < b ? a : b; }

/* copy_bytes is memcpy where the compiler must not expand it: knowing a
 * span's pieces are at most a slot long, it would inline them as rep movsq,
 * slower at these sizes than the C library's vector copy. */
static inline void copy_bytes(void *dst, const void *src, size_t n)
{
	__asm__("" : "+r"(n)); /* hides n's bound */
	memcpy(dst, src, n);
}

/* copy_msg copies an inline message's payload into or out of its slot.
 * Left to itself GCC expands the receive's memcpy, whose length it knows
 * is at most a slot's, as rep movsq behind two 8-byte moves: on this AMD
 * EPYC a 1 KiB copy from a slot's payload (24 bytes into its first line)
 * then took ~16 ns against ~10 for the C library's vector copy, and an
 * 8-byte one paid the string instruction's start-up for no bytes at all;
 * the send's went to the library even for 8 bytes. So up to 16 bytes are
 * moved by hand, the rest by the library. */
static inline void copy_msg(unsigned char *dst, const unsigned char *src, uint32_t n)
{
	if (__builtin_expect(n > 16, 0)) {
		copy_bytes(dst, src, n);
	} else if (n >= 8) {
		uint64_t a, b;
		memcpy(&a, src, 8);
		memcpy(&b, src + n - 8, 8);
		memcpy(dst, &a, 8);
		memcpy(dst + n - 8, &b, 8);
	} else if (n >= 4) {
		uint32_t a, b;
		memcpy(&a, src, 4);
		memcpy(&b, src + n - 4, 4);
		memcpy(dst, &a, 4);
		memcpy(dst + n - 4, &b, 4);
	} else if (n) {
		dst[0] = src[0];
		if (n > 1) {
			uint16_t b;
			memcpy(&b, src + n - 2, 2);
			memcpy(dst + n - 2, &b, 2);
		}
	}
}

/* published ends a send of len bytes in k slots from pos on, whose head
 * slot holds lap+1 now: the position, the receiver's summary bit and
 * doorbell, the counters. */
static inline __attribute__((always_inline)) void published(unsigned char *e, uint64_t pos, uint64_t k, int self,
							     uint32_t len)
{
	U64(e, HC_FE_OUT_POS) = pos + k;
	uint64_t *sum = (uint64_t *)(uintptr_t)U64(e, HC_FE_SUM_WORD);
	uint64_t bit = (uint64_t)1 << (self & 63);
	if (!(__atomic_load_n(sum, __ATOMIC_SEQ_CST) & bit)) __atomic_fetch_or(sum, bit, __ATOMIC_SEQ_CST);
	ring(e, HC_FE_BELL_SEQ, HC_FE_BELL_SLEEP);
	U64(e, HC_FE_C_MSGS) += 1;
	U64(e, HC_FE_C_BYTES) += len;
	hc_fl_sends++;
}

static inline void put_envelope(unsigned char *slot, int kind, uint32_t ctx, int tag, uint32_t len)
{
	slot[HC_DESC_KIND] = (unsigned char)kind;
	slot[HC_DESC_FLAGS] = 0;
	memcpy(slot + HC_DESC_CTX, &ctx, 4);
	memcpy(slot + HC_DESC_TAG, &tag, 4);
	memcpy(slot + HC_DESC_FRAGLEN, &len, 4);
}

/* The payload bytes that share the slot's first cache line with its
 * publish word and envelope. */
enum { HC_LINE0 = 64 - HC_DESC_HEADER };

/* put_head writes a slot's first cache line, for a message of len >=
 * HC_LINE0 bytes from buf: the envelope and the first HC_LINE0 payload
 * bytes; the rest of the payload is in place already. Senders write this
 * line last, right before the publish word in it: a receiver waiting for
 * the message reads that word over and over, and each read pulls the line
 * to its core. Written first (the envelope, then the rest of the payload,
 * then the publish), the line went to the receiver while the sender was
 * still copying and had to come back for the publish, a cross-core
 * transfer on the message's critical path. Under load (per-sample medians,
 * A/B, docs/bench/callgrind.md): 2 KiB ping-pong halves -17 to -26%,
 * windows of 2 KiB sends -14 to -23% per message, 1 KiB -3 to -10%. */
static inline void put_head(unsigned char *slot, int kind, uint32_t ctx, int tag, uint32_t len,
			    const unsigned char *buf)
{
	uint64_t a[HC_LINE0 / 8];
	memcpy(a, buf, sizeof a);
	put_envelope(slot, kind, ctx, tag, len);
	memcpy(slot + HC_DESC_HEADER, a, sizeof a);
}

/* send_span is hc_fl_send for len > HC_INLINE_MAX: the same checks, then
 * only where Go too would send the message eager, and only before the
 * ring's end (Go streams it through cells otherwise). It fills the
 * continuation slots, their publish words included, then publishes the
 * head, which makes all of it visible. Apart, so that the inline path pays
 * nothing for it. */
static __attribute__((noinline)) int send_span(int ci, const void *buf, int64_t n, int dest, int tag)
{
	if ((uint64_t)n > HC_SPAN_MAX || tag < 0) return 0;
	const hc_flcomm *f = hc_fl_comm(ci);
	if (!f || (unsigned)dest >= (unsigned)f->size) return 0;
	unsigned char *st = f->st;
	if (!U32(st, HC_FL_RUN)) return 0;
	int self = (int)U32(st, HC_FL_RANK), w = f->world[dest];
	if (w == self) return 0;
	unsigned char *e = st + HC_FL_HEADER + (size_t)w * HC_FL_ENTRY;
	uint32_t len = (uint32_t)n, ctx = f->ctx;
	if (!U32(e, HC_FE_OUT_OPEN) || len > U32(e, HC_FE_SPAN_OUT)) return 0;
	uint64_t nslots = U64(e, HC_FE_OUT_N), pos = U64(e, HC_FE_OUT_POS), k = span_slots(len);
	unsigned char *slot = (unsigned char *)(uintptr_t)U64(e, HC_FE_OUT_SLOTS) + (pos & (nslots - 1)) * HC_SLOT_SIZE;
	uint64_t lap = lap_of(pos, nslots);
	if ((pos & (nslots - 1)) + k > nslots) return 0;
	for (uint64_t j = 0; j < k; j++)
		if (__atomic_load_n((uint64_t *)(slot + j * HC_SLOT_SIZE), __ATOMIC_ACQUIRE) != lap) return 0;
	/* The continuation slots, then the head slot from its second line
	 * on, then its first line (put_head says why). */
	uint32_t off = min32(len, HC_SPAN_HEAD_MAX);
	for (uint64_t j = 1; j < k; j++) {
		unsigned char *s = slot + j * HC_SLOT_SIZE;
		uint32_t m = min32(len - off, HC_SPAN_NEXT_MAX);
		copy_bytes(s + 8, (const unsigned char *)buf + off, m);
		off += m;
		__atomic_store_n((uint64_t *)s, lap + 1, __ATOMIC_RELAXED);
	}
	copy_bytes(slot + 64, (const unsigned char *)buf + HC_LINE0, min32(len, HC_SPAN_HEAD_MAX) - HC_LINE0);
	put_head(slot, HC_KIND_SPAN, ctx, tag, len, buf);
	__atomic_store_n((uint64_t *)slot, lap + 1, __ATOMIC_SEQ_CST);
	published(e, pos, k, self, len);
	hc_fl_span_sends++;
	return 1;
}

int hc_fl_send(int ci, const void *buf, int64_t n, int dest, int tag)
{
	if (__builtin_expect((uint64_t)n > HC_INLINE_MAX, 0)) return send_span(ci, buf, n, dest, tag);
	if (tag < 0) return 0;
	const hc_flcomm *f = hc_fl_comm(ci);
	if (!f || (unsigned)dest >= (unsigned)f->size) return 0;
	unsigned char *st = f->st;
	if (!U32(st, HC_FL_RUN)) return 0;
	int self = (int)U32(st, HC_FL_RANK), w = f->world[dest];
	if (w == self) return 0;
	unsigned char *e = st + HC_FL_HEADER + (size_t)w * HC_FL_ENTRY;
	if (!U32(e, HC_FE_OUT_OPEN)) return 0;
	uint64_t nslots = U64(e, HC_FE_OUT_N), pos = U64(e, HC_FE_OUT_POS);
	unsigned char *slot = (unsigned char *)(uintptr_t)U64(e, HC_FE_OUT_SLOTS) + (pos & (nslots - 1)) * HC_SLOT_SIZE;
	uint64_t lap = lap_of(pos, nslots);
	/* Acquire: the consumer has finished reading the slot's last message. */
	if (__atomic_load_n((uint64_t *)slot, __ATOMIC_ACQUIRE) != lap) return 0; /* ring full */
	uint32_t len = (uint32_t)n;
	if (__builtin_expect(len > HC_LINE0, 0)) {
		/* The payload past the first line, then the first line (put_head). */
		copy_msg(slot + 64, (const unsigned char *)buf + HC_LINE0, len - HC_LINE0);
		put_head(slot, HC_KIND_INLINE, f->ctx, tag, len, buf);
	} else {
		put_envelope(slot, HC_KIND_INLINE, f->ctx, tag, len);
		copy_msg(slot + HC_DESC_HEADER, buf, len);
	}
	/* The publish: after the envelope and payload, and (sequentially
	 * consistent) before the doorbell's sleeper load in published. */
	__atomic_store_n((uint64_t *)slot, lap + 1, __ATOMIC_SEQ_CST);
	published(e, pos, 1, self, len);
	return 1;
}

static inline int check_slot(const unsigned char *slot, uint32_t ctx, int tag, int64_t cap, int64_t small, uint32_t *len)
{
	uint32_t n = ld32(slot + HC_DESC_FRAGLEN);
	if (slot[HC_DESC_KIND] != HC_KIND_INLINE || slot[HC_DESC_FLAGS] != 0) return 0;
	if (ld32(slot + HC_DESC_CTX) != ctx) return 0;
	if (tag != MPI_ANY_TAG && (int32_t)ld32(slot + HC_DESC_TAG) != tag) return 0;
	/* A length beyond the slot is corruption, beyond the buffer a
	 * truncation, beyond small a message the skew controller counts: all
	 * for Go to handle. */
	if (n > HC_INLINE_MAX || (int64_t)n > cap || (int64_t)n > small) return 0;
	*len = n;
	return 1;
}

/* check_span is check_slot for a span's head (the same rule, its own
 * lengths), apart so that the inline case pays nothing for it. */
static inline int check_span(const unsigned char *slot, uint32_t ctx, int tag, int64_t cap, int64_t small,
			     uint32_t *len)
{
	uint32_t n = ld32(slot + HC_DESC_FRAGLEN);
	if (slot[HC_DESC_KIND] != HC_KIND_SPAN || slot[HC_DESC_FLAGS] != 0) return 0;
	if (ld32(slot + HC_DESC_CTX) != ctx) return 0;
	if (tag != MPI_ANY_TAG && (int32_t)ld32(slot + HC_DESC_TAG) != tag) return 0;
	if (n <= HC_INLINE_MAX || n > HC_SPAN_MAX || (int64_t)n > cap || (int64_t)n > small) return 0;
	*len = n;
	return 1;
}

static inline int check_any(const unsigned char *slot, uint32_t ctx, int tag, int64_t cap, int64_t small, uint32_t *len)
{
	return check_slot(slot, ctx, tag, cap, small, len) || check_span(slot, ctx, tag, cap, small, len);
}

/* span_ok checks the continuation slots of the k-slot span whose head is
 * at ring index i of nslots (lap's): before the ring's end, each published
 * for the same lap. Anything else is for Go (which reports corruption). */
static inline int span_ok(const unsigned char *slot, uint64_t i, uint64_t k, uint64_t nslots, uint64_t lap)
{
	if (i + k > nslots) return 0;
	for (uint64_t j = 1; j < k; j++)
		if (__atomic_load_n((const uint64_t *)(slot + j * HC_SLOT_SIZE), __ATOMIC_ACQUIRE) != lap + 1) return 0;
	return 1;
}

static void get_span(unsigned char *buf, const unsigned char *slot, uint32_t len, uint64_t k)
{
	uint32_t off = min32(len, HC_SPAN_HEAD_MAX);
	copy_bytes(buf, slot + HC_DESC_HEADER, off);
	for (uint64_t j = 1; j < k; j++) {
		uint32_t m = min32(len - off, HC_SPAN_NEXT_MAX);
		copy_bytes(buf + off, slot + j * HC_SLOT_SIZE + 8, m);
		off += m;
	}
}

int hc_fl_check_slot(const unsigned char *slot, uint32_t ctx, int tag, int64_t cap, int64_t small, uint32_t *len)
{
	return check_any(slot, ctx, tag, cap, small, len);
}

/* take_span takes the span of n bytes whose head (published, checked by
 * check_span) is slot, on the channel of entry e: its continuation slots
 * checked, the payload copied, all its slots handed back; got as for
 * take_head. 1, or -1 for Go. */
static int take_span(unsigned char *e, unsigned char *slot, void *buf, uint32_t n,
					       uint32_t got[2])
{
	uint64_t nslots = U64(e, HC_FE_IN_N), pos = U64(e, HC_FE_IN_POS);
	uint64_t lap = lap_of(pos, nslots), k = span_slots(n);
	if (!span_ok(slot, pos & (nslots - 1), k, nslots, lap)) return -1;
	got[1] = ld32(slot + HC_DESC_TAG);
	get_span(buf, slot, n, k);
	for (uint64_t j = 1; j < k; j++) __atomic_store_n((uint64_t *)(slot + j * HC_SLOT_SIZE), lap + 2, __ATOMIC_RELEASE);
	hand_back(e, slot, lap, pos, k);
	got[0] = n;
	hc_fl_span_recvs++;
	return 1;
}

/* span_head takes the span at the head of world rank w's channel
 * (published: take_head has looked) if the receive rule allows it (ctx and
 * tag packed in ct): 1, or -1 for Go. Six arguments, so that take_head's
 * call is a jump and its inline path keeps its short prologue. */
static __attribute__((noinline)) int span_head(unsigned char *st, int w, uint64_t ct, void *buf, int64_t cap,
					       uint32_t got[2])
{
	unsigned char *e = st + HC_FL_HEADER + (size_t)w * HC_FL_ENTRY;
	uint64_t nslots = U64(e, HC_FE_IN_N), pos = U64(e, HC_FE_IN_POS);
	unsigned char *slot = (unsigned char *)(uintptr_t)U64(e, HC_FE_IN_SLOTS) + (pos & (nslots - 1)) * HC_SLOT_SIZE;
	uint32_t n;
	if (!check_span(slot, (uint32_t)(ct >> 32), (int32_t)ct, cap, (int64_t)U64(st, HC_FL_SMALL), &n)) return -1;
	return take_span(e, slot, buf, n, got);
}

/* take_head receives the message at the head of world rank w's channel to
 * us into buf, if it is there after up to spins looks and the receive rule
 * allows (an inline message of context ctx and tag that fits cap): 1 then,
 * with its tag and length; 0 when nothing has arrived; -1 when the head is
 * for Go (another kind, context or tag, a truncation, a stream in
 * progress, a corrupt slot). got[0] is the length received, got[1] the tag.
 * Nothing is touched unless it returns 1. */
static inline __attribute__((always_inline)) int take_head(unsigned char *st, int w, uint32_t ctx, int tag, void *buf, int64_t cap, int spins,
		     uint32_t got[2])
{
	unsigned char *e = st + HC_FL_HEADER + (size_t)w * HC_FL_ENTRY;
	if (!U32(e, HC_FE_IN_KNOWN) || U32(e, HC_FE_IN_STREAM)) return -1;
	uint64_t nslots = U64(e, HC_FE_IN_N), pos = U64(e, HC_FE_IN_POS);
	unsigned char *slot = (unsigned char *)(uintptr_t)U64(e, HC_FE_IN_SLOTS) + (pos & (nslots - 1)) * HC_SLOT_SIZE;
	uint64_t lap = lap_of(pos, nslots);
	for (;;) {
		/* Acquire: pairs with the producer's publish. */
		uint64_t v = __atomic_load_n((uint64_t *)slot, __ATOMIC_ACQUIRE);
		if (v == lap + 1) break;
		if (v != lap) return -1; /* corrupt: Go reports it */
		if (spins-- <= 0) return 0;
		__builtin_ia32_pause();
	}
	uint32_t n;
	if (!check_slot(slot, ctx, tag, cap, (int64_t)U64(st, HC_FL_SMALL), &n))
		return span_head(st, w, (uint64_t)ctx << 32 | (uint32_t)tag, buf, cap, got);
	got[1] = ld32(slot + HC_DESC_TAG);
	copy_msg(buf, slot + HC_DESC_HEADER, n);
	/* Hand the slot back (after our reads) for the producer's next lap. */
	hand_back(e, slot, lap, pos, 1);
	got[0] = n;
	return 1;
}

static inline void recv_status(MPI_Status *status, int source, int32_t tag, uint32_t n)
{
	if (status) {
		status->MPI_SOURCE = source;
		status->MPI_TAG = tag;
		status->MPI_internal[0] = (int)n;
		status->MPI_internal[1] = 0;
		status->MPI_internal[2] = 0;
	}
}

int hc_fl_recv(int ci, void *buf, int64_t cap, int source, int tag, MPI_Status *status)
{
	if (tag < 0 && tag != MPI_ANY_TAG) return 0;
	/* Queued lane receives are older than this one: Go matches it. */
	if (hc_lane_n) return 0;
	const hc_flcomm *f = hc_fl_comm(ci);
	if (!f || (unsigned)source >= (unsigned)f->size) return 0;
	unsigned char *st = f->st;
	if (!U32(st, HC_FL_RUN) || U64(st, HC_FL_POSTED) || U64(st, HC_FL_UNEXP)) return 0;
	int w = f->world[source];
	if (w == (int)U32(st, HC_FL_RANK)) return 0;
	/* No spin for a buffer the skew controller watches: its verdict
	 * reads when Go posted the receive. */
	int spins = U32(st, HC_FL_OVERSUB) || cap > (int64_t)U64(st, HC_FL_SMALL) ? 0 : HC_FL_SPIN;
	uint32_t got[2];
	if (take_head(st, w, f->ctx, tag, buf, cap, spins, got) != 1) return 0;
	recv_status(status, source, (int32_t)got[1], got[0]);
	hc_fl_recvs++;
	return 1;
}

/* ---- the receive lane ----
 *
 * The queue is a ring of entry indexes in the order the receives were
 * posted (the order hc_lane_sync hands them to Go), and for each world
 * rank a list of its queued entries in the same order. A receive can
 * complete in C only at the head of its source's list: Go would match the
 * source's next message to the earliest posted receive that matches it,
 * and the queued receives are the only ones posted (no lane receive names
 * MPI_ANY_SOURCE), so the head of the source's list gets the head of the
 * source's channel if it matches, and if it does not, Go decides. Entries
 * completed out of posting order (other sources) leave holes in the ring,
 * skipped by their position: an entry reused since is queued at another. */
enum { HC_LANE_RING = 4 * HC_LANE_CAP };

typedef struct {
	void *buf;
	int64_t cap;
	int ci, source, tag, w;
	uint32_t ctx;
	int next;     /* the next queued entry from w, -1 */
	unsigned pos; /* its ring position */
} hc_lane_ent;

int hc_lane_n;
int hc_in_callback;
unsigned char hc_lane_state[HC_LANE_CAP];
static hc_lane_ent lane[HC_LANE_CAP];
static int lane_free[HC_LANE_CAP], lane_nfree = -1; /* -1: not set up */
static int lane_ring[HC_LANE_RING];
static unsigned ring_head, ring_tail;
static int *src_head, *src_tail; /* per world rank, -1: none */
static unsigned *src_stamp;       /* per world rank, for hc_lane_testall */
static unsigned char *lane_st;

static int lane_setup(unsigned char *st)
{
	int size = (int)U32(st, HC_FL_SIZE);
	src_head = malloc((size_t)size * sizeof *src_head);
	src_tail = malloc((size_t)size * sizeof *src_tail);
	src_stamp = calloc((size_t)size, sizeof *src_stamp);
	if (!src_head || !src_tail || !src_stamp) {
		free(src_head), free(src_tail), free(src_stamp);
		src_head = src_tail = NULL;
		src_stamp = NULL;
		return 0;
	}
	for (int i = 0; i < size; i++) src_head[i] = src_tail[i] = -1;
	for (int k = 0; k < HC_LANE_CAP; k++) lane_free[k] = HC_LANE_CAP - 1 - k;
	lane_nfree = HC_LANE_CAP;
	lane_st = st;
	return 1;
}

/* ring_trim moves the ring's head past the entries completed since it
 * last moved (not at their source's head, or out of posting order):
 * nonzero when that made room. */
static __attribute__((noinline)) int ring_trim(void)
{
	while (ring_head != ring_tail) {
		int h = lane_ring[ring_head % HC_LANE_RING];
		if (hc_lane_state[h] == HC_LANE_QUEUED && lane[h].pos == ring_head) break;
		ring_head++;
	}
	return ring_tail - ring_head < HC_LANE_RING;
}

/* lane_irecv_first is hc_lane_irecv's first call for communicator ci or
 * for the process: it makes the communicator's fast-lane view and the
 * lane's tables, then queues the receive as hc_lane_irecv does. Apart, so
 * that hc_lane_irecv calls nothing and keeps no registers across a call. */
static __attribute__((noinline, cold)) int lane_irecv_first(int ci, void *buf, int64_t n, int source, int tag,
							  MPI_Request *req)
{
	const hc_flcomm *f = hc_fl_comm(ci);
	if (!f) return 0;
	if (lane_nfree < 0) {
		unsigned char *st = f->st;
		/* As hc_lane_irecv would: no tables for a receive it refuses. */
		if (!U32(st, HC_FL_RUN) || U64(st, HC_FL_POSTED) || U64(st, HC_FL_UNEXP)) return 0;
		if (!lane_setup(st)) return 0;
	}
	return hc_lane_irecv(ci, buf, n, source, tag, req);
}

int hc_lane_irecv(int ci, void *buf, int64_t n, int source, int tag, MPI_Request *req)
{
	if (tag < 0 && tag != MPI_ANY_TAG) return 0;
	if (hc_in_callback) return 0;
	const hc_flcomm *f = hc_comms[ci].fl;
	if (__builtin_expect(!f || lane_nfree < 0, 0)) return lane_irecv_first(ci, buf, n, source, tag, req);
	if ((unsigned)source >= (unsigned)f->size) return 0;
	unsigned char *st = f->st;
	/* None of these words changes while receives are queued (Go is not
	 * entered then): checked for the first one, they hold for the rest. */
	if (!hc_lane_n && (!U32(st, HC_FL_RUN) || U64(st, HC_FL_POSTED) || U64(st, HC_FL_UNEXP))) return 0;
	if (n > (int64_t)U64(st, HC_FL_SMALL)) return 0; /* the skew controller's business */
	int w = f->world[source];
	if (w == (int)U32(st, HC_FL_RANK)) return 0;
	if (lane_nfree == 0 || (ring_tail - ring_head == HC_LANE_RING && !ring_trim())) return 0;
	int k = lane_free[--lane_nfree];
	hc_lane_ent *x = &lane[k];
	x->buf = buf;
	x->cap = n;
	x->ci = ci;
	x->source = source;
	x->tag = tag;
	x->w = w;
	x->ctx = f->ctx;
	x->next = -1;
	x->pos = ring_tail;
	if (src_tail[w] < 0)
		src_head[w] = k;
	else
		lane[src_tail[w]].next = k;
	src_tail[w] = k;
	lane_ring[ring_tail++ % HC_LANE_RING] = k;
	hc_lane_state[k] = HC_LANE_QUEUED;
	hc_lane_n++;
	lane_posts++;
	*req = (MPI_Request)(HC_LANE_H0 + k);
	return 1;
}

/* lane_take completes queued entry k if it heads its source's list and
 * its message is there (take_head's 1, 0 and -1; -1 also when k is not at
 * the head). On success k is free again and its handle is the caller's to
 * clear. */
static inline __attribute__((always_inline)) int lane_take_inl(int k, int spins, MPI_Status *status)
{
	hc_lane_ent *x = &lane[k];
	int w = x->w;
	if (src_head[w] != k || !U32(lane_st, HC_FL_RUN)) return -1;
	uint32_t got[2];
	int rc = take_head(lane_st, w, x->ctx, x->tag, x->buf, x->cap, spins, got);
	if (rc != 1) return rc;
	recv_status(status, x->source, (int32_t)got[1], got[0]);
	if ((src_head[w] = x->next) < 0) src_tail[w] = -1;
	hc_lane_state[k] = HC_LANE_FREE;
	lane_free[lane_nfree++] = k;
	lane_done++;
	/* The ring's head moves past completed entries lazily (ring_trim);
	 * an empty queue, every window's end, clears it at once. */
	if (--hc_lane_n == 0) ring_head = ring_tail;
	return 1;
}

/* lane_take out of line, for the calls that take one message; the window's
 * loop (hc_lane_waitall) has it inline. */
static __attribute__((noinline)) int lane_take(int k, int spins, MPI_Status *status)
{
	return lane_take_inl(k, spins, status);
}

void hc_lane_sync(void)
{
	if (!hc_lane_n) return;
	static hc_lane_post out[HC_LANE_CAP];
	int n = 0;
	for (; ring_head != ring_tail; ring_head++) {
		int k = lane_ring[ring_head % HC_LANE_RING];
		hc_lane_ent *x = &lane[k];
		if (hc_lane_state[k] != HC_LANE_QUEUED || x->pos != ring_head) continue;
		out[n++] = (hc_lane_post){x->buf, x->cap, x->ci, x->source, x->tag, k};
		hc_lane_state[k] = HC_LANE_GO;
		src_head[x->w] = src_tail[x->w] = -1;
	}
	/* Empty before the call: nothing Go does may see these twice. */
	hc_lane_n = 0;
	lane_syncs++;
	hympi_go_lane_flush(out, n);
}

void hc_lane_give(int k)
{
	if ((unsigned)k < HC_LANE_CAP && hc_lane_state[k] == HC_LANE_GO && lane_nfree >= 0) {
		hc_lane_state[k] = HC_LANE_FREE;
		lane_free[lane_nfree++] = k;
	}
}

/* Looks at an empty channel head before the caller hands the receive to
 * Go (and Go's wait): none when ranks outnumber CPUs. */
static inline int lane_spins(void) { return U32(lane_st, HC_FL_OVERSUB) ? 0 : HC_FL_SPIN; }

/* Times MPI_Waitall over lane receives yields the CPU, when ranks outnumber
 * CPUs, for messages not there yet before it hands them to Go. There the
 * sender of the window awaited is often waiting for this very CPU
 * (osu_mbw_mr: two pairs on two CPUs), so a spin finds nothing, and
 * without a yield every window went to Go: 7,008 receives queued, none
 * completed in C, at ~4× the instructions per receive. A yield lets the
 * sender run; once its window is published the lane takes it whole. */
enum { HC_LANE_YIELDS = 8 };

int hc_lane_wait(int k, MPI_Request *req, MPI_Status *st)
{
	if (lane_take(k, lane_spins(), st) != 1) return 0;
	*req = MPI_REQUEST_NULL;
	return 1;
}

/* A Test that finds nothing does not enter Go, so that polling costs no
 * call; but Go's progress may be what the message waits for (a send of
 * ours queued in Go that the peer must receive first), so every so many
 * empty Tests in a row go to Go. */
enum { HC_LANE_TEST_MISSES = 64 };
static unsigned lane_misses;

int hc_lane_test(int k, MPI_Request *req, int *flag, MPI_Status *st)
{
	int rc = lane_take(k, 0, st);
	if (rc == 1) {
		lane_misses = 0;
		*req = MPI_REQUEST_NULL;
		*flag = 1;
		return 1;
	}
	if (rc == 0 && ++lane_misses < HC_LANE_TEST_MISSES) {
		*flag = 0;
		return 1;
	}
	lane_misses = 0;
	return 0;
}

/* hc_lane_any is MPI_Waitany (spin 1) or MPI_Testany (spin 0) over an
 * array of queued lane receives, null handles and completed sends: 1 when
 * it did the call, 0 for Go to do it (nothing changed). */
int hc_lane_any(int count, MPI_Request *reqs, int *index, int *flag, MPI_Status *st, int spin)
{
	int pending = 0;
	for (int i = 0; i < count; i++) {
		if (hc_lane_queued(reqs[i]) >= 0)
			pending++;
		else if (reqs[i] != MPI_REQUEST_NULL)
			return 0; /* completed sends too: Go picks among them */
	}
	if (!pending) return 0;
	int budget = spin ? lane_spins() : 0;
	for (;;) {
		int stuck = 0;
		for (int i = 0; i < count; i++) {
			int k = hc_lane_queued(reqs[i]);
			if (k < 0) continue;
			int rc = lane_take(k, 0, st);
			if (rc == 1) {
				reqs[i] = MPI_REQUEST_NULL;
				*index = i;
				if (flag) *flag = 1;
				lane_misses = 0;
				return 1;
			}
			if (rc < 0 && src_head[lane[k].w] == k) stuck = 1;
		}
		if (stuck) return 0;
		if (!spin) {
			if (++lane_misses >= HC_LANE_TEST_MISSES) {
				lane_misses = 0;
				return 0;
			}
			*index = MPI_UNDEFINED;
			*flag = 0;
			return 1;
		}
		if (budget-- <= 0) return 0;
		__builtin_ia32_pause();
	}
}

/* peek_head is take_head's verdict on the message d slots behind the head
 * of w's channel for entry x, without taking it: 1 there and matching (and
 * *used its slots, more than one for a span), 0 not there yet, -1 for Go. */
static int peek_head(int w, uint64_t d, const hc_lane_ent *x, uint64_t *used)
{
	unsigned char *e = lane_st + HC_FL_HEADER + (size_t)w * HC_FL_ENTRY;
	if (!U32(e, HC_FE_IN_KNOWN) || U32(e, HC_FE_IN_STREAM)) return -1;
	uint64_t nslots = U64(e, HC_FE_IN_N), pos = U64(e, HC_FE_IN_POS) + d;
	if (d >= nslots) return 0; /* not in the ring before the head moves */
	unsigned char *slot = (unsigned char *)(uintptr_t)U64(e, HC_FE_IN_SLOTS) + (pos & (nslots - 1)) * HC_SLOT_SIZE;
	uint64_t lap = lap_of(pos, nslots);
	uint64_t v = __atomic_load_n((uint64_t *)slot, __ATOMIC_ACQUIRE);
	if (v == lap) return 0;
	if (v != lap + 1) return -1;
	uint32_t n;
	if (!check_any(slot, x->ctx, x->tag, x->cap, (int64_t)U64(lane_st, HC_FL_SMALL), &n)) return -1;
	*used = n > HC_INLINE_MAX ? span_slots(n) : 1;
	return *used == 1 || span_ok(slot, pos & (nslots - 1), *used, nslots, lap) ? 1 : -1;
}

/* hc_lane_testall is MPI_Testall over queued lane receives, completed
 * sends and null handles. MPI completes all or nothing, so it first looks
 * whether every receive's message is there (for each source, the queued
 * receives in order, each against the message as many places behind the
 * channel's head), then takes them all. 1 when it did the call, 0 for Go
 * (nothing changed). */
static unsigned char lane_mark_of[HC_LANE_CAP];
static int lane_at[HC_LANE_CAP];

int hc_lane_testall(int count, MPI_Request *reqs, int *flag, MPI_Status *sts)
{
	int lanes = 0;
	for (int i = 0; i < count; i++) {
		int k = hc_lane_queued(reqs[i]);
		if (k >= 0) {
			if (lane_mark_of[k]) goto clear; /* the same handle twice: Go reports it */
			lane_mark_of[k] = 1;
			lane_at[k] = i;
			lanes++;
		} else if (reqs[i] != MPI_REQUEST_NULL && reqs[i] != HC_REQ_DONE) {
			goto clear;
		}
	}
	if (!lanes || !U32(lane_st, HC_FL_RUN)) goto clear;
	static unsigned stamp;
	stamp++;
	int ready = 0, rc = 1;
	for (int i = 0; i < count && rc == 1; i++) {
		int k = hc_lane_queued(reqs[i]);
		if (k < 0 || src_stamp[lane[k].w] == stamp) continue;
		int w = lane[k].w;
		src_stamp[w] = stamp;
		uint64_t d = 0, used = 0;
		for (int j = src_head[w]; j >= 0 && lane_mark_of[j] && rc == 1; j = lane[j].next, d += used) {
			rc = peek_head(w, d, &lane[j], &used);
			ready += rc == 1;
		}
	}
	if (rc < 0 || (rc == 1 && ready != lanes)) goto clear; /* Go decides, or one waits behind another */
	if (rc == 0) {
		for (int i = 0; i < count; i++) {
			int k = hc_lane_queued(reqs[i]);
			if (k >= 0) lane_mark_of[k] = 0;
		}
		if (++lane_misses >= HC_LANE_TEST_MISSES) {
			lane_misses = 0;
			return 0;
		}
		*flag = 0;
		return 1;
	}
	/* Every message is there: take them, each source's in order, with
	 * one doorbell check per source at the end. */
	rel_batch = 1;
	for (int i = 0; sts && i < count; i++) {
		if (reqs[i] != MPI_REQUEST_NULL) continue;
		hc_status_set(&sts[i], MPI_ANY_SOURCE, MPI_ANY_TAG, 0, 0);
		sts[i].MPI_ERROR = MPI_SUCCESS;
	}
	for (int i = 0; i < count; i++) {
		int k = hc_lane_queued(reqs[i]);
		if (k < 0) continue;
		int w = lane[k].w;
		while (src_head[w] >= 0 && lane_mark_of[src_head[w]]) {
			int h = src_head[w], at = lane_at[h];
			lane_mark_of[h] = 0;
			if (lane_take(h, 0, sts ? &sts[at] : NULL) != 1) abort(); /* looked at just now */
			reqs[at] = MPI_REQUEST_NULL;
		}
	}
	rel_flush();
	rel_batch = 0;
	for (int i = 0; i < count; i++) {
		MPI_Status *st = sts ? &sts[i] : NULL;
		if (reqs[i] == HC_REQ_DONE) {
			reqs[i] = MPI_REQUEST_NULL;
			hc_done_status(st);
		}
	}
	lane_misses = 0;
	*flag = 1;
	return 1;
clear:
	for (int i = 0; i < count; i++) {
		int k = hc_lane_queued(reqs[i]);
		if (k >= 0) lane_mark_of[k] = 0;
	}
	return 0;
}

/* Statuses of the requests hc_lane_waitall completed before it gave up,
 * for hc_lane_waitall_done to restore over what Go's Waitall writes for
 * their (by then null) handles. */
static int saved_n;
static struct {
	int i;
	MPI_Status st;
} saved[HC_LANE_CAP];

int hc_lane_waitall(int count, MPI_Request *reqs, MPI_Status *sts)
{
	int pending = 0;
	for (int i = 0; i < count; i++) {
		if (hc_lane_queued(reqs[i]) >= 0)
			pending++;
		else if (reqs[i] != MPI_REQUEST_NULL && reqs[i] != HC_REQ_DONE)
			return 0;
	}
	if (!pending) return 0;
	if (sts) {
		/* What Go's Waitall writes for them too, should it finish. */
		for (int i = 0; i < count; i++) {
			if (reqs[i] != MPI_REQUEST_NULL) continue;
			hc_status_set(&sts[i], MPI_ANY_SOURCE, MPI_ANY_TAG, 0, 0);
			sts[i].MPI_ERROR = MPI_SUCCESS;
		}
	}
	saved_n = 0;
	int oversub = U32(lane_st, HC_FL_OVERSUB), budget = oversub ? HC_LANE_YIELDS : HC_FL_SPIN;
	rel_batch = 1;
	for (;;) {
		int progress = 0, stuck = 0;
		for (int i = 0; i < count; i++) {
			int k = hc_lane_queued(reqs[i]);
			if (k < 0) continue;
			MPI_Status *st = sts ? &sts[i] : NULL;
			int rc = lane_take_inl(k, 0, st);
			if (rc == 1) {
				reqs[i] = MPI_REQUEST_NULL;
				if (st) saved[saved_n].i = i, saved[saved_n].st = *st;
				saved_n++;
				pending--;
				progress = 1;
			} else if (rc < 0 && src_head[lane[k].w] == k) {
				stuck = 1; /* Go must decide this one */
			}
		}
		if (pending == 0) break;
		/* Before a wait or a return, the senders learn of the slots. */
		rel_flush();
		if (stuck || (!progress && budget-- <= 0)) {
			if (stuck)
				lane_wa_stuck++;
			else
				lane_wa_idle++;
			rel_batch = 0;
			if (!sts) saved_n = 0;
			return 0;
		}
		if (progress)
			budget = oversub ? HC_LANE_YIELDS : HC_FL_SPIN;
		else if (oversub)
			sched_yield();
		else
			__builtin_ia32_pause();
	}
	rel_flush();
	rel_batch = 0;
	/* The rest of the array: completed sends (null handles had their
	 * status above). */
	for (int i = 0; i < count; i++) {
		if (reqs[i] == HC_REQ_DONE) {
			reqs[i] = MPI_REQUEST_NULL;
			hc_done_status(sts ? &sts[i] : NULL);
		}
	}
	saved_n = 0;
	return 1;
}

void hc_lane_waitall_done(MPI_Status *sts)
{
	for (int j = 0; sts && j < saved_n; j++) {
		MPI_Status *st = &sts[saved[j].i];
		int err = st->MPI_ERROR;
		*st = saved[j].st;
		st->MPI_ERROR = err;
	}
	saved_n = 0;
}
