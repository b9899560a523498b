/* reduce_kernels.c — see reduce_kernels.h. */
#include "reduce_kernels.h"

HC_HIDDEN int hc_reduce_builtin(MPI_Op op, MPI_Datatype type, const void *in, void *inout, int64_t count)
{
	(void)op;
	(void)type;
	(void)in;
	(void)inout;
	(void)count;
	return 0;
}
