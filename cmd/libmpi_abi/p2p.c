/*
 * p2p.c — point-to-point entry points and requests. Each call decodes its
 * handles and computes byte counts here, then enters Go exactly once.
 */
#include <stdlib.h>

#include "cabi.h"
#include "argcheck.h"
#include "dtype.h"
#include "fastlane.h"
#include "_cgo_export.h"
#include "golane.h"
#include "nbc.h"

enum { MODE_STD, MODE_SYNC, MODE_READY, MODE_BUFFERED };

/* Initial-exec: a plain %fs-relative access, no __tls_get_addr call (the Go
 * runtime in this library already needs static TLS). */
static __thread hc_reqcache hc_rcache __attribute__((tls_model("initial-exec")));

/* hc_thread_reqcache is this thread's request cache, for the requests
 * other files make (nbc.c). */
HC_HIDDEN hc_reqcache *hc_thread_reqcache(void) { return &hc_rcache; }

#define COMM(ci, comm, fn)                                                     \
	int ci = hc_comm_index(comm);                                          \
	if (__builtin_expect(ci < 0, 0)) return hc_error(-1, MPI_ERR_COMM, fn)

#define BYTES(n, count, dt, ci, fn)                                            \
	int64_t n;                                                             \
	do {                                                                   \
		int64_t s_ = hc_type_msg_size(dt);                                 \
		if (__builtin_expect(s_ < 0, 0)) return hc_error(ci, MPI_ERR_TYPE, fn);   \
		if (__builtin_expect((count) < 0, 0)) return hc_error(ci, MPI_ERR_COUNT, fn); \
		n = s_ * (int64_t)(count);                                     \
	} while (0)

/* MSG is BYTES for a message's own buffer, with one lookup of dt instead
 * of two (the size, then hc_type_contig): contig says whether the buffer
 * travels as it is. On the 8-byte MPI_Send + MPI_Recv round trip the
 * second lookup was ~100 of 3,430 instructions. */
#define MSG(n, contig, count, dt, ci, fn)                                      \
	int64_t n;                                                             \
	int contig;                                                            \
	do {                                                                   \
		const hc_dt *t_ = hc_dt_get(dt);                               \
		if (__builtin_expect(!t_ || !t_->committed, 0)) return hc_error(ci, MPI_ERR_TYPE, fn); \
		if (__builtin_expect((count) < 0, 0)) return hc_error(ci, MPI_ERR_COUNT, fn); \
		n = t_->size * (int64_t)(count);                               \
		contig = t_->dense && t_->lb == 0;                             \
	} while (0)

int PMPI_Comm_size(MPI_Comm comm, int *size)
{
	COMM(ci, comm, "MPI_Comm_size");
	HC_CHECK_PTR(ci, size, "MPI_Comm_size");
	*size = hc_comms[ci].size;
	return MPI_SUCCESS;
}

int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
	COMM(ci, comm, "MPI_Comm_rank");
	HC_CHECK_PTR(ci, rank, "MPI_Comm_rank");
	*rank = hc_comms[ci].rank;
	return MPI_SUCCESS;
}

static int hc_send(const void *buf, int64_t count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, int mode,
		   const char *fn)
{
	HC_GUARD(fn);
	COMM(ci, comm, fn);
	MSG(n, contig, count, dt, ci, fn);
	HC_CHECK_BUF(ci, buf, count, dt, fn);
	void *tmp = NULL;
	if (__builtin_expect(!contig, 0)) {
		if (!(tmp = malloc(n ? n : 1))) return hc_error(ci, MPI_ERR_NO_MEM, fn);
		hc_type_pack(dt, count, buf, tmp);
		buf = tmp;
	} else if ((mode == MODE_STD || mode == MODE_READY) && hc_fl_send(ci, buf, n, dest, tag)) {
		return MPI_SUCCESS;
	}
	int rc = hympi_go_send(ci, (void *)buf, n, dest, tag, mode);
	free(tmp);
	return __builtin_expect(rc == 0, 1) ? MPI_SUCCESS : hc_error(ci, rc, fn);
}

int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
	return hc_send(buf, count, datatype, dest, tag, comm, MODE_STD, "MPI_Send");
}
int PMPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
	return hc_send(buf, count, datatype, dest, tag, comm, MODE_STD, "MPI_Send_c");
}
int PMPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
	return hc_send(buf, count, datatype, dest, tag, comm, MODE_SYNC, "MPI_Ssend");
}
int PMPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
	return hc_send(buf, count, datatype, dest, tag, comm, MODE_READY, "MPI_Rsend");
}
int PMPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
	return hc_send(buf, count, datatype, dest, tag, comm, MODE_BUFFERED, "MPI_Bsend");
}

static int hc_recv_packed(int ci, void *buf, int64_t count, int64_t n, MPI_Datatype dt, int source, int tag,
			  MPI_Status *st, const char *fn)
{
	void *tmp = malloc(n ? n : 1);
	if (!tmp) return hc_error(ci, MPI_ERR_NO_MEM, fn);
	MPI_Status local;
	hc_status_set(&local, 0, 0, 0, 0);
	int rc = hympi_go_recv(ci, tmp, n, source, tag, &local);
	int64_t got;
	__builtin_memcpy(&got, &local.MPI_internal[0], sizeof got);
	hc_type_unpack(dt, count, tmp, got, buf);
	free(tmp);
	if (st) {
		st->MPI_SOURCE = local.MPI_SOURCE;
		st->MPI_TAG = local.MPI_TAG;
		__builtin_memcpy(st->MPI_internal, local.MPI_internal, sizeof local.MPI_internal);
	}
	return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
}

static int hc_recv(void *buf, int64_t count, MPI_Datatype dt, int source, int tag, MPI_Comm comm, MPI_Status *st,
		   const char *fn)
{
	HC_GUARD(fn);
	COMM(ci, comm, fn);
	HC_CHECK_RECV_TAG(ci, tag, fn);
	if (__builtin_expect(source == MPI_PROC_NULL, 0) && hc_type_size(dt) < 0) dt = MPI_BYTE, count = 0;
	MSG(n, contig, count, dt, ci, fn);
	HC_CHECK_BUF(ci, buf, count, dt, fn);
	if (__builtin_expect(!contig, 0)) return hc_recv_packed(ci, buf, count, n, dt, source, tag, st, fn);
	if (hc_fl_recv(ci, buf, n, source, tag, st)) return MPI_SUCCESS;
	int rc = hympi_go_recv(ci, buf, n, source, tag, st);
	return __builtin_expect(rc == 0, 1) ? MPI_SUCCESS : hc_error(ci, rc, fn);
}

int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
	return hc_recv(buf, count, datatype, source, tag, comm, status, "MPI_Recv");
}
int PMPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
		MPI_Status *status)
{
	return hc_recv(buf, count, datatype, source, tag, comm, status, "MPI_Recv_c");
}

static int hc_isend(const void *buf, int64_t count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, int mode,
		    MPI_Request *req, const char *fn)
{
	HC_GUARD(fn);
	COMM(ci, comm, fn);
	HC_CHECK_PTR(ci, req, fn);
	MSG(n, contig, count, dt, ci, fn);
	HC_CHECK_BUF(ci, buf, count, dt, fn);
	void *tmp = NULL;
	if (__builtin_expect(!contig, 0)) {
		if (!(tmp = malloc(n ? n : 1))) return hc_error(ci, MPI_ERR_NO_MEM, fn);
		hc_type_pack(dt, count, buf, tmp);
		buf = tmp;
	} else if ((mode == MODE_STD || mode == MODE_READY) && hc_fl_send(ci, buf, n, dest, tag)) {
		/* Published at once by the fast lane: complete, no request. */
		*req = HC_REQ_DONE;
		return MPI_SUCCESS;
	}
	int rc = hympi_go_isend(ci, (void *)buf, n, dest, tag, mode, tmp, (intptr_t *)req, &hc_rcache);
	if (rc) free(tmp);
	return __builtin_expect(rc == 0, 1) ? MPI_SUCCESS : hc_error(ci, rc, fn);
}

int PMPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
	return hc_isend(buf, count, datatype, dest, tag, comm, MODE_STD, request, "MPI_Isend");
}
int PMPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
		 MPI_Request *request)
{
	return hc_isend(buf, count, datatype, dest, tag, comm, MODE_STD, request, "MPI_Isend_c");
}
int PMPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
	return hc_isend(buf, count, datatype, dest, tag, comm, MODE_SYNC, request, "MPI_Issend");
}
int PMPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
	return hc_isend(buf, count, datatype, dest, tag, comm, MODE_READY, request, "MPI_Irsend");
}
int PMPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
	return hc_isend(buf, count, datatype, dest, tag, comm, MODE_BUFFERED, request, "MPI_Ibsend");
}

static int hc_irecv(void *buf, int64_t count, MPI_Datatype dt, int source, int tag, MPI_Comm comm, MPI_Request *req,
		    const char *fn)
{
	HC_GUARD(fn);
	COMM(ci, comm, fn);
	HC_CHECK_RECV_TAG(ci, tag, fn);
	HC_CHECK_PTR(ci, req, fn);
	/* Nothing arrives from MPI_PROC_NULL: any datatype will do. */
	if (__builtin_expect(source == MPI_PROC_NULL, 0) && hc_type_size(dt) < 0) dt = MPI_BYTE, count = 0;
	MSG(n, contig, count, dt, ci, fn);
	HC_CHECK_BUF(ci, buf, count, dt, fn);
	void *tmp = NULL;
	if (__builtin_expect(!contig, 0) && !(tmp = malloc(n ? n : 1)))
		return hc_error(ci, MPI_ERR_NO_MEM, fn);
	int rc;
	if (__builtin_expect(!tmp, 1)) {
		if (hc_lane_irecv(ci, buf, n, source, tag, req)) return MPI_SUCCESS;
		rc = hympi_go_irecv(ci, buf, n, source, tag, NULL, (intptr_t *)req, &hc_rcache);
	} else {
		hc_recv_unpack up = {tmp, buf, hc_type_hold(dt), count};
		rc = hympi_go_irecv(ci, tmp, n, source, tag, &up, (intptr_t *)req, &hc_rcache);
		if (rc) {
			free(tmp);
			hc_type_release(up.dt);
		}
	}
	return __builtin_expect(rc == 0, 1) ? MPI_SUCCESS : hc_error(ci, rc, fn);
}

int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request)
{
	return hc_irecv(buf, count, datatype, source, tag, comm, request, "MPI_Irecv");
}
int PMPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
		 MPI_Request *request)
{
	return hc_irecv(buf, count, datatype, source, tag, comm, request, "MPI_Irecv_c");
}

static int hc_sendrecv(const void *sendbuf, int64_t sendcount, MPI_Datatype sendtype, int dest, int sendtag,
		       void *recvbuf, int64_t recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
		       MPI_Status *status, const char *fn)
{
	HC_GUARD(fn);
	COMM(ci, comm, fn);
	BYTES(sn, sendcount, sendtype, ci, fn);
	BYTES(rn, recvcount, recvtype, ci, fn);
	HC_CHECK_RECV_TAG(ci, recvtag, fn);
	HC_CHECK_BUF(ci, sendbuf, sendcount, sendtype, fn);
	HC_CHECK_BUF(ci, recvbuf, recvcount, recvtype, fn);
	if (!hc_type_contig(sendtype) || !hc_type_contig(recvtype)) {
		MPI_Request rq;
		int rc = PMPI_Irecv_c(recvbuf, recvcount, recvtype, source, recvtag, comm, &rq);
		if (rc == MPI_SUCCESS) rc = PMPI_Send_c(sendbuf, sendcount, sendtype, dest, sendtag, comm);
		if (rc == MPI_SUCCESS) rc = PMPI_Wait(&rq, status);
		return rc;
	}
	int rc = hympi_go_sendrecv(ci, (void *)sendbuf, sn, dest, sendtag, recvbuf, rn, source, recvtag, status);
	return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
}

int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
		  int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
	return hc_sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
			   comm, status, "MPI_Sendrecv");
}
int PMPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
		    void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
		    MPI_Status *status)
{
	return hc_sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
			   comm, status, "MPI_Sendrecv_c");
}

static int hc_sendrecv_replace(void *buf, int64_t count, MPI_Datatype datatype, int dest, int sendtag, int source,
			       int recvtag, MPI_Comm comm, MPI_Status *status, const char *fn)
{
	HC_GUARD(fn);
	COMM(ci, comm, fn);
	BYTES(n, count, datatype, ci, fn);
	HC_CHECK_BUF(ci, buf, count, datatype, fn);
	HC_CHECK_RECV_TAG(ci, recvtag, fn);
	if (!hc_type_contig(datatype)) {
		void *tmp = malloc(n ? n : 1);
		if (!tmp) return hc_error(ci, MPI_ERR_NO_MEM, fn);
		hc_type_pack(datatype, count, buf, tmp);
		MPI_Request rq;
		int rc = PMPI_Irecv_c(buf, count, datatype, source, recvtag, comm, &rq);
		if (rc == MPI_SUCCESS) rc = PMPI_Send_c(tmp, n, MPI_BYTE, dest, sendtag, comm);
		if (rc == MPI_SUCCESS) rc = PMPI_Wait(&rq, status);
		free(tmp);
		return rc;
	}
	int rc = hympi_go_sendrecv_replace(ci, buf, n, dest, sendtag, source, recvtag, status);
	return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
}

int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag,
			  MPI_Comm comm, MPI_Status *status)
{
	return hc_sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, status,
				   "MPI_Sendrecv_replace");
}
int PMPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source,
			    int recvtag, MPI_Comm comm, MPI_Status *status)
{
	return hc_sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, status,
				   "MPI_Sendrecv_replace_c");
}

int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
	HC_GUARD("MPI_Probe");
	COMM(ci, comm, "MPI_Probe");
	HC_CHECK_RECV_TAG(ci, tag, "MPI_Probe");
	int rc = hympi_go_probe(ci, source, tag, status);
	return rc ? hc_error(ci, rc, "MPI_Probe") : MPI_SUCCESS;
}

int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
	HC_GUARD("MPI_Iprobe");
	COMM(ci, comm, "MPI_Iprobe");
	HC_CHECK_RECV_TAG(ci, tag, "MPI_Iprobe");
	HC_CHECK_PTR(ci, flag, "MPI_Iprobe");
	int rc = hympi_go_iprobe(ci, source, tag, flag, status);
	return rc ? hc_error(ci, rc, "MPI_Iprobe") : MPI_SUCCESS;
}

/* ---- requests -------------------------------------------------------- */

/* hc_done_all completes an array that holds only sends MPI_Isend completed
 * at once (HC_REQ_DONE) and MPI_REQUEST_NULLs, without entering Go: the
 * sender's side of a window of small messages. It reports 0, changing
 * nothing, when the array holds anything else. */
static int hc_done_all(int count, MPI_Request *reqs, MPI_Status *sts)
{
	int done = 0;
	for (int i = 0; i < count; i++) {
		if (reqs[i] == HC_REQ_DONE)
			done++;
		else if (reqs[i] != MPI_REQUEST_NULL)
			return 0;
	}
	if (done == 0) return 0; /* all null: the usual path's business */
	for (int i = 0; i < count; i++) {
		MPI_Status *st = sts ? &sts[i] : NULL;
		if (reqs[i] == HC_REQ_DONE) {
			reqs[i] = MPI_REQUEST_NULL;
			hc_done_status(st);
		} else if (st) {
			hc_status_set(st, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, 0);
			st->MPI_ERROR = MPI_SUCCESS;
		}
	}
	return 1;
}

/* null_status: the empty status MPI gives for MPI_REQUEST_NULL. */
static inline void null_status(MPI_Status *st)
{
	if (st) {
		hc_status_set(st, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, 0);
		st->MPI_ERROR = MPI_SUCCESS;
	}
}

int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
	HC_GUARD("MPI_Wait");
	HC_CHECK_PTR(-1, request, "MPI_Wait");
	hc_nb_waited(request, 1);
	if (*request == HC_REQ_DONE) {
		*request = MPI_REQUEST_NULL;
		hc_nbc_lane_ci = 0;
		hc_done_status(status);
		return MPI_SUCCESS;
	}
	if (hc_cn_n && hc_cn_wait(request, status)) return MPI_SUCCESS; /* pending in C (nbc_pend.c) */
	if (hc_pc_ndone && hc_pc_take(*request)) { /* a persistent collective C ran (nbc_persist.c) */
		hc_done_status(status);
		return MPI_SUCCESS;
	}
	if (hc_nbc_pdone_req && (intptr_t)*request == hc_nbc_pdone_req) {
		/* A persistent collective its start completed: inactive now. */
		hc_nbc_pdone_req = 0;
		hc_done_status(status);
		return MPI_SUCCESS;
	}
	if (*request == MPI_REQUEST_NULL) {
		/* As Go's wait answers it (an empty status), without the
		 * transition: a program that tested its request to completion
		 * (OSU's overlap loop) still waits on the handle. */
		null_status(status);
		return MPI_SUCCESS;
	}
	int k = hc_lane_queued(*request);
	if (k >= 0 && hc_lane_wait(k, request, status)) return MPI_SUCCESS;
	int rc = hympi_go_wait(request, status, &hc_rcache);
	return __builtin_expect(rc == 0, 1) ? MPI_SUCCESS : hc_req_error(rc, "MPI_Wait");
}

int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
	HC_GUARD("MPI_Test");
	HC_CHECK_PTR(-1, request, "MPI_Test");
	HC_CHECK_PTR(-1, flag, "MPI_Test");
	hc_nb_tested();
	if (*request == HC_REQ_DONE) {
		*request = MPI_REQUEST_NULL;
		*flag = 1;
		if (hc_nbc_lane_ci) hc_nbc_lane_tested();
		hc_done_status(status);
		return MPI_SUCCESS;
	}
	if (hc_cn_n && hc_cn_test(request, flag, status)) return MPI_SUCCESS;
	if ((hc_pc_ndone && hc_pc_take(*request)) || (hc_nbc_pdone_req && (intptr_t)*request == hc_nbc_pdone_req)) {
		if ((intptr_t)*request == hc_nbc_pdone_req) hc_nbc_pdone_req = 0;
		*flag = 1;
		hc_done_status(status);
		return MPI_SUCCESS;
	}
	if (*request == MPI_REQUEST_NULL) {
		*flag = 1;
		null_status(status);
		return MPI_SUCCESS;
	}
	int k = hc_lane_queued(*request);
	if (k >= 0 && hc_lane_test(k, request, flag, status)) return MPI_SUCCESS;
	if (hc_nbc_idle_req && hc_nbc_idle_test(request, flag)) return MPI_SUCCESS;
	int rc = hympi_go_test(request, flag, status, &hc_rcache);
	return rc ? hc_req_error(rc, "MPI_Test") : MPI_SUCCESS;
}

int PMPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
	HC_GUARD("MPI_Waitall");
	if (count < 0) return hc_error(-1, MPI_ERR_COUNT, "MPI_Waitall");
	HC_CHECK_ARRAY(-1, array_of_requests, count, "MPI_Waitall");
	hc_nb_waited(array_of_requests, count);
	/* A persistent collective its start completed is inactive in Go already. */
	if (hc_nbc_pdone_req) hc_nbc_pdone_take(count, array_of_requests);
	if (hc_pc_ndone && hc_pc_take_all(count, array_of_requests, array_of_statuses)) return MPI_SUCCESS;
	if (hc_done_all(count, array_of_requests, array_of_statuses)) return MPI_SUCCESS;
	if (hc_lane_n && hc_lane_waitall(count, array_of_requests, array_of_statuses)) return MPI_SUCCESS;
	int rc = hympi_go_waitall(array_of_requests, count, array_of_statuses, &hc_rcache);
	/* Requests the lane completed before it gave up keep their status. */
	hc_lane_waitall_done(array_of_statuses);
	return rc ? hc_req_error(rc, "MPI_Waitall") : MPI_SUCCESS;
}

int PMPI_Testall(int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[])
{
	HC_GUARD("MPI_Testall");
	if (count < 0) return hc_error(-1, MPI_ERR_COUNT, "MPI_Testall");
	HC_CHECK_ARRAY(-1, array_of_requests, count, "MPI_Testall");
	HC_CHECK_PTR(-1, flag, "MPI_Testall");
	hc_nb_tested();
	if (hc_nbc_pdone_req) hc_nbc_pdone_take(count, array_of_requests);
	if ((hc_pc_ndone && hc_pc_take_all(count, array_of_requests, array_of_statuses)) ||
	    hc_done_all(count, array_of_requests, array_of_statuses)) {
		*flag = 1;
		return MPI_SUCCESS;
	}
	if (hc_lane_n && hc_lane_testall(count, array_of_requests, flag, array_of_statuses)) return MPI_SUCCESS;
	int rc = hympi_go_testall(array_of_requests, count, flag, array_of_statuses);
	return rc ? hc_req_error(rc, "MPI_Testall") : MPI_SUCCESS;
}

int PMPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status)
{
	HC_GUARD("MPI_Waitany");
	if (count < 0) return hc_error(-1, MPI_ERR_COUNT, "MPI_Waitany");
	HC_CHECK_ARRAY(-1, array_of_requests, count, "MPI_Waitany");
	HC_CHECK_PTR(-1, index, "MPI_Waitany");
	hc_nb_waited(array_of_requests, count);
	int pd = hc_nbc_pdone_req ? hc_nbc_pdone_take(count, array_of_requests) : -1;
	if (pd < 0 && hc_pc_ndone) pd = hc_pc_take_any(count, array_of_requests);
	if (pd >= 0) { /* complete (its start ran it): this is the one */
		*index = pd;
		hc_done_status(status);
		return MPI_SUCCESS;
	}
	if (hc_lane_n && hc_lane_any(count, array_of_requests, index, NULL, status, 1)) return MPI_SUCCESS;
	int rc = hympi_go_waitany(array_of_requests, count, index, status);
	return rc ? hc_req_error(rc, "MPI_Waitany") : MPI_SUCCESS;
}

int PMPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status)
{
	HC_GUARD("MPI_Testany");
	if (count < 0) return hc_error(-1, MPI_ERR_COUNT, "MPI_Testany");
	HC_CHECK_ARRAY(-1, array_of_requests, count, "MPI_Testany");
	HC_CHECK_PTR(-1, index, "MPI_Testany");
	HC_CHECK_PTR(-1, flag, "MPI_Testany");
	hc_nb_tested();
	int pd = hc_nbc_pdone_req ? hc_nbc_pdone_take(count, array_of_requests) : -1;
	if (pd < 0 && hc_pc_ndone) pd = hc_pc_take_any(count, array_of_requests);
	if (pd >= 0) {
		*index = pd;
		*flag = 1;
		hc_done_status(status);
		return MPI_SUCCESS;
	}
	if (hc_lane_n && hc_lane_any(count, array_of_requests, index, flag, status, 0)) return MPI_SUCCESS;
	int rc = hympi_go_testany(array_of_requests, count, index, flag, status);
	return rc ? hc_req_error(rc, "MPI_Testany") : MPI_SUCCESS;
}

int PMPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
		  MPI_Status array_of_statuses[])
{
	HC_GUARD("MPI_Waitsome");
	if (incount < 0) return hc_error(-1, MPI_ERR_COUNT, "MPI_Waitsome");
	HC_CHECK_ARRAY(-1, array_of_requests, incount, "MPI_Waitsome");
	HC_CHECK_PTR(-1, outcount, "MPI_Waitsome");
	HC_CHECK_ARRAY(-1, array_of_indices, incount, "MPI_Waitsome");
	hc_nb_waited(array_of_requests, incount);
	int pd = hc_nbc_pdone_req ? hc_nbc_pdone_take(incount, array_of_requests) : -1;
	if (pd < 0 && hc_pc_ndone) pd = hc_pc_take_any(incount, array_of_requests);
	if (pd >= 0) {
		*outcount = 1;
		array_of_indices[0] = pd;
		hc_done_status(array_of_statuses ? &array_of_statuses[0] : NULL);
		return MPI_SUCCESS;
	}
	int rc = hympi_go_waitsome(array_of_requests, incount, outcount, array_of_indices, array_of_statuses);
	return rc ? hc_req_error(rc, "MPI_Waitsome") : MPI_SUCCESS;
}

int PMPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
		  MPI_Status array_of_statuses[])
{
	HC_GUARD("MPI_Testsome");
	if (incount < 0) return hc_error(-1, MPI_ERR_COUNT, "MPI_Testsome");
	HC_CHECK_ARRAY(-1, array_of_requests, incount, "MPI_Testsome");
	HC_CHECK_PTR(-1, outcount, "MPI_Testsome");
	HC_CHECK_ARRAY(-1, array_of_indices, incount, "MPI_Testsome");
	hc_nb_tested();
	int pd = hc_nbc_pdone_req ? hc_nbc_pdone_take(incount, array_of_requests) : -1;
	if (pd < 0 && hc_pc_ndone) pd = hc_pc_take_any(incount, array_of_requests);
	if (pd >= 0) {
		*outcount = 1;
		array_of_indices[0] = pd;
		hc_done_status(array_of_statuses ? &array_of_statuses[0] : NULL);
		return MPI_SUCCESS;
	}
	int rc = hympi_go_testsome(array_of_requests, incount, outcount, array_of_indices, array_of_statuses);
	return rc ? hc_req_error(rc, "MPI_Testsome") : MPI_SUCCESS;
}

int PMPI_Request_free(MPI_Request *request)
{
	HC_GUARD("MPI_Request_free");
	HC_CHECK_PTR(-1, request, "MPI_Request_free");
	if (*request == HC_REQ_DONE) {
		*request = MPI_REQUEST_NULL;
		return MPI_SUCCESS;
	}
	if (hc_pc_n) hc_pc_forget(*request);
	int rc = hympi_go_request_free(request);
	return rc ? hc_req_error(rc, "MPI_Request_free") : MPI_SUCCESS;
}

int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
	HC_GUARD("MPI_Request_get_status");
	HC_CHECK_PTR(-1, flag, "MPI_Request_get_status");
	if (request == HC_REQ_DONE) {
		*flag = 1;
		hc_done_status(status);
		return MPI_SUCCESS;
	}
	int rc = hympi_go_request_get_status((intptr_t)request, flag, status);
	return rc ? hc_req_error(rc, "MPI_Request_get_status") : MPI_SUCCESS;
}

int PMPI_Cancel(MPI_Request *request)
{
	HC_GUARD("MPI_Cancel");
	HC_CHECK_PTR(-1, request, "MPI_Cancel");
	if (*request == HC_REQ_DONE) return MPI_SUCCESS; /* complete: nothing to cancel */
	int rc = hympi_go_cancel((intptr_t)*request);
	return rc ? hc_req_error(rc, "MPI_Cancel") : MPI_SUCCESS;
}

static int hc_pinit(const void *buf, int64_t count, MPI_Datatype dt, int peer, int tag, MPI_Comm comm, int mode, int recv,
		    MPI_Request *req, const char *fn)
{
	HC_GUARD(fn);
	COMM(ci, comm, fn);
	HC_CHECK_PTR(ci, req, fn);
	BYTES(n, count, dt, ci, fn);
	HC_CHECK_BUF(ci, buf, count, dt, fn);
	/* Checked now, as MPICH does, not at the first MPI_Start. */
	if (recv) HC_CHECK_RECV_TAG(ci, tag, fn);
	else if (tag < 0) return hc_arg_fail(ci, MPI_ERR_TAG, fn, "negative tag");
	if (peer != MPI_PROC_NULL && (peer < 0 || peer >= hc_comms[ci].size) && !(recv && peer == MPI_ANY_SOURCE))
		return hc_arg_fail(ci, MPI_ERR_RANK, fn, "rank out of range");
	void *tmp = NULL;
	if (!hc_type_contig(dt) && !(tmp = malloc(n ? n : 1))) return hc_error(ci, MPI_ERR_NO_MEM, fn);
	intptr_t held = tmp ? hc_type_hold(dt) : (intptr_t)dt;
	int rc = hympi_go_prequest(ci, tmp ? tmp : (void *)buf, n, peer, tag, mode, recv, tmp, (void *)buf, held, count,
				   (intptr_t *)req);
	if (rc) {
		free(tmp);
		if (tmp) hc_type_release(held);
	}
	return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
}

int PMPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
		   MPI_Request *request)
{
	return hc_pinit(buf, count, datatype, dest, tag, comm, MODE_STD, 0, request, "MPI_Send_init");
}
int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
		    MPI_Request *request)
{
	return hc_pinit(buf, count, datatype, dest, tag, comm, MODE_SYNC, 0, request, "MPI_Ssend_init");
}
int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
		    MPI_Request *request)
{
	return hc_pinit(buf, count, datatype, dest, tag, comm, MODE_READY, 0, request, "MPI_Rsend_init");
}
int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
		    MPI_Request *request)
{
	return hc_pinit(buf, count, datatype, dest, tag, comm, MODE_BUFFERED, 0, request, "MPI_Bsend_init");
}
int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request)
{
	return hc_pinit(buf, count, datatype, source, tag, comm, MODE_STD, 1, request, "MPI_Recv_init");
}

int PMPI_Start(MPI_Request *request)
{
	HC_GUARD("MPI_Start");
	HC_CHECK_PTR(-1, request, "MPI_Start");
	int rc;
	if (hc_pc_n && hc_pc_start(request, &rc)) return rc ? hc_req_error(rc, "MPI_Start") : MPI_SUCCESS;
	rc = hympi_go_start(request, 1);
	/* A collective C knows, started in Go: its wait counts as well
	 * (nbc_atonce.c). */
	if (hc_pc_n && hc_pc_known(*request)) hc_nb_started(*request);
	return rc ? hc_req_error(rc, "MPI_Start") : MPI_SUCCESS;
}

int PMPI_Startall(int count, MPI_Request array_of_requests[])
{
	HC_GUARD("MPI_Startall");
	HC_CHECK_COUNT(-1, count, "MPI_Startall");
	HC_CHECK_ARRAY(-1, array_of_requests, count, "MPI_Startall");
	int rc = 0;
	if (hc_pc_n) {
		/* One by one, each in C when its plan runs (nbc_persist.c). */
		for (int i = 0; i < count && !rc; i++)
			if (!hc_pc_start(&array_of_requests[i], &rc)) rc = hympi_go_start(&array_of_requests[i], 1);
		return rc ? hc_req_error(rc, "MPI_Startall") : MPI_SUCCESS;
	}
	rc = hympi_go_start(array_of_requests, count);
	return rc ? hc_req_error(rc, "MPI_Startall") : MPI_SUCCESS;
}

int PMPI_Buffer_attach(void *buffer, int size)
{
	HC_GUARD("MPI_Buffer_attach");
	HC_CHECK_BSEND_BUF(-1, buffer, size, "MPI_Buffer_attach");
	int rc = hc_buf_attach(-1, -1, buffer, size);
	return rc ? hc_error(-1, rc, "MPI_Buffer_attach") : MPI_SUCCESS;
}

int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
	HC_GUARD("MPI_Buffer_detach");
	HC_CHECK_PTR(-1, buffer_addr, "MPI_Buffer_detach");
	HC_CHECK_PTR(-1, size, "MPI_Buffer_detach");
	int64_t n;
	int rc = hc_buf_detach(-1, -1, buffer_addr, &n);
	if (rc) return hc_error(-1, rc, "MPI_Buffer_detach");
	*size = (int)n;
	return MPI_SUCCESS;
}

/* ---- large-count twins ------------------------------------------------ */

int PMPI_Ssend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
	return hc_send(buf, count, datatype, dest, tag, comm, MODE_SYNC, "MPI_Ssend_c");
}
int PMPI_Rsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
	return hc_send(buf, count, datatype, dest, tag, comm, MODE_READY, "MPI_Rsend_c");
}
int PMPI_Bsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
	return hc_send(buf, count, datatype, dest, tag, comm, MODE_BUFFERED, "MPI_Bsend_c");
}
int PMPI_Issend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
		  MPI_Request *request)
{
	return hc_isend(buf, count, datatype, dest, tag, comm, MODE_SYNC, request, "MPI_Issend_c");
}
int PMPI_Irsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
		  MPI_Request *request)
{
	return hc_isend(buf, count, datatype, dest, tag, comm, MODE_READY, request, "MPI_Irsend_c");
}
int PMPI_Ibsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
		  MPI_Request *request)
{
	return hc_isend(buf, count, datatype, dest, tag, comm, MODE_BUFFERED, request, "MPI_Ibsend_c");
}
int PMPI_Send_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
		     MPI_Request *request)
{
	return hc_pinit(buf, count, datatype, dest, tag, comm, MODE_STD, 0, request, "MPI_Send_init_c");
}
int PMPI_Ssend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
		      MPI_Request *request)
{
	return hc_pinit(buf, count, datatype, dest, tag, comm, MODE_SYNC, 0, request, "MPI_Ssend_init_c");
}
int PMPI_Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
		      MPI_Request *request)
{
	return hc_pinit(buf, count, datatype, dest, tag, comm, MODE_READY, 0, request, "MPI_Rsend_init_c");
}
int PMPI_Bsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
		      MPI_Request *request)
{
	return hc_pinit(buf, count, datatype, dest, tag, comm, MODE_BUFFERED, 0, request, "MPI_Bsend_init_c");
}
int PMPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
		     MPI_Request *request)
{
	return hc_pinit(buf, count, datatype, source, tag, comm, MODE_STD, 1, request, "MPI_Recv_init_c");
}

int PMPI_Buffer_attach_c(void *buffer, MPI_Count size)
{
	HC_GUARD("MPI_Buffer_attach_c");
	HC_CHECK_BSEND_BUF(-1, buffer, size, "MPI_Buffer_attach_c");
	int rc = hc_buf_attach(-1, -1, buffer, size);
	return rc ? hc_error(-1, rc, "MPI_Buffer_attach_c") : MPI_SUCCESS;
}

int PMPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size)
{
	HC_GUARD("MPI_Buffer_detach_c");
	HC_CHECK_PTR(-1, buffer_addr, "MPI_Buffer_detach_c");
	HC_CHECK_PTR(-1, size, "MPI_Buffer_detach_c");
	int64_t n;
	int rc = hc_buf_detach(-1, -1, buffer_addr, &n);
	if (rc) return hc_error(-1, rc, "MPI_Buffer_detach_c");
	*size = n;
	return MPI_SUCCESS;
}

#define HC_ALIASES_p2p
#include "aliases_gen.h"
