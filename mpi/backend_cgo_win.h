// C side of the system-MPI backend's windows (backend_cgo_win.go). As in
// backend_cgo.h, handles cross as integers and each function is one MPI
// call or a short fixed sequence (an operation and, in a passive-target
// epoch, the local flush that makes its buffers the caller's again).
#ifndef HYMPI_BACKEND_CGO_WIN_H
#define HYMPI_BACKEND_CGO_WIN_H
#include "backend_cgo.h"

#define HY_WIN(h) ((MPI_Win)(h))

// hy_wn is a new window and the memory MPI allocated for it.
typedef struct {
	int err;
	hy_h win;
	void *base;
} hy_wn;

// hympi's assertion bits (ModeNoCheck 1, NoStore 2, NoPut 4, NoPrecede 8,
// NoSucceed 16) as this MPI's.
static inline int hy_assert(int a) {
	int r = 0;
	if (a & 1) r |= MPI_MODE_NOCHECK;
	if (a & 2) r |= MPI_MODE_NOSTORE;
	if (a & 4) r |= MPI_MODE_NOPUT;
	if (a & 8) r |= MPI_MODE_NOPRECEDE;
	if (a & 16) r |= MPI_MODE_NOSUCCEED;
	return r;
}

// flavor: 1 create, 2 allocate, 3 dynamic, 4 allocate_shared.
static inline hy_wn hy_win_new(int flavor, void *base, long long size, int unit, int noncontig, hy_h c) {
	hy_wn r = {0, 0, NULL};
	MPI_Win w = MPI_WIN_NULL;
	MPI_Info info = MPI_INFO_NULL;
	if (HY_BIG(size)) {
		r.err = MPI_ERR_SIZE;
		return r;
	}
	switch (flavor) {
	case 1:
		r.err = MPI_Win_create(base, size, unit, MPI_INFO_NULL, HY_COMM(c), &w);
		break;
	case 2:
		r.err = MPI_Win_allocate(size, unit, MPI_INFO_NULL, HY_COMM(c), &r.base, &w);
		break;
	case 3:
		r.err = MPI_Win_create_dynamic(MPI_INFO_NULL, HY_COMM(c), &w);
		break;
	case 4:
		if (noncontig) {
			MPI_Info_create(&info);
			MPI_Info_set(info, "alloc_shared_noncontig", "true");
		}
		r.err = MPI_Win_allocate_shared(size, unit, info, HY_COMM(c), &r.base, &w);
		if (info != MPI_INFO_NULL) MPI_Info_free(&info);
		break;
	}
	r.win = (hy_h)w;
	if (r.err == MPI_SUCCESS && (flavor == 2 || flavor == 4)) {
		// hympi's window memory starts zeroed; MPI's need not (MPICH's
		// singleton is malloc'd). Every rank clears its own part before
		// any rank may reach it.
		if (size > 0) memset(r.base, 0, size);
		r.err = MPI_Barrier(HY_COMM(c));
	}
	return r;
}

// hy_win_model is 1 when the window is in the separate memory model.
static inline int hy_win_model(hy_h w) {
	int *m = NULL, flag = 0;
	if (MPI_Win_get_attr(HY_WIN(w), MPI_WIN_MODEL, &m, &flag) != MPI_SUCCESS || !flag) return 0;
	return *m == MPI_WIN_SEPARATE;
}

static inline hy_rq hy_win_group(hy_h w) {
	MPI_Group g = MPI_GROUP_NULL;
	hy_rq q = {MPI_Win_get_group(HY_WIN(w), &g), 0};
	q.req = (hy_h)g;
	return q;
}

static inline hy_wn hy_win_shared_query(hy_h w, int r, long long *size, int *unit) {
	hy_wn q = {0, w, NULL};
	MPI_Aint s = 0;
	q.err = MPI_Win_shared_query(HY_WIN(w), r, &s, unit, &q.base);
	*size = s;
	return q;
}

// Synchronisation; what picks the call, a, b and c are its integers
// (Lock: target, type, assertion).
enum {
	HY_FENCE, HY_POST, HY_START, HY_COMPLETE, HY_WAIT, HY_LOCK, HY_UNLOCK,
	HY_LOCK_ALL, HY_UNLOCK_ALL, HY_FLUSH, HY_FLUSH_ALL, HY_FLUSH_LOCAL,
	HY_FLUSH_LOCAL_ALL, HY_SYNC, HY_FREE
};

static inline int hy_win_sync(int what, hy_h wh, int a, int b, int c, hy_h g) {
	MPI_Win w = HY_WIN(wh);
	switch (what) {
	case HY_FENCE: return MPI_Win_fence(hy_assert(a), w);
	case HY_POST: return MPI_Win_post(HY_GROUP(g), hy_assert(a), w);
	case HY_START: return MPI_Win_start(HY_GROUP(g), hy_assert(a), w);
	case HY_COMPLETE: return MPI_Win_complete(w);
	case HY_WAIT: return MPI_Win_wait(w);
	case HY_LOCK:
		return MPI_Win_lock(b == 1 ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED, hy_rank_in(a), hy_assert(c), w);
	case HY_UNLOCK: return MPI_Win_unlock(hy_rank_in(a), w);
	case HY_LOCK_ALL: return MPI_Win_lock_all(hy_assert(a), w);
	case HY_UNLOCK_ALL: return MPI_Win_unlock_all(w);
	case HY_FLUSH: return MPI_Win_flush(hy_rank_in(a), w);
	case HY_FLUSH_ALL: return MPI_Win_flush_all(w);
	case HY_FLUSH_LOCAL: return MPI_Win_flush_local(hy_rank_in(a), w);
	case HY_FLUSH_LOCAL_ALL: return MPI_Win_flush_local_all(w);
	case HY_SYNC: return MPI_Win_sync(w);
	case HY_FREE: return MPI_Win_free(&w);
	}
	return MPI_ERR_ARG;
}

static inline int hy_win_test(hy_h w, int *flag) { return MPI_Win_test(HY_WIN(w), flag); }

static inline int hy_win_attach(int detach, hy_h w, void *p, long long n) {
	if (detach) return MPI_Win_detach(HY_WIN(w), p);
	if (HY_BIG(n)) return MPI_ERR_SIZE;
	return MPI_Win_attach(HY_WIN(w), p, n);
}

// hy_atomic_fence orders this process's loads and stores with the window
// memory peers reach (Win.Sync outside a passive-target epoch).
static inline void hy_atomic_fence(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

// RMA operations. kind: 0 put, 1 get, 2 accumulate, 3 get_accumulate,
// 4 fetch_and_op, 5 compare_and_swap. o is the origin, r the result, x the
// compare buffer; n elements of dt; flush asks for MPI_Win_flush_local
// toward t afterwards. With req set the request form is started instead
// and its handle returned.
static inline hy_rq hy_rma(int kind, void *o, void *r, void *x, long long n, hy_h dt, hy_h op,
	int t, long long disp, hy_h wh, int flush, int req) {
	hy_rq q = {0, 0};
	MPI_Win w = HY_WIN(wh);
	MPI_Datatype d = HY_DT(dt);
	MPI_Request rq = MPI_REQUEST_NULL;
	int tr = hy_rank_in(t);
	if (HY_BIG(n)) return hy_rq_big;
	switch (kind) {
	case 0:
		q.err = req ? MPI_Rput(o, n, d, tr, disp, n, d, w, &rq) : MPI_Put(o, n, d, tr, disp, n, d, w);
		break;
	case 1:
		q.err = req ? MPI_Rget(r, n, d, tr, disp, n, d, w, &rq) : MPI_Get(r, n, d, tr, disp, n, d, w);
		break;
	case 2:
		q.err = req ? MPI_Raccumulate(o, n, d, tr, disp, n, d, HY_OP(op), w, &rq)
			: MPI_Accumulate(o, n, d, tr, disp, n, d, HY_OP(op), w);
		break;
	case 3:
		q.err = req ? MPI_Rget_accumulate(o, n, d, r, n, d, tr, disp, n, d, HY_OP(op), w, &rq)
			: MPI_Get_accumulate(o, n, d, r, n, d, tr, disp, n, d, HY_OP(op), w);
		break;
	case 4:
		q.err = MPI_Fetch_and_op(o, r, d, tr, disp, HY_OP(op), w);
		break;
	case 5:
		q.err = MPI_Compare_and_swap(o, x, r, d, tr, disp, w);
		break;
	}
	if (q.err == MPI_SUCCESS && flush && !req && tr != MPI_PROC_NULL) q.err = MPI_Win_flush_local(tr, w);
	q.req = (hy_h)rq;
	return q;
}

// Handles of MPI_REPLACE, MPI_NO_OP and the unsigned types compare-and-swap
// uses by size (1, 2, 4, 8 bytes).
static inline void hy_rma_predefined(hy_h *ops, hy_h *cas) {
	ops[0] = (hy_h)MPI_REPLACE;
	ops[1] = (hy_h)MPI_NO_OP;
	cas[0] = (hy_h)MPI_UINT8_T;
	cas[1] = (hy_h)MPI_UINT16_T;
	cas[2] = (hy_h)MPI_UINT32_T;
	cas[3] = (hy_h)MPI_UINT64_T;
}
#endif
