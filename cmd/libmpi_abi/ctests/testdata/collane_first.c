/* collane_first.c — a repeated small collective from C finds its plan by
 * the arguments its caller gave, before any argument check
 * (cmd/libmpi_abi/collane.c, hc_cc_first). What must not fool that:
 *   - a derived datatype freed and another made, whose handle may be the
 *     old one's with another size (only predefined types may match);
 *   - the same buffers with another count, root or operator;
 *   - MPI_IN_PLACE after the same buffers given twice, and back;
 *   - a v-collective's arrays changed in place (same pointers);
 *   - bad arguments that differ from a keyed call in one word only: each
 *     must fail with its error class and change nothing, and the good
 *     call right after must still run from its plan.
 * Every result is checked; the debug report says how many calls matched
 * early (the test wants some). With COLLANE_FIRST_P2P=1 it runs only a
 * loop of Barriers, rank 1 sending rank 0 messages a third of the way
 * through that rank 0 receives after the loop: the lane's periodic
 * progress pass must take them in (it is skipped only while no message
 * waits). */
#include "check.h"

enum { REPS = 40 };

static int me, n;

static void derived_churn(void)
{
	static int buf[64];
	for (int round = 0; round < 12; round++) {
		int k = 1 + round % 3; /* 1, 2 or 3 ints an element */
		MPI_Datatype t;
		CHECK_RC(MPI_Type_contiguous(k, MPI_INT, &t));
		CHECK_RC(MPI_Type_commit(&t));
		for (int i = 0; i < REPS / 4; i++) {
			for (int j = 0; j < 2 * k; j++) buf[j] = me == 0 ? round * 100 + i * 10 + j : -1;
			buf[2 * k] = -99; /* past the two elements: never written */
			CHECK_RC(MPI_Bcast(buf, 2, t, 0, MPI_COMM_WORLD));
			for (int j = 0; j < 2 * k; j++) CHECK(buf[j] == round * 100 + i * 10 + j);
			CHECK(buf[2 * k] == -99);
		}
		CHECK_RC(MPI_Type_free(&t));
	}
}

static void same_buffers(void)
{
	static int a[8], b[8];
	for (int i = 0; i < 3 * REPS; i++) {
		int cnt = 1 + (i / REPS);	     /* 1, 2, 3: another count on the same buffers */
		MPI_Op op = i % 2 ? MPI_MAX : MPI_SUM; /* operators alternate */
		for (int j = 0; j < 8; j++) a[j] = me + j + i, b[j] = -1;
		CHECK_RC(MPI_Allreduce(a, b, cnt, MPI_INT, op, MPI_COMM_WORLD));
		for (int j = 0; j < cnt; j++) CHECK(b[j] == (i % 2 ? n - 1 + j + i : n * (j + i) + n * (n - 1) / 2));
		CHECK(b[cnt] == -1);
		/* The same buffers in place, then given twice (aliased is
		 * erroneous for Allreduce: in place is the standard's way). */
		for (int j = 0; j < 8; j++) b[j] = me + j;
		CHECK_RC(MPI_Allreduce(MPI_IN_PLACE, b, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
		for (int j = 0; j < cnt; j++) CHECK(b[j] == n * j + n * (n - 1) / 2);
		/* Bcast of the same buffer from a root that moves. */
		int root = (i / 7) % n;
		for (int j = 0; j < 4; j++) a[j] = me == root ? i * 4 + j : -5;
		CHECK_RC(MPI_Bcast(a, 4, MPI_INT, root, MPI_COMM_WORLD));
		for (int j = 0; j < 4; j++) CHECK(a[j] == i * 4 + j);
		/* Gather in place at the root, and not. */
		int g[64];
		for (int j = 0; j < n; j++) g[j] = me == root && j == root ? 1000 + i : -1;
		int v = 1000 * (me + 1) + i - 1000 * me; /* 1000 + i on every rank */
		if (i % 2 && me == root)
			CHECK_RC(MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, g, 1, MPI_INT, root, MPI_COMM_WORLD));
		else
			CHECK_RC(MPI_Gather(&v, 1, MPI_INT, g, 1, MPI_INT, root, MPI_COMM_WORLD));
		if (me == root)
			for (int j = 0; j < n; j++) CHECK(g[j] == 1000 + i);
	}
}

static void varrays(void)
{
	static int counts[64], displs[64], out[256], in[8];
	for (int i = 0; i < 2 * REPS; i++) {
		/* Two layouts in the same arrays: rank k gets k%3+1 or 1. */
		int off = 0;
		for (int k = 0; k < n; k++) {
			counts[k] = (i / 3) % 2 ? k % 3 + 1 : 1;
			displs[k] = off + 1; /* a gap before each block */
			off += counts[k] + 1;
		}
		for (int j = 0; j < 8; j++) in[j] = me * 10 + j + i;
		for (int j = 0; j < off; j++) out[j] = -1;
		CHECK_RC(MPI_Allgatherv(in, counts[me], MPI_INT, out, counts, displs, MPI_INT, MPI_COMM_WORLD));
		for (int k = 0; k < n; k++) {
			CHECK(out[displs[k] - 1] == -1);
			for (int j = 0; j < counts[k]; j++) CHECK(out[displs[k] + j] == k * 10 + j + i);
		}
		/* Scatterv from rank 0 with the same arrays. */
		int got[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
		for (int j = 0; j < off; j++) out[j] = me == 0 ? 7 * j + i : -1;
		CHECK_RC(MPI_Scatterv(out, counts, displs, MPI_INT, got, counts[me], MPI_INT, 0, MPI_COMM_WORLD));
		for (int j = 0; j < counts[me]; j++) CHECK(got[j] == 7 * (displs[me] + j) + i);
		CHECK(got[counts[me]] == -1);
	}
}

/* bad: a call of keyed arguments but one, which must fail with class
 * want and leave the buffers alone; then the good call again. */
static void bad_arguments(void)
{
	CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
	int a[4], b[4];
	for (int i = 0; i < REPS; i++) {
		for (int j = 0; j < 4; j++) a[j] = me + j, b[j] = -1;
		CHECK_RC(MPI_Allreduce(a, b, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
		CHECK(b[0] == n * (n - 1) / 2);
		if (i % 8 != 7) continue;
		struct {
			int rc, want;
		} cases[] = {
			{MPI_Allreduce(a, b, -4, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT},
			{MPI_Allreduce(a, b, 4, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_TYPE},
			{MPI_Allreduce(a, b, 4, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP},
			{MPI_Allreduce(a, MPI_IN_PLACE, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER},
			{MPI_Allreduce(a, b, 4, MPI_INT, MPI_SUM, MPI_COMM_NULL), MPI_ERR_COMM},
			{MPI_Bcast(a, 4, MPI_INT, n, MPI_COMM_WORLD), MPI_ERR_ROOT},
			{MPI_Bcast(NULL, 4, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER},
			{MPI_Allgatherv(a, 1, MPI_INT, b, NULL, NULL, MPI_INT, MPI_COMM_WORLD), MPI_ERR_ARG},
		};
		for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
			int cls = -1;
			CHECK(cases[c].rc != MPI_SUCCESS);
			CHECK_RC(MPI_Error_class(cases[c].rc, &cls));
			if (cls != cases[c].want)
				fprintf(stderr, "rank %d: case %zu: class %d, want %d\n", me, c, cls, cases[c].want);
			CHECK(cls == cases[c].want);
		}
		CHECK(b[0] == n * (n - 1) / 2 && a[0] == me);
		/* Bcast keyed from root 0 between the bad ones. */
		for (int j = 0; j < 4; j++) a[j] = me == 0 ? 40 + j : -1;
		CHECK_RC(MPI_Bcast(a, 4, MPI_INT, 0, MPI_COMM_WORLD));
		for (int j = 0; j < 4; j++) CHECK(a[j] == 40 + j);
	}
	CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

static void p2p_waiting(void)
{
	enum { MSGS = 8, LOOPS = 300 };
	for (int i = 0; i < LOOPS; i++) {
		/* Midway, once the Barrier's plan runs in C on both ranks. */
		if (me == 1 && i == LOOPS / 3)
			for (int k = 0; k < MSGS; k++) CHECK_RC(MPI_Send(&k, 1, MPI_INT, 0, 5, MPI_COMM_WORLD));
		CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
	}
	if (me == 0)
		for (int i = 0; i < MSGS && n > 1; i++) {
			int v = -1;
			CHECK_RC(MPI_Recv(&v, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
			CHECK(v == i);
		}
}

int main(int argc, char **argv)
{
	CHECK_RC(MPI_Init(&argc, &argv));
	CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &me));
	CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &n));
	if (getenv("COLLANE_FIRST_P2P")) {
		p2p_waiting();
		report_ok();
		CHECK_RC(MPI_Finalize());
		return 0;
	}
	derived_churn();
	same_buffers();
	varrays();
	bad_arguments();
	report_ok();
	CHECK_RC(MPI_Finalize());
	return 0;
}
