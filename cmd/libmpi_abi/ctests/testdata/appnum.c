/* What hympirun tells a C program: MPI_APPNUM on MPI_COMM_WORLD is the
 * program's position on an MPMD command line. With the argument
 * "nofinalize", rank 1 exits without MPI_Finalize, for the launcher's
 * message. */
#include "check.h"

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size, flag = 0, *appnum = NULL;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag));
	CHECK(flag && appnum);
	printf("app %d rank %d of %d\n", *appnum, rank, size);
	fflush(stdout);
	if (argc > 1 && strcmp(argv[1], "nofinalize") == 0 && rank == 1)
		exit(0);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
