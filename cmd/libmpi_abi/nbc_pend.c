/*
 * nbc_pend.c — a nonblocking collective left pending in C: its start
 * published what it sends, the peers' messages are still to come, and its
 * MPI_Wait or MPI_Test takes them and finishes it without entering Go.
 *
 * Why: a C nonblocking start that found a peer's message missing handed
 * the collective to Go, and its wait or test went to Go too: two
 * transitions (~1,500 instructions at 2 ranks), more than the whole
 * collective's latency, so a program that computes between start and wait
 * saw no overlap at all (OSU's overlap loop: 0 % from C at 8 B where Open
 * MPI gets 33-45 %), and a start that spun for the peer instead left the
 * computation nothing to overlap.
 *
 * When it may: the collective lane (collane.c, run) keeps a nonblocking
 * start here when it stopped at a receive with every send of its plan
 * out (every 2-rank collective; the leaves of a tree), so that the peers
 * need nothing more from this rank: the run can wait in C for as long as
 * the program computes, and no peer can wait on it. A nonblocking start
 * does not spin for the peers while it may stay pending (the wait does),
 * unless the program waits at once (nbc_atonce.c).
 *
 * The handle: a request slot Go reserved for C (hympi_go_cn_reserve), so
 * that the collective can become Go's under the same handle at any time.
 * It does before every call into Go (hc_go_sync, run by golane.h's
 * wrappers, hands every pending run over with hympi_go_cn_adopt, which
 * continues it in Go from the round it reached, as a handed-over lane run,
 * and reserves the next handle), so that nothing in Go (a progress pass,
 * another collective, a communicator's free, an array call over the
 * handle) ever meets a collective it does not know. While one is pending
 * the lane starts no other run (its plan's buffers are the run's): that
 * call goes to Go, which takes the pending one over first. MPI_Wait goes
 * on in C (spinning as a blocking call does) and hands over when the
 * peers are not there; MPI_Test goes on in C without spinning, and every
 * 64th test of a run hands over and tests in Go (MPI's progress rule for
 * the engine's other work).
 */
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "nbc.h"
#include "collane.h"
#include "fastlane.h"
#include "_cgo_export.h"
#include "golane.h"

enum { CN_SLOTS = 8, CN_TEST_PASS = 64, CN_SPINS = 512, CN_YIELDS = 8 };

typedef struct {
	intptr_t h; /* 0: free */
	int ci, plan;
	uint32_t tag, k; /* the round reached */
	uint64_t done;   /* its transfers done */
	hc_cp_plan *p;
	MPI_Op op;
	MPI_Datatype dt;
	int64_t esize;
	unsigned tests;
} hc_cn;

static hc_cn cns[CN_SLOTS];
int hc_cn_n;
/* Reserved handles; npool -1 until Go was first asked. */
static intptr_t pool[CN_SLOTS];
static int npool = -1;
static unsigned long cn_kept, cn_done, cn_handed;

/* room says whether another run may stay pending: a slot free and a
 * handle in the pool, or the pool not asked for yet (hc_cn_keep does). */
int hc_cn_room = 1;

static void room(void)
{
	hc_cn_room = hc_fl_threads_ok && npool != 0 && hc_cn_n < CN_SLOTS;
}

int hc_cn_keep(int ci, const hc_cplan *a, hc_cp_plan *p, uint32_t tag, uint32_t k, uint64_t done, const int64_t *key,
	       MPI_Request *req)
{
	if (npool < 0 && hc_fl_threads_ok) npool = hympi_go_cn_reserve(pool, CN_SLOTS);
	room();
	if (!hc_cn_room || k >= p->nrounds) return 0;
	/* Stopped at a receive, every send of round k out, and none after
	 * it: the peers need nothing more from this rank. */
	const hc_cp_round *r = &p->rounds[k];
	for (uint32_t i = r->x0; i < r->x1; i++)
		if (p->xfers[i].send && !(done >> (i - r->x0) & 1)) return 0;
	for (uint64_t j = k + 1; j < p->nrounds; j++)
		for (uint32_t i = p->rounds[j].x0; i < p->rounds[j].x1; i++)
			if (p->xfers[i].send) return 0;
	hc_cn *e = cns;
	while (e->h) e++; /* room: a slot is free */
	*e = (hc_cn){pool[--npool], ci, (int)(p - a->plans), tag, k, done, p, (MPI_Op)(intptr_t)key[5],
		     (MPI_Datatype)(intptr_t)key[4], key[7], 0};
	hc_cn_n++;
	room();
	cn_kept++;
	*req = (MPI_Request)e->h;
	return 1;
}

/* hc_cn_oversub: whether e's communicator's ranks outnumber the CPUs. */
static inline int hc_cn_oversub(const hc_cn *e)
{
	const hc_flcomm *f = hc_comms[e->ci].fl;
	return f && *(const uint32_t *)(f->st + HC_FL_OVERSUB);
}

static inline hc_cn *find(MPI_Request h)
{
	if (!h) return NULL; /* a free slot's; no handle is 0 */
	for (int i = 0; i < CN_SLOTS; i++)
		if (cns[i].h == (intptr_t)h) return &cns[i];
	return NULL;
}

/* handover continues e in Go, under its handle (not wrapped: the
 * callers sync the receive lane first). */
static void handover(hc_cn *e)
{
	intptr_t next = 0;
	cn_handed++;
	hympi_go_cn_adopt(e->ci, e->plan, (int)e->tag, (int)e->k, e->done, e->h, &next);
	memset(e, 0, sizeof *e);
	hc_cn_n--;
	if (next && npool >= 0 && npool < CN_SLOTS) pool[npool++] = next;
	room();
}

void hc_go_sync(void)
{
	/* The receive lane's first: Go's work for the runs may match. */
	if (hc_lane_n) hc_lane_sync();
	for (int i = 0; i < CN_SLOTS && hc_cn_n; i++)
		if (cns[i].h) handover(&cns[i]);
}

/* resume goes on with e: 1 when it is complete (the slot and its handle
 * given back), 0 when not yet, -1 when the lane cannot go on (Go must). */
static int resume(hc_cn *e, int spins)
{
	int r = hc_cc_resume(e->ci, e->p, e->tag, e->op, e->dt, e->esize, spins, &e->k, &e->done);
	if (r < 0) return -1;
	if (!r) return 0;
	cn_done++;
	pool[npool++] = e->h;
	memset(e, 0, sizeof *e);
	hc_cn_n--;
	room();
	return 1;
}

int hc_cn_wait(MPI_Request *req, MPI_Status *st)
{
	hc_cn *e = find(*req);
	if (!e) return 0;
	/* Spin as a blocking call does; with more ranks than CPUs (where the
	 * lane does not spin: hc_cc_resume) yield the CPU to the peers a few
	 * times, as Go's wait would before it sleeps. */
	int r = resume(e, CN_SPINS);
	for (int y = 0; r == 0 && y < CN_YIELDS && hc_cn_oversub(e); y++) {
		sched_yield();
		r = resume(e, 0);
	}
	if (r == 1) {
		*req = MPI_REQUEST_NULL;
		hc_done_status(st);
		return 1;
	}
	hc_go_sync(); /* Go's wait takes it from here */
	return 0;
}

int hc_cn_test(MPI_Request *req, int *flag, MPI_Status *st)
{
	hc_cn *e = find(*req);
	if (!e) return 0;
	int r = ++e->tests % CN_TEST_PASS ? resume(e, 0) : -1;
	if (r == 1) {
		*req = MPI_REQUEST_NULL;
		*flag = 1;
		hc_done_status(st);
		return 1;
	}
	if (r == 0) {
		*flag = 0;
		return 1;
	}
	hc_go_sync();
	return 0;
}

void hc_cn_report(int rank)
{
	fprintf(stderr, "hympi[debug]: rank %d: pending in C: %lu nonblocking collectives kept, %lu completed in C, %lu handed to Go\n",
		rank, cn_kept, cn_done, cn_handed);
}
