/* A small MPI_Iallreduce the C collective lane can run, completed by
 * MPI_Test as a program that overlaps it with computation does (OSU's
 * overlap loop), then the same waited at once. In the tested rounds rank 0
 * starts first: rank 1 starts only when rank 0's start has returned (a
 * token), so rank 0's start cannot complete. Once its starts defer (a test
 * completed one), the lane must still run them, publishing the send and
 * handing the receive to Go at once, which the debug report shows as
 * collectives continued in Go on rank 0 (collane_test.go). MPI_Wait and
 * MPI_Test of the freed handle (MPI_REQUEST_NULL, answered in C) must
 * give the empty status. */
#include "check.h"

enum { ROUNDS = 400 };

/* One pair of buffers: the lane's plans are keyed by the buffers too. */
static long in, out;

static void empty_status(const MPI_Status *st)
{
	int n = -1;
	CHECK(st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG && st->MPI_ERROR == MPI_SUCCESS);
	CHECK_RC(MPI_Get_count(st, MPI_BYTE, &n));
	CHECK(n == 0);
}

int main(int argc, char **argv)
{
	int rank, size;
	CHECK_RC(MPI_Init(&argc, &argv));
	CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
	CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
	/* Waited at once first, so that the lane learns the call's plan
	 * (a start deferred in Go from the first call teaches it none). */
	for (int i = 0; i < 8; i++) {
		MPI_Request r;
		in = rank;
		CHECK_RC(MPI_Iallreduce(&in, &out, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &r));
		CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
		CHECK(out == (long)size * (size - 1) / 2);
	}
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < ROUNDS; i++) {
			in = rank + i;
			out = -1;
			MPI_Request r;
			MPI_Status st;
			int token = i;
			CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
			if (pass == 0 && size == 2 && rank == 1)
				CHECK_RC(MPI_Recv(&token, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
			CHECK_RC(MPI_Iallreduce(&in, &out, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &r));
			if (pass == 0 && size == 2 && rank == 0) CHECK_RC(MPI_Send(&token, 1, MPI_INT, 1, 5, MPI_COMM_WORLD));
			if (pass == 0) {
				int flag = 0;
				while (!flag) CHECK_RC(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
				CHECK(r == MPI_REQUEST_NULL);
				flag = 0;
				st.MPI_SOURCE = st.MPI_TAG = 12345;
				CHECK_RC(MPI_Test(&r, &flag, &st));
				CHECK(flag == 1);
				empty_status(&st);
			}
			st.MPI_SOURCE = st.MPI_TAG = 12345;
			CHECK_RC(MPI_Wait(&r, &st));
			CHECK(r == MPI_REQUEST_NULL);
			if (pass == 0) empty_status(&st);
			CHECK(out == (long)size * (size - 1) / 2 + (long)size * i);
		}
	}
	report_ok();
	CHECK_RC(MPI_Finalize());
	return 0;
}
