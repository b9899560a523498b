/* mpit.c — the MPI_T tool interface of an MPI that exposes no variables:
 * usable before MPI_Init and after MPI_Finalize, reference-counted, every
 * count 0, every index, name and handle refused with its own MPI_T error
 * class, and errors returned without any error handler running. */
#include <stdint.h>
#include "check.h"

static int handler_calls;
static void count_handler(MPI_Comm *c, int *code, ...) { handler_calls++; }

/* Before MPI_Init CHECK cannot abort the job through MPI. */
#define TCHECK(cond)                                                                      \
	do {                                                                              \
		if (!(cond)) {                                                            \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			exit(3);                                                          \
		}                                                                         \
	} while (0)

/* walk calls every MPI_T function and checks what an interface with
 * nothing in it must answer; init says whether MPI_T is initialised. */
static void walk(int init)
{
	int n = -1, idx = 7, stamp = -1, cnt = 0, v = 0;
	char name[64], desc[64];
	int nlen = sizeof name, dlen = sizeof desc;
	MPI_Datatype dt;
	MPI_T_enum en;
	MPI_Info info;
	MPI_Count ts;
	MPI_T_cvar_handle ch = MPI_T_CVAR_HANDLE_NULL;
	MPI_T_pvar_handle ph = MPI_T_PVAR_HANDLE_NULL;
	MPI_T_pvar_session ps = MPI_T_PVAR_SESSION_NULL;
	MPI_T_event_registration er = NULL;
	MPI_T_source_order order;
	MPI_Aint disp[1];
	MPI_Datatype dts[1];
	int buf[4];

	if (!init) {
		int (*nums[])(int *) = {MPI_T_cvar_get_num, MPI_T_pvar_get_num, MPI_T_category_get_num,
					MPI_T_event_get_num, MPI_T_source_get_num, MPI_T_category_changed};
		for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
			TCHECK(nums[i](&n) == MPI_T_ERR_NOT_INITIALIZED);
		TCHECK(n == -1);
		TCHECK(MPI_T_cvar_get_index("x", &idx) == MPI_T_ERR_NOT_INITIALIZED);
		TCHECK(MPI_T_pvar_session_create(&ps) == MPI_T_ERR_NOT_INITIALIZED);
		TCHECK(MPI_T_cvar_read(ch, buf) == MPI_T_ERR_NOT_INITIALIZED);
		TCHECK(MPI_T_finalize() == MPI_T_ERR_NOT_INITIALIZED);
		return;
	}
	/* Counts. */
	struct {
		int (*fn)(int *);
		const char *what;
	} nums[] = {{MPI_T_cvar_get_num, "cvars"}, {MPI_T_pvar_get_num, "pvars"},
		    {MPI_T_category_get_num, "categories"}, {MPI_T_event_get_num, "events"},
		    {MPI_T_source_get_num, "sources"}};
	for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
		n = -1;
		TCHECK(nums[i].fn(&n) == MPI_SUCCESS);
		TCHECK(n == 0);
		TCHECK(nums[i].fn(NULL) == MPI_T_ERR_INVALID);
	}
	TCHECK(MPI_T_category_changed(&stamp) == MPI_SUCCESS);
	int stamp2 = -1;
	TCHECK(MPI_T_category_changed(&stamp2) == MPI_SUCCESS && stamp2 == stamp);

	/* Indices: 0 is already past the end. */
	int idxs[] = {0, 1, -1, 1 << 30};
	for (size_t i = 0; i < sizeof idxs / sizeof idxs[0]; i++) {
		int x = idxs[i];
		TCHECK(MPI_T_cvar_get_info(x, name, &nlen, &v, &dt, &en, desc, &dlen, &v, &v) == MPI_T_ERR_INVALID_INDEX);
		TCHECK(MPI_T_pvar_get_info(x, name, &nlen, &v, &v, &dt, &en, desc, &dlen, &v, &v, &v, &v) ==
		       MPI_T_ERR_INVALID_INDEX);
		TCHECK(MPI_T_category_get_info(x, name, &nlen, desc, &dlen, &v, &v, &v) == MPI_T_ERR_INVALID_INDEX);
		TCHECK(MPI_T_category_get_num_events(x, &v) == MPI_T_ERR_INVALID_INDEX);
		TCHECK(MPI_T_category_get_categories(x, 4, buf) == MPI_T_ERR_INVALID_INDEX);
		TCHECK(MPI_T_category_get_cvars(x, 4, buf) == MPI_T_ERR_INVALID_INDEX);
		TCHECK(MPI_T_category_get_pvars(x, 4, buf) == MPI_T_ERR_INVALID_INDEX);
		TCHECK(MPI_T_category_get_events(x, 4, buf) == MPI_T_ERR_INVALID_INDEX);
		TCHECK(MPI_T_event_get_info(x, name, &nlen, &v, dts, disp, &v, &en, &info, desc, &dlen, &v) ==
		       MPI_T_ERR_INVALID_INDEX);
		TCHECK(MPI_T_source_get_info(x, name, &nlen, desc, &dlen, &order, &ts, &ts, &info) ==
		       MPI_T_ERR_INVALID_INDEX);
		TCHECK(MPI_T_source_get_timestamp(x, &ts) == MPI_T_ERR_INVALID_INDEX);
		TCHECK(MPI_T_cvar_handle_alloc(x, NULL, &ch, &cnt) == MPI_T_ERR_INVALID_INDEX);
		TCHECK(MPI_T_event_handle_alloc(x, NULL, MPI_INFO_NULL, &er) == MPI_T_ERR_INVALID_INDEX);
	}

	/* Names. */
	TCHECK(MPI_T_cvar_get_index("hympi_eager_limit", &idx) == MPI_T_ERR_INVALID_NAME);
	TCHECK(MPI_T_category_get_index("", &idx) == MPI_T_ERR_INVALID_NAME);
	TCHECK(MPI_T_event_get_index("x", &idx) == MPI_T_ERR_INVALID_NAME);
	TCHECK(MPI_T_pvar_get_index("x", MPI_T_PVAR_CLASS_COUNTER, &idx) == MPI_T_ERR_INVALID_NAME);
	TCHECK(MPI_T_pvar_get_index("x", 999, &idx) == MPI_T_ERR_INVALID);
	TCHECK(MPI_T_cvar_get_index(NULL, &idx) == MPI_T_ERR_INVALID);
	TCHECK(idx == 7);

	/* Handles: none can exist. */
	TCHECK(MPI_T_cvar_handle_free(&ch) == MPI_T_ERR_INVALID_HANDLE);
	TCHECK(MPI_T_cvar_read(ch, buf) == MPI_T_ERR_INVALID_HANDLE);
	TCHECK(MPI_T_cvar_write(ch, buf) == MPI_T_ERR_INVALID_HANDLE);
	TCHECK(MPI_T_enum_get_info(MPI_T_ENUM_NULL, &v, name, &nlen) == MPI_T_ERR_INVALID_HANDLE);
	TCHECK(MPI_T_enum_get_item(MPI_T_ENUM_NULL, 0, &v, name, &nlen) == MPI_T_ERR_INVALID_HANDLE);
	TCHECK(MPI_T_event_handle_free(er, NULL, NULL) == MPI_T_ERR_INVALID_HANDLE);
	TCHECK(MPI_T_event_handle_get_info(er, &info) == MPI_T_ERR_INVALID_HANDLE);
	TCHECK(MPI_T_event_handle_set_info(er, MPI_INFO_NULL) == MPI_T_ERR_INVALID_HANDLE);
	TCHECK(MPI_T_event_register_callback(er, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL, NULL) ==
	       MPI_T_ERR_INVALID_HANDLE);
	TCHECK(MPI_T_event_callback_get_info(er, MPI_T_CB_REQUIRE_NONE, &info) == MPI_T_ERR_INVALID_HANDLE);
	TCHECK(MPI_T_event_callback_set_info(er, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL) == MPI_T_ERR_INVALID_HANDLE);
	TCHECK(MPI_T_event_set_dropped_handler(er, NULL) == MPI_T_ERR_INVALID_HANDLE);
	TCHECK(MPI_T_event_copy(NULL, buf) == MPI_T_ERR_INVALID_HANDLE);
	TCHECK(MPI_T_event_read(NULL, 0, buf) == MPI_T_ERR_INVALID_HANDLE);
	TCHECK(MPI_T_event_get_source(NULL, &v) == MPI_T_ERR_INVALID_HANDLE);
	TCHECK(MPI_T_event_get_timestamp(NULL, &ts) == MPI_T_ERR_INVALID_HANDLE);

	/* pvar sessions exist, empty. */
	TCHECK(MPI_T_pvar_start(ps, MPI_T_PVAR_ALL_HANDLES) == MPI_T_ERR_INVALID_SESSION);
	TCHECK(MPI_T_pvar_session_create(&ps) == MPI_SUCCESS);
	TCHECK(ps != MPI_T_PVAR_SESSION_NULL);
	MPI_T_pvar_session ps2;
	TCHECK(MPI_T_pvar_session_create(&ps2) == MPI_SUCCESS && ps2 != ps);
	TCHECK(MPI_T_pvar_handle_alloc(ps, 0, NULL, &ph, &cnt) == MPI_T_ERR_INVALID_INDEX);
	TCHECK(MPI_T_pvar_start(ps, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS);
	TCHECK(MPI_T_pvar_stop(ps, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS);
	TCHECK(MPI_T_pvar_reset(ps, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS);
	TCHECK(MPI_T_pvar_start(ps, ph) == MPI_T_ERR_INVALID_HANDLE);
	TCHECK(MPI_T_pvar_stop(ps, ph) == MPI_T_ERR_INVALID_HANDLE);
	TCHECK(MPI_T_pvar_reset(ps, ph) == MPI_T_ERR_INVALID_HANDLE);
	TCHECK(MPI_T_pvar_read(ps, MPI_T_PVAR_ALL_HANDLES, buf) == MPI_T_ERR_INVALID_HANDLE);
	TCHECK(MPI_T_pvar_readreset(ps, ph, buf) == MPI_T_ERR_INVALID_HANDLE);
	TCHECK(MPI_T_pvar_write(ps, ph, buf) == MPI_T_ERR_INVALID_HANDLE);
	TCHECK(MPI_T_pvar_handle_free(ps, &ph) == MPI_T_ERR_INVALID_HANDLE);
	TCHECK(MPI_T_pvar_read((MPI_T_pvar_session)buf, ph, buf) == MPI_T_ERR_INVALID_SESSION);
	MPI_T_pvar_session gone = ps;
	TCHECK(MPI_T_pvar_session_free(&ps) == MPI_SUCCESS && ps == MPI_T_PVAR_SESSION_NULL);
	TCHECK(MPI_T_pvar_session_free(&gone) == MPI_T_ERR_INVALID_SESSION);
	TCHECK(MPI_T_pvar_reset(gone, MPI_T_PVAR_ALL_HANDLES) == MPI_T_ERR_INVALID_SESSION);
	TCHECK(MPI_T_pvar_session_free(&ps2) == MPI_SUCCESS);
}

int main(int argc, char **argv)
{
	int provided = -1;
	walk(0);
	TCHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, NULL) == MPI_T_ERR_INVALID);
	walk(0);
	/* Out-of-range levels are clamped, as MPI_Init_thread does. */
	TCHECK(MPI_T_init_thread(12345, &provided) == MPI_SUCCESS && provided == MPI_THREAD_MULTIPLE);
	TCHECK(MPI_T_finalize() == MPI_SUCCESS);
	walk(0);
	/* Before MPI_Init, twice: the count needs two finalizes. */
	TCHECK(MPI_T_init_thread(MPI_THREAD_FUNNELED, &provided) == MPI_SUCCESS);
	TCHECK(provided == MPI_THREAD_FUNNELED);
	TCHECK(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided) == MPI_SUCCESS);
	walk(1);
	TCHECK(MPI_T_finalize() == MPI_SUCCESS);
	walk(1);

	MPI_Init(&argc, &argv);
	MPI_Errhandler eh;
	CHECK_RC(MPI_Comm_create_errhandler(count_handler, &eh));
	CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh));
	walk(1);
	/* A pvar session does not outlive the interface. */
	MPI_T_pvar_session ps;
	CHECK_RC(MPI_T_pvar_session_create(&ps));
	CHECK(MPI_T_finalize() == MPI_SUCCESS);
	walk(0);
	CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS);
	/* Finalizing the interface ended the session made before. */
	CHECK(MPI_T_pvar_start(ps, MPI_T_PVAR_ALL_HANDLES) == MPI_T_ERR_INVALID_SESSION);
	CHECK(handler_calls == 0); /* MPI_T errors are returned, never raised */
	report_ok();
	CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
	CHECK_RC(MPI_Errhandler_free(&eh));
	MPI_Finalize();

	/* After MPI_Finalize. */
	walk(1);
	TCHECK(MPI_T_finalize() == MPI_SUCCESS);
	walk(0);
	return 0;
}
