/* MPI_Reduce_local with every predefined operator on every C type the
 * engine reduces natively, against plain scalar loops: lengths 0..67 and a
 * few large ones, from misaligned element offsets (the vector kernels'
 * head and tail), floats with NaN, ±0, ±Inf and denormals, integers that
 * overflow. The results must be bit for bit the reference's, and nothing
 * around the buffer may change. Bad arguments come back as errors with
 * nothing written. Then contiguous and strided derived types of int. */
#include <math.h>
#include <stdint.h>
#include <float.h>
#include "check.h"

#define MAXN 70000
#define PAD 8

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static unsigned char ina[(MAXN + 2 * PAD) * 8], inb[(MAXN + 2 * PAD) * 8], ref[(MAXN + 2 * PAD) * 8];

static const MPI_Op all_ops[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_LAND,
				 MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR};

static const float fspecial[] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, FLT_MIN / 4, -FLT_MAX, FLT_MAX, 1.0f};
static const double dspecial[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, DBL_MIN / 4, -DBL_MAX, DBL_MAX, 1.0};

/* Fills n elements: a quarter zeros (for the logical operators), a few
 * special floats, the rest random bits. */
#define FILL(T, buf, n, isfloat, special)                                                \
	do {                                                                             \
		T *p_ = (T *)(buf);                                                      \
		for (size_t i_ = 0; i_ < (n); i_++) {                                    \
			uint64_t r_ = next();                                            \
			if (r_ % 4 == 0) {                                               \
				p_[i_] = 0;                                              \
			} else if ((isfloat) && r_ % 4 == 1) {                           \
				p_[i_] = (T)(special)[(r_ >> 8) % 9];                    \
			} else if (isfloat) {                                            \
				p_[i_] = (T)((double)(int64_t)(r_ >> 11) / (double)(1ll << 40)); \
			} else {                                                         \
				memcpy(&p_[i_], &r_, sizeof(T));                         \
			}                                                                \
		}                                                                        \
	} while (0)

/* The reference: the engine's semantics, one element at a time. */
#define REF_INT(T, U)                                                                    \
	static int ref_##T(MPI_Op op, const T *a, T *b, size_t n)                         \
	{                                                                                \
		for (size_t i = 0; i < n; i++) {                                         \
			if (op == MPI_SUM) b[i] = (T)((U)a[i] + (U)b[i]);                \
			else if (op == MPI_PROD) b[i] = (T)((U)a[i] * (U)b[i]);          \
			else if (op == MPI_MAX) { if (a[i] > b[i]) b[i] = a[i]; }        \
			else if (op == MPI_MIN) { if (a[i] < b[i]) b[i] = a[i]; }        \
			else if (op == MPI_LAND) b[i] = a[i] && b[i];                    \
			else if (op == MPI_LOR) b[i] = a[i] || b[i];                     \
			else if (op == MPI_LXOR) b[i] = !a[i] != !b[i];                  \
			else if (op == MPI_BAND) b[i] = a[i] & b[i];                     \
			else if (op == MPI_BOR) b[i] = a[i] | b[i];                      \
			else if (op == MPI_BXOR) b[i] = a[i] ^ b[i];                     \
			else return 0;                                                   \
		}                                                                        \
		return 1;                                                                \
	}
#define REF_FLOAT(T)                                                                     \
	static int ref_##T(MPI_Op op, const T *a, T *b, size_t n)                         \
	{                                                                                \
		if (op != MPI_SUM && op != MPI_PROD && op != MPI_MAX && op != MPI_MIN)   \
			return 0;                                                        \
		for (size_t i = 0; i < n; i++) {                                         \
			if (op == MPI_SUM) b[i] = a[i] + b[i];                           \
			else if (op == MPI_PROD) b[i] = a[i] * b[i];                     \
			else if (op == MPI_MAX) { if (a[i] > b[i]) b[i] = a[i]; }        \
			else if (op == MPI_MIN) { if (a[i] < b[i]) b[i] = a[i]; }        \
			else return 0;                                                   \
		}                                                                        \
		return 1;                                                                \
	}

REF_INT(int8_t, unsigned)
REF_INT(uint8_t, unsigned)
REF_INT(int16_t, unsigned)
REF_INT(uint16_t, unsigned)
REF_INT(int32_t, uint32_t)
REF_INT(uint32_t, uint32_t)
REF_INT(int64_t, uint64_t)
REF_INT(uint64_t, uint64_t)
REF_FLOAT(float)
REF_FLOAT(double)

typedef int (*ref_fn)(MPI_Op, const void *, void *, size_t);

static const struct tcase {
	const char *name;
	MPI_Datatype dt;
	size_t size;
	int isfloat;
	ref_fn ref;
	int logical_only; /* 1: the logical and bitwise operators; 2: bitwise */
} cases[] = {
	{"signed char", MPI_SIGNED_CHAR, 1, 0, (ref_fn)ref_int8_t, 0},
	{"int8_t", MPI_INT8_T, 1, 0, (ref_fn)ref_int8_t, 0},
	{"unsigned char", MPI_UNSIGNED_CHAR, 1, 0, (ref_fn)ref_uint8_t, 0},
	{"uint8_t", MPI_UINT8_T, 1, 0, (ref_fn)ref_uint8_t, 0},
	{"short", MPI_SHORT, 2, 0, (ref_fn)ref_int16_t, 0},
	{"unsigned short", MPI_UNSIGNED_SHORT, 2, 0, (ref_fn)ref_uint16_t, 0},
	{"int", MPI_INT, 4, 0, (ref_fn)ref_int32_t, 0},
	{"int32_t", MPI_INT32_T, 4, 0, (ref_fn)ref_int32_t, 0},
	{"unsigned", MPI_UNSIGNED, 4, 0, (ref_fn)ref_uint32_t, 0},
	{"long", MPI_LONG, 8, 0, (ref_fn)ref_int64_t, 0},
	{"int64_t", MPI_INT64_T, 8, 0, (ref_fn)ref_int64_t, 0},
	{"unsigned long", MPI_UNSIGNED_LONG, 8, 0, (ref_fn)ref_uint64_t, 0},
	{"uint64_t", MPI_UINT64_T, 8, 0, (ref_fn)ref_uint64_t, 0},
	{"float", MPI_FLOAT, 4, 1, (ref_fn)ref_float, 0},
	{"double", MPI_DOUBLE, 8, 1, (ref_fn)ref_double, 0},
	{"bool", MPI_C_BOOL, 1, 0, (ref_fn)ref_uint8_t, 1},
	{"byte", MPI_BYTE, 1, 0, (ref_fn)ref_uint8_t, 2},
};

static void fill(const struct tcase *c, void *buf, size_t n)
{
	switch (c->size) {
	case 1: FILL(uint8_t, buf, n, 0, fspecial); break;
	case 2: FILL(uint16_t, buf, n, 0, fspecial); break;
	case 4:
		if (c->isfloat) FILL(float, buf, n, 1, fspecial);
		else FILL(uint32_t, buf, n, 0, fspecial);
		break;
	default:
		if (c->isfloat) FILL(double, buf, n, 1, dspecial);
		else FILL(uint64_t, buf, n, 0, dspecial);
	}
}

/* One reduction of n elements starting off elements into the buffers. */
static void one(const struct tcase *c, MPI_Op op, size_t n, size_t off)
{
	size_t total = n + 2 * PAD, s = c->size;
	fill(c, ina, total);
	fill(c, inb, total);
	memcpy(ref, inb, total * s);
	int allowed = !c->logical_only ||
		      (c->logical_only == 1 && (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR)) ||
		      op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR;
	int defined = allowed && c->ref(op, ina + (PAD + off) * s, ref + (PAD + off) * s, n);
	int rc = MPI_Reduce_local(ina + (PAD + off) * s, inb + (PAD + off) * s, (int)n, c->dt, op);
	if (!defined) {
		CHECK(rc == MPI_ERR_OP);
		memcpy(ref, inb, total * s); /* compared below: nothing written */
	} else if (rc != MPI_SUCCESS) {
		fprintf(stderr, "%s op %d n %zu: rc %d\n", c->name, (int)(intptr_t)op, n, rc);
		CHECK(rc == MPI_SUCCESS);
	}
	if (memcmp(ref, inb, total * s) != 0) {
		for (size_t i = 0; i < total * s; i++)
			if (ref[i] != inb[i]) {
				fprintf(stderr, "%s op %#x n %zu off %zu: byte %zu is %#x, want %#x\n", c->name,
					(int)(intptr_t)op, n, off, i, inb[i], ref[i]);
				break;
			}
		CHECK(0);
	}
}

/* The _c form, a large count through the same kernels. */
static void large_c(void)
{
	size_t n = MAXN;
	const struct tcase *c = &cases[14]; /* double */
	fill(c, ina, n);
	fill(c, inb, n);
	memcpy(ref, inb, n * 8);
	ref_double(MPI_MAX, (double *)ina, (double *)ref, n);
	CHECK_RC(MPI_Reduce_local_c(ina, inb, (MPI_Count)n, MPI_DOUBLE, MPI_MAX));
	CHECK(memcmp(ref, inb, n * 8) == 0);
}

/* Derived types of int: contiguous (reduced as its ints) and strided
 * (packed around the kernel; the gaps stay as they were). */
static void derived(void)
{
	MPI_Datatype contig, vec;
	CHECK_RC(MPI_Type_contiguous(3, MPI_INT, &contig));
	CHECK_RC(MPI_Type_commit(&contig));
	CHECK_RC(MPI_Type_vector(3, 1, 2, MPI_INT, &vec));
	CHECK_RC(MPI_Type_commit(&vec));
	int a[30], b[30], want[30];
	for (int i = 0; i < 30; i++) {
		a[i] = i * 7 - 50;
		b[i] = want[i] = 1000 - i * 13;
	}
	for (int i = 0; i < 30; i++)
		if (a[i] > want[i]) want[i] = a[i];
	CHECK_RC(MPI_Reduce_local(a, b, 10, contig, MPI_MAX));
	CHECK(memcmp(b, want, sizeof b) == 0);
	/* vec has extent 5 ints: 6 elements cover ints 0..29, every other one
	 * of each 5 up to the third. */
	for (int i = 0; i < 30; i++) b[i] = want[i] = 1000 - i * 13;
	for (int e = 0; e < 6; e++)
		for (int k = 0; k < 3; k++) want[5 * e + 2 * k] += a[5 * e + 2 * k];
	CHECK_RC(MPI_Reduce_local(a, b, 6, vec, MPI_SUM));
	CHECK(memcmp(b, want, sizeof b) == 0);
	CHECK_RC(MPI_Type_free(&contig));
	CHECK_RC(MPI_Type_free(&vec));
}

/* Bad arguments: an error of the right class and nothing written. */
static void bad(void)
{
	int a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};
	const int b0[4] = {5, 6, 7, 8};
	struct {
		const void *in;
		void *inout;
		int count;
		MPI_Datatype dt;
		MPI_Op op;
		int want;
	} t[] = {
		{a, b, -1, MPI_INT, MPI_SUM, MPI_ERR_COUNT},
		{a, b, 4, MPI_DATATYPE_NULL, MPI_SUM, MPI_ERR_TYPE},
		{a, b, 4, MPI_INT, MPI_OP_NULL, MPI_ERR_OP},
		{a, b, 4, MPI_FLOAT, MPI_BAND, MPI_ERR_OP},
		{a, b, 4, MPI_BYTE, MPI_SUM, MPI_ERR_OP},
		{MPI_IN_PLACE, b, 4, MPI_INT, MPI_SUM, MPI_ERR_BUFFER},
		{a, MPI_IN_PLACE, 4, MPI_INT, MPI_SUM, MPI_ERR_BUFFER},
		{NULL, b, 4, MPI_INT, MPI_SUM, MPI_ERR_BUFFER},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		int rc = MPI_Reduce_local(t[i].in, t[i].inout, t[i].count, t[i].dt, t[i].op);
		int cls = -1;
		MPI_Error_class(rc, &cls);
		if (cls != t[i].want) fprintf(stderr, "bad case %zu: class %d, want %d\n", i, cls, t[i].want);
		CHECK(cls == t[i].want);
		CHECK(memcmp(b, b0, sizeof b) == 0);
	}
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	/* Errors without a communicator go to MPI_COMM_SELF's handler. */
	CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
	CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
	rng += (uint64_t)rank * 7919;
	static const size_t large[] = {255, 1000, 4099, 65537};
	for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++)
		for (size_t oi = 0; oi < sizeof all_ops / sizeof all_ops[0]; oi++) {
			for (size_t n = 0; n <= 67; n++) one(&cases[ci], all_ops[oi], n, n % 4);
			for (size_t li = 0; li < 4; li++)
				for (size_t off = 0; off < 4; off += 3) one(&cases[ci], all_ops[oi], large[li], off);
		}
	large_c();
	derived();
	bad();
	report_ok();
	MPI_Finalize();
	return 0;
}
