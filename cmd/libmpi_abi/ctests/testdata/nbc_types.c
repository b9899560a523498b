/* Nonblocking collectives on non-contiguous datatypes that the caller
 * frees before MPI_Wait (issue 18, MPICH's coll/nonblocking2): the pending
 * collective keeps the type's layout, as the standard says, and
 * MPI_Ialltoallw takes derived types per peer. */
#include "check.h"

#define COUNT 5
#define STRIDE 2

/* Every other int: a vector of one int resized to two ints' extent. */
static MPI_Datatype strided(void)
{
	MPI_Datatype v, t;
	CHECK_RC(MPI_Type_vector(1, 1, STRIDE, MPI_INT, &v));
	CHECK_RC(MPI_Type_create_resized(v, 0, STRIDE * sizeof(int), &t));
	CHECK_RC(MPI_Type_free(&v));
	CHECK_RC(MPI_Type_commit(&t));
	return t;
}

static void fill(int *b, int n, int v0, int step)
{
	for (int i = 0; i < n * STRIDE; i++) b[i] = -1;
	for (int i = 0; i < n; i++) b[i * STRIDE] = v0 + i * step;
}

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int n = COUNT * size;
	int *sb = malloc(n * STRIDE * sizeof(int)), *rb = malloc(n * STRIDE * sizeof(int));
	CHECK(sb && rb);
	MPI_Request req;

	/* Igather, the receive type freed before the wait. */
	for (int root = 0; root < size; root++) {
		MPI_Datatype t = strided();
		fill(sb, COUNT, 100 * rank, 1);
		fill(rb, n, -7, 0);
		CHECK_RC(MPI_Igather(sb, COUNT, t, rb, COUNT, t, root, MPI_COMM_WORLD, &req));
		CHECK_RC(MPI_Type_free(&t));
		CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE));
		if (rank == root)
			for (int r = 0; r < size; r++)
				for (int i = 0; i < COUNT; i++) CHECK(rb[(r * COUNT + i) * STRIDE] == 100 * r + i);
		for (int i = 0; i < n; i++) CHECK(rb[i * STRIDE + 1] == (rank == root ? -1 : -1));
	}

	/* Ibcast and Iallreduce (a predefined op), the type freed. */
	{
		MPI_Datatype t = strided();
		fill(rb, COUNT, rank == 0 ? 40 : 0, 1);
		CHECK_RC(MPI_Ibcast(rb, COUNT, t, 0, MPI_COMM_WORLD, &req));
		CHECK_RC(MPI_Type_free(&t));
		CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE));
		for (int i = 0; i < COUNT; i++) CHECK(rb[i * STRIDE] == 40 + i && rb[i * STRIDE + 1] == -1);

		t = strided();
		fill(sb, COUNT, rank, 1);
		fill(rb, COUNT, 0, 0);
		CHECK_RC(MPI_Iallreduce(sb, rb, COUNT, t, MPI_SUM, MPI_COMM_WORLD, &req));
		CHECK_RC(MPI_Type_free(&t));
		CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE));
		for (int i = 0; i < COUNT; i++)
			CHECK(rb[i * STRIDE] == size * (size - 1) / 2 + size * i && rb[i * STRIDE + 1] == -1);
	}

	/* Ialltoallw: a derived type to every peer, freed before the wait;
	 * byte displacements. */
	{
		int *sc = malloc(size * sizeof(int)), *sd = malloc(size * sizeof(int));
		MPI_Datatype *ts = malloc(size * sizeof(MPI_Datatype));
		CHECK(sc && sd && ts);
		MPI_Datatype t = strided();
		for (int i = 0; i < size; i++) {
			sc[i] = COUNT;
			sd[i] = COUNT * i * STRIDE * sizeof(int);
			ts[i] = t;
		}
		for (int p = 0; p < size; p++)
			for (int j = 0; j < COUNT; j++) {
				sb[(p * COUNT + j) * STRIDE] = 1000 * rank + 10 * p + j;
				sb[(p * COUNT + j) * STRIDE + 1] = -2;
			}
		fill(rb, n, 0, 0);
		CHECK_RC(MPI_Ialltoallw(sb, sc, sd, ts, rb, sc, sd, ts, MPI_COMM_WORLD, &req));
		CHECK_RC(MPI_Type_free(&t));
		CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE));
		for (int p = 0; p < size; p++)
			for (int j = 0; j < COUNT; j++) {
				CHECK(rb[(p * COUNT + j) * STRIDE] == 1000 * p + 10 * rank + j);
				CHECK(rb[(p * COUNT + j) * STRIDE + 1] == -1);
			}
		free(sc);
		free(sd);
		free(ts);
	}
	free(sb);
	free(rb);
	report_ok();
	MPI_Finalize();
	return 0;
}
