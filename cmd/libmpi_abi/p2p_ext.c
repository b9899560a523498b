/*
 * p2p_ext.c — MPI_Isendrecv, MPI_Isendrecv_replace (one request over a
 * send and a receive, the engine's join request) and the MPI 4.1
 * MPI_Request_get_status_all/any/some, which look at requests without
 * freeing them.
 */
#include <stdlib.h>
#include <string.h>

#include "cabi.h"
#include "argcheck.h"
#include "_cgo_export.h"
#include "golane.h"

/* hc_isendrecv: when replace is set, sendbuf is recvbuf and the send half
 * travels from a packed copy. */
static int hc_isendrecv(const void *sendbuf, int64_t scount, MPI_Datatype stype, int dest, int stag, void *recvbuf,
			int64_t rcount, MPI_Datatype rtype, int source, int rtag, MPI_Comm comm, MPI_Request *req,
			int replace, const char *fn)
{
	HC_GUARD(fn);
	int ci = hc_comm_index(comm);
	if (ci < 0) return hc_error(-1, MPI_ERR_COMM, fn);
	HC_CHECK_PTR(ci, req, fn);
	HC_CHECK_RECV_TAG(ci, rtag, fn);
	int64_t ss = hc_type_size(stype), rs = hc_type_size(rtype);
	if (dest == MPI_PROC_NULL && ss < 0) ss = 0, scount = 0, stype = MPI_BYTE;
	if (source == MPI_PROC_NULL && rs < 0) rs = 0, rcount = 0, rtype = MPI_BYTE;
	if (ss < 0 || rs < 0) return hc_error(ci, MPI_ERR_TYPE, fn);
	if (scount < 0 || rcount < 0) return hc_error(ci, MPI_ERR_COUNT, fn);
	HC_CHECK_BUF(ci, sendbuf, scount, stype, fn);
	HC_CHECK_BUF(ci, recvbuf, rcount, rtype, fn);
	int64_t sn = ss * scount, rn = rs * rcount;
	void *stmp = NULL, *tmp = NULL;
	if (replace || !hc_type_contig(stype)) {
		if (!(stmp = malloc(sn ? sn : 1))) return hc_error(ci, MPI_ERR_NO_MEM, fn);
		hc_type_pack(stype, scount, sendbuf, stmp);
		sendbuf = stmp;
	}
	if (!hc_type_contig(rtype) && !(tmp = malloc(rn ? rn : 1))) {
		free(stmp);
		return hc_error(ci, MPI_ERR_NO_MEM, fn);
	}
	int rc = hympi_go_isendrecv(ci, (void *)sendbuf, sn, dest, stag, stmp, tmp ? tmp : recvbuf, rn, source, rtag,
				    tmp, recvbuf, (intptr_t)rtype, rcount, (intptr_t *)req);
	if (rc) {
		free(stmp);
		free(tmp);
		return hc_error(ci, rc, fn);
	}
	return MPI_SUCCESS;
}

int PMPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
		   int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
	return hc_isendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
			    comm, request, 0, "MPI_Isendrecv");
}
int PMPI_Isendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
		     void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
		     MPI_Request *request)
{
	return hc_isendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
			    comm, request, 0, "MPI_Isendrecv_c");
}
int PMPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
			   int recvtag, MPI_Comm comm, MPI_Request *request)
{
	return hc_isendrecv(buf, count, datatype, dest, sendtag, buf, count, datatype, source, recvtag, comm, request, 1,
			    "MPI_Isendrecv_replace");
}
int PMPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source,
			     int recvtag, MPI_Comm comm, MPI_Request *request)
{
	return hc_isendrecv(buf, count, datatype, dest, sendtag, buf, count, datatype, source, recvtag, comm, request, 1,
			    "MPI_Isendrecv_replace_c");
}

int PMPI_Request_get_status_all(int count, const MPI_Request array_of_requests[], int *flag,
				MPI_Status array_of_statuses[])
{
	const char *fn = "MPI_Request_get_status_all";
	HC_GUARD(fn);
	if (count < 0) return hc_error(-1, MPI_ERR_COUNT, fn);
	HC_CHECK_ARRAY(-1, array_of_requests, count, fn);
	HC_CHECK_PTR(-1, flag, fn);
	int rc = hympi_go_get_status_all((void *)array_of_requests, count, flag, array_of_statuses);
	return rc ? hc_error(-1, rc, fn) : MPI_SUCCESS;
}

int PMPI_Request_get_status_any(int count, const MPI_Request array_of_requests[], int *index, int *flag,
				MPI_Status *status)
{
	const char *fn = "MPI_Request_get_status_any";
	HC_GUARD(fn);
	if (count < 0) return hc_error(-1, MPI_ERR_COUNT, fn);
	HC_CHECK_ARRAY(-1, array_of_requests, count, fn);
	HC_CHECK_PTR(-1, index, fn);
	HC_CHECK_PTR(-1, flag, fn);
	int rc = hympi_go_get_status_any((void *)array_of_requests, count, index, flag, status);
	return rc ? hc_error(-1, rc, fn) : MPI_SUCCESS;
}

int PMPI_Request_get_status_some(int incount, const MPI_Request array_of_requests[], int *outcount,
				 int array_of_indices[], MPI_Status array_of_statuses[])
{
	const char *fn = "MPI_Request_get_status_some";
	HC_GUARD(fn);
	if (incount < 0) return hc_error(-1, MPI_ERR_COUNT, fn);
	HC_CHECK_ARRAY(-1, array_of_requests, incount, fn);
	HC_CHECK_PTR(-1, outcount, fn);
	HC_CHECK_ARRAY(-1, array_of_indices, incount, fn);
	int rc = hympi_go_get_status_some((void *)array_of_requests, incount, outcount, array_of_indices,
					  array_of_statuses);
	return rc ? hc_error(-1, rc, fn) : MPI_SUCCESS;
}

#define HC_ALIASES_p2p_ext
#include "aliases_gen.h"
