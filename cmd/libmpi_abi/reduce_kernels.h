/*
 * reduce_kernels.h — predefined reduction operators applied in C
 * (reduce_kernels.c), so a purely local reduction of a predefined op on a
 * predefined type needs no call into Go. The results are the Go engine's
 * (mpi/reduce_kernels.go) bit for bit: the same operands in the same order.
 */
#ifndef HYMPI_REDUCE_KERNELS_H
#define HYMPI_REDUCE_KERNELS_H

#include <stdint.h>
#include "cabi.h"

/* hc_reduce_builtin computes inout[i] = in[i] op inout[i] for count
 * contiguous elements of the predefined type and returns 1, or returns 0
 * having touched nothing when it does not handle the pair (a derived or
 * user type, a user op, or a pair MPI leaves undefined): the caller then
 * takes the general path. The caller has checked count >= 0 and the
 * buffers. */
HC_HIDDEN int hc_reduce_builtin(MPI_Op op, MPI_Datatype type, const void *in, void *inout, int64_t count);

#endif
