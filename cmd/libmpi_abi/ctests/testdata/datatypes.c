/* Derived datatypes: vector, hvector, indexed, indexed_block, struct,
 * resized, contiguous; extents; Pack/Unpack; non-contiguous data in
 * blocking, nonblocking and persistent point-to-point and Sendrecv_replace;
 * Bcast and Allreduce of a vector once the engine has collectives. */
#include <stddef.h>
#include "check.h"

struct particle {
	int id;
	double x[3];
	char tag;
};

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int next = (rank + 1) % size, prev = (rank + size - 1) % size;
	MPI_Status st;
	int count;

	/* A column of a 4x5 int matrix. */
	MPI_Datatype col;
	CHECK_RC(MPI_Type_vector(4, 1, 5, MPI_INT, &col));
	CHECK_RC(MPI_Type_commit(&col));
	int tsize;
	MPI_Aint lb, extent;
	CHECK_RC(MPI_Type_size(col, &tsize));
	CHECK(tsize == 16);
	CHECK_RC(MPI_Type_get_extent(col, &lb, &extent));
	CHECK(lb == 0 && extent == (3 * 5 + 1) * 4);
	int m[4][5], colv[4];
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 5; j++) m[i][j] = rank * 100 + i * 10 + j;
	/* Column 2 out, contiguous in; then contiguous out, column 4 in. */
	CHECK_RC(MPI_Sendrecv(&m[0][2], 1, col, next, 1, colv, 4, MPI_INT, prev, 1, MPI_COMM_WORLD, &st));
	for (int i = 0; i < 4; i++) CHECK(colv[i] == prev * 100 + i * 10 + 2);
	CHECK_RC(MPI_Get_count(&st, MPI_INT, &count));
	CHECK(count == 4);
	int mm[4][5] = {{0}};
	MPI_Request rq[2];
	CHECK_RC(MPI_Irecv(&mm[0][4], 1, col, prev, 2, MPI_COMM_WORLD, &rq[0]));
	CHECK_RC(MPI_Isend(colv, 4, MPI_INT, next, 2, MPI_COMM_WORLD, &rq[1]));
	CHECK_RC(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
	int pp = (prev + size - 1) % size;
	for (int i = 0; i < 4; i++) CHECK(mm[i][4] == pp * 100 + i * 10 + 2 && mm[i][3] == 0);
	/* Get_count in the derived type and its elements. */
	CHECK_RC(MPI_Sendrecv(&m[0][0], 1, col, rank, 3, &mm[0][1], 1, col, rank, 3, MPI_COMM_WORLD, &st));
	CHECK_RC(MPI_Get_count(&st, col, &count));
	CHECK(count == 1);
	CHECK_RC(MPI_Get_elements(&st, col, &count));
	CHECK(count == 4);
	for (int i = 0; i < 4; i++) CHECK(mm[i][1] == rank * 100 + i * 10);

	/* Persistent requests with the column type, two rounds. */
	MPI_Request pr[2];
	int pm[4][5];
	CHECK_RC(MPI_Send_init(&m[0][1], 1, col, next, 4, MPI_COMM_WORLD, &pr[0]));
	CHECK_RC(MPI_Recv_init(&pm[0][3], 1, col, prev, 4, MPI_COMM_WORLD, &pr[1]));
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < 4; i++) m[i][1] = rank * 1000 + round * 10 + i;
		memset(pm, 0, sizeof pm);
		CHECK_RC(MPI_Startall(2, pr));
		CHECK_RC(MPI_Waitall(2, pr, MPI_STATUSES_IGNORE));
		for (int i = 0; i < 4; i++) CHECK(pm[i][3] == prev * 1000 + round * 10 + i);
	}
	CHECK_RC(MPI_Request_free(&pr[0]));
	CHECK_RC(MPI_Request_free(&pr[1]));

	/* Sendrecv_replace in place on a column. */
	for (int i = 0; i < 4; i++) m[i][0] = rank + i;
	CHECK_RC(MPI_Sendrecv_replace(&m[0][0], 1, col, next, 5, prev, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	for (int i = 0; i < 4; i++) CHECK(m[i][0] == prev + i && m[i][1] == rank * 1000 + 10 + i);

	/* indexed, indexed_block, hvector. */
	MPI_Datatype idx, blk, hv;
	int bl[3] = {2, 1, 3}, dp[3] = {0, 4, 7};
	CHECK_RC(MPI_Type_indexed(3, bl, dp, MPI_DOUBLE, &idx));
	CHECK_RC(MPI_Type_commit(&idx));
	CHECK_RC(MPI_Type_size(idx, &tsize));
	CHECK(tsize == 6 * 8);
	CHECK_RC(MPI_Type_get_extent(idx, &lb, &extent));
	CHECK(lb == 0 && extent == 10 * 8);
	int bd[2] = {1, 3};
	CHECK_RC(MPI_Type_create_indexed_block(2, 2, bd, MPI_SHORT, &blk));
	CHECK_RC(MPI_Type_create_hvector(2, 1, 24, MPI_INT, &hv));
	double dv[10], dw[10];
	for (int i = 0; i < 10; i++) dv[i] = i, dw[i] = -1;
	CHECK_RC(MPI_Sendrecv(dv, 1, idx, rank, 6, dw, 1, idx, rank, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	double want[10] = {0, 1, -1, -1, 4, -1, -1, 7, 8, 9};
	for (int i = 0; i < 10; i++) CHECK(dw[i] == want[i]);

	/* A struct type with padding, resized to the C struct. */
	struct particle ps[3], pr2[3];
	int sbl[3] = {1, 3, 1};
	MPI_Aint sdp[3] = {offsetof(struct particle, id), offsetof(struct particle, x), offsetof(struct particle, tag)};
	MPI_Datatype sty[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, pt0, pt;
	CHECK_RC(MPI_Type_create_struct(3, sbl, sdp, sty, &pt0));
	CHECK_RC(MPI_Type_create_resized(pt0, 0, sizeof(struct particle), &pt));
	CHECK_RC(MPI_Type_commit(&pt));
	CHECK_RC(MPI_Type_size(pt, &tsize));
	CHECK(tsize == 4 + 24 + 1);
	CHECK_RC(MPI_Type_get_extent(pt, &lb, &extent));
	CHECK(lb == 0 && extent == sizeof(struct particle));
	MPI_Aint tlb, text;
	CHECK_RC(MPI_Type_get_true_extent(pt, &tlb, &text));
	CHECK(tlb == 0 && text == (MPI_Aint)offsetof(struct particle, tag) + 1);
	for (int k = 0; k < 3; k++) {
		ps[k].id = rank * 10 + k;
		for (int d = 0; d < 3; d++) ps[k].x[d] = k + d * 0.5;
		ps[k].tag = (char)('a' + k);
	}
	memset(pr2, 0, sizeof pr2);
	CHECK_RC(MPI_Sendrecv(ps, 3, pt, next, 7, pr2, 3, pt, prev, 7, MPI_COMM_WORLD, &st));
	CHECK_RC(MPI_Get_count(&st, pt, &count));
	CHECK(count == 3);
	for (int k = 0; k < 3; k++) CHECK(pr2[k].id == prev * 10 + k && pr2[k].x[2] == k + 1.0 && pr2[k].tag == 'a' + k);

	/* Pack / Unpack. */
	char packed[256];
	int pos = 0, psz;
	CHECK_RC(MPI_Pack_size(1, col, MPI_COMM_WORLD, &psz));
	CHECK(psz == 16);
	CHECK_RC(MPI_Pack(&m[0][0], 1, col, packed, sizeof packed, &pos, MPI_COMM_WORLD));
	CHECK_RC(MPI_Pack(ps, 1, pt, packed, sizeof packed, &pos, MPI_COMM_WORLD));
	CHECK(pos == 16 + 29);
	int cv[4];
	struct particle one;
	pos = 0;
	CHECK_RC(MPI_Unpack(packed, sizeof packed, &pos, cv, 4, MPI_INT, MPI_COMM_WORLD));
	CHECK_RC(MPI_Unpack(packed, sizeof packed, &pos, &one, 1, pt, MPI_COMM_WORLD));
	CHECK(cv[3] == m[3][0] && one.id == ps[0].id && one.tag == 'a');

	/* Collectives with a vector, when the engine has them. */
	CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
	int probe = 0;
	if (MPI_Bcast(&probe, 1, MPI_INT, 0, MPI_COMM_WORLD) == MPI_SUCCESS) {
		for (int i = 0; i < 4; i++) m[i][3] = rank == 0 ? 40 + i : -1;
		CHECK_RC(MPI_Bcast(&m[0][3], 1, col, 0, MPI_COMM_WORLD));
		for (int i = 0; i < 4; i++) CHECK(m[i][3] == 40 + i);
		double a[10], b[10];
		for (int i = 0; i < 10; i++) a[i] = rank, b[i] = -7;
		CHECK_RC(MPI_Allreduce(a, b, 1, idx, MPI_SUM, MPI_COMM_WORLD));
		double s = size * (size - 1) / 2.0;
		for (int i = 0; i < 10; i++) CHECK(b[i] == (want[i] < 0 ? -7 : s));
		/* Data-moving collectives take it too (packed): the gaps of
		 * every rank's block stay untouched. */
		double *g = malloc(10 * size * sizeof *g);
		for (int i = 0; i < 10 * size; i++) g[i] = -7;
		CHECK_RC(MPI_Allgather(a, 1, idx, g, 1, idx, MPI_COMM_WORLD));
		for (int r = 0; r < size; r++)
			for (int i = 0; i < 10; i++) CHECK(g[10 * r + i] == (want[i] < 0 ? -7 : r));
		/* And in place: the own block is the input. */
		for (int i = 0; i < 10 * size; i++) g[i] = i / 10 == rank ? rank : -7;
		CHECK_RC(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, g, 1, idx, MPI_COMM_WORLD));
		for (int r = 0; r < size; r++)
			for (int i = 0; i < 10; i++) CHECK(g[10 * r + i] == (want[i] < 0 ? (r == rank ? r : -7) : r));
		free(g);
	}

	MPI_Datatype frees[] = {col, idx, blk, hv, pt0, pt};
	for (unsigned i = 0; i < sizeof frees / sizeof frees[0]; i++) {
		CHECK_RC(MPI_Type_free(&frees[i]));
		CHECK(frees[i] == MPI_DATATYPE_NULL);
	}
	CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
	report_ok();
	MPI_Finalize();
	return 0;
}
