/*
 * mpit.c — the MPI tool information interface (MPI_T), as an
 * implementation that exposes nothing: no control or performance
 * variables, categories, enumerations, event types or event sources.
 *
 * Tools probe this interface before deciding what to show, so every call
 * must answer truthfully rather than fail as unsupported: the counts are 0,
 * an index names nothing (MPI_T_ERR_INVALID_INDEX), a name finds nothing
 * (MPI_T_ERR_INVALID_NAME), and no cvar, pvar, enum, event registration or
 * event instance handle can ever be valid (MPI_T_ERR_INVALID_HANDLE).
 * Performance-variable sessions do exist, empty, because a tool may open
 * one before it learns there is nothing to bind in it.
 *
 * MPI_T lives beside MPI, not inside it: it may be initialised before
 * MPI_Init and after MPI_Finalize, any number of times (a count), and its
 * errors are returned, never passed to an error handler (MPI 4.1 §15.3.10).
 * Nothing here reaches Go, so a forked child may use it too.
 */
#include <pthread.h>
#include <stdlib.h>

#include "cabi.h"

static pthread_mutex_t t_mu = PTHREAD_MUTEX_INITIALIZER;
static int t_refs; /* MPI_T_init_thread calls not yet finalised; t_mu */

/* A pvar session. Sessions are listed so a handle from the application
 * is recognised without dereferencing it. */
struct t_session {
	struct t_session *next;
};
static struct t_session *t_sessions; /* t_mu */

static int t_bad_ptr(const void *p) { return (uintptr_t)p < 4096; }

static int t_ready(void)
{
	pthread_mutex_lock(&t_mu);
	int ok = t_refs > 0;
	pthread_mutex_unlock(&t_mu);
	return ok;
}

#define T_ENTER()                                                       \
	do {                                                            \
		if (!t_ready()) return MPI_T_ERR_NOT_INITIALIZED;       \
	} while (0)

int PMPI_T_init_thread(int required, int *provided)
{
	if (t_bad_ptr(provided)) return MPI_T_ERR_INVALID;
	/* As MPI_Init_thread (core.c): out-of-range levels are clamped. */
	if (required < MPI_THREAD_SINGLE) required = MPI_THREAD_SINGLE;
	if (required > MPI_THREAD_MULTIPLE) required = MPI_THREAD_MULTIPLE;
	pthread_mutex_lock(&t_mu);
	if (t_refs == INT32_MAX) {
		pthread_mutex_unlock(&t_mu);
		return MPI_T_ERR_CANNOT_INIT;
	}
	t_refs++;
	pthread_mutex_unlock(&t_mu);
	/* Every call here takes t_mu, so any thread level is safe. */
	*provided = required;
	return MPI_SUCCESS;
}

int PMPI_T_finalize(void)
{
	pthread_mutex_lock(&t_mu);
	if (t_refs == 0) {
		pthread_mutex_unlock(&t_mu);
		return MPI_T_ERR_NOT_INITIALIZED;
	}
	if (--t_refs == 0) {
		/* Handles do not outlive the interface. */
		while (t_sessions) {
			struct t_session *s = t_sessions;
			t_sessions = s->next;
			free(s);
		}
	}
	pthread_mutex_unlock(&t_mu);
	return MPI_SUCCESS;
}

/* ---- counts: there is nothing of any kind ------------------------------ */

static int t_zero(int *n)
{
	T_ENTER();
	if (t_bad_ptr(n)) return MPI_T_ERR_INVALID;
	*n = 0;
	return MPI_SUCCESS;
}

int PMPI_T_cvar_get_num(int *num_cvar) { return t_zero(num_cvar); }
int PMPI_T_pvar_get_num(int *num_pvar) { return t_zero(num_pvar); }
int PMPI_T_category_get_num(int *num_cat) { return t_zero(num_cat); }
int PMPI_T_event_get_num(int *num_events) { return t_zero(num_events); }
int PMPI_T_source_get_num(int *num_sources) { return t_zero(num_sources); }

/* The set of categories never changes, so neither does the stamp. */
int PMPI_T_category_changed(int *stamp) { return t_zero(stamp); }

/* ---- lookups by index: no index names anything ------------------------- */

static int t_no_index(void)
{
	T_ENTER();
	return MPI_T_ERR_INVALID_INDEX;
}

int PMPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity, MPI_Datatype *datatype,
			 MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind, int *scope)
{
	return t_no_index();
}
int PMPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity, int *var_class,
			 MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind,
			 int *readonly, int *continuous, int *atomic)
{
	return t_no_index();
}
int PMPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc, int *desc_len,
			     int *num_cvars, int *num_pvars, int *num_categories)
{
	return t_no_index();
}
int PMPI_T_category_get_num_events(int cat_index, int *num_events) { return t_no_index(); }
int PMPI_T_category_get_categories(int cat_index, int len, int indices[]) { return t_no_index(); }
int PMPI_T_category_get_cvars(int cat_index, int len, int indices[]) { return t_no_index(); }
int PMPI_T_category_get_pvars(int cat_index, int len, int indices[]) { return t_no_index(); }
int PMPI_T_category_get_events(int cat_index, int len, int indices[]) { return t_no_index(); }
int PMPI_T_event_get_info(int event_index, char *name, int *name_len, int *verbosity,
			  MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[], int *num_elements,
			  MPI_T_enum *enumtype, MPI_Info *info, char *desc, int *desc_len, int *bind)
{
	return t_no_index();
}
int PMPI_T_source_get_info(int source_index, char *name, int *name_len, char *desc, int *desc_len,
			   MPI_T_source_order *ordering, MPI_Count *ticks_per_second, MPI_Count *max_ticks,
			   MPI_Info *info)
{
	return t_no_index();
}
int PMPI_T_source_get_timestamp(int source_index, MPI_Count *timestamp) { return t_no_index(); }
int PMPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle, int *count)
{
	return t_no_index();
}
int PMPI_T_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info,
			      MPI_T_event_registration *event_registration)
{
	return t_no_index();
}

/* ---- lookups by name: no name is known --------------------------------- */

static int t_no_name(const char *name, const int *out)
{
	T_ENTER();
	if (t_bad_ptr(name) || t_bad_ptr(out)) return MPI_T_ERR_INVALID;
	return MPI_T_ERR_INVALID_NAME;
}

int PMPI_T_cvar_get_index(const char *name, int *cvar_index) { return t_no_name(name, cvar_index); }
int PMPI_T_category_get_index(const char *name, int *category_index) { return t_no_name(name, category_index); }
int PMPI_T_event_get_index(const char *name, int *event_index) { return t_no_name(name, event_index); }
int PMPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index)
{
	T_ENTER();
	if (var_class < MPI_T_PVAR_CLASS_STATE || var_class > MPI_T_PVAR_CLASS_GENERIC) return MPI_T_ERR_INVALID;
	return t_no_name(name, pvar_index);
}

/* ---- handles: none can exist ------------------------------------------- */

static int t_no_handle(void)
{
	T_ENTER();
	return MPI_T_ERR_INVALID_HANDLE;
}

int PMPI_T_cvar_handle_free(MPI_T_cvar_handle *handle)
{
	T_ENTER();
	if (t_bad_ptr(handle)) return MPI_T_ERR_INVALID;
	return MPI_T_ERR_INVALID_HANDLE;
}
int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf) { return t_no_handle(); }
int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf) { return t_no_handle(); }
int PMPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len) { return t_no_handle(); }
int PMPI_T_enum_get_item(MPI_T_enum enumtype, int index, int *value, char *name, int *name_len)
{
	return t_no_handle();
}
int PMPI_T_event_handle_free(MPI_T_event_registration event_registration, void *user_data,
			     MPI_T_event_free_cb_function free_cb_function)
{
	return t_no_handle();
}
int PMPI_T_event_handle_get_info(MPI_T_event_registration event_registration, MPI_Info *info_used)
{
	return t_no_handle();
}
int PMPI_T_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info info)
{
	return t_no_handle();
}
int PMPI_T_event_register_callback(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
				   MPI_Info info, void *user_data, MPI_T_event_cb_function event_cb_function)
{
	return t_no_handle();
}
int PMPI_T_event_callback_get_info(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
				   MPI_Info *info_used)
{
	return t_no_handle();
}
int PMPI_T_event_callback_set_info(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
				   MPI_Info info)
{
	return t_no_handle();
}
int PMPI_T_event_set_dropped_handler(MPI_T_event_registration event_registration,
				     MPI_T_event_dropped_cb_function dropped_cb_function)
{
	return t_no_handle();
}
/* Event instances exist only inside a callback, and none is ever made. */
int PMPI_T_event_copy(MPI_T_event_instance event_instance, void *buffer) { return t_no_handle(); }
int PMPI_T_event_read(MPI_T_event_instance event_instance, int element_index, void *buffer) { return t_no_handle(); }
int PMPI_T_event_get_source(MPI_T_event_instance event_instance, int *source_index) { return t_no_handle(); }
int PMPI_T_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count *event_timestamp)
{
	return t_no_handle();
}

/* ---- performance-variable sessions ------------------------------------- */

/* t_session_ok: s is a live session. Called with t_mu held. */
static int t_session_ok(MPI_T_pvar_session s)
{
	for (struct t_session *p = t_sessions; p; p = p->next)
		if ((MPI_T_pvar_session)p == s) return 1;
	return 0;
}

int PMPI_T_pvar_session_create(MPI_T_pvar_session *session)
{
	T_ENTER();
	if (t_bad_ptr(session)) return MPI_T_ERR_INVALID;
	struct t_session *s = calloc(1, sizeof *s);
	if (!s) return MPI_T_ERR_OUT_OF_SESSIONS;
	pthread_mutex_lock(&t_mu);
	s->next = t_sessions;
	t_sessions = s;
	pthread_mutex_unlock(&t_mu);
	*session = (MPI_T_pvar_session)s;
	return MPI_SUCCESS;
}

int PMPI_T_pvar_session_free(MPI_T_pvar_session *session)
{
	T_ENTER();
	if (t_bad_ptr(session)) return MPI_T_ERR_INVALID;
	pthread_mutex_lock(&t_mu);
	for (struct t_session **pp = &t_sessions; *pp; pp = &(*pp)->next) {
		if ((MPI_T_pvar_session)*pp == *session) {
			struct t_session *s = *pp;
			*pp = s->next;
			pthread_mutex_unlock(&t_mu);
			free(s);
			*session = MPI_T_PVAR_SESSION_NULL;
			return MPI_SUCCESS;
		}
	}
	pthread_mutex_unlock(&t_mu);
	return MPI_T_ERR_INVALID_SESSION;
}

/* t_pvar_op checks a (session, handle) pair. A session holds no handles,
 * so only MPI_T_PVAR_ALL_HANDLES, where the call allows it, names
 * something: all of none, which is nothing to do. */
static int t_pvar_op(MPI_T_pvar_session session, MPI_T_pvar_handle handle, int all_ok)
{
	T_ENTER();
	pthread_mutex_lock(&t_mu);
	int ok = t_session_ok(session);
	pthread_mutex_unlock(&t_mu);
	if (!ok) return MPI_T_ERR_INVALID_SESSION;
	if (all_ok && handle == MPI_T_PVAR_ALL_HANDLES) return MPI_SUCCESS;
	return MPI_T_ERR_INVALID_HANDLE;
}

int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
			     MPI_T_pvar_handle *handle, int *count)
{
	T_ENTER();
	pthread_mutex_lock(&t_mu);
	int ok = t_session_ok(session);
	pthread_mutex_unlock(&t_mu);
	if (!ok) return MPI_T_ERR_INVALID_SESSION;
	return MPI_T_ERR_INVALID_INDEX;
}
int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
{
	T_ENTER();
	if (t_bad_ptr(handle)) return MPI_T_ERR_INVALID;
	return t_pvar_op(session, *handle, 0);
}
int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle) { return t_pvar_op(session, handle, 1); }
int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle) { return t_pvar_op(session, handle, 1); }
int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle) { return t_pvar_op(session, handle, 1); }
int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
	return t_pvar_op(session, handle, 0);
}
int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
	return t_pvar_op(session, handle, 0);
}
int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf)
{
	return t_pvar_op(session, handle, 0);
}

#define HC_ALIASES_mpit
#include "aliases_gen.h"
