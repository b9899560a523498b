/*
 * buffer.c — MPI 4.1's Bsend buffers beyond the process's one: a buffer
 * per communicator (MPI_Comm_attach_buffer ...), MPI_BUFFER_AUTOMATIC
 * (hympi then gives each buffered message memory of its own), and the
 * flushes, which wait for the messages buffered so far to leave without
 * detaching. The session forms are in session.c, the process's attach and
 * detach in p2p.c; all of them share the engine's code (mpi/bsend.go).
 * Session errors go through the session's handler (session.c).
 *
 * A flush waits only for the messages buffered before it: MPI_*_iflush
 * returns a request that completes when they have left, so a process
 * that flushes a message to itself can still post the receive.
 */
#include "argcheck.h"
#include "_cgo_export.h"
#include "golane.h"

HC_HIDDEN int hc_session_idx(MPI_Session s);
HC_HIDDEN int hc_session_raise(int si, int code, const char *fn);

/* hc_buf_attach attaches to communicator ci, session si or (both -1) the
 * process, once HC_CHECK_BSEND_BUF has passed; it returns the engine's
 * code. Shared with p2p.c. */
int hc_buf_attach(int ci, int si, void *buffer, int64_t size)
{
	int automatic = buffer == MPI_BUFFER_AUTOMATIC;
	return hympi_go_bufx_attach(ci, si, buffer, automatic ? 0 : size, automatic);
}

/* hc_buf_detach returns the engine's code; *size is the byte count. */
int hc_buf_detach(int ci, int si, void *buffer_addr, int64_t *size)
{
	void *b;
	int automatic;
	int rc = hympi_go_bufx_detach(ci, si, &b, size, &automatic);
	if (rc) return rc;
	*(void **)buffer_addr = automatic ? MPI_BUFFER_AUTOMATIC : b;
	return MPI_SUCCESS;
}

/* hc_buf_flush waits for the flush request of ci, si or the process. */
HC_HIDDEN int hc_buf_flush(int ci, int si)
{
	MPI_Request r;
	int rc = hympi_go_bufx_iflush(ci, si, (intptr_t *)&r);
	return rc ? rc : PMPI_Wait(&r, MPI_STATUS_IGNORE);
}

#define COMM(ci, comm, fn)                                                   \
	HC_GUARD(fn);                                                        \
	int ci = hc_comm_index(comm);                                        \
	if (ci < 0) return hc_error(-1, MPI_ERR_COMM, fn)

int PMPI_Comm_attach_buffer(MPI_Comm comm, void *buffer, int size)
{
	COMM(ci, comm, "MPI_Comm_attach_buffer");
	HC_CHECK_BSEND_BUF(ci, buffer, size, "MPI_Comm_attach_buffer");
	int rc = hc_buf_attach(ci, -1, buffer, size);
	return rc ? hc_error(ci, rc, "MPI_Comm_attach_buffer") : MPI_SUCCESS;
}

int PMPI_Comm_attach_buffer_c(MPI_Comm comm, void *buffer, MPI_Count size)
{
	COMM(ci, comm, "MPI_Comm_attach_buffer_c");
	HC_CHECK_BSEND_BUF(ci, buffer, size, "MPI_Comm_attach_buffer_c");
	int rc = hc_buf_attach(ci, -1, buffer, size);
	return rc ? hc_error(ci, rc, "MPI_Comm_attach_buffer_c") : MPI_SUCCESS;
}

int PMPI_Comm_detach_buffer(MPI_Comm comm, void *buffer_addr, int *size)
{
	const char *fn = "MPI_Comm_detach_buffer";
	COMM(ci, comm, fn);
	HC_CHECK_PTR(ci, buffer_addr, fn);
	HC_CHECK_PTR(ci, size, fn);
	int64_t n;
	int rc = hc_buf_detach(ci, -1, buffer_addr, &n);
	if (rc) return hc_error(ci, rc, fn);
	*size = (int)n;
	return MPI_SUCCESS;
}

int PMPI_Comm_detach_buffer_c(MPI_Comm comm, void *buffer_addr, MPI_Count *size)
{
	const char *fn = "MPI_Comm_detach_buffer_c";
	COMM(ci, comm, fn);
	HC_CHECK_PTR(ci, buffer_addr, fn);
	HC_CHECK_PTR(ci, size, fn);
	int64_t n;
	int rc = hc_buf_detach(ci, -1, buffer_addr, &n);
	if (rc) return hc_error(ci, rc, fn);
	*size = n;
	return MPI_SUCCESS;
}

int PMPI_Comm_flush_buffer(MPI_Comm comm)
{
	COMM(ci, comm, "MPI_Comm_flush_buffer");
	int rc = hc_buf_flush(ci, -1);
	return rc ? hc_error(ci, rc, "MPI_Comm_flush_buffer") : MPI_SUCCESS;
}

int PMPI_Comm_iflush_buffer(MPI_Comm comm, MPI_Request *request)
{
	COMM(ci, comm, "MPI_Comm_iflush_buffer");
	HC_CHECK_PTR(ci, request, "MPI_Comm_iflush_buffer");
	int rc = hympi_go_bufx_iflush(ci, -1, (intptr_t *)request);
	return rc ? hc_error(ci, rc, "MPI_Comm_iflush_buffer") : MPI_SUCCESS;
}

int PMPI_Buffer_flush(void)
{
	HC_GUARD("MPI_Buffer_flush");
	int rc = hc_buf_flush(-1, -1);
	return rc ? hc_error(-1, rc, "MPI_Buffer_flush") : MPI_SUCCESS;
}

int PMPI_Buffer_iflush(MPI_Request *request)
{
	HC_GUARD("MPI_Buffer_iflush");
	HC_CHECK_PTR(-1, request, "MPI_Buffer_iflush");
	int rc = hympi_go_bufx_iflush(-1, -1, (intptr_t *)request);
	return rc ? hc_error(-1, rc, "MPI_Buffer_iflush") : MPI_SUCCESS;
}

#define SESSION(si, s, fn)                                                   \
	HC_GUARD(fn);                                                        \
	int si = hc_session_idx(s);                                          \
	if (si < 0) return hc_session_raise(-1, MPI_ERR_SESSION, fn)

int PMPI_Session_attach_buffer(MPI_Session session, void *buffer, int size)
{
	const char *fn = "MPI_Session_attach_buffer";
	SESSION(si, session, fn);
	if (buffer != MPI_BUFFER_AUTOMATIC && (size < 0 || ((uintptr_t)buffer < 4096 && size > 0)))
		return hc_session_raise(si, size < 0 ? MPI_ERR_COUNT : MPI_ERR_BUFFER, fn);
	int rc = hc_buf_attach(-1, si, buffer, size);
	return rc ? hc_session_raise(si, rc, fn) : MPI_SUCCESS;
}

int PMPI_Session_attach_buffer_c(MPI_Session session, void *buffer, MPI_Count size)
{
	const char *fn = "MPI_Session_attach_buffer_c";
	SESSION(si, session, fn);
	if (buffer != MPI_BUFFER_AUTOMATIC && (size < 0 || ((uintptr_t)buffer < 4096 && size > 0)))
		return hc_session_raise(si, size < 0 ? MPI_ERR_COUNT : MPI_ERR_BUFFER, fn);
	int rc = hc_buf_attach(-1, si, buffer, size);
	return rc ? hc_session_raise(si, rc, fn) : MPI_SUCCESS;
}

int PMPI_Session_detach_buffer(MPI_Session session, void *buffer_addr, int *size)
{
	const char *fn = "MPI_Session_detach_buffer";
	SESSION(si, session, fn);
	if ((uintptr_t)buffer_addr < 4096 || (uintptr_t)size < 4096) return hc_session_raise(si, MPI_ERR_ARG, fn);
	int64_t n;
	int rc = hc_buf_detach(-1, si, buffer_addr, &n);
	if (rc) return hc_session_raise(si, rc, fn);
	*size = (int)n;
	return MPI_SUCCESS;
}

int PMPI_Session_detach_buffer_c(MPI_Session session, void *buffer_addr, MPI_Count *size)
{
	const char *fn = "MPI_Session_detach_buffer_c";
	SESSION(si, session, fn);
	if ((uintptr_t)buffer_addr < 4096 || (uintptr_t)size < 4096) return hc_session_raise(si, MPI_ERR_ARG, fn);
	int64_t n;
	int rc = hc_buf_detach(-1, si, buffer_addr, &n);
	if (rc) return hc_session_raise(si, rc, fn);
	*size = n;
	return MPI_SUCCESS;
}

int PMPI_Session_flush_buffer(MPI_Session session)
{
	SESSION(si, session, "MPI_Session_flush_buffer");
	int rc = hc_buf_flush(-1, si);
	return rc ? hc_session_raise(si, rc, "MPI_Session_flush_buffer") : MPI_SUCCESS;
}

int PMPI_Session_iflush_buffer(MPI_Session session, MPI_Request *request)
{
	const char *fn = "MPI_Session_iflush_buffer";
	SESSION(si, session, fn);
	if ((uintptr_t)request < 4096) return hc_session_raise(si, MPI_ERR_ARG, fn);
	int rc = hympi_go_bufx_iflush(-1, si, (intptr_t *)request);
	return rc ? hc_session_raise(si, rc, fn) : MPI_SUCCESS;
}

#define HC_ALIASES_buffer
#include "aliases_gen.h"
