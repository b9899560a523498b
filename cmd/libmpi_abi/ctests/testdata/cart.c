/* Cartesian topologies as a stencil code uses them: Dims_create,
 * Cart_create, Cart_coords/Cart_rank, Cart_shift (periodic and not), a
 * halo exchange with a column datatype, Cart_sub, Cart_get, Topo_test. */
#include "check.h"

#define N 6

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int dims[2] = {0, 0}, periods[2] = {1, 0};
	CHECK_RC(MPI_Dims_create(size, 2, dims));
	CHECK(dims[0] * dims[1] == size && dims[0] >= dims[1]);
	MPI_Comm cart;
	CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart));
	int st, nd, me, coords[2], c2[2], r;
	CHECK_RC(MPI_Topo_test(cart, &st));
	CHECK(st == MPI_CART);
	CHECK_RC(MPI_Topo_test(MPI_COMM_WORLD, &st));
	CHECK(st == MPI_UNDEFINED);
	CHECK_RC(MPI_Cartdim_get(cart, &nd));
	CHECK(nd == 2);
	MPI_Comm_rank(cart, &me);
	CHECK_RC(MPI_Cart_coords(cart, me, 2, coords));
	CHECK_RC(MPI_Cart_rank(cart, coords, &r));
	CHECK(r == me && me == coords[0] * dims[1] + coords[1]);
	int gd[2], gp[2];
	CHECK_RC(MPI_Cart_get(cart, 2, gd, gp, c2));
	CHECK(gd[0] == dims[0] && gp[0] == 1 && gp[1] == 0 && c2[0] == coords[0] && c2[1] == coords[1]);

	/* Shifts: dimension 0 wraps, dimension 1 ends in MPI_PROC_NULL. */
	int up, down, left, right;
	CHECK_RC(MPI_Cart_shift(cart, 0, 1, &up, &down));
	CHECK_RC(MPI_Cart_shift(cart, 1, 1, &left, &right));
	int t[2] = {(coords[0] + 1) % dims[0], coords[1]};
	CHECK_RC(MPI_Cart_rank(cart, t, &r));
	CHECK(down == r);
	CHECK(coords[1] == 0 ? left == MPI_PROC_NULL : left == me - 1);
	CHECK(coords[1] == dims[1] - 1 ? right == MPI_PROC_NULL : right == me + 1);

	/* Halo exchange on an (N+2)x(N+2) block: rows up/down, columns with a
	 * vector type left/right. */
	double a[N + 2][N + 2];
	for (int i = 0; i < N + 2; i++)
		for (int j = 0; j < N + 2; j++) a[i][j] = (i == 0 || j == 0 || i == N + 1 || j == N + 1) ? -1 : me;
	MPI_Datatype colt;
	CHECK_RC(MPI_Type_vector(N, 1, N + 2, MPI_DOUBLE, &colt));
	CHECK_RC(MPI_Type_commit(&colt));
	CHECK_RC(MPI_Sendrecv(&a[1][1], N, MPI_DOUBLE, up, 0, &a[N + 1][1], N, MPI_DOUBLE, down, 0, cart, MPI_STATUS_IGNORE));
	CHECK_RC(MPI_Sendrecv(&a[N][1], N, MPI_DOUBLE, down, 1, &a[0][1], N, MPI_DOUBLE, up, 1, cart, MPI_STATUS_IGNORE));
	CHECK_RC(MPI_Sendrecv(&a[1][1], 1, colt, left, 2, &a[1][N + 1], 1, colt, right, 2, cart, MPI_STATUS_IGNORE));
	CHECK_RC(MPI_Sendrecv(&a[1][N], 1, colt, right, 3, &a[1][0], 1, colt, left, 3, cart, MPI_STATUS_IGNORE));
	for (int k = 1; k <= N; k++) {
		CHECK(a[N + 1][k] == down && a[0][k] == up);
		CHECK(a[k][N + 1] == (right == MPI_PROC_NULL ? -1 : right));
		CHECK(a[k][0] == (left == MPI_PROC_NULL ? -1 : left));
	}
	CHECK_RC(MPI_Type_free(&colt));

	/* Rows of the grid. */
	MPI_Comm row;
	int remain[2] = {0, 1};
	CHECK_RC(MPI_Cart_sub(cart, remain, &row));
	int rsize, rrank;
	MPI_Comm_size(row, &rsize);
	MPI_Comm_rank(row, &rrank);
	CHECK(rsize == dims[1] && rrank == coords[1]);
	CHECK_RC(MPI_Cartdim_get(row, &nd));
	CHECK(nd == 1);
	int sum = 0;
	CHECK_RC(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, row));
	int want = 0;
	for (int j = 0; j < dims[1]; j++) want += coords[0] * dims[1] + j;
	CHECK(sum == want);

	MPI_Comm dup;
	CHECK_RC(MPI_Comm_dup(cart, &dup));
	CHECK_RC(MPI_Topo_test(dup, &st));
	CHECK(st == MPI_CART);
	CHECK_RC(MPI_Comm_free(&dup));
	CHECK_RC(MPI_Comm_free(&row));
	CHECK_RC(MPI_Comm_free(&cart));
	CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
	report_ok();
	MPI_Finalize();
	return 0;
}
