/* Reductions with a user operator over derived datatypes whose handles are
 * freed and reused: each reduction must see the layout of the type it was
 * called with, never a freed type's (issue 18 item 8: the element size of a
 * freed handle was reused, so the operator got count 0, or ran past the
 * buffer when the new type was larger). */
#include "check.h"

static int calls;

/* Sums the ints of len elements of *dt, however many ints an element has. */
static void isum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	int sz;
	MPI_Type_size(*dt, &sz);
	int n = *len * (sz / (int)sizeof(int));
	int *a = in, *b = inout;
	for (int i = 0; i < n; i++) b[i] += a[i];
	calls++;
}

/* Sums the ints of a row type: 3 ints, every other one of 6. */
static void strided_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	(void)dt;
	int *a = in, *b = inout;
	for (int e = 0; e < *len; e++)
		for (int i = 0; i < 6; i += 2) b[6 * e + i] += a[6 * e + i];
	calls++;
}

/* One allreduce of count elements of ints-per-element ints, checked. */
static void reduce_with(MPI_Op op, int per, int count, int rank, int size)
{
	MPI_Datatype t;
	CHECK_RC(MPI_Type_contiguous(per, MPI_INT, &t));
	CHECK_RC(MPI_Type_commit(&t));
	int n = per * count;
	/* A guard word on each side catches a write past the result. */
	int *in = malloc(n * sizeof(int)), *out = malloc((n + 2) * sizeof(int));
	CHECK(in && out);
	for (int i = 0; i < n; i++) in[i] = rank + i;
	for (int i = 0; i < n + 2; i++) out[i] = -7;
	CHECK_RC(MPI_Allreduce(in, out + 1, count, t, op, MPI_COMM_WORLD));
	int ranks = size * (size - 1) / 2;
	for (int i = 0; i < n; i++) CHECK(out[1 + i] == ranks + size * i);
	CHECK(out[0] == -7 && out[n + 1] == -7);
	free(in);
	free(out);
	CHECK_RC(MPI_Type_free(&t));
	CHECK(t == MPI_DATATYPE_NULL);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Op op;
	CHECK_RC(MPI_Op_create(isum, 1, &op));
	/* Small, then larger, then smaller again: each type most likely takes
	 * the handle the previous one freed. */
	int per[] = {2, 16, 1, 64, 3, 2};
	for (int k = 0; k < (int)(sizeof per / sizeof per[0]); k++) reduce_with(op, per[k], 5, rank, size);
	/* The same with a predefined operator on a derived type. */
	for (int k = 0; k < 3; k++) {
		MPI_Datatype t;
		CHECK_RC(MPI_Type_contiguous(k == 1 ? 8 : 2, MPI_INT, &t));
		CHECK_RC(MPI_Type_commit(&t));
		int in[16], out[18];
		for (int i = 0; i < 16; i++) in[i] = rank;
		for (int i = 0; i < 18; i++) out[i] = -7;
		int n = k == 1 ? 16 : 4;
		CHECK_RC(MPI_Allreduce(in, out + 1, 2, t, MPI_SUM, MPI_COMM_WORLD));
		for (int i = 0; i < n; i++) CHECK(out[1 + i] == size * (size - 1) / 2);
		CHECK(out[0] == -7 && out[n + 1] == -7);
		CHECK_RC(MPI_Type_free(&t));
	}
	/* A user operator on a strided type sees the data in that type's
	 * layout (the operator walks the holes it expects). */
	{
		MPI_Datatype v;
		CHECK_RC(MPI_Type_vector(3, 1, 2, MPI_INT, &v));
		CHECK_RC(MPI_Type_commit(&v));
		int in[2][6], out[2][6];
		for (int e = 0; e < 2; e++)
			for (int i = 0; i < 6; i++) in[e][i] = i % 2 ? -1 : rank + 10 * e + i, out[e][i] = -5;
		/* Element e starts at e * extent = e * 5 ints: use a resized type
		 * so that the two elements sit one row apart. */
		MPI_Datatype row;
		CHECK_RC(MPI_Type_create_resized(v, 0, 6 * sizeof(int), &row));
		CHECK_RC(MPI_Type_commit(&row));
		CHECK_RC(MPI_Op_free(&op));
		CHECK_RC(MPI_Op_create(strided_sum, 1, &op));
		CHECK_RC(MPI_Allreduce(in, out, 2, row, op, MPI_COMM_WORLD));
		for (int e = 0; e < 2; e++)
			for (int i = 0; i < 6; i++)
				CHECK(out[e][i] == (i % 2 ? -5 : size * (size - 1) / 2 + size * (10 * e + i)));
		CHECK_RC(MPI_Type_free(&row));
		CHECK_RC(MPI_Type_free(&v));
	}
	/* MINLOC on a pair type with padding (12 bytes of data, extent 16). */
	{
		struct { double v; int i; } in[3], out[3];
		for (int k = 0; k < 3; k++) in[k].v = (rank + k) % size, in[k].i = rank;
		CHECK_RC(MPI_Allreduce(in, out, 3, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD));
		for (int k = 0; k < 3; k++) CHECK(out[k].v == 0 && out[k].i == (size - k % size) % size);
		CHECK_RC(MPI_Reduce_local(in, out, 3, MPI_DOUBLE_INT, MPI_MAXLOC));
		for (int k = 0; k < 3; k++) CHECK(out[k].v == in[k].v);
		for (int k = 0; k < 3; k++) out[k].v = 99, out[k].i = -1;
		CHECK_RC(MPI_Reduce_local_c(in, out, 3, MPI_DOUBLE_INT, MPI_MINLOC));
		for (int k = 0; k < 3; k++) CHECK(out[k].v == in[k].v && out[k].i == rank);
	}
	/* Data-moving collectives with a padded pair type and a strided type:
	 * the buffers travel packed. */
	{
		struct di { double v; int i; } mine = {rank * 1.5, rank}, *all = malloc(size * sizeof *all);
		CHECK_RC(MPI_Allgather(&mine, 1, MPI_DOUBLE_INT, all, 1, MPI_DOUBLE_INT, MPI_COMM_WORLD));
		for (int r = 0; r < size; r++) CHECK(all[r].v == r * 1.5 && all[r].i == r);
		memset(all, 0, size * sizeof *all);
		all[0] = mine;
		if (rank == 0)
			CHECK_RC(MPI_Gather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 1, MPI_DOUBLE_INT, 0, MPI_COMM_WORLD));
		else
			CHECK_RC(MPI_Gather(&mine, 1, MPI_DOUBLE_INT, NULL, 0, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD));
		for (int r = 0; rank == 0 && r < size; r++) CHECK(all[r].v == r * 1.5 && all[r].i == r);
		free(all);
		/* The v-forms: rank r contributes r + 1 pairs, placed in reverse
		 * rank order with a gap of one pair between blocks. */
		int *cnt = malloc(size * sizeof(int)), *dsp = malloc(size * sizeof(int)), tot = 0;
		for (int r = size - 1; r >= 0; r--) cnt[r] = r + 1, dsp[r] = tot, tot += r + 2;
		struct di *many = malloc(tot * sizeof *many), *mine2 = malloc((rank + 1) * sizeof *mine2);
		for (int k = 0; k <= rank; k++) mine2[k].v = rank + k / 10.0, mine2[k].i = k;
		for (int k = 0; k < tot; k++) many[k].v = -1, many[k].i = -1;
		CHECK_RC(MPI_Allgatherv(mine2, rank + 1, MPI_DOUBLE_INT, many, cnt, dsp, MPI_DOUBLE_INT, MPI_COMM_WORLD));
		for (int r = 0; r < size; r++) {
			for (int k = 0; k <= r; k++) CHECK(many[dsp[r] + k].v == r + k / 10.0 && many[dsp[r] + k].i == k);
			CHECK(many[dsp[r] + r + 1].i == -1); /* the gap */
		}
		for (int k = 0; k < tot; k++) many[k].v = -1, many[k].i = -1;
		CHECK_RC(MPI_Gatherv(mine2, rank + 1, MPI_DOUBLE_INT, many, cnt, dsp, MPI_DOUBLE_INT, 0, MPI_COMM_WORLD));
		for (int r = 0; rank == 0 && r < size; r++)
			for (int k = 0; k <= r; k++) CHECK(many[dsp[r] + k].v == r + k / 10.0);
		/* Scatterv back from rank 0's gathered buffer. */
		for (int k = 0; k <= rank; k++) mine2[k].v = -2;
		CHECK_RC(MPI_Scatterv(many, cnt, dsp, MPI_DOUBLE_INT, mine2, rank + 1, MPI_DOUBLE_INT, 0, MPI_COMM_WORLD));
		for (int k = 0; k <= rank; k++) CHECK(mine2[k].v == rank + k / 10.0 && mine2[k].i == k);
		/* Alltoallv: one pair to each rank, at the sender's index. */
		int *one = malloc(size * sizeof(int)), *idx = malloc(size * sizeof(int));
		struct di *out = malloc(size * sizeof *out), *in = malloc(size * sizeof *in);
		for (int r = 0; r < size; r++) one[r] = 1, idx[r] = r, out[r].v = 100 * rank + r, out[r].i = rank;
		CHECK_RC(MPI_Alltoallv(out, one, idx, MPI_DOUBLE_INT, in, one, idx, MPI_DOUBLE_INT, MPI_COMM_WORLD));
		for (int r = 0; r < size; r++) CHECK(in[r].v == 100 * r + rank && in[r].i == r);
		free(cnt), free(dsp), free(many), free(mine2), free(one), free(idx), free(out), free(in);

		MPI_Datatype col;
		CHECK_RC(MPI_Type_vector(2, 1, 3, MPI_INT, &col));
		CHECK_RC(MPI_Type_create_resized(col, 0, sizeof(int), &col));
		CHECK_RC(MPI_Type_commit(&col));
		/* Row r of a size x 3 matrix per rank... sent as columns. */
		int *m = malloc(6 * size * sizeof(int)), *got = malloc(2 * size * sizeof(int));
		for (int i = 0; i < 6 * size; i++) m[i] = 1000 * rank + i;
		CHECK_RC(MPI_Alltoall(m, 1, col, got, 2, MPI_INT, MPI_COMM_WORLD));
		/* Element r of col starts at int r: ints r and r + 3 of the sender. */
		for (int r = 0; r < size; r++) CHECK(got[2 * r] == 1000 * r + rank && got[2 * r + 1] == 1000 * r + rank + 3);
		CHECK_RC(MPI_Type_free(&col));
		free(m);
		free(got);
	}
	int total;
	CHECK_RC(MPI_Allreduce(&calls, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
	CHECK(size == 1 || total > 0);
	CHECK_RC(MPI_Op_free(&op));
	report_ok();
	MPI_Finalize();
	return 0;
}
