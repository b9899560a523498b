/*
 * types.c — datatypes (predefined ones, and contiguous derived types) and
 * the reduction kernels the engine has no native form for.
 */
#include <complex.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "cabi.h"

struct hc_fi { float v; int i; };
struct hc_di { double v; int i; };
struct hc_li { long v; int i; };
struct hc_ii { int v; int i; };
struct hc_si { short v; int i; };
struct hc_ldi { long double v; int i; };

#define T(h, type, nm) { (intptr_t)(h), sizeof(type), nm }
static const struct {
	intptr_t h;
	int size;
	const char *name;
} hc_ptypes[] = {
	T(MPI_AINT, MPI_Aint, "MPI_AINT"), T(MPI_COUNT, MPI_Count, "MPI_COUNT"), T(MPI_OFFSET, MPI_Offset, "MPI_OFFSET"),
	T(MPI_PACKED, char, "MPI_PACKED"), T(MPI_SHORT, short, "MPI_SHORT"), T(MPI_INT, int, "MPI_INT"),
	T(MPI_LONG, long, "MPI_LONG"), T(MPI_LONG_LONG, long long, "MPI_LONG_LONG"),
	T(MPI_UNSIGNED_SHORT, unsigned short, "MPI_UNSIGNED_SHORT"), T(MPI_UNSIGNED, unsigned, "MPI_UNSIGNED"),
	T(MPI_UNSIGNED_LONG, unsigned long, "MPI_UNSIGNED_LONG"),
	T(MPI_UNSIGNED_LONG_LONG, unsigned long long, "MPI_UNSIGNED_LONG_LONG"), T(MPI_FLOAT, float, "MPI_FLOAT"),
	T(MPI_C_FLOAT_COMPLEX, float _Complex, "MPI_C_FLOAT_COMPLEX"),
	T(MPI_CXX_FLOAT_COMPLEX, float _Complex, "MPI_CXX_FLOAT_COMPLEX"), T(MPI_DOUBLE, double, "MPI_DOUBLE"),
	T(MPI_C_DOUBLE_COMPLEX, double _Complex, "MPI_C_DOUBLE_COMPLEX"),
	T(MPI_CXX_DOUBLE_COMPLEX, double _Complex, "MPI_CXX_DOUBLE_COMPLEX"), T(MPI_LOGICAL, int, "MPI_LOGICAL"),
	T(MPI_INTEGER, int, "MPI_INTEGER"), T(MPI_REAL, float, "MPI_REAL"), T(MPI_COMPLEX, float _Complex, "MPI_COMPLEX"),
	T(MPI_DOUBLE_PRECISION, double, "MPI_DOUBLE_PRECISION"),
	T(MPI_DOUBLE_COMPLEX, double _Complex, "MPI_DOUBLE_COMPLEX"), T(MPI_CHARACTER, char, "MPI_CHARACTER"),
	T(MPI_LONG_DOUBLE, long double, "MPI_LONG_DOUBLE"),
	T(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex, "MPI_C_LONG_DOUBLE_COMPLEX"),
	T(MPI_CXX_LONG_DOUBLE_COMPLEX, long double _Complex, "MPI_CXX_LONG_DOUBLE_COMPLEX"),
	T(MPI_FLOAT_INT, struct hc_fi, "MPI_FLOAT_INT"), T(MPI_DOUBLE_INT, struct hc_di, "MPI_DOUBLE_INT"),
	T(MPI_LONG_INT, struct hc_li, "MPI_LONG_INT"), T(MPI_2INT, struct hc_ii, "MPI_2INT"),
	T(MPI_SHORT_INT, struct hc_si, "MPI_SHORT_INT"), T(MPI_LONG_DOUBLE_INT, struct hc_ldi, "MPI_LONG_DOUBLE_INT"),
	T(MPI_2REAL, float[2], "MPI_2REAL"), T(MPI_2DOUBLE_PRECISION, double[2], "MPI_2DOUBLE_PRECISION"),
	T(MPI_2INTEGER, int[2], "MPI_2INTEGER"), T(MPI_C_BOOL, _Bool, "MPI_C_BOOL"), T(MPI_CXX_BOOL, _Bool, "MPI_CXX_BOOL"),
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
};
#undef T
#define HC_NPTYPES ((int)(sizeof hc_ptypes / sizeof hc_ptypes[0]))

/* Size by predefined handle value (0x200..0x2ff), filled on first use. */
static int hc_psize[0x100];
static const char *hc_pname[0x100];
static pthread_once_t hc_ptypes_once = PTHREAD_ONCE_INIT;

static void hc_ptypes_init(void)
{
	for (int i = 0; i < HC_NPTYPES; i++) {
		hc_psize[hc_ptypes[i].h - 0x200] = hc_ptypes[i].size;
		hc_pname[hc_ptypes[i].h - 0x200] = hc_ptypes[i].name;
	}
}

/* Derived types: contiguous runs of a predefined type. */
static struct {
	int used, committed;
	int64_t size;
	intptr_t base;
	int64_t nbase;
	char name[MPI_MAX_OBJECT_NAME];
} hc_types[HC_MAX_TYPES];
static pthread_mutex_t hc_types_lock = PTHREAD_MUTEX_INITIALIZER;

static int hc_type_index(MPI_Datatype dt)
{
	int i = hc_index(dt, HK_TYPE);
	if (i < 0 || i >= HC_MAX_TYPES || !hc_types[i].used) return -1;
	return i;
}

int64_t hc_type_size(MPI_Datatype dt)
{
	intptr_t v = (intptr_t)dt;
	if (v > 0x200 && v < 0x300) {
		int s = hc_psize[v - 0x200];
		if (__builtin_expect(s == 0, 0)) {
			pthread_once(&hc_ptypes_once, hc_ptypes_init);
			s = hc_psize[v - 0x200];
		}
		return s ? s : -1;
	}
	int i = hc_type_index(dt);
	return i < 0 ? -1 : hc_types[i].size;
}

int hc_type_base(MPI_Datatype dt, intptr_t *base, int64_t *nbase)
{
	intptr_t v = (intptr_t)dt;
	if (v > 0x200 && v < 0x300) {
		*base = v;
		*nbase = 1;
		return hc_type_size(dt) > 0;
	}
	int i = hc_type_index(dt);
	if (i < 0) return 0;
	*base = hc_types[i].base;
	*nbase = hc_types[i].nbase;
	return 1;
}

int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
	int64_t s = hc_type_size(datatype);
	if (s < 0) return hc_error(0, MPI_ERR_TYPE, "MPI_Type_size");
	*size = s > 0x7fffffff ? MPI_UNDEFINED : (int)s;
	return MPI_SUCCESS;
}

int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size)
{
	int64_t s = hc_type_size(datatype);
	if (s < 0) return hc_error(0, MPI_ERR_TYPE, "MPI_Type_size_c");
	*size = s;
	return MPI_SUCCESS;
}

int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size) { return PMPI_Type_size_c(datatype, size); }

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
	int64_t s = hc_type_size(datatype);
	if (s < 0) return hc_error(0, MPI_ERR_TYPE, "MPI_Type_get_extent");
	*lb = 0;
	*extent = s;
	return MPI_SUCCESS;
}

int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
	int64_t s = hc_type_size(datatype);
	if (s < 0) return hc_error(0, MPI_ERR_TYPE, "MPI_Type_get_extent_c");
	*lb = 0;
	*extent = s;
	return MPI_SUCCESS;
}

int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
	return PMPI_Type_get_extent_c(datatype, lb, extent);
}

int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
	return PMPI_Type_get_extent(datatype, lb, extent);
}

int PMPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
	return PMPI_Type_get_extent_c(datatype, lb, extent);
}

int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
	return PMPI_Type_get_extent_c(datatype, lb, extent);
}

int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
	intptr_t v = (intptr_t)datatype;
	const char *n = NULL;
	if (v > 0x200 && v < 0x300) {
		pthread_once(&hc_ptypes_once, hc_ptypes_init);
		n = hc_pname[v - 0x200];
	} else {
		int i = hc_type_index(datatype);
		if (i >= 0) n = hc_types[i].name;
	}
	if (!n) return hc_error(0, MPI_ERR_TYPE, "MPI_Type_get_name");
	snprintf(type_name, MPI_MAX_OBJECT_NAME, "%s", n);
	*resultlen = (int)strlen(type_name);
	return MPI_SUCCESS;
}

int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
	int i = hc_type_index(datatype);
	if (i < 0) return hc_error(0, MPI_ERR_TYPE, "MPI_Type_set_name");
	snprintf(hc_types[i].name, MPI_MAX_OBJECT_NAME, "%s", type_name);
	return MPI_SUCCESS;
}

static int hc_type_new(int64_t size, intptr_t base, int64_t nbase, MPI_Datatype *out)
{
	pthread_mutex_lock(&hc_types_lock);
	for (int i = 1; i < HC_MAX_TYPES; i++) {
		if (!hc_types[i].used) {
			hc_types[i].used = 1;
			hc_types[i].committed = 0;
			hc_types[i].size = size;
			hc_types[i].base = base;
			hc_types[i].nbase = nbase;
			hc_types[i].name[0] = 0;
			pthread_mutex_unlock(&hc_types_lock);
			*out = (MPI_Datatype)hc_make(HK_TYPE, i);
			return MPI_SUCCESS;
		}
	}
	pthread_mutex_unlock(&hc_types_lock);
	return MPI_ERR_INTERN;
}

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	intptr_t base;
	int64_t nbase;
	int64_t s = hc_type_size(oldtype);
	if (s < 0 || !hc_type_base(oldtype, &base, &nbase)) return hc_error(0, MPI_ERR_TYPE, "MPI_Type_contiguous");
	if (count < 0) return hc_error(0, MPI_ERR_COUNT, "MPI_Type_contiguous");
	int rc = hc_type_new(s * count, base, nbase * count, newtype);
	return rc ? hc_error(0, rc, "MPI_Type_contiguous") : MPI_SUCCESS;
}

int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	if (count > 0x7fffffff) return hc_error(0, MPI_ERR_COUNT, "MPI_Type_contiguous_c");
	return PMPI_Type_contiguous((int)count, oldtype, newtype);
}

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype) { return PMPI_Type_contiguous(1, oldtype, newtype); }

int PMPI_Type_commit(MPI_Datatype *datatype)
{
	intptr_t v = (intptr_t)*datatype;
	if (v > 0x200 && v < 0x300) return MPI_SUCCESS;
	int i = hc_type_index(*datatype);
	if (i < 0) return hc_error(0, MPI_ERR_TYPE, "MPI_Type_commit");
	hc_types[i].committed = 1;
	return MPI_SUCCESS;
}

int PMPI_Type_free(MPI_Datatype *datatype)
{
	int i = hc_type_index(*datatype);
	if (i < 0) return hc_error(0, MPI_ERR_TYPE, "MPI_Type_free");
	pthread_mutex_lock(&hc_types_lock);
	hc_types[i].used = 0;
	pthread_mutex_unlock(&hc_types_lock);
	*datatype = MPI_DATATYPE_NULL;
	return MPI_SUCCESS;
}

/* ---- counts from statuses -------------------------------------------- */

static int64_t hc_status_bytes(const MPI_Status *st)
{
	int64_t b;
	__builtin_memcpy(&b, &st->MPI_internal[0], sizeof b);
	return b;
}

int PMPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
	int64_t s = hc_type_size(datatype);
	if (s < 0) return hc_error(0, MPI_ERR_TYPE, "MPI_Get_count");
	int64_t b = hc_status_bytes(status);
	if (s == 0) *count = 0;
	else *count = b % s ? MPI_UNDEFINED : b / s;
	return MPI_SUCCESS;
}

int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
	MPI_Count c;
	int rc = PMPI_Get_count_c(status, datatype, &c);
	if (rc == MPI_SUCCESS) *count = c > 0x7fffffff ? MPI_UNDEFINED : (int)c;
	return rc;
}

int PMPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
	intptr_t base;
	int64_t nbase;
	if (!hc_type_base(datatype, &base, &nbase)) return hc_error(0, MPI_ERR_TYPE, "MPI_Get_elements");
	return PMPI_Get_count_c(status, (MPI_Datatype)base, count);
}

int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
	MPI_Count c;
	int rc = PMPI_Get_elements_c(status, datatype, &c);
	if (rc == MPI_SUCCESS) *count = c > 0x7fffffff ? MPI_UNDEFINED : (int)c;
	return rc;
}

int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
	return PMPI_Get_elements_c(status, datatype, count);
}

int PMPI_Status_set_elements_c(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
	int64_t s = hc_type_size(datatype);
	if (s < 0) return hc_error(0, MPI_ERR_TYPE, "MPI_Status_set_elements");
	int64_t b = s * count;
	__builtin_memcpy(&status->MPI_internal[0], &b, sizeof b);
	return MPI_SUCCESS;
}

int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
	return PMPI_Status_set_elements_c(status, datatype, count);
}

int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
	return PMPI_Status_set_elements_c(status, datatype, count);
}

int PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
	status->MPI_internal[2] = flag != 0;
	return MPI_SUCCESS;
}

int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
	*flag = status->MPI_internal[2] != 0;
	return MPI_SUCCESS;
}

int PMPI_Status_get_source(const MPI_Status *status, int *source) { *source = status->MPI_SOURCE; return MPI_SUCCESS; }
int PMPI_Status_get_tag(const MPI_Status *status, int *tag) { *tag = status->MPI_TAG; return MPI_SUCCESS; }
int PMPI_Status_get_error(const MPI_Status *status, int *error) { *error = status->MPI_ERROR; return MPI_SUCCESS; }
int PMPI_Status_set_source(MPI_Status *status, int source) { status->MPI_SOURCE = source; return MPI_SUCCESS; }
int PMPI_Status_set_tag(MPI_Status *status, int tag) { status->MPI_TAG = tag; return MPI_SUCCESS; }
int PMPI_Status_set_error(MPI_Status *status, int error) { status->MPI_ERROR = error; return MPI_SUCCESS; }

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
	case (intptr_t)MPI_PACKED: case (intptr_t)MPI_CHARACTER:
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
