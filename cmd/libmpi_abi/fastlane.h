/*
 * fastlane.h — the C ABI's hot path for small blocking sends and receives
 * (fastlane.c; up to 4 KiB: one slot inline, or a span over several). It
 * reads and advances the state the Go engine shares with it
 * (shm/fastlane.go documents every word: who writes it, who reads it), so a
 * small MPI_Send or an MPI_Recv whose message is already at the head of its
 * channel makes no call into Go.
 */
#ifndef HYMPI_FASTLANE_H
#define HYMPI_FASTLANE_H

#include <stdint.h>
#include "cabi.h"

/* Layout of shm.FastLane; hc_fl_load checks the version word. */
enum {
	HC_FL_VERSION = 2,
	HC_FL_HEADER = 64,
	HC_FL_ENTRY = 256,

	HC_FL_RUN = 4,
	HC_FL_OVERSUB = 12,
	HC_FL_RANK = 16,
	HC_FL_SIZE = 20,
	HC_FL_POSTED = 24,
	HC_FL_UNEXP = 32,
	HC_FL_SMALL = 40,
	HC_FL_BUSY = 48,

	HC_FE_OUT_SLOTS = 0,
	HC_FE_OUT_N = 8,
	HC_FE_OUT_POS = 16,
	HC_FE_SUM_WORD = 24,
	HC_FE_BELL_SEQ = 32,
	HC_FE_BELL_SLEEP = 40,
	HC_FE_OUT_OPEN = 48,
	HC_FE_SPAN_OUT = 52,
	HC_FE_C_MSGS = 56,
	HC_FE_IN_SLOTS = 64,
	HC_FE_IN_N = 72,
	HC_FE_IN_POS = 80,
	HC_FE_SND_SEQ = 88,
	HC_FE_SND_SLEEP = 96,
	HC_FE_IN_KNOWN = 104,
	HC_FE_IN_STREAM = 108,
	HC_FE_C_BYTES = 112,
	HC_FE_COLL_OUT = 128,
	HC_FE_COLL_OPOS = 136,
	HC_FE_COLL_IN = 144,
	HC_FE_COLL_IPOS = 152,
	HC_FE_COLL_OPEN = 160,
};

/* The collective slot (shm/coll.go) and ring shape (shm/layout.go). */
enum {
	HC_COLL_SLOTS = 64,
	HC_COLL_SLOT_SIZE = 256,
	HC_COLL_CTX = 8,
	HC_COLL_TAG = 12,
	HC_COLL_LEN = 16,
	HC_COLL_RSVD = 20,
	HC_COLL_HEADER = 24,
	HC_COLL_INLINE_MAX = HC_COLL_SLOT_SIZE - HC_COLL_HEADER,
	/* A longer message spans positions, its payload in one piece from the
	 * head's on over theirs, wrapping at the ring's end (shm/coll.go). */
	HC_COLL_MSG_MAX = 8192,
	HC_COLL_SPAN_MAX_SLOTS = (HC_COLL_HEADER + HC_COLL_MSG_MAX + HC_COLL_SLOT_SIZE - 1) / HC_COLL_SLOT_SIZE,
};

/* The descriptor slot (shm/desc.go, shm/layout.go). */
enum {
	HC_SLOT_SIZE = 1024 + 64,
	HC_DESC_KIND = 8,
	HC_DESC_FLAGS = 9,
	HC_DESC_CTX = 12,
	HC_DESC_TAG = 16,
	HC_DESC_FRAGLEN = 20,
	HC_DESC_HEADER = 24,
	HC_INLINE_MAX = HC_SLOT_SIZE - HC_DESC_HEADER - 24,
	HC_KIND_INLINE = 1,
	/* A span (shm/span.go): one message of up to HC_SPAN_MAX bytes over
	 * consecutive slots, HC_SPAN_HEAD_MAX bytes in the head, then
	 * HC_SPAN_NEXT_MAX in each next slot after its publish word. */
	HC_KIND_SPAN = 11,
	HC_SPAN_MAX = 4096,
	HC_SPAN_HEAD_MAX = HC_SLOT_SIZE - HC_DESC_HEADER,
	HC_SPAN_NEXT_MAX = HC_SLOT_SIZE - 8,
};

/* What C knows of one communicator for the fast lane: the process's state,
 * the point-to-point context and rank → world rank. Made on first use (one
 * Go call) and freed with the communicator. */
typedef struct hc_flcomm {
	unsigned char *st;
	uint32_t ctx;
	int size;
	/* The communicator's C plan area (collane.c), mapped by Go on the
	 * first small collective; cc_state -1 when Go said no. */
	struct hc_cplan *cc;
	int cc_state;
	int32_t world[];
} hc_flcomm;

/* 1 once MPI_Init chose a thread level below MPI_THREAD_MULTIPLE. */
HC_HIDDEN extern int hc_fl_threads_ok;

/* hc_fl_send and hc_fl_recv return 1 when they did the whole call, 0 when
 * the caller must take the Go path (nothing was changed then). The caller
 * has checked the communicator, datatype, count and buffer; n is the byte
 * count of a contiguous buffer. */
HC_HIDDEN int hc_fl_send(int ci, const void *buf, int64_t n, int dest, int tag);
HC_HIDDEN int hc_fl_recv(int ci, void *buf, int64_t n, int source, int tag, MPI_Status *st);
/* hc_fl_comm_get is the communicator's fast-lane view, made on first use
 * (NULL: the fast lane cannot serve ci). */
HC_HIDDEN const hc_flcomm *hc_fl_comm_get(int ci);
/* hc_fl_release frees communicator ci's fast-lane data (with hc_lock held
 * by hc_comm_release). */
HC_HIDDEN void hc_fl_release(int ci);
/* hc_fl_report prints how many calls the fast lane served (HYMPI_DEBUG). */
HC_HIDDEN void hc_fl_report(int rank);

/* hc_fl_check_slot is the receive rule's look at a published slot, exposed
 * for the validation test: 1 if the fast lane may take it for a receive on
 * context ctx with tag (or MPI_ANY_TAG) into cap bytes, with small the
 * largest length allowed; *len is then the payload length. For a span it
 * judges the head only: the taker checks the continuation slots. */
HC_HIDDEN int hc_fl_check_slot(const unsigned char *slot, uint32_t ctx, int tag, int64_t cap, int64_t small,
			       uint32_t *len);

/* ---- the receive lane (fastlane.c) ----
 *
 * MPI_Irecv naming a source, into a contiguous buffer, while the engine
 * holds no posted receive and no unexpected message, is queued here in C
 * instead of posted in Go, and MPI_Wait/Waitall/Test complete it off the
 * head of its source's channel. While the queue is not empty its entries
 * are the oldest posted receives of the process: every call into Go first
 * hands them to the engine in order (hc_lane_sync, run by the wrappers of
 * golane.h), so Go's matching sees exactly what it would have seen had
 * each MPI_Irecv entered Go.
 *
 * A lane receive's handle is a request index of the reserved range
 * [HC_LANE_BASE, HC_LANE_BASE + HC_LANE_CAP) below HC_REQ_DONE's: the Go
 * request table never hands those out, and takes over the slot of the
 * same index when the queue is handed to it (then the handle is an
 * ordinary request until Go frees it, and gives the index back). */
enum { HC_LANE_CAP = 256 };
#define HC_LANE_BASE (HC_INDEX_MASK - 1 - HC_LANE_CAP)
#define HC_LANE_H0 (((intptr_t)HK_REQ << HC_KIND_SHIFT) | HC_LANE_BASE)

/* One queued receive as Go posts it (hympi_go_lane_flush), oldest first. */
typedef struct {
	void *buf;
	int64_t n;
	int ci, source, tag, k;
} hc_lane_post;

/* Queued lane receives: the one word every call into Go looks at. */
HC_HIDDEN extern int hc_lane_n;
/* hc_in_callback counts the user callbacks Go has called and that have not
 * returned (reduction ops, generalized-request callbacks). Under one the
 * engine is mid-call, so the lane's premise (Go holds no posted or
 * unexpected receive and will not run before the queue is handed over)
 * does not hold: MPI_Irecv goes to Go. */
HC_HIDDEN extern int hc_in_callback;

/* hc_lane_sync hands the queued receives to Go (when there are any). */
HC_HIDDEN void hc_lane_sync(void);
/* hc_lane_give takes back index k from Go once its request is freed. */
HC_HIDDEN void hc_lane_give(int k);

/* hc_lane_irecv queues a receive and sets *req, returning 1; 0 when the
 * lane may not take it (nothing changed). Arguments as for hc_fl_recv. */
HC_HIDDEN int hc_lane_irecv(int ci, void *buf, int64_t n, int source, int tag, MPI_Request *req);

/* hc_lane_state[k]: HC_LANE_QUEUED while index k is a receive in the
 * queue (HC_LANE_FREE: unused; HC_LANE_GO: Go owns the slot). */
enum { HC_LANE_FREE, HC_LANE_QUEUED, HC_LANE_GO };
HC_HIDDEN extern unsigned char hc_lane_state[HC_LANE_CAP];

/* hc_lane_queued is k if h is the handle of a queued lane receive, -1
 * otherwise (a subtraction and a compare for any other handle). */
static inline int hc_lane_queued(MPI_Request h)
{
	uintptr_t k = (uintptr_t)h - (uintptr_t)HC_LANE_H0;
	return k < HC_LANE_CAP && hc_lane_state[k] == HC_LANE_QUEUED ? (int)k : -1;
}

/* hc_lane_wait, hc_lane_test and hc_lane_waitall complete lane receives
 * in C. They return 1 when they did the whole call, 0 when the caller must
 * go on in Go (which hc_lane_sync prepares), having changed nothing the
 * caller has not been told about: hc_lane_waitall may have completed some
 * requests (their handles set to MPI_REQUEST_NULL, their statuses saved),
 * and hc_lane_waitall_done puts those statuses back after Go's Waitall. */
HC_HIDDEN int hc_lane_wait(int k, MPI_Request *req, MPI_Status *st);
HC_HIDDEN int hc_lane_test(int k, MPI_Request *req, int *flag, MPI_Status *st);
HC_HIDDEN int hc_lane_waitall(int count, MPI_Request *reqs, MPI_Status *sts);
HC_HIDDEN void hc_lane_waitall_done(MPI_Status *sts);
/* hc_lane_any is MPI_Waitany (spin 1, flag NULL) or MPI_Testany (spin 0)
 * over queued lane receives and null handles. */
HC_HIDDEN int hc_lane_testall(int count, MPI_Request *reqs, int *flag, MPI_Status *sts);
HC_HIDDEN int hc_lane_any(int count, MPI_Request *reqs, int *index, int *flag, MPI_Status *st, int spin);

#endif
