/* Collectives over the engine: every blocking collective of group A with
 * and without MPI_IN_PLACE, the nonblocking ones, predefined operators on
 * C types (char, long double, complex, bool), MINLOC/MAXLOC pairs, a
 * user-defined non-commutative operator, Reduce_local and a contiguous
 * derived datatype. */
#include <complex.h>
#include "check.h"

/* c = a then b, for 2x2 matrices stored as 4 ints: non-commutative. */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	CHECK(*dt == MPI_INT || *dt != MPI_DATATYPE_NULL);
	int *a = in, *b = inout;
	for (int k = 0; k < *len / 4; k++, a += 4, b += 4) {
		int c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
			    a[2] * b[1] + a[3] * b[3]};
		memcpy(b, c, sizeof c);
	}
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int root = size - 1;
	int sum = size * (size - 1) / 2;

	/* Bcast. */
	double d[100];
	for (int i = 0; i < 100; i++) d[i] = rank == root ? i * 1.5 : -1;
	CHECK_RC(MPI_Bcast(d, 100, MPI_DOUBLE, root, MPI_COMM_WORLD));
	for (int i = 0; i < 100; i++) CHECK(d[i] == i * 1.5);

	/* Reduce, Allreduce, in place and not. */
	int x[3] = {rank, rank * 2, 1}, y[3] = {0, 0, 0};
	CHECK_RC(MPI_Reduce(x, y, 3, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
	if (rank == root) CHECK(y[0] == sum && y[1] == 2 * sum && y[2] == size);
	if (rank == 0) {
		x[0] = rank;
		CHECK_RC(MPI_Reduce(MPI_IN_PLACE, x, 3, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD));
		CHECK(x[0] == size - 1 && x[2] == 1);
	} else {
		CHECK_RC(MPI_Reduce(x, NULL, 3, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD));
	}
	long long ll = rank + 1;
	CHECK_RC(MPI_Allreduce(MPI_IN_PLACE, &ll, 1, MPI_LONG_LONG, MPI_PROD, MPI_COMM_WORLD));
	long long fact = 1;
	for (int i = 1; i <= size; i++) fact *= i;
	CHECK(ll == fact);
	char c = (char)rank, cmin;
	CHECK_RC(MPI_Allreduce(&c, &cmin, 1, MPI_CHAR, MPI_MIN, MPI_COMM_WORLD));
	CHECK(cmin == 0);
	long double ld = rank + 0.25L, ldsum;
	CHECK_RC(MPI_Allreduce(&ld, &ldsum, 1, MPI_LONG_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
	CHECK(ldsum == sum + 0.25L * size);
	float _Complex z = rank + 1.0f * I, zs;
	CHECK_RC(MPI_Allreduce(&z, &zs, 1, MPI_C_FLOAT_COMPLEX, MPI_SUM, MPI_COMM_WORLD));
	CHECK(crealf(zs) == (float)sum && cimagf(zs) == (float)size);
	_Bool bl = rank == 0, bor;
	CHECK_RC(MPI_Allreduce(&bl, &bor, 1, MPI_C_BOOL, MPI_LOR, MPI_COMM_WORLD));
	CHECK(bor);
	unsigned u = 1u << (rank % 32), ubor;
	CHECK_RC(MPI_Allreduce(&u, &ubor, 1, MPI_UNSIGNED, MPI_BOR, MPI_COMM_WORLD));
	CHECK(ubor == (size >= 32 ? 0xffffffffu : (1u << size) - 1));

	/* MINLOC / MAXLOC. */
	struct { double v; int i; } di = {(double)((rank * 7) % size), rank}, dres;
	CHECK_RC(MPI_Allreduce(&di, &dres, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD));
	CHECK(dres.v == size - 1);
	struct { int v, i; } ii = {rank % 2, rank}, ires;
	CHECK_RC(MPI_Allreduce(&ii, &ires, 1, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD));
	CHECK(ires.v == 0 && ires.i == 0);

	/* User-defined non-commutative operator: product in rank order. */
	MPI_Op op;
	CHECK_RC(MPI_Op_create(matmul, 0, &op));
	int commute = 1;
	CHECK_RC(MPI_Op_commutative(op, &commute));
	CHECK(!commute);
	int m[4] = {1, rank, 0, 1}, mres[4];
	CHECK_RC(MPI_Allreduce(m, mres, 4, MPI_INT, op, MPI_COMM_WORLD));
	CHECK(mres[0] == 1 && mres[1] == sum && mres[2] == 0 && mres[3] == 1);
	int la[4] = {1, 2, 0, 1}, lb[4] = {1, 3, 0, 1};
	CHECK_RC(MPI_Reduce_local(la, lb, 4, MPI_INT, op));
	CHECK(lb[1] == 5);
	CHECK_RC(MPI_Op_free(&op));
	CHECK(op == MPI_OP_NULL);

	/* Scan, Exscan. */
	int s = rank + 1, sres = -1;
	CHECK_RC(MPI_Scan(&s, &sres, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
	CHECK(sres == (rank + 1) * (rank + 2) / 2);
	CHECK_RC(MPI_Exscan(&s, &sres, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
	if (rank > 0) CHECK(sres == rank * (rank + 1) / 2);

	/* Gather / Scatter / Allgather / Alltoall. */
	int *all = malloc(sizeof(int) * size * 2), *all2 = malloc(sizeof(int) * size * 2);
	int two[2] = {rank, -rank};
	CHECK_RC(MPI_Gather(two, 2, MPI_INT, all, 2, MPI_INT, root, MPI_COMM_WORLD));
	if (rank == root)
		for (int i = 0; i < size; i++) CHECK(all[2 * i] == i && all[2 * i + 1] == -i);
	if (rank == root) {
		all[2 * root] = 77;
		all[2 * root + 1] = 78;
		CHECK_RC(MPI_Gather(MPI_IN_PLACE, 2, MPI_INT, all, 2, MPI_INT, root, MPI_COMM_WORLD));
		CHECK(all[2 * root] == 77 && all[2 * root + 1] == 78 && (root == 0 || all[0] == 0));
	} else {
		CHECK_RC(MPI_Gather(two, 2, MPI_INT, NULL, 0, MPI_INT, root, MPI_COMM_WORLD));
	}
	for (int i = 0; i < 2 * size; i++) all[i] = i;
	CHECK_RC(MPI_Scatter(all, 2, MPI_INT, two, 2, MPI_INT, 0, MPI_COMM_WORLD));
	CHECK(two[0] == 2 * rank && two[1] == 2 * rank + 1);
	CHECK_RC(MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD));
	for (int i = 0; i < size; i++) CHECK(all[i] == i);
	for (int i = 0; i < size; i++) all[i] = i == rank ? rank * 10 : -1;
	CHECK_RC(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 1, MPI_INT, MPI_COMM_WORLD));
	for (int i = 0; i < size; i++) CHECK(all[i] == i * 10);
	for (int i = 0; i < size; i++) all[i] = rank * 100 + i;
	CHECK_RC(MPI_Alltoall(all, 1, MPI_INT, all2, 1, MPI_INT, MPI_COMM_WORLD));
	for (int i = 0; i < size; i++) CHECK(all2[i] == i * 100 + rank);
	CHECK_RC(MPI_Alltoall(MPI_IN_PLACE, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD));
	for (int i = 0; i < size; i++) CHECK(all[i] == i * 100 + rank);

	/* Vector forms: rank i contributes i+1 ints. */
	int *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size);
	int total = 0;
	for (int i = 0; i < size; i++) {
		counts[i] = i + 1;
		displs[i] = total;
		total += i + 1;
	}
	int *vbuf = malloc(sizeof(int) * total), mine[64];
	for (int k = 0; k <= rank; k++) mine[k] = rank;
	CHECK_RC(MPI_Allgatherv(mine, rank + 1, MPI_INT, vbuf, counts, displs, MPI_INT, MPI_COMM_WORLD));
	for (int i = 0; i < size; i++)
		for (int k = 0; k <= i; k++) CHECK(vbuf[displs[i] + k] == i);
	memset(vbuf, 0, sizeof(int) * total);
	CHECK_RC(MPI_Gatherv(mine, rank + 1, MPI_INT, vbuf, counts, displs, MPI_INT, 0, MPI_COMM_WORLD));
	if (rank == 0)
		for (int i = 0; i < size; i++) CHECK(vbuf[displs[i]] == i);
	int back[64];
	CHECK_RC(MPI_Scatterv(vbuf, counts, displs, MPI_INT, back, rank + 1, MPI_INT, 0, MPI_COMM_WORLD));
	CHECK(back[0] == rank && back[rank] == rank);
	int *sc = malloc(sizeof(int) * size), *sd = malloc(sizeof(int) * size);
	for (int i = 0; i < size; i++) sc[i] = 1, sd[i] = i;
	for (int i = 0; i < size; i++) all[i] = rank * 1000 + i;
	CHECK_RC(MPI_Alltoallv(all, sc, sd, MPI_INT, all2, sc, sd, MPI_INT, MPI_COMM_WORLD));
	for (int i = 0; i < size; i++) CHECK(all2[i] == i * 1000 + rank);

	/* Reduce_scatter_block and Reduce_scatter. */
	for (int i = 0; i < size; i++) all[i] = i + rank;
	int rsb = -1;
	CHECK_RC(MPI_Reduce_scatter_block(all, &rsb, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
	CHECK(rsb == rank * size + sum);
	for (int i = 0; i < size; i++) all[i] = 1;
	CHECK_RC(MPI_Reduce_scatter_block(MPI_IN_PLACE, all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
	CHECK(all[0] == size);
	for (int i = 0; i < size; i++) sc[i] = 1;
	for (int i = 0; i < size; i++) all[i] = i;
	CHECK_RC(MPI_Reduce_scatter(all, &rsb, sc, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
	CHECK(rsb == rank);

	/* Nonblocking collectives. */
	MPI_Request rq[3];
	int ib = rank == 0 ? 5 : 0, ia = 1, iar = 0;
	CHECK_RC(MPI_Ibarrier(MPI_COMM_WORLD, &rq[0]));
	CHECK_RC(MPI_Ibcast(&ib, 1, MPI_INT, 0, MPI_COMM_WORLD, &rq[1]));
	CHECK_RC(MPI_Iallreduce(&ia, &iar, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[2]));
	CHECK_RC(MPI_Waitall(3, rq, MPI_STATUSES_IGNORE));
	CHECK(ib == 5 && iar == size);

	/* A contiguous derived type in a broadcast and a reduction. */
	MPI_Datatype pair;
	CHECK_RC(MPI_Type_contiguous(2, MPI_DOUBLE, &pair));
	CHECK_RC(MPI_Type_commit(&pair));
	int psize;
	CHECK_RC(MPI_Type_size(pair, &psize));
	CHECK(psize == 16);
	double pd[4] = {rank, 1, rank, 2}, pr[4];
	CHECK_RC(MPI_Allreduce(pd, pr, 2, pair, MPI_SUM, MPI_COMM_WORLD));
	CHECK(pr[0] == sum && pr[1] == size && pr[3] == 2 * size);
	CHECK_RC(MPI_Type_free(&pair));

	CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
	report_ok();
	MPI_Finalize();
	return 0;
}
