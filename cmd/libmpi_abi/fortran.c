/*
 * fortran.c — what the C library says about Fortran. hympi's Fortran
 * bindings (cmd/libmpi_abi_fort) are built with gfortran for this
 * platform: default INTEGER, REAL and LOGICAL are 4 bytes, DOUBLE
 * PRECISION 8, .TRUE. is 1 and .FALSE. is 0. The C side relies on the same
 * facts (MPI_LOGICAL reduces as a 4-byte int whose nonzero means true).
 */
#include <string.h>

#include "cabi.h"
#include "argcheck.h"

int PMPI_Abi_get_fortran_info(MPI_Info *info)
{
	static const char *const kv[][2] = {
		{"mpi_logical_size", "4"},
		{"mpi_integer_size", "4"},
		{"mpi_real_size", "4"},
		{"mpi_double_precision_size", "8"},
		{"mpi_logical_true", "1"},
		{"mpi_logical_false", "0"},
	};
	HC_GUARD("MPI_Abi_get_fortran_info");
	HC_CHECK_PTR(-1, info, "MPI_Abi_get_fortran_info");
	MPI_Info in = MPI_INFO_NULL;
	int rc = PMPI_Info_create(&in);
	for (size_t i = 0; rc == MPI_SUCCESS && i < sizeof kv / sizeof kv[0]; i++)
		rc = PMPI_Info_set(in, kv[i][0], kv[i][1]);
	if (rc != MPI_SUCCESS) {
		if (in != MPI_INFO_NULL) PMPI_Info_free(&in);
		return rc;
	}
	*info = in;
	return MPI_SUCCESS;
}

/* The booleans of a LOGICAL of logical_size bytes: gfortran's, for the
 * sizes gfortran has (1, 2, 4, 8 and 16 bytes). */
int PMPI_Abi_get_fortran_booleans(int logical_size, void *logical_true, void *logical_false, int *is_set)
{
	HC_GUARD("MPI_Abi_get_fortran_booleans");
	HC_CHECK_PTR(-1, logical_true, "MPI_Abi_get_fortran_booleans");
	HC_CHECK_PTR(-1, logical_false, "MPI_Abi_get_fortran_booleans");
	HC_CHECK_PTR(-1, is_set, "MPI_Abi_get_fortran_booleans");
	switch (logical_size) {
	case 1: case 2: case 4: case 8: case 16:
		break;
	default:
		return hc_error(-1, MPI_ERR_ARG, "MPI_Abi_get_fortran_booleans");
	}
	/* Little-endian: the value 1 is a 1 in the first byte. */
	memset(logical_true, 0, (size_t)logical_size);
	memset(logical_false, 0, (size_t)logical_size);
	*(unsigned char *)logical_true = 1;
	*is_set = 1;
	return MPI_SUCCESS;
}

#define HC_ALIASES_fortran
#include "aliases_gen.h"
