/*
 * dtype_match.c — finding types by property: MPI_Type_match_size, the
 * Fortran 90 parameterized types (MPI_Type_create_f90_*), and
 * MPI_Type_get_value_index's pair types.
 */
#include <pthread.h>
#include <stdlib.h>

#include "argcheck.h"
#include "dtype.h"

int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
	const char *fn = "MPI_Type_match_size";
	HC_CHECK_PTR(-1, datatype, fn);
	/* The Fortran sized types, as MPICH answers. */
	static const struct {
		int cls, size;
		MPI_Datatype t;
	} m[] = {
		{MPI_TYPECLASS_REAL, 4, MPI_REAL4},       {MPI_TYPECLASS_REAL, 8, MPI_REAL8},
		{MPI_TYPECLASS_REAL, 16, MPI_REAL16},     {MPI_TYPECLASS_REAL, 2, MPI_REAL2},
		{MPI_TYPECLASS_INTEGER, 1, MPI_INTEGER1}, {MPI_TYPECLASS_INTEGER, 2, MPI_INTEGER2},
		{MPI_TYPECLASS_INTEGER, 4, MPI_INTEGER4}, {MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8},
		{MPI_TYPECLASS_INTEGER, 16, MPI_INTEGER16}, {MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX8},
		{MPI_TYPECLASS_COMPLEX, 16, MPI_COMPLEX16}, {MPI_TYPECLASS_COMPLEX, 32, MPI_COMPLEX32},
		{MPI_TYPECLASS_COMPLEX, 4, MPI_COMPLEX4}, {MPIX_TYPECLASS_LOGICAL, 1, MPI_LOGICAL1},
		{MPIX_TYPECLASS_LOGICAL, 2, MPI_LOGICAL2}, {MPIX_TYPECLASS_LOGICAL, 4, MPI_LOGICAL4},
		{MPIX_TYPECLASS_LOGICAL, 8, MPI_LOGICAL8}, {MPIX_TYPECLASS_LOGICAL, 16, MPI_LOGICAL16},
	};
	for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
		if (m[i].cls == typeclass && m[i].size == size && hc_dt_get(m[i].t)) {
			*datatype = m[i].t;
			return MPI_SUCCESS;
		}
	}
	return hc_error(-1, MPI_ERR_ARG, fn);
}

/* ---- Fortran 90 parameterized types ----------------------------------- */

/* Each distinct (combiner, p, r) gets one type for the life of the process,
 * which the standard says the user must not free. */
typedef struct hc_f90 {
	int combiner, p, r;
	MPI_Datatype h;
	struct hc_f90 *next;
} hc_f90;

static hc_f90 *hc_f90s;
static pthread_mutex_t hc_f90_lock = PTHREAD_MUTEX_INITIALIZER;

static int hc_f90_get(int combiner, int p, int r, MPI_Datatype base, MPI_Datatype *out, const char *fn)
{
	pthread_mutex_lock(&hc_f90_lock);
	for (hc_f90 *f = hc_f90s; f; f = f->next) {
		if (f->combiner == combiner && f->p == p && f->r == r) {
			*out = f->h;
			pthread_mutex_unlock(&hc_f90_lock);
			return MPI_SUCCESS;
		}
	}
	hc_dt *b = hc_dt_get(base), *t = hc_dt_alloc();
	hc_f90 *f = malloc(sizeof *f);
	int ni = combiner == MPI_COMBINER_F90_INTEGER ? 1 : 2;
	int *ints = malloc(ni * sizeof *ints);
	hc_dt **dts = calloc(1, sizeof *dts);
	int rc = b && t && f && ints && dts ? MPI_SUCCESS : MPI_ERR_NO_MEM;
	if (!rc) {
		t->combiner = combiner;
		t->n = 1;
		t->blen = 1;
		t->kid = b;
		hc_dt_finish(t);
		t->committed = 1;
		if (ni == 1) ints[0] = r;
		else ints[0] = p, ints[1] = r;
		t->ni = ni;
		t->ints = ints;
		rc = hc_dt_publish(t, &f->h);
	}
	if (rc) {
		free(t), free(f), free(ints), free(dts);
		pthread_mutex_unlock(&hc_f90_lock);
		return hc_error(-1, rc, fn);
	}
	free(dts);
	t->predefined = 1;
	t->handle = (intptr_t)f->h;
	f->combiner = combiner, f->p = p, f->r = r;
	f->next = hc_f90s;
	hc_f90s = f;
	*out = f->h;
	pthread_mutex_unlock(&hc_f90_lock);
	return MPI_SUCCESS;
}

/* hc_real_kind picks the smallest IEEE format with precision p and range r
 * (decimal digits and exponent; MPI_UNDEFINED for either means any). */
static int hc_real_kind(int p, int r)
{
	if (p == MPI_UNDEFINED && r == MPI_UNDEFINED) return -1;
	if (p == MPI_UNDEFINED) p = 0;
	if (r == MPI_UNDEFINED) r = 0;
	if (p < 0 || r < 0) return -1;
	if (p <= 6 && r <= 37) return 4;
	if (p <= 15 && r <= 307) return 8;
	if (p <= 33 && r <= 4931) return 16;
	return -1;
}

int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
	const char *fn = "MPI_Type_create_f90_real";
	HC_CHECK_PTR(-1, newtype, fn);
	int k = hc_real_kind(p, r);
	if (k < 0) return hc_error(-1, MPI_ERR_ARG, fn);
	return hc_f90_get(MPI_COMBINER_F90_REAL, p, r, k == 4 ? MPI_REAL4 : k == 8 ? MPI_REAL8 : MPI_REAL16, newtype, fn);
}

int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
	const char *fn = "MPI_Type_create_f90_complex";
	HC_CHECK_PTR(-1, newtype, fn);
	int k = hc_real_kind(p, r);
	if (k < 0) return hc_error(-1, MPI_ERR_ARG, fn);
	return hc_f90_get(MPI_COMBINER_F90_COMPLEX, p, r,
		      k == 4 ? MPI_COMPLEX8 : k == 8 ? MPI_COMPLEX16 : MPI_COMPLEX32, newtype, fn);
}

int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
	const char *fn = "MPI_Type_create_f90_integer";
	HC_CHECK_PTR(-1, newtype, fn);
	MPI_Datatype b;
	if (r < 0 || r == MPI_UNDEFINED) return hc_error(-1, MPI_ERR_ARG, fn);
	else if (r <= 2) b = MPI_INTEGER1;
	else if (r <= 4) b = MPI_INTEGER2;
	else if (r <= 9) b = MPI_INTEGER4;
	else if (r <= 18) b = MPI_INTEGER8;
	else if (r <= 38) b = MPI_INTEGER16;
	else return hc_error(-1, MPI_ERR_ARG, fn);
	return hc_f90_get(MPI_COMBINER_F90_INTEGER, 0, r, b, newtype, fn);
}

/* ---- value-index pairs ------------------------------------------------ */

int PMPI_Type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type, MPI_Datatype *pair_type)
{
	const char *fn = "MPI_Type_get_value_index";
	HC_CHECK_PTR(-1, pair_type, fn);
	if (!hc_dt_get(value_type) || !hc_dt_get(index_type)) return hc_error(-1, MPI_ERR_TYPE, fn);
	static const struct {
		MPI_Datatype v, i, pair;
	} m[] = {
		{MPI_FLOAT, MPI_INT, MPI_FLOAT_INT},
		{MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT},
		{MPI_LONG, MPI_INT, MPI_LONG_INT},
		{MPI_INT, MPI_INT, MPI_2INT},
		{MPI_SHORT, MPI_INT, MPI_SHORT_INT},
		{MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT},
		{MPI_REAL, MPI_REAL, MPI_2REAL},
		{MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION},
		{MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER},
	};
	/* No predefined pair: MPI_DATATYPE_NULL, as MPICH answers. */
	*pair_type = MPI_DATATYPE_NULL;
	for (size_t k = 0; k < sizeof m / sizeof m[0]; k++)
		if (m[k].v == value_type && m[k].i == index_type) *pair_type = m[k].pair;
	return MPI_SUCCESS;
}

#define HC_ALIASES_dtype_match
#include "aliases_gen.h"
