/* intercomm_create.c — MPI_Comm_create on an intercommunicator: each side
 * passes a subgroup of its local group; members get the intercommunicator
 * between the two subgroups, ranked as in their group; others, and a side
 * whose partner chose nobody, get MPI_COMM_NULL (as MPICH does). */
#include "check.h"

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size < 2) {
		report_ok();
		MPI_Finalize();
		return 0;
	}
	/* Evens and odds, leaders world ranks 0 and 1. */
	int color = rank % 2;
	MPI_Comm local, ic, sub;
	CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local));
	CHECK_RC(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 7, &ic));
	int lsize, rsize, lrank;
	MPI_Comm_size(local, &lsize);
	MPI_Comm_rank(local, &lrank);
	CHECK_RC(MPI_Comm_remote_size(ic, &rsize));

	/* Each side keeps its local ranks in reverse order, all but the
	 * last local rank when the side has more than one process. */
	MPI_Group lg, g;
	CHECK_RC(MPI_Comm_group(ic, &lg));
	int keep = lsize > 1 ? lsize - 1 : 1, ranks[64];
	for (int i = 0; i < keep; i++) ranks[i] = keep - 1 - i;
	CHECK_RC(MPI_Group_incl(lg, keep, ranks, &g));
	CHECK_RC(MPI_Comm_create(ic, g, &sub));
	int rkeep = rsize > 1 ? rsize - 1 : 1;
	if (lrank >= keep) {
		CHECK(sub == MPI_COMM_NULL);
	} else {
		int flag = 0, n, r;
		CHECK(sub != MPI_COMM_NULL);
		CHECK_RC(MPI_Comm_test_inter(sub, &flag));
		CHECK(flag);
		CHECK_RC(MPI_Comm_size(sub, &n));
		CHECK(n == keep);
		CHECK_RC(MPI_Comm_remote_size(sub, &n));
		CHECK(n == rkeep);
		CHECK_RC(MPI_Comm_rank(sub, &r));
		CHECK(r == keep - 1 - lrank); /* the group's order */
		/* Rank r talks to remote rank r (when it exists). */
		if (r < rkeep) {
			int got = -1, mine = 100 * color + r;
			CHECK_RC(MPI_Sendrecv(&mine, 1, MPI_INT, r, 1, &got, 1, MPI_INT, r, 1, sub, MPI_STATUS_IGNORE));
			CHECK(got == 100 * (1 - color) + r);
		}
		CHECK_RC(MPI_Comm_free(&sub));
	}
	CHECK_RC(MPI_Group_free(&g));

	/* The odd side chooses nobody: everyone gets MPI_COMM_NULL. */
	if (color == 1)
		g = MPI_GROUP_EMPTY;
	else
		CHECK_RC(MPI_Group_incl(lg, 1, ranks + keep - 1, &g));
	CHECK_RC(MPI_Comm_create(ic, g, &sub));
	CHECK(sub == MPI_COMM_NULL);
	if (g != MPI_GROUP_EMPTY) CHECK_RC(MPI_Group_free(&g));

	/* A group that is not a subgroup of the local group is refused (MPICH
	 * does not check, and hangs in the collective). */
	MPI_Group rg;
	MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
	CHECK_RC(MPI_Comm_remote_group(ic, &rg));
	if (rank == 0) CHECK(MPI_Comm_create(ic, rg, &sub) != MPI_SUCCESS);
	CHECK_RC(MPI_Group_free(&rg));

	CHECK_RC(MPI_Group_free(&lg));
	CHECK_RC(MPI_Comm_free(&ic));
	CHECK_RC(MPI_Comm_free(&local));
	report_ok();
	MPI_Finalize();
	return 0;
}
