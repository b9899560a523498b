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
 * Every value read from the shared region (the slot's publish word, kind,
 * flags, context, tag and length) is checked before use; a slot that is not
 * exactly a published inline message goes to Go, which reports corruption.
 */
#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fastlane.h"
#include "_cgo_export.h"

int hc_fl_threads_ok;

/* Calls served here, for HYMPI_DEBUG's report (and the tests that read it). */
static unsigned long hc_fl_sends, hc_fl_recvs;

void hc_fl_report(int rank)
{
	fprintf(stderr, "hympi[debug]: rank %d: fast lane: %lu sends, %lu receives without Go\n", rank, hc_fl_sends,
		hc_fl_recvs);
}

/* Spins a receive makes for a message not there yet before it enters Go
 * (whose wait spins, yields and sleeps): a few microseconds, which covers a
 * peer that is just sending; none when ranks outnumber CPUs. */
enum { HC_FL_SPIN = 256 };

#define U32(p, off) (*(uint32_t *)((p) + (off)))
#define U64(p, off) (*(uint64_t *)((p) + (off)))

static inline uint32_t ld32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }

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

void hc_fl_release(int ci)
{
	free(hc_comms[ci].fl);
	hc_comms[ci].fl = NULL;
	hc_comms[ci].fl_state = 0;
}

/* ring wakes the owner of a doorbell if it sleeps (shm/doorbell.go): one load
 * when it is awake. Sequentially consistent like the Go side's, so either the
 * sleeper's re-check sees our publish or we see its sleeper count. */
static inline void ring(unsigned char *e, int seq_off, int sleep_off)
{
	uint32_t *sleepers = (uint32_t *)(uintptr_t)U64(e, sleep_off);
	if (__atomic_load_n(sleepers, __ATOMIC_SEQ_CST) == 0) return;
	uint32_t *seq = (uint32_t *)(uintptr_t)U64(e, seq_off);
	__atomic_add_fetch(seq, 1, __ATOMIC_SEQ_CST);
	/* Not FUTEX_PRIVATE: the word is in a mapping shared between processes. */
	syscall(SYS_futex, seq, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

int hc_fl_send(int ci, const void *buf, int64_t n, int dest, int tag)
{
	if ((uint64_t)n > HC_INLINE_MAX || tag < 0) return 0;
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
	uint64_t lap = 2 * (pos / nslots);
	/* Acquire: the consumer has finished reading the slot's last message. */
	if (__atomic_load_n((uint64_t *)slot, __ATOMIC_ACQUIRE) != lap) return 0; /* ring full */
	slot[HC_DESC_KIND] = HC_KIND_INLINE;
	slot[HC_DESC_FLAGS] = 0;
	uint32_t len = (uint32_t)n;
	memcpy(slot + HC_DESC_CTX, &f->ctx, 4);
	memcpy(slot + HC_DESC_TAG, &tag, 4);
	memcpy(slot + HC_DESC_FRAGLEN, &len, 4);
	if (len) memcpy(slot + HC_DESC_HEADER, buf, len);
	/* The publish: after the envelope and payload, and (sequentially
	 * consistent) before the doorbell's sleeper load below. */
	__atomic_store_n((uint64_t *)slot, lap + 1, __ATOMIC_SEQ_CST);
	U64(e, HC_FE_OUT_POS) = pos + 1;
	uint64_t *sum = (uint64_t *)(uintptr_t)U64(e, HC_FE_SUM_WORD);
	uint64_t bit = (uint64_t)1 << (self & 63);
	if (!(__atomic_load_n(sum, __ATOMIC_SEQ_CST) & bit)) __atomic_fetch_or(sum, bit, __ATOMIC_SEQ_CST);
	ring(e, HC_FE_BELL_SEQ, HC_FE_BELL_SLEEP);
	U64(e, HC_FE_C_MSGS) += 1;
	U64(e, HC_FE_C_BYTES) += len;
	hc_fl_sends++;
	return 1;
}

int hc_fl_check_slot(const unsigned char *slot, uint32_t ctx, int tag, int64_t cap, int64_t small, uint32_t *len)
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

int hc_fl_recv(int ci, void *buf, int64_t cap, int source, int tag, MPI_Status *status)
{
	if (tag < 0 && tag != MPI_ANY_TAG) return 0;
	const hc_flcomm *f = hc_fl_comm(ci);
	if (!f || (unsigned)source >= (unsigned)f->size) return 0;
	unsigned char *st = f->st;
	if (!U32(st, HC_FL_RUN) || U64(st, HC_FL_POSTED) || U64(st, HC_FL_UNEXP)) return 0;
	int w = f->world[source];
	if (w == (int)U32(st, HC_FL_RANK)) return 0;
	unsigned char *e = st + HC_FL_HEADER + (size_t)w * HC_FL_ENTRY;
	if (!U32(e, HC_FE_IN_KNOWN) || U32(e, HC_FE_IN_STREAM)) return 0;
	uint64_t nslots = U64(e, HC_FE_IN_N), pos = U64(e, HC_FE_IN_POS);
	unsigned char *slot = (unsigned char *)(uintptr_t)U64(e, HC_FE_IN_SLOTS) + (pos & (nslots - 1)) * HC_SLOT_SIZE;
	uint64_t lap = 2 * (pos / nslots);
	/* No spin for a buffer the skew controller watches: its verdict
	 * reads when Go posted the receive. */
	int64_t small = (int64_t)U64(st, HC_FL_SMALL);
	int spins = U32(st, HC_FL_OVERSUB) || cap > small ? 0 : HC_FL_SPIN;
	for (;;) {
		/* Acquire: pairs with the producer's publish. */
		uint64_t v = __atomic_load_n((uint64_t *)slot, __ATOMIC_ACQUIRE);
		if (v == lap + 1) break;
		if (v != lap || spins-- <= 0) return 0; /* corrupt (Go reports it), or not there yet */
		__builtin_ia32_pause();
	}
	uint32_t n;
	if (!hc_fl_check_slot(slot, f->ctx, tag, cap, small, &n)) return 0;
	int32_t got_tag = (int32_t)ld32(slot + HC_DESC_TAG);
	if (n) memcpy(buf, slot + HC_DESC_HEADER, n);
	/* Hand the slot back (after our reads) for the producer's next lap. */
	__atomic_store_n((uint64_t *)slot, lap + 2, __ATOMIC_SEQ_CST);
	U64(e, HC_FE_IN_POS) = pos + 1;
	ring(e, HC_FE_SND_SEQ, HC_FE_SND_SLEEP);
	if (status) {
		status->MPI_SOURCE = source;
		status->MPI_TAG = got_tag;
		status->MPI_internal[0] = (int)n;
		status->MPI_internal[1] = 0;
		status->MPI_internal[2] = 0;
	}
	hc_fl_recvs++;
	return 1;
}
