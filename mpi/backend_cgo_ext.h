// Matched probes, send cancellation and intercommunicators for
// the system-MPI backend (backend_cgo_mprobe.go, backend_cgo_inter.go).
// Included at the end of backend_cgo.h. MPI 4.0 calls are compiled only
// where mpi.h says MPI 4 (MPICH 4.0); HY_MPI4 tells Go which.
#ifndef HYMPI_BACKEND_CGO_EXT_H
#define HYMPI_BACKEND_CGO_EXT_H
#include <stdio.h>

#if MPI_VERSION >= 4
#define HY_MPI4 1
#else
#define HY_MPI4 0
#endif

// hy_mprobe takes a message: the handle goes to *msg, flag says whether
// a nonblocking probe matched.
static inline hy_st hy_mprobe(int blocking, int src, int tag, hy_h c, hy_h *msg) {
	MPI_Status s;
	MPI_Message m = MPI_MESSAGE_NULL;
	int flag = 1, err;
	if (blocking) err = MPI_Mprobe(hy_rank_in(src), hy_tag_in(tag), HY_COMM(c), &m, &s);
	else err = MPI_Improbe(hy_rank_in(src), hy_tag_in(tag), HY_COMM(c), &flag, &m, &s);
	*msg = (hy_h)m;
	if (err != MPI_SUCCESS || !flag) {
		hy_st z = {err, 0, 0, 0, 0, 0};
		return z;
	}
	return hy_status(err, &s);
}
static inline hy_st hy_mrecv(void *buf, long long n, hy_h *msg) {
	if (HY_BIG(n)) return hy_st_big;
	MPI_Message m = (MPI_Message)*msg;
	MPI_Status s;
	int err = MPI_Mrecv(buf, n, MPI_BYTE, &m, &s);
	*msg = (hy_h)m;
	if (err != MPI_SUCCESS && err != MPI_ERR_IN_STATUS && hy_class(err) != 14) {
		hy_st z = {err, 0, 0, 0, 0, 0};
		return z;
	}
	return hy_status(err, &s);
}
static inline hy_rq hy_imrecv(void *buf, long long n, hy_h *msg) {
	if (HY_BIG(n)) return hy_rq_big;
	MPI_Message m = (MPI_Message)*msg;
	MPI_Request r = MPI_REQUEST_NULL;
	int err = MPI_Imrecv(buf, n, MPI_BYTE, &m, &r);
	*msg = (hy_h)m;
	hy_rq q = {err, (hy_h)r};
	return q;
}

// hy_cancel_send asks MPI to cancel a send and tests it once: flag says
// whether it completed, cancelled says whether the cancel won.
static inline hy_st hy_cancel_send(hy_h *req) {
	MPI_Request r = HY_REQ(*req);
	MPI_Status s;
	int flag = 0;
	int err = MPI_Cancel(&r);
	if (err == MPI_SUCCESS) err = MPI_Test(&r, &flag, &s);
	*req = (hy_h)r;
	if (err != MPI_SUCCESS || !flag) {
		hy_st z = {err, 0, 0, 0, 0, 0};
		return z;
	}
	return hy_status(err, &s);
}

// what: 0 Intercomm_create, 1 Intercomm_merge (a = high),
// 2 Intercomm_create_from_groups (MPI 4; g, h the groups, tag in a).
static inline hy_rq hy_inter_new(int what, hy_h c, int leader, hy_h peer, int remote, int a, hy_h g, hy_h h) {
	MPI_Comm n = MPI_COMM_NULL;
	int err = MPI_ERR_OTHER;
	switch (what) {
	case 0: err = MPI_Intercomm_create(HY_COMM(c), leader, HY_COMM(peer), remote, a, &n); break;
	case 1: err = MPI_Intercomm_merge(HY_COMM(c), a, &n); break;
#if HY_MPI4
	case 2: {
		char tag[32];
		snprintf(tag, sizeof tag, "hympi:%d", a);
		err = MPI_Intercomm_create_from_groups(HY_GROUP(g), leader, HY_GROUP(h), remote, tag,
			MPI_INFO_NULL, MPI_ERRORS_RETURN, &n);
		break;
	}
#endif
	}
	if (err == MPI_SUCCESS && n != MPI_COMM_NULL) MPI_Comm_set_errhandler(n, MPI_ERRORS_RETURN);
	hy_rq q = {err, (hy_h)n};
	return q;
}
static inline hy_rq hy_remote_group(hy_h c) {
	MPI_Group g = MPI_GROUP_NULL;
	hy_rq q = {MPI_Comm_remote_group(HY_COMM(c), &g), 0};
	q.req = (hy_h)g;
	return q;
}
#endif
