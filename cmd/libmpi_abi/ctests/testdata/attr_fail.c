/* Attribute callbacks that fail, and keyvals freed more than once (issue
 * 18, MPICH's attr/attrerr, attrerrcomm and keyval_double_free_win).
 * - A copy callback that fails makes MPI_Comm_dup (and _with_info) return
 *   its error and MPI_COMM_NULL; attributes copied before it are deleted
 *   again, and the parent is untouched.
 * - A window keyval freed in its own delete callback and again through
 *   copies of the handle: every free succeeds while attributes hold it,
 *   and the callbacks keep running until the last attribute goes. */
#include <stdint.h>
#include "check.h"

static int copies, deletes, win_deletes;

static int copy_ok(MPI_Comm c, int kv, void *extra, void *in, void *out, int *flag)
{
	copies++;
	*(void **)out = in;
	*flag = 1;
	return MPI_SUCCESS;
}

static int copy_fail(MPI_Comm c, int kv, void *extra, void *in, void *out, int *flag)
{
	*flag = 1;
	return MPI_ERR_OTHER;
}

static int count_delete(MPI_Comm c, int kv, void *val, void *extra)
{
	deletes++;
	return MPI_SUCCESS;
}

static int win_delete(MPI_Win w, int kv, void *val, void *extra)
{
	win_deletes++;
	/* Freed again from inside its own callback. */
	CHECK_RC(MPI_Win_free_keyval(&kv));
	return MPI_SUCCESS;
}

static void dup_fails(int with_info)
{
	MPI_Comm parent, d = MPI_COMM_WORLD;
	int k_ok, k_bad;
	CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &parent));
	CHECK_RC(MPI_Comm_set_errhandler(parent, MPI_ERRORS_RETURN));
	CHECK_RC(MPI_Comm_create_keyval(copy_ok, count_delete, &k_ok, NULL));
	CHECK_RC(MPI_Comm_create_keyval(copy_fail, count_delete, &k_bad, NULL));
	/* Attributes are copied in the order they were set: the good one
	 * first, so the failure finds a half-made duplicate to undo. */
	CHECK_RC(MPI_Comm_set_attr(parent, k_ok, (void *)(intptr_t)1));
	CHECK_RC(MPI_Comm_set_attr(parent, k_bad, (void *)(intptr_t)2));
	copies = deletes = 0;
	int rc = with_info ? MPI_Comm_dup_with_info(parent, MPI_INFO_NULL, &d) : MPI_Comm_dup(parent, &d);
	int cls = -1;
	MPI_Error_class(rc, &cls);
	CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_OTHER);
	CHECK(d == MPI_COMM_NULL);
	CHECK(copies == 1 && deletes == 1);
	/* The parent keeps both attributes and still works. */
	void *v;
	int flag;
	CHECK_RC(MPI_Comm_get_attr(parent, k_ok, &v, &flag));
	CHECK(flag && v == (void *)(intptr_t)1);
	CHECK_RC(MPI_Comm_get_attr(parent, k_bad, &v, &flag));
	CHECK(flag && v == (void *)(intptr_t)2);
	CHECK_RC(MPI_Barrier(parent));
	CHECK_RC(MPI_Comm_delete_attr(parent, k_bad));
	CHECK_RC(MPI_Comm_dup(parent, &d));
	CHECK(d != MPI_COMM_NULL);
	CHECK_RC(MPI_Barrier(d));
	CHECK_RC(MPI_Comm_free(&d));
	CHECK_RC(MPI_Comm_free(&parent));
	CHECK_RC(MPI_Comm_free_keyval(&k_ok));
	CHECK_RC(MPI_Comm_free_keyval(&k_bad));
}

static void win_keyval_double_free(void)
{
	int buf[2];
	MPI_Win w[2];
	for (int i = 0; i < 2; i++)
		CHECK_RC(MPI_Win_create(&buf[i], sizeof(int), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w[i]));
	int kv, copy;
	CHECK_RC(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, win_delete, &kv, NULL));
	copy = kv;
	CHECK_RC(MPI_Win_set_attr(w[0], kv, NULL));
	CHECK_RC(MPI_Win_set_attr(w[1], kv, NULL));
	win_deletes = 0;
	CHECK_RC(MPI_Win_free(&w[0]));
	CHECK(win_deletes == 1);
	CHECK_RC(MPI_Win_free_keyval(&kv));
	CHECK(kv == MPI_KEYVAL_INVALID);
	CHECK_RC(MPI_Win_free_keyval(&copy));
	/* Freed, yet w[1]'s attribute still runs its callback. */
	CHECK_RC(MPI_Win_free(&w[1]));
	CHECK(win_deletes == 2);
	/* No one holds it any more: now it is an invalid keyval. */
	int kv2;
	CHECK_RC(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &kv2, NULL));
	int dead = kv2;
	CHECK_RC(MPI_Win_free_keyval(&kv2));
	CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
	int cls = -1;
	MPI_Error_class(MPI_Win_free_keyval(&dead), &cls);
	CHECK(cls == MPI_ERR_KEYVAL);
	CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	dup_fails(0);
	dup_fails(1);
	win_keyval_double_free();
	report_ok();
	MPI_Finalize();
	return 0;
}
