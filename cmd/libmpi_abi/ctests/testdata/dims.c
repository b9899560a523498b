/* MPI_Dims_create gives the factorisation MPICH gives: non-increasing,
 * the least spread between largest and smallest, ties going to the one
 * larger from the last dimension backwards (issue 18, MPICH's topo/dims5;
 * dealing prime factors out greedily gave 12 x 6 for 72). */
#include "check.h"

struct dcase {
	int nnodes, ndims;
	int in[40], want[40];
};

static const struct dcase cases[] = {
	{72, 2, {0}, {9, 8}},
	{450, 2, {0}, {25, 18}},
	{1323, 2, {0}, {49, 27}},
	{5040, 3, {0}, {21, 16, 15}},   /* 20 x 18 x 14 spreads as little */
	{10800, 3, {0}, {27, 20, 20}},  /* and 25 x 24 x 18 */
	{98784, 5, {0}, {14, 14, 9, 8, 7}},
	{18576, 4, {0}, {43, 9, 8, 6}},
	{12, 3, {0}, {3, 2, 2}},
	{72, 3, {0, 3, 0}, {6, 3, 4}},  /* fixed dimensions stay */
	{97, 4, {0}, {97, 1, 1, 1}},
	{1, 3, {0}, {1, 1, 1}},
	{2147483647, 2, {0}, {2147483647, 1}},
	{16, 2, {4, 4}, {4, 4}},
	{1 << 20, 40, {0}, {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}},
};

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		int d[40];
		memcpy(d, cases[c].in, sizeof d);
		CHECK_RC(MPI_Dims_create(cases[c].nnodes, cases[c].ndims, d));
		for (int i = 0; i < cases[c].ndims; i++) {
			int want = cases[c].want[i] ? cases[c].want[i] : 1;
			if (d[i] != want) fprintf(stderr, "case %zu: dims[%d] = %d, want %d\n", c, i, d[i], want);
			CHECK(d[i] == want);
		}
	}
	/* Bad input: an error of the right class, dims untouched. */
	CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
	struct {
		int nnodes, ndims, d0, d1, cls;
	} bad[] = {
		{12, 2, 5, 0, MPI_ERR_DIMS},  /* 5 does not divide 12 */
		{12, 2, 3, 3, MPI_ERR_DIMS},  /* all fixed, product 9 */
		{12, 2, -1, 0, MPI_ERR_DIMS},
		{0, 2, 0, 0, MPI_ERR_ARG},
		{4, -1, 0, 0, MPI_ERR_ARG},
	};
	for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
		int d[2] = {bad[b].d0, bad[b].d1}, cls = -1;
		MPI_Error_class(MPI_Dims_create(bad[b].nnodes, bad[b].ndims, d), &cls);
		CHECK(cls == bad[b].cls);
		CHECK(d[0] == bad[b].d0 && d[1] == bad[b].d1);
	}
	report_ok();
	MPI_Finalize();
	return 0;
}
