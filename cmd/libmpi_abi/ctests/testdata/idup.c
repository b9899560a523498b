/* idup.c — MPI_Comm_idup and MPI_Comm_idup_with_info complete through
 * progress: a rank's idup stays pending until every member has started
 * it, several are in flight at once (started in different orders on
 * different ranks, waited in any order), point-to-point traffic goes on
 * meanwhile, and each new communicator has a context of its own. */
#include "check.h"

/* The sum of ranks over c, which must be a working communicator. */
static void check_works(MPI_Comm c)
{
	int r, n, sum = -1;
	CHECK_RC(MPI_Comm_rank(c, &r));
	CHECK_RC(MPI_Comm_size(c, &n));
	CHECK_RC(MPI_Allreduce(&r, &sum, 1, MPI_INT, MPI_SUM, c));
	CHECK(sum == n * (n - 1) / 2);
}

int main(int argc, char **argv)
{
	int rank, size, flag, x;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);

	/* 1. Rank 0 starts its idup only after a message each other rank
	 * sends after starting theirs: their requests cannot have completed
	 * before, and a blocking duplicate would deadlock here. */
	MPI_Comm d0;
	MPI_Request rq;
	if (rank == 0) {
		for (int i = 1; i < size; i++) CHECK_RC(MPI_Recv(&x, 1, MPI_INT, i, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
		CHECK_RC(MPI_Comm_idup(MPI_COMM_WORLD, &d0, &rq));
	} else {
		CHECK_RC(MPI_Comm_idup(MPI_COMM_WORLD, &d0, &rq));
		flag = 1;
		CHECK_RC(MPI_Test(&rq, &flag, MPI_STATUS_IGNORE));
		CHECK(flag == 0);
		CHECK(rq != MPI_REQUEST_NULL);
		CHECK_RC(MPI_Ssend(&rank, 1, MPI_INT, 0, 1, MPI_COMM_WORLD));
	}
	CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
	CHECK(rq == MPI_REQUEST_NULL);
	check_works(d0);

	/* 2. Four in flight, started in opposite orders on even and odd
	 * ranks, with point-to-point traffic between, waited all at once. */
	enum { N = 4 };
	MPI_Comm base[N], dup[N];
	MPI_Request reqs[N + 2];
	for (int i = 0; i < N; i++) CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &base[i]));
	int to = (rank + 1) % size, from = (rank + size - 1) % size, got = -1;
	CHECK_RC(MPI_Irecv(&got, 1, MPI_INT, from, 2, MPI_COMM_WORLD, &reqs[N]));
	for (int k = 0; k < N; k++) {
		int i = rank % 2 ? N - 1 - k : k;
		CHECK_RC(MPI_Comm_idup(base[i], &dup[i], &reqs[i]));
		if (k == 1) CHECK_RC(MPI_Isend(&rank, 1, MPI_INT, to, 2, MPI_COMM_WORLD, &reqs[N + 1]));
	}
	CHECK_RC(MPI_Waitall(N + 2, reqs, MPI_STATUSES_IGNORE));
	CHECK(got == from);
	for (int i = 0; i < N; i++) check_works(dup[i]);
	/* Each has its own context: a message on one is not received on
	 * another, even with matching source and tag. */
	int a = -1, b = -1;
	MPI_Request ra, rb;
	CHECK_RC(MPI_Irecv(&a, 1, MPI_INT, MPI_ANY_SOURCE, 3, dup[0], &ra));
	CHECK_RC(MPI_Irecv(&b, 1, MPI_INT, MPI_ANY_SOURCE, 3, dup[1], &rb));
	int v1 = 100 + rank, v0 = 200 + rank;
	CHECK_RC(MPI_Send(&v1, 1, MPI_INT, to, 3, dup[1]));
	CHECK_RC(MPI_Send(&v0, 1, MPI_INT, to, 3, dup[0]));
	CHECK_RC(MPI_Wait(&ra, MPI_STATUS_IGNORE));
	CHECK_RC(MPI_Wait(&rb, MPI_STATUS_IGNORE));
	CHECK(a == 200 + from && b == 100 + from);

	/* 3. Overlapping agreements: ranks 0 and 3 duplicate A = {0,1,3}
	 * and B = {0,2,3} at once, while ranks 1 and 2 have made the same
	 * number of extra communicators, so both propose the same context
	 * id, above those of ranks 0 and 3. Ranks 0 and 3 must still get two
	 * distinct contexts. */
	if (size >= 4) {
		MPI_Comm A, B, dA = MPI_COMM_NULL, dB = MPI_COMM_NULL, tmp;
		int inA = rank == 0 || rank == 1 || rank == 3, inB = rank == 0 || rank == 2 || rank == 3;
		CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, inA ? 0 : MPI_UNDEFINED, rank, &A));
		CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, inB ? 0 : MPI_UNDEFINED, rank, &B));
		if (rank == 1 || rank == 2)
			for (int i = 0; i < 5; i++) {
				CHECK_RC(MPI_Comm_dup(MPI_COMM_SELF, &tmp));
				CHECK_RC(MPI_Comm_free(&tmp));
			}
		MPI_Request q[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
		if (inA) CHECK_RC(MPI_Comm_idup(A, &dA, &q[0]));
		if (inB) CHECK_RC(MPI_Comm_idup(B, &dB, &q[1]));
		CHECK_RC(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
		int va = -1, vb = -1, one = 1, two = 2;
		if (rank == 0) {
			/* Any source, one tag: only distinct contexts keep the
			 * message sent first, on B, out of the receive posted
			 * first, on A. */
			CHECK_RC(MPI_Irecv(&va, 1, MPI_INT, MPI_ANY_SOURCE, 4, dA, &q[0]));
			CHECK_RC(MPI_Irecv(&vb, 1, MPI_INT, MPI_ANY_SOURCE, 4, dB, &q[1]));
			CHECK_RC(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
			CHECK(va == 1 && vb == 2);
		} else if (rank == 3) {
			CHECK_RC(MPI_Ssend(&two, 1, MPI_INT, 0, 4, dB));
			CHECK_RC(MPI_Send(&one, 1, MPI_INT, 0, 4, dA));
		}
		if (inA) {
			check_works(dA);
			CHECK_RC(MPI_Comm_free(&dA));
			CHECK_RC(MPI_Comm_free(&A));
		}
		if (inB) {
			check_works(dB);
			CHECK_RC(MPI_Comm_free(&dB));
			CHECK_RC(MPI_Comm_free(&B));
		}
	}

	/* 4. With info: the hints are the new communicator's. */
	MPI_Info info, used;
	MPI_Comm di;
	char v[16];
	CHECK_RC(MPI_Info_create(&info));
	CHECK_RC(MPI_Info_set(info, "mpi_assert_no_any_tag", "true"));
	CHECK_RC(MPI_Comm_idup_with_info(MPI_COMM_WORLD, info, &di, &rq));
	CHECK_RC(MPI_Info_free(&info));
	CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
	check_works(di);
	CHECK_RC(MPI_Comm_get_info(di, &used));
	int vlen = sizeof v;
	CHECK_RC(MPI_Info_get_string(used, "mpi_assert_no_any_tag", &vlen, v, &flag));
	CHECK(flag && strcmp(v, "true") == 0);
	CHECK_RC(MPI_Info_free(&used));

	/* Bad arguments change nothing. */
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	CHECK(MPI_Comm_idup(MPI_COMM_NULL, &di, &rq) == MPI_ERR_COMM);
	CHECK(MPI_Comm_idup(MPI_COMM_WORLD, &di, NULL) == MPI_ERR_ARG);

	CHECK_RC(MPI_Comm_free(&di));
	CHECK_RC(MPI_Comm_free(&d0));
	for (int i = 0; i < N; i++) {
		CHECK_RC(MPI_Comm_free(&dup[i]));
		CHECK_RC(MPI_Comm_free(&base[i]));
	}
	report_ok();
	MPI_Finalize();
	return 0;
}
