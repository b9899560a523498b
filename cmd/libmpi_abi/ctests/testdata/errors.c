/* Error handling: classes and strings, user classes/codes/strings, user
 * error handlers (create/set/get/call/free), MPI_ERRORS_RETURN, unsupported
 * functions, attributes and keyvals on MPI_COMM_WORLD, versions and names. */
#include "check.h"

static int handler_calls, handler_code;
static MPI_Comm handler_comm;

static void my_handler(MPI_Comm *comm, int *code, ...)
{
	handler_calls++;
	handler_code = *code;
	handler_comm = *comm;
}

static int deletes;
static int del_fn(MPI_Comm comm, int keyval, void *val, void *extra)
{
	(void)comm, (void)keyval;
	CHECK(extra == (void *)&deletes);
	deletes += *(int *)val;
	return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
	int provided;
	CHECK_RC(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
	CHECK(provided == MPI_THREAD_MULTIPLE);
	int q, main_thread;
	CHECK_RC(MPI_Query_thread(&q));
	CHECK(q == provided);
	CHECK_RC(MPI_Is_thread_main(&main_thread));
	CHECK(main_thread);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);

	/* Versions and names. */
	int v, sv;
	CHECK_RC(MPI_Get_version(&v, &sv));
	CHECK(v == 5 && sv == 0 && MPI_VERSION == 5);
	CHECK_RC(MPI_Abi_get_version(&v, &sv));
	CHECK(v == 1 && sv == 0);
	char name[MPI_MAX_LIBRARY_VERSION_STRING];
	int len;
	CHECK_RC(MPI_Get_library_version(name, &len));
	CHECK(len > 0 && strstr(name, "hympi"));
	CHECK_RC(MPI_Get_processor_name(name, &len));
	CHECK(len > 0 && (int)strlen(name) == len);
	CHECK_RC(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
	CHECK(strcmp(name, "MPI_COMM_WORLD") == 0);
	CHECK_RC(MPI_Type_get_name(MPI_DOUBLE, name, &len));
	CHECK(strcmp(name, "MPI_DOUBLE") == 0);
	int tsize;
	CHECK_RC(MPI_Type_size(MPI_LONG_DOUBLE_INT, &tsize));
	/* Size is the data (long double + int), extent the C struct's. */
	CHECK(tsize == (int)(sizeof(long double) + sizeof(int)));
	MPI_Aint tlb, text;
	CHECK_RC(MPI_Type_get_extent(MPI_LONG_DOUBLE_INT, &tlb, &text));
	CHECK(tlb == 0 && text == (MPI_Aint)sizeof(struct { long double a; int b; }));

	/* Classes and strings. */
	char str[MPI_MAX_ERROR_STRING];
	CHECK_RC(MPI_Error_string(MPI_ERR_TRUNCATE, str, &len));
	CHECK(len > 0 && strstr(str, "truncat"));
	int cls;
	CHECK_RC(MPI_Error_class(MPI_ERR_RANK, &cls));
	CHECK(cls == MPI_ERR_RANK);
	int myclass, mycode, lastcode, flag;
	int *attr;
	CHECK_RC(MPI_Add_error_class(&myclass));
	CHECK_RC(MPI_Add_error_code(myclass, &mycode));
	CHECK_RC(MPI_Add_error_string(mycode, "hympi test error"));
	CHECK_RC(MPI_Error_class(mycode, &cls));
	CHECK(cls == myclass);
	CHECK_RC(MPI_Error_string(mycode, str, &len));
	CHECK(strcmp(str, "hympi test error") == 0);
	CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &attr, &flag));
	lastcode = *attr;
	CHECK(flag && lastcode >= mycode);

	/* Predefined attributes point to ints. */
	CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &attr, &flag));
	CHECK(flag && *attr >= 32767);
	CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &attr, &flag));
	CHECK(flag && (*attr == 0 || *attr == 1));
	CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &attr, &flag));
	CHECK(flag && *attr == size);
	CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &attr, &flag));
	CHECK(flag);
	CHECK_RC(MPI_Attr_get(MPI_COMM_WORLD, MPI_HOST, &attr, &flag));
	CHECK(flag);

	/* User keyvals: set, get, replace (delete callback), delete. */
	int key, val1 = 1, val2 = 10;
	CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_fn, &key, &deletes));
	void *got;
	CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, key, &got, &flag));
	CHECK(!flag);
	CHECK_RC(MPI_Comm_set_attr(MPI_COMM_WORLD, key, &val1));
	CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, key, &got, &flag));
	CHECK(flag && got == &val1);
	CHECK_RC(MPI_Comm_set_attr(MPI_COMM_WORLD, key, &val2));
	CHECK(deletes == 1);
	CHECK_RC(MPI_Comm_delete_attr(MPI_COMM_WORLD, key));
	CHECK(deletes == 11);
	CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, key, &got, &flag));
	CHECK(!flag);
	CHECK_RC(MPI_Comm_free_keyval(&key));
	CHECK(key == MPI_KEYVAL_INVALID);
	/* Attributes on MPI_COMM_SELF are deleted at MPI_Finalize. */
	int self_key;
	static int self_val = 100;
	CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, del_fn, &self_key, &deletes));
	CHECK_RC(MPI_Comm_set_attr(MPI_COMM_SELF, self_key, &self_val));

	/* Default handler is MPI_ERRORS_ARE_FATAL. */
	MPI_Errhandler eh;
	CHECK_RC(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
	CHECK(eh == MPI_ERRORS_ARE_FATAL);

	/* A user handler sees the code and the communicator. */
	MPI_Errhandler mine;
	CHECK_RC(MPI_Comm_create_errhandler(my_handler, &mine));
	CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, mine));
	int rc = MPI_Send(&v, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
	CHECK(rc == MPI_ERR_RANK && handler_calls == 1 && handler_code == MPI_ERR_RANK);
	CHECK(handler_comm == MPI_COMM_WORLD);
	CHECK_RC(MPI_Comm_call_errhandler(MPI_COMM_WORLD, mycode));
	CHECK(handler_calls == 2 && handler_code == mycode);
	CHECK_RC(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
	CHECK(eh == mine);
	CHECK_RC(MPI_Errhandler_free(&eh));
	CHECK(eh == MPI_ERRHANDLER_NULL);
	/* Still attached: still called. */
	rc = MPI_Recv(&v, 1, MPI_INT, 0, -7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	CHECK(rc == MPI_ERR_TAG && handler_calls == 3);
	CHECK_RC(MPI_Errhandler_free(&mine));

	/* ERRORS_RETURN, and functions hympi does not implement. */
	CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
	rc = PMPI_File_delete("x", MPI_INFO_NULL);
	CHECK(rc == MPI_ERR_UNSUPPORTED_OPERATION);
	CHECK_RC(MPI_Error_string(rc, str, &len));
	CHECK(len > 0);
	rc = MPI_Comm_set_errhandler(MPI_COMM_WORLD, (MPI_Errhandler)(intptr_t)0x50000fe);
	CHECK(rc != MPI_SUCCESS);

	/* Handle conversion keeps predefined values. */
	CHECK(MPI_Comm_toint(MPI_COMM_WORLD) == 0x101);
	CHECK(MPI_Comm_fromint(0x102) == MPI_COMM_SELF);
	CHECK(MPI_Type_toint(MPI_INT) == 0x209);

	/* Info objects. */
	MPI_Info info, info2;
	char ival[MPI_MAX_INFO_VAL];
	int nkeys, vlen;
	CHECK_RC(MPI_Info_create(&info));
	CHECK((intptr_t)info >= 0x1000);
	CHECK_RC(MPI_Info_set(info, "a", "1"));
	CHECK_RC(MPI_Info_set(info, "b", "two"));
	CHECK_RC(MPI_Info_set(info, "a", "one"));
	CHECK_RC(MPI_Info_get_nkeys(info, &nkeys));
	CHECK(nkeys == 2);
	CHECK_RC(MPI_Info_dup(info, &info2));
	CHECK_RC(MPI_Info_delete(info, "a"));
	CHECK_RC(MPI_Info_get_valuelen(info2, "a", &vlen, &flag));
	CHECK(flag && vlen == 3);
	int buflen = sizeof ival;
	CHECK_RC(MPI_Info_get_string(info2, "a", &buflen, ival, &flag));
	CHECK(flag && strcmp(ival, "one") == 0 && buflen == 4);
	CHECK_RC(MPI_Info_get_nthkey(info2, 1, ival));
	CHECK(strcmp(ival, "b") == 0);
	CHECK_RC(MPI_Info_get_string(info, "a", &buflen, ival, &flag));
	CHECK(!flag);
	CHECK_RC(MPI_Info_get_nkeys(MPI_INFO_ENV, &nkeys));
	CHECK(nkeys > 0); /* command, maxprocs, ...: the standard's environment keys */
	CHECK_RC(MPI_Info_free(&info));
	CHECK_RC(MPI_Info_free(&info2));
	CHECK(info == MPI_INFO_NULL);

	/* Dims_create. */
	int dims[3] = {0, 0, 0};
	CHECK_RC(MPI_Dims_create(12, 3, dims));
	CHECK(dims[0] * dims[1] * dims[2] == 12 && dims[0] >= dims[1] && dims[1] >= dims[2]);

	CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
	report_ok();
	CHECK_RC(MPI_Finalize());
	CHECK(deletes == 111);
	return 0;
}
