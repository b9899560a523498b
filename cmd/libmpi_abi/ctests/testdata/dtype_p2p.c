/* Large-count point-to-point and datatypes in every point-to-point call
 * (issue 18 items 2, 6, 8): each _c twin with a strided type, a receive
 * and a persistent receive whose type is freed before they complete,
 * huge-count types that take no per-element memory, type attributes. */
#include <stdint.h>
#include "check.h"

#define N 6

/* The column type: N ints, one every 3. */
static MPI_Datatype column(void)
{
	MPI_Datatype t;
	CHECK_RC(MPI_Type_vector_c(N, 1, 3, MPI_INT, &t));
	CHECK_RC(MPI_Type_commit(&t));
	return t;
}

static void fill(int *m, int base)
{
	for (int i = 0; i < 3 * N; i++) m[i] = -1;
	for (int i = 0; i < N; i++) m[3 * i] = base + i;
}

static void check_col(const int *m, int base)
{
	for (int i = 0; i < N; i++) {
		CHECK(m[3 * i] == base + i);
		CHECK(m[3 * i + 1] == -1 && m[3 * i + 2] == -1);
	}
}

static int deleted;
static int del_fn(MPI_Datatype t, int k, void *v, void *x)
{
	(void)t, (void)k, (void)x;
	deleted += *(int *)v;
	return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int next = (rank + 1) % size, prev = (rank + size - 1) % size;
	int sm[3 * N], rm[3 * N];
	MPI_Status st;
	MPI_Count c;
	MPI_Request rq[2];
	MPI_Datatype col = column();

	/* Every blocking and nonblocking _c send mode, column to column. */
	enum { SSEND, RSEND, BSEND, ISSEND, IBSEND, IRSEND, MODES };
	int bufsize = 4 * (N * 4 + MPI_BSEND_OVERHEAD);
	void *bbuf = malloc(bufsize);
	CHECK_RC(MPI_Buffer_attach_c(bbuf, bufsize));
	for (int mode = 0; mode < MODES; mode++) {
		fill(sm, 100 * mode + rank);
		fill(rm, -1);
		for (int i = 0; i < 3 * N; i++) rm[i] = -1;
		CHECK_RC(MPI_Irecv_c(rm, 1, col, prev, mode, MPI_COMM_WORLD, &rq[0]));
		/* Ready sends need the receive posted everywhere first. */
		CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
		rq[1] = MPI_REQUEST_NULL;
		switch (mode) {
		case SSEND: CHECK_RC(MPI_Ssend_c(sm, 1, col, next, mode, MPI_COMM_WORLD)); break;
		case RSEND: CHECK_RC(MPI_Rsend_c(sm, 1, col, next, mode, MPI_COMM_WORLD)); break;
		case BSEND: CHECK_RC(MPI_Bsend_c(sm, 1, col, next, mode, MPI_COMM_WORLD)); break;
		case ISSEND: CHECK_RC(MPI_Issend_c(sm, 1, col, next, mode, MPI_COMM_WORLD, &rq[1])); break;
		case IBSEND: CHECK_RC(MPI_Ibsend_c(sm, 1, col, next, mode, MPI_COMM_WORLD, &rq[1])); break;
		case IRSEND: CHECK_RC(MPI_Irsend_c(sm, 1, col, next, mode, MPI_COMM_WORLD, &rq[1])); break;
		}
		CHECK_RC(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
		check_col(rm, 100 * mode + prev);
	}
	MPI_Count bsize;
	void *bptr;
	CHECK_RC(MPI_Buffer_detach_c(&bptr, &bsize));
	CHECK(bptr == bbuf && bsize == bufsize);
	free(bbuf);

	/* Sendrecv_c and Sendrecv_replace_c; Get_count_c and Get_elements_c. */
	fill(sm, 1000 + rank);
	fill(rm, -1);
	CHECK_RC(MPI_Sendrecv_c(sm, 1, col, next, 7, rm, 1, col, prev, 7, MPI_COMM_WORLD, &st));
	check_col(rm, 1000 + prev);
	CHECK_RC(MPI_Get_count_c(&st, col, &c));
	CHECK(c == 1);
	CHECK_RC(MPI_Get_elements_c(&st, col, &c));
	CHECK(c == N);
	CHECK_RC(MPI_Get_count_c(&st, MPI_INT, &c));
	CHECK(c == N);
	fill(sm, 2000 + rank);
	CHECK_RC(MPI_Sendrecv_replace_c(sm, 1, col, next, 8, prev, 8, MPI_COMM_WORLD, &st));
	check_col(sm, 2000 + prev);

	/* Persistent _c requests, two rounds. */
	CHECK_RC(MPI_Send_init_c(sm, 1, col, next, 9, MPI_COMM_WORLD, &rq[0]));
	CHECK_RC(MPI_Recv_init_c(rm, 1, col, prev, 9, MPI_COMM_WORLD, &rq[1]));
	for (int round = 0; round < 2; round++) {
		fill(sm, 3000 + 10 * round + rank);
		fill(rm, -1);
		CHECK_RC(MPI_Startall(2, rq));
		CHECK_RC(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
		check_col(rm, 3000 + 10 * round + prev);
	}
	CHECK_RC(MPI_Request_free(&rq[0]));
	CHECK_RC(MPI_Request_free(&rq[1]));

	/* A receive whose type is freed before it completes keeps the type:
	 * the standard says the pending operation holds it. New types made
	 * meanwhile must not take its layout. */
	{
		MPI_Datatype t = column(), other;
		fill(rm, -1);
		CHECK_RC(MPI_Irecv(rm, 1, t, prev, 10, MPI_COMM_WORLD, &rq[0]));
		CHECK_RC(MPI_Type_free(&t));
		CHECK_RC(MPI_Type_vector(N, 1, 2, MPI_INT, &other)); /* may take the freed handle */
		CHECK_RC(MPI_Type_commit(&other));
		CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
		fill(sm, 4000 + rank);
		CHECK_RC(MPI_Send(sm, 1, col, next, 10, MPI_COMM_WORLD));
		CHECK_RC(MPI_Wait(&rq[0], &st));
		check_col(rm, 4000 + prev);
		CHECK_RC(MPI_Type_free(&other));

		/* The same for a persistent receive, started after the free. */
		t = column();
		CHECK_RC(MPI_Recv_init(rm, 1, t, prev, 11, MPI_COMM_WORLD, &rq[0]));
		CHECK_RC(MPI_Type_free(&t));
		CHECK_RC(MPI_Type_contiguous(2, MPI_DOUBLE, &other));
		fill(rm, -1);
		CHECK_RC(MPI_Start(&rq[0]));
		fill(sm, 5000 + rank);
		CHECK_RC(MPI_Send(sm, 1, col, next, 11, MPI_COMM_WORLD));
		CHECK_RC(MPI_Wait(&rq[0], &st));
		check_col(rm, 5000 + prev);
		CHECK_RC(MPI_Request_free(&rq[0]));
		CHECK_RC(MPI_Type_free(&other));
	}

	/* Huge counts: no per-element memory, sizes past 2^31. */
	{
		MPI_Datatype big, bigger, v;
		MPI_Count lb, ext, sz;
		int isz;
		CHECK_RC(MPI_Type_contiguous_c(2147483647, MPI_BYTE, &big));
		CHECK_RC(MPI_Type_size_c(big, &sz));
		CHECK(sz == 2147483647);
		CHECK_RC(MPI_Type_size(big, &isz));
		CHECK(isz == 2147483647);
		CHECK_RC(MPI_Type_contiguous_c(4, big, &bigger));
		CHECK_RC(MPI_Type_size_c(bigger, &sz));
		CHECK(sz == 4 * (MPI_Count)2147483647);
		CHECK_RC(MPI_Type_size(bigger, &isz));
		CHECK(isz == MPI_UNDEFINED);
		CHECK_RC(MPI_Type_vector_c((MPI_Count)3 << 31, 1, 2, MPI_INT, &v));
		CHECK_RC(MPI_Type_size_c(v, &sz));
		CHECK(sz == ((MPI_Count)3 << 31) * 4);
		CHECK_RC(MPI_Type_get_extent_c(v, &lb, &ext));
		CHECK(lb == 0 && ext == ((((MPI_Count)3 << 31) - 1) * 2 + 1) * 4);
		/* Large-count envelope: counts in the large-count array. */
		MPI_Count ni, na, nc, nd, counts[3];
		int comb, ints[1];
		MPI_Datatype types[1];
		CHECK_RC(MPI_Type_get_envelope_c(v, &ni, &na, &nc, &nd, &comb));
		CHECK(comb == MPI_COMBINER_VECTOR && ni == 0 && na == 0 && nc == 3 && nd == 1);
		CHECK_RC(MPI_Type_get_contents_c(v, 0, 0, 3, 1, ints, NULL, counts, types));
		CHECK(counts[0] == (MPI_Count)3 << 31 && counts[1] == 1 && counts[2] == 2 && types[0] == MPI_INT);
		/* Status counts past 2^31. */
		CHECK_RC(MPI_Status_set_elements_c(&st, MPI_INT, (MPI_Count)5 << 30));
		CHECK_RC(MPI_Get_count_c(&st, MPI_INT, &c));
		CHECK(c == (MPI_Count)5 << 30);
		CHECK_RC(MPI_Get_elements_c(&st, v, &c));
		CHECK(c == (MPI_Count)5 << 30);
		int ic;
		CHECK_RC(MPI_Get_count(&st, MPI_INT, &ic));
		CHECK(ic == MPI_UNDEFINED);
		CHECK_RC(MPI_Type_free(&v));
		CHECK_RC(MPI_Type_free(&bigger));
		CHECK_RC(MPI_Type_free(&big));
	}

	/* Attributes on types: copied by Type_dup as the keyval says, deleted
	 * when the type is freed. */
	{
		int kdup, knull, one = 1, two = 2, flag, *v;
		MPI_Datatype t, d;
		CHECK_RC(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, del_fn, &kdup, NULL));
		CHECK_RC(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, del_fn, &knull, NULL));
		CHECK_RC(MPI_Type_contiguous(2, MPI_INT, &t));
		CHECK_RC(MPI_Type_set_attr(t, kdup, &one));
		CHECK_RC(MPI_Type_set_attr(t, knull, &two));
		CHECK_RC(MPI_Type_get_attr(t, kdup, &v, &flag));
		CHECK(flag && v == &one);
		CHECK_RC(MPI_Type_dup(t, &d));
		CHECK_RC(MPI_Type_get_attr(d, kdup, &v, &flag));
		CHECK(flag && v == &one);
		CHECK_RC(MPI_Type_get_attr(d, knull, &v, &flag));
		CHECK(!flag);
		CHECK_RC(MPI_Type_delete_attr(t, knull));
		CHECK(deleted == 2);
		CHECK_RC(MPI_Type_free(&t));
		CHECK(deleted == 3);
		CHECK_RC(MPI_Type_free_keyval(&kdup));
		CHECK(kdup == MPI_KEYVAL_INVALID);
		/* The freed keyval's attribute on d is still deleted with d. */
		CHECK_RC(MPI_Type_free(&d));
		CHECK(deleted == 4);
		CHECK_RC(MPI_Type_free_keyval(&knull));
		/* Thousands of keyvals: freed ones are reused. */
		for (int k = 0; k < 5000; k++) {
			int kv;
			CHECK_RC(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &kv, NULL));
			CHECK_RC(MPI_Type_free_keyval(&kv));
		}
	}

	CHECK_RC(MPI_Type_free(&col));
	report_ok();
	MPI_Finalize();
	return 0;
}
