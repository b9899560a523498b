/*
 * legacy.c — MPI-1 routines that MPI-3 deleted and classic Fortran codes
 * still call: MPI_ADDRESS, MPI_TYPE_STRUCT/HVECTOR/HINDEXED,
 * MPI_TYPE_EXTENT/LB/UB, MPI_ERRHANDLER_SET/GET. Their addresses and
 * displacements are default INTEGERs; MPI_ADDRESS keeps the low 32 bits,
 * which is what such codes subtract from each other.
 */
#include "fort.h"

void mpi_address_(void *location, MPI_Fint *address, MPI_Fint *ierr)
{
	MPI_Aint a = 0;
	*ierr = MPI_Get_address(HF_BUF(location), &a);
	if (*ierr == MPI_SUCCESS) *address = (MPI_Fint)a;
}

static MPI_Aint *hf_wide(const MPI_Fint *f, int n)
{
	MPI_Aint *a = malloc((size_t)(n > 0 ? n : 1) * sizeof *a);
	if (!a) return NULL;
	for (int i = 0; i < n; i++) a[i] = f[i];
	return a;
}

void mpi_type_struct_(const MPI_Fint *count, const MPI_Fint *blens, const MPI_Fint *displs, const MPI_Fint *types,
	MPI_Fint *newtype, MPI_Fint *ierr)
{
	int n = *count > 0 ? *count : 0;
	MPI_Aint *d = hf_wide(displs, n);
	MPI_Datatype *t = malloc((size_t)(n > 0 ? n : 1) * sizeof *t);
	if (!d || !t) {
		free(d);
		free(t);
		*ierr = MPI_ERR_NO_MEM;
		return;
	}
	for (int i = 0; i < n; i++) t[i] = (MPI_Datatype)(intptr_t)types[i];
	MPI_Datatype h = MPI_DATATYPE_NULL;
	*ierr = MPI_Type_create_struct(*count, blens, d, t, &h);
	if (*ierr == MPI_SUCCESS) *newtype = (MPI_Fint)(intptr_t)h;
	free(d);
	free(t);
}

void mpi_type_hvector_(const MPI_Fint *count, const MPI_Fint *blen, const MPI_Fint *stride, const MPI_Fint *old,
	MPI_Fint *newtype, MPI_Fint *ierr)
{
	MPI_Datatype h = MPI_DATATYPE_NULL;
	*ierr = MPI_Type_create_hvector(*count, *blen, *stride, (MPI_Datatype)(intptr_t)*old, &h);
	if (*ierr == MPI_SUCCESS) *newtype = (MPI_Fint)(intptr_t)h;
}

void mpi_type_hindexed_(const MPI_Fint *count, const MPI_Fint *blens, const MPI_Fint *displs, const MPI_Fint *old,
	MPI_Fint *newtype, MPI_Fint *ierr)
{
	MPI_Aint *d = hf_wide(displs, *count);
	if (!d) {
		*ierr = MPI_ERR_NO_MEM;
		return;
	}
	MPI_Datatype h = MPI_DATATYPE_NULL;
	*ierr = MPI_Type_create_hindexed(*count, blens, d, (MPI_Datatype)(intptr_t)*old, &h);
	if (*ierr == MPI_SUCCESS) *newtype = (MPI_Fint)(intptr_t)h;
	free(d);
}

/* which: 0 extent, 1 lower bound, 2 upper bound. */
static void hf_bounds(MPI_Fint type, MPI_Fint *out, int which, MPI_Fint *ierr)
{
	MPI_Aint lb = 0, extent = 0;
	*ierr = MPI_Type_get_extent((MPI_Datatype)(intptr_t)type, &lb, &extent);
	if (*ierr == MPI_SUCCESS) *out = (MPI_Fint)(which == 0 ? extent : which == 1 ? lb : lb + extent);
}

void mpi_type_extent_(const MPI_Fint *type, MPI_Fint *extent, MPI_Fint *ierr) { hf_bounds(*type, extent, 0, ierr); }
void mpi_type_lb_(const MPI_Fint *type, MPI_Fint *lb, MPI_Fint *ierr) { hf_bounds(*type, lb, 1, ierr); }
void mpi_type_ub_(const MPI_Fint *type, MPI_Fint *ub, MPI_Fint *ierr) { hf_bounds(*type, ub, 2, ierr); }

void mpi_errhandler_set_(const MPI_Fint *comm, const MPI_Fint *eh, MPI_Fint *ierr)
{
	*ierr = MPI_Comm_set_errhandler((MPI_Comm)(intptr_t)*comm, (MPI_Errhandler)(intptr_t)*eh);
}

void mpi_errhandler_get_(const MPI_Fint *comm, MPI_Fint *eh, MPI_Fint *ierr)
{
	MPI_Errhandler h = MPI_ERRHANDLER_NULL;
	*ierr = MPI_Comm_get_errhandler((MPI_Comm)(intptr_t)*comm, &h);
	if (*ierr == MPI_SUCCESS) *eh = (MPI_Fint)(intptr_t)h;
}

#pragma weak pmpi_address_ = mpi_address_
#pragma weak pmpi_type_struct_ = mpi_type_struct_
#pragma weak pmpi_type_hvector_ = mpi_type_hvector_
#pragma weak pmpi_type_hindexed_ = mpi_type_hindexed_
#pragma weak pmpi_type_extent_ = mpi_type_extent_
#pragma weak pmpi_type_lb_ = mpi_type_lb_
#pragma weak pmpi_type_ub_ = mpi_type_ub_
#pragma weak pmpi_errhandler_set_ = mpi_errhandler_set_
#pragma weak pmpi_errhandler_get_ = mpi_errhandler_get_
