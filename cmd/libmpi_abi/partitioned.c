/*
 * partitioned.c — MPI 4 partitioned point-to-point (MPI_Psend_init,
 * MPI_Precv_init, MPI_Pready*, MPI_Parrived) over persistent requests:
 * see partitioned.go for the protocol.
 */
#include <stdlib.h>

#include "cabi.h"
#include "argcheck.h"
#include "_cgo_export.h"
#include "golane.h"

static int hc_pinit_part(const void *buf, int partitions, MPI_Count count, MPI_Datatype dt, int peer, int tag,
			 MPI_Comm comm, MPI_Info info, int recv, MPI_Request *req, const char *fn)
{
	HC_GUARD(fn);
	int ci = hc_comm_index(comm);
	if (ci < 0) return hc_error(-1, MPI_ERR_COMM, fn);
	HC_CHECK_PTR(ci, req, fn);
	HC_CHECK_INFO(ci, info, fn);
	if (recv) HC_CHECK_RECV_TAG(ci, tag, fn);
	else if (tag < 0) return hc_arg_fail(ci, MPI_ERR_TAG, fn, "negative tag");
	/* As MPI_Send_init: the peer now, not at the first MPI_Start. */
	if (peer != MPI_PROC_NULL && (peer < 0 || peer >= hc_comms[ci].size) && !(recv && peer == MPI_ANY_SOURCE))
		return hc_arg_fail(ci, MPI_ERR_RANK, fn, "rank out of range");
	if (partitions < 1) return hc_error(ci, MPI_ERR_ARG, fn);
	HC_CHECK_COUNT(ci, count, fn);
	int64_t s = hc_type_size(dt);
	if (s < 0) return hc_error(ci, MPI_ERR_TYPE, fn);
	int64_t total = (int64_t)partitions * count, n = total * s;
	HC_CHECK_BUF(ci, buf, total, dt, fn);
	void *tmp = NULL;
	if (!hc_type_contig(dt) && !(tmp = malloc(n ? n : 1))) return hc_error(ci, MPI_ERR_NO_MEM, fn);
	/* The request keeps a non-contiguous type alive for its unpacking,
	 * whatever the program frees meanwhile (released with the request). */
	intptr_t held = tmp ? hc_type_hold(dt) : (intptr_t)dt;
	int rc = hympi_go_pinit(ci, partitions, tmp ? tmp : (void *)buf, n, peer, tag, recv, tmp, (void *)buf, held,
				total, (intptr_t *)req);
	if (rc) {
		free(tmp);
		if (tmp) hc_type_release(held);
	}
	return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
}

/* The standard ABI's header gives Psend_init/Precv_init an int count and
 * _c twins with an MPI_Count one; both go the same way. */
int PMPI_Psend_init(const void *buf, int partitions, int count, MPI_Datatype datatype, int dest, int tag,
		    MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	return hc_pinit_part(buf, partitions, count, datatype, dest, tag, comm, info, 0, request, "MPI_Psend_init");
}

int PMPI_Psend_init_c(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
		      MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	return hc_pinit_part(buf, partitions, count, datatype, dest, tag, comm, info, 0, request, "MPI_Psend_init_c");
}

int PMPI_Precv_init(void *buf, int partitions, int count, MPI_Datatype datatype, int source, int tag,
		    MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	return hc_pinit_part(buf, partitions, count, datatype, source, tag, comm, info, 1, request, "MPI_Precv_init");
}

int PMPI_Precv_init_c(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source, int tag,
		      MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	return hc_pinit_part(buf, partitions, count, datatype, source, tag, comm, info, 1, request, "MPI_Precv_init_c");
}

int PMPI_Pready(int partition, MPI_Request request)
{
	HC_GUARD("MPI_Pready");
	int rc = hympi_go_pready((intptr_t)request, partition, partition, NULL, 0);
	return rc ? hc_req_error(rc, "MPI_Pready") : MPI_SUCCESS;
}

int PMPI_Pready_range(int partition_low, int partition_high, MPI_Request request)
{
	HC_GUARD("MPI_Pready_range");
	if (partition_low > partition_high) return hc_error(-1, MPI_ERR_ARG, "MPI_Pready_range");
	int rc = hympi_go_pready((intptr_t)request, partition_low, partition_high, NULL, 0);
	return rc ? hc_req_error(rc, "MPI_Pready_range") : MPI_SUCCESS;
}

int PMPI_Pready_list(int length, const int array_of_partitions[], MPI_Request request)
{
	HC_GUARD("MPI_Pready_list");
	if (length < 0) return hc_error(-1, MPI_ERR_ARG, "MPI_Pready_list");
	HC_CHECK_ARRAY(-1, array_of_partitions, length, "MPI_Pready_list");
	static const int none[1];
	int rc = hympi_go_pready((intptr_t)request, 0, -1, (int *)(length ? array_of_partitions : none), length);
	return rc ? hc_req_error(rc, "MPI_Pready_list") : MPI_SUCCESS;
}

int PMPI_Parrived(MPI_Request request, int partition, int *flag)
{
	HC_GUARD("MPI_Parrived");
	HC_CHECK_PTR(-1, flag, "MPI_Parrived");
	int rc = hympi_go_parrived((intptr_t)request, partition, flag);
	return rc ? hc_req_error(rc, "MPI_Parrived") : MPI_SUCCESS;
}

#define HC_ALIASES_partitioned
#include "aliases_gen.h"
