/*
 * win.c — one-sided communication: windows, RMA operations and their
 * synchronisation (the engine does the work, mpi/win*.go), plus what only C
 * sees of a window: its error handler, attributes, name.
 *
 * Datatypes: an origin (or result) buffer of a non-contiguous type is
 * packed into a temporary one; a non-contiguous target type becomes the
 * list of its blocks (hc_type_segments), which the engine fills in order.
 * Accumulates reduce elements of the target datatype's basic type.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cabi.h"
#include "argcheck.h"
#include "_cgo_export.h"
#include "golane.h"

#define HK_WIN 8
#define HC_MAX_WINS 1024 /* maxWins in win.go */
#define HC_FIRST_WIN_KEYVAL 5000
#define HC_MAX_WIN_KEYVALS 256
#define HC_MAX_WIN_ERRH 64

enum { ACC_OP, ACC_REPLACE, ACC_NOOP }; /* win.go: accOp... */
enum {
	S_FENCE, S_POST, S_START, S_COMPLETE, S_WAIT, S_TEST, S_LOCK, S_UNLOCK,
	S_LOCKALL, S_UNLOCKALL, S_FLUSH, S_FLUSHALL, S_SYNC,
}; /* win.go: syncFence... */

typedef struct {
	int used;
	MPI_Errhandler eh;
	hc_attr *attrs;
	int nattrs, capattrs;
	char name[MPI_MAX_OBJECT_NAME];
	/* The fast path: for windows hympi allocated, every rank's memory as
	 * this process maps it (tbase NULL otherwise); access mirrors the
	 * open epochs per target (bit 1: any, bit 2: passive), kept by the Go
	 * side after every synchronisation call. */
	int n;
	unsigned char *access;
	char **tbase;
	int64_t *tsize, *tunit;
	uint32_t **tacc; /* each target's accumulate mutex; the next word counts its waiters */
	/* Values the predefined attributes point at. */
	void *base;
	MPI_Aint size;
	int disp_unit;
	int flavor, model;
} hc_win;

static hc_win hc_wins[HC_MAX_WINS];
static pthread_mutex_t hc_win_lock = PTHREAD_MUTEX_INITIALIZER;

/* Window error handlers are core.c's error handlers (so MPI_Errhandler_free
 * knows them); this list remembers which are for windows, with their
 * function. */
static struct {
	MPI_Errhandler eh;
	MPI_Win_errhandler_function *fn;
} hc_win_errh[HC_MAX_WIN_ERRH];
static int hc_nwin_errh;

/* A keyval is held by its handle (used) and by each attribute set with it
 * (refs counts both, __atomic): a freed keyval still held by attributes
 * keeps its callbacks, and freeing it again succeeds without releasing
 * anything, as for communicator and datatype keyvals. Slots are never
 * reused, so a keyval that no one holds stays invalid. */
static struct {
	int used;
	int refs;
	MPI_Win_copy_attr_function *copy;
	MPI_Win_delete_attr_function *del;
	void *extra;
} hc_win_keyvals[HC_MAX_WIN_KEYVALS];
static int hc_nwin_keyvals;

static int hc_win_index(MPI_Win w)
{
	int i = hc_index(w, HK_WIN);
	if (i < 0 || i >= HC_MAX_WINS || !hc_wins[i].used) return -1;
	return i;
}

static MPI_Win hc_win_handle(int wi) { return (MPI_Win)hc_make(HK_WIN, wi); }

static MPI_Win_errhandler_function *hc_win_errh_fn(MPI_Errhandler eh)
{
	for (int i = 0; i < hc_nwin_errh; i++)
		if (hc_win_errh[i].eh == eh) return hc_win_errh[i].fn;
	return NULL;
}

/* hc_win_error sends code through window wi's error handler (wi < 0: an
 * invalid window, MPI_COMM_WORLD's handler) and returns it. */
static int hc_win_error(int wi, int code, const char *fn)
{
	if (code == MPI_SUCCESS) return MPI_SUCCESS;
	if (wi < 0 || wi >= HC_MAX_WINS || !hc_wins[wi].used) return hc_error(-1, code, fn);
	MPI_Errhandler eh = hc_wins[wi].eh;
	if (eh == MPI_ERRORS_RETURN) return code;
	MPI_Win_errhandler_function *f = hc_win_errh_fn(eh);
	if (f) {
		MPI_Win w = hc_win_handle(wi);
		int c = code;
		f(&w, &c);
		return code;
	}
	/* Fatal: core.c prints the message and aborts the job. */
	PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	return hc_error(-1, code, fn);
}

#define WIN(wi, win, fn)                                                       \
	HC_GUARD(fn);                                                          \
	int wi = hc_win_index(win);                                            \
	if (wi < 0) return hc_error(-1, MPI_ERR_WIN, fn)

#define RET(wi, rc, fn) return (rc) ? hc_win_error(wi, rc, fn) : MPI_SUCCESS

/* argcheck.h's checks, reported through the window's handler: an error on
 * a valid window belongs to it, not to MPI_COMM_WORLD. */
__attribute__((cold, noinline)) static int hc_win_arg_fail(int wi, int code, const char *fn, const char *msg)
{
	hc_set_errmsg(msg, (int)strlen(msg));
	return hc_win_error(wi, code, fn);
}

#define WIN_CHECK_PTR(wi, p, fn)                                                                \
	do {                                                                                    \
		if (__builtin_expect((uintptr_t)(p) < 4096, 0))                                 \
			return hc_win_arg_fail(wi, MPI_ERR_ARG, fn, "argument " #p " is NULL or in page zero"); \
	} while (0)

/* The origin, compare and result buffers of an operation: the address of
 * its first byte may not be in page zero when there are bytes to move. */
static int hc_rma_buf_bad(const void *buf, int64_t count, MPI_Datatype dt)
{
	if ((uintptr_t)buf >= 4096) return 0;
	if (!hc_buf_bad(buf, count, dt)) return 0;
	HC_MSG("an RMA buffer is NULL or MPI_IN_PLACE with count > 0");
	return 1;
}

/* ---- creation and freeing ------------------------------------------- */

static int hc_info_true(MPI_Info info, const char *key)
{
	if (info == MPI_INFO_NULL) return 0;
	char v[16];
	int flag = 0;
	if (PMPI_Info_get(info, key, (int)sizeof v - 1, v, &flag) != MPI_SUCCESS || !flag) return 0;
	return strcmp(v, "true") == 0;
}

static int hc_win_new(const char *fn, int flavor, void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
		      MPI_Comm comm, void *baseptr, MPI_Win *win)
{
	HC_GUARD(fn);
	int ci = hc_comm_index(comm);
	if (ci < 0) return hc_error(-1, MPI_ERR_COMM, fn);
	/* Local argument errors return before the collective, as in MPICH:
	 * they are this rank's program's, and nothing has started. */
	HC_CHECK_PTR(ci, win, fn);
	HC_CHECK_INFO(ci, info, fn);
	if (flavor == MPI_WIN_FLAVOR_ALLOCATE || flavor == MPI_WIN_FLAVOR_SHARED) HC_CHECK_PTR(ci, baseptr, fn);
	if (flavor == MPI_WIN_FLAVOR_CREATE && size > 0 && (uintptr_t)base < 4096)
		return hc_arg_fail(ci, MPI_ERR_ARG, fn, "window base is NULL or in page zero with size > 0");
	/* size and disp_unit are checked in the engine, collectively: a rank
	 * that returned here would leave the others waiting. */
	if (disp_unit > 0x7fffffff) disp_unit = -1;
	int wi = -1, n = hc_comms[ci].size;
	void *mine = NULL;
	unsigned char *access = calloc(n, 1);
	char **tbase = calloc(n, sizeof *tbase);
	int64_t *tsize = calloc(n, sizeof *tsize), *tunit = calloc(n, sizeof *tunit);
	uint32_t **tacc = calloc(n, sizeof *tacc);
	if (!access || !tbase || !tsize || !tunit || !tacc) {
		/* Every rank must enter the collective: the engine refuses an
		 * impossible size on this one's behalf. */
		size = -1;
	}
	int rc = hympi_go_win_create(ci, flavor - MPI_WIN_FLAVOR_CREATE + 1, base, size, disp_unit,
				     hc_info_true(info, "alloc_shared_noncontig"), &wi, &mine, access, (void **)tbase,
				     tsize, tunit, (void **)tacc);
	if (rc) {
		free(tacc);
		free(access);
		free(tbase);
		free(tsize);
		free(tunit);
		return hc_error(ci, rc, fn);
	}
	pthread_mutex_lock(&hc_win_lock);
	hc_win *w = &hc_wins[wi];
	memset(w, 0, sizeof *w);
	w->n = n;
	w->access = access;
	w->tbase = flavor == MPI_WIN_FLAVOR_ALLOCATE || flavor == MPI_WIN_FLAVOR_SHARED ? tbase : NULL;
	if (!w->tbase) free(tbase);
	w->tacc = tacc;
	w->tsize = tsize;
	w->tunit = tunit;
	w->used = 1;
	w->eh = MPI_ERRORS_ARE_FATAL;
	w->base = mine;
	w->size = flavor == MPI_WIN_FLAVOR_DYNAMIC ? 0 : size;
	w->disp_unit = (int)disp_unit;
	w->flavor = flavor;
	w->model = hympi_go_win_separate(wi) ? MPI_WIN_SEPARATE : MPI_WIN_UNIFIED;
	pthread_mutex_unlock(&hc_win_lock);
	if (baseptr) *(void **)baseptr = mine; /* NULL for create and dynamic */
	*win = hc_win_handle(wi);
	return MPI_SUCCESS;
}

int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
	return hc_win_new("MPI_Win_create", MPI_WIN_FLAVOR_CREATE, base, size, disp_unit, info, comm, NULL, win);
}
int PMPI_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
	return hc_win_new("MPI_Win_create_c", MPI_WIN_FLAVOR_CREATE, base, size, disp_unit, info, comm, NULL, win);
}
int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win)
{
	return hc_win_new("MPI_Win_allocate", MPI_WIN_FLAVOR_ALLOCATE, NULL, size, disp_unit, info, comm, baseptr, win);
}
int PMPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win)
{
	return hc_win_new("MPI_Win_allocate_c", MPI_WIN_FLAVOR_ALLOCATE, NULL, size, disp_unit, info, comm, baseptr, win);
}
int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win)
{
	return hc_win_new("MPI_Win_allocate_shared", MPI_WIN_FLAVOR_SHARED, NULL, size, disp_unit, info, comm, baseptr, win);
}
int PMPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
			       MPI_Win *win)
{
	return hc_win_new("MPI_Win_allocate_shared_c", MPI_WIN_FLAVOR_SHARED, NULL, size, disp_unit, info, comm, baseptr,
			  win);
}
int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
	return hc_win_new("MPI_Win_create_dynamic", MPI_WIN_FLAVOR_DYNAMIC, NULL, 0, 1, info, comm, NULL, win);
}

static int hc_win_delete_attrs(int wi);

int PMPI_Win_free(MPI_Win *win)
{
	HC_GUARD("MPI_Win_free");
	HC_CHECK_PTR(-1, win, "MPI_Win_free");
	WIN(wi, *win, "MPI_Win_free");
	int rc = hc_win_delete_attrs(wi);
	if (rc) return hc_win_error(wi, rc, "MPI_Win_free");
	rc = hympi_go_win_free(wi);
	if (rc) return hc_win_error(wi, rc, "MPI_Win_free");
	pthread_mutex_lock(&hc_win_lock);
	free(hc_wins[wi].attrs);
	free(hc_wins[wi].access);
	free(hc_wins[wi].tbase);
	free(hc_wins[wi].tsize);
	free(hc_wins[wi].tunit);
	free(hc_wins[wi].tacc);
	memset(&hc_wins[wi], 0, sizeof hc_wins[wi]);
	pthread_mutex_unlock(&hc_win_lock);
	*win = MPI_WIN_NULL;
	return MPI_SUCCESS;
}

int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
	WIN(wi, win, "MPI_Win_attach");
	if (size < 0) return hc_win_error(wi, MPI_ERR_SIZE, "MPI_Win_attach");
	if (size > 0 && (uintptr_t)base < 4096)
		return hc_win_arg_fail(wi, MPI_ERR_ARG, "MPI_Win_attach", "memory to attach is NULL or in page zero");
	RET(wi, hympi_go_win_attach(wi, base, size, 0), "MPI_Win_attach");
}

int PMPI_Win_detach(MPI_Win win, const void *base)
{
	WIN(wi, win, "MPI_Win_detach");
	RET(wi, hympi_go_win_attach(wi, (void *)base, 0, 1), "MPI_Win_detach");
}

static int hc_shared_query(const char *fn, MPI_Win win, int rank, MPI_Aint *size, const void *disp_unit, int64_t *du,
			   void *baseptr)
{
	WIN(wi, win, fn);
	WIN_CHECK_PTR(wi, size, fn);
	WIN_CHECK_PTR(wi, disp_unit, fn);
	WIN_CHECK_PTR(wi, baseptr, fn);
	int64_t s = 0;
	void *b = NULL;
	int rc = hympi_go_win_shared_query(wi, rank, &s, du, &b);
	if (rc) return hc_win_error(wi, rc, fn);
	*size = s;
	*(void **)baseptr = b;
	return MPI_SUCCESS;
}

int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr)
{
	int64_t du = 1;
	int rc = hc_shared_query("MPI_Win_shared_query", win, rank, size, disp_unit, &du, baseptr);
	if (!rc) *disp_unit = (int)du;
	return rc;
}

int PMPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit, void *baseptr)
{
	int64_t du = 1;
	int rc = hc_shared_query("MPI_Win_shared_query_c", win, rank, size, disp_unit, &du, baseptr);
	if (!rc) *disp_unit = du;
	return rc;
}

/* ---- operations ------------------------------------------------------ */

HC_HIDDEN int64_t hc_type_segments(MPI_Datatype dt, int64_t count, int64_t *segs, int64_t max); /* dtype_seg.c */

/* hc_target_segs lists the blocks of a non-contiguous target (*segs NULL
 * for a contiguous one); the caller frees *segs. */
static int hc_target_segs(MPI_Datatype tdt, int64_t tc, int64_t **segs, int64_t *nsegs)
{
	*segs = NULL;
	*nsegs = 0;
	if (hc_type_contig(tdt)) return MPI_SUCCESS;
	int64_t n = hc_type_segments(tdt, tc, NULL, 0);
	if (n < 0) return MPI_ERR_TYPE;
	int64_t *s = malloc((size_t)(n ? n : 1) * 2 * sizeof *s);
	if (!s) return MPI_ERR_NO_MEM;
	hc_type_segments(tdt, tc, s, n);
	*segs = s;
	*nsegs = n;
	return MPI_SUCCESS;
}

/* hc_rma_xfer is Put (get == 0) and Get: origin and target must carry the
 * same number of bytes. */
static int hc_rma_xfer(int wi, void *o, int64_t oc, MPI_Datatype odt, int t, MPI_Aint disp, int64_t tc,
		       MPI_Datatype tdt, int get)
{
	/* Fast path: allocated window, contiguous predefined types, an open
	 * epoch, in bounds: one memcpy. Anything else, errors included, goes
	 * through the engine. */
	if (hc_rma_buf_bad(o, oc, odt)) return MPI_ERR_BUFFER;
	hc_win *w = &hc_wins[wi];
	intptr_t ov = (intptr_t)odt;
	if (w->tbase && odt == tdt && ov > 0x200 && ov < 0x300 && t >= 0 && t < w->n && (w->access[t] & 1) &&
	    oc == tc && oc >= 0 && disp >= 0 && disp <= w->tsize[t]) {
		int64_t n = oc * hc_type_size(odt), off = disp * w->tunit[t];
		if (n >= 0 && off <= w->tsize[t] - n) {
			if (get) memcpy(o, w->tbase[t] + off, (size_t)n);
			else memcpy(w->tbase[t] + off, o, (size_t)n);
			return MPI_SUCCESS;
		}
	}
	int64_t os = hc_type_size(odt), ts = hc_type_size(tdt);
	if (os < 0 || ts < 0) return MPI_ERR_TYPE;
	if (oc < 0 || tc < 0) return MPI_ERR_COUNT;
	int64_t n = os * oc;
	if (n != ts * tc) {
		HC_MSG("origin and target hold different numbers of bytes");
		return MPI_ERR_TYPE;
	}
	int64_t *segs, nsegs;
	int rc = hc_target_segs(tdt, tc, &segs, &nsegs);
	if (rc) return rc;
	if (hc_type_contig(odt)) {
		rc = hympi_go_win_put(wi, o, n, t, disp, get, segs, nsegs);
		free(segs);
		return rc;
	}
	void *tmp = malloc(n > 0 ? (size_t)n : 1);
	if (!tmp) {
		free(segs);
		return MPI_ERR_NO_MEM;
	}
	if (!get) hc_type_pack(odt, oc, o, tmp);
	rc = hympi_go_win_put(wi, tmp, n, t, disp, get, segs, nsegs);
	if (!rc && get) hc_type_unpack(odt, oc, tmp, n, o);
	free(tmp);
	free(segs);
	return rc;
}

/* One-element atomics on allocated windows, without calling into Go: take
 * the target's accumulate mutex (a few attempts; a contended one is left to
 * the engine, which waits properly), act on the mapped element, release,
 * and wake the engine's waiters if there are any. */
static char *hc_fast_elem(hc_win *w, int t, MPI_Aint disp, int64_t esz)
{
	if (!w->tbase || t < 0 || t >= w->n || !(w->access[t] & 1) || disp < 0 || disp > w->tsize[t] || esz <= 0)
		return NULL;
	int64_t off = disp * w->tunit[t];
	if (off > w->tsize[t] - esz || !w->tacc[t]) return NULL;
	return w->tbase[t] + off;
}

static int hc_fast_lock(hc_win *w, int t)
{
	for (int i = 0; i < 16; i++) {
		uint32_t z = 0;
		if (__atomic_compare_exchange_n(w->tacc[t], &z, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) return 1;
	}
	return 0;
}

static void hc_fast_unlock(int wi, hc_win *w, int t)
{
	__atomic_store_n(w->tacc[t], 0, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(w->tacc[t] + 1, __ATOMIC_SEQ_CST)) hympi_go_win_ring(wi);
}

/* hc_fast_add adds n elements of in to those at p, for the integer and
 * floating types whose sum C does here; 0 (nothing done) for the others. */
static int hc_fast_add(MPI_Datatype dt, char *p, const void *in, int64_t n)
{
#define HC_ADD(T)                                                                                               \
	do {                                                                                                    \
		const char *q = in;                                                                             \
		for (int64_t i = 0; i < n; i++) {                                                               \
			T a, b;                                                                                 \
			memcpy(&a, p + i * sizeof a, sizeof a);                                                 \
			memcpy(&b, q + i * sizeof b, sizeof b);                                                 \
			a += b;                                                                                 \
			memcpy(p + i * sizeof a, &a, sizeof a);                                                 \
		}                                                                                               \
		return 1;                                                                                       \
	} while (0)
	if (dt == MPI_INT || dt == MPI_INT32_T) HC_ADD(int32_t);
	if (dt == MPI_UNSIGNED || dt == MPI_UINT32_T) HC_ADD(uint32_t);
	if (dt == MPI_LONG || dt == MPI_LONG_LONG || dt == MPI_INT64_T || dt == MPI_AINT || dt == MPI_COUNT ||
	    dt == MPI_OFFSET)
		HC_ADD(int64_t);
	if (dt == MPI_UNSIGNED_LONG || dt == MPI_UNSIGNED_LONG_LONG || dt == MPI_UINT64_T) HC_ADD(uint64_t);
	if (dt == MPI_DOUBLE) HC_ADD(double);
	if (dt == MPI_FLOAT) HC_ADD(float);
	return 0;
#undef HC_ADD
}

static int hc_fast_add_ok(MPI_Datatype dt)
{
	char z[8] = {0};
	return hc_fast_add(dt, z, z, 0);
}

/* hc_rma_acc is Accumulate (r == NULL) and Get_accumulate. */
static int hc_rma_acc(int wi, const void *o, int64_t oc, MPI_Datatype odt, void *r, int64_t rcount,
		      MPI_Datatype rdt, int t, MPI_Aint disp, int64_t tc, MPI_Datatype tdt, MPI_Op op);

/* hc_rma_getacc is Get_accumulate: a NULL result buffer with nothing to
 * hold must not turn it into an Accumulate. */
static char hc_rma_none[1];
static int hc_rma_getacc(int wi, const void *o, int64_t oc, MPI_Datatype odt, void *r, int64_t rcount,
			 MPI_Datatype rdt, int t, MPI_Aint disp, int64_t tc, MPI_Datatype tdt, MPI_Op op)
{
	if (hc_rma_buf_bad(r, rcount, rdt)) return MPI_ERR_BUFFER;
	return hc_rma_acc(wi, o, oc, odt, r ? r : hc_rma_none, rcount, rdt, t, disp, tc, tdt, op);
}

static int hc_rma_acc(int wi, const void *o, int64_t oc, MPI_Datatype odt, void *r, int64_t rcount,
		      MPI_Datatype rdt, int t, MPI_Aint disp, int64_t tc, MPI_Datatype tdt, MPI_Op op)
{
	if (op != MPI_NO_OP && hc_rma_buf_bad(o, oc, odt)) return MPI_ERR_BUFFER;
	/* Fast path: allocated window, one predefined type throughout, SUM,
	 * REPLACE or NO_OP, an open epoch, in bounds, the mutex free. */
	hc_win *w = &hc_wins[wi];
	intptr_t tv = (intptr_t)tdt;
	if (w->tbase && tv > 0x200 && tv < 0x300 && (odt == tdt || op == MPI_NO_OP) && (!r || rdt == tdt) &&
	    (op == MPI_NO_OP || oc == tc) && (!r || rcount == tc) && tc > 0 &&
	    (op == MPI_REPLACE || op == MPI_NO_OP || (op == MPI_SUM && hc_fast_add_ok(tdt)))) {
		int64_t es = hc_type_size(tdt);
		char *p = es > 0 && tc <= INT64_MAX / es ? hc_fast_elem(w, t, disp, es * tc) : NULL;
		if (p && hc_fast_lock(w, t)) {
			if (r) memcpy(r, p, (size_t)(es * tc));
			if (op == MPI_REPLACE) memcpy(p, o, (size_t)(es * tc));
			else if (op == MPI_SUM) hc_fast_add(tdt, p, o, tc);
			hc_fast_unlock(wi, w, t);
			return MPI_SUCCESS;
		}
	}
	int kind = ACC_OP;
	hc_red red;
	memset(&red, 0, sizeof red);
	if (op == MPI_REPLACE) kind = ACC_REPLACE;
	else if (op == MPI_NO_OP) kind = ACC_NOOP;
	else if ((intptr_t)op >= 0x1000 || op == MPI_OP_NULL) {
		HC_MSG("one-sided accumulates take predefined operators only");
		return MPI_ERR_OP;
	}
	int64_t ts = hc_type_size(tdt);
	if (ts < 0) return MPI_ERR_TYPE;
	if (tc < 0 || oc < 0 || rcount < 0) return MPI_ERR_COUNT;
	if (kind == ACC_OP) {
		red.op = (intptr_t)op;
		red.dt = (intptr_t)tdt;
		red.esize = ts;
		if (!hc_type_base(tdt, &red.base, &red.nbase)) return MPI_ERR_TYPE;
		red.builtin_ok = hc_builtin_ok(red.op, red.base);
		if (!red.builtin_ok) return MPI_ERR_OP;
	}
	int64_t n = ts * tc;
	void *otmp = NULL, *rtmp = NULL, *obuf = (void *)o, *rbuf = r;
	if (kind != ACC_NOOP) {
		int64_t os = hc_type_size(odt);
		if (os < 0) return MPI_ERR_TYPE;
		if (os * oc != n) {
			HC_MSG("origin and target hold different numbers of bytes");
			return MPI_ERR_TYPE;
		}
		if (!hc_type_contig(odt)) {
			if (!(otmp = malloc(n > 0 ? (size_t)n : 1))) return MPI_ERR_NO_MEM;
			hc_type_pack(odt, oc, o, otmp);
			obuf = otmp;
		}
	} else {
		obuf = NULL;
	}
	if (r) {
		int64_t rs = hc_type_size(rdt);
		if (rs < 0 || rs * rcount != n) {
			free(otmp);
			HC_MSG("result and target hold different numbers of bytes");
			return MPI_ERR_TYPE;
		}
		if (!hc_type_contig(rdt)) {
			if (!(rtmp = malloc(n > 0 ? (size_t)n : 1))) {
				free(otmp);
				return MPI_ERR_NO_MEM;
			}
			rbuf = rtmp;
		}
	}
	int64_t *segs, nsegs;
	int rc = hc_target_segs(tdt, tc, &segs, &nsegs);
	if (!rc) rc = hympi_go_win_acc(wi, obuf, rbuf, n, t, disp, &red, kind, segs, nsegs);
	if (!rc && rtmp) hc_type_unpack(rdt, rcount, rtmp, n, r);
	free(segs);
	free(otmp);
	free(rtmp);
	return rc;
}


int PMPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
	WIN(wi, win, "MPI_Put");
	RET(wi, hc_rma_xfer(wi, (void *)origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
			    target_datatype, 0),
	    "MPI_Put");
}
int PMPI_Put_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win)
{
	WIN(wi, win, "MPI_Put_c");
	RET(wi, hc_rma_xfer(wi, (void *)origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
			    target_datatype, 0),
	    "MPI_Put_c");
}
int PMPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
	WIN(wi, win, "MPI_Get");
	RET(wi, hc_rma_xfer(wi, (void *)origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
			    target_datatype, 1),
	    "MPI_Get");
}
int PMPI_Get_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win)
{
	WIN(wi, win, "MPI_Get_c");
	RET(wi, hc_rma_xfer(wi, (void *)origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
			    target_datatype, 1),
	    "MPI_Get_c");
}


int PMPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_cout, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
	WIN(wi, win, "MPI_Rput");
	WIN_CHECK_PTR(wi, request, "MPI_Rput");
	int rc = hc_rma_xfer(wi, (void *)origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_cout,
			     target_datatype, 0);
	if (!rc) rc = hympi_go_win_req(wi, (intptr_t *)request);
	RET(wi, rc, "MPI_Rput");
}
int PMPI_Rput_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
	WIN(wi, win, "MPI_Rput_c");
	WIN_CHECK_PTR(wi, request, "MPI_Rput_c");
	int rc = hc_rma_xfer(wi, (void *)origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
			     target_datatype, 0);
	if (!rc) rc = hympi_go_win_req(wi, (intptr_t *)request);
	RET(wi, rc, "MPI_Rput_c");
}
int PMPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
	WIN(wi, win, "MPI_Rget");
	WIN_CHECK_PTR(wi, request, "MPI_Rget");
	int rc = hc_rma_xfer(wi, (void *)origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
			     target_datatype, 1);
	if (!rc) rc = hympi_go_win_req(wi, (intptr_t *)request);
	RET(wi, rc, "MPI_Rget");
}
int PMPI_Rget_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
	WIN(wi, win, "MPI_Rget_c");
	WIN_CHECK_PTR(wi, request, "MPI_Rget_c");
	int rc = hc_rma_xfer(wi, (void *)origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
			     target_datatype, 1);
	if (!rc) rc = hympi_go_win_req(wi, (intptr_t *)request);
	RET(wi, rc, "MPI_Rget_c");
}

int PMPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
	WIN(wi, win, "MPI_Accumulate");
	RET(wi, hc_rma_acc(wi, origin_addr, origin_count, origin_datatype, NULL, 0, MPI_DATATYPE_NULL, target_rank,
			   target_disp, target_count, target_datatype, op),
	    "MPI_Accumulate");
}
int PMPI_Accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
	WIN(wi, win, "MPI_Accumulate_c");
	RET(wi, hc_rma_acc(wi, origin_addr, origin_count, origin_datatype, NULL, 0, MPI_DATATYPE_NULL, target_rank,
			   target_disp, target_count, target_datatype, op),
	    "MPI_Accumulate_c");
}

int PMPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
	WIN(wi, win, "MPI_Raccumulate");
	WIN_CHECK_PTR(wi, request, "MPI_Raccumulate");
	int rc = hc_rma_acc(wi, origin_addr, origin_count, origin_datatype, NULL, 0, MPI_DATATYPE_NULL, target_rank,
			    target_disp, target_count, target_datatype, op);
	if (!rc) rc = hympi_go_win_req(wi, (intptr_t *)request);
	RET(wi, rc, "MPI_Raccumulate");
}
int PMPI_Raccumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
	WIN(wi, win, "MPI_Raccumulate_c");
	WIN_CHECK_PTR(wi, request, "MPI_Raccumulate_c");
	int rc = hc_rma_acc(wi, origin_addr, origin_count, origin_datatype, NULL, 0, MPI_DATATYPE_NULL, target_rank,
			    target_disp, target_count, target_datatype, op);
	if (!rc) rc = hympi_go_win_req(wi, (intptr_t *)request);
	RET(wi, rc, "MPI_Raccumulate_c");
}

int PMPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
	WIN(wi, win, "MPI_Get_accumulate");
	int rc = hc_rma_getacc(wi, origin_addr, origin_count, origin_datatype, result_addr, result_count, result_datatype,
			    target_rank, target_disp, target_count, target_datatype, op);
	RET(wi, rc, "MPI_Get_accumulate");
}
int PMPI_Get_accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
	WIN(wi, win, "MPI_Get_accumulate_c");
	int rc = hc_rma_getacc(wi, origin_addr, origin_count, origin_datatype, result_addr, result_count, result_datatype,
			    target_rank, target_disp, target_count, target_datatype, op);
	RET(wi, rc, "MPI_Get_accumulate_c");
}
int PMPI_Rget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
	WIN(wi, win, "MPI_Rget_accumulate");
	WIN_CHECK_PTR(wi, request, "MPI_Rget_accumulate");
	int rc = hc_rma_getacc(wi, origin_addr, origin_count, origin_datatype, result_addr, result_count, result_datatype,
			    target_rank, target_disp, target_count, target_datatype, op);
	if (!rc) rc = hympi_go_win_req(wi, (intptr_t *)request);
	RET(wi, rc, "MPI_Rget_accumulate");
}
int PMPI_Rget_accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
	WIN(wi, win, "MPI_Rget_accumulate_c");
	WIN_CHECK_PTR(wi, request, "MPI_Rget_accumulate_c");
	int rc = hc_rma_getacc(wi, origin_addr, origin_count, origin_datatype, result_addr, result_count, result_datatype,
			    target_rank, target_disp, target_count, target_datatype, op);
	if (!rc) rc = hympi_go_win_req(wi, (intptr_t *)request);
	RET(wi, rc, "MPI_Rget_accumulate_c");
}

int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank,
		      MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
	WIN(wi, win, "MPI_Fetch_and_op");
	int64_t esz = hc_type_size(datatype);
	if (esz <= 0 || (intptr_t)datatype >= 0x1000) return hc_win_error(wi, MPI_ERR_TYPE, "MPI_Fetch_and_op");
	if (hc_rma_buf_bad(result_addr, 1, datatype) || (op != MPI_NO_OP && hc_rma_buf_bad(origin_addr, 1, datatype)))
		return hc_win_error(wi, MPI_ERR_BUFFER, "MPI_Fetch_and_op");
	hc_win *w = &hc_wins[wi];
	char *p = hc_fast_elem(w, target_rank, target_disp, esz);
	if (p && (op == MPI_SUM || op == MPI_REPLACE || op == MPI_NO_OP) && hc_fast_lock(w, target_rank)) {
		memcpy(result_addr, p, (size_t)esz);
		int done = 1;
		if (op == MPI_REPLACE) memcpy(p, origin_addr, (size_t)esz);
		else if (op == MPI_SUM) done = hc_fast_add(datatype, p, origin_addr, 1);
		hc_fast_unlock(wi, w, target_rank);
		if (done) return MPI_SUCCESS;
		/* A type this path cannot add: nothing changed, the engine does it. */
	}
	RET(wi, hc_rma_acc(wi, origin_addr, 1, datatype, result_addr, 1, datatype, target_rank, target_disp, 1, datatype, op),
	    "MPI_Fetch_and_op");
}

int PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr, MPI_Datatype datatype,
			  int target_rank, MPI_Aint target_disp, MPI_Win win)
{
	WIN(wi, win, "MPI_Compare_and_swap");
	int64_t s = hc_type_size(datatype);
	if (s <= 0 || (intptr_t)datatype >= 0x1000) return hc_win_error(wi, MPI_ERR_TYPE, "MPI_Compare_and_swap");
	if (hc_rma_buf_bad(origin_addr, 1, datatype) || hc_rma_buf_bad(compare_addr, 1, datatype) ||
	    hc_rma_buf_bad(result_addr, 1, datatype))
		return hc_win_error(wi, MPI_ERR_BUFFER, "MPI_Compare_and_swap");
	hc_win *w = &hc_wins[wi];
	char *p = hc_fast_elem(w, target_rank, target_disp, s);
	if (p && hc_fast_lock(w, target_rank)) {
		memcpy(result_addr, p, (size_t)s);
		if (memcmp(result_addr, compare_addr, (size_t)s) == 0) memcpy(p, origin_addr, (size_t)s);
		hc_fast_unlock(wi, w, target_rank);
		return MPI_SUCCESS;
	}
	RET(wi, hympi_go_win_cas(wi, (void *)origin_addr, (void *)compare_addr, result_addr, s, target_rank, target_disp),
	    "MPI_Compare_and_swap");
}

/* ---- synchronisation ------------------------------------------------- */

static int hc_sync(MPI_Win win, int kind, intptr_t arg, int lock_type, int assert, int *flag, const char *fn)
{
	WIN(wi, win, fn);
	int f = 0;
	int rc = hympi_go_win_sync(wi, kind, arg, lock_type, assert, &f);
	if (flag) *flag = f;
	RET(wi, rc, fn);
}

int PMPI_Win_fence(int assert, MPI_Win win) { return hc_sync(win, S_FENCE, 0, 0, assert, NULL, "MPI_Win_fence"); }
int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
	return hc_sync(win, S_POST, (intptr_t)group, 0, assert, NULL, "MPI_Win_post");
}
int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
	return hc_sync(win, S_START, (intptr_t)group, 0, assert, NULL, "MPI_Win_start");
}
int PMPI_Win_complete(MPI_Win win) { return hc_sync(win, S_COMPLETE, 0, 0, 0, NULL, "MPI_Win_complete"); }
int PMPI_Win_wait(MPI_Win win) { return hc_sync(win, S_WAIT, 0, 0, 0, NULL, "MPI_Win_wait"); }
int PMPI_Win_test(MPI_Win win, int *flag)
{
	WIN(wi, win, "MPI_Win_test");
	WIN_CHECK_PTR(wi, flag, "MPI_Win_test");
	return hc_sync(win, S_TEST, 0, 0, 0, flag, "MPI_Win_test");
}
int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
	return hc_sync(win, S_LOCK, rank, lock_type, assert, NULL, "MPI_Win_lock");
}
int PMPI_Win_unlock(int rank, MPI_Win win) { return hc_sync(win, S_UNLOCK, rank, 0, 0, NULL, "MPI_Win_unlock"); }
int PMPI_Win_lock_all(int assert, MPI_Win win) { return hc_sync(win, S_LOCKALL, 0, 0, assert, NULL, "MPI_Win_lock_all"); }
int PMPI_Win_unlock_all(MPI_Win win) { return hc_sync(win, S_UNLOCKALL, 0, 0, 0, NULL, "MPI_Win_unlock_all"); }
/* Operations complete in their calls: a flush inside a passive epoch has
 * nothing to do, and says so without calling into Go. */
static int hc_flush_fast(MPI_Win win, int rank)
{
	int wi = hc_win_index(win);
	return wi >= 0 && rank >= 0 && rank < hc_wins[wi].n && (hc_wins[wi].access[rank] & 2);
}

int PMPI_Win_flush(int rank, MPI_Win win)
{
	if (hc_flush_fast(win, rank)) return MPI_SUCCESS;
	return hc_sync(win, S_FLUSH, rank, 0, 0, NULL, "MPI_Win_flush");
}
int PMPI_Win_flush_local(int rank, MPI_Win win)
{
	if (hc_flush_fast(win, rank)) return MPI_SUCCESS;
	return hc_sync(win, S_FLUSH, rank, 0, 0, NULL, "MPI_Win_flush_local");
}
int PMPI_Win_flush_all(MPI_Win win) { return hc_sync(win, S_FLUSHALL, 0, 0, 0, NULL, "MPI_Win_flush_all"); }
int PMPI_Win_flush_local_all(MPI_Win win)
{
	return hc_sync(win, S_FLUSHALL, 0, 0, 0, NULL, "MPI_Win_flush_local_all");
}
int PMPI_Win_sync(MPI_Win win) { return hc_sync(win, S_SYNC, 0, 0, 0, NULL, "MPI_Win_sync"); }

/* ---- group, name, info ----------------------------------------------- */

int PMPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
	WIN(wi, win, "MPI_Win_get_group");
	WIN_CHECK_PTR(wi, group, "MPI_Win_get_group");
	RET(wi, hympi_go_win_group(wi, (intptr_t *)group), "MPI_Win_get_group");
}

int PMPI_Win_set_name(MPI_Win win, const char *win_name)
{
	WIN(wi, win, "MPI_Win_set_name");
	WIN_CHECK_PTR(wi, win_name, "MPI_Win_set_name");
	pthread_mutex_lock(&hc_win_lock);
	snprintf(hc_wins[wi].name, sizeof hc_wins[wi].name, "%s", win_name);
	pthread_mutex_unlock(&hc_win_lock);
	return MPI_SUCCESS;
}

int PMPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen)
{
	WIN(wi, win, "MPI_Win_get_name");
	WIN_CHECK_PTR(wi, win_name, "MPI_Win_get_name");
	WIN_CHECK_PTR(wi, resultlen, "MPI_Win_get_name");
	pthread_mutex_lock(&hc_win_lock);
	snprintf(win_name, MPI_MAX_OBJECT_NAME, "%s", hc_wins[wi].name);
	pthread_mutex_unlock(&hc_win_lock);
	*resultlen = (int)strlen(win_name);
	return MPI_SUCCESS;
}

int PMPI_Win_set_info(MPI_Win win, MPI_Info info)
{
	WIN(wi, win, "MPI_Win_set_info");
	if (!hc_info_ok(info)) return hc_win_arg_fail(wi, MPI_ERR_INFO, "MPI_Win_set_info", "invalid info");
	/* No hint changes what hympi does. */
	return MPI_SUCCESS;
}

int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
	WIN(wi, win, "MPI_Win_get_info");
	WIN_CHECK_PTR(wi, info_used, "MPI_Win_get_info");
	int rc = PMPI_Info_create(info_used);
	if (!rc && hc_wins[wi].flavor == MPI_WIN_FLAVOR_SHARED) rc = PMPI_Info_set(*info_used, "alloc_shared_noncontig", "false");
	RET(wi, rc, "MPI_Win_get_info");
}

/* ---- error handlers -------------------------------------------------- */

int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *function, MPI_Errhandler *errhandler)
{
	HC_GUARD("MPI_Win_create_errhandler");
	int rc = PMPI_Comm_create_errhandler((MPI_Comm_errhandler_function *)(void *)function, errhandler);
	if (rc) return rc;
	pthread_mutex_lock(&hc_win_lock);
	/* A freed handler's handle comes back for a new one: its entry is
	 * the new one's, or the old function would be called. */
	int i = 0;
	while (i < hc_nwin_errh && hc_win_errh[i].eh != *errhandler) i++;
	if (i == HC_MAX_WIN_ERRH) {
		pthread_mutex_unlock(&hc_win_lock);
		PMPI_Errhandler_free(errhandler);
		return hc_error(-1, MPI_ERR_INTERN, "MPI_Win_create_errhandler");
	}
	hc_win_errh[i].eh = *errhandler;
	hc_win_errh[i].fn = function;
	if (i == hc_nwin_errh) hc_nwin_errh++;
	pthread_mutex_unlock(&hc_win_lock);
	return MPI_SUCCESS;
}

int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
	WIN(wi, win, "MPI_Win_set_errhandler");
	if (errhandler != MPI_ERRORS_ARE_FATAL && errhandler != MPI_ERRORS_ABORT && errhandler != MPI_ERRORS_RETURN &&
	    !hc_win_errh_fn(errhandler))
		return hc_win_error(wi, MPI_ERR_ARG, "MPI_Win_set_errhandler");
	hc_wins[wi].eh = errhandler;
	return MPI_SUCCESS;
}

int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
	WIN(wi, win, "MPI_Win_get_errhandler");
	WIN_CHECK_PTR(wi, errhandler, "MPI_Win_get_errhandler");
	*errhandler = hc_wins[wi].eh;
	return MPI_SUCCESS;
}

int PMPI_Win_call_errhandler(MPI_Win win, int errorcode)
{
	WIN(wi, win, "MPI_Win_call_errhandler");
	hc_win_error(wi, errorcode, "MPI_Win_call_errhandler");
	return MPI_SUCCESS;
}

/* ---- attributes ------------------------------------------------------ */

int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *copy_fn, MPI_Win_delete_attr_function *delete_fn,
			   int *keyval, void *extra_state)
{
	HC_CHECK_PTR(-1, keyval, "MPI_Win_create_keyval");
	pthread_mutex_lock(&hc_win_lock);
	if (hc_nwin_keyvals >= HC_MAX_WIN_KEYVALS) {
		pthread_mutex_unlock(&hc_win_lock);
		return hc_error(-1, MPI_ERR_INTERN, "MPI_Win_create_keyval");
	}
	int i = hc_nwin_keyvals++;
	hc_win_keyvals[i].used = 1;
	hc_win_keyvals[i].refs = 1;
	hc_win_keyvals[i].copy = copy_fn;
	hc_win_keyvals[i].del = delete_fn;
	hc_win_keyvals[i].extra = extra_state;
	pthread_mutex_unlock(&hc_win_lock);
	*keyval = HC_FIRST_WIN_KEYVAL + i;
	return MPI_SUCCESS;
}

static int hc_win_keyval_index(int keyval)
{
	int i = keyval - HC_FIRST_WIN_KEYVAL;
	if (i < 0 || i >= hc_nwin_keyvals) return -1;
	return i;
}

int PMPI_Win_free_keyval(int *keyval)
{
	HC_CHECK_PTR(-1, keyval, "MPI_Win_free_keyval");
	int i = hc_win_keyval_index(*keyval);
	if (i < 0 || __atomic_load_n(&hc_win_keyvals[i].refs, __ATOMIC_ACQUIRE) <= 0)
		return hc_error(-1, MPI_ERR_KEYVAL, "MPI_Win_free_keyval");
	/* Only the first free drops the handle's hold (MPICH's
	 * attr/keyval_double_free_win frees it again from a delete callback
	 * and through a copy of the handle). */
	if (__atomic_exchange_n(&hc_win_keyvals[i].used, 0, __ATOMIC_ACQ_REL))
		__atomic_sub_fetch(&hc_win_keyvals[i].refs, 1, __ATOMIC_ACQ_REL);
	*keyval = MPI_KEYVAL_INVALID;
	return MPI_SUCCESS;
}

static void hc_win_keyval_unref(int keyval)
{
	int i = hc_win_keyval_index(keyval);
	if (i >= 0) __atomic_sub_fetch(&hc_win_keyvals[i].refs, 1, __ATOMIC_ACQ_REL);
}

static hc_attr *hc_win_attr_find(int wi, int keyval)
{
	for (int k = 0; k < hc_wins[wi].nattrs; k++)
		if (hc_wins[wi].attrs[k].keyval == keyval) return &hc_wins[wi].attrs[k];
	return NULL;
}

static int hc_win_attr_delete(int wi, hc_attr *a)
{
	int i = hc_win_keyval_index(a->keyval);
	if (i < 0 || hc_win_keyvals[i].del == MPI_WIN_NULL_DELETE_FN) return MPI_SUCCESS;
	return hc_win_keyvals[i].del(hc_win_handle(wi), a->keyval, a->value, hc_win_keyvals[i].extra);
}

int PMPI_Win_set_attr(MPI_Win win, int keyval, void *attribute_val)
{
	WIN(wi, win, "MPI_Win_set_attr");
	int i = hc_win_keyval_index(keyval);
	if (i < 0 || !hc_win_keyvals[i].used) return hc_win_error(wi, MPI_ERR_KEYVAL, "MPI_Win_set_attr");
	hc_attr *a = hc_win_attr_find(wi, keyval);
	if (a) {
		int rc = hc_win_attr_delete(wi, a);
		if (rc) return hc_win_error(wi, rc, "MPI_Win_set_attr");
		a->value = attribute_val;
		return MPI_SUCCESS;
	}
	hc_win *w = &hc_wins[wi];
	if (w->nattrs == w->capattrs) {
		int cap = w->capattrs ? 2 * w->capattrs : 4;
		hc_attr *na = realloc(w->attrs, cap * sizeof *na);
		if (!na) return hc_win_error(wi, MPI_ERR_NO_MEM, "MPI_Win_set_attr");
		w->attrs = na;
		w->capattrs = cap;
	}
	w->attrs[w->nattrs].keyval = keyval;
	w->attrs[w->nattrs].value = attribute_val;
	w->nattrs++;
	__atomic_add_fetch(&hc_win_keyvals[i].refs, 1, __ATOMIC_ACQ_REL);
	return MPI_SUCCESS;
}

int PMPI_Win_get_attr(MPI_Win win, int keyval, void *attribute_val, int *flag)
{
	WIN(wi, win, "MPI_Win_get_attr");
	WIN_CHECK_PTR(wi, attribute_val, "MPI_Win_get_attr");
	WIN_CHECK_PTR(wi, flag, "MPI_Win_get_attr");
	hc_win *w = &hc_wins[wi];
	void **out = (void **)attribute_val;
	*flag = 1;
	switch (keyval) {
	case MPI_WIN_BASE: *out = w->base; return MPI_SUCCESS;
	case MPI_WIN_SIZE: *out = &w->size; return MPI_SUCCESS;
	case MPI_WIN_DISP_UNIT: *out = &w->disp_unit; return MPI_SUCCESS;
	case MPI_WIN_CREATE_FLAVOR: *out = &w->flavor; return MPI_SUCCESS;
	case MPI_WIN_MODEL: *out = &w->model; return MPI_SUCCESS;
	}
	*flag = 0;
	if (hc_win_keyval_index(keyval) < 0) return hc_win_error(wi, MPI_ERR_KEYVAL, "MPI_Win_get_attr");
	hc_attr *a = hc_win_attr_find(wi, keyval);
	if (a) {
		*flag = 1;
		*out = a->value;
	}
	return MPI_SUCCESS;
}

int PMPI_Win_delete_attr(MPI_Win win, int keyval)
{
	WIN(wi, win, "MPI_Win_delete_attr");
	hc_attr *a = hc_win_attr_find(wi, keyval);
	if (!a) return hc_win_error(wi, MPI_ERR_KEYVAL, "MPI_Win_delete_attr");
	int rc = hc_win_attr_delete(wi, a);
	if (rc) return hc_win_error(wi, rc, "MPI_Win_delete_attr");
	int keyval_ = a->keyval;
	*a = hc_wins[wi].attrs[--hc_wins[wi].nattrs];
	hc_win_keyval_unref(keyval_);
	return MPI_SUCCESS;
}

static int hc_win_delete_attrs(int wi)
{
	int rc = MPI_SUCCESS;
	while (hc_wins[wi].nattrs > 0) {
		hc_attr a = hc_wins[wi].attrs[hc_wins[wi].nattrs - 1];
		int r = hc_win_attr_delete(wi, &a);
		if (r && !rc) rc = r;
		hc_wins[wi].nattrs--;
		hc_win_keyval_unref(a.keyval);
	}
	return rc;
}

#define HC_ALIASES_win
#include "aliases_gen.h"
