/*
 * nbc_persist.c — persistent collectives (MPI_*_init) run by the C
 * collective lane.
 *
 * A persistent collective is bound once and started again and again over
 * the same buffers: its schedule never changes, so it is the lane's ideal
 * user. Through Go each MPI_Start and its MPI_Wait cost two transitions
 * (a persistent Barrier ~2,360 instructions at 2 ranks where the blocking
 * one runs in C in ~460). At *_init of plain data (no packing) of a kind
 * the lane serves, Go compiles the request's schedule into a plan of the
 * lane's layout in memory this file owns (mpi/coll_cpersist.go); then
 *   - MPI_Start runs the plan in C (collane.c, hc_cc_prun), on the lane's
 *     rules, with the tag bound at *_init; when the peers' messages were
 *     there it ran to the end, and the request is complete in C only
 *     (Go holds it inactive); when a transfer cannot be done, Go starts
 *     the run from the round C reached (startAt), and the request is
 *     Go's as any started one;
 *   - MPI_Wait, MPI_Test and the calls over arrays complete a request C
 *     ran to the end without entering Go;
 *   - every 64th MPI_Start goes to Go whole, after a progress pass (MPI's
 *     progress rule, as the lane's calls do);
 *   - MPI_Request_free forgets the plan before Go frees the request (the
 *     plan points into its buffers), and MPI_Comm_free sends the
 *     communicator's persistent requests to Go for good (their index may
 *     name another communicator later).
 * The table is direct-mapped by the handle's index: a request whose slot
 * is taken simply stays in Go. Only with threads the fast lane allows
 * (hc_fl_threads_ok), like the rest of the lane.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nbc.h"
#include "collane.h"
#include "fastlane.h"
#include "_cgo_export.h"
#include "golane.h"

enum { PC_SLOTS = 64, PC_PASS_EVERY = 64 };
_Static_assert((PC_SLOTS & (PC_SLOTS - 1)) == 0, "PC_SLOTS is a power of two");

typedef struct {
	intptr_t h; /* the request's handle; 0: the slot is free */
	int ci;     /* -1 once the communicator is freed: Go only */
	int cdone;  /* C ran its last start to the end; MPI has not completed it */
	int live;   /* Go's: 1 while Go holds a run of it active (nbc.go, collBinding.live) */
	uint32_t ctx, tag;
	MPI_Op op;
	MPI_Datatype dt;
	int64_t esize;
	unsigned starts;
	hc_cp_plan *plan;
} hc_pc;

static hc_pc pcs[PC_SLOTS];
int hc_pc_n;     /* slots in use */
int hc_pc_ndone; /* of which cdone */
static unsigned long pc_starts, pc_done, pc_handed;

static inline hc_pc *slot_of(intptr_t h)
{
	return &pcs[(h & HC_INDEX_MASK) & (PC_SLOTS - 1)];
}

static inline hc_pc *find(intptr_t h)
{
	hc_pc *e = slot_of(h);
	return e->h == h && h != 0 ? e : NULL;
}

/* The kinds the blocking lane serves from a plan, and their key kind for
 * hc_cc_plan_ok (reductions are checked for a C kernel). In-place
 * Alltoall and reduce-scatter-block stay in Go, as their blocking forms
 * do: Go copies their input aside at each call. */
static int lane_kind(const hc_nbc *g)
{
	switch (g->kind) {
	case HC_NBC_BARRIER:
		return HC_CC_BARRIER;
	case HC_NBC_BCAST:
		return HC_CC_BCAST;
	case HC_NBC_REDUCE:
		return HC_CC_RED + RED_REDUCE;
	case HC_NBC_ALLREDUCE:
		return HC_CC_RED + RED_ALLREDUCE;
	case HC_NBC_SCAN:
		return HC_CC_RED + RED_SCAN;
	case HC_NBC_EXSCAN:
		return HC_CC_RED + RED_EXSCAN;
	case HC_NBC_RSB:
		return g->inplace ? 0 : HC_CC_RED + RED_SCATTER_BLOCK;
	case HC_NBC_GATHER:
		return HC_CC_MOVE + MOV_GATHER;
	case HC_NBC_SCATTER:
		return HC_CC_MOVE + MOV_SCATTER;
	case HC_NBC_ALLGATHER:
		return HC_CC_MOVE + MOV_ALLGATHER;
	case HC_NBC_ALLTOALL:
		return g->inplace || g->sbuf == g->rbuf ? 0 : HC_CC_MOVE + MOV_ALLTOALL;
	/* The v and w kinds: their counts were bound at *_init (Go keeps
	 * its copy), so the plan holds for every start. */
	case HC_NBC_GATHERV:
		return HC_CC_GATHERV;
	case HC_NBC_SCATTERV:
		return HC_CC_SCATTERV;
	case HC_NBC_ALLGATHERV:
		return HC_CC_ALLGATHERV;
	case HC_NBC_ALLTOALLV:
		return g->inplace || g->sbuf == g->rbuf ? 0 : HC_CC_ALLTOALLV;
	case HC_NBC_RS:
		return g->inplace || g->sbuf == g->rbuf ? 0 : HC_CC_RS;
	}
	return 0;
}

void hc_pc_learn(int ci, MPI_Request req, const hc_nbc *g)
{
	if (!hc_fl_threads_ok || g->pk || g->pdt) return;
	int kind = lane_kind(g);
	if (!kind || !hc_fl_comm_get(ci)) return;
	intptr_t h = (intptr_t)req;
	hc_pc *e = slot_of(h);
	if (e->h) return;
	hc_cp_plan *p = malloc(sizeof *p);
	if (!p) return;
	uint32_t ctx = 0;
	int tag = 0;
	int red = (kind >= HC_CC_RED && kind < HC_CC_MOVE) || kind == HC_CC_RS;
	int64_t k[8] = {kind, 0, 0, 0, red ? g->red.dt : 0, red ? g->red.op : 0, 0, red ? g->red.esize : 0};
	memset(e, 0, sizeof *e);
	if (!hympi_go_pc_plan(h, p, &ctx, &tag, &e->live)) {
		free(p);
		return;
	}
	*e = (hc_pc){h, ci, 0, 0, ctx, (uint32_t)tag, (MPI_Op)g->red.op, (MPI_Datatype)g->red.dt, red ? g->red.esize : 1, 0, p};
	hc_pc_n++;
	if (!hc_cc_plan_ok(p, k)) {
		/* Go writes e->live from now on: the slot stays the request's,
		 * in Go only, until it is freed. */
		free(p);
		e->plan = NULL;
		e->ci = -1;
	}
}

int hc_pc_start(MPI_Request *req, int *rc)
{
	hc_pc *e = find((intptr_t)*req);
	/* Active in Go, or complete from Go's start (nbc_idle.c): Go's
	 * start reports the error. */
	if (!e || e->ci < 0 || e->live || hc_nbc_pdone_req == (intptr_t)*req) return 0;
	if (e->cdone) { /* active to MPI: starting it again is an error */
		*rc = MPI_ERR_REQUEST | (e->ci + 1) << 16;
		return 1;
	}
	const hc_flcomm *f = hc_comms[e->ci].fl;
	if (!f) return 0;
	if (++e->starts % PC_PASS_EVERY == 0) {
		*rc = hympi_go_pc_start_at((intptr_t)*req, -1, 0);
		return 1;
	}
	uint32_t k = 0;
	uint64_t done = 0;
	int r = hc_cc_prun(f, e->plan, e->ctx, e->tag, e->op, e->dt, e->esize, *req, &k, &done);
	if (r == -1) return 0;
	if (r == -2) {
		*rc = MPI_ERR_INTERN | (e->ci + 1) << 16;
		return 1;
	}
	pc_starts++;
	if (r == 1) {
		e->cdone = 1;
		hc_pc_ndone++;
		pc_done++;
		*rc = MPI_SUCCESS;
		return 1;
	}
	pc_handed++;
	*rc = hympi_go_pc_start_at((intptr_t)*req, (int)k, done);
	return 1;
}

int hc_pc_known(MPI_Request req)
{
	return find((intptr_t)req) != NULL;
}

int hc_pc_take(MPI_Request req)
{
	hc_pc *e = find((intptr_t)req);
	if (!e || !e->cdone) return 0;
	e->cdone = 0;
	hc_pc_ndone--;
	return 1;
}

int hc_pc_take_all(int count, const MPI_Request *reqs, MPI_Status *sts)
{
	int all = 1;
	for (int i = 0; i < count && all; i++) {
		hc_pc *e = find((intptr_t)reqs[i]);
		all = reqs[i] == MPI_REQUEST_NULL || (e && e->cdone);
	}
	for (int i = 0; i < count; i++) {
		int done = hc_pc_take(reqs[i]);
		if (!all || !sts) continue;
		if (done) {
			hc_done_status(&sts[i]);
		} else {
			hc_status_set(&sts[i], MPI_ANY_SOURCE, MPI_ANY_TAG, 0, 0);
			sts[i].MPI_ERROR = MPI_SUCCESS;
		}
	}
	return all;
}

int hc_pc_take_any(int count, const MPI_Request *reqs)
{
	for (int i = 0; i < count; i++)
		if (hc_pc_take(reqs[i])) return i;
	return -1;
}

void hc_pc_forget(MPI_Request req)
{
	hc_pc *e = find((intptr_t)req);
	if (!e) return;
	if (e->cdone) hc_pc_ndone--;
	free(e->plan);
	memset(e, 0, sizeof *e);
	hc_pc_n--;
}

void hc_pc_comm_gone(int ci)
{
	for (int i = 0; i < PC_SLOTS; i++)
		if (pcs[i].h && pcs[i].ci == ci) pcs[i].ci = -1;
}

void hc_pc_report(int rank)
{
	fprintf(stderr, "hympi[debug]: rank %d: persistent collectives: %lu starts in C, %lu complete in C, %lu continued in Go\n",
		rank, pc_starts, pc_done, pc_handed);
}
