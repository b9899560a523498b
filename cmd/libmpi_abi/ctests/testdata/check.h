/* check.h — assertions for hympi's C ABI tests. Each test prints
 * "rank R OK" once per rank when every check passed; a failed check prints
 * what and where, and aborts the job. */
#ifndef CHECK_H
#define CHECK_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

#define CHECK(cond)                                                                      \
	do {                                                                             \
		if (!(cond)) {                                                           \
			int r_ = -1;                                                     \
			MPI_Comm_rank(MPI_COMM_WORLD, &r_);                              \
			fprintf(stderr, "rank %d: %s:%d: check failed: %s\n", r_, __FILE__, __LINE__, #cond); \
			fflush(stderr);                                                  \
			MPI_Abort(MPI_COMM_WORLD, 3);                                    \
		}                                                                        \
	} while (0)

#define CHECK_RC(call) CHECK((call) == MPI_SUCCESS)

/* Before MPI_Finalize: afterwards MPI_Comm_rank fails, and "rank -1"
 * is no OK line. */
static inline void report_ok(void)
{
	int r = -1;
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	printf("rank %d OK\n", r);
	fflush(stdout);
}
#endif
