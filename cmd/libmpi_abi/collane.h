/*
 * collane.h — small collectives run in C from the plan the Go engine
 * compiled out of its memoised schedule (mpi/coll_cplan.go documents the
 * plan and who writes what; collane.c runs it). A call whose arguments are
 * those of the communicator's plan runs the plan's rounds on the
 * collective rings without entering Go; any other call, and any call the
 * rings or the engine's state do not allow, takes the Go path.
 */
#ifndef HYMPI_COLLANE_H
#define HYMPI_COLLANE_H

#include <stdint.h>
#include "cabi.h"
#include "fastlane.h"
#include "nbc.h"

/* The plan area (mpi/coll_cplan.go, type cplanArea, which documents who
 * writes each word): a header and one plan per memo slot of the
 * communicator. Checked by version and size before C trusts it. */
enum {
	HC_CP_VERSION = 5,
	HC_CP_PLANS = 8,
	HC_CP_MAX_ROUNDS = 32,
	HC_CP_MAX_XFERS = 64,
	HC_CP_MAX_STEPS = 64,
	HC_CP_HINTS = 32,
	HC_CP_VEC = 2048
};
_Static_assert((HC_CP_PLANS & (HC_CP_PLANS - 1)) == 0, "HC_CP_PLANS is a power of two (hc_cc_try masks with it)");

/* A call's raw arguments, the memo-first key (hc_cc_first). */
enum { HC_CC_RAW = 8 };

typedef struct {
	uint32_t x0, x1, s0, s1;
} hc_cp_round;

typedef struct {
	int64_t peer; /* world rank */
	uint64_t ptr, n;
	uint32_t send, pad;
} hc_cp_xfer;

typedef struct {
	uint64_t kind; /* HC_CP_REDUCE or HC_CP_COPY */
	uint64_t src, dst, n;
} hc_cp_step;

enum { HC_CP_REDUCE = 0, HC_CP_COPY = 1 };

/* One memo slot's plan (Go's cplan). */
typedef struct {
	uint64_t valid, keyed, oversub;
	uint64_t unsettled; /* a blocking Barrier/Allreduce must settle the gate in Go */
	uint64_t nrounds, nxfers, nsteps;
	uint64_t own_dst, own_src, own_len;
	uint64_t pad[6];
	int64_t key[8];
	hc_cp_round rounds[HC_CP_MAX_ROUNDS];
	hc_cp_xfer xfers[HC_CP_MAX_XFERS];
	hc_cp_step steps[HC_CP_MAX_STEPS];
	/* C's alone, written with key before keyed: a v-collective's count,
	 * displacement (and type) arrays, vlen bytes of vec back to back,
	 * which a call must repeat to run the plan (hc_cc_try_v). */
	uint64_t vlen;
	unsigned char vec[HC_CP_VEC];
	/* C's alone: the raw arguments of the call that keyed the plan
	 * (hc_cc_first), or raw[0] == 0 when it had a derived datatype. */
	int64_t raw[HC_CC_RAW];
	/* C's alone, set with key: csimple when every round has at most one
	 * send and one receive, csend/crecv their indexes (-1: none). */
	uint64_t csimple;
	int8_t csend[HC_CP_MAX_ROUNDS], crecv[HC_CP_MAX_ROUNDS];
} hc_cp_plan;

typedef struct hc_cplan {
	uint32_t version, seq;
	uint64_t size, nplans;
	uint64_t gen;  /* Go: bumped when a plan became valid without a key... */
	uint64_t last; /* ...which plan that was */
	uint64_t runs, served, ctx;
	uint8_t hint[HC_CP_HINTS]; /* C's alone: per call kind, the plan that ran last */
	uint64_t nbdefer; /* Go's: a nonblocking start leaves its receives to the tests */
	uint64_t pad[8 - HC_CP_HINTS / 8 - 1];
	hc_cp_plan plans[HC_CP_PLANS];
} hc_cplan;

/* A call's key: everything the Go call it stands for was made of, so that
 * equal keys mean equal Go memo keys. k[0] the kind (HC_CC_*), then the
 * send and receive buffers, the byte count, datatype, operator, root and
 * element size (the v-kinds put what else their Go call is made of where
 * their call site says, and their arrays in v). gen is the plan area's
 * generation before the Go call. */
typedef struct hc_cc_vec hc_cc_vec;
typedef struct {
	int64_t k[8];
	uint64_t gen;
	const hc_cc_vec *v; /* the v-kinds' arrays (hc_cc_try_v), NULL for the others */
	/* The call's raw arguments for hc_cc_first, or NULL: learned with
	 * the key only when every datatype in them is predefined. */
	const int64_t *raw;
} hc_cc_key;

/* Predefined datatypes (not MPI_DATATYPE_NULL) never change or go away:
 * a call whose raw arguments name only those, and equal those that keyed
 * a plan, passes every check that call passed. */
#define HC_CC_PREDEF(dt) ((uintptr_t)(dt) - 0x201 < 0xff)
/* A v-collective's arrays may be compared before they are checked only
 * when they are not NULL (nor in page zero): the checks refuse those. */
#define HC_CC_ARRAYS_OK(a, b) ((uintptr_t)(a) >= 4096 && (uintptr_t)(b) >= 4096)

enum { HC_CC_BARRIER = 1, HC_CC_BCAST, HC_CC_RED /* + RED_* of nbc.h */, HC_CC_MOVE = HC_CC_RED + 8 /* + MOV_* */ };
/* The v, w and neighbourhood kinds, whose calls carry arrays (hc_cc_vec). */
enum {
	HC_CC_GATHERV = HC_CC_MOVE + 8,
	HC_CC_SCATTERV,
	HC_CC_ALLGATHERV,
	HC_CC_ALLTOALLV,
	HC_CC_ALLTOALLW,
	HC_CC_RS, /* Reduce_scatter: a reduction, its key laid out as HC_CC_RED's */
	HC_CC_NBR,
	HC_CC_END
};
_Static_assert((int)HC_CC_END <= (int)HC_CP_HINTS, "a call kind names its own hint");

/* A v-collective call's arrays: n pieces of caller memory whose bytes,
 * back to back, must be those the plan was learned with. */
struct hc_cc_vec {
	int n;
	struct {
		const void *p;
		uint64_t len;
	} s[6];
};

/* hc_cc_try runs the call of key k from ci's plan: 1 when it did (the
 * MPI error code in *rc, MPI_SUCCESS or what Go's continuation returned),
 * 0 when the caller must take the Go path (nothing was done then). req is
 * a nonblocking call's handle (NULL: blocking), HC_REQ_DONE when C ran it
 * all. settles: a blocking Barrier or Allreduce, which must go to Go while
 * the communicator's gate is not settled (mpi/coll_gate.go). */
HC_HIDDEN int hc_cc_try(int ci, hc_cc_key *k, int settles, MPI_Request *req, int *rc);
/* hc_cc_first is hc_cc_try before any argument check: raw (HC_CC_RAW
 * words, the kind first) are the call's arguments as the caller gave
 * them, every datatype among them predefined; it runs the plan that an
 * earlier call of the same raw arguments (and arrays v, when not NULL)
 * keyed, or returns 0 (nothing done, the caller goes on with its checks). */
HC_HIDDEN int hc_cc_first_run(int ci, const struct hc_flcomm *f, hc_cplan *a, const int64_t *raw, const hc_cc_vec *v,
			       int settles, MPI_Request *req, int *rc);
/* hc_cc_first's look, inline: no plan area, or a kind whose last look
 * found nothing (HC_CC_MISSED in its hint), costs no call. */
HC_HIDDEN extern int hc_cc_found;
enum { HC_CC_MISSED = 0x80 };
_Static_assert((int)HC_CP_PLANS <= (int)HC_CC_MISSED, "a hint's plan index stays below its flag");
static inline int hc_cc_first(int ci, const int64_t *raw, const hc_cc_vec *v, int settles, MPI_Request *req, int *rc)
{
	const struct hc_flcomm *f = hc_comms[ci].fl;
	hc_cplan *a;
	/* No area: hc_cc_try does not look at hc_cc_found (and the lane's
	 * one thread is not known to be this one: MPI_THREAD_MULTIPLE). */
	if (!f || !(a = f->cc)) return 0;
	hc_cc_found = 0;
	if (a->hint[raw[0] & (HC_CP_HINTS - 1)] & HC_CC_MISSED) return 0;
	return hc_cc_first_run(ci, f, a, raw, v, settles, req, rc);
}
/* hc_cc_first_v is hc_cc_first for the v, w and neighbourhood kinds,
 * whose raw arguments do not hold their arrays: v, compared byte for byte
 * with those that keyed the plan (NULL when raw determines them). */
HC_HIDDEN int hc_cc_first_v(int ci, const int64_t *raw, const hc_cc_vec *v, MPI_Request *req, int *rc);
/* hc_cc_learn, after the Go path ran the call of key k without error,
 * gives the plan Go compiled during it that key (or sets up ci's plan
 * area on the first call). */
HC_HIDDEN void hc_cc_learn(int ci, const hc_cc_key *k);
/* hc_cc_plan_ok: whether plan p, which Go just compiled, may run in C for
 * a call of key k (its indexes, and a reduction's operator and type). */
HC_HIDDEN int hc_cc_plan_ok(const hc_cp_plan *p, const int64_t *k);
/* hc_cc_prun runs a persistent collective's plan p (nbc_persist.c) from
 * its start under the lane's rules, its messages of context ctx and the
 * tag bound at its *_init; op, dt and esize serve its reduction steps. 1:
 * it ran to the end; 0: it stopped in round *kp, that round's transfers in
 * *donep done, for Go to go on from there; -1: the lane may not run now
 * (nothing done); -2: a reduction failed (cannot happen). h: the
 * request's handle (nbc_atonce.c's stamp). It spins on a peer only as a
 * nonblocking start would. */
struct hc_flcomm;
HC_HIDDEN int hc_cc_prun(const struct hc_flcomm *f, const hc_cp_plan *p, uint32_t ctx, uint32_t tag, MPI_Op op,
			 MPI_Datatype dt, int64_t esize, MPI_Request h, uint32_t *kp, uint64_t *donep);
/* hc_cc_resume goes on with a run of ci's plan p that stopped in round
 * *kp with *donep of its transfers done (nbc_pend.c), as hc_cc_prun runs
 * one: 1 done, 0 stopped again (*kp, *donep updated), -1 the lane may not
 * run now, -2 a reduction failed. */
HC_HIDDEN int hc_cc_resume(int ci, const hc_cp_plan *p, uint32_t tag, MPI_Op op, MPI_Datatype dt, int64_t esize,
			   int spins, uint32_t *kp, uint64_t *donep);
/* Nonblocking collectives left pending in C (nbc_pend.c). hc_cn_room: a
 * nonblocking start may stay pending (then it does not spin); hc_cn_keep:
 * after the lane's run of a's plan p with tag stopped in round k (done),
 * keep it pending under a reserved handle in *req (1), or refuse (0: the
 * caller hands it to Go). key is the call's (its reduction's operator,
 * type and element size). */
HC_HIDDEN extern int hc_cn_room;
HC_HIDDEN int hc_cn_keep(int ci, const hc_cplan *a, hc_cp_plan *p, uint32_t tag, uint32_t k, uint64_t done,
			 const int64_t *key, MPI_Request *req);
/* hc_cc_try_v and hc_cc_learn_v are hc_cc_try and hc_cc_learn for the
 * v, w and neighbourhood kinds: the call's arrays v are part of its key
 * (a call whose counts changed never runs the plan of the old ones). */
HC_HIDDEN int hc_cc_try_v(int ci, hc_cc_key *k, const hc_cc_vec *v, MPI_Request *req, int *rc);
HC_HIDDEN void hc_cc_learn_v(int ci, const hc_cc_key *k, const hc_cc_vec *v);
/* A blocking MPI_Alltoallw's lane (coll.c): hc_aw_try runs the call of a
 * (nbc.c's hc_nb_aw) from a plan, returning its MPI result, or -1 when
 * the caller must run it, after which it calls hc_aw_learn with w if that
 * succeeded. */
typedef struct {
	int ci, lane;
	hc_cc_key k;
	hc_cc_vec v;
} hc_cc_aw;
HC_HIDDEN int hc_aw_try(hc_cc_aw *w, const hc_raw *a, MPI_Comm comm, const char *fn);
HC_HIDDEN void hc_aw_learn(hc_cc_aw *w);
/* hc_cc_report prints how many collectives C ran (HYMPI_DEBUG). */
HC_HIDDEN void hc_cc_report(int rank);

/* Predefined reductions in C (reduce_kernels.c of the kern work; until it
 * is merged, reduce_kernels_stub.c): inout = in op inout over count
 * elements, 1 when done, 0 when the pair is not handled (nothing done). */
HC_HIDDEN int hc_reduce_builtin(MPI_Op op, MPI_Datatype type, const void *in, void *inout, int64_t count);

#endif
