/* Intercommunicators: Intercomm_create between the even and odd world
 * ranks, the queries, point-to-point naming remote ranks (statuses too),
 * probes, Comm_dup, Intercomm_merge ordered by the high flag,
 * Intercomm_create_from_groups, and the prefix reductions refused with
 * MPI_ERR_COMM (the other collectives: coll_inter.c). */
#include "check.h"

static void exchange(MPI_Comm ic, int rank, int color)
{
	int rsize;
	CHECK_RC(MPI_Comm_remote_size(ic, &rsize));
	MPI_Request rq[64];
	for (int p = 0; p < rsize; p++) CHECK_RC(MPI_Isend(&rank, 1, MPI_INT, p, 3, ic, &rq[p]));
	for (int k = 0; k < rsize; k++) {
		int v = -1, flag = 0;
		MPI_Status st;
		CHECK_RC(MPI_Probe(MPI_ANY_SOURCE, 3, ic, &st));
		CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < rsize);
		CHECK_RC(MPI_Iprobe(st.MPI_SOURCE, 3, ic, &flag, MPI_STATUS_IGNORE));
		CHECK(flag);
		CHECK_RC(MPI_Recv(&v, 1, MPI_INT, st.MPI_SOURCE, 3, ic, &st));
		/* Remote rank k of the other parity is world rank 2k + (1 - color). */
		CHECK(v == 2 * st.MPI_SOURCE + (1 - color));
	}
	CHECK_RC(MPI_Waitall(rsize, rq, MPI_STATUSES_IGNORE));
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size, flag, n;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	CHECK_RC(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag));
	CHECK(!flag);
	CHECK(MPI_Comm_remote_size(MPI_COMM_WORLD, &n) == MPI_ERR_COMM);
	if (size < 2) {
		report_ok();
		MPI_Finalize();
		return 0;
	}
	int color = rank % 2;
	MPI_Comm local, ic;
	CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local));
	/* Leaders: local rank 0; the remote one is world rank 1 - color.
	 * Non-leaders pass MPI_COMM_NULL as the peer communicator. */
	int lrank;
	MPI_Comm_rank(local, &lrank);
	CHECK_RC(MPI_Intercomm_create(local, 0, lrank == 0 ? MPI_COMM_WORLD : MPI_COMM_NULL, 1 - color, 99, &ic));
	MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
	CHECK_RC(MPI_Comm_test_inter(ic, &flag));
	CHECK(flag);
	int lsize = color ? size / 2 : (size + 1) / 2, rsize = size - lsize;
	MPI_Comm_size(ic, &n);
	CHECK(n == lsize);
	MPI_Comm_rank(ic, &n);
	CHECK(n == rank / 2);
	CHECK_RC(MPI_Comm_remote_size(ic, &n));
	CHECK(n == rsize);
	MPI_Group rg, wg;
	CHECK_RC(MPI_Comm_remote_group(ic, &rg));
	MPI_Group_size(rg, &n);
	CHECK(n == rsize);
	MPI_Comm_group(MPI_COMM_WORLD, &wg);
	int zero = 0, w;
	MPI_Group_translate_ranks(rg, 1, &zero, wg, &w);
	CHECK(w == 1 - color);
	MPI_Group_free(&rg);

	exchange(ic, rank, color);
	CHECK(MPI_Send(&rank, 1, MPI_INT, rsize, 0, ic) == MPI_ERR_RANK);
	CHECK_RC(MPI_Barrier(ic));
	int x = 1, y;
	CHECK(MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, ic) == MPI_ERR_COMM);
	/* Topologies and split_type need an intracommunicator. */
	MPI_Comm bad;
	int one = 1, zero1 = 0;
	CHECK(MPI_Cart_create(ic, 1, &one, &zero1, 0, &bad) == MPI_ERR_COMM);
	CHECK(MPI_Comm_split_type(ic, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &bad) == MPI_ERR_COMM);
	int idx0[1] = {0}, edge0[1] = {0};
	CHECK(MPI_Graph_create(ic, 1, idx0, edge0, 0, &bad) == MPI_ERR_COMM);

	MPI_Comm dup;
	CHECK_RC(MPI_Comm_dup(ic, &dup));
	CHECK_RC(MPI_Comm_test_inter(dup, &flag));
	CHECK(flag);
	exchange(dup, rank, color);
	int res;
	CHECK_RC(MPI_Comm_compare(ic, dup, &res));
	CHECK(res == MPI_CONGRUENT);
	CHECK_RC(MPI_Comm_compare(ic, local, &res));
	CHECK(res == MPI_UNEQUAL);
	CHECK_RC(MPI_Comm_free(&dup));

	/* Split: local rank parity picks the part; the even world ranks have
	 * the odd local ranks first by key. */
	MPI_Comm sic;
	CHECK_RC(MPI_Comm_split(ic, lrank % 2, color ? 0 : -lrank, &sic));
	{
		int rparts = 0, lparts = 0;
		for (int i = 0; i < size; i++) {
			if ((i / 2) % 2 != lrank % 2) continue;
			if (i % 2 == color) lparts++;
			else rparts++;
		}
		if (rparts == 0) {
			CHECK(sic == MPI_COMM_NULL);
		} else {
			CHECK_RC(MPI_Comm_test_inter(sic, &flag));
			CHECK(flag);
			MPI_Comm_size(sic, &n);
			CHECK(n == lparts);
			CHECK_RC(MPI_Comm_remote_size(sic, &n));
			CHECK(n == rparts);
			/* Every member writes to remote rank 0, which takes them all. */
			int got = -1, rl;
			MPI_Comm_rank(sic, &rl);
			CHECK_RC(MPI_Send(&rank, 1, MPI_INT, 0, 8, sic));
			for (int k = 0; rl == 0 && k < rparts; k++) {
				CHECK_RC(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 8, sic, MPI_STATUS_IGNORE));
				CHECK(got % 2 != color && (got / 2) % 2 == lrank % 2);
			}
			CHECK_RC(MPI_Comm_free(&sic));
		}
	}

	/* The odd group first. */
	MPI_Comm merged;
	CHECK_RC(MPI_Intercomm_merge(ic, color == 0, &merged));
	MPI_Comm_size(merged, &n);
	CHECK(n == size);
	MPI_Comm_rank(merged, &n);
	CHECK(n == (color ? rank / 2 : size / 2 + rank / 2));
	int sum = 0;
	CHECK_RC(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, merged));
	CHECK(sum == size * (size - 1) / 2);
	CHECK_RC(MPI_Comm_free(&merged));
	CHECK_RC(MPI_Comm_free(&ic));
	CHECK(ic == MPI_COMM_NULL);

	/* From groups, with no communicator in common. */
	int mine[64], theirs[64], nm = 0, nt = 0;
	for (int i = 0; i < size; i++) {
		if (i % 2 == color) mine[nm++] = i;
		else theirs[nt++] = i;
	}
	MPI_Group lg;
	MPI_Group_incl(wg, nm, mine, &lg);
	MPI_Group_incl(wg, nt, theirs, &rg);
	CHECK_RC(MPI_Intercomm_create_from_groups(lg, 0, rg, 0, "org.hympi.test.ic", MPI_INFO_NULL, MPI_ERRORS_RETURN,
						  &ic));
	MPI_Errhandler eh;
	MPI_Comm_get_errhandler(ic, &eh);
	CHECK(eh == MPI_ERRORS_RETURN);
	exchange(ic, rank, color);
	CHECK_RC(MPI_Comm_free(&ic));
	MPI_Group_free(&lg);
	MPI_Group_free(&rg);
	MPI_Group_free(&wg);
	MPI_Comm_free(&local);

	MPI_Barrier(MPI_COMM_WORLD);
	report_ok();
	MPI_Finalize();
	return 0;
}
