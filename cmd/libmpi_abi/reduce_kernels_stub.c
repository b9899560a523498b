/*
 * reduce_kernels_stub.c — a minimal hc_reduce_builtin (collane.h) until the
 * full one (reduce_kernels.c) is merged: Sum, Prod, Max and Min on the
 * common integer and floating types, with the Go engine's semantics
 * (mpi/reduce_kernels.go): integers wrap, float Max/Min keep inout unless
 * in compares greater/less (so a NaN operand never replaces). Any other
 * pair returns 0 and its collectives stay on the Go path.
 */
#include "collane.h"

#define KERNEL(NAME, T, U)                                                             \
	static int NAME(MPI_Op op, const T *a, T *b, int64_t n)                       \
	{                                                                              \
		if (op == MPI_SUM) {                                                   \
			for (int64_t i = 0; i < n; i++) b[i] = (T)((U)a[i] + (U)b[i]);   \
		} else if (op == MPI_PROD) {                                           \
			for (int64_t i = 0; i < n; i++) b[i] = (T)((U)a[i] * (U)b[i]);   \
		} else if (op == MPI_MAX) {                                            \
			for (int64_t i = 0; i < n; i++)                                \
				if (a[i] > b[i]) b[i] = a[i];                          \
		} else if (op == MPI_MIN) {                                            \
			for (int64_t i = 0; i < n; i++)                                \
				if (a[i] < b[i]) b[i] = a[i];                          \
		} else {                                                               \
			return 0;                                                      \
		}                                                                      \
		return 1;                                                              \
	}

KERNEL(k_i32, int32_t, uint32_t)
KERNEL(k_u32, uint32_t, uint32_t)
KERNEL(k_i64, int64_t, uint64_t)
KERNEL(k_u64, uint64_t, uint64_t)
KERNEL(k_f32, float, float)
KERNEL(k_f64, double, double)

int hc_reduce_builtin(MPI_Op op, MPI_Datatype type, const void *in, void *inout, int64_t count)
{
	if (type == MPI_INT || type == MPI_INT32_T) return k_i32(op, in, inout, count);
	if (type == MPI_UNSIGNED || type == MPI_UINT32_T) return k_u32(op, in, inout, count);
	if ((type == MPI_LONG || type == MPI_LONG_LONG || type == MPI_INT64_T) && sizeof(long) == 8)
		return k_i64(op, in, inout, count);
	if ((type == MPI_UNSIGNED_LONG || type == MPI_UINT64_T) && sizeof(long) == 8) return k_u64(op, in, inout, count);
	if (type == MPI_FLOAT) return k_f32(op, in, inout, count);
	if (type == MPI_DOUBLE) return k_f64(op, in, inout, count);
	return 0;
}
