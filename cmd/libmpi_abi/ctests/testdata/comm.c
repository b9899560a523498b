/* Communicators and groups: Dup (attribute copy callbacks, inherited error
 * handler), Split (colours, keys, MPI_UNDEFINED), Split_type, Create,
 * Create_group, Compare, Free (delete callbacks), and the group calls. */
#include "check.h"

static int copies, deletes;

static int copy_fn(MPI_Comm comm, int key, void *extra, void *in, void *out, int *flag)
{
	(void)comm, (void)key, (void)extra;
	copies++;
	*(void **)out = (char *)in + 1;
	*flag = 1;
	return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm comm, int key, void *val, void *extra)
{
	(void)comm, (void)key, (void)val, (void)extra;
	deletes++;
	return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size, r, n, res;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);

	/* Dup copies attributes through the callbacks and the error handler. */
	static char base[8];
	int k_copy, k_dup, k_null;
	CHECK_RC(MPI_Comm_create_keyval(copy_fn, delete_fn, &k_copy, NULL));
	CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, delete_fn, &k_dup, NULL));
	CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &k_null, NULL));
	CHECK_RC(MPI_Comm_set_attr(MPI_COMM_WORLD, k_copy, base));
	CHECK_RC(MPI_Comm_set_attr(MPI_COMM_WORLD, k_dup, base + 4));
	CHECK_RC(MPI_Comm_set_attr(MPI_COMM_WORLD, k_null, base));
	CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
	MPI_Comm dup;
	CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
	CHECK(dup != MPI_COMM_WORLD && dup != MPI_COMM_NULL);
	CHECK((intptr_t)dup >= 0x1000);
	MPI_Comm_rank(dup, &r);
	MPI_Comm_size(dup, &n);
	CHECK(r == rank && n == size);
	void *v;
	int flag;
	CHECK_RC(MPI_Comm_get_attr(dup, k_copy, &v, &flag));
	CHECK(flag && v == base + 1 && copies == 1);
	CHECK_RC(MPI_Comm_get_attr(dup, k_dup, &v, &flag));
	CHECK(flag && v == base + 4);
	CHECK_RC(MPI_Comm_get_attr(dup, k_null, &v, &flag));
	CHECK(!flag);
	MPI_Errhandler eh;
	CHECK_RC(MPI_Comm_get_errhandler(dup, &eh));
	CHECK(eh == MPI_ERRORS_RETURN);
	CHECK_RC(MPI_Comm_compare(MPI_COMM_WORLD, dup, &res));
	CHECK(res == MPI_CONGRUENT);
	CHECK_RC(MPI_Comm_compare(dup, dup, &res));
	CHECK(res == MPI_IDENT);

	/* Traffic on dup does not match receives on world. */
	int a = rank, b = -1;
	MPI_Request rq;
	CHECK_RC(MPI_Irecv(&b, 1, MPI_INT, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &rq));
	CHECK_RC(MPI_Send(&a, 1, MPI_INT, rank, 3, dup));
	int c = -1;
	CHECK_RC(MPI_Recv(&c, 1, MPI_INT, rank, 3, dup, MPI_STATUS_IGNORE));
	CHECK(c == rank);
	CHECK_RC(MPI_Send(&a, 1, MPI_INT, rank, 3, MPI_COMM_WORLD));
	CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
	CHECK(b == rank);

	/* Split by parity, reversed order. */
	MPI_Comm half;
	CHECK_RC(MPI_Comm_split(dup, rank % 2, -rank, &half));
	MPI_Comm_rank(half, &r);
	MPI_Comm_size(half, &n);
	CHECK(n == (size + 1 - rank % 2) / 2);
	int mine = rank, sumh;
	CHECK_RC(MPI_Allreduce(&mine, &sumh, 1, MPI_INT, MPI_SUM, half));
	int expect = 0;
	for (int i = rank % 2; i < size; i += 2) expect += i;
	CHECK(sumh == expect);
	CHECK(r == n - 1 - rank / 2);
	/* MPI_UNDEFINED gives MPI_COMM_NULL. */
	MPI_Comm none;
	CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 1, 0, &none));
	if (rank == 0) CHECK(none == MPI_COMM_NULL);
	else CHECK_RC(MPI_Comm_free(&none));
	MPI_Comm shm;
	CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shm));
	MPI_Comm_size(shm, &n);
	CHECK(n == size);
	CHECK_RC(MPI_Comm_free(&shm));

	/* Groups. */
	MPI_Group world, evens, odds, first, u, inter, diff;
	CHECK_RC(MPI_Comm_group(MPI_COMM_WORLD, &world));
	CHECK_RC(MPI_Group_size(world, &n));
	CHECK(n == size);
	CHECK_RC(MPI_Group_rank(world, &r));
	CHECK(r == rank);
	int ranges[1][3] = {{0, size - 1, 2}};
	CHECK_RC(MPI_Group_range_incl(world, 1, ranges, &evens));
	CHECK_RC(MPI_Group_range_excl(world, 1, ranges, &odds));
	CHECK_RC(MPI_Group_size(evens, &n));
	CHECK(n == (size + 1) / 2);
	int zero = 0;
	CHECK_RC(MPI_Group_incl(world, 1, &zero, &first));
	CHECK_RC(MPI_Group_union(odds, evens, &u));
	CHECK_RC(MPI_Group_compare(u, world, &res));
	CHECK(size == 1 ? res == MPI_IDENT : res == MPI_SIMILAR);
	CHECK_RC(MPI_Group_intersection(evens, first, &inter));
	CHECK_RC(MPI_Group_compare(inter, first, &res));
	CHECK(res == MPI_IDENT);
	CHECK_RC(MPI_Group_difference(world, evens, &diff));
	CHECK_RC(MPI_Group_compare(diff, odds, &res));
	CHECK(res == MPI_IDENT);
	MPI_Group ex;
	CHECK_RC(MPI_Group_excl(world, 1, &zero, &ex));
	CHECK_RC(MPI_Group_size(ex, &n));
	CHECK(n == size - 1);
	CHECK_RC(MPI_Group_rank(first, &r));
	CHECK(rank == 0 ? r == 0 : r == MPI_UNDEFINED);
	int in2[2] = {0, MPI_PROC_NULL}, out2[2];
	CHECK_RC(MPI_Group_translate_ranks(first, 2, in2, world, out2));
	CHECK(out2[0] == 0 && out2[1] == MPI_PROC_NULL);
	CHECK_RC(MPI_Group_size(MPI_GROUP_EMPTY, &n));
	CHECK(n == 0);

	/* Create (collective over world) and Create_group (evens only). */
	MPI_Comm ce;
	CHECK_RC(MPI_Comm_create(MPI_COMM_WORLD, evens, &ce));
	if (rank % 2 == 0) {
		MPI_Comm_size(ce, &n);
		CHECK(n == (size + 1) / 2);
		MPI_Comm cg;
		CHECK_RC(MPI_Comm_create_group(MPI_COMM_WORLD, evens, 5, &cg));
		MPI_Comm_rank(cg, &r);
		CHECK(r == rank / 2);
		CHECK_RC(MPI_Barrier(cg));
		CHECK_RC(MPI_Comm_free(&cg));
		CHECK_RC(MPI_Comm_free(&ce));
	} else {
		CHECK(ce == MPI_COMM_NULL);
	}
	MPI_Group gs[] = {world, evens, odds, first, u, inter, diff, ex};
	for (unsigned i = 0; i < sizeof gs / sizeof gs[0]; i++) {
		CHECK_RC(MPI_Group_free(&gs[i]));
		CHECK(gs[i] == MPI_GROUP_NULL);
	}

	/* Free runs delete callbacks: dup has k_copy and k_dup. */
	deletes = 0;
	CHECK_RC(MPI_Comm_free(&half));
	CHECK_RC(MPI_Comm_free(&dup));
	CHECK(dup == MPI_COMM_NULL && deletes == 2);
	int rc = MPI_Comm_free(&dup);
	CHECK(rc == MPI_ERR_COMM);
	CHECK_RC(MPI_Comm_delete_attr(MPI_COMM_WORLD, k_copy));
	CHECK_RC(MPI_Comm_delete_attr(MPI_COMM_WORLD, k_dup));

	CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
	report_ok();
	MPI_Finalize();
	return 0;
}
