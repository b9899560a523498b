/* MINLOC and MAXLOC over every C pair type (issue 18: MPICH's
 * coll/opminloc corrupted the heap). The pair types have padding (SHORT_INT:
 * size 6, extent 8; LONG_DOUBLE_INT: size 20, extent 32), so a reduction
 * that sizes its buffers by one and steps by the other writes past them; the
 * results sit between guard bytes that must survive. */
#include <stddef.h>
#include "check.h"

#define COUNT 3
#define GUARD 0x5a

/* Fill element k of rank r: values chosen so that the minimum of
 * element 0 is on the last rank, of element 1 on rank 0 and element 2
 * ties everywhere (the lowest index wins). */
#define PAIR_TEST(NAME, VT, DT)                                                          \
	static void NAME(int rank, int size, int all)                                    \
	{                                                                                \
		struct p { VT v; int i; };                                               \
		struct p in[COUNT];                                                      \
		unsigned char raw[sizeof(struct p) * COUNT + 64];                        \
		memset(in, 0, sizeof in);                                                \
		memset(raw, GUARD, sizeof raw);                                          \
		struct p *out = (struct p *)(raw + 32);                                  \
		in[0].v = (VT)(size - rank); in[0].i = rank;                             \
		in[1].v = (VT)(rank + 1); in[1].i = rank;                                \
		in[2].v = (VT)7; in[2].i = rank;                                         \
		for (int op = 0; op < 2; op++) {                                         \
			MPI_Op o = op ? MPI_MAXLOC : MPI_MINLOC;                         \
			memset(raw, GUARD, sizeof raw);                                  \
			if (all)                                                         \
				CHECK_RC(MPI_Allreduce(in, out, COUNT, DT, o, MPI_COMM_WORLD)); \
			else                                                             \
				CHECK_RC(MPI_Reduce(in, out, COUNT, DT, o, 0, MPI_COMM_WORLD)); \
			for (int g = 0; g < 32; g++) {                                   \
				CHECK(raw[g] == GUARD);                                  \
				CHECK(raw[32 + sizeof(struct p) * COUNT + g] == GUARD);  \
			}                                                                \
			if (!all && rank != 0) continue;                                 \
			if (!op) {                                                       \
				CHECK(out[0].v == (VT)1 && out[0].i == size - 1);        \
				CHECK(out[1].v == (VT)1 && out[1].i == 0);               \
			} else {                                                         \
				CHECK(out[0].v == (VT)size && out[0].i == 0);            \
				CHECK(out[1].v == (VT)size && out[1].i == size - 1);     \
			}                                                                \
			CHECK(out[2].v == (VT)7 && out[2].i == 0);                       \
		}                                                                        \
	}

PAIR_TEST(t_2int, int, MPI_2INT)
PAIR_TEST(t_float_int, float, MPI_FLOAT_INT)
PAIR_TEST(t_long_int, long, MPI_LONG_INT)
PAIR_TEST(t_short_int, short, MPI_SHORT_INT)
PAIR_TEST(t_double_int, double, MPI_DOUBLE_INT)
PAIR_TEST(t_long_double_int, long double, MPI_LONG_DOUBLE_INT)

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int all = 0; all < 2; all++) {
		t_2int(rank, size, all);
		t_float_int(rank, size, all);
		t_long_int(rank, size, all);
		t_short_int(rank, size, all);
		t_double_int(rank, size, all);
		t_long_double_int(rank, size, all);
	}
	/* The extents the standard ABI's C struct layouts give. */
	MPI_Aint lb, ext;
	CHECK_RC(MPI_Type_get_extent(MPI_SHORT_INT, &lb, &ext));
	CHECK(lb == 0 && ext == sizeof(struct { short v; int i; }));
	CHECK_RC(MPI_Type_get_extent(MPI_LONG_DOUBLE_INT, &lb, &ext));
	CHECK(lb == 0 && ext == sizeof(struct { long double v; int i; }));
	report_ok();
	MPI_Finalize();
	return 0;
}
