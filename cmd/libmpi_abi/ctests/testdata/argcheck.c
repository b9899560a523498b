/* Bad arguments under MPI_ERRORS_RETURN (issue 11, defects 2 and 5): each
 * call returns the class MPICH gives it, changes nothing, and the rank
 * goes on; the same calls with good arguments still work afterwards, and
 * a NULL buffer is still fine where the datatype holds absolute addresses
 * (MPI_BOTTOM). */
#include <stdint.h>
#include "check.h"

static int cls(int rc)
{
	int c = -1;
	if (rc == MPI_SUCCESS) return MPI_SUCCESS;
	if (MPI_Error_class(rc, &c) != MPI_SUCCESS) return -1;
	return c;
}

/* EXPECT checks the class a call returns and prints the call when not. */
#define EXPECT(call, want)                                                                             \
	do {                                                                                           \
		int got_ = cls(call);                                                                  \
		if (got_ != (want)) {                                                                  \
			fprintf(stderr, "%s: got class %d, want %d (%s)\n", #call, got_, want, #want); \
			fflush(stderr);                                                                \
			MPI_Abort(MPI_COMM_WORLD, 3);                                                  \
		}                                                                                      \
	} while (0)

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	int rank, size;
	CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
	CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
	int next = (rank + 1) % size, prev = (rank + size - 1) % size;
	int x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, y[8] = {0};
	MPI_Status st;
	MPI_Request req = MPI_REQUEST_NULL;
	int flag0 = 0;

	/* Defect 2: NULL outputs, request and flag pointers. */
	EXPECT(MPI_Comm_rank(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
	EXPECT(MPI_Comm_size(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
	EXPECT(MPI_Get_count(&st, MPI_INT, NULL), MPI_ERR_ARG);
	EXPECT(MPI_Get_count(NULL, MPI_INT, x), MPI_ERR_ARG);
	EXPECT(MPI_Isend(x, 1, MPI_INT, next, 5, MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
	EXPECT(MPI_Irecv(y, 1, MPI_INT, prev, 5, MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
	EXPECT(MPI_Iprobe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, NULL, &st), MPI_ERR_ARG);
	EXPECT(MPI_Wait(NULL, &st), MPI_ERR_ARG);
	EXPECT(MPI_Test(&req, NULL, &st), MPI_ERR_ARG);
	EXPECT(MPI_Comm_dup(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
	EXPECT(MPI_Type_size(MPI_INT, NULL), MPI_ERR_ARG);
	EXPECT(MPI_Error_string(MPI_ERR_ARG, NULL, x), MPI_ERR_ARG);
	EXPECT(MPI_Comm_free(NULL), MPI_ERR_ARG);
	EXPECT(MPI_Group_incl(MPI_GROUP_EMPTY, 1, NULL, (MPI_Group *)y), MPI_ERR_ARG);

	/* Defect 2: MPI_IN_PLACE where it is not allowed. */
	EXPECT(MPI_Allreduce(x, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER);
	EXPECT(MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
	EXPECT(MPI_Send(MPI_IN_PLACE, 1, MPI_INT, next, 5, MPI_COMM_WORLD), MPI_ERR_BUFFER);

	/* Defect 5: NULL buffers with data to move, NULL request arrays,
	 * uncommitted datatypes. */
	EXPECT(MPI_Send(NULL, 1, MPI_INT, next, 5, MPI_COMM_WORLD), MPI_ERR_BUFFER);
	EXPECT(MPI_Recv(NULL, 1, MPI_INT, prev, 5, MPI_COMM_WORLD, &st), MPI_ERR_BUFFER);
	EXPECT(MPI_Isend(NULL, 2, MPI_DOUBLE, next, 5, MPI_COMM_WORLD, &req), MPI_ERR_BUFFER);
	EXPECT(MPI_Allreduce(NULL, y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER);
	EXPECT(MPI_Waitall(2, NULL, MPI_STATUSES_IGNORE), MPI_ERR_ARG);
	EXPECT(MPI_Startall(2, NULL), MPI_ERR_ARG);
	MPI_Datatype pair;
	CHECK_RC(MPI_Type_contiguous(2, MPI_INT, &pair));
	EXPECT(MPI_Send(x, 1, pair, next, 5, MPI_COMM_WORLD), MPI_ERR_TYPE);
	EXPECT(MPI_Recv(y, 1, pair, prev, 5, MPI_COMM_WORLD, &st), MPI_ERR_TYPE);
	EXPECT(MPI_Bcast(x, 1, pair, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);

	/* Counts, communicators and datatypes keep their classes. */
	EXPECT(MPI_Send(x, -1, MPI_INT, next, 5, MPI_COMM_WORLD), MPI_ERR_COUNT);
	EXPECT(MPI_Send(x, 1, MPI_DATATYPE_NULL, next, 5, MPI_COMM_WORLD), MPI_ERR_TYPE);
	EXPECT(MPI_Send(x, 1, MPI_INT, next, 5, MPI_COMM_NULL), MPI_ERR_COMM);
	EXPECT(MPI_Waitall(-1, &req, MPI_STATUSES_IGNORE), MPI_ERR_COUNT);

	/* Checks that MPI_PROC_NULL or a later MPI_Start must not skip. */
	EXPECT(MPI_Recv(y, 1, MPI_INT, MPI_PROC_NULL, -1, MPI_COMM_WORLD, &st), MPI_ERR_TAG);
	EXPECT(MPI_Iprobe(MPI_PROC_NULL, -5, MPI_COMM_WORLD, &flag0, &st), MPI_ERR_TAG);
	EXPECT(MPI_Send_init(x, 1, MPI_INT, size, 5, MPI_COMM_WORLD, &req), MPI_ERR_RANK);
	EXPECT(MPI_Recv_init(y, 1, MPI_INT, prev, -1, MPI_COMM_WORLD, &req), MPI_ERR_TAG);
	EXPECT(MPI_Comm_set_info(MPI_COMM_WORLD, (MPI_Info)(intptr_t)0x7777777), MPI_ERR_INFO);
	EXPECT(MPI_Op_commutative(MPI_OP_NULL, &flag0), MPI_ERR_OP);
	EXPECT(MPI_Info_get_nthkey(MPI_INFO_ENV, 0, NULL), MPI_ERR_ARG);

	/* Zero counts need no buffer. */
	CHECK_RC(MPI_Waitall(0, NULL, MPI_STATUSES_IGNORE));
	CHECK_RC(MPI_Sendrecv(NULL, 0, MPI_INT, next, 6, NULL, 0, MPI_INT, prev, 6, MPI_COMM_WORLD, &st));

	/* Nothing was sent by the refused calls: the next message on tag 5 is
	 * this one. Committed, the derived type works. */
	CHECK_RC(MPI_Type_commit(&pair));
	CHECK_RC(MPI_Sendrecv(x, 1, pair, next, 5, y, 1, pair, prev, 5, MPI_COMM_WORLD, &st));
	int n = -1;
	CHECK_RC(MPI_Get_count(&st, MPI_INT, &n));
	CHECK(n == 2 && y[0] == 1 && y[1] == 2);
	int flag = 1;
	CHECK_RC(MPI_Iprobe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &flag, &st));
	CHECK(!flag);

	/* MPI_BOTTOM with absolute addresses: a NULL buffer that is legal. */
	MPI_Aint addr;
	CHECK_RC(MPI_Get_address(&x[2], &addr));
	int one = 1;
	MPI_Datatype abs_t;
	CHECK_RC(MPI_Type_create_struct(1, &one, &addr, (MPI_Datatype[]){MPI_INT}, &abs_t));
	CHECK_RC(MPI_Type_commit(&abs_t));
	y[0] = -1;
	CHECK_RC(MPI_Sendrecv(MPI_BOTTOM, 1, abs_t, next, 7, y, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, &st));
	CHECK(y[0] == 3);
	/* A duplicate of a committed type (or of a predefined one) is
	 * committed. */
	MPI_Datatype dup1, dup2;
	CHECK_RC(MPI_Type_dup(pair, &dup1));
	CHECK_RC(MPI_Type_dup(MPI_INT, &dup2));
	CHECK_RC(MPI_Sendrecv(x, 1, dup1, next, 8, y, 2, dup2, prev, 8, MPI_COMM_WORLD, &st));
	CHECK(y[0] == 1 && y[1] == 2);
	CHECK_RC(MPI_Type_free(&dup1));
	CHECK_RC(MPI_Type_free(&dup2));
	CHECK_RC(MPI_Type_free(&abs_t));
	CHECK_RC(MPI_Type_free(&pair));

	/* In place where it is allowed still works. */
	x[0] = rank;
	CHECK_RC(MPI_Allreduce(MPI_IN_PLACE, x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
	CHECK(x[0] == size * (size - 1) / 2);

	/* Buffers that mean nothing off the root may be NULL there. */
	int root_only[8] = {0};
	x[0] = 1;
	CHECK_RC(MPI_Reduce(x, rank == 0 ? root_only : NULL, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
	CHECK(rank != 0 || root_only[0] == size);
	CHECK_RC(MPI_Reduce(rank == 0 ? MPI_IN_PLACE : x, rank == 0 ? root_only : NULL, 1, MPI_INT, MPI_SUM, 0,
			    MPI_COMM_WORLD));
	CHECK(rank != 0 || root_only[0] == 2 * size - 1);
	CHECK_RC(MPI_Gather(&rank, 1, MPI_INT, rank == 0 ? root_only : NULL, 1, MPI_INT, 0, MPI_COMM_WORLD));
	CHECK(rank != 0 || root_only[size - 1] == size - 1);
	int mine = -1;
	CHECK_RC(MPI_Scatter(rank == 0 ? root_only : NULL, 1, MPI_INT, &mine, 1, MPI_INT, 0, MPI_COMM_WORLD));
	CHECK(mine == rank);

	CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
	report_ok();
	MPI_Finalize();
	return 0;
}
