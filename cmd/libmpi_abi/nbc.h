/*
 * nbc.h — a nonblocking or persistent collective as nbc.c hands it to Go
 * (hympi_go_icoll): the call's arguments with MPI_IN_PLACE resolved and
 * counts turned into bytes.
 */
#ifndef HYMPI_NBC_H
#define HYMPI_NBC_H

#include "cabi.h"
#include "argcheck.h"

enum {
	HC_NBC_BARRIER,
	HC_NBC_BCAST,
	HC_NBC_REDUCE,
	HC_NBC_ALLREDUCE,
	HC_NBC_SCAN,
	HC_NBC_EXSCAN,
	HC_NBC_RSB, /* reduce-scatter-block */
	HC_NBC_RS,  /* reduce-scatter */
	HC_NBC_GATHER,
	HC_NBC_SCATTER,
	HC_NBC_ALLGATHER,
	HC_NBC_ALLTOALL,
	HC_NBC_GATHERV,
	HC_NBC_SCATTERV,
	HC_NBC_ALLGATHERV,
	HC_NBC_ALLTOALLV, /* and Alltoallw: byte counts and displacements either way */
};

/* This thread's request cache (p2p.c), for the requests a collective makes. */
HC_HIDDEN hc_reqcache *hc_thread_reqcache(void);

/* The kinds of the blocking paths hc_reduce and hc_move (coll.c). */
enum { RED_REDUCE, RED_ALLREDUCE, RED_SCAN, RED_EXSCAN, RED_SCATTER_BLOCK };
enum { MOV_GATHER, MOV_SCATTER, MOV_ALLGATHER, MOV_ALLTOALL };

typedef struct {
	int kind, root;
	/* inplace: sbuf is rbuf (the whole buffer for reductions and
	 * all-to-all; own blocks of the gather family are resolved in C). */
	int inplace;
	void *sbuf, *rbuf;
	/* Bytes: bcast/reductions: sn is the data (rsb: one block); fixed
	 * blocks: sn and rn are whole buffers as hympi_go_gather takes them. */
	int64_t sn, rn;
	/* v forms: byte counts and displacements, size entries each (NULL
	 * where the rank does not use them). */
	int64_t *sc, *sd, *rc, *rd;
	hc_red red;
	/* Non-contiguous bcast/reduction data travels packed: count elements
	 * of pdt packed from pack_from before each start and unpacked into
	 * unpack_to on completion (either NULL when this rank has none). */
	intptr_t pdt;
	int64_t pcount;
	void *pack_from, *unpack_to;
	/* Non-contiguous data-movement collectives: their packing state
	 * (nbc.c; hc_pk_run(pk, 0) packs, (pk, 1) unpacks), freed with the
	 * request. */
	void *pk;
} hc_nbc;

/* A collective's arguments as the caller gave them. Count and displacement
 * arrays are int[] or, with big set, MPI_Count[] and MPI_Aint[]. */
typedef struct {
	const void *sbuf;
	void *rbuf;
	int64_t scount, rcount;
	const void *scounts, *sdispls, *rcounts, *rdispls;
	int big;
	MPI_Datatype stype, rtype;
	const MPI_Datatype *stypes, *rtypes;
	MPI_Op op;
	int root;
} hc_raw;

/* A collective on an intercommunicator as coll_inter.c hands it to Go
 * (hympi_go_iinter): kind is a cabi.InterKind, root as the caller gave it,
 * buffers in bytes (the whole side, or per remote rank in sc/sd and rc/rd
 * with ns and nrv entries; Reduce_scatter's rc is the local blocks). */
typedef struct {
	int kind, root;
	void *sbuf, *rbuf;
	int64_t sn, rn;
	int64_t *sc, *sd, *rc, *rd;
	int ns, nrv;
	hc_red red;
	void *pk; /* packing state (hc_pk), owned by the request */
} hc_inter;

HC_HIDDEN int hc_inter_icoll(int kind, const hc_raw *a, int ci, int run, MPI_Request *req, const char *fn);

/* Packing state: ops (pack count elements of dt from user into sscr+off,
 * or unpack them from rscr+off into user) and the scratch after them, one
 * allocation. */
typedef struct {
	MPI_Datatype dt;
	int64_t count, off;
	char *user;
	int unpack;
} hc_pkop;

typedef struct {
	int nops;
	/* keep: before each start the receive scratch is filled from the
	 * user's blocks too, so a block no message arrives in (from
	 * MPI_PROC_NULL) unpacks to what it was. */
	int keep;
	char *sscr, *rscr;
	hc_pkop ops[];
} hc_pk;

HC_HIDDEN void hc_pk_run(void *pk, int unpack);
/* hc_pk_hold makes each op hold its datatype (hc_type_hold), so a type the
 * caller frees while the collective is pending keeps its layout;
 * hc_pk_free releases the holds and the state. */
HC_HIDDEN void hc_pk_hold(void *pk);
static inline intptr_t hc_type_hold_h(intptr_t dt) { return hc_type_hold((MPI_Datatype)dt); }
HC_HIDDEN void hc_pk_free(void *pk);

/* How a call runs: nonblocking, persistent, or blocking (nonblocking then
 * MPI_Wait: the blocking forms whose engine path is the general schedule
 * anyway, when their data travels packed). */
enum { RUN_NB, RUN_PERSISTENT, RUN_BLOCKING };

/* The persistent (_init) collectives refuse a bad info on a valid
 * communicator; a bad communicator is reported by the call itself. */
#define HC_INIT_INFO(comm, info, fn)                                                                                   \
	do {                                                                                                           \
		HC_GUARD(fn);                                                                                          \
		int ci_ = hc_comm_index(comm);                                                                         \
		if (ci_ >= 0) HC_CHECK_INFO(ci_, info, fn);                                                            \
	} while (0)

HC_HIDDEN int hc_nb_mv(int kind, const void *sbuf, int64_t scount, MPI_Datatype st, void *rbuf, int64_t rcount,
		       MPI_Datatype rt, int root, MPI_Comm comm, int run, MPI_Request *req, const char *fn);
HC_HIDDEN int hc_nb_barrier(MPI_Comm comm, int run, MPI_Request *req, const char *fn);
HC_HIDDEN int hc_nb_bcast(void *buf, int64_t count, MPI_Datatype dt, int root, MPI_Comm comm, int run, MPI_Request *req,
			  const char *fn);
HC_HIDDEN int hc_nb_red(int kind, const void *sbuf, void *rbuf, int64_t count, MPI_Datatype dt, MPI_Op op, int root,
			MPI_Comm comm, int run, MPI_Request *req, const char *fn);
HC_HIDDEN int hc_nb_rs(const void *sbuf, void *rbuf, const void *rcounts, int big, MPI_Datatype dt, MPI_Op op,
		       MPI_Comm comm, int run, MPI_Request *req, const char *fn);
HC_HIDDEN int hc_nb_gv(int kind, const void *sbuf, int64_t scount, MPI_Datatype st, void *rbuf, const void *rcounts,
		       const void *displs, int big, MPI_Datatype rt, int root, MPI_Comm comm, int run,
		       MPI_Request *req, const char *fn);
HC_HIDDEN int hc_nb_sv(const void *sbuf, const void *scounts, const void *displs, int big, MPI_Datatype st,
		       void *rbuf, int64_t rcount, MPI_Datatype rt, int root, MPI_Comm comm, int run,
		       MPI_Request *req, const char *fn);
HC_HIDDEN int hc_nb_av(const void *sbuf, const void *scounts, const void *sdispls, MPI_Datatype st, void *rbuf,
		       const void *rcounts, const void *rdispls, MPI_Datatype rt, int big, MPI_Comm comm, int run,
		       MPI_Request *req, const char *fn);

/* Persistent collectives in the C collective lane (nbc_persist.c).
 * hc_pc_learn, after a persistent *_init of plain data succeeded, has Go
 * compile the request's plan when the lane can run its kind.
 * hc_pc_start: 1 when C started *req (the packed error code, as Go's
 * calls return it, in *rc), 0 when the caller must start it in Go.
 * hc_pc_take completes a request whose start C ran to the end (1), else
 * 0; hc_pc_take_all does it for every such request of an array and
 * returns 1 (statuses written) when the array held only those and
 * MPI_REQUEST_NULL; hc_pc_take_any returns the index of the first it
 * completed, -1 when none. hc_pc_forget before MPI_Request_free;
 * hc_pc_comm_gone as a communicator is freed. hc_pc_n counts the
 * requests C knows, hc_pc_ndone those complete in C. */
HC_HIDDEN extern int hc_pc_n, hc_pc_ndone;
HC_HIDDEN void hc_pc_learn(int ci, MPI_Request req, const hc_nbc *g);
HC_HIDDEN int hc_pc_start(MPI_Request *req, int *rc);
HC_HIDDEN int hc_pc_take(MPI_Request req);
HC_HIDDEN int hc_pc_known(MPI_Request req);
HC_HIDDEN int hc_pc_take_all(int count, const MPI_Request *reqs, MPI_Status *sts);
HC_HIDDEN int hc_pc_take_any(int count, const MPI_Request *reqs);
HC_HIDDEN void hc_pc_forget(MPI_Request req);
HC_HIDDEN void hc_pc_comm_gone(int ci);
HC_HIDDEN void hc_pc_report(int rank);

/* MPI_Wait and MPI_Test of a nonblocking collective pending in C
 * (nbc_pend.c): 1 when the handle was one and the call is answered, 0
 * when the caller must go to Go (the run is Go's by then, under the same
 * handle). hc_cn_report prints its counts (HYMPI_CABI_DEBUG). */
HC_HIDDEN int hc_cn_wait(MPI_Request *req, MPI_Status *st);
HC_HIDDEN int hc_cn_test(MPI_Request *req, int *flag, MPI_Status *st);
HC_HIDDEN void hc_cn_report(int rank);

/* The blocking paths shared by the int and _c forms (coll.c). */
HC_HIDDEN int hc_red_init(hc_red *r, MPI_Op op, MPI_Datatype dt);
HC_HIDDEN int hc_bcast(void *buffer, int64_t count, MPI_Datatype datatype, int root, MPI_Comm comm, const char *fn);
/* The _x forms are the blocking path (nb 0) or its nonblocking twin (nb 1,
 * the handle into *req), one call into Go either way. */
HC_HIDDEN int hc_barrier(MPI_Comm comm, int nb, MPI_Request *req, const char *fn);
HC_HIDDEN int hc_bcast_x(void *buffer, int64_t count, MPI_Datatype datatype, int root, MPI_Comm comm, int nb,
			 MPI_Request *req, const char *fn);
HC_HIDDEN int hc_move_x(int kind, const void *sendbuf, int64_t sendcount, MPI_Datatype sendtype, void *recvbuf,
			int64_t recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, int nb, MPI_Request *req,
			const char *fn);
HC_HIDDEN int hc_gatherv_x(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
			   const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm,
			   int nb, MPI_Request *req, const char *fn);
HC_HIDDEN int hc_allgatherv_x(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
			      const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, int nb,
			      MPI_Request *req, const char *fn);
HC_HIDDEN int hc_scatterv_x(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
			    void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, int nb,
			    MPI_Request *req, const char *fn);
HC_HIDDEN int hc_alltoallv_x(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
			     void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
			     MPI_Comm comm, int nb, MPI_Request *req, const char *fn);
HC_HIDDEN int hc_reduce_x(int kind, const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype dt, MPI_Op op,
			  int root, MPI_Comm comm, int nb, MPI_Request *req, const char *fn);
HC_HIDDEN int hc_reduce(int kind, const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype dt, MPI_Op op,
			int root, MPI_Comm comm, const char *fn);
HC_HIDDEN int hc_move(int kind, const void *sendbuf, int64_t sendcount, MPI_Datatype sendtype, void *recvbuf,
		      int64_t recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, const char *fn);
HC_HIDDEN int hc_reduce_local(const void *inbuf, void *inoutbuf, int64_t count, MPI_Datatype datatype, MPI_Op op,
			      const char *fn);

#endif

#ifndef HYMPI_NBR_H
#define HYMPI_NBR_H
/* A communicator's neighbourhood for the neighbour collectives
 * (neighbor.c). A Cartesian one is its grid (cart: dims then periods, as in
 * hc_comm; the engine derives the neighbours, mpi.CartNeighbors); any other
 * topology gives its lists: block k of the receive buffer comes from
 * sources[k], block k of the send buffer goes to dests[k]. */
typedef struct {
	int indeg, outdeg;
	int ndims;
	const int *cart;
	const int *sources, *dests;
} hc_nbrs;

enum {
	HC_NBR_ALLGATHER,
	HC_NBR_ALLGATHERV,
	HC_NBR_ALLTOALL,
	HC_NBR_ALLTOALLV,
	HC_NBR_ALLTOALLW,
};
/* An MPI_Test of a nonblocking collective with nothing to do, answered in
 * C (nbc_idle.c). hc_nbc_idle_req is the handle Go found idle
 * (cabi.CollIdle) at its last test, 0 when none; Go sets it and clears
 * it when the handle's slot is freed. hc_nbc_idle_test answers *flag = 0
 * and returns 1 when nothing can have changed since; 0 sends the caller
 * to Go. hc_nbc_idle_mark notes the state Go left, after a Go test that
 * returned flag 0 for the idle handle. */
HC_HIDDEN extern intptr_t hc_nbc_idle_req; /* 0: none */
HC_HIDDEN int hc_nbc_idle_test(MPI_Request *request, int *flag);
HC_HIDDEN void hc_nbc_idle_mark(int ci);

/* hc_nbc_lane_ci: 1 + the communicator index of the last nonblocking
 * collective the collective lane ran to the end at its start (handle
 * HC_REQ_DONE), 0 when none or when an MPI_Wait of HC_REQ_DONE came
 * since. An MPI_Test of HC_REQ_DONE while it is set means the program
 * tests its collectives as it computes: hc_nbc_lane_tested makes that
 * communicator's next starts defer their receives (nbc_idle.c). */
HC_HIDDEN extern int hc_nbc_lane_ci;
HC_HIDDEN void hc_nbc_lane_tested(void);

/* Whether the program waits on its collectives at once (nbc_atonce.c).
 * hc_nb_stamp: the counter when the last nonblocking or persistent start
 * returned, 0 once a wait or test consumed it; hc_nb_atonce: the last wait
 * came within HC_NB_ATONCE_TICKS of its start, so starts spin (or yield
 * when oversubscribed) as the blocking calls do. hc_nb_atonce_starts
 * counts the starts that did, for HYMPI_CABI_DEBUG. */
HC_HIDDEN extern int hc_nb_atonce;
HC_HIDDEN extern uint64_t hc_nb_stamp;
HC_HIDDEN extern MPI_Request hc_nb_stamp_req; /* the start's handle */
HC_HIDDEN extern unsigned long hc_nb_atonce_starts;
enum { HC_NB_ATONCE_TICKS = 600 };
/* The time-stamp counter where there is one; elsewhere no start leaves a
 * stamp, and starts never spin. */
#if defined(__x86_64__)
static inline uint64_t hc_nb_ticks(void) { return __builtin_ia32_rdtsc(); }
static inline void hc_nb_started(MPI_Request r)
{
	hc_nb_stamp = hc_nb_ticks() | 1;
	hc_nb_stamp_req = r;
}
#else
static inline uint64_t hc_nb_ticks(void) { return 0; }
static inline void hc_nb_started(MPI_Request r) { (void)r; }
#endif
/* hc_nb_done_start: a nonblocking start that completed the collective.
 * Its wait costs nothing either way, so only while starts spin does one
 * in HC_NB_SAMPLE leave a stamp, to see the program turn to computing. */
enum { HC_NB_SAMPLE = 8 };
HC_HIDDEN extern unsigned hc_nb_sample;
static inline void hc_nb_done_start(void)
{
	if (__builtin_expect(hc_nb_atonce, 0) && ++hc_nb_sample % HC_NB_SAMPLE == 0) hc_nb_started(HC_REQ_DONE);
}
/* hc_nb_waited: an MPI_Wait of the n requests at reqs. Waiting at once
 * means the next wait is for the stamped start's handle: a wait for other
 * requests in between (a halo exchange's) says the program does other
 * work first. hc_nb_tested: an MPI_Test of any request. */
static inline void hc_nb_waited(const MPI_Request *reqs, int n)
{
	uint64_t t = hc_nb_stamp;
	if (__builtin_expect(t == 0, 1)) return;
	hc_nb_stamp = 0;
	hc_nb_atonce = 0;
	for (int i = 0; i < n; i++)
		if (reqs[i] == hc_nb_stamp_req) {
			hc_nb_atonce = hc_nb_ticks() - t < HC_NB_ATONCE_TICKS;
			return;
		}
}
static inline void hc_nb_tested(void)
{
	if (hc_nb_stamp) hc_nb_stamp = 0, hc_nb_atonce = 0;
}

/* hc_nbc_pdone_req: a persistent collective's handle whose MPI_Start ran
 * the collective to the end (hympi_go_start made it inactive in Go): to
 * MPI it stays active until the caller completes it, which MPI_Wait and
 * MPI_Test (and the calls over arrays, hc_nbc_pdone_take) do in C. Go
 * sets it, refuses to start the handle again while it is set, and clears
 * it when the handle's slot is freed; 0 when none. */
HC_HIDDEN extern intptr_t hc_nbc_pdone_req;
/* hc_nbc_pdone_take: when reqs holds hc_nbc_pdone_req, clears it and
 * returns its index (the calls over arrays complete it there), else -1. */
HC_HIDDEN int hc_nbc_pdone_take(int count, const MPI_Request *reqs);
/* For HYMPI_CABI_DEBUG: what nbc_idle.c answered in C, printed at
 * MPI_Finalize; hc_nbc_pstarts is counted by Go (hympi_go_start). */
HC_HIDDEN extern unsigned long hc_nbc_pstarts;
HC_HIDDEN void hc_nbc_report(int rank);

#endif
