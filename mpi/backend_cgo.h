// C side of the system-MPI backend (backend_cgo*.go). Every MPI handle
// crosses into Go as a uintptr_t, never as a Go pointer, and every function
// is one MPI call (or a short fixed sequence) so a Go call costs one cgo
// transition. Special ranks and tags are translated here: hympi's values
// (AnySource -1, ProcNull -2) are not every MPI's.
#ifndef HYMPI_BACKEND_CGO_H
#define HYMPI_BACKEND_CGO_H
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>

// The MPIs this builds against (Open MPI 4) lack MPI 4's large-count
// functions: a count beyond an int is MPI_ERR_COUNT, found before MPI is
// called.
#define HY_BIG(n) ((n) > INT_MAX)

typedef uintptr_t hy_h;

// hy_st is a status, returned by value so no Go pointer is needed.
typedef struct {
	int err, source, tag, flag;
	long long count;
	int cancelled; // MPI_Test_cancelled of the status
} hy_st;

// hy_rq is an error and a request handle.
typedef struct {
	int err;
	hy_h req;
} hy_rq;

static const hy_st hy_st_big = {MPI_ERR_COUNT, 0, 0, 0, 0};
static const hy_rq hy_rq_big = {MPI_ERR_COUNT, 0};

#define HY_COMM(h) ((MPI_Comm)(h))
#define HY_REQ(h) ((MPI_Request)(h))
#define HY_DT(h) ((MPI_Datatype)(h))
#define HY_OP(h) ((MPI_Op)(h))
#define HY_GROUP(h) ((MPI_Group)(h))

static inline int hy_rank_in(int r) {
	if (r == -1) return MPI_ANY_SOURCE;
	if (r == -2) return MPI_PROC_NULL;
	return r;
}
static inline int hy_rank_out(int r) {
	if (r == MPI_ANY_SOURCE) return -1;
	if (r == MPI_PROC_NULL) return -2;
	if (r == MPI_UNDEFINED) return -32766;
	return r;
}
static inline int hy_tag_in(int t) { return t == -1 ? MPI_ANY_TAG : t; }
static inline int hy_tag_out(int t) { return t == MPI_ANY_TAG ? -1 : t; }

static inline hy_st hy_status(int err, MPI_Status *s) {
	hy_st r = {err, hy_rank_out(s->MPI_SOURCE), hy_tag_out(s->MPI_TAG), 1, 0};
	int n = 0;
	MPI_Get_count(s, MPI_BYTE, &n);
	if (n == MPI_UNDEFINED) n = 0;
	r.count = n;
	if (err == MPI_ERR_IN_STATUS) r.err = s->MPI_ERROR;
	MPI_Test_cancelled(s, &r.cancelled);
	return r;
}

// hy_class maps an implementation's error code to the standard's class
// numbers, which ErrorClass uses.
static inline int hy_class(int code) {
	int c = MPI_ERR_OTHER;
	if (MPI_Error_class(code, &c) != MPI_SUCCESS) return 16;
#define C(x, n) if (c == x) return n;
	C(MPI_SUCCESS, 0) C(MPI_ERR_BUFFER, 1) C(MPI_ERR_COUNT, 2) C(MPI_ERR_TYPE, 3)
	C(MPI_ERR_TAG, 4) C(MPI_ERR_COMM, 5) C(MPI_ERR_RANK, 6) C(MPI_ERR_REQUEST, 7)
	C(MPI_ERR_ROOT, 8) C(MPI_ERR_GROUP, 9) C(MPI_ERR_OP, 10) C(MPI_ERR_ARG, 12)
	C(MPI_ERR_UNKNOWN, 13) C(MPI_ERR_TRUNCATE, 14) C(MPI_ERR_OTHER, 15)
	C(MPI_ERR_INTERN, 16) C(MPI_ERR_IN_STATUS, 17) C(MPI_ERR_PENDING, 18)
	C(MPI_ERR_ASSERT, 22) C(MPI_ERR_BASE, 24) C(MPI_ERR_DISP, 26) C(MPI_ERR_LOCKTYPE, 37)
	C(MPI_ERR_RMA_ATTACH, 46) C(MPI_ERR_RMA_CONFLICT, 47) C(MPI_ERR_RMA_RANGE, 48)
	C(MPI_ERR_RMA_SHARED, 49) C(MPI_ERR_RMA_SYNC, 50) C(MPI_ERR_SIZE, 52) C(MPI_ERR_WIN, 56)
	C(MPI_ERR_RMA_FLAVOR, 57)
#ifdef MPIX_ERR_PROC_FAILED
	C(MPIX_ERR_PROC_FAILED, 75)
#endif
#undef C
	return 15;
}

static inline void hy_errstr(int code, char *buf, int cap) {
	int n = 0;
	char s[MPI_MAX_ERROR_STRING];
	if (MPI_Error_string(code, s, &n) != MPI_SUCCESS) n = 0;
	if (n >= cap) n = cap - 1;
	memcpy(buf, s, n);
	buf[n] = 0;
}

// Handles of the predefined objects, in the order of Go's Datatype and Op
// constants.
static inline void hy_predefined(hy_h *dts, hy_h *ops, hy_h *comms) {
	MPI_Datatype d[] = {MPI_BYTE, MPI_INT8_T, MPI_UINT8_T, MPI_INT16_T, MPI_UINT16_T,
		MPI_INT32_T, MPI_UINT32_T, MPI_INT64_T, MPI_UINT64_T, MPI_FLOAT, MPI_DOUBLE};
	MPI_Op o[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_LAND, MPI_LOR, MPI_LXOR,
		MPI_BAND, MPI_BOR, MPI_BXOR};
	for (int i = 0; i < 11; i++) dts[i] = (hy_h)d[i];
	for (int i = 0; i < 10; i++) ops[i] = (hy_h)o[i];
	comms[0] = (hy_h)MPI_COMM_WORLD;
	comms[1] = (hy_h)MPI_COMM_SELF;
	comms[2] = (hy_h)MPI_COMM_NULL;
	comms[3] = (hy_h)MPI_GROUP_NULL;
	comms[4] = (hy_h)MPI_REQUEST_NULL;
	comms[5] = (hy_h)MPI_BSEND_OVERHEAD;
}

static inline int hy_init(void) {
	int flag = 0, provided = 0;
	MPI_Initialized(&flag);
	if (flag) return MPI_SUCCESS;
#ifdef OPEN_MPI
	// Open MPI 4.1's AVX reduction kernels sum 16-bit unsigned integers
	// wrongly; the generic kernels are right. The user's setting wins.
	setenv("OMPI_MCA_op", "^avx", 0);
#endif
	int err = MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided);
	if (err != MPI_SUCCESS) return err;
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
	return MPI_SUCCESS;
}
static inline int hy_initialized(void) { int f = 0; MPI_Initialized(&f); return f; }
static inline int hy_finalized(void) { int f = 0; MPI_Finalized(&f); return f; }
// hy_comm_info also gives the remote group's size, 0 for an
// intracommunicator.
static inline int hy_comm_info(hy_h c, int *rank, int *size, int *remote) {
	int inter = 0;
	*remote = 0;
	int err = MPI_Comm_rank(HY_COMM(c), rank);
	if (err == MPI_SUCCESS) err = MPI_Comm_size(HY_COMM(c), size);
	if (err == MPI_SUCCESS) err = MPI_Comm_test_inter(HY_COMM(c), &inter);
	if (err == MPI_SUCCESS && inter) err = MPI_Comm_remote_size(HY_COMM(c), remote);
	return err;
}

// Point-to-point. kind: 0 standard, 1 synchronous, 2 ready, 3 buffered.
static inline int hy_send(int kind, void *buf, long long n, int dest, int tag, hy_h c) {
	if (HY_BIG(n)) return MPI_ERR_COUNT;
	dest = hy_rank_in(dest);
	switch (kind) {
	case 1: return MPI_Ssend(buf, n, MPI_BYTE, dest, tag, HY_COMM(c));
	case 2: return MPI_Rsend(buf, n, MPI_BYTE, dest, tag, HY_COMM(c));
	case 3: return MPI_Bsend(buf, n, MPI_BYTE, dest, tag, HY_COMM(c));
	}
	return MPI_Send(buf, n, MPI_BYTE, dest, tag, HY_COMM(c));
}
static inline hy_rq hy_isend(int kind, void *buf, long long n, int dest, int tag, hy_h c) {
	if (HY_BIG(n)) return hy_rq_big;
	MPI_Request r = MPI_REQUEST_NULL;
	int err;
	dest = hy_rank_in(dest);
	if (kind == 1) err = MPI_Issend(buf, n, MPI_BYTE, dest, tag, HY_COMM(c), &r);
	else err = MPI_Isend(buf, n, MPI_BYTE, dest, tag, HY_COMM(c), &r);
	hy_rq q = {err, (hy_h)r};
	return q;
}
static inline hy_st hy_recv(void *buf, long long n, int src, int tag, hy_h c) {
	if (HY_BIG(n)) return hy_st_big;
	MPI_Status s;
	int err = MPI_Recv(buf, n, MPI_BYTE, hy_rank_in(src), hy_tag_in(tag), HY_COMM(c), &s);
	if (err != MPI_SUCCESS && err != MPI_ERR_IN_STATUS && hy_class(err) != 14) {
		hy_st z = {err, 0, 0, 0, 0};
		return z;
	}
	return hy_status(err, &s);
}
static inline hy_rq hy_irecv(void *buf, long long n, int src, int tag, hy_h c) {
	if (HY_BIG(n)) return hy_rq_big;
	MPI_Request r = MPI_REQUEST_NULL;
	int err = MPI_Irecv(buf, n, MPI_BYTE, hy_rank_in(src), hy_tag_in(tag), HY_COMM(c), &r);
	hy_rq q = {err, (hy_h)r};
	return q;
}
static inline hy_st hy_sendrecv(void *sb, long long sn, int dest, int stag, void *rb, long long rn, int src, int rtag, hy_h c) {
	if (HY_BIG(sn) || HY_BIG(rn)) return hy_st_big;
	MPI_Status s;
	int err = MPI_Sendrecv(sb, sn, MPI_BYTE, hy_rank_in(dest), stag, rb, rn, MPI_BYTE,
		hy_rank_in(src), hy_tag_in(rtag), HY_COMM(c), &s);
	if (err != MPI_SUCCESS && hy_class(err) != 14) {
		hy_st z = {err, 0, 0, 0, 0};
		return z;
	}
	return hy_status(err, &s);
}
static inline hy_st hy_probe(int blocking, int src, int tag, hy_h c) {
	MPI_Status s;
	int flag = 1, err;
	if (blocking) err = MPI_Probe(hy_rank_in(src), hy_tag_in(tag), HY_COMM(c), &s);
	else err = MPI_Iprobe(hy_rank_in(src), hy_tag_in(tag), HY_COMM(c), &flag, &s);
	if (err != MPI_SUCCESS || !flag) {
		hy_st z = {err, 0, 0, 0, 0};
		return z;
	}
	return hy_status(err, &s);
}

// Requests. The handle is updated in place by the caller from .req.
static inline hy_st hy_wait(hy_h *req) {
	MPI_Request r = HY_REQ(*req);
	MPI_Status s;
	int err = MPI_Wait(&r, &s);
	*req = (hy_h)r;
	return hy_status(err, &s);
}
static inline hy_st hy_test(hy_h *req) {
	MPI_Request r = HY_REQ(*req);
	MPI_Status s;
	int flag = 0;
	int err = MPI_Test(&r, &flag, &s);
	*req = (hy_h)r;
	if (err != MPI_SUCCESS) {
		hy_st z = {err, 0, 0, 1, 0};
		return z;
	}
	if (!flag) {
		hy_st z = {0, 0, 0, 0, 0};
		return z;
	}
	return hy_status(err, &s);
}
static inline hy_st hy_peek(hy_h req) {
	MPI_Status s;
	int flag = 0;
	int err = MPI_Request_get_status(HY_REQ(req), &flag, &s);
	if (err != MPI_SUCCESS || !flag) {
		hy_st z = {err, 0, 0, 0, 0};
		return z;
	}
	return hy_status(err, &s);
}
// hy_cancel cancels a receive and completes it; flag says whether the
// cancel won (the status is then meaningless).
static inline hy_st hy_cancel(hy_h *req) {
	MPI_Request r = HY_REQ(*req);
	MPI_Status s;
	int err = MPI_Cancel(&r);
	if (err == MPI_SUCCESS) err = MPI_Wait(&r, &s);
	*req = (hy_h)r;
	if (err != MPI_SUCCESS) {
		hy_st z = {err, 0, 0, 0, 0};
		return z;
	}
	int cancelled = 0;
	MPI_Test_cancelled(&s, &cancelled);
	hy_st st = hy_status(err, &s);
	st.flag = cancelled;
	return st;
}
// hy_waitall waits for n handles one by one (a null handle completes at
// once), in one call from Go.
static inline void hy_waitall(hy_h *reqs, int n, hy_st *sts) {
	for (int i = 0; i < n; i++) {
		if (HY_REQ(reqs[i]) == MPI_REQUEST_NULL) {
			hy_st z = {0, 0, 0, 0, 0};
			sts[i] = z;
			continue;
		}
		sts[i] = hy_wait(&reqs[i]);
	}
}

// hy_waitany waits for one of n handles (MPI_REQUEST_NULL for inactive).
static inline hy_st hy_waitany(hy_h *reqs, int n, int *index) {
	MPI_Request small[64], *rs = n <= 64 ? small : malloc(n * sizeof(MPI_Request));
	MPI_Status s;
	for (int i = 0; i < n; i++) rs[i] = HY_REQ(reqs[i]);
	int err = MPI_Waitany(n, rs, index, &s);
	for (int i = 0; i < n; i++) reqs[i] = (hy_h)rs[i];
	if (rs != small) free(rs);
	if (*index == MPI_UNDEFINED) *index = -32766;
	return hy_status(err, &s);
}

// Collectives over bytes (or a datatype for the reductions). A NULL send
// buffer with inplace set means MPI_IN_PLACE. The collectives that also
// come nonblocking are in backend_cgo_nbc.h.
#define HY_IP(p, ip) ((ip) ? MPI_IN_PLACE : (p))
static inline int hy_barrier(hy_h c) { return MPI_Barrier(HY_COMM(c)); }
static inline int hy_bcast(void *b, long long n, int root, hy_h c) {
	if (HY_BIG(n)) return MPI_ERR_COUNT;
	return MPI_Bcast(b, n, MPI_BYTE, root, HY_COMM(c));
}
static inline int hy_allreduce(void *s, void *r, long long n, hy_h dt, hy_h op, int ip, hy_h c) {
	if (HY_BIG(n)) return MPI_ERR_COUNT;
	return MPI_Allreduce(HY_IP(s, ip), r, n, HY_DT(dt), HY_OP(op), HY_COMM(c));
}
static inline hy_rq hy_ibarrier(hy_h c) {
	MPI_Request r = MPI_REQUEST_NULL;
	hy_rq q = {MPI_Ibarrier(HY_COMM(c), &r), 0};
	q.req = (hy_h)r;
	return q;
}
static inline hy_rq hy_ibcast(void *b, long long n, int root, hy_h c) {
	if (HY_BIG(n)) return hy_rq_big;
	MPI_Request r = MPI_REQUEST_NULL;
	hy_rq q = {MPI_Ibcast(b, n, MPI_BYTE, root, HY_COMM(c), &r), 0};
	q.req = (hy_h)r;
	return q;
}
static inline hy_rq hy_iallreduce(void *s, void *rb, long long n, hy_h dt, hy_h op, int ip, hy_h c) {
	if (HY_BIG(n)) return hy_rq_big;
	MPI_Request r = MPI_REQUEST_NULL;
	hy_rq q = {MPI_Iallreduce(HY_IP(s, ip), rb, n, HY_DT(dt), HY_OP(op), HY_COMM(c), &r), 0};
	q.req = (hy_h)r;
	return q;
}

// Communicators and groups. The new handle comes back in .req.
static inline hy_rq hy_comm_new(int what, hy_h c, int a, int b, hy_h g) {
	MPI_Comm n = MPI_COMM_NULL;
	int err;
	switch (what) {
	case 0: err = MPI_Comm_dup(HY_COMM(c), &n); break;
	case 1: err = MPI_Comm_split(HY_COMM(c), a == -32766 ? MPI_UNDEFINED : a, b, &n); break;
	case 2: err = MPI_Comm_create(HY_COMM(c), HY_GROUP(g), &n); break;
	default: err = MPI_Comm_create_group(HY_COMM(c), HY_GROUP(g), a, &n); break;
	}
	if (err == MPI_SUCCESS && n != MPI_COMM_NULL) MPI_Comm_set_errhandler(n, MPI_ERRORS_RETURN);
	hy_rq q = {err, (hy_h)n};
	return q;
}
static inline int hy_comm_free(hy_h c) {
	MPI_Comm x = HY_COMM(c);
	return MPI_Comm_free(&x);
}
static inline hy_rq hy_comm_group(hy_h c) {
	MPI_Group g = MPI_GROUP_NULL;
	hy_rq q = {MPI_Comm_group(HY_COMM(c), &g), 0};
	q.req = (hy_h)g;
	return q;
}
static inline int hy_group_info(hy_h g, int *rank, int *size) {
	int err = MPI_Group_rank(HY_GROUP(g), rank);
	if (err == MPI_SUCCESS) err = MPI_Group_size(HY_GROUP(g), size);
	if (*rank == MPI_UNDEFINED) *rank = -32766;
	return err;
}
// what: 0 incl, 1 excl, 2 union, 3 intersection, 4 difference.
static inline hy_rq hy_group_new(int what, hy_h g, hy_h h, int n, int *ranks) {
	MPI_Group o = MPI_GROUP_NULL;
	int err;
	switch (what) {
	case 0: err = MPI_Group_incl(HY_GROUP(g), n, ranks, &o); break;
	case 1: err = MPI_Group_excl(HY_GROUP(g), n, ranks, &o); break;
	case 2: err = MPI_Group_union(HY_GROUP(g), HY_GROUP(h), &o); break;
	case 3: err = MPI_Group_intersection(HY_GROUP(g), HY_GROUP(h), &o); break;
	default: err = MPI_Group_difference(HY_GROUP(g), HY_GROUP(h), &o); break;
	}
	hy_rq q = {err, (hy_h)o};
	return q;
}
static inline int hy_group_compare(hy_h g, hy_h h) {
	int r = MPI_UNEQUAL;
	MPI_Group_compare(HY_GROUP(g), HY_GROUP(h), &r);
	if (r == MPI_IDENT) return 0;
	if (r == MPI_SIMILAR) return 2;
	return 3;
}
static inline int hy_group_translate(hy_h g, int n, int *in, hy_h h, int *out) {
	int err = MPI_Group_translate_ranks(HY_GROUP(g), n, in, HY_GROUP(h), out);
	for (int i = 0; i < n; i++) if (out[i] == MPI_UNDEFINED) out[i] = -32766;
	return err;
}
static inline void hy_group_free(hy_h g) {
	MPI_Group x = HY_GROUP(g);
	if (x != MPI_GROUP_NULL && x != MPI_GROUP_EMPTY) MPI_Group_free(&x);
}

// Datatypes, operators, buffers, misc.
static inline hy_rq hy_type_opaque(int size) {
	MPI_Datatype t = MPI_DATATYPE_NULL;
	int err = MPI_Type_contiguous(size, MPI_BYTE, &t);
	if (err == MPI_SUCCESS) err = MPI_Type_commit(&t);
	hy_rq q = {err, (hy_h)t};
	return q;
}
static inline void hy_type_free(hy_h h) {
	MPI_Datatype t = HY_DT(h);
	MPI_Type_free(&t);
}
static inline int hy_reduce_local(void *in, void *inout, long long n, hy_h dt, hy_h op) {
	if (HY_BIG(n)) return MPI_ERR_COUNT;
	return MPI_Reduce_local(in, inout, n, HY_DT(dt), HY_OP(op));
}
static inline int hy_buffer_attach(long long n, void **out) {
	if (HY_BIG(n)) return MPI_ERR_BUFFER;
	void *p = malloc(n > 0 ? n : 1);
	if (!p) return MPI_ERR_BUFFER;
	int err = MPI_Buffer_attach(p, n);
	if (err != MPI_SUCCESS) { free(p); return err; }
	*out = p;
	return MPI_SUCCESS;
}
static inline int hy_buffer_detach(void) {
	void *p = NULL;
	int n = 0;
	int err = MPI_Buffer_detach(&p, &n);
	if (err == MPI_SUCCESS) free(p);
	return err;
}
static inline int hy_appnum(void) {
	int *v = NULL, flag = 0;
	if (MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &v, &flag) != MPI_SUCCESS || !flag || !v) return 0;
	return *v;
}
static inline void hy_abort(hy_h c, int code) { MPI_Abort(HY_COMM(c), code); }
static inline int hy_finalize(void) { return MPI_Finalize(); }
#include "backend_cgo_ext.h"
#endif
