/* The C half of mixed.f90: takes Fortran handles and a Fortran status. */
#include <mpi_abi_fort.h>

/* Returns the size of the Fortran communicator fcomm computed in C, or -1;
 * *ignored tells whether fstatus is Fortran's MPI_STATUS_IGNORE. */
void c_size_of_(MPI_Fint *fcomm, MPI_Fint *fstatus, MPI_Fint *size, MPI_Fint *ignored)
{
	MPI_Comm comm = MPI_Comm_f2c(*fcomm);
	int n = -1;
	if (MPI_Comm_size(comm, &n) != MPI_SUCCESS) n = -1;
	if (MPI_Comm_c2f(comm) != *fcomm) n = -2;
	*size = n;
	*ignored = fstatus == MPI_F_STATUS_IGNORE;
	if (!*ignored) {
		MPI_Status st;
		MPI_Status_f2c(fstatus, &st);
		st.MPI_TAG += 1;
		MPI_Status_c2f(&st, fstatus);
	}
}
