/*
 * types.c — datatypes (predefined ones, and contiguous derived types) and
 * the reduction kernels the engine has no native form for.
 */
#include <complex.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
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

/* Derived types. Each is flattened to the list of byte blocks of one
 * element (offsets from the element's address, adjacent blocks merged),
 * with its lb and extent; element k of a buffer starts at k * extent.
 * base/nbase say which predefined type (and how many of it) an element
 * holds when it holds only one kind (0 otherwise: no reductions). */
typedef struct {
	int64_t off, len;
} hc_blk;

static struct {
	int used, committed;
	int64_t size, lb, extent;
	intptr_t base;
	int64_t nbase;
	int contig; /* one block at 0 of size bytes, extent == size */
	hc_blk *blks;
	int nblks;
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
	if (i < 0 || hc_types[i].base == 0) return 0;
	*base = hc_types[i].base;
	*nbase = hc_types[i].nbase;
	return 1;
}

/* A view of any type's layout. */
typedef struct {
	int64_t size, lb, extent;
	intptr_t base;
	int64_t nbase;
	int contig;
	const hc_blk *blks;
	int nblks;
	hc_blk one;
} hc_tview;

static int hc_view(MPI_Datatype dt, hc_tview *t)
{
	intptr_t v = (intptr_t)dt;
	if (v > 0x200 && v < 0x300) {
		int64_t s = hc_type_size(dt);
		if (s <= 0) return 0;
		t->size = t->extent = s;
		t->lb = 0;
		t->base = v;
		t->nbase = 1;
		t->contig = 1;
		t->one.off = 0;
		t->one.len = s;
		t->blks = &t->one;
		t->nblks = 1;
		return 1;
	}
	int i = hc_type_index(dt);
	if (i < 0) return 0;
	t->size = hc_types[i].size;
	t->lb = hc_types[i].lb;
	t->extent = hc_types[i].extent;
	t->base = hc_types[i].base;
	t->nbase = hc_types[i].nbase;
	t->contig = hc_types[i].contig;
	t->blks = hc_types[i].blks;
	t->nblks = hc_types[i].nblks;
	return 1;
}

int hc_type_contig(MPI_Datatype dt)
{
	intptr_t v = (intptr_t)dt;
	if (v > 0x200 && v < 0x300) return 1;
	int i = hc_type_index(dt);
	return i < 0 || hc_types[i].contig; /* invalid types fail later, on size */
}

void hc_type_pack(MPI_Datatype dt, int64_t count, const void *buf, void *packed)
{
	hc_tview t;
	if (!hc_view(dt, &t)) return;
	char *out = packed;
	const char *in = buf;
	for (int64_t k = 0; k < count; k++, in += t.extent)
		for (int b = 0; b < t.nblks; b++) {
			memcpy(out, in + t.blks[b].off, t.blks[b].len);
			out += t.blks[b].len;
		}
}

void hc_type_unpack(MPI_Datatype dt, int64_t count, const void *packed, int64_t bytes, void *buf)
{
	hc_tview t;
	if (!hc_view(dt, &t)) return;
	const char *in = packed;
	char *out = buf;
	for (int64_t k = 0; k < count && bytes > 0; k++, out += t.extent)
		for (int b = 0; b < t.nblks && bytes > 0; b++) {
			int64_t n = t.blks[b].len < bytes ? t.blks[b].len : bytes;
			memcpy(out + t.blks[b].off, in, n);
			in += n;
			bytes -= n;
		}
}

/* hc_type_segments lists the byte blocks of count elements of dt in
 * type-map order, adjacent blocks merged, as (offset, length) pairs in
 * segs (room for max pairs); it returns how many there are (-1 for an
 * invalid type), which may exceed max: then call again with more room.
 * One-sided operations use it to reach a non-contiguous target. */
HC_HIDDEN int64_t hc_type_segments(MPI_Datatype dt, int64_t count, int64_t *segs, int64_t max)
{
	hc_tview t;
	if (!hc_view(dt, &t)) return -1;
	int64_t n = 0, end = 0;
	for (int64_t k = 0; k < count; k++)
		for (int b = 0; b < t.nblks; b++) {
			int64_t off = k * t.extent + t.blks[b].off, len = t.blks[b].len;
			if (len == 0) continue;
			if (n > 0 && off == end) {
				if (n <= max) segs[2 * (n - 1) + 1] += len;
				end += len;
				continue;
			}
			if (n < max) {
				segs[2 * n] = off;
				segs[2 * n + 1] = len;
			}
			n++;
			end = off + len;
		}
	return n;
}

/* hc_type_build makes the type of count blocks: block i is blens[i]
 * elements of types[i] at byte displacement disps[i]. */
static int hc_type_build(int64_t count, const int64_t *blens, const int64_t *disps, const MPI_Datatype *types,
			 MPI_Datatype *out)
{
	int64_t nb = 0, size = 0, nbase = 0, lb = INT64_MAX, ub = INT64_MIN;
	intptr_t base = -1;
	for (int64_t i = 0; i < count; i++) {
		hc_tview t;
		if (!hc_view(types[i], &t)) return MPI_ERR_TYPE;
		if (blens[i] < 0) return MPI_ERR_COUNT;
		nb += blens[i] * t.nblks;
		size += blens[i] * t.size;
		if (base == -1) base = t.base;
		else if (base != t.base) base = 0;
		nbase += blens[i] * t.nbase;
		int64_t lo = disps[i] + t.lb, hi = disps[i] + t.lb + blens[i] * t.extent;
		if (lo < lb) lb = lo;
		if (hi > ub) ub = hi;
	}
	if (count == 0) lb = ub = 0, base = 0;
	hc_blk *blks = malloc((nb ? nb : 1) * sizeof *blks);
	if (!blks) return MPI_ERR_NO_MEM;
	int n = 0;
	for (int64_t i = 0; i < count; i++) {
		hc_tview t;
		hc_view(types[i], &t);
		for (int64_t j = 0; j < blens[i]; j++)
			for (int b = 0; b < t.nblks; b++) {
				int64_t off = disps[i] + j * t.extent + t.blks[b].off, len = t.blks[b].len;
				if (n > 0 && blks[n - 1].off + blks[n - 1].len == off) blks[n - 1].len += len;
				else blks[n].off = off, blks[n].len = len, n++;
			}
	}
	pthread_mutex_lock(&hc_types_lock);
	for (int i = 1; i < HC_MAX_TYPES; i++) {
		if (!hc_types[i].used) {
			hc_types[i].used = 1;
			hc_types[i].committed = 0;
			hc_types[i].size = size;
			hc_types[i].lb = lb;
			hc_types[i].extent = ub - lb;
			hc_types[i].base = base > 0 ? base : 0;
			hc_types[i].nbase = nbase;
			hc_types[i].blks = blks;
			hc_types[i].nblks = n;
			hc_types[i].contig = lb == 0 && ub - lb == size && (n == 0 || (n == 1 && blks[0].off == 0));
			hc_types[i].name[0] = 0;
			pthread_mutex_unlock(&hc_types_lock);
			*out = (MPI_Datatype)hc_make(HK_TYPE, i);
			return MPI_SUCCESS;
		}
	}
	pthread_mutex_unlock(&hc_types_lock);
	free(blks);
	return MPI_ERR_INTERN;
}

static int64_t hc_type_extent(MPI_Datatype dt)
{
	hc_tview t;
	return hc_view(dt, &t) ? t.extent : -1;
}

/* hc_type_regular builds count blocks of blen elements of old, block i at
 * i * stride bytes. */
static int hc_type_regular(int64_t count, int64_t blen, int64_t stride, MPI_Datatype old, MPI_Datatype *out,
			   const char *fn)
{
	if (count < 0 || blen < 0) return hc_error(-1, MPI_ERR_COUNT, fn);
	if (hc_type_extent(old) < 0) return hc_error(-1, MPI_ERR_TYPE, fn);
	int64_t *bl = malloc((count ? count : 1) * 2 * sizeof(int64_t));
	MPI_Datatype *ty = malloc((count ? count : 1) * sizeof *ty);
	if (!bl || !ty) {
		free(bl);
		free(ty);
		return hc_error(-1, MPI_ERR_NO_MEM, fn);
	}
	for (int64_t i = 0; i < count; i++) bl[i] = blen, bl[count + i] = i * stride, ty[i] = old;
	int rc = hc_type_build(count, bl, bl + count, ty, out);
	free(bl);
	free(ty);
	return rc ? hc_error(-1, rc, fn) : MPI_SUCCESS;
}

/* hc_type_list builds from per-block lengths and displacements (in units
 * of unit bytes; unit 0 means the old type's extent). */
static int hc_type_list(int count, const int *blens, int fixed_blen, const void *disps, int disp_is_aint,
			int64_t unit, MPI_Datatype old, const MPI_Datatype *types, MPI_Datatype *out, const char *fn)
{
	if (count < 0) return hc_error(-1, MPI_ERR_COUNT, fn);
	int64_t *bl = malloc((count ? count : 1) * 2 * sizeof(int64_t));
	MPI_Datatype *ty = malloc((count ? count : 1) * sizeof *ty);
	if (!bl || !ty) {
		free(bl);
		free(ty);
		return hc_error(-1, MPI_ERR_NO_MEM, fn);
	}
	int rc = MPI_SUCCESS;
	for (int i = 0; i < count; i++) {
		ty[i] = types ? types[i] : old;
		int64_t u = unit ? unit : hc_type_extent(ty[i]);
		if (u < 0) {
			rc = MPI_ERR_TYPE;
			break;
		}
		bl[i] = blens ? blens[i] : fixed_blen;
		bl[count + i] = (disp_is_aint ? (int64_t)((const MPI_Aint *)disps)[i] : (int64_t)((const int *)disps)[i]) * u;
	}
	if (!rc) rc = hc_type_build(count, bl, bl + count, ty, out);
	free(bl);
	free(ty);
	return rc ? hc_error(-1, rc, fn) : MPI_SUCCESS;
}

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	return hc_type_regular(1, count, 0, oldtype, newtype, "MPI_Type_contiguous");
}

int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	return hc_type_regular(1, count, 0, oldtype, newtype, "MPI_Type_contiguous_c");
}

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	return hc_type_regular(1, 1, 0, oldtype, newtype, "MPI_Type_dup");
}

int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	return hc_type_regular(count, blocklength, (int64_t)stride * hc_type_extent(oldtype), oldtype, newtype,
			       "MPI_Type_vector");
}

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	return hc_type_regular(count, blocklength, stride, oldtype, newtype, "MPI_Type_create_hvector");
}

int PMPI_Type_indexed(int count, const int array_of_blocklengths[], const int array_of_displacements[],
		      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	return hc_type_list(count, array_of_blocklengths, 0, array_of_displacements, 0, 0, oldtype, NULL, newtype,
			    "MPI_Type_indexed");
}

int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
			      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	return hc_type_list(count, array_of_blocklengths, 0, array_of_displacements, 1, 1, oldtype, NULL, newtype,
			    "MPI_Type_create_hindexed");
}

int PMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[], MPI_Datatype oldtype,
				   MPI_Datatype *newtype)
{
	return hc_type_list(count, NULL, blocklength, array_of_displacements, 0, 0, oldtype, NULL, newtype,
			    "MPI_Type_create_indexed_block");
}

int PMPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint array_of_displacements[],
				    MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	return hc_type_list(count, NULL, blocklength, array_of_displacements, 1, 1, oldtype, NULL, newtype,
			    "MPI_Type_create_hindexed_block");
}

int PMPI_Type_create_struct(int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
			    const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
	return hc_type_list(count, array_of_blocklengths, 0, array_of_displacements, 1, 1, MPI_DATATYPE_NULL,
			    array_of_types, newtype, "MPI_Type_create_struct");
}

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype)
{
	int rc = hc_type_regular(1, 1, 0, oldtype, newtype, "MPI_Type_create_resized");
	if (rc) return rc;
	int i = hc_type_index(*newtype);
	hc_types[i].lb = lb;
	hc_types[i].extent = extent;
	hc_types[i].contig = hc_types[i].contig && lb == 0 && extent == hc_types[i].size;
	return MPI_SUCCESS;
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

int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
	hc_tview t;
	if (!hc_view(datatype, &t)) return hc_error(0, MPI_ERR_TYPE, "MPI_Type_get_extent");
	*lb = t.lb;
	*extent = t.extent;
	return MPI_SUCCESS;
}

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
	MPI_Count l, e;
	int rc = PMPI_Type_get_extent_c(datatype, &l, &e);
	if (rc == MPI_SUCCESS) *lb = l, *extent = e;
	return rc;
}

int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
	return PMPI_Type_get_extent_c(datatype, lb, extent);
}

int PMPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
	hc_tview t;
	if (!hc_view(datatype, &t)) return hc_error(0, MPI_ERR_TYPE, "MPI_Type_get_true_extent");
	int64_t lo = 0, hi = 0;
	for (int b = 0; b < t.nblks; b++) {
		if (b == 0 || t.blks[b].off < lo) lo = t.blks[b].off;
		if (b == 0 || t.blks[b].off + t.blks[b].len > hi) hi = t.blks[b].off + t.blks[b].len;
	}
	*lb = lo;
	*extent = hi - lo;
	return MPI_SUCCESS;
}

int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
	MPI_Count l, e;
	int rc = PMPI_Type_get_true_extent_c(datatype, &l, &e);
	if (rc == MPI_SUCCESS) *lb = l, *extent = e;
	return rc;
}

int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
	return PMPI_Type_get_true_extent_c(datatype, lb, extent);
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
	free(hc_types[i].blks);
	hc_types[i].blks = NULL;
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
