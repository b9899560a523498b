/* Info objects, error classes and codes, error handlers, keyvals and the
 * environment (issue 18 items 7 and 8): right values, no writes past the
 * caller's buffers, and no fixed limits on info objects, handlers,
 * keyvals, codes or communicators (freed ones are reused). */
#include "check.h"

static int calls, last_code;
static MPI_Comm last_comm;

static void handler(MPI_Comm *comm, int *code, ...)
{
	calls++;
	last_code = *code;
	last_comm = *comm;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int flag, n;

	/* ---- info ---- */
	MPI_Info info, dup;
	char val[MPI_MAX_INFO_VAL + 1], key[MPI_MAX_INFO_KEY];
	CHECK_RC(MPI_Info_create(&info));
	CHECK_RC(MPI_Info_set(info, "alpha", "1"));
	CHECK_RC(MPI_Info_set(info, "beta", "twenty-two"));
	CHECK_RC(MPI_Info_set(info, "gamma", "333"));
	CHECK_RC(MPI_Info_set(info, "beta", "22"));
	CHECK_RC(MPI_Info_dup(info, &dup));
	CHECK_RC(MPI_Info_get_nkeys(dup, &n));
	CHECK(n == 3);
	const char *keys[] = {"alpha", "beta", "gamma"}, *vals[] = {"1", "22", "333"};
	for (int k = 0; k < 3; k++) {
		CHECK_RC(MPI_Info_get_nthkey(dup, k, key));
		CHECK(strcmp(key, keys[k]) == 0);
		CHECK_RC(MPI_Info_get(dup, keys[k], MPI_MAX_INFO_VAL, val, &flag));
		CHECK(flag && strcmp(val, vals[k]) == 0);
	}
	/* Deleting from the copy leaves the original, and the others keep
	 * their values and order. */
	CHECK_RC(MPI_Info_delete(dup, "alpha"));
	CHECK_RC(MPI_Info_get_nkeys(dup, &n));
	CHECK(n == 2);
	CHECK_RC(MPI_Info_get_nthkey(dup, 0, key));
	CHECK(strcmp(key, "beta") == 0);
	CHECK_RC(MPI_Info_get(dup, "gamma", MPI_MAX_INFO_VAL, val, &flag));
	CHECK(flag && strcmp(val, "333") == 0);
	CHECK_RC(MPI_Info_get(info, "alpha", MPI_MAX_INFO_VAL, val, &flag));
	CHECK(flag && strcmp(val, "1") == 0);
	/* Info_get writes the value and its terminator, nothing more. */
	{
		struct {
			char before[8], v[16], after[8];
		} b;
		memset(&b, 'x', sizeof b);
		CHECK_RC(MPI_Info_get(info, "gamma", 2, b.v, &flag));
		CHECK(flag && strcmp(b.v, "33") == 0);
		for (int i = 3; i < 16; i++) CHECK(b.v[i] == 'x');
		for (int i = 0; i < 8; i++) CHECK(b.before[i] == 'x' && b.after[i] == 'x');
		/* Info_get_string: truncates to buflen with the terminator and
		 * says how long the value is. */
		memset(&b, 'x', sizeof b);
		int len = 3;
		CHECK_RC(MPI_Info_get_string(info, "beta", &len, b.v, &flag));
		CHECK(flag && len == 3 && strcmp(b.v, "22") == 0 && b.v[3] == 'x');
		len = 2;
		memset(&b, 'x', sizeof b);
		CHECK_RC(MPI_Info_get_string(info, "gamma", &len, b.v, &flag));
		CHECK(flag && len == 4 && strcmp(b.v, "3") == 0 && b.v[2] == 'x');
		len = 0;
		CHECK_RC(MPI_Info_get_string(info, "nokey", &len, b.v, &flag));
		CHECK(!flag);
	}
	CHECK_RC(MPI_Info_free(&dup));
	CHECK(dup == MPI_INFO_NULL);
	CHECK_RC(MPI_Info_free(&info));
	CHECK(info == MPI_INFO_NULL);
	/* MPI_INFO_ENV and Info_create_env: the command at least. */
	CHECK_RC(MPI_Info_get_string(MPI_INFO_ENV, "command", &n, val, &flag));
	n = sizeof val;
	CHECK_RC(MPI_Info_get_string(MPI_INFO_ENV, "command", &n, val, &flag));
	CHECK(flag && strstr(val, "info_errors"));
	CHECK_RC(MPI_Info_create_env(argc, argv, &info));
	CHECK_RC(MPI_Info_get(info, "maxprocs", MPI_MAX_INFO_VAL, val, &flag));
	int size;
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	CHECK(flag && atoi(val) == size);
	CHECK_RC(MPI_Info_free(&info));
	/* Thousands of live info objects. */
	{
		enum { N = 5000 };
		MPI_Info *many = malloc(N * sizeof *many);
		for (int k = 0; k < N; k++) CHECK_RC(MPI_Info_create(&many[k]));
		for (int k = 0; k < N; k++) CHECK_RC(MPI_Info_free(&many[k]));
		free(many);
	}
	/* Hardware and ABI descriptions. */
	CHECK_RC(MPI_Get_hw_resource_info(&info));
	CHECK_RC(MPI_Info_get_nkeys(info, &n));
	CHECK(n > 0);
	CHECK_RC(MPI_Info_free(&info));
	CHECK_RC(MPI_Abi_get_info(&info));
	CHECK_RC(MPI_Info_get(info, "mpi_aint_size", MPI_MAX_INFO_VAL, val, &flag));
	CHECK(flag && atoi(val) == (int)sizeof(MPI_Aint));
	CHECK_RC(MPI_Info_free(&info));
	int major, minor;
	CHECK_RC(MPI_Abi_get_version(&major, &minor));
	CHECK(major >= 1 && minor >= 0);

	/* ---- error classes and codes ---- */
	int cls, code, code2, *lastused, cls2;
	CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lastused, &flag));
	CHECK(flag && *lastused >= MPI_ERR_LASTCODE);
	CHECK_RC(MPI_Add_error_class(&cls));
	CHECK(cls > MPI_ERR_LASTCODE);
	CHECK_RC(MPI_Add_error_code(cls, &code));
	CHECK(code > MPI_ERR_LASTCODE && code != cls);
	CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lastused, &flag));
	CHECK(flag && *lastused >= code);
	CHECK_RC(MPI_Error_class(code, &cls2));
	CHECK(cls2 == cls);
	CHECK_RC(MPI_Add_error_string(code, "a test error"));
	char str[MPI_MAX_ERROR_STRING];
	CHECK_RC(MPI_Error_string(code, str, &n));
	CHECK(strcmp(str, "a test error") == 0 && n == 12);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	/* A class with codes cannot go; codes, strings, then the class can. */
	CHECK(MPI_Remove_error_class(cls) != MPI_SUCCESS);
	CHECK_RC(MPI_Remove_error_string(code));
	CHECK_RC(MPI_Error_string(code, str, &n));
	CHECK(n == 0);
	CHECK_RC(MPI_Remove_error_code(code));
	CHECK(MPI_Error_class(code, &cls2) != MPI_SUCCESS);
	CHECK_RC(MPI_Remove_error_class(cls));
	CHECK(MPI_Remove_error_class(cls) != MPI_SUCCESS);
	CHECK(MPI_Remove_error_code(MPI_ERR_TYPE) != MPI_SUCCESS);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	for (int k = 0; k < 3000; k++) {
		CHECK_RC(MPI_Add_error_class(&cls));
		CHECK_RC(MPI_Add_error_code(cls, &code2));
		CHECK_RC(MPI_Remove_error_code(code2));
		CHECK_RC(MPI_Remove_error_class(cls));
	}

	/* ---- error handlers ---- */
	MPI_Errhandler eh, got;
	MPI_Comm dupc;
	CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &dupc));
	CHECK_RC(MPI_Comm_create_errhandler(handler, &eh));
	CHECK_RC(MPI_Comm_set_errhandler(dupc, eh));
	/* Freed while attached: the communicator keeps it. */
	CHECK_RC(MPI_Errhandler_free(&eh));
	CHECK(eh == MPI_ERRHANDLER_NULL);
	CHECK_RC(MPI_Add_error_class(&cls));
	CHECK_RC(MPI_Comm_call_errhandler(dupc, cls));
	CHECK(calls == 1 && last_code == cls && last_comm == dupc);
	/* An error raised by a call goes to the same handler. */
	int rank;
	MPI_Comm_rank(dupc, &rank);
	CHECK(MPI_Send(&n, 1, MPI_INT, 9999, 0, dupc) == MPI_ERR_RANK);
	CHECK(calls == 2 && last_code == MPI_ERR_RANK);
	CHECK_RC(MPI_Comm_get_errhandler(dupc, &got));
	CHECK(got != MPI_ERRHANDLER_NULL);
	CHECK_RC(MPI_Errhandler_free(&got));
	/* ERRORS_RETURN: call_errhandler returns success (MPICH and Open MPI
	 * agree). */
	CHECK_RC(MPI_Comm_set_errhandler(dupc, MPI_ERRORS_RETURN));
	CHECK_RC(MPI_Comm_call_errhandler(dupc, MPI_ERR_OTHER));
	CHECK_RC(MPI_Comm_free(&dupc));
	/* Create/free pairs far past any table size. */
	for (int k = 0; k < 5000; k++) {
		CHECK_RC(MPI_Comm_create_errhandler(handler, &eh));
		CHECK_RC(MPI_Errhandler_free(&eh));
	}

	/* ---- keyvals and predefined attributes ---- */
	for (int k = 0; k < 5000; k++) {
		int kv;
		CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kv, NULL));
		CHECK_RC(MPI_Comm_set_attr(MPI_COMM_WORLD, kv, &n));
		CHECK_RC(MPI_Comm_free_keyval(&kv));
	}
	int kv;
	CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kv, NULL));
	CHECK_RC(MPI_Comm_free_keyval(&kv));
	int *v;
	CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag));
	CHECK(flag && *v >= 32767);
	CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &v, &flag));
	CHECK(flag && (*v == MPI_PROC_NULL || (*v >= 0 && *v < size)));
	CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &v, &flag));
	CHECK(flag && (*v == MPI_ANY_SOURCE || *v == MPI_PROC_NULL || (*v >= 0 && *v < size)));
	CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &v, &flag));
	CHECK(!flag || *v == 0 || *v == 1);
	CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &v, &flag));
	CHECK(!flag || *v >= size);

	/* ---- communicators: more live than the old table held ---- */
	{
		enum { N = 9000 };
		MPI_Comm *cs = malloc(N * sizeof *cs);
		for (int k = 0; k < N; k++) CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &cs[k]));
		int r, wr;
		CHECK_RC(MPI_Comm_rank(cs[N - 1], &r));
		MPI_Comm_rank(MPI_COMM_WORLD, &wr);
		CHECK(r == wr);
		for (int k = 0; k < N; k++) CHECK_RC(MPI_Comm_free(&cs[k]));
		for (int k = 0; k < 2 * N; k++) {
			CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &cs[0]));
			CHECK_RC(MPI_Comm_free(&cs[0]));
		}
		free(cs);
	}

	/* ---- memory ---- */
	double *mem;
	CHECK_RC(MPI_Alloc_mem(1 << 20, MPI_INFO_NULL, &mem));
	mem[0] = mem[(1 << 17) - 1] = 1.0;
	CHECK_RC(MPI_Free_mem(mem));

	report_ok();
	MPI_Finalize();
	return 0;
}
