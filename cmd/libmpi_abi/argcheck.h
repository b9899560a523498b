/*
 * argcheck.h — one-line argument checks for the C entry points.
 *
 * A C program that passes NULL where the library writes, or a buffer that
 * cannot be read, must get an error through the communicator's handler
 * (MPI_ERRORS_RETURN returns it) instead of a SIGSEGV or a Go panic. The
 * classes follow MPICH: MPI_ERR_ARG for a NULL output, request, flag or
 * array pointer, MPI_ERR_BUFFER for a data buffer that cannot be the one
 * meant (NULL with data to move, MPI_IN_PLACE where it is not allowed).
 *
 * A pointer into the first page is refused like NULL: nothing is ever
 * mapped there, and it catches MPI_IN_PLACE (1) and MPI_BOTTOM passed for
 * an output. Each check is a predicted-not-taken comparison; the reporting
 * is out of line. ci is the communicator index whose handler reports (-1:
 * world's).
 */
#ifndef HYMPI_ARGCHECK_H
#define HYMPI_ARGCHECK_H

#include "cabi.h"

HC_HIDDEN int64_t hc_type_msg_size(MPI_Datatype dt);
HC_HIDDEN int hc_buf_bad(const void *buf, int64_t count, MPI_Datatype dt);
/* hc_info_ok: MPI_INFO_NULL, MPI_INFO_ENV or a live info (info.c). */
HC_HIDDEN int hc_info_ok(MPI_Info info);
/* hc_errh_valid: a predefined or live error handler (core.c). */
HC_HIDDEN int hc_errh_valid(MPI_Errhandler eh);

/* An info argument where MPI_INFO_NULL is allowed. */
#define HC_CHECK_INFO(ci, info, fn)                                                             \
	do {                                                                                    \
		if (__builtin_expect(!hc_info_ok(info), 0))                                     \
			return hc_arg_fail(ci, MPI_ERR_INFO, fn, "invalid info");               \
	} while (0)

__attribute__((cold, noinline, unused)) static int hc_arg_fail(int ci, int code, const char *fn, const char *msg)
{
	hc_set_errmsg(msg, (int)__builtin_strlen(msg));
	return hc_error(ci, code, fn);
}

/* A pointer the library must write through or read from. */
#define HC_CHECK_PTR(ci, p, fn)                                                                 \
	do {                                                                                    \
		if (__builtin_expect((uintptr_t)(p) < 4096, 0))                                 \
			return hc_arg_fail(ci, MPI_ERR_ARG, fn, "argument " #p " is NULL or in page zero"); \
	} while (0)

/* An array of n entries: NULL is fine only when it holds none. */
#define HC_CHECK_ARRAY(ci, p, n, fn)                                                            \
	do {                                                                                    \
		if (__builtin_expect((uintptr_t)(p) < 4096 && (n) > 0, 0))                      \
			return hc_arg_fail(ci, MPI_ERR_ARG, fn, "array " #p " is NULL");        \
	} while (0)

/* A data buffer of count elements of dt (see hc_buf_bad for NULL). */
#define HC_CHECK_BUF(ci, buf, count, dt, fn)                                                    \
	do {                                                                                    \
		if (__builtin_expect((uintptr_t)(buf) < 4096, 0) && hc_buf_bad(buf, count, dt)) \
			return hc_arg_fail(ci, MPI_ERR_BUFFER, fn,                              \
					   "buffer " #buf " is NULL or MPI_IN_PLACE with count > 0"); \
	} while (0)

/* A buffer that may not be MPI_IN_PLACE whatever the count. */
#define HC_CHECK_NOT_IN_PLACE(ci, buf, fn)                                                      \
	do {                                                                                    \
		if (__builtin_expect((buf) == MPI_IN_PLACE, 0))                                 \
			return hc_arg_fail(ci, MPI_ERR_BUFFER, fn, #buf " cannot be MPI_IN_PLACE"); \
	} while (0)

/* A receive's tag: MPI_ANY_TAG or not negative. Checked here because a
 * receive from MPI_PROC_NULL never reaches the engine's check. */
#define HC_CHECK_RECV_TAG(ci, tag, fn)                                                          \
	do {                                                                                    \
		if (__builtin_expect((tag) < 0 && (tag) != MPI_ANY_TAG, 0))                     \
			return hc_arg_fail(ci, MPI_ERR_TAG, fn, "negative tag");                \
	} while (0)

/* A count. */
#define HC_CHECK_COUNT(ci, n, fn)                                                               \
	do {                                                                                    \
		if (__builtin_expect((n) < 0, 0))                                               \
			return hc_arg_fail(ci, MPI_ERR_COUNT, fn, "negative count " #n);        \
	} while (0)

/* A Bsend buffer and its size: MPI_BUFFER_AUTOMATIC takes no size. */
#define HC_CHECK_BSEND_BUF(ci, buf, size, fn)                                                   \
	do {                                                                                    \
		if ((buf) != MPI_BUFFER_AUTOMATIC) {                                            \
			HC_CHECK_COUNT(ci, size, fn);                                           \
			if ((uintptr_t)(buf) < 4096 && (size) > 0)                              \
				return hc_arg_fail(ci, MPI_ERR_BUFFER, fn, "buffer is NULL");   \
		}                                                                               \
	} while (0)

#endif
