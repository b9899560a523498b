/*
 * mprobe.c — matched probe: MPI_Mprobe and MPI_Improbe take the message
 * they find off the matching queues (no other receive can see it again);
 * MPI_Mrecv and MPI_Imrecv receive it. A probe of MPI_PROC_NULL gives
 * MPI_MESSAGE_NO_PROC, whose receive completes at once with an empty status.
 */
#include <stdlib.h>

#include "cabi.h"
#include "argcheck.h"
#include "_cgo_export.h"
#include "golane.h"

static int hc_mprobe(int source, int tag, MPI_Comm comm, int block, int *flag, MPI_Message *message,
		     MPI_Status *status, const char *fn)
{
	HC_GUARD(fn);
	int ci = hc_comm_index(comm);
	if (ci < 0) return hc_error(-1, MPI_ERR_COMM, fn);
	HC_CHECK_RECV_TAG(ci, tag, fn);
	HC_CHECK_PTR(ci, message, fn);
	if (!block) HC_CHECK_PTR(ci, flag, fn);
	int rc = hympi_go_mprobe(ci, source, tag, block, flag, (intptr_t *)message, status);
	return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
}

int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
	return hc_mprobe(source, tag, comm, 1, NULL, message, status, "MPI_Mprobe");
}

int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status)
{
	return hc_mprobe(source, tag, comm, 0, flag, message, status, "MPI_Improbe");
}

static int hc_imrecv(void *buf, int64_t count, MPI_Datatype dt, MPI_Message *message, MPI_Request *req, const char *fn)
{
	HC_GUARD(fn);
	HC_CHECK_PTR(-1, message, fn);
	HC_CHECK_PTR(-1, req, fn);
	if (*message == MPI_MESSAGE_NULL) return hc_error(-1, MPI_ERR_REQUEST, fn);
	int64_t n = 0, s = hc_type_size(dt);
	int noproc = *message == MPI_MESSAGE_NO_PROC;
	/* As a receive from MPI_PROC_NULL (p2p.c): the type is not looked at,
	 * the count and buffer are. */
	if (noproc && s < 0) s = 0, count = 0, dt = MPI_BYTE;
	if (s < 0) return hc_error(-1, MPI_ERR_TYPE, fn);
	HC_CHECK_COUNT(-1, count, fn);
	HC_CHECK_BUF(-1, buf, count, dt, fn);
	if (!noproc) n = s * count;
	void *tmp = NULL;
	if (n > 0 && !hc_type_contig(dt) && !(tmp = malloc(n))) return hc_error(-1, MPI_ERR_NO_MEM, fn);
	int rc = hympi_go_imrecv((intptr_t *)message, tmp ? tmp : buf, n, tmp, buf, (intptr_t)dt, count,
				 (intptr_t *)req, NULL);
	if (rc) free(tmp);
	return rc ? hc_error(-1, rc, fn) : MPI_SUCCESS;
}

int PMPI_Imrecv(void *buf, int count, MPI_Datatype type, MPI_Message *message, MPI_Request *request)
{
	return hc_imrecv(buf, count, type, message, request, "MPI_Imrecv");
}
int PMPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype type, MPI_Message *message, MPI_Request *request)
{
	return hc_imrecv(buf, count, type, message, request, "MPI_Imrecv_c");
}

static int hc_mrecv(void *buf, int64_t count, MPI_Datatype dt, MPI_Message *message, MPI_Status *status, const char *fn)
{
	MPI_Request rq;
	int rc = hc_imrecv(buf, count, dt, message, &rq, fn);
	if (rc) return rc;
	return PMPI_Wait(&rq, status);
}

int PMPI_Mrecv(void *buf, int count, MPI_Datatype type, MPI_Message *message, MPI_Status *status)
{
	return hc_mrecv(buf, count, type, message, status, "MPI_Mrecv");
}
int PMPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype type, MPI_Message *message, MPI_Status *status)
{
	return hc_mrecv(buf, count, type, message, status, "MPI_Mrecv_c");
}

#define HC_ALIASES_mprobe
#include "aliases_gen.h"
