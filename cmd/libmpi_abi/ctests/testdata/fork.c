/* fork() after MPI_Init: a child that calls MPI gets an error at once
 * (never a deadlock inside the Go runtime), by the error handler's rules;
 * the parent goes on using MPI. */
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size, v = 1;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);

	/* 1. MPI_ERRORS_RETURN: the child gets MPI_ERR_OTHER from calls that
	 * would enter the engine; local queries still answer. */
	CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		int r = -1, bad = 0;
		if (MPI_Comm_rank(MPI_COMM_WORLD, &r) != MPI_SUCCESS || r != rank) bad |= 1;
		if (MPI_Send(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD) != MPI_ERR_OTHER) bad |= 2;
		if (MPI_Barrier(MPI_COMM_WORLD) != MPI_ERR_OTHER) bad |= 4;
		if (MPI_Wtime() <= 0) bad |= 8;
		exit(bad ? 10 + bad : 0);
	}
	int status;
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	/* 2. MPI_ERRORS_ARE_FATAL: the child reports and exits non-zero;
	 * the job is not aborted. */
	CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		MPI_Send(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
		_exit(0); /* not reached */
	}
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) != 0);

	/* The parent still communicates. */
	int next = (rank + 1) % size, prev = (rank + size - 1) % size, got = -1;
	CHECK_RC(MPI_Sendrecv(&rank, 1, MPI_INT, next, 2, &got, 1, MPI_INT, prev, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	CHECK(got == prev);
	CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
	report_ok();
	MPI_Finalize();
	return 0;
}
