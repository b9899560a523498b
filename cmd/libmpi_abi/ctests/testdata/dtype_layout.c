/* Datatype layout and decoding (issue 18 items 6 and 8): struct padding,
 * pair types, zero-length blocks, negative extents, Get_elements,
 * envelope/contents of every constructor, subarray and darray, Type_dup,
 * names of optional types, Type_match_size, F90 types, value-index pairs,
 * external32, and the type table growing past any fixed size. */
#include <stdint.h>
#include "check.h"

static MPI_Aint extent_of(MPI_Datatype t)
{
	MPI_Aint lb, ext;
	CHECK_RC(MPI_Type_get_extent(t, &lb, &ext));
	return ext;
}

static MPI_Aint lb_of(MPI_Datatype t)
{
	MPI_Aint lb, ext;
	CHECK_RC(MPI_Type_get_extent(t, &lb, &ext));
	return lb;
}

static int size_of(MPI_Datatype t)
{
	int s;
	CHECK_RC(MPI_Type_size(t, &s));
	return s;
}

/* Decodes t and checks the combiner and the argument counts. */
static void envelope(MPI_Datatype t, int comb, int ni, int na, int nd)
{
	int i, a, d, c;
	CHECK_RC(MPI_Type_get_envelope(t, &i, &a, &d, &c));
	if (c != comb || i != ni || a != na || d != nd)
		fprintf(stderr, "envelope: combiner %d ints %d addrs %d types %d; want %d %d %d %d\n", c, i, a, d, comb, ni,
			na, nd);
	CHECK(c == comb && i == ni && a == na && d == nd);
}

/* Fetches the contents into fixed arrays; frees returned derived types. */
static void contents(MPI_Datatype t, int *ints, MPI_Aint *addrs, MPI_Datatype *types, int nd)
{
	CHECK_RC(MPI_Type_get_contents(t, 64, 64, 8, ints, addrs, types));
	for (int k = 0; k < nd; k++) {
		int i, a, d, c;
		CHECK_RC(MPI_Type_get_envelope(types[k], &i, &a, &d, &c));
		if (c != MPI_COMBINER_NAMED) CHECK_RC(MPI_Type_free(&types[k]));
	}
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Datatype t, u;
	MPI_Status st;
	int n;

	/* struct {int at 0, char at 4}: padded like the C struct (MPICH and
	 * Open MPI agree: extent 8). */
	{
		int bl[2] = {1, 1};
		MPI_Aint d[2] = {0, 4};
		MPI_Datatype ty[2] = {MPI_INT, MPI_CHAR};
		CHECK_RC(MPI_Type_create_struct(2, bl, d, ty, &t));
		CHECK_RC(MPI_Type_commit(&t));
		CHECK(extent_of(t) == 8 && size_of(t) == 5);
		/* Mixed struct: Get_elements counts ints and chars. */
		CHECK_RC(MPI_Status_set_elements(&st, MPI_BYTE, 14)); /* 2 whole + int */
		CHECK_RC(MPI_Get_elements(&st, t, &n));
		CHECK(n == 5);
		CHECK_RC(MPI_Get_count(&st, t, &n));
		CHECK(n == MPI_UNDEFINED);
		CHECK_RC(MPI_Type_free(&t));
	}
	/* Pair types: size is the data, extent the C struct's. */
	{
		struct {
			MPI_Datatype t;
			int size;
			MPI_Aint extent;
		} p[] = {
			{MPI_DOUBLE_INT, 12, 16}, {MPI_LONG_INT, 12, 16}, {MPI_SHORT_INT, 6, 8},
			{MPI_LONG_DOUBLE_INT, 20, 32}, {MPI_FLOAT_INT, 8, 8}, {MPI_2INT, 8, 8},
		};
		for (int k = 0; k < 6; k++) CHECK(size_of(p[k].t) == p[k].size && extent_of(p[k].t) == p[k].extent);
		/* Get_elements counts basic elements: 3 pairs are 6. */
		CHECK_RC(MPI_Status_set_elements(&st, MPI_BYTE, 36));
		CHECK_RC(MPI_Get_elements(&st, MPI_DOUBLE_INT, &n));
		CHECK(n == 6);
		CHECK_RC(MPI_Get_count(&st, MPI_DOUBLE_INT, &n));
		CHECK(n == 3);
		/* Status_set_elements counts elements of the datatype (MPICH and
		 * Open MPI agree). */
		CHECK_RC(MPI_Status_set_elements(&st, MPI_DOUBLE_INT, 3));
		CHECK_RC(MPI_Get_elements(&st, MPI_DOUBLE_INT, &n));
		CHECK(n == 6);
		CHECK_RC(MPI_Get_count(&st, MPI_DOUBLE_INT, &n));
		CHECK(n == 3);
	}
	/* Zero-length blocks have no say in lb and ub. */
	{
		int bl[2] = {0, 1};
		MPI_Aint d[2] = {-100, 8};
		MPI_Datatype ty[2] = {MPI_INT, MPI_INT};
		CHECK_RC(MPI_Type_create_struct(2, bl, d, ty, &t));
		CHECK(lb_of(t) == 8 && extent_of(t) == 4);
		CHECK_RC(MPI_Type_free(&t));
	}
	/* A resized type with a negative extent is a valid base type (bounds as
	 * MPICH and Open MPI compute them). */
	{
		CHECK_RC(MPI_Type_create_resized(MPI_INT, 0, -4, &t));
		CHECK_RC(MPI_Type_contiguous(3, t, &u));
		CHECK(lb_of(u) == -8 && extent_of(u) == 4);
		MPI_Aint tlb, text;
		CHECK_RC(MPI_Type_get_true_extent(u, &tlb, &text));
		CHECK(tlb == -8 && text == 12);
		CHECK_RC(MPI_Type_free(&u));
		CHECK_RC(MPI_Type_free(&t));
	}
	/* Names of the optional predefined types. */
	{
		char name[MPI_MAX_OBJECT_NAME];
		MPI_Datatype opt[] = {MPI_REAL16, MPI_COMPLEX32, MPI_INTEGER16};
		const char *want[] = {"MPI_REAL16", "MPI_COMPLEX32", "MPI_INTEGER16"};
		for (int k = 0; k < 3; k++) {
			CHECK_RC(MPI_Type_get_name(opt[k], name, &n));
			CHECK(strcmp(name, want[k]) == 0 && n == (int)strlen(want[k]));
		}
		CHECK_RC(MPI_Type_set_name(MPI_INTEGER16, "my int16"));
		CHECK_RC(MPI_Type_get_name(MPI_INTEGER16, name, &n));
		CHECK(strcmp(name, "my int16") == 0);
		CHECK_RC(MPI_Type_set_name(MPI_INTEGER16, "MPI_INTEGER16"));
	}

	/* Envelope and contents of every constructor. */
	{
		int ints[64];
		MPI_Aint addrs[64];
		MPI_Datatype types[8];
		CHECK_RC(MPI_Type_contiguous(7, MPI_INT, &t));
		envelope(t, MPI_COMBINER_CONTIGUOUS, 1, 0, 1);
		contents(t, ints, addrs, types, 1);
		CHECK(ints[0] == 7 && types[0] == MPI_INT);
		CHECK_RC(MPI_Type_vector(3, 2, 5, t, &u));
		envelope(u, MPI_COMBINER_VECTOR, 3, 0, 1);
		CHECK_RC(MPI_Type_get_contents(u, 3, 0, 1, ints, addrs, types));
		CHECK(ints[0] == 3 && ints[1] == 2 && ints[2] == 5);
		/* A derived constituent comes back as a new handle of the same
		 * type. */
		CHECK(size_of(types[0]) == 28);
		envelope(types[0], MPI_COMBINER_CONTIGUOUS, 1, 0, 1);
		CHECK_RC(MPI_Type_free(&types[0]));
		CHECK(size_of(u) == 3 * 2 * 28 && extent_of(u) == (2 * 5 + 2) * 28);
		CHECK_RC(MPI_Type_free(&u));
		CHECK_RC(MPI_Type_free(&t));

		CHECK_RC(MPI_Type_create_hvector(4, 1, 24, MPI_DOUBLE, &t));
		envelope(t, MPI_COMBINER_HVECTOR, 2, 1, 1);
		contents(t, ints, addrs, types, 1);
		CHECK(ints[0] == 4 && ints[1] == 1 && addrs[0] == 24 && types[0] == MPI_DOUBLE);
		CHECK_RC(MPI_Type_free(&t));

		int bl[3] = {2, 1, 3}, dp[3] = {0, 4, 9};
		CHECK_RC(MPI_Type_indexed(3, bl, dp, MPI_SHORT, &t));
		envelope(t, MPI_COMBINER_INDEXED, 7, 0, 1);
		contents(t, ints, addrs, types, 1);
		CHECK(ints[0] == 3 && ints[1] == 2 && ints[2] == 1 && ints[3] == 3 && ints[4] == 0 && ints[5] == 4 &&
		      ints[6] == 9 && types[0] == MPI_SHORT);
		CHECK(size_of(t) == 12 && extent_of(t) == 24);
		CHECK_RC(MPI_Type_free(&t));

		MPI_Aint hd[3] = {0, 16, 40};
		CHECK_RC(MPI_Type_create_hindexed(3, bl, hd, MPI_FLOAT, &t));
		envelope(t, MPI_COMBINER_HINDEXED, 4, 3, 1);
		contents(t, ints, addrs, types, 1);
		CHECK(ints[0] == 3 && ints[1] == 2 && ints[3] == 3 && addrs[0] == 0 && addrs[1] == 16 && addrs[2] == 40);
		CHECK_RC(MPI_Type_free(&t));

		CHECK_RC(MPI_Type_create_indexed_block(3, 2, dp, MPI_INT, &t));
		envelope(t, MPI_COMBINER_INDEXED_BLOCK, 5, 0, 1);
		contents(t, ints, addrs, types, 1);
		CHECK(ints[0] == 3 && ints[1] == 2 && ints[2] == 0 && ints[3] == 4 && ints[4] == 9);
		CHECK(size_of(t) == 24 && extent_of(t) == 44);
		CHECK_RC(MPI_Type_free(&t));

		CHECK_RC(MPI_Type_create_hindexed_block(3, 2, hd, MPI_INT, &t));
		envelope(t, MPI_COMBINER_HINDEXED_BLOCK, 2, 3, 1);
		contents(t, ints, addrs, types, 1);
		CHECK(ints[0] == 3 && ints[1] == 2 && addrs[2] == 40);
		CHECK_RC(MPI_Type_free(&t));

		MPI_Datatype sty[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
		MPI_Aint sd[3] = {0, 8, 16};
		CHECK_RC(MPI_Type_create_struct(3, bl, sd, sty, &t));
		envelope(t, MPI_COMBINER_STRUCT, 4, 3, 3);
		contents(t, ints, addrs, types, 3);
		CHECK(ints[0] == 3 && ints[1] == 2 && ints[2] == 1 && ints[3] == 3 && addrs[1] == 8 &&
		      types[0] == MPI_INT && types[1] == MPI_DOUBLE && types[2] == MPI_CHAR);
		CHECK(size_of(t) == 8 + 8 + 3 && extent_of(t) == 24);

		CHECK_RC(MPI_Type_create_resized(t, -8, 64, &u));
		envelope(u, MPI_COMBINER_RESIZED, 0, 2, 1);
		contents(u, ints, addrs, types, 1);
		CHECK(addrs[0] == -8 && addrs[1] == 64);
		CHECK(lb_of(u) == -8 && extent_of(u) == 64);
		CHECK_RC(MPI_Type_free(&u));

		CHECK_RC(MPI_Type_dup(t, &u));
		envelope(u, MPI_COMBINER_DUP, 0, 0, 1);
		CHECK(size_of(u) == size_of(t) && extent_of(u) == extent_of(t));
		CHECK_RC(MPI_Type_free(&u));
		CHECK_RC(MPI_Type_free(&t));

		int sizes[2] = {4, 6}, subs[2] = {2, 3}, starts[2] = {1, 2};
		CHECK_RC(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &t));
		envelope(t, MPI_COMBINER_SUBARRAY, 8, 0, 1);
		contents(t, ints, addrs, types, 1);
		CHECK(ints[0] == 2 && ints[1] == 4 && ints[2] == 6 && ints[3] == 2 && ints[4] == 3 && ints[5] == 1 &&
		      ints[6] == 2 && ints[7] == MPI_ORDER_C);
		CHECK(size_of(t) == 6 * 4 && lb_of(t) == 0 && extent_of(t) == 24 * 4);
		/* Its data: rows 1..2, columns 2..4. */
		int a[4][6], packed[6], pos = 0;
		CHECK_RC(MPI_Type_commit(&t));
		for (int i = 0; i < 24; i++) a[i / 6][i % 6] = i;
		CHECK_RC(MPI_Pack(a, 1, t, packed, sizeof packed, &pos, MPI_COMM_WORLD));
		CHECK(pos == 24);
		int want[6] = {8, 9, 10, 14, 15, 16};
		for (int i = 0; i < 6; i++) CHECK(packed[i] == want[i]);
		CHECK_RC(MPI_Type_free(&t));
		CHECK_RC(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_FORTRAN, MPI_INT, &t));
		pos = 0;
		CHECK_RC(MPI_Type_commit(&t));
		CHECK_RC(MPI_Pack(a, 1, t, packed, sizeof packed, &pos, MPI_COMM_WORLD));
		/* Fortran order: sizes[0] varies fastest (4 per column). */
		int wantf[6] = {9, 10, 13, 14, 17, 18};
		for (int i = 0; i < 6; i++) CHECK(packed[i] == wantf[i]);
		CHECK_RC(MPI_Type_free(&t));

		/* darray: a 4x4 array, 2x2 process grid, block x cyclic. */
		int gs[2] = {4, 4}, dist[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
		    darg[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, ps[2] = {2, 2};
		CHECK_RC(MPI_Type_create_darray(4, 3, 2, gs, dist, darg, ps, MPI_ORDER_C, MPI_INT, &t));
		envelope(t, MPI_COMBINER_DARRAY, 4 * 2 + 4, 0, 1);
		CHECK(size_of(t) == 4 * 4 && extent_of(t) == 16 * 4);
		int g[16], got[4];
		CHECK_RC(MPI_Type_commit(&t));
		for (int i = 0; i < 16; i++) g[i] = i;
		pos = 0;
		CHECK_RC(MPI_Pack(g, 1, t, got, sizeof got, &pos, MPI_COMM_WORLD));
		/* Rank 3 = coords (1,1): rows 2..3, columns 1 and 3. */
		int wd[4] = {9, 11, 13, 15};
		for (int i = 0; i < 4; i++) CHECK(got[i] == wd[i]);
		CHECK_RC(MPI_Type_free(&t));
	}

	/* Type_match_size, F90 types, value-index pairs. */
	{
		CHECK_RC(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &t));
		CHECK(size_of(t) == 8);
		CHECK_RC(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &t));
		CHECK(size_of(t) == 4);
		CHECK_RC(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 16, &t));
		CHECK(size_of(t) == 16);
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
		CHECK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &t) != MPI_SUCCESS);
		CHECK_RC(MPI_Type_create_f90_real(10, 100, &t));
		CHECK(size_of(t) == 8);
		int ints[2], i, a, d, c;
		CHECK_RC(MPI_Type_get_envelope(t, &i, &a, &d, &c));
		CHECK(c == MPI_COMBINER_F90_REAL && i == 2 && a == 0 && d == 0);
		CHECK_RC(MPI_Type_get_contents(t, 2, 0, 0, ints, NULL, NULL));
		CHECK(ints[0] == 10 && ints[1] == 100);
		CHECK_RC(MPI_Type_create_f90_real(10, 100, &u));
		CHECK(u == t);
		CHECK_RC(MPI_Type_create_f90_integer(9, &t));
		CHECK(size_of(t) == 4);
		CHECK_RC(MPI_Type_create_f90_complex(5, MPI_UNDEFINED, &t));
		CHECK(size_of(t) == 8);
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
		CHECK_RC(MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &t));
		CHECK(t == MPI_DOUBLE_INT);
		CHECK_RC(MPI_Type_get_value_index(MPI_CHAR, MPI_DOUBLE, &t));
		CHECK(t == MPI_DATATYPE_NULL);
	}

	/* external32: big-endian, long as 4 bytes (MPICH's reading of the
	 * standard's table). */
	{
		int32_t iv[2] = {0x01020304, -2};
		double dv = 1.0;
		long lv = -5;
		unsigned char buf[64];
		MPI_Aint pos = 0, sz;
		CHECK_RC(MPI_Pack_external_size("external32", 2, MPI_INT, &sz));
		CHECK(sz == 8);
		CHECK_RC(MPI_Pack_external("external32", iv, 2, MPI_INT, buf, sizeof buf, &pos));
		CHECK_RC(MPI_Pack_external("external32", &dv, 1, MPI_DOUBLE, buf, sizeof buf, &pos));
		CHECK_RC(MPI_Pack_external("external32", &lv, 1, MPI_LONG, buf, sizeof buf, &pos));
		CHECK(pos == 8 + 8 + 4);
		unsigned char want[20] = {1, 2, 3, 4, 0xff, 0xff, 0xff, 0xfe, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xfb};
		CHECK(memcmp(buf, want, 20) == 0);
		int32_t iv2[2];
		double dv2;
		long lv2;
		MPI_Aint in = 0;
		CHECK_RC(MPI_Unpack_external("external32", buf, pos, &in, iv2, 2, MPI_INT));
		CHECK_RC(MPI_Unpack_external("external32", buf, pos, &in, &dv2, 1, MPI_DOUBLE));
		CHECK_RC(MPI_Unpack_external("external32", buf, pos, &in, &lv2, 1, MPI_LONG));
		CHECK(in == pos && iv2[0] == iv[0] && iv2[1] == -2 && dv2 == 1.0 && lv2 == -5);
		/* A pair type goes element by element: 12 bytes, no padding. */
		struct { double v; int i; } di = {2.0, 7};
		pos = 0;
		CHECK_RC(MPI_Pack_external("external32", &di, 1, MPI_DOUBLE_INT, buf, sizeof buf, &pos));
		CHECK(pos == 12 && buf[0] == 0x40 && buf[11] == 7);
	}

	/* Bad input: the right class, nothing created, no crash. */
	{
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
		int cls, bl[1] = {1}, dp[1] = {0};
		MPI_Aint ad[1] = {0};
		MPI_Datatype bad = (MPI_Datatype)(intptr_t)0x6fffff0, ty[1] = {bad}, pre = MPI_INT;
		t = MPI_DATATYPE_NULL;
		struct {
			int rc, want;
		} cases[] = {
			{MPI_Type_contiguous(2, bad, &t), MPI_ERR_TYPE},
			{MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT},
			{MPI_Type_vector(2, 1, 1, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE},
			{MPI_Type_indexed(1, bl, dp, bad, &t), MPI_ERR_TYPE},
			{MPI_Type_create_struct(1, bl, ad, ty, &t), MPI_ERR_TYPE},
			{MPI_Type_create_resized(bad, 0, 4, &t), MPI_ERR_TYPE},
			{MPI_Type_commit(&bad), MPI_ERR_TYPE},
			{MPI_Type_free(&pre), MPI_ERR_TYPE},
			{MPI_Type_size(bad, &n), MPI_ERR_TYPE},
			{MPI_Type_get_contents(MPI_INT, 0, 0, 0, NULL, NULL, NULL), MPI_ERR_TYPE},
			{MPI_Type_create_subarray(1, bl, bl, bl, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG},
			{MPI_Pack_external("native", &n, 1, MPI_INT, &n, 4, ad), MPI_ERR_UNSUPPORTED_DATAREP},
			{MPI_Type_get_envelope(bad, &n, &n, &n, &n), MPI_ERR_TYPE},
		};
		for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
			CHECK(cases[k].rc != MPI_SUCCESS);
			CHECK_RC(MPI_Error_class(cases[k].rc, &cls));
			if (cls != cases[k].want) fprintf(stderr, "case %zu: class %d, want %d\n", k, cls, cases[k].want);
			CHECK(cls == cases[k].want);
		}
		CHECK(t == MPI_DATATYPE_NULL && pre == MPI_INT);
		/* A large-count type has no int envelope. */
		CHECK_RC(MPI_Type_contiguous_c(3, MPI_INT, &t));
		CHECK(MPI_Type_get_envelope(t, &n, &n, &n, &n) != MPI_SUCCESS);
		CHECK_RC(MPI_Type_free(&t));
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	}

	/* No fixed limit on live types; freed handles are reused. */
	{
		enum { N = 20000 };
		MPI_Datatype *many = malloc(N * sizeof *many);
		CHECK(many);
		for (int k = 0; k < N; k++) CHECK_RC(MPI_Type_contiguous(k % 7 + 1, MPI_INT, &many[k]));
		for (int k = 0; k < N; k++) CHECK(size_of(many[k]) == 4 * (k % 7 + 1));
		for (int k = 0; k < N; k++) CHECK_RC(MPI_Type_free(&many[k]));
		for (int k = 0; k < 3 * N; k++) {
			CHECK_RC(MPI_Type_vector(2, 1, 2, MPI_INT, &t));
			CHECK_RC(MPI_Type_free(&t));
		}
		free(many);
	}

	/* A struct of no blocks, its arrays NULL: an empty type. */
	{
		MPI_Datatype e;
		MPI_Aint elb, eext;
		int ni, na, nd, comb, esz;
		CHECK_RC(MPI_Type_create_struct(0, NULL, NULL, NULL, &e));
		CHECK_RC(MPI_Type_commit(&e));
		CHECK_RC(MPI_Type_size(e, &esz));
		CHECK_RC(MPI_Type_get_extent(e, &elb, &eext));
		CHECK(esz == 0 && elb == 0 && eext == 0);
		CHECK_RC(MPI_Type_get_envelope(e, &ni, &na, &nd, &comb));
		CHECK(comb == MPI_COMBINER_STRUCT && ni == 1 && na == 0 && nd == 0);
		CHECK_RC(MPI_Type_free(&e));
		CHECK_RC(MPI_Type_create_struct_c(0, NULL, NULL, NULL, &e));
		CHECK_RC(MPI_Type_free(&e));
	}
	/* Synonym handles are named by their older names, as in MPICH. */
	{
		char nm[MPI_MAX_OBJECT_NAME];
		int nl;
		CHECK_RC(MPI_Type_get_name(MPI_LONG_LONG_INT, nm, &nl));
		CHECK(strcmp(nm, "MPI_LONG_LONG_INT") == 0 && nl == 17);
		CHECK_RC(MPI_Type_get_name(MPI_C_COMPLEX, nm, &nl));
		CHECK(strcmp(nm, "MPI_C_COMPLEX") == 0);
	}
	report_ok();
	MPI_Finalize();
	return 0;
}
