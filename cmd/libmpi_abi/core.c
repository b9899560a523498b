/*
 * core.c — state, the fork guard, errors and error handlers, the
 * environment (init, finalize, time, versions), attributes and keyvals.
 * Everything here stays in C except MPI_Init/Finalize/Abort.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cabi.h"
#include "argcheck.h"
#include "nbc.h"
#include "fastlane.h"
#include "collane.h"
#include "htab.h"
#include "_cgo_export.h"
#include "golane.h"

hc_comm *hc_comms;
volatile int hc_forked;
int hc_initialized, hc_finalized;
int hc_debug;

static pthread_mutex_t hc_lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t hc_pid;
static pthread_t hc_main_thread;
static int hc_thread_level;
static int hc_world_rank = -1;

static __thread char hc_errmsg[256];

void hc_set_errmsg(const char *msg, int n)
{
	if (n >= (int)sizeof hc_errmsg) n = sizeof hc_errmsg - 1;
	memcpy(hc_errmsg, msg, n);
	hc_errmsg[n] = 0;
}

__attribute__((constructor)) static void hc_load(void)
{
	/* Address space for every communicator index; the kernel backs pages
	 * only once they are written. */
	hc_comms = mmap(NULL, (size_t)HC_MAX_COMMS * sizeof *hc_comms, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (hc_comms == MAP_FAILED) {
		fprintf(stderr, "hympi: cannot reserve the communicator table\n");
		abort();
	}
	const char *d = getenv("HYMPI_CABI_DEBUG");
	hc_debug = d && *d && strcmp(d, "0") != 0;
}

/* ---- errors ---------------------------------------------------------- */

static const char *const hc_class_names[] = {
	[MPI_SUCCESS] = "success",
	[MPI_ERR_BUFFER] = "invalid buffer pointer",
	[MPI_ERR_COUNT] = "invalid count argument",
	[MPI_ERR_TYPE] = "invalid datatype",
	[MPI_ERR_TAG] = "invalid tag",
	[MPI_ERR_COMM] = "invalid communicator",
	[MPI_ERR_RANK] = "invalid rank",
	[MPI_ERR_REQUEST] = "invalid request",
	[MPI_ERR_ROOT] = "invalid root",
	[MPI_ERR_GROUP] = "invalid group",
	[MPI_ERR_OP] = "invalid reduction operation",
	[MPI_ERR_TOPOLOGY] = "invalid topology",
	[MPI_ERR_DIMS] = "invalid dimension argument",
	[MPI_ERR_ARG] = "invalid argument",
	[MPI_ERR_UNKNOWN] = "unknown error",
	[MPI_ERR_TRUNCATE] = "message truncated",
	[MPI_ERR_OTHER] = "other error",
	[MPI_ERR_INTERN] = "internal error",
	[MPI_ERR_PENDING] = "pending request",
	[MPI_ERR_IN_STATUS] = "error code is in status",
	[MPI_ERR_ACCESS] = "permission denied",
	[MPI_ERR_AMODE] = "invalid file access mode",
	[MPI_ERR_ASSERT] = "invalid assert argument",
	[MPI_ERR_BAD_FILE] = "invalid file name",
	[MPI_ERR_BASE] = "invalid base address",
	[MPI_ERR_CONVERSION] = "data conversion error",
	[MPI_ERR_DISP] = "invalid displacement",
	[MPI_ERR_DUP_DATAREP] = "data representation already defined",
	[MPI_ERR_FILE_EXISTS] = "file exists",
	[MPI_ERR_FILE_IN_USE] = "file in use",
	[MPI_ERR_FILE] = "invalid file handle",
	[MPI_ERR_INFO_KEY] = "invalid info key",
	[MPI_ERR_INFO_NOKEY] = "info key not defined",
	[MPI_ERR_INFO_VALUE] = "invalid info value",
	[MPI_ERR_INFO] = "invalid info object",
	[MPI_ERR_IO] = "I/O error",
	[MPI_ERR_KEYVAL] = "invalid attribute key",
	[MPI_ERR_LOCKTYPE] = "invalid lock type",
	[MPI_ERR_NAME] = "name not published",
	[MPI_ERR_NO_MEM] = "out of memory",
	[MPI_ERR_NOT_SAME] = "arguments differ between processes",
	[MPI_ERR_NO_SPACE] = "no space left",
	[MPI_ERR_NO_SUCH_FILE] = "no such file",
	[MPI_ERR_PORT] = "invalid port name",
	[MPI_ERR_QUOTA] = "quota exceeded",
	[MPI_ERR_READ_ONLY] = "read-only file",
	[MPI_ERR_RMA_ATTACH] = "memory cannot be attached",
	[MPI_ERR_RMA_CONFLICT] = "conflicting window accesses",
	[MPI_ERR_RMA_RANGE] = "target memory out of window range",
	[MPI_ERR_RMA_SHARED] = "memory cannot be shared",
	[MPI_ERR_RMA_SYNC] = "wrong RMA synchronization",
	[MPI_ERR_SERVICE] = "invalid service name",
	[MPI_ERR_SIZE] = "invalid size",
	[MPI_ERR_SPAWN] = "spawn failed",
	[MPI_ERR_UNSUPPORTED_DATAREP] = "unsupported data representation",
	[MPI_ERR_UNSUPPORTED_OPERATION] = "operation not supported by hympi",
	[MPI_ERR_WIN] = "invalid window",
	[MPI_ERR_RMA_FLAVOR] = "wrong window flavor",
	[MPI_ERR_PROC_ABORTED] = "peer process aborted",
	[MPI_ERR_VALUE_TOO_LARGE] = "value too large for its output",
	[MPI_ERR_SESSION] = "invalid session",
	[MPI_ERR_ERRHANDLER] = "invalid error handler",
	[MPI_ERR_ABI] = "ABI mismatch",
};
#define HC_NCLASSES ((int)(sizeof hc_class_names / sizeof hc_class_names[0]))

/* Classes and codes added by the program (MPI_Add_error_*), numbered
 * from just above MPI_ERR_LASTCODE on, as the standard asks; a class is a
 * code whose class is itself. Removed ones keep their number unused. */
#define HC_FIRST_USER_CODE (MPI_ERR_LASTCODE + 1)
static struct hc_ucode {
	int used, cls;
	char *str;
} *hc_ucodes;
static int hc_nucodes, hc_capucodes;
static int hc_lastcode = MPI_ERR_LASTCODE;

/* hc_ucode finds a live user code (call with hc_lock held). */
static struct hc_ucode *hc_ucode(int code)
{
	int i = code - HC_FIRST_USER_CODE;
	return i >= 0 && i < hc_nucodes && hc_ucodes[i].used ? &hc_ucodes[i] : NULL;
}

static int hc_class_of(int code, int *cls)
{
	if (code >= 0 && code < HC_NCLASSES) {
		*cls = code;
		return 1;
	}
	pthread_mutex_lock(&hc_lock);
	struct hc_ucode *u = hc_ucode(code);
	if (u) *cls = u->cls;
	pthread_mutex_unlock(&hc_lock);
	return u != NULL;
}

static const char *hc_code_string(int code)
{
	if (code >= 0 && code < HC_NCLASSES && hc_class_names[code]) return hc_class_names[code];
	pthread_mutex_lock(&hc_lock);
	struct hc_ucode *u = hc_ucode(code);
	const char *s = u ? (u->str ? u->str : "") : NULL;
	pthread_mutex_unlock(&hc_lock);
	return s ? s : "unknown error code";
}

/* User error handlers: kind HK_ERRH, in a growable table. A handler
 * lives while its handle or any communicator holds it (refs). */
typedef struct {
	MPI_Comm_errhandler_function *fn;
	int refs; /* under hc_lock */
} hc_eh;

static hc_htab hc_ehs = HC_HTAB_INIT;

static hc_eh *hc_errh_get(MPI_Errhandler eh)
{
	int i = hc_index(eh, HK_ERRH);
	return i > 0 ? hc_htab_get(&hc_ehs, i) : NULL;
}

int hc_errh_valid(MPI_Errhandler eh)
{
	return eh == MPI_ERRORS_ARE_FATAL || eh == MPI_ERRORS_ABORT || eh == MPI_ERRORS_RETURN || hc_errh_get(eh);
}

HC_HIDDEN void hc_errh_ref(MPI_Errhandler eh)
{
	hc_eh *e = hc_errh_get(eh);
	if (!e) return;
	pthread_mutex_lock(&hc_lock);
	e->refs++;
	pthread_mutex_unlock(&hc_lock);
}

HC_HIDDEN void hc_errh_unref(MPI_Errhandler eh)
{
	hc_eh *e = hc_errh_get(eh);
	if (!e) return;
	pthread_mutex_lock(&hc_lock);
	int gone = --e->refs == 0;
	pthread_mutex_unlock(&hc_lock);
	if (gone) free(hc_htab_del(&hc_ehs, hc_index(eh, HK_ERRH)));
}

static MPI_Comm hc_comm_handle(int ci)
{
	if (ci == 0) return MPI_COMM_WORLD;
	if (ci == 1) return MPI_COMM_SELF;
	return (MPI_Comm)hc_make(HK_COMM, ci);
}

static void hc_fatal(const char *fn, int code, int forked)
{
	forked = forked || hc_forked; /* argument checks run before HC_GUARD: never enter Go in a child */
	const char *detail = hc_errmsg[0] ? hc_errmsg : NULL;
	if (forked)
		fprintf(stderr, "hympi: %s called in a child process (pid %d) forked after MPI_Init by rank %d: MPI cannot be used after fork()\n",
			fn, (int)getpid(), hc_world_rank);
	else
		fprintf(stderr, "hympi: rank %d: %s: %s%s%s%s\n", hc_world_rank, fn, hc_code_string(code),
			detail ? " (" : "", detail ? detail : "", detail ? ")" : "");
	fflush(NULL); /* the program's buffered output too: exit paths below skip stdio */
	int cls = MPI_ERR_OTHER;
	hc_class_of(code, &cls);
	if (cls <= 0 || cls > 255) cls = 1;
	if (forked) _exit(cls);
	if (hc_initialized && !hc_finalized) hympi_go_abort(cls);
	exit(cls);
}

int hc_error(int ci, int code, const char *fn)
{
	if (code == MPI_SUCCESS) return MPI_SUCCESS;
	if (!hc_initialized && !hc_errmsg[0]) hc_set_errmsg("MPI is not initialized", 22);
	if (ci < 0 || ci >= HC_MAX_COMMS || hc_comms[ci].used != 1) ci = 0;
	MPI_Errhandler eh = hc_comms[ci].used == 1 ? hc_comms[ci].eh : MPI_ERRORS_ARE_FATAL;
	if (hc_debug)
		fprintf(stderr, "hympi[debug]: rank %d: %s: error %d: %s%s%s\n", hc_world_rank, fn, code,
			hc_code_string(code), hc_errmsg[0] ? ": " : "", hc_errmsg);
	if (eh == MPI_ERRORS_RETURN) {
		hc_errmsg[0] = 0;
		return code;
	}
	hc_eh *ue = hc_errh_get(eh);
	if (ue) {
		hc_errmsg[0] = 0;
		MPI_Comm h = hc_comm_handle(ci);
		int c = code;
		ue->fn(&h, &c);
		return code;
	}
	hc_fatal(fn, code, 0);
	return code;
}

int hc_req_error(int packed, const char *fn)
{
	if (packed == 0) return 0;
	return hc_error((packed >> 16) - 1, packed & 0xffff, fn);
}

int hc_unsupported(const char *fn)
{
	HC_GUARD(fn);
	hc_set_errmsg("not implemented", 15);
	return hc_error(0, MPI_ERR_UNSUPPORTED_OPERATION, fn);
}

/* hc_after_finalize decides for the guards of guards_gen.c, called only
 * once MPI_Finalize has returned, whether fn is refused: it is unless a
 * session is still open, since session-derived communicators stay usable
 * past MPI_Finalize. The error is returned, not raised: the handlers hang
 * on objects MPI_Finalize ended. (MPICH and Open MPI both abort here; a
 * return lets the program, and our test, see MPI_ERR_OTHER.) */
int hc_after_finalize(const char *fn)
{
	if (hc_sessions_live()) return 0;
	if (hc_debug) fprintf(stderr, "hympi[debug]: rank %d: %s called after MPI_Finalize\n", hc_world_rank, fn);
	return 1;
}

/* In a forked child nothing may enter Go: handle the error here, by the
 * world's handler, with MPI_ERR_OTHER. */
int hc_forked_error(const char *fn)
{
	MPI_Errhandler eh = hc_comms[0].eh;
	if (hc_debug)
		fprintf(stderr, "hympi[debug]: %s in forked child %d\n", fn, (int)getpid());
	if (eh == MPI_ERRORS_RETURN) return MPI_ERR_OTHER;
	hc_eh *ue = hc_errh_get(eh);
	if (ue) {
		MPI_Comm h = MPI_COMM_WORLD;
		int c = MPI_ERR_OTHER;
		ue->fn(&h, &c);
		return MPI_ERR_OTHER;
	}
	hc_fatal(fn, MPI_ERR_OTHER, 1);
	return MPI_ERR_OTHER;
}

static void hc_atfork_child(void)
{
	hc_forked = 1;
}

int hc_comm_index(MPI_Comm c)
{
	intptr_t v = (intptr_t)c;
	int i;
	if (v == (intptr_t)MPI_COMM_WORLD) i = 0;
	else if (v == (intptr_t)MPI_COMM_SELF) i = 1;
	else {
		i = hc_index(c, HK_COMM);
		if (i < 2 || i >= HC_MAX_COMMS) return -1;
	}
	return hc_comms[i].used == 1 ? i : -1;
}

/* hc_comm_reserve finds a free communicator index; hc_comm_publish fills
 * it once Go created the communicator. */
static int *hc_comm_free_idx, hc_comm_nfree, hc_comm_capfree, hc_comm_next = 2;

HC_HIDDEN int hc_comm_reserve(void)
{
	pthread_mutex_lock(&hc_lock);
	int i = -1;
	if (hc_comm_nfree > 0) i = hc_comm_free_idx[--hc_comm_nfree];
	else if (hc_comm_next < HC_MAX_COMMS) i = hc_comm_next++;
	if (i >= 0) hc_comms[i].used = 2;
	pthread_mutex_unlock(&hc_lock);
	return i;
}

HC_HIDDEN void hc_comm_release(int i)
{
	hc_errh_unref(hc_comms[i].eh);
	pthread_mutex_lock(&hc_lock);
	free(hc_comms[i].attrs);
	free(hc_comms[i].cart);
	hc_graph_free(hc_comms[i].graph);
	hc_comm_info_free(i);
	hc_fl_release(i);
	memset(&hc_comms[i], 0, sizeof hc_comms[i]);
	if (hc_comm_nfree == hc_comm_capfree) {
		int cap = hc_comm_capfree ? 2 * hc_comm_capfree : 256;
		int *f = realloc(hc_comm_free_idx, cap * sizeof *f);
		if (f) hc_comm_free_idx = f, hc_comm_capfree = cap;
	}
	/* Without room on the free list the index is lost, not the program. */
	if (hc_comm_nfree < hc_comm_capfree) hc_comm_free_idx[hc_comm_nfree++] = i;
	pthread_mutex_unlock(&hc_lock);
}

HC_HIDDEN void hc_comm_publish(int i, int rank, int size, MPI_Errhandler eh)
{
	hc_comms[i].rank = rank;
	hc_comms[i].size = size;
	hc_errh_ref(eh);
	hc_comms[i].eh = eh;
	hc_comms[i].name[0] = 0;
	hc_comms[i].inter = -1; /* asked on first use (coll_inter.c) */
	__atomic_store_n(&hc_comms[i].used, 1, __ATOMIC_RELEASE);
}

/* ---- environment ----------------------------------------------------- */

static int hc_init(int required, int *provided, const char *fn)
{
	HC_GUARD(fn);
	HC_CHECK_PTR(-1, provided, fn);
	if (hc_initialized) {
		hc_set_errmsg("MPI_Init called twice", 21);
		return hc_error(0, MPI_ERR_OTHER, fn);
	}
	hc_slack_restore();
	int rank, size;
	int rc = hympi_go_init(&rank, &size);
	if (rc) {
		hc_fatal(fn, rc, 0);
		return rc;
	}
	hc_world_rank = rank;
	hc_comm_publish(0, rank, size, MPI_ERRORS_ARE_FATAL);
	strcpy(hc_comms[0].name, "MPI_COMM_WORLD");
	hc_comm_publish(1, 0, 1, MPI_ERRORS_ARE_FATAL);
	strcpy(hc_comms[1].name, "MPI_COMM_SELF");
	hc_pid = getpid();
	hc_main_thread = pthread_self();
	static int atfork_done;
	if (!atfork_done) {
		pthread_atfork(NULL, NULL, hc_atfork_child);
		atfork_done = 1;
	}
	if (required < MPI_THREAD_SINGLE) required = MPI_THREAD_SINGLE;
	hc_thread_level = required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE : required;
	/* fastlane.c runs without the engine's lock: only one thread in MPI. */
	hc_fl_threads_ok = hc_thread_level < MPI_THREAD_MULTIPLE;
	if (provided) *provided = hc_thread_level;
	hc_initialized = 1;
	return MPI_SUCCESS;
}

int PMPI_Init(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	int provided;
	return hc_init(MPI_THREAD_SINGLE, &provided, "MPI_Init");
}

int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	(void)argc, (void)argv;
	return hc_init(required, provided, "MPI_Init_thread");
}

HC_HIDDEN int hc_comm_delete_attrs(int ci);

int PMPI_Finalize(void)
{
	HC_GUARD("MPI_Finalize");
	if (!hc_initialized || hc_finalized) return hc_error(0, MPI_ERR_OTHER, "MPI_Finalize");
	/* MPI_COMM_SELF's attributes are deleted first, as if it were freed. */
	hc_comm_delete_attrs(1);
	if (hc_debug) hc_fl_report(hc_world_rank), hc_cc_report(hc_world_rank);
	if (hc_debug) hc_nbc_report(hc_world_rank);
	int rc = hympi_go_finalize();
	hc_finalized = 1;
	return rc ? hc_error(0, rc, "MPI_Finalize") : MPI_SUCCESS;
}

int PMPI_Initialized(int *flag)
{
	HC_CHECK_PTR(-1, flag, "MPI_Initialized");
	*flag = hc_initialized;
	return MPI_SUCCESS;
}

int PMPI_Finalized(int *flag)
{
	HC_CHECK_PTR(-1, flag, "MPI_Finalized");
	*flag = hc_finalized;
	return MPI_SUCCESS;
}

int PMPI_Abort(MPI_Comm comm, int errorcode)
{
	(void)comm;
	fflush(NULL);
	if (hc_forked) _exit(errorcode ? errorcode : 1);
	if (hc_initialized && !hc_finalized) hympi_go_abort(errorcode);
	exit(errorcode);
}

int PMPI_Query_thread(int *provided)
{
	HC_CHECK_PTR(-1, provided, "MPI_Query_thread");
	*provided = hc_thread_level;
	return MPI_SUCCESS;
}

int PMPI_Is_thread_main(int *flag)
{
	HC_CHECK_PTR(-1, flag, "MPI_Is_thread_main");
	*flag = pthread_equal(pthread_self(), hc_main_thread) != 0;
	return MPI_SUCCESS;
}

double PMPI_Wtime(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double PMPI_Wtick(void)
{
	struct timespec ts;
	clock_getres(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int PMPI_Get_version(int *version, int *subversion)
{
	HC_CHECK_PTR(-1, version, "MPI_Get_version");
	HC_CHECK_PTR(-1, subversion, "MPI_Get_version");
	*version = MPI_VERSION;
	*subversion = MPI_SUBVERSION;
	return MPI_SUCCESS;
}

int PMPI_Abi_get_version(int *abi_major, int *abi_minor)
{
	HC_CHECK_PTR(-1, abi_major, "MPI_Abi_get_version");
	HC_CHECK_PTR(-1, abi_minor, "MPI_Abi_get_version");
	*abi_major = MPI_ABI_VERSION;
	*abi_minor = MPI_ABI_SUBVERSION;
	return MPI_SUCCESS;
}

int PMPI_Get_library_version(char *version, int *resultlen)
{
	HC_CHECK_PTR(-1, version, "MPI_Get_library_version");
	HC_CHECK_PTR(-1, resultlen, "MPI_Get_library_version");
	/* The release and commit live in Go (internal/version). */
	*resultlen = (int)hympi_go_library_version(version, MPI_MAX_LIBRARY_VERSION_STRING);
	return MPI_SUCCESS;
}

int PMPI_Get_processor_name(char *name, int *resultlen)
{
	HC_CHECK_PTR(-1, name, "MPI_Get_processor_name");
	HC_CHECK_PTR(-1, resultlen, "MPI_Get_processor_name");
	if (gethostname(name, MPI_MAX_PROCESSOR_NAME) != 0) strcpy(name, "localhost");
	name[MPI_MAX_PROCESSOR_NAME - 1] = 0;
	*resultlen = (int)strlen(name);
	return MPI_SUCCESS;
}

int PMPI_Pcontrol(const int level, ...)
{
	(void)level;
	return MPI_SUCCESS;
}

int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
	HC_CHECK_PTR(-1, baseptr, "MPI_Alloc_mem");
	if (size < 0) return hc_arg_fail(-1, MPI_ERR_ARG, "MPI_Alloc_mem", "negative size");
	HC_CHECK_INFO(-1, info, "MPI_Alloc_mem");
	void *p = malloc(size > 0 ? (size_t)size : 1);
	if (!p) return hc_error(0, MPI_ERR_NO_MEM, "MPI_Alloc_mem");
	*(void **)baseptr = p;
	return MPI_SUCCESS;
}

int PMPI_Free_mem(void *base)
{
	free(base);
	return MPI_SUCCESS;
}

int PMPI_Get_address(const void *location, MPI_Aint *address)
{
	HC_CHECK_PTR(-1, address, "MPI_Get_address");
	*address = (MPI_Aint)location;
	return MPI_SUCCESS;
}

MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp) { return base + disp; }
MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) { return addr1 - addr2; }

/* ---- error classes, strings and handlers ----------------------------- */

int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
	HC_CHECK_PTR(-1, string, "MPI_Error_string");
	HC_CHECK_PTR(-1, resultlen, "MPI_Error_string");
	int cls;
	if (!hc_class_of(errorcode, &cls)) {
		snprintf(string, MPI_MAX_ERROR_STRING, "unknown error code %d", errorcode);
		*resultlen = (int)strlen(string);
		return hc_error(0, MPI_ERR_ARG, "MPI_Error_string");
	}
	snprintf(string, MPI_MAX_ERROR_STRING, "%s", hc_code_string(errorcode));
	*resultlen = (int)strlen(string);
	return MPI_SUCCESS;
}

int PMPI_Error_class(int errorcode, int *errorclass)
{
	HC_CHECK_PTR(-1, errorclass, "MPI_Error_class");
	if (!hc_class_of(errorcode, errorclass)) return hc_error(0, MPI_ERR_ARG, "MPI_Error_class");
	return MPI_SUCCESS;
}

static int hc_add_code(int cls)
{
	pthread_mutex_lock(&hc_lock);
	if (hc_nucodes == hc_capucodes) {
		int cap = hc_capucodes ? 2 * hc_capucodes : 64;
		struct hc_ucode *u = realloc(hc_ucodes, cap * sizeof *u);
		if (!u) {
			pthread_mutex_unlock(&hc_lock);
			return -1;
		}
		hc_ucodes = u;
		hc_capucodes = cap;
	}
	int code = HC_FIRST_USER_CODE + hc_nucodes;
	hc_ucodes[hc_nucodes].used = 1;
	hc_ucodes[hc_nucodes].cls = cls < 0 ? code : cls;
	hc_ucodes[hc_nucodes].str = NULL;
	hc_nucodes++;
	hc_lastcode = code;
	pthread_mutex_unlock(&hc_lock);
	return code;
}

int PMPI_Add_error_class(int *errorclass)
{
	HC_CHECK_PTR(-1, errorclass, "MPI_Add_error_class");
	int c = hc_add_code(-1);
	if (c < 0) return hc_error(0, MPI_ERR_NO_MEM, "MPI_Add_error_class");
	*errorclass = c;
	return MPI_SUCCESS;
}

int PMPI_Add_error_code(int errorclass, int *errorcode)
{
	HC_CHECK_PTR(-1, errorcode, "MPI_Add_error_code");
	int cls;
	if (!errorcode || !hc_class_of(errorclass, &cls) || cls != errorclass)
		return hc_error(0, MPI_ERR_ARG, "MPI_Add_error_code");
	int c = hc_add_code(errorclass);
	if (c < 0) return hc_error(0, MPI_ERR_NO_MEM, "MPI_Add_error_code");
	*errorcode = c;
	return MPI_SUCCESS;
}

int PMPI_Add_error_string(int errorcode, const char *string)
{
	HC_CHECK_PTR(-1, string, "MPI_Add_error_string");
	char *str = strndup(string, MPI_MAX_ERROR_STRING - 1);
	pthread_mutex_lock(&hc_lock);
	struct hc_ucode *u = hc_ucode(errorcode);
	if (u) {
		free(u->str);
		u->str = str;
	}
	pthread_mutex_unlock(&hc_lock);
	if (!u) {
		free(str);
		return hc_error(0, MPI_ERR_ARG, "MPI_Add_error_string");
	}
	return MPI_SUCCESS;
}

/* hc_remove_code drops a user code; a class only once no code of it is
 * left (MPI 4.1). */
static int hc_remove_code(int code, int want_class, int string_only, const char *fn)
{
	int rc = MPI_SUCCESS;
	pthread_mutex_lock(&hc_lock);
	struct hc_ucode *u = hc_ucode(code);
	if (!u || (u->cls == code) != want_class) {
		rc = MPI_ERR_ARG;
	} else if (string_only) {
		free(u->str);
		u->str = NULL;
	} else {
		for (int i = 0; want_class && i < hc_nucodes; i++)
			if (hc_ucodes[i].used && hc_ucodes[i].cls == code && HC_FIRST_USER_CODE + i != code) rc = MPI_ERR_ARG;
		if (!rc) {
			free(u->str);
			u->str = NULL;
			u->used = 0;
		}
	}
	pthread_mutex_unlock(&hc_lock);
	return rc ? hc_error(0, rc, fn) : MPI_SUCCESS;
}

int PMPI_Remove_error_class(int errorclass) { return hc_remove_code(errorclass, 1, 0, "MPI_Remove_error_class"); }
int PMPI_Remove_error_code(int errorcode) { return hc_remove_code(errorcode, 0, 0, "MPI_Remove_error_code"); }
int PMPI_Remove_error_string(int errorcode)
{
	int cls;
	if (!hc_class_of(errorcode, &cls)) return hc_error(0, MPI_ERR_ARG, "MPI_Remove_error_string");
	return hc_remove_code(errorcode, cls == errorcode, 1, "MPI_Remove_error_string");
}

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler)
{
	HC_CHECK_PTR(-1, fn, "MPI_Comm_create_errhandler");
	HC_CHECK_PTR(-1, errhandler, "MPI_Comm_create_errhandler");
	hc_eh *e = malloc(sizeof *e);
	int i = e ? (e->fn = fn, e->refs = 1, hc_htab_put(&hc_ehs, e)) : -1;
	if (i < 0) {
		free(e);
		return hc_error(0, MPI_ERR_NO_MEM, "MPI_Comm_create_errhandler");
	}
	*errhandler = (MPI_Errhandler)hc_make(HK_ERRH, i);
	return MPI_SUCCESS;
}

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
	int ci = hc_comm_index(comm);
	if (ci < 0) return hc_error(0, MPI_ERR_COMM, "MPI_Comm_set_errhandler");
	if (!hc_errh_valid(errhandler)) return hc_error(ci, MPI_ERR_ARG, "MPI_Comm_set_errhandler");
	hc_errh_ref(errhandler);
	MPI_Errhandler old = hc_comms[ci].eh;
	hc_comms[ci].eh = errhandler;
	hc_errh_unref(old);
	return MPI_SUCCESS;
}

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
	int ci = hc_comm_index(comm);
	if (ci < 0) return hc_error(0, MPI_ERR_COMM, "MPI_Comm_get_errhandler");
	HC_CHECK_PTR(ci, errhandler, "MPI_Comm_get_errhandler");
	/* A user handler comes back as a reference the caller frees. */
	hc_errh_ref(hc_comms[ci].eh);
	*errhandler = hc_comms[ci].eh;
	return MPI_SUCCESS;
}

int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
	HC_CHECK_PTR(-1, errhandler, "MPI_Errhandler_free");
	/* Communicators using the handler keep it until they drop it. */
	if (!hc_errh_valid(*errhandler)) return hc_error(0, MPI_ERR_ARG, "MPI_Errhandler_free");
	hc_errh_unref(*errhandler);
	*errhandler = MPI_ERRHANDLER_NULL;
	return MPI_SUCCESS;
}

int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
	int ci = hc_comm_index(comm);
	if (ci < 0) return hc_error(0, MPI_ERR_COMM, "MPI_Comm_call_errhandler");
	hc_error(ci, errorcode, "MPI_Comm_call_errhandler");
	return MPI_SUCCESS;
}

/* ---- attributes ------------------------------------------------------ */

/* Keyvals: a growable table; a keyval lives while its handle or any
 * attribute holds it (refs, under hc_lock). */
#define HC_FIRST_KEYVAL 1000
typedef struct {
	int live; /* the handle is not freed */
	int refs;
	MPI_Comm_copy_attr_function *copy;
	MPI_Comm_delete_attr_function *del;
	void *extra;
} hc_ckv;
static hc_htab hc_ckvs = HC_HTAB_INIT;

static hc_ckv *hc_keyval(int keyval)
{
	return keyval > HC_FIRST_KEYVAL ? hc_htab_get(&hc_ckvs, keyval - HC_FIRST_KEYVAL) : NULL;
}

static void hc_keyval_unref(int keyval)
{
	hc_ckv *k = hc_keyval(keyval);
	if (!k) return;
	pthread_mutex_lock(&hc_lock);
	int gone = --k->refs == 0;
	pthread_mutex_unlock(&hc_lock);
	if (gone) free(hc_htab_del(&hc_ckvs, keyval - HC_FIRST_KEYVAL));
}

/* Values of the predefined attributes live in C memory. */
static int hc_attr_tag_ub = 0x7fffffff;
static int hc_attr_host = MPI_PROC_NULL;
static int hc_attr_io = MPI_ANY_SOURCE;
static int hc_attr_wtime_global = 1;
static int hc_attr_universe;
static int hc_attr_appnum = 0;

/* hc_env_appnum is MPI_APPNUM: which program of an MPMD command line this
 * rank runs, as hympirun tells it in HYMPI_APPNUM (0 without one). */
static int hc_env_appnum(void)
{
	const char *s = getenv("HYMPI_APPNUM");
	if (!s || !*s) return 0;
	char *end;
	long v = strtol(s, &end, 10);
	return (*end || v < 0 || v > 0x7fffffff) ? 0 : (int)v;
}
static int hc_attr_lastcode;

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *copy_fn, MPI_Comm_delete_attr_function *delete_fn,
			    int *keyval, void *extra_state)
{
	HC_CHECK_PTR(-1, keyval, "MPI_Comm_create_keyval");
	hc_ckv *k = malloc(sizeof *k);
	int i = -1;
	if (k) {
		k->live = 1, k->refs = 1, k->copy = copy_fn, k->del = delete_fn, k->extra = extra_state;
		i = hc_htab_put(&hc_ckvs, k);
	}
	if (i < 0) {
		free(k);
		return hc_error(0, MPI_ERR_NO_MEM, "MPI_Comm_create_keyval");
	}
	*keyval = HC_FIRST_KEYVAL + i;
	return MPI_SUCCESS;
}

int PMPI_Comm_free_keyval(int *keyval)
{
	HC_CHECK_PTR(-1, keyval, "MPI_Comm_free_keyval");
	hc_ckv *k = hc_keyval(*keyval);
	if (!k) return hc_error(0, MPI_ERR_KEYVAL, "MPI_Comm_free_keyval");
	if (!k->live) {
		/* Freed already, through a copy of the handle, and still held by
		 * attributes: MPICH and Open MPI both return success here (MPICH's
		 * attr/keyval_double_free tests it); it releases nothing more. */
		*keyval = MPI_KEYVAL_INVALID;
		return MPI_SUCCESS;
	}
	/* Attributes already set keep their callbacks until deleted. */
	k->live = 0;
	hc_keyval_unref(*keyval);
	*keyval = MPI_KEYVAL_INVALID;
	return MPI_SUCCESS;
}

static hc_attr *hc_attr_find(int ci, int keyval)
{
	for (int k = 0; k < hc_comms[ci].nattrs; k++)
		if (hc_comms[ci].attrs[k].keyval == keyval) return &hc_comms[ci].attrs[k];
	return NULL;
}

static int hc_attr_add(int ci, int keyval, void *value)
{
	hc_comm *c = &hc_comms[ci];
	if (c->nattrs == c->capattrs) {
		int cap = c->capattrs ? 2 * c->capattrs : 4;
		hc_attr *a = realloc(c->attrs, cap * sizeof *a);
		if (!a) return MPI_ERR_NO_MEM;
		c->attrs = a;
		c->capattrs = cap;
	}
	c->attrs[c->nattrs].keyval = keyval;
	c->attrs[c->nattrs].value = value;
	c->nattrs++;
	hc_ckv *k = hc_keyval(keyval);
	if (k) {
		pthread_mutex_lock(&hc_lock);
		k->refs++;
		pthread_mutex_unlock(&hc_lock);
	}
	return MPI_SUCCESS;
}

static int hc_attr_call_delete(int ci, hc_attr *a)
{
	hc_ckv *k = hc_keyval(a->keyval);
	if (!k || k->del == MPI_COMM_NULL_DELETE_FN) return MPI_SUCCESS;
	return k->del(hc_comm_handle(ci), a->keyval, a->value, k->extra);
}

int PMPI_Comm_set_attr(MPI_Comm comm, int keyval, void *attribute_val)
{
	HC_GUARD("MPI_Comm_set_attr");
	int ci = hc_comm_index(comm);
	if (ci < 0) return hc_error(0, MPI_ERR_COMM, "MPI_Comm_set_attr");
	hc_ckv *k = hc_keyval(keyval);
	if (!k || !k->live) return hc_error(ci, MPI_ERR_KEYVAL, "MPI_Comm_set_attr");
	hc_attr *a = hc_attr_find(ci, keyval);
	if (a) {
		int rc = hc_attr_call_delete(ci, a);
		if (rc) return hc_error(ci, rc, "MPI_Comm_set_attr");
		a->value = attribute_val;
		return MPI_SUCCESS;
	}
	int rc = hc_attr_add(ci, keyval, attribute_val);
	return rc ? hc_error(ci, rc, "MPI_Comm_set_attr") : MPI_SUCCESS;
}

int PMPI_Comm_get_attr(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
	int ci = hc_comm_index(comm);
	if (ci < 0) return hc_error(0, MPI_ERR_COMM, "MPI_Comm_get_attr");
	HC_CHECK_PTR(ci, attribute_val, "MPI_Comm_get_attr");
	HC_CHECK_PTR(ci, flag, "MPI_Comm_get_attr");
	void **out = (void **)attribute_val;
	*flag = 1;
	switch (keyval) {
	case MPI_TAG_UB: *out = &hc_attr_tag_ub; return MPI_SUCCESS;
	case MPI_HOST: *out = &hc_attr_host; return MPI_SUCCESS;
	case MPI_IO: *out = &hc_attr_io; return MPI_SUCCESS;
	case MPI_WTIME_IS_GLOBAL: *out = &hc_attr_wtime_global; return MPI_SUCCESS;
	case MPI_UNIVERSE_SIZE: hc_attr_universe = hc_comms[0].size; *out = &hc_attr_universe; return MPI_SUCCESS;
	case MPI_APPNUM: hc_attr_appnum = hc_env_appnum(); *out = &hc_attr_appnum; return MPI_SUCCESS;
	case MPI_LASTUSEDCODE: hc_attr_lastcode = hc_lastcode; *out = &hc_attr_lastcode; return MPI_SUCCESS;
	}
	*flag = 0;
	if (!hc_keyval(keyval)) return hc_error(ci, MPI_ERR_KEYVAL, "MPI_Comm_get_attr");
	hc_attr *a = hc_attr_find(ci, keyval);
	if (a) {
		*flag = 1;
		*out = a->value;
	}
	return MPI_SUCCESS;
}

int PMPI_Comm_delete_attr(MPI_Comm comm, int keyval)
{
	HC_GUARD("MPI_Comm_delete_attr");
	int ci = hc_comm_index(comm);
	if (ci < 0) return hc_error(0, MPI_ERR_COMM, "MPI_Comm_delete_attr");
	hc_attr *a = hc_attr_find(ci, keyval);
	if (!a) return hc_error(ci, MPI_ERR_KEYVAL, "MPI_Comm_delete_attr");
	int rc = hc_attr_call_delete(ci, a);
	if (rc) return hc_error(ci, rc, "MPI_Comm_delete_attr");
	int keyval_ = a->keyval;
	*a = hc_comms[ci].attrs[--hc_comms[ci].nattrs];
	hc_keyval_unref(keyval_);
	return MPI_SUCCESS;
}

/* hc_comm_copy_attrs runs the copy callbacks of from's attributes for its
 * duplicate to. */
HC_HIDDEN int hc_comm_copy_attrs(int from, int to)
{
	for (int k = 0; k < hc_comms[from].nattrs; k++) {
		hc_attr a = hc_comms[from].attrs[k];
		hc_ckv *kv = hc_keyval(a.keyval);
		if (!kv) continue;
		MPI_Comm_copy_attr_function *fn = kv->copy;
		if (fn == MPI_COMM_NULL_COPY_FN) continue;
		void *nv = a.value;
		int flag = 1;
		if (fn != MPI_COMM_DUP_FN) {
			flag = 0;
			int rc = fn(hc_comm_handle(from), a.keyval, kv->extra, a.value, &nv, &flag);
			if (rc) return rc;
		}
		if (flag) {
			int rc = hc_attr_add(to, a.keyval, nv);
			if (rc) return rc;
		}
	}
	return MPI_SUCCESS;
}

int hc_comm_delete_attrs(int ci)
{
	int rc = MPI_SUCCESS;
	while (hc_comms[ci].nattrs > 0) {
		hc_attr a = hc_comms[ci].attrs[hc_comms[ci].nattrs - 1];
		int r = hc_attr_call_delete(ci, &a);
		if (r && !rc) rc = r;
		hc_comms[ci].nattrs--;
		hc_keyval_unref(a.keyval);
	}
	return rc;
}

/* MPI-1 names of the same. */
int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval, void *extra_state)
{
	return PMPI_Comm_create_keyval(copy_fn, delete_fn, keyval, extra_state);
}
int PMPI_Keyval_free(int *keyval) { return PMPI_Comm_free_keyval(keyval); }
int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val) { return PMPI_Comm_set_attr(comm, keyval, attribute_val); }
int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
	return PMPI_Comm_get_attr(comm, keyval, attribute_val, flag);
}
int PMPI_Attr_delete(MPI_Comm comm, int keyval) { return PMPI_Comm_delete_attr(comm, keyval); }

/* ---- handle conversion ----------------------------------------------- */

#define HC_INTCONV(T, name)                                               \
	int PMPI_##name##_toint(T h) { return (int)(intptr_t)h; }          \
	T PMPI_##name##_fromint(int i) { return (T)(intptr_t)i; }
HC_INTCONV(MPI_Comm, Comm)
HC_INTCONV(MPI_Errhandler, Errhandler)
HC_INTCONV(MPI_File, File)
HC_INTCONV(MPI_Group, Group)
HC_INTCONV(MPI_Info, Info)
HC_INTCONV(MPI_Message, Message)
HC_INTCONV(MPI_Op, Op)
HC_INTCONV(MPI_Request, Request)
HC_INTCONV(MPI_Session, Session)
HC_INTCONV(MPI_Datatype, Type)
HC_INTCONV(MPI_Win, Win)

#define HC_ALIASES_core
#include "aliases_gen.h"
