/* Nonblocking collectives whose start call already completed them: their
 * handle is the complete operation's (shared with MPI_Isend's sends that
 * went out at once) and owns no request slot, so every call that takes a
 * request must treat it as complete, alone or mixed with point-to-point
 * requests, pending collectives and MPI_REQUEST_NULL. With one rank every
 * collective completes in its start call; with more, some do (whatever
 * the peers have done already) and the others are ordinary requests:
 * the checks hold for both. */
#include "check.h"

static int rank, size;

/* sum_to is 0 + 1 + ... + size-1 plus k per rank. */
static int sum_to(int k) { return size * (size - 1) / 2 + k * size; }

/* One Iallreduce of rank + k, completed by call (0 Wait, 1 Test loop,
 * 2 Request_get_status loop then Wait, 3 Waitall of one, 4 Testall of
 * one, 5 Waitany, 6 Testany loop, 7 Waitsome, 8 Testsome loop). */
static void allreduce_by(int call, int k)
{
	int in = rank + k, out = -1, flag = 0, idx, n, ids[1];
	MPI_Request r = MPI_REQUEST_NULL;
	MPI_Status st;
	CHECK_RC(MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r));
	CHECK(r != MPI_REQUEST_NULL);
	switch (call) {
	case 0:
		CHECK_RC(MPI_Wait(&r, &st));
		break;
	case 1:
		while (!flag)
			CHECK_RC(MPI_Test(&r, &flag, &st));
		break;
	case 2:
		while (!flag)
			CHECK_RC(MPI_Request_get_status(r, &flag, &st));
		CHECK(r != MPI_REQUEST_NULL); /* get_status leaves it */
		CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
		break;
	case 3:
		CHECK_RC(MPI_Waitall(1, &r, &st));
		break;
	case 4:
		while (!flag)
			CHECK_RC(MPI_Testall(1, &r, &flag, &st));
		break;
	case 5:
		CHECK_RC(MPI_Waitany(1, &r, &idx, &st));
		CHECK(idx == 0);
		break;
	case 6:
		for (idx = MPI_UNDEFINED; !flag;)
			CHECK_RC(MPI_Testany(1, &r, &idx, &flag, &st));
		CHECK(idx == 0);
		break;
	case 7:
		CHECK_RC(MPI_Waitsome(1, &r, &n, ids, &st));
		CHECK(n == 1 && ids[0] == 0);
		break;
	case 8:
		for (n = 0; n == 0;)
			CHECK_RC(MPI_Testsome(1, &r, &n, ids, &st));
		CHECK(n == 1 && ids[0] == 0);
		break;
	}
	CHECK(r == MPI_REQUEST_NULL);
	CHECK(out == sum_to(k));
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int next = (rank + 1) % size, prev = (rank + size - 1) % size;

	/* With one rank a collective is complete in its start call: two of
	 * them get the one handle of a complete operation, which is not a
	 * slot (a slot handle would differ). */
	if (size == 1) {
		MPI_Request a, b;
		CHECK_RC(MPI_Ibarrier(MPI_COMM_WORLD, &a));
		CHECK_RC(MPI_Ibarrier(MPI_COMM_WORLD, &b));
		CHECK(a != MPI_REQUEST_NULL && a == b);
		CHECK_RC(MPI_Wait(&a, MPI_STATUS_IGNORE));
		CHECK_RC(MPI_Wait(&b, MPI_STATUS_IGNORE));
		CHECK(a == MPI_REQUEST_NULL && b == MPI_REQUEST_NULL);

		/* Packed data (nbc.c's path) and a neighbourhood collective
		 * complete at once too; the packed result is unpacked by
		 * then. */
		MPI_Datatype strided;
		MPI_Comm ring;
		int in[4] = {5, -1, 6, -1}, out[4] = {0, -2, 0, -2}, nb[2] = {-1, -1}, dims[1] = {1}, per[1] = {1};
		CHECK_RC(MPI_Type_vector(2, 1, 2, MPI_INT, &strided));
		CHECK_RC(MPI_Type_commit(&strided));
		CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, per, 0, &ring));
		CHECK_RC(MPI_Ibarrier(MPI_COMM_WORLD, &a));
		CHECK_RC(MPI_Iallreduce(in, out, 1, strided, MPI_SUM, MPI_COMM_WORLD, &b));
		CHECK(b == a);
		CHECK(out[0] == 5 && out[1] == -2 && out[2] == 6 && out[3] == -2);
		MPI_Request c;
		CHECK_RC(MPI_Ineighbor_allgather(&in[0], 1, MPI_INT, nb, 1, MPI_INT, ring, &c));
		CHECK(c == a);
		MPI_Request all[3] = {a, b, c};
		CHECK_RC(MPI_Waitall(3, all, MPI_STATUSES_IGNORE));
		CHECK(nb[0] == 5 && nb[1] == 5);
		CHECK_RC(MPI_Comm_free(&ring));
		CHECK_RC(MPI_Type_free(&strided));
	}

	/* Every completion call, several times over (the first calls of a
	 * shape build its schedule, later ones reuse it). */
	for (int rep = 0; rep < 3; rep++)
		for (int call = 0; call < 9; call++)
			allreduce_by(call, 10 * rep + call);

	/* Arrays mixing collectives, receives, sends and MPI_REQUEST_NULL. */
	for (int call = 0; call < 6; call++) {
		int in = rank + call, sum = -1, bc = rank == 0 ? 40 + call : -1, got = -1, v = rank * 100 + call;
		int flag = 0, idx, n, ids[6], left;
		MPI_Request rq[6];
		MPI_Status sts[6];
		CHECK_RC(MPI_Irecv(&got, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, &rq[0]));
		CHECK_RC(MPI_Iallreduce(&in, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[1]));
		rq[2] = MPI_REQUEST_NULL;
		CHECK_RC(MPI_Ibarrier(MPI_COMM_WORLD, &rq[3]));
		CHECK_RC(MPI_Isend(&v, 1, MPI_INT, next, 7, MPI_COMM_WORLD, &rq[4]));
		CHECK_RC(MPI_Ibcast(&bc, 1, MPI_INT, 0, MPI_COMM_WORLD, &rq[5]));
		left = 5;
		switch (call) {
		case 0:
			CHECK_RC(MPI_Waitall(6, rq, sts));
			CHECK(sts[0].MPI_SOURCE == prev && sts[0].MPI_TAG == 7);
			CHECK(sts[2].MPI_SOURCE == MPI_ANY_SOURCE && sts[2].MPI_TAG == MPI_ANY_TAG);
			break;
		case 1:
			while (!flag)
				CHECK_RC(MPI_Testall(6, rq, &flag, sts));
			CHECK(sts[0].MPI_SOURCE == prev && sts[0].MPI_TAG == 7);
			break;
		case 2:
			while (left > 0) {
				CHECK_RC(MPI_Waitany(6, rq, &idx, sts));
				CHECK(idx >= 0 && idx < 6 && idx != 2 && rq[idx] == MPI_REQUEST_NULL);
				left--;
			}
			CHECK_RC(MPI_Waitany(6, rq, &idx, sts));
			CHECK(idx == MPI_UNDEFINED);
			break;
		case 3:
			while (left > 0) {
				CHECK_RC(MPI_Testany(6, rq, &idx, &flag, sts));
				if (flag && idx != MPI_UNDEFINED) left--;
			}
			break;
		case 4:
			while (left > 0) {
				CHECK_RC(MPI_Waitsome(6, rq, &n, ids, sts));
				CHECK(n >= 1);
				left -= n;
			}
			break;
		case 5:
			while (left > 0) {
				CHECK_RC(MPI_Testsome(6, rq, &n, ids, sts));
				left -= n;
			}
			break;
		}
		for (int i = 0; i < 6; i++)
			CHECK(rq[i] == MPI_REQUEST_NULL);
		CHECK(got == prev * 100 + call);
		CHECK(sum == sum_to(call));
		CHECK(bc == 40 + call);
	}

	/* MPI_Request_get_status_all/any/some over collectives. */
	{
		int a = rank, b = -1, c = rank == 0 ? 5 : 0, flag = 0, idx, n, ids[3];
		MPI_Request rq[3];
		CHECK_RC(MPI_Iallreduce(&a, &b, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[0]));
		CHECK_RC(MPI_Ibarrier(MPI_COMM_WORLD, &rq[1]));
		CHECK_RC(MPI_Ibcast(&c, 1, MPI_INT, 0, MPI_COMM_WORLD, &rq[2]));
		for (flag = 0; !flag;)
			CHECK_RC(MPI_Request_get_status_any(3, rq, &idx, &flag, MPI_STATUS_IGNORE));
		CHECK(idx >= 0 && idx < 3 && rq[idx] != MPI_REQUEST_NULL);
		for (n = 0; n == 0;)
			CHECK_RC(MPI_Request_get_status_some(3, rq, &n, ids, MPI_STATUSES_IGNORE));
		for (flag = 0; !flag;)
			CHECK_RC(MPI_Request_get_status_all(3, rq, &flag, MPI_STATUSES_IGNORE));
		for (int i = 0; i < 3; i++)
			CHECK(rq[i] != MPI_REQUEST_NULL);
		CHECK_RC(MPI_Waitall(3, rq, MPI_STATUSES_IGNORE));
		CHECK(b == sum_to(0) && c == 5);
	}

	/* MPI_Request_free of a collective, then the variable used again: the
	 * freed one still completes (its result arrives), and the next one
	 * on the same communicator is ordered after it. */
	{
		int a = rank + 1, b = -1, c = rank + 2, d = -1;
		MPI_Request r;
		CHECK_RC(MPI_Iallreduce(&a, &b, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r));
		CHECK_RC(MPI_Request_free(&r));
		CHECK(r == MPI_REQUEST_NULL);
		CHECK_RC(MPI_Iallreduce(&c, &d, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r));
		CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
		CHECK(r == MPI_REQUEST_NULL && d == sum_to(2));
		/* Its result arrives as MPI calls make progress, sooner on one
		 * rank than on another (the wait above need not finish it), so
		 * the ranks agree on when to stop: every rank must call the same
		 * collectives, and a loop each rank ended on its own would not. */
		double t0 = MPI_Wtime();
		for (int all_in = 0; !all_in;) {
			int in = *(volatile int *)&b == sum_to(1) || MPI_Wtime() - t0 > 30;
			CHECK_RC(MPI_Allreduce(&in, &all_in, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
		}
		CHECK(b == sum_to(1));
	}

	/* Data that travels packed (a strided type): unpacked before the
	 * completion call returns, and the packing state freed (valgrind
	 * would tell; here the values tell). */
	{
		MPI_Datatype strided;
		CHECK_RC(MPI_Type_vector(2, 1, 2, MPI_INT, &strided));
		CHECK_RC(MPI_Type_commit(&strided));
		for (int rep = 0; rep < 3; rep++) {
			int in[4] = {rank, -7, rank * 2, -7}, out[4] = {-1, -9, -1, -9};
			/* The type's extent is 3 ints: block p starts at 3p. */
			int gin[4] = {rank, -7, rank + 50, -7}, *gout = malloc(sizeof(int) * (3 * size + 1));
			for (int i = 0; i < 3 * size + 1; i++)
				gout[i] = -3;
			MPI_Request rq[2];
			CHECK_RC(MPI_Iallreduce(in, out, 1, strided, MPI_SUM, MPI_COMM_WORLD, &rq[0]));
			CHECK_RC(MPI_Iallgather(gin, 1, strided, gout, 1, strided, MPI_COMM_WORLD, &rq[1]));
			CHECK_RC(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
			CHECK(out[0] == sum_to(0) && out[2] == 2 * sum_to(0) && out[1] == -9 && out[3] == -9);
			for (int p = 0; p < size; p++) {
				int *g = gout + 3 * p;
				CHECK(g[0] == p && g[1] == -3 && g[2] == p + 50);
			}
			free(gout);
		}
		CHECK_RC(MPI_Type_free(&strided));
	}

	/* Bad arguments: the right class, the handle untouched. */
	CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
	{
		int a = 1, b = 0, cls;
		MPI_Request r = MPI_REQUEST_NULL;
		int rc = MPI_Iallreduce(&a, &b, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
		CHECK(rc != MPI_SUCCESS);
		CHECK_RC(MPI_Error_class(rc, &cls));
		CHECK(cls == MPI_ERR_COUNT && r == MPI_REQUEST_NULL);
		rc = MPI_Iallreduce(&a, &b, 1, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD, &r);
		CHECK_RC(MPI_Error_class(rc, &cls));
		CHECK(cls == MPI_ERR_TYPE && r == MPI_REQUEST_NULL);
		rc = MPI_Iallreduce(&a, &b, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD, &r);
		CHECK_RC(MPI_Error_class(rc, &cls));
		CHECK(cls == MPI_ERR_OP && r == MPI_REQUEST_NULL);
		rc = MPI_Ibarrier(MPI_COMM_WORLD, NULL);
		CHECK_RC(MPI_Error_class(rc, &cls));
		CHECK(cls == MPI_ERR_ARG);
		rc = MPI_Ibcast(&a, 1, MPI_INT, size, MPI_COMM_WORLD, &r);
		CHECK_RC(MPI_Error_class(rc, &cls));
		CHECK(cls == MPI_ERR_ROOT && r == MPI_REQUEST_NULL);
		/* A completed request waited again is MPI_REQUEST_NULL: an
		 * empty status, at once. */
		MPI_Status st;
		CHECK_RC(MPI_Ibarrier(MPI_COMM_WORLD, &r));
		CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
		CHECK_RC(MPI_Wait(&r, &st));
		CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG);
	}
	CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));

	/* The communicator is still in step: a blocking collective agrees. */
	int one = 1, all = 0;
	CHECK_RC(MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
	CHECK(all == size);
	report_ok();
	MPI_Finalize();
	return 0;
}
