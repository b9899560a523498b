/*
 * types.c — the predefined datatypes' table, status fields, and
 * the reduction kernels the engine has no native form for (derived types:
 * dtype*.c).
 */
#include <complex.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cabi.h"
#include "dtype.h"
#include "argcheck.h"

/* The standard ABI makes MPI_LONG_LONG_INT and MPI_C_COMPLEX the same
 * handles as MPI_LONG_LONG and MPI_C_FLOAT_COMPLEX; their names are the
 * older ones, as MPICH gives them (its test datatype/typename checks). */
#define T(h, type, nm) { (intptr_t)(h), sizeof(type), _Alignof(type), nm }
static const struct {
	intptr_t h;
	int size, align;
	const char *name;
} hc_ptypes[] = {
	T(MPI_AINT, MPI_Aint, "MPI_AINT"), T(MPI_COUNT, MPI_Count, "MPI_COUNT"), T(MPI_OFFSET, MPI_Offset, "MPI_OFFSET"),
	T(MPI_PACKED, char, "MPI_PACKED"), T(MPI_SHORT, short, "MPI_SHORT"), T(MPI_INT, int, "MPI_INT"),
	T(MPI_LONG, long, "MPI_LONG"), T(MPI_LONG_LONG, long long, "MPI_LONG_LONG_INT"),
	T(MPI_UNSIGNED_SHORT, unsigned short, "MPI_UNSIGNED_SHORT"), T(MPI_UNSIGNED, unsigned, "MPI_UNSIGNED"),
	T(MPI_UNSIGNED_LONG, unsigned long, "MPI_UNSIGNED_LONG"),
	T(MPI_UNSIGNED_LONG_LONG, unsigned long long, "MPI_UNSIGNED_LONG_LONG"), T(MPI_FLOAT, float, "MPI_FLOAT"),
	T(MPI_C_FLOAT_COMPLEX, float _Complex, "MPI_C_COMPLEX"),
	T(MPI_CXX_FLOAT_COMPLEX, float _Complex, "MPI_CXX_FLOAT_COMPLEX"), T(MPI_DOUBLE, double, "MPI_DOUBLE"),
	T(MPI_C_DOUBLE_COMPLEX, double _Complex, "MPI_C_DOUBLE_COMPLEX"),
	T(MPI_CXX_DOUBLE_COMPLEX, double _Complex, "MPI_CXX_DOUBLE_COMPLEX"), T(MPI_LOGICAL, int, "MPI_LOGICAL"),
	T(MPI_INTEGER, int, "MPI_INTEGER"), T(MPI_REAL, float, "MPI_REAL"), T(MPI_COMPLEX, float _Complex, "MPI_COMPLEX"),
	T(MPI_DOUBLE_PRECISION, double, "MPI_DOUBLE_PRECISION"),
	T(MPI_DOUBLE_COMPLEX, double _Complex, "MPI_DOUBLE_COMPLEX"), T(MPI_CHARACTER, char, "MPI_CHARACTER"),
	T(MPI_LONG_DOUBLE, long double, "MPI_LONG_DOUBLE"),
	T(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex, "MPI_C_LONG_DOUBLE_COMPLEX"),
	T(MPI_CXX_LONG_DOUBLE_COMPLEX, long double _Complex, "MPI_CXX_LONG_DOUBLE_COMPLEX"),
	/* Pair types: dtype.c lays them out; the size here only marks them
	 * supported. */
	T(MPI_FLOAT_INT, int, "MPI_FLOAT_INT"), T(MPI_DOUBLE_INT, int, "MPI_DOUBLE_INT"),
	T(MPI_LONG_INT, int, "MPI_LONG_INT"), T(MPI_2INT, int, "MPI_2INT"),
	T(MPI_SHORT_INT, int, "MPI_SHORT_INT"), T(MPI_LONG_DOUBLE_INT, int, "MPI_LONG_DOUBLE_INT"),
	T(MPI_2REAL, int, "MPI_2REAL"), T(MPI_2DOUBLE_PRECISION, int, "MPI_2DOUBLE_PRECISION"),
	T(MPI_2INTEGER, int, "MPI_2INTEGER"), T(MPI_C_BOOL, _Bool, "MPI_C_BOOL"), T(MPI_CXX_BOOL, _Bool, "MPI_CXX_BOOL"),
	T(MPI_WCHAR, int, "MPI_WCHAR"), T(MPI_INT8_T, int8_t, "MPI_INT8_T"), T(MPI_UINT8_T, uint8_t, "MPI_UINT8_T"),
	T(MPI_CHAR, char, "MPI_CHAR"), T(MPI_SIGNED_CHAR, signed char, "MPI_SIGNED_CHAR"),
	T(MPI_UNSIGNED_CHAR, unsigned char, "MPI_UNSIGNED_CHAR"), T(MPI_BYTE, char, "MPI_BYTE"),
	T(MPI_INT16_T, int16_t, "MPI_INT16_T"), T(MPI_UINT16_T, uint16_t, "MPI_UINT16_T"),
	T(MPI_INT32_T, int32_t, "MPI_INT32_T"), T(MPI_UINT32_T, uint32_t, "MPI_UINT32_T"),
	T(MPI_INT64_T, int64_t, "MPI_INT64_T"), T(MPI_UINT64_T, uint64_t, "MPI_UINT64_T"),
	T(MPI_LOGICAL1, int8_t, "MPI_LOGICAL1"), T(MPI_INTEGER1, int8_t, "MPI_INTEGER1"),
	T(MPI_LOGICAL2, int16_t, "MPI_LOGICAL2"), T(MPI_INTEGER2, int16_t, "MPI_INTEGER2"),
	T(MPI_LOGICAL4, int32_t, "MPI_LOGICAL4"), T(MPI_INTEGER4, int32_t, "MPI_INTEGER4"), T(MPI_REAL4, float, "MPI_REAL4"),
	T(MPI_COMPLEX8, float _Complex, "MPI_COMPLEX8"), T(MPI_LOGICAL8, int64_t, "MPI_LOGICAL8"),
	T(MPI_INTEGER8, int64_t, "MPI_INTEGER8"), T(MPI_REAL8, double, "MPI_REAL8"),
	T(MPI_COMPLEX16, double _Complex, "MPI_COMPLEX16"),
	/* Optional Fortran types: data moves, no predefined reductions. */
	T(MPI_INTEGER16, __int128, "MPI_INTEGER16"), T(MPI_LOGICAL16, __int128, "MPI_LOGICAL16"),
	T(MPI_REAL16, __float128, "MPI_REAL16"), T(MPI_COMPLEX32, __float128[2], "MPI_COMPLEX32"),
	T(MPI_REAL2, _Float16, "MPI_REAL2"), T(MPI_COMPLEX4, _Float16[2], "MPI_COMPLEX4"),
};
#undef T
#define HC_NPTYPES ((int)(sizeof hc_ptypes / sizeof hc_ptypes[0]))

static struct {
	int size, align;
	const char *name;
} hc_pinfo[0x100];
static pthread_once_t hc_ptypes_once = PTHREAD_ONCE_INIT;

static void hc_ptypes_init(void)
{
	for (int i = 0; i < HC_NPTYPES; i++) {
		hc_pinfo[hc_ptypes[i].h - 0x200].size = hc_ptypes[i].size;
		hc_pinfo[hc_ptypes[i].h - 0x200].align = hc_ptypes[i].align;
		hc_pinfo[hc_ptypes[i].h - 0x200].name = hc_ptypes[i].name;
	}
}

int hc_ptype_info(intptr_t h, int *size, int *align, const char **name)
{
	if (h <= 0x200 || h >= 0x300) return 0;
	pthread_once(&hc_ptypes_once, hc_ptypes_init);
	*size = hc_pinfo[h - 0x200].size;
	*align = hc_pinfo[h - 0x200].align;
	*name = hc_pinfo[h - 0x200].name;
	return *name != NULL;
}

int PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
	HC_CHECK_PTR(0, status, "MPI_Status_set_cancelled");
	status->MPI_internal[2] = flag != 0;
	return MPI_SUCCESS;
}

int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
	HC_CHECK_PTR(0, status, "MPI_Test_cancelled");
	HC_CHECK_PTR(0, flag, "MPI_Test_cancelled");
	*flag = status->MPI_internal[2] != 0;
	return MPI_SUCCESS;
}

int PMPI_Status_get_source(const MPI_Status *status, int *source)
{
	HC_CHECK_PTR(0, status, "MPI_Status_get_source");
	HC_CHECK_PTR(0, source, "MPI_Status_get_source");
	*source = status->MPI_SOURCE;
	return MPI_SUCCESS;
}
int PMPI_Status_get_tag(const MPI_Status *status, int *tag)
{
	HC_CHECK_PTR(0, status, "MPI_Status_get_tag");
	HC_CHECK_PTR(0, tag, "MPI_Status_get_tag");
	*tag = status->MPI_TAG;
	return MPI_SUCCESS;
}
int PMPI_Status_get_error(const MPI_Status *status, int *error)
{
	HC_CHECK_PTR(0, status, "MPI_Status_get_error");
	HC_CHECK_PTR(0, error, "MPI_Status_get_error");
	*error = status->MPI_ERROR;
	return MPI_SUCCESS;
}
int PMPI_Status_set_source(MPI_Status *status, int source)
{
	HC_CHECK_PTR(0, status, "MPI_Status_set_source");
	status->MPI_SOURCE = source;
	return MPI_SUCCESS;
}
int PMPI_Status_set_tag(MPI_Status *status, int tag)
{
	HC_CHECK_PTR(0, status, "MPI_Status_set_tag");
	status->MPI_TAG = tag;
	return MPI_SUCCESS;
}
int PMPI_Status_set_error(MPI_Status *status, int error)
{
	HC_CHECK_PTR(0, status, "MPI_Status_set_error");
	status->MPI_ERROR = error;
	return MPI_SUCCESS;
}

/* ---- reduction kernels ----------------------------------------------- */

enum { K_INT, K_FLOAT, K_COMPLEX, K_LOGICAL, K_BYTE, K_PAIR, K_NONE };

static int hc_kind(intptr_t t)
{
	switch (t) {
	case (intptr_t)MPI_FLOAT: case (intptr_t)MPI_DOUBLE: case (intptr_t)MPI_LONG_DOUBLE:
	case (intptr_t)MPI_REAL: case (intptr_t)MPI_DOUBLE_PRECISION: case (intptr_t)MPI_REAL4:
	case (intptr_t)MPI_REAL8:
		return K_FLOAT;
	case (intptr_t)MPI_C_FLOAT_COMPLEX: case (intptr_t)MPI_CXX_FLOAT_COMPLEX: case (intptr_t)MPI_C_DOUBLE_COMPLEX:
	case (intptr_t)MPI_CXX_DOUBLE_COMPLEX: case (intptr_t)MPI_C_LONG_DOUBLE_COMPLEX:
	case (intptr_t)MPI_CXX_LONG_DOUBLE_COMPLEX: case (intptr_t)MPI_COMPLEX: case (intptr_t)MPI_DOUBLE_COMPLEX:
	case (intptr_t)MPI_COMPLEX8: case (intptr_t)MPI_COMPLEX16:
		return K_COMPLEX;
	case (intptr_t)MPI_C_BOOL: case (intptr_t)MPI_CXX_BOOL: case (intptr_t)MPI_LOGICAL: case (intptr_t)MPI_LOGICAL1:
	case (intptr_t)MPI_LOGICAL2: case (intptr_t)MPI_LOGICAL4: case (intptr_t)MPI_LOGICAL8:
		return K_LOGICAL;
	case (intptr_t)MPI_BYTE:
		return K_BYTE;
	case (intptr_t)MPI_FLOAT_INT: case (intptr_t)MPI_DOUBLE_INT: case (intptr_t)MPI_LONG_INT: case (intptr_t)MPI_2INT:
	case (intptr_t)MPI_SHORT_INT: case (intptr_t)MPI_LONG_DOUBLE_INT: case (intptr_t)MPI_2REAL:
	case (intptr_t)MPI_2DOUBLE_PRECISION: case (intptr_t)MPI_2INTEGER:
		return K_PAIR;
	case (intptr_t)MPI_PACKED: case (intptr_t)MPI_CHARACTER: case (intptr_t)MPI_INTEGER16:
	case (intptr_t)MPI_LOGICAL16: case (intptr_t)MPI_REAL16: case (intptr_t)MPI_COMPLEX32: case (intptr_t)MPI_REAL2:
	case (intptr_t)MPI_COMPLEX4:
		return K_NONE;
	}
	return (t > 0x200 && t < 0x300) ? K_INT : K_NONE;
}

int hc_builtin_ok(intptr_t op, intptr_t base)
{
	int k = hc_kind(base);
	switch (op) {
	case (intptr_t)MPI_SUM: case (intptr_t)MPI_PROD:
		return k == K_INT || k == K_FLOAT || k == K_COMPLEX;
	case (intptr_t)MPI_MIN: case (intptr_t)MPI_MAX:
		return k == K_INT || k == K_FLOAT;
	case (intptr_t)MPI_LAND: case (intptr_t)MPI_LOR: case (intptr_t)MPI_LXOR:
		return k == K_INT || k == K_LOGICAL;
	case (intptr_t)MPI_BAND: case (intptr_t)MPI_BOR: case (intptr_t)MPI_BXOR:
		return k == K_INT || k == K_BYTE || k == K_LOGICAL;
	case (intptr_t)MPI_MINLOC: case (intptr_t)MPI_MAXLOC:
		return k == K_PAIR;
	}
	return 0;
}

#define ARITH(TYPE)                                                           \
	do {                                                                  \
		TYPE *a = in, *b = inout;                                     \
		switch (op) {                                                 \
		case (intptr_t)MPI_SUM: for (int64_t i = 0; i < n; i++) b[i] = a[i] + b[i]; return; \
		case (intptr_t)MPI_PROD: for (int64_t i = 0; i < n; i++) b[i] = a[i] * b[i]; return; \
		}                                                             \
	} while (0)
#define ORDER(TYPE)                                                           \
	do {                                                                  \
		TYPE *a = in, *b = inout;                                     \
		switch (op) {                                                 \
		case (intptr_t)MPI_MIN: for (int64_t i = 0; i < n; i++) if (a[i] < b[i]) b[i] = a[i]; return; \
		case (intptr_t)MPI_MAX: for (int64_t i = 0; i < n; i++) if (a[i] > b[i]) b[i] = a[i]; return; \
		}                                                             \
	} while (0)
#define LOC(VT, IT)                                                           \
	do {                                                                  \
		struct { VT v; IT i; } *a = in, *b = inout;                   \
		int mx = op == (intptr_t)MPI_MAXLOC;                          \
		for (int64_t k = 0; k < n; k++) {                             \
			if ((mx ? a[k].v > b[k].v : a[k].v < b[k].v) ||       \
			    (a[k].v == b[k].v && a[k].i < b[k].i))            \
				b[k] = a[k];                                  \
		}                                                             \
		return;                                                       \
	} while (0)

void hc_builtin_apply(intptr_t op, intptr_t base, void *in, void *inout, int64_t n)
{
	switch (base) {
	case (intptr_t)MPI_LONG_DOUBLE: ARITH(long double); ORDER(long double); break;
	case (intptr_t)MPI_FLOAT: case (intptr_t)MPI_REAL: case (intptr_t)MPI_REAL4: ARITH(float); ORDER(float); break;
	case (intptr_t)MPI_DOUBLE: case (intptr_t)MPI_DOUBLE_PRECISION: case (intptr_t)MPI_REAL8:
		ARITH(double); ORDER(double); break;
	case (intptr_t)MPI_C_FLOAT_COMPLEX: case (intptr_t)MPI_CXX_FLOAT_COMPLEX: case (intptr_t)MPI_COMPLEX:
	case (intptr_t)MPI_COMPLEX8:
		ARITH(float _Complex); break;
	case (intptr_t)MPI_C_DOUBLE_COMPLEX: case (intptr_t)MPI_CXX_DOUBLE_COMPLEX: case (intptr_t)MPI_DOUBLE_COMPLEX:
	case (intptr_t)MPI_COMPLEX16:
		ARITH(double _Complex); break;
	case (intptr_t)MPI_C_LONG_DOUBLE_COMPLEX: case (intptr_t)MPI_CXX_LONG_DOUBLE_COMPLEX:
		ARITH(long double _Complex); break;
	case (intptr_t)MPI_FLOAT_INT: LOC(float, int);
	case (intptr_t)MPI_DOUBLE_INT: LOC(double, int);
	case (intptr_t)MPI_LONG_INT: LOC(long, int);
	case (intptr_t)MPI_2INT: case (intptr_t)MPI_2INTEGER: LOC(int, int);
	case (intptr_t)MPI_SHORT_INT: LOC(short, int);
	case (intptr_t)MPI_LONG_DOUBLE_INT: LOC(long double, int);
	case (intptr_t)MPI_2REAL: LOC(float, float);
	case (intptr_t)MPI_2DOUBLE_PRECISION: LOC(double, double);
	}
}

void hc_user_apply(uintptr_t fn, int bigcount, void *in, void *inout, int64_t n, intptr_t dt)
{
	MPI_Datatype t = (MPI_Datatype)dt;
	if (bigcount) {
		MPI_Count len = n;
		((MPI_User_function_c *)fn)(in, inout, &len, &t);
	} else {
		int len = (int)n;
		((MPI_User_function *)fn)(in, inout, &len, &t);
	}
}

#define HC_ALIASES_types
#include "aliases_gen.h"
