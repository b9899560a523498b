/*
 * session.c — MPI 4 sessions. A session is a handle onto the one engine
 * the process has (session.go counts its users, so sessions work without
 * MPI_Init and beside it), with its own error handler and info. Its
 * process sets are the two the standard requires, mpi://WORLD and
 * mpi://SELF; MPI_Group_from_session_pset gives their groups, from which
 * MPI_Comm_create_from_group (comm_ext.c) makes communicators.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "argcheck.h"
#include "_cgo_export.h"
#include "golane.h"

HC_HIDDEN void hc_comm_publish(int i, int rank, int size, MPI_Errhandler eh);

typedef struct {
	int used;
	MPI_Errhandler eh;
	MPI_Info info; /* hints given at init, 0 for none */
} hc_session;

static hc_session *hc_sessions;
static int hc_nsessions;
static pthread_mutex_t hc_session_lock = PTHREAD_MUTEX_INITIALIZER;

/* Error handlers made by MPI_Session_create_errhandler, and their
 * functions: the handler table itself (core.c) holds communicator ones. */
static struct {
	MPI_Errhandler eh;
	MPI_Session_errhandler_function *fn;
} *hc_seh;
static int hc_nseh;

static const char *const hc_psets[] = {"mpi://WORLD", "mpi://SELF"};
enum { HC_NPSETS = 2 };

static int hc_session_index(MPI_Session s)
{
	int i = hc_index(s, HK_SESSION);
	pthread_mutex_lock(&hc_session_lock);
	int ok = i >= 0 && i < hc_nsessions && hc_sessions[i].used;
	pthread_mutex_unlock(&hc_session_lock);
	return ok ? i : -1;
}

int hc_sessions_live(void)
{
	int n = 0;
	pthread_mutex_lock(&hc_session_lock);
	for (int i = 0; i < hc_nsessions; i++) n += hc_sessions[i].used != 0;
	pthread_mutex_unlock(&hc_session_lock);
	return n;
}

static MPI_Session_errhandler_function *hc_seh_fn(MPI_Errhandler eh)
{
	MPI_Session_errhandler_function *fn = NULL;
	pthread_mutex_lock(&hc_session_lock);
	for (int i = 0; i < hc_nseh; i++)
		if (hc_seh[i].eh == eh) fn = hc_seh[i].fn;
	pthread_mutex_unlock(&hc_session_lock);
	return fn;
}

/* hc_session_raise_eh raises code through eh, a session error handler. */
static int hc_session_raise_eh(MPI_Errhandler eh, int code, const char *fn)
{
	if (eh == MPI_ERRORS_RETURN) return code;
	MPI_Session_errhandler_function *f = hc_seh_fn(eh);
	if (f) {
		MPI_Session s = MPI_SESSION_NULL;
		int c = code;
		f(&s, &c);
		return code;
	}
	fprintf(stderr, "hympi: %s: error %d on a session\n", fn, code);
	fflush(NULL);
	PMPI_Abort(MPI_COMM_WORLD, code & 0xff ? code & 0xff : 1);
	return code;
}

/* hc_session_error raises code on session si through its error handler.
 * An error tied to no valid session (si < 0: a bad handle) has no session
 * handler to go to; as for any error outside an object, MPI_COMM_SELF's
 * handler takes it (MPI 4.1 §9.3), so a program that set
 * MPI_ERRORS_RETURN there gets the code back instead of an abort. */
static int hc_session_error(int si, int code, const char *fn)
{
	if (si < 0) return hc_error(1, code, fn);
	MPI_Errhandler eh = hc_sessions[si].eh;
	if (eh == MPI_ERRORS_RETURN) return code;
	MPI_Session_errhandler_function *f = hc_seh_fn(eh);
	if (f) {
		MPI_Session s = (MPI_Session)hc_make(HK_SESSION, si);
		int c = code;
		f(&s, &c);
		return code;
	}
	return hc_session_raise_eh(eh, code, fn);
}

/* A pointer the library writes through: NULL or in page zero is refused. */
#define BADP(p) ((uintptr_t)(p) < 4096)

int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session)
{
	const char *fn = "MPI_Session_init";
	HC_GUARD(fn);
	int eh_ok = errhandler == MPI_ERRORS_ARE_FATAL || errhandler == MPI_ERRORS_ABORT ||
		    errhandler == MPI_ERRORS_RETURN || hc_seh_fn(errhandler);
	if (!eh_ok) return hc_session_error(-1, MPI_ERR_ARG, fn);
	/* The errors of the call itself go to the handler it was given. */
	if (BADP(session)) return hc_session_raise_eh(errhandler, MPI_ERR_ARG, fn);
	MPI_Info copy = 0;
	if (!hc_info_ok(info)) return hc_session_raise_eh(errhandler, MPI_ERR_INFO, fn);
	if (info != MPI_INFO_NULL && PMPI_Info_dup(info, &copy) != MPI_SUCCESS)
		return hc_session_raise_eh(errhandler, MPI_ERR_INFO, fn);
	hc_slack_restore();
	int rank, size;
	int rc = hympi_go_session_init(&rank, &size);
	if (rc) {
		if (copy) PMPI_Info_free(&copy);
		return hc_session_raise_eh(errhandler, rc, fn);
	}
	/* Without MPI_Init the predefined communicators' C halves are not
	 * there yet; the check and report helpers of programs still use
	 * MPI_COMM_WORLD's rank. */
	if (!hc_comms[0].used) {
		hc_comm_publish(0, rank, size, MPI_ERRORS_ARE_FATAL);
		strcpy(hc_comms[0].name, "MPI_COMM_WORLD");
		hc_comm_publish(1, 0, 1, MPI_ERRORS_ARE_FATAL);
		strcpy(hc_comms[1].name, "MPI_COMM_SELF");
	}
	pthread_mutex_lock(&hc_session_lock);
	int i = 0;
	while (i < hc_nsessions && hc_sessions[i].used) i++;
	if (i == hc_nsessions) {
		int n = hc_nsessions ? 2 * hc_nsessions : 8;
		hc_session *p = realloc(hc_sessions, n * sizeof *p);
		if (!p) {
			pthread_mutex_unlock(&hc_session_lock);
			hympi_go_session_finalize();
			if (copy) PMPI_Info_free(&copy);
			return hc_session_raise_eh(errhandler, MPI_ERR_NO_MEM, fn);
		}
		memset(p + hc_nsessions, 0, (n - hc_nsessions) * sizeof *p);
		hc_sessions = p, hc_nsessions = n;
	}
	hc_sessions[i].used = 1;
	hc_sessions[i].eh = errhandler;
	hc_sessions[i].info = copy;
	pthread_mutex_unlock(&hc_session_lock);
	*session = (MPI_Session)hc_make(HK_SESSION, i);
	return MPI_SUCCESS;
}

int PMPI_Session_finalize(MPI_Session *session)
{
	const char *fn = "MPI_Session_finalize";
	HC_GUARD(fn);
	if (BADP(session)) return hc_session_error(-1, MPI_ERR_ARG, fn);
	int si = hc_session_index(*session);
	if (si < 0) return hc_session_error(-1, MPI_ERR_SESSION, fn);
	pthread_mutex_lock(&hc_session_lock);
	MPI_Info info = hc_sessions[si].info;
	hympi_go_bufx_session_end(si);
	memset(&hc_sessions[si], 0, sizeof hc_sessions[si]);
	pthread_mutex_unlock(&hc_session_lock);
	if (info) PMPI_Info_free(&info);
	*session = MPI_SESSION_NULL;
	int rc = hympi_go_session_finalize();
	return rc ? hc_session_error(-1, rc, fn) : MPI_SUCCESS;
}

/* An engine only sessions used is finalized at exit (session.go); a
 * forked child must not touch it. */
static void hc_session_at_exit(void)
{
	if (!hc_forked) hympi_go_session_exit();
}

HC_HIDDEN void hc_session_exit_hook(void)
{
	static int registered;
	if (!__atomic_exchange_n(&registered, 1, __ATOMIC_ACQ_REL)) atexit(hc_session_at_exit);
}

#define SESSION(si, s, fn)                                                     \
	int si = hc_session_index(s);                                          \
	if (si < 0) return hc_session_error(-1, MPI_ERR_SESSION, fn)

int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int *npset_names)
{
	SESSION(si, session, "MPI_Session_get_num_psets");
	if (!hc_info_ok(info)) return hc_session_error(si, MPI_ERR_INFO, "MPI_Session_get_num_psets");
	if (BADP(npset_names)) return hc_session_error(si, MPI_ERR_ARG, "MPI_Session_get_num_psets");
	*npset_names = HC_NPSETS;
	return MPI_SUCCESS;
}

/* As in MPICH: a zero *pset_len asks for the length (with the NUL); else
 * up to *pset_len - 1 characters are copied and NUL-terminated. */
int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int *pset_len, char *pset_name)
{
	const char *fn = "MPI_Session_get_nth_pset";
	SESSION(si, session, fn);
	if (!hc_info_ok(info)) return hc_session_error(si, MPI_ERR_INFO, fn);
	if (n < 0 || n >= HC_NPSETS || BADP(pset_len) || *pset_len < 0) return hc_session_error(si, MPI_ERR_ARG, fn);
	int len = (int)strlen(hc_psets[n]);
	if (*pset_len == 0) {
		*pset_len = len + 1;
		return MPI_SUCCESS;
	}
	if (BADP(pset_name)) return hc_session_error(si, MPI_ERR_ARG, fn);
	int k = len < *pset_len - 1 ? len : *pset_len - 1;
	memcpy(pset_name, hc_psets[n], k);
	pset_name[k] = 0;
	return MPI_SUCCESS;
}

/* Process set names are matched without regard to case: programs written
 * for MPICH say mpi://world. */
static int hc_pset_of(const char *name)
{
	for (int i = 0; name && i < HC_NPSETS; i++)
		if (strcasecmp(name, hc_psets[i]) == 0) return i;
	return -1;
}

int PMPI_Session_get_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info)
{
	const char *fn = "MPI_Session_get_pset_info";
	SESSION(si, session, fn);
	if (BADP(pset_name) || BADP(info)) return hc_session_error(si, MPI_ERR_ARG, fn);
	int p = hc_pset_of(pset_name);
	if (p < 0) return hc_session_error(si, MPI_ERR_ARG, fn);
	char v[16];
	snprintf(v, sizeof v, "%d", p == 0 ? hc_comms[0].size : 1);
	int rc = PMPI_Info_create(info);
	if (!rc) rc = PMPI_Info_set(*info, "mpi_size", v);
	return rc ? hc_session_error(si, rc, fn) : MPI_SUCCESS;
}

int PMPI_Session_get_info(MPI_Session session, MPI_Info *info_used)
{
	const char *fn = "MPI_Session_get_info";
	SESSION(si, session, fn);
	if (BADP(info_used)) return hc_session_error(si, MPI_ERR_ARG, fn);
	int rc = hc_sessions[si].info ? PMPI_Info_dup(hc_sessions[si].info, info_used) : PMPI_Info_create(info_used);
	/* hympi provides every thread level. */
	if (!rc) rc = PMPI_Info_set(*info_used, "thread_level", "MPI_THREAD_MULTIPLE");
	return rc ? hc_session_error(si, rc, fn) : MPI_SUCCESS;
}

int PMPI_Group_from_session_pset(MPI_Session session, const char *pset_name, MPI_Group *newgroup)
{
	const char *fn = "MPI_Group_from_session_pset";
	HC_GUARD(fn);
	SESSION(si, session, fn);
	if (BADP(pset_name) || BADP(newgroup)) return hc_session_error(si, MPI_ERR_ARG, fn);
	int p = hc_pset_of(pset_name);
	if (p < 0) return hc_session_error(si, MPI_ERR_ARG, fn);
	int rc = hympi_go_comm_group(p, (intptr_t *)newgroup);
	return rc ? hc_session_error(si, rc, fn) : MPI_SUCCESS;
}

/* ---- error handlers --------------------------------------------------- */

int PMPI_Session_create_errhandler(MPI_Session_errhandler_function *session_errhandler_fn, MPI_Errhandler *errhandler)
{
	const char *fn = "MPI_Session_create_errhandler";
	if (BADP(session_errhandler_fn) || BADP(errhandler)) return hc_error(-1, MPI_ERR_ARG, fn);
	int rc = PMPI_Comm_create_errhandler((MPI_Comm_errhandler_function *)(void *)session_errhandler_fn, errhandler);
	if (rc) return rc;
	pthread_mutex_lock(&hc_session_lock);
	void *p = realloc(hc_seh, (hc_nseh + 1) * sizeof *hc_seh);
	if (p) {
		hc_seh = p;
		hc_seh[hc_nseh].eh = *errhandler;
		hc_seh[hc_nseh].fn = session_errhandler_fn;
		hc_nseh++;
	}
	pthread_mutex_unlock(&hc_session_lock);
	return p ? MPI_SUCCESS : hc_error(-1, MPI_ERR_NO_MEM, fn);
}

int PMPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler)
{
	const char *fn = "MPI_Session_set_errhandler";
	SESSION(si, session, fn);
	if (errhandler != MPI_ERRORS_ARE_FATAL && errhandler != MPI_ERRORS_ABORT && errhandler != MPI_ERRORS_RETURN &&
	    !hc_seh_fn(errhandler))
		return hc_session_error(si, MPI_ERR_ARG, fn);
	hc_sessions[si].eh = errhandler;
	return MPI_SUCCESS;
}

int PMPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler *errhandler)
{
	SESSION(si, session, "MPI_Session_get_errhandler");
	if (BADP(errhandler)) return hc_session_error(si, MPI_ERR_ARG, "MPI_Session_get_errhandler");
	*errhandler = hc_sessions[si].eh;
	return MPI_SUCCESS;
}

int PMPI_Session_call_errhandler(MPI_Session session, int errorcode)
{
	SESSION(si, session, "MPI_Session_call_errhandler");
	hc_session_error(si, errorcode, "MPI_Session_call_errhandler");
	return MPI_SUCCESS;
}

/* For buffer.c's session forms. */
HC_HIDDEN int hc_session_idx(MPI_Session s) { return hc_session_index(s); }
HC_HIDDEN int hc_session_raise(int si, int code, const char *fn) { return hc_session_error(si, code, fn); }

#define HC_ALIASES_session
#include "aliases_gen.h"
