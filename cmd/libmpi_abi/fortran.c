/*
 * fortran.c — what the C library says about Fortran. hympi's Fortran
 * bindings (cmd/libmpi_abi_fort) are built with gfortran for this
 * platform: default INTEGER, REAL and LOGICAL are 4 bytes, DOUBLE
 * PRECISION 8, .TRUE. is 1 and .FALSE. is 0. The C side relies on the same
 * facts (MPI_LOGICAL reduces as a 4-byte int whose nonzero means true).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argcheck.h"

static const char *const kv[][2] = {
	{"mpi_logical_size", "4"},
	{"mpi_integer_size", "4"},
	{"mpi_real_size", "4"},
	{"mpi_double_precision_size", "8"},
	{"mpi_logical_true", "1"},
	{"mpi_logical_false", "0"},
};

int PMPI_Abi_get_fortran_info(MPI_Info *info)
{
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

/*
 * A third-party Fortran binding tells the library its compiler's facts
 * with the two setters below. hympi's own facts are compiled in (its
 * MPI_INTEGER, MPI_REAL and MPI_LOGICAL sizes, and logical reductions that
 * write 1 for .TRUE.), so they cannot be replaced: a binding that agrees is
 * told so with success, one that disagrees gets MPI_ERR_ABI and nothing
 * changes. Open MPI built with Fortran answers MPI_ERR_ABI to any call; an
 * agreeing binding loses nothing by our accepting it.
 */
int PMPI_Abi_set_fortran_info(MPI_Info info)
{
	const char *fn = "MPI_Abi_set_fortran_info";
	HC_GUARD(fn);
	if (info == MPI_INFO_NULL || !hc_info_ok(info))
		return hc_arg_fail(-1, MPI_ERR_INFO, fn, "invalid info");
	for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++) {
		char val[MPI_MAX_INFO_VAL + 1];
		int len = (int)sizeof val, flag = 0;
		int rc = PMPI_Info_get_string(info, kv[i][0], &len, val, &flag);
		if (rc != MPI_SUCCESS) return rc;
		if (!flag) continue;
		char *end;
		long v = strtol(val, &end, 10);
		if (end == val || *end != '\0' || v != strtol(kv[i][1], NULL, 10)) {
			char msg[160];
			snprintf(msg, sizeof msg, "%s is %s in hympi's Fortran bindings, not %.40s", kv[i][0], kv[i][1], val);
			return hc_arg_fail(-1, MPI_ERR_ABI, fn, msg);
		}
	}
	return MPI_SUCCESS;
}

int PMPI_Abi_set_fortran_booleans(int logical_size, void *logical_true, void *logical_false)
{
	const char *fn = "MPI_Abi_set_fortran_booleans";
	HC_GUARD(fn);
	HC_CHECK_PTR(-1, logical_true, fn);
	HC_CHECK_PTR(-1, logical_false, fn);
	if (logical_size <= 0 || logical_size > 16 || (logical_size & (logical_size - 1)))
		return hc_arg_fail(-1, MPI_ERR_ARG, fn, "logical_size must be 1, 2, 4, 8 or 16");
	unsigned char t[16], f[16];
	int set;
	PMPI_Abi_get_fortran_booleans(logical_size, t, f, &set);
	if (memcmp(t, logical_true, (size_t)logical_size) || memcmp(f, logical_false, (size_t)logical_size))
		return hc_arg_fail(-1, MPI_ERR_ABI, fn, "hympi's logicals are .TRUE. = 1 and .FALSE. = 0");
	return MPI_SUCCESS;
}

#define HC_ALIASES_fortran
#include "aliases_gen.h"
