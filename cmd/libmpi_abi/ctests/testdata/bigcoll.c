/* bigcoll.c — collectives of large blocks from C, against serial
 * references: 600 KB to 1.3 MB on the wire per block, so that a two-rank
 * job's messages go eager (pairCollEagerMin, 512 KiB, where reads are
 * slow) and those of larger jobs by direct copy. Blocks are described by a
 * strided vector (one int in every two), so the engine packs and unpacks
 * them, and every gap is checked to be untouched; the reductions are of
 * ints, Allreduce and Alltoall in place as well. */
#include "check.h"

#define SENT (-7)

static int rank, size;

static int val(int r, int peer, long i) { return (int)((r * 7919 + peer * 31 + i) % 100003); }

/* A vector of n ints with a gap after each, its extent 2n ints (the
 * vector's own ends at the last int, before the last gap). */
static MPI_Datatype strided(int n)
{
	MPI_Datatype v, t;
	CHECK_RC(MPI_Type_vector(n, 1, 2, MPI_INT, &v));
	CHECK_RC(MPI_Type_create_resized(v, 0, 2L * n * (MPI_Aint)sizeof(int), &t));
	CHECK_RC(MPI_Type_commit(&t));
	MPI_Type_free(&v);
	return t;
}

static int *alloc_ints(long n)
{
	int *p = malloc((size_t)n * sizeof *p);
	CHECK(p != NULL);
	for (long i = 0; i < n; i++) p[i] = SENT;
	return p;
}

/* CHECK_STRIDED: the n payload ints of a strided block hold want(i), the
 * gaps SENT. */
#define CHECK_STRIDED(buf, n, want)                       \
	do {                                              \
		for (long i = 0; i < (n); i++) {          \
			CHECK((buf)[2 * i] == (want));    \
			CHECK((buf)[2 * i + 1] == SENT);  \
		}                                         \
	} while (0)

static void bcast_gather_scatter(int n)
{
	MPI_Datatype t = strided(n);
	for (int root = 0; root < size; root += size > 1 ? size - 1 : 1) {
		int *buf = alloc_ints(2L * n);
		if (rank == root)
			for (long i = 0; i < n; i++) buf[2 * i] = val(root, 0, i);
		CHECK_RC(MPI_Bcast(buf, 1, t, root, MPI_COMM_WORLD));
		CHECK_STRIDED(buf, n, val(root, 0, i));

		/* Gather the strided blocks at root, then Scatter them back. */
		int *send = alloc_ints(2L * n);
		for (long i = 0; i < n; i++) send[2 * i] = val(rank, root, i);
		int *all = alloc_ints(2L * n * size);
		CHECK_RC(MPI_Gather(send, 1, t, all, 1, t, root, MPI_COMM_WORLD));
		if (rank == root)
			for (int p = 0; p < size; p++) CHECK_STRIDED(all + 2L * n * p, n, val(p, root, i));
		int *back = alloc_ints(2L * n);
		CHECK_RC(MPI_Scatter(all, 1, t, back, 1, t, root, MPI_COMM_WORLD));
		CHECK_STRIDED(back, n, val(rank, root, i));
		free(buf), free(send), free(all), free(back);
		if (size == 1) break;
	}
	MPI_Type_free(&t);
}

static void reductions(int n)
{
	/* Predefined operators take predefined datatypes (Open MPI and MPICH
	 * refuse a vector with MPI_SUM), so the reductions are of ints. */
	int *in = alloc_ints(2L * n), *out = alloc_ints(2L * n);
	for (long i = 0; i < n; i++) in[i] = val(rank, 0, i);
	CHECK_RC(MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
	for (long i = 0; i < n; i++) {
		long want = 0;
		for (int p = 0; p < size; p++) want += val(p, 0, i);
		CHECK(out[i] == (int)want);
	}
	for (long i = n; i < 2L * n; i++) CHECK(out[i] == SENT);
	/* In place, contiguous ints, MPI_MAX. */
	for (long i = 0; i < n; i++) in[i] = val(rank, 1, i);
	CHECK_RC(MPI_Allreduce(MPI_IN_PLACE, in, n, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
	for (long i = 0; i < n; i++) {
		int want = val(0, 1, i);
		for (int p = 1; p < size; p++) want = val(p, 1, i) > want ? val(p, 1, i) : want;
		CHECK(in[i] == want);
	}
	/* Reduce of contiguous ints to the last rank. */
	for (long i = 0; i < n; i++) in[i] = val(rank, 2, i);
	for (long i = 0; i < 2L * n; i++) out[i] = SENT;
	CHECK_RC(MPI_Reduce(in, out, n, MPI_INT, MPI_SUM, size - 1, MPI_COMM_WORLD));
	if (rank == size - 1)
		for (long i = 0; i < n; i++) {
			long want = 0;
			for (int p = 0; p < size; p++) want += val(p, 2, i);
			CHECK(out[i] == (int)want);
		}
	free(in), free(out);
}

static void alltoall(int n)
{
	MPI_Datatype t = strided(n);
	int *send = alloc_ints(2L * n * size), *recv = alloc_ints(2L * n * size);
	for (int p = 0; p < size; p++)
		for (long i = 0; i < n; i++) send[2L * n * p + 2 * i] = val(rank, p, i);
	CHECK_RC(MPI_Alltoall(send, 1, t, recv, 1, t, MPI_COMM_WORLD));
	for (int p = 0; p < size; p++) CHECK_STRIDED(recv + 2L * n * p, n, val(p, rank, i));
	/* In place, contiguous. */
	int *io = alloc_ints((long)n * size);
	for (int p = 0; p < size; p++)
		for (long i = 0; i < n; i++) io[(long)n * p + i] = val(rank, p, i);
	CHECK_RC(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, io, n, MPI_INT, MPI_COMM_WORLD));
	for (int p = 0; p < size; p++)
		for (long i = 0; i < n; i++) CHECK(io[(long)n * p + i] == val(p, rank, i));
	free(send), free(recv), free(io);
	MPI_Type_free(&t);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	/* 150,000 and 330,000 ints: 600 KB and 1.32 MB on the wire. */
	int ns[] = {150000, 330000};
	for (int k = 0; k < 2; k++) {
		bcast_gather_scatter(ns[k]);
		reductions(ns[k]);
		alltoall(ns[k]);
	}
	report_ok();
	MPI_Finalize();
	return 0;
}
