/*
 * reduce_kernels.c — the predefined operators on the predefined types the
 * Go engine reduces natively, in C (see reduce_kernels.h). Each type
 * mirrors the engine's type for it (ops.go, nativeType) and each loop the
 * engine's kernel (mpi/reduce_kernels.go): b[i] = a[i] op b[i], with
 * integer arithmetic wrapping (done in an unsigned type: signed overflow
 * is undefined in C) and float Max/Min as "a > b ? a : b" / "a < b ? a :
 * b", which keeps b when either is a NaN or both are zeros, as the engine
 * does. gcc vectorises these loops at O3; target_clones builds an AVX2 copy
 * next to the baseline SSE2 one and picks at load time. The pair types,
 * complex and long double go to hc_builtin_apply, which is what the Go path
 * would end up calling for them.
 */
#include "reduce_kernels.h"

#pragma GCC optimize("O3")

#define KERNEL_ATTR static __attribute__((target_clones("avx2", "default"), noinline))

enum { OP_SUM, OP_PROD, OP_MAX, OP_MIN, OP_LAND, OP_LOR, OP_LXOR, OP_BAND, OP_BOR, OP_BXOR, OP_NONE };

static int op_index(MPI_Op op)
{
	switch ((intptr_t)op) {
	case (intptr_t)MPI_SUM: return OP_SUM;
	case (intptr_t)MPI_PROD: return OP_PROD;
	case (intptr_t)MPI_MAX: return OP_MAX;
	case (intptr_t)MPI_MIN: return OP_MIN;
	case (intptr_t)MPI_LAND: return OP_LAND;
	case (intptr_t)MPI_LOR: return OP_LOR;
	case (intptr_t)MPI_LXOR: return OP_LXOR;
	case (intptr_t)MPI_BAND: return OP_BAND;
	case (intptr_t)MPI_BOR: return OP_BOR;
	case (intptr_t)MPI_BXOR: return OP_BXOR;
	}
	return OP_NONE;
}

/* Integer kernels: T the element type, U an unsigned type at least as wide
 * as int, in which the arithmetic wraps. */
#define INT_KERNEL(NAME, T, U)                                                              \
	KERNEL_ATTR void NAME(int op, const T *restrict a, T *restrict b, int64_t n)          \
	{                                                                                   \
		switch (op) {                                                               \
		case OP_SUM: for (int64_t i = 0; i < n; i++) b[i] = (T)((U)a[i] + (U)b[i]); return; \
		case OP_PROD: for (int64_t i = 0; i < n; i++) b[i] = (T)((U)a[i] * (U)b[i]); return; \
		case OP_MAX: for (int64_t i = 0; i < n; i++) b[i] = a[i] > b[i] ? a[i] : b[i]; return; \
		case OP_MIN: for (int64_t i = 0; i < n; i++) b[i] = a[i] < b[i] ? a[i] : b[i]; return; \
		case OP_LAND: for (int64_t i = 0; i < n; i++) b[i] = (a[i] != 0) & (b[i] != 0); return; \
		case OP_LOR: for (int64_t i = 0; i < n; i++) b[i] = (a[i] != 0) | (b[i] != 0); return; \
		case OP_LXOR: for (int64_t i = 0; i < n; i++) b[i] = (a[i] != 0) ^ (b[i] != 0); return; \
		case OP_BAND: for (int64_t i = 0; i < n; i++) b[i] = a[i] & b[i]; return;        \
		case OP_BOR: for (int64_t i = 0; i < n; i++) b[i] = a[i] | b[i]; return;         \
		case OP_BXOR: for (int64_t i = 0; i < n; i++) b[i] = a[i] ^ b[i]; return;        \
		}                                                                           \
	}

#define FLOAT_KERNEL(NAME, T)                                                               \
	KERNEL_ATTR void NAME(int op, const T *restrict a, T *restrict b, int64_t n)          \
	{                                                                                   \
		switch (op) {                                                               \
		case OP_SUM: for (int64_t i = 0; i < n; i++) b[i] = a[i] + b[i]; return;         \
		case OP_PROD: for (int64_t i = 0; i < n; i++) b[i] = a[i] * b[i]; return;        \
		case OP_MAX: for (int64_t i = 0; i < n; i++) b[i] = a[i] > b[i] ? a[i] : b[i]; return; \
		case OP_MIN: for (int64_t i = 0; i < n; i++) b[i] = a[i] < b[i] ? a[i] : b[i]; return; \
		}                                                                           \
	}

INT_KERNEL(red_i8, int8_t, unsigned)
INT_KERNEL(red_u8, uint8_t, unsigned)
INT_KERNEL(red_i16, int16_t, unsigned)
INT_KERNEL(red_u16, uint16_t, unsigned)
INT_KERNEL(red_i32, int32_t, uint32_t)
INT_KERNEL(red_u32, uint32_t, uint32_t)
INT_KERNEL(red_i64, int64_t, uint64_t)
INT_KERNEL(red_u64, uint64_t, uint64_t)
FLOAT_KERNEL(red_f32, float)
FLOAT_KERNEL(red_f64, double)

/* What a type's kind allows, as hc_builtin_ok (types.c) has it: floats
 * the arithmetic and order operators, integers every one, the logical
 * types (C bool, Fortran LOGICAL) the logical and bitwise ones, MPI_BYTE
 * the bitwise ones. Checked here without a second lookup: this is on
 * every small MPI_Reduce_local. */
#define KIND_FLOAT(o) ((o) <= OP_MIN)
#define KIND_INT(o) ((o) != OP_NONE)
#define KIND_LOGICAL(o) ((o) >= OP_LAND && (o) != OP_NONE)
#define KIND_BYTE(o) ((o) >= OP_BAND && (o) != OP_NONE)

#define RUN(ok, fn)                                                            \
	do {                                                                   \
		if (!(ok)) return 0;                                           \
		if (count > 0) fn(o, in, inout, count);                        \
		return 1;                                                      \
	} while (0)

HC_HIDDEN int hc_reduce_builtin(MPI_Op op, MPI_Datatype type, const void *in, void *inout, int64_t count)
{
	int o = op_index(op);
	switch ((intptr_t)type) {
	case 0x240: case 0x243: case 0x244: case 0x2c1: /* int8_t, char, signed char, INTEGER1 */
		RUN(KIND_INT(o), red_i8);
	case 0x241: case 0x245: /* uint8_t, unsigned char */
		RUN(KIND_INT(o), red_u8);
	case 0x247: /* byte */
		RUN(KIND_BYTE(o), red_u8);
	case 0x238: case 0x239: case 0x2c0: /* C and C++ bool, LOGICAL1 */
		RUN(KIND_LOGICAL(o), red_u8);
	case 0x208: case 0x248: case 0x2c9: /* short, int16_t, INTEGER2 */
		RUN(KIND_INT(o), red_i16);
	case 0x20c: case 0x249: /* unsigned short, uint16_t */
		RUN(KIND_INT(o), red_u16);
	case 0x209: case 0x250: case 0x219: case 0x2d1: case 0x23c: /* int, int32_t, INTEGER, INTEGER4, wchar_t */
		RUN(KIND_INT(o), red_i32);
	case 0x20d: case 0x251: /* unsigned, uint32_t */
		RUN(KIND_INT(o), red_u32);
	case 0x218: case 0x2d0: /* LOGICAL, LOGICAL4 */
		RUN(KIND_LOGICAL(o), red_u32);
	case 0x20a: case 0x20b: case 0x258: case 0x201: case 0x202: case 0x203: case 0x2d9: /* long, long long, int64_t, Aint, Count, Offset, INTEGER8 */
		RUN(KIND_INT(o), red_i64);
	case 0x20e: case 0x20f: case 0x259: /* unsigned long(s), uint64_t */
		RUN(KIND_INT(o), red_u64);
	case 0x2d8: /* LOGICAL8 */
		RUN(KIND_LOGICAL(o), red_u64);
	case 0x210: case 0x21a: case 0x2d2: /* float, REAL, REAL4 */
		RUN(KIND_FLOAT(o), red_f32);
	case 0x214: case 0x21c: case 0x2da: /* double, DOUBLE PRECISION, REAL8 */
		RUN(KIND_FLOAT(o), red_f64);
	case (intptr_t)MPI_LONG_DOUBLE:
	case (intptr_t)MPI_C_FLOAT_COMPLEX: case (intptr_t)MPI_CXX_FLOAT_COMPLEX: case (intptr_t)MPI_COMPLEX:
	case (intptr_t)MPI_COMPLEX8:
	case (intptr_t)MPI_C_DOUBLE_COMPLEX: case (intptr_t)MPI_CXX_DOUBLE_COMPLEX: case (intptr_t)MPI_DOUBLE_COMPLEX:
	case (intptr_t)MPI_COMPLEX16:
	case (intptr_t)MPI_C_LONG_DOUBLE_COMPLEX: case (intptr_t)MPI_CXX_LONG_DOUBLE_COMPLEX:
	case (intptr_t)MPI_FLOAT_INT: case (intptr_t)MPI_DOUBLE_INT: case (intptr_t)MPI_LONG_INT:
	case (intptr_t)MPI_2INT: case (intptr_t)MPI_2INTEGER: case (intptr_t)MPI_SHORT_INT:
	case (intptr_t)MPI_LONG_DOUBLE_INT: case (intptr_t)MPI_2REAL: case (intptr_t)MPI_2DOUBLE_PRECISION:
		/* Rare here: hc_builtin_ok's rule and hc_builtin_apply's loops,
		 * what the Go path would reach too. */
		if (!hc_builtin_ok((intptr_t)op, (intptr_t)type)) return 0;
		if (count > 0) hc_builtin_apply((intptr_t)op, (intptr_t)type, (void *)in, inout, count);
		return 1;
	}
	return 0;
}
