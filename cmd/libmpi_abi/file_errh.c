/*
 * file_errh.c — the error-handler half of MPI-IO, without MPI-IO. No file
 * can be opened (MPI_File_open is unsupported), but MPI_FILE_NULL still
 * carries the default error handler of file operations, and programs and
 * bindings set and query it at start-up whether or not they do I/O. So
 * MPI_File_create_errhandler, MPI_File_set/get_errhandler and
 * MPI_File_call_errhandler work on MPI_FILE_NULL; any other file handle
 * names no file (MPI_ERR_FILE). Errors go through MPI_FILE_NULL's handler,
 * as the standard says for errors not tied to an open file; it starts as
 * MPI_ERRORS_RETURN.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "argcheck.h"

static pthread_mutex_t hc_feh_lock = PTHREAD_MUTEX_INITIALIZER;
/* File error handlers made here, with their functions; hc_feh_lock. */
static struct {
	MPI_Errhandler eh;
	MPI_File_errhandler_function *fn;
} *hc_feh;
static int hc_nfeh;
static MPI_Errhandler hc_file_default = MPI_ERRORS_RETURN; /* hc_feh_lock */

static MPI_File_errhandler_function *hc_feh_fn(MPI_Errhandler eh)
{
	MPI_File_errhandler_function *fn = NULL;
	pthread_mutex_lock(&hc_feh_lock);
	for (int i = 0; i < hc_nfeh; i++)
		if (hc_feh[i].eh == eh) fn = hc_feh[i].fn;
	pthread_mutex_unlock(&hc_feh_lock);
	return fn;
}

/* hc_file_error raises code through MPI_FILE_NULL's handler. */
static int hc_file_error(int code, const char *fn)
{
	pthread_mutex_lock(&hc_feh_lock);
	MPI_Errhandler eh = hc_file_default;
	pthread_mutex_unlock(&hc_feh_lock);
	if (eh == MPI_ERRORS_RETURN) return code;
	MPI_File_errhandler_function *f = hc_feh_fn(eh);
	if (f) {
		MPI_File fh = MPI_FILE_NULL;
		int c = code;
		f(&fh, &c);
		return code;
	}
	fprintf(stderr, "hympi: %s: error %d on MPI_FILE_NULL\n", fn, code);
	fflush(NULL);
	PMPI_Abort(MPI_COMM_WORLD, code & 0xff ? code & 0xff : 1);
	return code;
}

int PMPI_File_create_errhandler(MPI_File_errhandler_function *file_errhandler_fn, MPI_Errhandler *errhandler)
{
	const char *fn = "MPI_File_create_errhandler";
	HC_GUARD(fn);
	if ((uintptr_t)file_errhandler_fn < 4096 || (uintptr_t)errhandler < 4096)
		return hc_file_error(MPI_ERR_ARG, fn);
	/* The handle comes from the communicator handlers' table, so
	 * MPI_Errhandler_free and the handle checks know it. */
	int rc = PMPI_Comm_create_errhandler((MPI_Comm_errhandler_function *)(void *)file_errhandler_fn, errhandler);
	if (rc) return rc;
	pthread_mutex_lock(&hc_feh_lock);
	/* A freed handler's handle comes back: its entry is this one now. */
	for (int i = 0; i < hc_nfeh; i++) {
		if (hc_feh[i].eh == *errhandler) {
			hc_feh[i].fn = file_errhandler_fn;
			pthread_mutex_unlock(&hc_feh_lock);
			return MPI_SUCCESS;
		}
	}
	void *p = realloc(hc_feh, (hc_nfeh + 1) * sizeof *hc_feh);
	if (p) {
		hc_feh = p;
		hc_feh[hc_nfeh].eh = *errhandler;
		hc_feh[hc_nfeh].fn = file_errhandler_fn;
		hc_nfeh++;
	}
	pthread_mutex_unlock(&hc_feh_lock);
	return p ? MPI_SUCCESS : hc_file_error(MPI_ERR_NO_MEM, fn);
}

int PMPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler)
{
	const char *fn = "MPI_File_set_errhandler";
	HC_GUARD(fn);
	if (file != MPI_FILE_NULL) return hc_file_error(MPI_ERR_FILE, fn);
	if (errhandler != MPI_ERRORS_ARE_FATAL && errhandler != MPI_ERRORS_ABORT && errhandler != MPI_ERRORS_RETURN &&
	    !hc_feh_fn(errhandler))
		return hc_file_error(MPI_ERR_ARG, fn);
	pthread_mutex_lock(&hc_feh_lock);
	hc_file_default = errhandler;
	pthread_mutex_unlock(&hc_feh_lock);
	return MPI_SUCCESS;
}

int PMPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler)
{
	const char *fn = "MPI_File_get_errhandler";
	HC_GUARD(fn);
	if (file != MPI_FILE_NULL) return hc_file_error(MPI_ERR_FILE, fn);
	if ((uintptr_t)errhandler < 4096) return hc_file_error(MPI_ERR_ARG, fn);
	pthread_mutex_lock(&hc_feh_lock);
	*errhandler = hc_file_default;
	pthread_mutex_unlock(&hc_feh_lock);
	return MPI_SUCCESS;
}

int PMPI_File_call_errhandler(MPI_File fh, int errorcode)
{
	const char *fn = "MPI_File_call_errhandler";
	HC_GUARD(fn);
	if (fh != MPI_FILE_NULL) return hc_file_error(MPI_ERR_FILE, fn);
	hc_file_error(errorcode, fn);
	return MPI_SUCCESS;
}

#define HC_ALIASES_file_errh
#include "aliases_gen.h"
