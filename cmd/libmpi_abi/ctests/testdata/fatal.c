/* The default error handler: an invalid call aborts the job with one line
 * on stderr naming the function and the error. Rank 0 errs; the others
 * wait in a receive and are stopped by the launcher. */
#include "check.h"

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size, v = 0;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (rank == 0)
		MPI_Send(&v, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD);
	else
		MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	printf("rank %d survived\n", rank);
	MPI_Finalize();
	return 0;
}
