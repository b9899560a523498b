/*
 * cabi.h — internals shared by the C files of libmpi_abi and the Go side
 * (included by every cgo preamble, so _cgo_export.h sees these types).
 *
 * Handles: predefined handles are the standard ABI's values (< 0x1000).
 * Handles hympi creates are (kind << 24) | index, always >= 0x1000000, never
 * Go pointers. Communicators live in two parallel tables indexed alike: the
 * C table below (rank, size, error handler, attributes, name) and the Go
 * table of *mpi.Comm. MPI_COMM_WORLD is index 0, MPI_COMM_SELF index 1.
 */
#ifndef HYMPI_CABI_H
#define HYMPI_CABI_H

#include <stddef.h>
#include <stdint.h>
#include "mpi.h"

#define HC_HIDDEN __attribute__((visibility("hidden")))

enum {
	HK_COMM = 1,
	HK_GROUP = 2,
	HK_REQ = 3,
	HK_OP = 4,
	HK_ERRH = 5,
	HK_TYPE = 6,
	HK_INFO = 7,
	/* surface-comm: matched-probe messages and sessions. */
	HK_MESSAGE = 10,
	HK_SESSION = 11,
};

#define HC_KIND_SHIFT 24
#define HC_INDEX_MASK 0xffffff
/* Communicator indexes: the C table is reserved address space, touched
 * only as far as it is used (hc_comms, core.c); freed indexes are reused. */
#define HC_MAX_COMMS (1 << 20)

static inline intptr_t hc_make(int kind, int idx) { return ((intptr_t)kind << HC_KIND_SHIFT) | idx; }
static inline int hc_index(const void *h, int kind) {
	intptr_t v = (intptr_t)h;
	if ((v >> HC_KIND_SHIFT) != kind) return -1;
	return (int)(v & HC_INDEX_MASK);
}

/* One attribute on a communicator. */
typedef struct {
	int keyval;
	void *value;
} hc_attr;

/* The C half of a communicator. Written only under hc_lock (creation,
 * free, attribute and error-handler changes); rank/size are fixed once the
 * entry is published. */
typedef struct {
	int used;
	int rank, size;
	MPI_Errhandler eh;
	hc_attr *attrs;
	int nattrs, capattrs;
	char name[MPI_MAX_OBJECT_NAME];
	/* Cartesian topology: ndims > 0, cart = dims[ndims] then periods[ndims]
	 * (malloc'd); ndims == 0 and cart == NULL for none. */
	int ndims;
	int *cart;
	/* Graph or distributed-graph topology (topo_graph.c), or NULL. */
	struct hc_graph *graph;
	/* Hints set with MPI_Comm_set_info and friends (comm_ext.c); 0: none. */
	MPI_Info info;
	/* The remote group's size for an intercommunicator, 0 for an
	 * intracommunicator, -1 until coll_inter.c has asked (HC_IS_INTER). */
	int inter;
	/* The fast lane's view of the communicator (fastlane.c): made on the
	 * first small send or receive; fl_state -1 when Go said no. */
	struct hc_flcomm *fl;
	int fl_state;
} hc_comm;

HC_HIDDEN extern hc_comm *hc_comms;
/* hc_slack_restore gives the thread that loaded the library its timer slack
 * back, once the Go runtime's threads have the long one (slack.c). */
HC_HIDDEN void hc_slack_restore(void);

/* Whether communicator index ci is an intercommunicator: one cgo call the
 * first time a collective asks, a load after that. */
HC_HIDDEN int hc_inter_probe(int ci);
#define HC_IS_INTER(ci) (__builtin_expect(hc_comms[ci].inter != 0, 0) && (hc_comms[ci].inter > 0 || hc_inter_probe(ci)))
HC_HIDDEN extern volatile int hc_forked;
HC_HIDDEN extern int hc_initialized, hc_finalized;
HC_HIDDEN extern int hc_debug;

/* Every entry point that can reach Go starts with HC_GUARD: in a child
 * forked after MPI_Init the Go runtime's other threads are gone, and any
 * call into Go could deadlock. */
#define HC_GUARD(fn) do { if (__builtin_expect(hc_forked, 0)) return hc_forked_error(fn); } while (0)

HC_HIDDEN int hc_forked_error(const char *fn);
/* Bsend buffers (buffer.c): attach to communicator ci, session si or the
 * process (-1, -1); detach stores MPI_BUFFER_AUTOMATIC or the buffer. */
HC_HIDDEN int hc_buf_attach(int ci, int si, void *buffer, int64_t size);
HC_HIDDEN int hc_buf_detach(int ci, int si, void *buffer_addr, int64_t *size);
HC_HIDDEN int hc_unsupported(const char *fn);
/* The after-MPI_Finalize check (core.c, guards_gen.c): 1 if fn is refused. */
HC_HIDDEN int hc_after_finalize(const char *fn);
/* hc_sessions_live: sessions initialized and not yet finalized (session.c). */
HC_HIDDEN int hc_sessions_live(void);
/* hc_error sends code through the error handler of communicator index ci
 * (-1: MPI_COMM_WORLD's) and returns it, if the handler returns. */
HC_HIDDEN int hc_error(int ci, int code, const char *fn);
/* hc_req_error decodes the packed (comm, code) that the Go request
 * functions return. */
HC_HIDDEN int hc_req_error(int packed, const char *fn);
HC_HIDDEN int hc_comm_index(MPI_Comm c);
/* Graph topologies (topo_graph.c): free one, copy one for MPI_Comm_dup. */
HC_HIDDEN void hc_graph_free(struct hc_graph *g);
HC_HIDDEN int hc_graph_copy(int from, int to);
/* A graph or distributed graph's neighbourhood for the neighbour
 * collectives; MPI_ERR_TOPOLOGY for a communicator without one. */
HC_HIDDEN int hc_graph_nbrs(int ci, int *indeg, int *outdeg, const int **sources, const int **dests);
/* Communicator hints (comm_ext.c): drop them, copy them for MPI_Comm_dup. */
HC_HIDDEN void hc_comm_info_free(int ci);
HC_HIDDEN int hc_comm_info_copy(int from, int to);
/* Intercommunicators (intercomm.c). */
HC_HIDDEN int hc_is_inter(int ci);
HC_HIDDEN void hc_set_errmsg(const char *msg, int n);
#define HC_MSG(lit) hc_set_errmsg(lit, (int)sizeof(lit) - 1)

/* Datatypes. hc_type_size is the size in bytes of one element (-1 if dt
 * is not a usable datatype); hc_type_base gives the predefined type the
 * element is made of and how many of it. */
HC_HIDDEN int64_t hc_type_size(MPI_Datatype dt);
HC_HIDDEN int hc_type_base(MPI_Datatype dt, intptr_t *base, int64_t *nbase);
/* Non-contiguous types travel packed: hc_type_contig says whether dt's
 * elements lie back to back (no packing needed); pack/unpack copy count
 * elements between a user buffer and a packed one (unpack stops after
 * bytes bytes). */
HC_HIDDEN int hc_type_contig(MPI_Datatype dt);
HC_HIDDEN void hc_type_pack(MPI_Datatype dt, int64_t count, const void *buf, void *packed);
HC_HIDDEN void hc_type_unpack(MPI_Datatype dt, int64_t count, const void *packed, int64_t bytes, void *buf);
/* A pending operation holds its datatype through hc_type_hold's handle,
 * which keeps the type alive after the user frees it; hc_type_release
 * drops it (and ignores anything that is not such a hold). */
HC_HIDDEN intptr_t hc_type_hold(MPI_Datatype dt);
HC_HIDDEN void hc_type_release(intptr_t h);
/* The same for Go, which holds handles as integers. */
static inline void hc_pack_h(intptr_t dt, int64_t count, const void *buf, void *packed)
{
	hc_type_pack((MPI_Datatype)dt, count, buf, packed);
}
static inline void hc_unpack_h(intptr_t dt, int64_t count, const void *packed, int64_t bytes, void *buf)
{
	hc_type_unpack((MPI_Datatype)dt, count, packed, bytes, buf);
}

/* Reductions the engine has no native form for (long double, complex,
 * MINLOC/MAXLOC pairs): applied in C. */
HC_HIDDEN int hc_builtin_ok(intptr_t op, intptr_t base);
HC_HIDDEN void hc_builtin_apply(intptr_t op, intptr_t base, void *in, void *inout, int64_t n);
HC_HIDDEN void hc_user_apply(uintptr_t fn, int bigcount, void *in, void *inout, int64_t n, intptr_t dt);
/* hc_red_apply reduces n elements of dt as the engine holds them (packed
 * when dt is not contiguous) with a user function ufn (non-zero) or the
 * predefined op. */
HC_HIDDEN void hc_red_apply(uintptr_t ufn, int big, intptr_t op, intptr_t dt, void *in, void *inout, int64_t n);

/* A reduction as the Go side needs it: the operator, the datatype, the
 * size of one element and what predefined type it is made of. builtin_ok is
 * hc_builtin_ok(op, base) for a predefined op, computed in C so that Go
 * does not call back into C on every reduction. */
typedef struct {
	intptr_t op, dt, base;
	int64_t esize, nbase;
	int builtin_ok;
} hc_red;

/* A thread's cache of free request slots (indexes into the Go request
 * table). Allocating and freeing a request through it takes no lock and no
 * atomic instruction, which on this path cost as much as the rest of the
 * bookkeeping; the Go side refills it from, and spills it to, the shared
 * free list in batches. Each thread has its own (hc_rcache in p2p.c); a
 * thread that exits keeps its few cached slots out of use. */
#define HC_REQCACHE 64
typedef struct {
	int n;
	int idx[HC_REQCACHE];
} hc_reqcache;

/* A receive into a non-contiguous datatype: the packed buffer tmp it
 * receives into, and count elements of the held datatype dt at ubuf to
 * unpack them to (MPI_Irecv passes NULL for a contiguous one, and so
 * four arguments less through cgo). */
typedef struct {
	void *tmp, *ubuf;
	intptr_t dt;
	int64_t count;
} hc_recv_unpack;

/* HC_REQ_DONE is the request handle of every send MPI_Isend completed at
 * once (handles.go hReqDone: the last request index but one, never a
 * slot's; the last stays free, a handle that is always bad).
 * MPI_Wait, MPI_Test, MPI_Waitall, MPI_Testall, MPI_Request_free and
 * MPI_Request_get_status answer it here without entering Go; the other
 * calls on arrays give it a slot of its own first (requests.go liveView). */
#define HC_REQ_DONE ((MPI_Request)(((intptr_t)HK_REQ << HC_KIND_SHIFT) | (HC_INDEX_MASK - 1)))

/* Status fill: count in bytes. */
static inline void hc_status_set(MPI_Status *st, int source, int tag, int64_t bytes, int cancelled) {
	if (!st) return;
	st->MPI_SOURCE = source;
	st->MPI_TAG = tag;
	__builtin_memcpy(&st->MPI_internal[0], &bytes, sizeof bytes);
	st->MPI_internal[2] = cancelled;
}

/* The status of a completed send, as the Go side fills it (fillStatus of
 * an empty mpi.Status). */
static inline void hc_done_status(MPI_Status *st) { hc_status_set(st, 0, 0, 0, 0); }

#include "guards_gen.h"

#endif
