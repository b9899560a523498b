/*
 * nbc_idle.c — MPI_Test of a nonblocking collective that has nothing to do,
 * without a call into Go.
 *
 * A program that overlaps a collective with computation calls MPI_Test
 * now and then, and most of those calls find that the peers' messages
 * have not come: through Go each costs ~1,850 instructions at 2 ranks
 * (the transition, the lookup, a resume of the direct run, a progress
 * pass) for nothing. Go's test tells C (cabi.CollIdle, setting
 * hc_nbc_idle_req) when the collective is deferred with nothing posted,
 * waiting for a peer's message on a collective ring, and alone in the
 * engine; only taking a collective message off a ring can then move it.
 * C notes every collective ring's consumer position (hc_nbc_idle_mark), and
 * answers the next tests itself while
 *   - the handle is the one Go marked (Go clears the mark when its slot
 *     is freed: completed, cancelled, freed),
 *   - the fast lane may run (not with asynchronous progress, whose
 *     goroutine may take messages behind C's back, nor after a fatal
 *     error) and the engine holds a collective, no posted receive and no
 *     unexpected message,
 *   - no collective ring toward this process has a message at its head,
 *     and the ring positions are those noted (nothing was taken since);
 *   - with more ranks than CPUs, still so after yielding the CPU once (Go's
 *     test yields too: the peers may need this CPU to send);
 * and every 8th test goes to Go all the same, so that a program that only
 * tests still gives the engine its progress passes (MPI's progress rule:
 * the peers may wait for our other traffic).
 *
 * Only reads of the fast lane page (shm/fastlane.go documents its words)
 * and of publish words of the rings, each address checked for zero as
 * collane.c does; any surprise goes to Go.
 */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "nbc.h"
#include "fastlane.h"
#include "collane.h"

#define U32(p, off) (*(uint32_t *)((p) + (off)))
#define U64(p, off) (*(uint64_t *)((p) + (off)))

intptr_t hc_nbc_idle_req;
intptr_t hc_nbc_pdone_req;
unsigned long hc_nbc_pstarts; /* persistent starts that completed the run (Go counts) */
static unsigned long idle_answered;
static unsigned char *idle_st;   /* the fast lane page at the mark */
static uint64_t idle_pos;        /* sum of the collective rings' consumer positions then */
static unsigned idle_tests;

/* ring_sum adds up the consumer positions of every collective ring toward
 * this process; 0 when one is unknown or a head holds a message (then the
 * caller goes to Go), 1 otherwise. */
static int ring_sum(unsigned char *st, uint64_t *sum)
{
	uint32_t size = U32(st, HC_FL_SIZE), me = U32(st, HC_FL_RANK);
	uint64_t s = 0;
	for (uint32_t w = 0; w < size; w++) {
		if (w == me) continue;
		unsigned char *e = st + HC_FL_HEADER + (size_t)w * HC_FL_ENTRY;
		if (!U32(e, HC_FE_IN_KNOWN)) return 0;
		unsigned char *slots = (unsigned char *)(uintptr_t)U64(e, HC_FE_COLL_IN);
		if (!slots) return 0;
		uint64_t pos = U64(e, HC_FE_COLL_IPOS);
		unsigned char *slot = slots + (pos & (HC_COLL_SLOTS - 1)) * HC_COLL_SLOT_SIZE;
		/* Free at this lap: nothing published there yet. */
		if (__atomic_load_n((uint64_t *)slot, __ATOMIC_ACQUIRE) != 2 * (pos / HC_COLL_SLOTS)) return 0;
		s += pos;
	}
	*sum = s;
	return 1;
}

static int engine_idle(unsigned char *st)
{
	return U32(st, HC_FL_RUN) && U32(st, HC_FL_BUSY) && !U64(st, HC_FL_POSTED) && !U64(st, HC_FL_UNEXP);
}

void hc_nbc_idle_mark(int ci)
{
	idle_st = NULL;
	if (!hc_fl_threads_ok) return;
	const hc_flcomm *f = hc_comms[ci].fl;
	if (!f || !engine_idle(f->st) || !ring_sum(f->st, &idle_pos)) return;
	idle_st = f->st;
	idle_tests = 0;
}

int hc_nbc_idle_test(MPI_Request *request, int *flag)
{
	unsigned char *st = idle_st;
	uint64_t pos;
	if (!hc_nbc_idle_req || (intptr_t)*request != hc_nbc_idle_req || !st || (++idle_tests & 7) == 0) return 0;
	if (!engine_idle(st) || !ring_sum(st, &pos) || pos != idle_pos) return 0;
	if (U32(st, HC_FL_OVERSUB)) {
		/* As Go's test does when it finds nothing (mpi/request.go,
		 * pollIdle): with more ranks than CPUs the peers we wait for
		 * may need this CPU; yield it once and look again. */
		sched_yield();
		if (!engine_idle(st) || !ring_sum(st, &pos) || pos != idle_pos) return 0;
	}
	*flag = 0;
	idle_answered++;
	return 1;
}

int hc_nbc_lane_ci;

/* A collective the lane completed at its start leaves the program's tests
 * nothing to find, and no test ever completes one in Go, which is what
 * switches the starts to deferring (mpi/coll_cadapt.go): without this the
 * lane would take every start of a computing program (0 % overlap). The
 * word is the one Go keeps; Go reads it at the next start (adaptiveMode)
 * and its next test or wait that completes a collective sets it anew. */
void hc_nbc_lane_tested(void)
{
	int ci = hc_nbc_lane_ci - 1;
	hc_nbc_lane_ci = 0;
	if (ci < 0 || ci >= HC_MAX_COMMS) return;
	const hc_flcomm *f = hc_comms[ci].fl;
	if (f && f->cc) f->cc->nbdefer = 1;
}

void hc_nbc_report(int rank)
{
	fprintf(stderr, "hympi[debug]: rank %d: nonblocking collectives: %lu idle tests answered in C, %lu persistent starts complete at once, %lu starts run as blocking (waited at once)\n",
		rank, idle_answered, hc_nbc_pstarts, hc_nb_atonce_starts);
	hc_pc_report(rank);
	hc_cn_report(rank);
}

int hc_nbc_pdone_take(int count, const MPI_Request *reqs)
{
	for (int i = 0; i < count; i++)
		if ((intptr_t)reqs[i] == hc_nbc_pdone_req) {
			hc_nbc_pdone_req = 0;
			return i;
		}
	return -1;
}
