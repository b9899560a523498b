/*
 * grequest.c — generalized requests (MPI_Grequest_start/complete). The
 * request is an engine join request that MPI_Grequest_complete releases;
 * the Go side calls the application's query, free and cancel callbacks
 * through the helpers below at the points the standard names: query and
 * free when a wait or test completes the request (or MPI_Request_free
 * after completion), query alone for MPI_Request_get_status, cancel from
 * MPI_Cancel with whether the request has completed.
 */
#include "cabi.h"
#include "argcheck.h"
#include "_cgo_export.h"
#include "golane.h"

HC_HIDDEN int hc_greq_query(uintptr_t fn, void *extra, MPI_Status *st)
{
	MPI_Status local;
	if (!st) st = &local;
	hc_status_set(st, MPI_UNDEFINED, MPI_UNDEFINED, 0, 0);
	if (!fn) return MPI_SUCCESS;
	hc_in_callback++;
	int rc = ((MPI_Grequest_query_function *)fn)(extra, st);
	hc_in_callback--;
	return rc;
}

HC_HIDDEN int hc_greq_free(uintptr_t fn, void *extra)
{
	if (!fn) return MPI_SUCCESS;
	hc_in_callback++;
	int rc = ((MPI_Grequest_free_function *)fn)(extra);
	hc_in_callback--;
	return rc;
}

HC_HIDDEN int hc_greq_cancel(uintptr_t fn, void *extra, int complete)
{
	if (!fn) return MPI_SUCCESS;
	hc_in_callback++;
	int rc = ((MPI_Grequest_cancel_function *)fn)(extra, complete);
	hc_in_callback--;
	return rc;
}

int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
			MPI_Grequest_cancel_function *cancel_fn, void *extra_state, MPI_Request *request)
{
	const char *fn = "MPI_Grequest_start";
	HC_GUARD(fn);
	HC_CHECK_PTR(-1, request, fn);
	int rc = hympi_go_grequest_start((uintptr_t)query_fn, (uintptr_t)free_fn, (uintptr_t)cancel_fn, extra_state,
					 (intptr_t *)request);
	return rc ? hc_error(-1, rc, fn) : MPI_SUCCESS;
}

int PMPI_Grequest_complete(MPI_Request request)
{
	const char *fn = "MPI_Grequest_complete";
	HC_GUARD(fn);
	int rc = hympi_go_grequest_complete((intptr_t)request);
	return rc ? hc_error(-1, rc, fn) : MPI_SUCCESS;
}

#define HC_ALIASES_grequest
#include "aliases_gen.h"
