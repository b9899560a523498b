/*
 * dtype_ctor.c — datatype constructors (int and large-count forms), and
 * Type_get_envelope/Type_get_contents, which give their arguments back.
 */
#include <stdlib.h>
#include <string.h>

#include "argcheck.h"
#include "dtype.h"

/* Constructor arguments as one call saw them: ints, addresses, large
 * counts, types (recorded as the standard's table for the combiner says). */
typedef struct {
	int64_t ni, na, nc, nd;
	int *ints;
	MPI_Aint *addrs;
	MPI_Count *counts;
	hc_dt **dts;
} hc_args;

static int hc_args_alloc(hc_args *a, int64_t ni, int64_t na, int64_t nc, int64_t nd)
{
	a->ni = ni, a->na = na, a->nc = nc, a->nd = nd;
	a->ints = calloc(ni ? ni : 1, sizeof *a->ints);
	a->addrs = calloc(na ? na : 1, sizeof *a->addrs);
	a->counts = calloc(nc ? nc : 1, sizeof *a->counts);
	a->dts = calloc(nd ? nd : 1, sizeof *a->dts);
	if (a->ints && a->addrs && a->counts && a->dts) return 1;
	free(a->ints), free(a->addrs), free(a->counts), free(a->dts);
	return 0;
}

/* hc_new makes an object of n blocks (arrays as the flags ask). */
static hc_dt *hc_new(int combiner, int64_t n, int blens, int disps, int kids)
{
	hc_dt *t = hc_dt_alloc();
	if (!t) return NULL;
	t->combiner = combiner;
	t->n = n;
	size_t m = n > 0 ? (size_t)n : 1;
	if ((blens && !(t->blens = calloc(m, sizeof *t->blens))) || (disps && !(t->disps = calloc(m, sizeof *t->disps))) ||
	    (kids && !(t->kids = calloc(m, sizeof *t->kids)))) {
		free(t->blens), free(t->disps), free(t->kids), free(t);
		return NULL;
	}
	return t;
}

/* hc_done records args in the finished t (taking references on their
 * types) and returns a handle, or frees everything on failure. */
static int hc_done(hc_dt *t, hc_args *a, MPI_Datatype *out, const char *fn)
{
	if (a) {
		t->ni = a->ni, t->na = a->na, t->nc = a->nc, t->nd = a->nd;
		t->ints = a->ints, t->addrs = a->addrs, t->counts = a->counts, t->dts = a->dts;
		for (int64_t i = 0; i < a->nd; i++) hc_dt_ref(a->dts[i]);
	}
	int rc = hc_dt_publish(t, out);
	if (rc) {
		hc_dt_unref(t);
		return hc_error(-1, rc, fn);
	}
	return MPI_SUCCESS;
}

static int hc_nomem(hc_args *a, const char *fn)
{
	if (a) free(a->ints), free(a->addrs), free(a->counts), free(a->dts);
	return hc_error(-1, MPI_ERR_NO_MEM, fn);
}

#define OLD(t, dt, fn)                                                      \
	hc_dt *t = hc_dt_get(dt);                                           \
	if (!t) return hc_error(-1, MPI_ERR_TYPE, fn)
#define OUT(p, fn) HC_CHECK_PTR(-1, p, fn)

/* ---- regular types ---------------------------------------------------- */

/* hc_regular: count blocks of blen elements of old, block i at i * stride
 * bytes; big says which form of the arguments to record. */
static int hc_regular(int combiner, int64_t count, int64_t blen, int64_t stride, int64_t stride_arg, int big,
		      MPI_Datatype old, MPI_Datatype *out, const char *fn)
{
	OLD(o, old, fn);
	OUT(out, fn);
	if (count < 0 || blen < 0) return hc_error(-1, MPI_ERR_COUNT, fn);
	hc_args a;
	int64_t nargs = combiner == MPI_COMBINER_CONTIGUOUS ? 1 : 3;
	int ok;
	if (big) ok = hc_args_alloc(&a, 0, 0, nargs, 1);
	else if (combiner == MPI_COMBINER_HVECTOR) ok = hc_args_alloc(&a, 2, 1, 0, 1);
	else ok = hc_args_alloc(&a, nargs, 0, 0, 1);
	if (!ok) return hc_nomem(NULL, fn);
	int64_t vals[3] = {count, blen, stride_arg};
	for (int k = 0; k < nargs; k++) {
		if (big) a.counts[k] = vals[k];
		else if (combiner == MPI_COMBINER_HVECTOR && k == 2) a.addrs[0] = vals[k];
		else a.ints[k] = (int)vals[k];
	}
	a.dts[0] = o;
	hc_dt *t = combiner == MPI_COMBINER_CONTIGUOUS ? hc_new(combiner, 1, 0, 0, 0) : hc_new(combiner, count, 0, 0, 0);
	if (!t) return hc_nomem(&a, fn);
	if (combiner == MPI_COMBINER_CONTIGUOUS) {
		t->blen = count;
	} else {
		t->blen = blen;
		t->stride = stride;
	}
	t->kid = o;
	hc_dt_ref(o);
	hc_dt_finish(t);
	return hc_done(t, &a, out, fn);
}

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	return hc_regular(MPI_COMBINER_CONTIGUOUS, count, 0, 0, 0, 0, oldtype, newtype, "MPI_Type_contiguous");
}
int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	return hc_regular(MPI_COMBINER_CONTIGUOUS, count, 0, 0, 0, 1, oldtype, newtype, "MPI_Type_contiguous_c");
}

static int64_t hc_ext_of(MPI_Datatype dt)
{
	hc_dt *t = hc_dt_get(dt);
	return t ? hc_dt_extent(t) : 0;
}

int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	return hc_regular(MPI_COMBINER_VECTOR, count, blocklength, (int64_t)stride * hc_ext_of(oldtype), stride, 0,
			  oldtype, newtype, "MPI_Type_vector");
}
int PMPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
		       MPI_Datatype *newtype)
{
	return hc_regular(MPI_COMBINER_VECTOR, count, blocklength, stride * hc_ext_of(oldtype), stride, 1, oldtype,
			  newtype, "MPI_Type_vector_c");
}
int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	return hc_regular(MPI_COMBINER_HVECTOR, count, blocklength, stride, stride, 0, oldtype, newtype,
			  "MPI_Type_create_hvector");
}
int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
			       MPI_Datatype *newtype)
{
	return hc_regular(MPI_COMBINER_HVECTOR, count, blocklength, stride, stride, 1, oldtype, newtype,
			  "MPI_Type_create_hvector_c");
}

/* ---- list types ------------------------------------------------------- */

/* The argument arrays of a list constructor, any width. */
typedef struct {
	const void *p;
	int width; /* 4: int, 8: MPI_Aint or MPI_Count */
} hc_arr;

static inline int64_t hc_at(hc_arr a, int64_t i)
{
	return a.width == 4 ? ((const int *)a.p)[i] : ((const int64_t *)a.p)[i];
}

/* hc_list: count blocks; blens (or fixed blen when blens.p is NULL);
 * disps in units of the old type's extent (unit 0) or bytes (unit 1);
 * types (NULL: all old). */
static int hc_list(int combiner, int64_t count, hc_arr blens, int64_t blen, hc_arr disps, int bytes_disp,
		   const MPI_Datatype *types, MPI_Datatype old, int big, MPI_Datatype *out, const char *fn)
{
	OUT(out, fn);
	if (count < 0 || (!blens.p && blen < 0)) return hc_error(-1, MPI_ERR_COUNT, fn);
	int fixed_len = combiner == MPI_COMBINER_INDEXED_BLOCK || combiner == MPI_COMBINER_HINDEXED_BLOCK;
	HC_CHECK_ARRAY(-1, disps.p, count, fn);
	if (!fixed_len) HC_CHECK_ARRAY(-1, blens.p, count, fn);
	if (combiner == MPI_COMBINER_STRUCT) HC_CHECK_ARRAY(-1, types, count, fn);
	hc_dt *o = NULL;
	if (!types) {
		o = hc_dt_get(old);
		if (!o) return hc_error(-1, MPI_ERR_TYPE, fn);
	}
	for (int64_t i = 0; i < count; i++) {
		if (types && !hc_dt_get(types[i])) return hc_error(-1, MPI_ERR_TYPE, fn);
		if (blens.p && hc_at(blens, i) < 0) return hc_error(-1, MPI_ERR_COUNT, fn);
	}
	/* Arguments as the standard's table records them. */
	int fixed = !blens.p;
	int64_t nd = types ? count : 1;
	int64_t nlen = fixed ? 1 : count, ndisp = count;
	hc_args a;
	int ok;
	if (big) ok = hc_args_alloc(&a, 0, 0, 1 + nlen + ndisp, nd);
	else if (bytes_disp) ok = hc_args_alloc(&a, 1 + nlen, ndisp, 0, nd);
	else ok = hc_args_alloc(&a, 1 + nlen + ndisp, 0, 0, nd);
	if (!ok) return hc_nomem(NULL, fn);
	int64_t k = 0;
	if (big) {
		a.counts[k++] = count;
		for (int64_t i = 0; i < nlen; i++) a.counts[k++] = fixed ? blen : hc_at(blens, i);
		for (int64_t i = 0; i < ndisp; i++) a.counts[k++] = hc_at(disps, i);
	} else {
		a.ints[k++] = (int)count;
		for (int64_t i = 0; i < nlen; i++) a.ints[k++] = (int)(fixed ? blen : hc_at(blens, i));
		for (int64_t i = 0; i < ndisp; i++) {
			if (bytes_disp) a.addrs[i] = hc_at(disps, i);
			else a.ints[k++] = (int)hc_at(disps, i);
		}
	}
	for (int64_t i = 0; i < nd; i++) a.dts[i] = types ? hc_dt_get(types[i]) : o;

	hc_dt *t = hc_new(combiner, count, !fixed, 1, types != NULL);
	if (!t) return hc_nomem(&a, fn);
	t->blen = blen;
	for (int64_t i = 0; i < count; i++) {
		hc_dt *kd = types ? hc_dt_get(types[i]) : o;
		if (!fixed) t->blens[i] = hc_at(blens, i);
		t->disps[i] = hc_at(disps, i) * (bytes_disp ? 1 : hc_dt_extent(kd));
		if (types) {
			t->kids[i] = kd;
			hc_dt_ref(kd);
		}
	}
	if (!types) {
		t->kid = o;
		hc_dt_ref(o);
	}
	hc_dt_finish(t);
	return hc_done(t, &a, out, fn);
}

#define ARR(p, w) ((hc_arr){(p), (w)})
#define NOARR ARR(NULL, 4)

int PMPI_Type_indexed(int count, const int array_of_blocklengths[], const int array_of_displacements[],
		      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	return hc_list(MPI_COMBINER_INDEXED, count, ARR(array_of_blocklengths, 4), 0, ARR(array_of_displacements, 4),
		       0, NULL, oldtype, 0, newtype, "MPI_Type_indexed");
}
int PMPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
			const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	return hc_list(MPI_COMBINER_INDEXED, count, ARR(array_of_blocklengths, 8), 0, ARR(array_of_displacements, 8),
		       0, NULL, oldtype, 1, newtype, "MPI_Type_indexed_c");
}
int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
			      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	return hc_list(MPI_COMBINER_HINDEXED, count, ARR(array_of_blocklengths, 4), 0, ARR(array_of_displacements, 8),
		       1, NULL, oldtype, 0, newtype, "MPI_Type_create_hindexed");
}
int PMPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
				const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	return hc_list(MPI_COMBINER_HINDEXED, count, ARR(array_of_blocklengths, 8), 0, ARR(array_of_displacements, 8),
		       1, NULL, oldtype, 1, newtype, "MPI_Type_create_hindexed_c");
}
int PMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[], MPI_Datatype oldtype,
				   MPI_Datatype *newtype)
{
	return hc_list(MPI_COMBINER_INDEXED_BLOCK, count, NOARR, blocklength, ARR(array_of_displacements, 4), 0, NULL,
		       oldtype, 0, newtype, "MPI_Type_create_indexed_block");
}
int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength, const MPI_Count array_of_displacements[],
				     MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	return hc_list(MPI_COMBINER_INDEXED_BLOCK, count, NOARR, blocklength, ARR(array_of_displacements, 8), 0, NULL,
		       oldtype, 1, newtype, "MPI_Type_create_indexed_block_c");
}
int PMPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint array_of_displacements[],
				    MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	return hc_list(MPI_COMBINER_HINDEXED_BLOCK, count, NOARR, blocklength, ARR(array_of_displacements, 8), 1, NULL,
		       oldtype, 0, newtype, "MPI_Type_create_hindexed_block");
}
int PMPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
				      const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
				      MPI_Datatype *newtype)
{
	return hc_list(MPI_COMBINER_HINDEXED_BLOCK, count, NOARR, blocklength, ARR(array_of_displacements, 8), 1, NULL,
		       oldtype, 1, newtype, "MPI_Type_create_hindexed_block_c");
}
/* A struct of no blocks may come with NULL arrays (MPICH's test
 * datatype/struct_zero_count); hc_list reads a NULL types array as "one
 * old type", so these stand in for them. */
static const int hc_no_ints[1];
static const MPI_Aint hc_no_aints[1];
static const MPI_Count hc_no_counts[1];
static const MPI_Datatype hc_no_types[1];

int PMPI_Type_create_struct(int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
			    const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
	if (count == 0 && !array_of_blocklengths && !array_of_displacements && !array_of_types)
		array_of_blocklengths = hc_no_ints, array_of_displacements = hc_no_aints, array_of_types = hc_no_types;
	return hc_list(MPI_COMBINER_STRUCT, count, ARR(array_of_blocklengths, 4), 0, ARR(array_of_displacements, 8), 1,
		       array_of_types, MPI_DATATYPE_NULL, 0, newtype, "MPI_Type_create_struct");
}
int PMPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
			      const MPI_Count array_of_displacements[], const MPI_Datatype array_of_types[],
			      MPI_Datatype *newtype)
{
	if (count == 0 && !array_of_blocklengths && !array_of_displacements && !array_of_types)
		array_of_blocklengths = hc_no_counts, array_of_displacements = hc_no_counts, array_of_types = hc_no_types;
	return hc_list(MPI_COMBINER_STRUCT, count, ARR(array_of_blocklengths, 8), 0, ARR(array_of_displacements, 8), 1,
		       array_of_types, MPI_DATATYPE_NULL, 1, newtype, "MPI_Type_create_struct_c");
}

/* ---- resized and dup -------------------------------------------------- */

static int hc_resized(MPI_Datatype old, int64_t lb, int64_t extent, int big, MPI_Datatype *out, const char *fn)
{
	OLD(o, old, fn);
	OUT(out, fn);
	hc_args a;
	if (!(big ? hc_args_alloc(&a, 0, 0, 2, 1) : hc_args_alloc(&a, 0, 2, 0, 1))) return hc_nomem(NULL, fn);
	if (big) a.counts[0] = lb, a.counts[1] = extent;
	else a.addrs[0] = lb, a.addrs[1] = extent;
	a.dts[0] = o;
	hc_dt *t = hc_new(MPI_COMBINER_RESIZED, 1, 0, 0, 0);
	if (!t) return hc_nomem(&a, fn);
	t->blen = 1;
	t->kid = o;
	hc_dt_ref(o);
	hc_dt_finish(t);
	t->lb = lb;
	t->ub = lb + extent;
	t->dense = o->dense && lb == o->lb && extent == t->size;
	return hc_done(t, &a, out, fn);
}

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype)
{
	return hc_resized(oldtype, lb, extent, 0, newtype, "MPI_Type_create_resized");
}
int PMPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent, MPI_Datatype *newtype)
{
	return hc_resized(oldtype, lb, extent, 1, newtype, "MPI_Type_create_resized_c");
}

/* Internal building blocks for subarray and darray: objects with no
 * handle and no recorded arguments. */
static hc_dt *hc_mk_regular(hc_dt *kid, int64_t n, int64_t blen, int64_t stride)
{
	hc_dt *t = hc_new(MPI_COMBINER_HVECTOR, n, 0, 0, 0);
	if (!t) return NULL;
	t->blen = blen;
	t->stride = stride;
	t->kid = kid;
	hc_dt_ref(kid);
	hc_dt_finish(t);
	return t;
}

/* hc_mk_frame places kid at disp inside a type of bounds [0, extent). */
static hc_dt *hc_mk_frame(int combiner, hc_dt *kid, int64_t disp, int64_t extent)
{
	hc_dt *t = hc_new(combiner, 1, 0, 1, 0);
	if (!t) return NULL;
	t->blen = 1;
	t->disps[0] = disp;
	t->kid = kid;
	hc_dt_ref(kid);
	hc_dt_finish(t);
	t->lb = 0;
	t->ub = extent;
	t->dense = kid->dense && disp + kid->lb == 0 && extent == t->size;
	return t;
}

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	const char *fn = "MPI_Type_dup";
	OLD(o, oldtype, fn);
	OUT(newtype, fn);
	hc_args a;
	if (!hc_args_alloc(&a, 0, 0, 0, 1)) return hc_nomem(NULL, fn);
	a.dts[0] = o;
	hc_dt *t = hc_new(MPI_COMBINER_DUP, 1, 0, 0, 0);
	if (!t) return hc_nomem(&a, fn);
	t->blen = 1;
	t->kid = o;
	hc_dt_ref(o);
	hc_dt_finish(t);
	/* A duplicate has the old type's bounds exactly (padding included). */
	t->lb = o->lb, t->ub = o->ub, t->dense = o->dense;
	t->committed = o->committed;
	int rc = hc_done(t, &a, newtype, fn);
	if (rc == MPI_SUCCESS) {
		HC_HIDDEN int hc_dt_copy_attrs(MPI_Datatype from, hc_dt * src, MPI_Datatype to, hc_dt * dst);
		int arc = hc_dt_copy_attrs(oldtype, o, *newtype, t);
		if (arc) {
			PMPI_Type_free(newtype);
			return hc_error(-1, arc, fn);
		}
	}
	return rc;
}

/* ---- subarray --------------------------------------------------------- */

static int hc_subarray(int ndims, hc_arr sizes, hc_arr subsizes, hc_arr starts, int order, MPI_Datatype old, int big,
		       MPI_Datatype *out, const char *fn)
{
	OLD(o, old, fn);
	OUT(out, fn);
	if (ndims <= 0) return hc_error(-1, MPI_ERR_ARG, fn);
	HC_CHECK_ARRAY(-1, sizes.p, ndims, fn);
	HC_CHECK_ARRAY(-1, subsizes.p, ndims, fn);
	HC_CHECK_ARRAY(-1, starts.p, ndims, fn);
	if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) return hc_error(-1, MPI_ERR_ARG, fn);
	for (int i = 0; i < ndims; i++) {
		int64_t s = hc_at(sizes, i), ss = hc_at(subsizes, i), st = hc_at(starts, i);
		if (s <= 0 || ss < 0 || ss > s || st < 0 || st > s - ss) return hc_error(-1, MPI_ERR_ARG, fn);
	}
	hc_args a;
	if (!(big ? hc_args_alloc(&a, 2, 0, 3 * ndims, 1) : hc_args_alloc(&a, 3 * ndims + 2, 0, 0, 1)))
		return hc_nomem(NULL, fn);
	if (big) {
		a.ints[0] = ndims, a.ints[1] = order;
		for (int i = 0; i < ndims; i++) {
			a.counts[i] = hc_at(sizes, i);
			a.counts[ndims + i] = hc_at(subsizes, i);
			a.counts[2 * ndims + i] = hc_at(starts, i);
		}
	} else {
		a.ints[0] = ndims;
		for (int i = 0; i < ndims; i++) {
			a.ints[1 + i] = (int)hc_at(sizes, i);
			a.ints[1 + ndims + i] = (int)hc_at(subsizes, i);
			a.ints[1 + 2 * ndims + i] = (int)hc_at(starts, i);
		}
		a.ints[3 * ndims + 1] = order;
	}
	a.dts[0] = o;
	/* From the fastest-varying dimension out: each level repeats the one
	 * inside it subsizes[d] times, a whole row of the level apart. */
	int64_t e = hc_dt_extent(o), stride = e, disp = 0;
	hc_dt *cur = o;
	hc_dt_ref(o);
	for (int k = 0; k < ndims; k++) {
		int d = order == MPI_ORDER_C ? ndims - 1 - k : k;
		hc_dt *next = hc_mk_regular(cur, hc_at(subsizes, d), 1, stride);
		hc_dt_unref(cur);
		if (!next) return hc_nomem(&a, fn);
		cur = next;
		disp += hc_at(starts, d) * stride;
		stride *= hc_at(sizes, d);
	}
	hc_dt *t = hc_mk_frame(MPI_COMBINER_SUBARRAY, cur, disp, stride);
	hc_dt_unref(cur);
	if (!t) return hc_nomem(&a, fn);
	return hc_done(t, &a, out, fn);
}

int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
			      const int array_of_starts[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	return hc_subarray(ndims, ARR(array_of_sizes, 4), ARR(array_of_subsizes, 4), ARR(array_of_starts, 4), order,
			   oldtype, 0, newtype, "MPI_Type_create_subarray");
}
int PMPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[], const MPI_Count array_of_subsizes[],
				const MPI_Count array_of_starts[], int order, MPI_Datatype oldtype,
				MPI_Datatype *newtype)
{
	return hc_subarray(ndims, ARR(array_of_sizes, 8), ARR(array_of_subsizes, 8), ARR(array_of_starts, 8), order,
			   oldtype, 1, newtype, "MPI_Type_create_subarray_c");
}

/* ---- darray ----------------------------------------------------------- */

/* hc_owned lists the runs (start, length) of the indexes of one dimension
 * that process coordinate c owns; returns the number of runs, -1 for bad
 * arguments. */
static int64_t hc_owned(int64_t g, int distrib, int darg, int p, int c, int64_t *starts, int64_t *lens)
{
	if (distrib == MPI_DISTRIBUTE_NONE) {
		if (p != 1) return -1;
		starts[0] = 0, lens[0] = g;
		return g > 0;
	}
	if (distrib == MPI_DISTRIBUTE_BLOCK) {
		int64_t b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : darg;
		if (b <= 0 || b * p < g) return -1;
		int64_t lo = c * b, hi = lo + b < g ? lo + b : g;
		if (hi <= lo) return 0;
		starts[0] = lo, lens[0] = hi - lo;
		return 1;
	}
	if (distrib == MPI_DISTRIBUTE_CYCLIC) {
		int64_t b = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg, n = 0;
		if (b <= 0) return -1;
		for (int64_t lo = c * b; lo < g; lo += b * p) {
			starts[n] = lo;
			lens[n] = lo + b < g ? b : g - lo;
			n++;
		}
		return n;
	}
	return -1;
}

static int hc_darray(int size, int rank, int ndims, hc_arr gsizes, const int distribs[], const int dargs[],
		     const int psizes[], int order, MPI_Datatype old, int big, MPI_Datatype *out, const char *fn)
{
	OLD(o, old, fn);
	OUT(out, fn);
	if (size <= 0 || rank < 0 || rank >= size || ndims <= 0) return hc_error(-1, MPI_ERR_ARG, fn);
	HC_CHECK_ARRAY(-1, gsizes.p, ndims, fn);
	HC_CHECK_ARRAY(-1, distribs, ndims, fn);
	HC_CHECK_ARRAY(-1, dargs, ndims, fn);
	HC_CHECK_ARRAY(-1, psizes, ndims, fn);
	if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) return hc_error(-1, MPI_ERR_ARG, fn);
	int64_t procs = 1;
	for (int i = 0; i < ndims; i++) {
		if (psizes[i] <= 0 || hc_at(gsizes, i) <= 0) return hc_error(-1, MPI_ERR_ARG, fn);
		procs *= psizes[i];
	}
	if (procs != size) return hc_error(-1, MPI_ERR_ARG, fn);
	hc_args a;
	if (!(big ? hc_args_alloc(&a, 3 * ndims + 4, 0, ndims, 1) : hc_args_alloc(&a, 4 * ndims + 4, 0, 0, 1)))
		return hc_nomem(NULL, fn);
	int k = 0;
	a.ints[k++] = size, a.ints[k++] = rank, a.ints[k++] = ndims;
	for (int i = 0; i < ndims; i++) {
		if (big) a.counts[i] = hc_at(gsizes, i);
		else a.ints[k++] = (int)hc_at(gsizes, i);
	}
	for (int i = 0; i < ndims; i++) a.ints[k++] = distribs[i];
	for (int i = 0; i < ndims; i++) a.ints[k++] = dargs[i];
	for (int i = 0; i < ndims; i++) a.ints[k++] = psizes[i];
	a.ints[k++] = order;
	a.dts[0] = o;
	/* The process grid is row-major whatever the array order. */
	int coords[ndims];
	for (int i = ndims - 1, r = rank; i >= 0; i--) coords[i] = r % psizes[i], r /= psizes[i];
	int64_t e = hc_dt_extent(o), stride = e;
	hc_dt *cur = o;
	hc_dt_ref(o);
	for (int kk = 0; kk < ndims; kk++) {
		int d = order == MPI_ORDER_C ? ndims - 1 - kk : kk;
		int64_t g = hc_at(gsizes, d);
		int64_t cap = g / psizes[d] + 2;
		int64_t *st = malloc(cap * sizeof *st), *ln = malloc(cap * sizeof *ln);
		int64_t nr = st && ln ? hc_owned(g, distribs[d], dargs[d], psizes[d], coords[d], st, ln) : -2;
		if (nr < 0) {
			free(st), free(ln);
			hc_dt_unref(cur);
			if (nr == -2) return hc_nomem(&a, fn);
			free(a.ints), free(a.addrs), free(a.counts), free(a.dts);
			return hc_error(-1, MPI_ERR_ARG, fn);
		}
		/* The level's element is the level inside resized to one row. */
		hc_dt *row = hc_mk_frame(MPI_COMBINER_RESIZED, cur, 0, stride);
		hc_dt_unref(cur);
		hc_dt *lvl = row ? hc_new(MPI_COMBINER_HINDEXED, nr, 1, 1, 0) : NULL;
		if (lvl) {
			for (int64_t r = 0; r < nr; r++) lvl->blens[r] = ln[r], lvl->disps[r] = st[r] * stride;
			lvl->kid = row;
			hc_dt_ref(row);
			hc_dt_finish(lvl);
		}
		hc_dt_unref(row);
		free(st), free(ln);
		if (!lvl) return hc_nomem(&a, fn);
		cur = lvl;
		stride *= g;
	}
	hc_dt *t = hc_mk_frame(MPI_COMBINER_DARRAY, cur, 0, stride);
	hc_dt_unref(cur);
	if (!t) return hc_nomem(&a, fn);
	return hc_done(t, &a, out, fn);
}

int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[], const int array_of_distribs[],
			    const int array_of_dargs[], const int array_of_psizes[], int order, MPI_Datatype oldtype,
			    MPI_Datatype *newtype)
{
	return hc_darray(size, rank, ndims, ARR(array_of_gsizes, 4), array_of_distribs, array_of_dargs,
			 array_of_psizes, order, oldtype, 0, newtype, "MPI_Type_create_darray");
}
int PMPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
			      const int array_of_distribs[], const int array_of_dargs[], const int array_of_psizes[],
			      int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	return hc_darray(size, rank, ndims, ARR(array_of_gsizes, 8), array_of_distribs, array_of_dargs,
			 array_of_psizes, order, oldtype, 1, newtype, "MPI_Type_create_darray_c");
}

/* ---- envelope and contents -------------------------------------------- */

static int hc_envelope(MPI_Datatype dt, MPI_Count *ni, MPI_Count *na, MPI_Count *nc, MPI_Count *nd, int *combiner,
		       const char *fn)
{
	hc_dt *t = hc_dt_get(dt);
	if (!t) return hc_error(-1, MPI_ERR_TYPE, fn);
	HC_CHECK_PTR(-1, ni, fn);
	HC_CHECK_PTR(-1, na, fn);
	HC_CHECK_PTR(-1, nd, fn);
	HC_CHECK_PTR(-1, combiner, fn);
	*combiner = t->combiner;
	*ni = t->ni, *na = t->na, *nd = t->nd;
	if (nc) *nc = t->nc;
	return MPI_SUCCESS;
}

int PMPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers, MPI_Count *num_addresses,
			     MPI_Count *num_large_counts, MPI_Count *num_datatypes, int *combiner)
{
	HC_CHECK_PTR(-1, num_large_counts, "MPI_Type_get_envelope_c");
	return hc_envelope(datatype, num_integers, num_addresses, num_large_counts, num_datatypes, combiner,
			   "MPI_Type_get_envelope_c");
}

int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses, int *num_datatypes,
			   int *combiner)
{
	const char *fn = "MPI_Type_get_envelope";
	MPI_Count ni = 0, na = 0, nc = 0, nd = 0;
	HC_CHECK_PTR(-1, num_integers, fn);
	HC_CHECK_PTR(-1, num_addresses, fn);
	HC_CHECK_PTR(-1, num_datatypes, fn);
	HC_CHECK_PTR(-1, combiner, fn);
	int rc = hc_envelope(datatype, &ni, &na, &nc, &nd, combiner, fn);
	if (rc) return rc;
	/* A type made by a large-count constructor has no int-only form. */
	if (nc > 0) {
		HC_MSG("datatype was made by a large-count constructor: use MPI_Type_get_envelope_c");
		return hc_error(-1, MPI_ERR_TYPE, fn);
	}
	*num_integers = (int)ni, *num_addresses = (int)na, *num_datatypes = (int)nd;
	return MPI_SUCCESS;
}

static int hc_contents(MPI_Datatype dt, MPI_Count mi, MPI_Count ma, MPI_Count mc, MPI_Count md, int *ints,
		       MPI_Aint *addrs, MPI_Count *counts, MPI_Datatype *types, const char *fn)
{
	hc_dt *t = hc_dt_get(dt);
	if (!t) return hc_error(-1, MPI_ERR_TYPE, fn);
	if (t->combiner == MPI_COMBINER_NAMED) return hc_error(-1, MPI_ERR_TYPE, fn);
	if (mi < t->ni || ma < t->na || mc < t->nc || md < t->nd) return hc_error(-1, MPI_ERR_ARG, fn);
	HC_CHECK_ARRAY(-1, ints, t->ni, fn);
	HC_CHECK_ARRAY(-1, addrs, t->na, fn);
	HC_CHECK_ARRAY(-1, counts, t->nc, fn);
	HC_CHECK_ARRAY(-1, types, t->nd, fn);
	/* A derived type comes back as a new handle the caller frees. */
	for (int64_t i = 0; i < t->nd; i++) {
		hc_dt *k = t->dts[i];
		if (k->predefined) {
			types[i] = (MPI_Datatype)hc_dt_predef_handle(k);
			continue;
		}
		hc_dt_ref(k);
		if (hc_dt_publish(k, &types[i])) {
			hc_dt_unref(k);
			for (int64_t j = 0; j < i; j++)
				if (!t->dts[j]->predefined) PMPI_Type_free(&types[j]);
			return hc_error(-1, MPI_ERR_NO_MEM, fn);
		}
	}
	if (t->ni) memcpy(ints, t->ints, t->ni * sizeof *ints);
	if (t->na) memcpy(addrs, t->addrs, t->na * sizeof *addrs);
	if (t->nc) memcpy(counts, t->counts, t->nc * sizeof *counts);
	return MPI_SUCCESS;
}

int PMPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
			     MPI_Count max_large_counts, MPI_Count max_datatypes, int array_of_integers[],
			     MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
			     MPI_Datatype array_of_datatypes[])
{
	return hc_contents(datatype, max_integers, max_addresses, max_large_counts, max_datatypes, array_of_integers,
			   array_of_addresses, array_of_large_counts, array_of_datatypes, "MPI_Type_get_contents_c");
}

int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes,
			   int array_of_integers[], MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[])
{
	return hc_contents(datatype, max_integers, max_addresses, 0, max_datatypes, array_of_integers,
			   array_of_addresses, NULL, array_of_datatypes, "MPI_Type_get_contents");
}

#define HC_ALIASES_dtype_ctor
#include "aliases_gen.h"
