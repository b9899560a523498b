/*
 * dtype.c — datatype objects: the handle table, the predefined types as
 * objects, layout, walking the typemap, packing, and the queries that only
 * read a type (size, extent, counts from statuses). Constructors are in
 * dtype_ctor.c.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argcheck.h"
#include "dtype.h"
#include "htab.h"
#include "_cgo_export.h"
#include "golane.h"

static hc_htab hc_dtab = HC_HTAB_INIT;

/* ---- predefined types ------------------------------------------------- */

static hc_dt hc_pdt[0x100];
static hc_dt *hc_pair_kids[0x100][2];
static int64_t hc_pair_disps[0x100][2];
static int64_t hc_pair_one[2] = {1, 1};
static pthread_once_t hc_pdt_once = PTHREAD_ONCE_INIT;
static int hc_pdt_ready; /* __atomic: hc_pdt_init has run (saves pthread_once on every call) */

struct hc_pair_fi { float v; int i; };
struct hc_pair_di { double v; int i; };
struct hc_pair_li { long v; int i; };
struct hc_pair_si { short v; int i; };
struct hc_pair_ldi { long double v; int i; };

static const struct {
	intptr_t h, v, i;
	int64_t ioff, extent, align;
} hc_pairs[] = {
	{(intptr_t)MPI_FLOAT_INT, (intptr_t)MPI_FLOAT, (intptr_t)MPI_INT, offsetof(struct hc_pair_fi, i),
	 sizeof(struct hc_pair_fi), _Alignof(struct hc_pair_fi)},
	{(intptr_t)MPI_DOUBLE_INT, (intptr_t)MPI_DOUBLE, (intptr_t)MPI_INT, offsetof(struct hc_pair_di, i),
	 sizeof(struct hc_pair_di), _Alignof(struct hc_pair_di)},
	{(intptr_t)MPI_LONG_INT, (intptr_t)MPI_LONG, (intptr_t)MPI_INT, offsetof(struct hc_pair_li, i),
	 sizeof(struct hc_pair_li), _Alignof(struct hc_pair_li)},
	{(intptr_t)MPI_SHORT_INT, (intptr_t)MPI_SHORT, (intptr_t)MPI_INT, offsetof(struct hc_pair_si, i),
	 sizeof(struct hc_pair_si), _Alignof(struct hc_pair_si)},
	{(intptr_t)MPI_LONG_DOUBLE_INT, (intptr_t)MPI_LONG_DOUBLE, (intptr_t)MPI_INT, offsetof(struct hc_pair_ldi, i),
	 sizeof(struct hc_pair_ldi), _Alignof(struct hc_pair_ldi)},
	{(intptr_t)MPI_2INT, (intptr_t)MPI_INT, (intptr_t)MPI_INT, sizeof(int), 2 * sizeof(int), _Alignof(int)},
	{(intptr_t)MPI_2REAL, (intptr_t)MPI_REAL, (intptr_t)MPI_REAL, sizeof(float), 2 * sizeof(float), _Alignof(float)},
	{(intptr_t)MPI_2DOUBLE_PRECISION, (intptr_t)MPI_DOUBLE_PRECISION, (intptr_t)MPI_DOUBLE_PRECISION, sizeof(double),
	 2 * sizeof(double), _Alignof(double)},
	{(intptr_t)MPI_2INTEGER, (intptr_t)MPI_INTEGER, (intptr_t)MPI_INTEGER, sizeof(int), 2 * sizeof(int), _Alignof(int)},
};

static void hc_pdt_init(void)
{
	for (int h = 0x201; h < 0x300; h++) {
		int size, align;
		const char *name;
		hc_dt *t = &hc_pdt[h - 0x200];
		t->predefined = 1;
		t->handle = h;
		t->combiner = MPI_COMBINER_NAMED;
		t->committed = 1;
		if (!hc_ptype_info(h, &size, &align, &name)) continue;
		snprintf(t->name, sizeof t->name, "%s", name);
		if (size <= 0) continue;
		t->size = t->ub = t->tub = size;
		t->align = align;
		t->nelems = 1;
		t->base = h;
		t->nbase = 1;
		t->leaf = 1;
		t->dense = 1;
	}
	for (size_t k = 0; k < sizeof hc_pairs / sizeof hc_pairs[0]; k++) {
		intptr_t h = hc_pairs[k].h;
		hc_dt *t = &hc_pdt[h - 0x200], *v = &hc_pdt[hc_pairs[k].v - 0x200], *i = &hc_pdt[hc_pairs[k].i - 0x200];
		hc_pair_kids[h - 0x200][0] = v;
		hc_pair_kids[h - 0x200][1] = i;
		hc_pair_disps[h - 0x200][1] = hc_pairs[k].ioff;
		t->n = 2;
		t->kids = hc_pair_kids[h - 0x200];
		t->blens = hc_pair_one;
		t->disps = hc_pair_disps[h - 0x200];
		t->size = v->size + i->size;
		t->ub = hc_pairs[k].extent;
		t->tub = hc_pairs[k].ioff + i->size;
		t->align = hc_pairs[k].align;
		t->nelems = 2;
		t->base = h;
		t->nbase = 1;
		t->leaf = 0;
		t->dense = t->size == t->ub;
	}
	__atomic_store_n(&hc_pdt_ready, 1, __ATOMIC_RELEASE);
}

/* An internal handle (a pending operation's hold on a type) is tagged in
 * its table slot, so that releasing it can never free a user's handle. */
#define HC_DT_HOLD ((uintptr_t)1)

static hc_dt *hc_dt_slot(MPI_Datatype dt, int *hold)
{
	intptr_t v = (intptr_t)dt;
	if (v > 0x200 && v < 0x300) {
		if (__builtin_expect(!__atomic_load_n(&hc_pdt_ready, __ATOMIC_ACQUIRE), 0))
			pthread_once(&hc_pdt_once, hc_pdt_init);
		if (hold) *hold = 0;
		hc_dt *t = &hc_pdt[v - 0x200];
		return t->size > 0 || t->name[0] ? t : NULL;
	}
	int i = hc_index(dt, HK_TYPE);
	if (i <= 0) return NULL;
	uintptr_t p = (uintptr_t)hc_htab_get(&hc_dtab, i);
	if (hold) *hold = (p & HC_DT_HOLD) != 0;
	return (hc_dt *)(p & ~HC_DT_HOLD);
}

hc_dt *hc_dt_get(MPI_Datatype dt)
{
	hc_dt *t = hc_dt_slot(dt, NULL);
	/* An optional predefined type hympi cannot move has a name only. */
	return t && (!t->predefined || t->size > 0) ? t : NULL;
}

/* hc_dt_named also finds the unsupported optional predefined types, which
 * have names. */
static hc_dt *hc_dt_named(MPI_Datatype dt) { return hc_dt_slot(dt, NULL); }

intptr_t hc_dt_predef_handle(const hc_dt *t) { return t->handle; }

void hc_dt_ref(hc_dt *t)
{
	if (!t->predefined) __atomic_add_fetch(&t->refs, 1, __ATOMIC_RELAXED);
}

void hc_dt_unref(hc_dt *t)
{
	if (!t || t->predefined || __atomic_sub_fetch(&t->refs, 1, __ATOMIC_ACQ_REL) != 0) return;
	if (t->kids) {
		for (int64_t i = 0; i < t->n; i++) hc_dt_unref(t->kids[i]);
	} else {
		hc_dt_unref(t->kid);
	}
	for (int64_t i = 0; i < t->nd; i++) hc_dt_unref(t->dts[i]);
	free(t->kids);
	free(t->blens);
	free(t->disps);
	free(t->ints);
	free(t->addrs);
	free(t->counts);
	free(t->dts);
	free(t->attrs);
	free(t);
}

hc_dt *hc_dt_alloc(void)
{
	hc_dt *t = calloc(1, sizeof *t);
	if (t) t->refs = 1;
	return t;
}

int hc_dt_publish(hc_dt *t, MPI_Datatype *out)
{
	int i = hc_htab_put(&hc_dtab, t);
	if (i < 0) return MPI_ERR_NO_MEM;
	*out = (MPI_Datatype)hc_make(HK_TYPE, i);
	return MPI_SUCCESS;
}

static inline int64_t hc_min(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t hc_max(int64_t a, int64_t b) { return a > b ? a : b; }

void hc_dt_finish(hc_dt *t)
{
	int64_t size = 0, nelems = 0, nbase = 0, align = 1;
	int64_t lb = 0, ub = 0, tlb = 0, tub = 0;
	intptr_t base = -1;
	int any = 0, anydata = 0, dense = 1;
	int64_t end = 0;
	/* A regular type has the same block everywhere: its bounds are at the
	 * first or the last block, whatever the count. */
	int regular = !t->kids && !t->blens && !t->disps;
	int64_t nb = regular ? (t->n > 0 ? (t->n > 1 ? 2 : 1) : 0) : t->n;
	for (int64_t k = 0; k < nb; k++) {
		int64_t i = regular && k == 1 ? t->n - 1 : k;
		hc_dt *kd = hc_dt_kid(t, i);
		int64_t bl = hc_dt_blen(t, i), d = hc_dt_disp(t, i), e = hc_dt_extent(kd);
		if (kd->align > align) align = kd->align;
		if (base == -1) base = kd->base;
		else if (base != kd->base) base = 0;
		if (bl <= 0) continue; /* empty blocks have no say in the bounds */
		int64_t jlo = hc_min(0, (bl - 1) * e), jhi = hc_max(0, (bl - 1) * e);
		int64_t lo = d + jlo + kd->lb, hi = d + jhi + kd->ub;
		lb = any ? hc_min(lb, lo) : lo;
		ub = any ? hc_max(ub, hi) : hi;
		any = 1;
		if (kd->size > 0) {
			int64_t tlo = d + jlo + kd->tlb, thi = d + jhi + kd->tub;
			tlb = anydata ? hc_min(tlb, tlo) : tlo;
			tub = anydata ? hc_max(tub, thi) : thi;
			/* Dense so far if this block's data follows the last one's. */
			int64_t start = d + kd->lb;
			if (!kd->dense || (!regular && anydata && start != end) ||
			    (regular && t->n > 1 && t->stride != bl * kd->size))
				dense = 0;
			end = start + bl * kd->size;
			anydata = 1;
		}
	}
	if (regular) {
		if (t->n > 0) {
			hc_dt *kd = t->kid;
			size = t->n * t->blen * kd->size;
			nelems = t->n * t->blen * kd->nelems;
			nbase = t->n * t->blen * kd->nbase;
		}
	} else {
		for (int64_t i = 0; i < t->n; i++) {
			hc_dt *kd = hc_dt_kid(t, i);
			int64_t bl = hc_dt_blen(t, i);
			size += bl * kd->size;
			nelems += bl * kd->nelems;
			nbase += bl * kd->nbase;
		}
	}
	if (base == -1) base = 0;
	t->size = size;
	t->nelems = nelems;
	t->base = base;
	t->nbase = base ? nbase : 0;
	t->align = align;
	t->lb = lb;
	t->ub = ub;
	t->tlb = tlb;
	t->tub = tub;
	/* C pads a struct to its strictest member's alignment; MPICH and Open
	 * MPI give a struct type the same extent. */
	if (t->combiner == MPI_COMBINER_STRUCT && align > 1) {
		int64_t ext = ub - lb, r = ext % align;
		if (ext > 0 && r) t->ub += align - r;
	}
	t->dense = dense && size == t->ub - t->lb && (size == 0 || t->tlb == t->lb);
	t->leaf = 0;
}

/* ---- walking and packing ---------------------------------------------- */

int hc_dt_walk(const hc_dt *t, int64_t off, int64_t count, int coarse, hc_walk_fn fn, void *ctx)
{
	if (count <= 0 || t->size == 0) return 0;
	if (t->leaf || (coarse && t->dense)) return fn(ctx, off + t->lb, count * t->size, t, count);
	int64_t ext = hc_dt_extent(t);
	for (int64_t k = 0; k < count; k++) {
		int64_t eo = off + k * ext;
		for (int64_t i = 0; i < t->n; i++) {
			int rc = hc_dt_walk(hc_dt_kid(t, i), eo + hc_dt_disp(t, i), hc_dt_blen(t, i), coarse, fn, ctx);
			if (rc) return rc;
		}
	}
	return 0;
}

typedef struct {
	char *user;
	char *packed;
	int64_t left;
	int unpack;
} hc_packctx;

static int hc_pack_run(void *c, int64_t off, int64_t bytes, const hc_dt *leaf, int64_t count)
{
	(void)leaf;
	(void)count;
	hc_packctx *p = c;
	int64_t n = bytes < p->left ? bytes : p->left;
	if (p->unpack) memcpy(p->user + off, p->packed, n);
	else memcpy(p->packed, p->user + off, n);
	p->packed += n;
	p->left -= n;
	return p->left == 0;
}

void hc_dt_pack(const hc_dt *t, int64_t count, const void *buf, void *packed, int64_t bytes)
{
	hc_packctx p = {(char *)buf, packed, bytes, 0};
	if (bytes > 0) hc_dt_walk(t, 0, count, 1, hc_pack_run, &p);
}

void hc_dt_unpack(const hc_dt *t, int64_t count, const void *packed, int64_t bytes, void *buf)
{
	hc_packctx p = {buf, (char *)packed, bytes, 1};
	if (bytes > 0) hc_dt_walk(t, 0, count, 1, hc_pack_run, &p);
}

/* ---- the interface of cabi.h ------------------------------------------ */

int64_t hc_type_size(MPI_Datatype dt)
{
	hc_dt *t = hc_dt_get(dt);
	return t ? t->size : -1;
}

int hc_type_base(MPI_Datatype dt, intptr_t *base, int64_t *nbase)
{
	hc_dt *t = hc_dt_get(dt);
	if (!t || !t->base) return 0;
	*base = t->base;
	*nbase = t->nbase;
	return 1;
}

int hc_type_contig(MPI_Datatype dt)
{
	hc_dt *t = hc_dt_get(dt);
	return !t || (t->dense && t->lb == 0); /* invalid types fail later, on size */
}

/* Messages need a committed type; sizes and extents may be asked of any. */
int64_t hc_type_msg_size(MPI_Datatype dt)
{
	hc_dt *t = hc_dt_get(dt);
	return t && t->committed ? t->size : -1;
}

/* A NULL buffer is legal when the type's displacements are absolute
 * addresses (MPI_BOTTOM): refuse only an access that would start in the
 * never-mapped first page, which also catches MPI_IN_PLACE (1) where it is
 * not allowed. Called only for buffers below 4096. */
int hc_buf_bad(const void *buf, int64_t count, MPI_Datatype dt)
{
	hc_dt *t = hc_dt_get(dt);
	if (count <= 0 || !t || t->size == 0) return 0;
	int64_t first = t->tlb;
	if (hc_dt_extent(t) < 0) first += (count - 1) * hc_dt_extent(t);
	int64_t a = (int64_t)(uintptr_t)buf + first;
	return a >= -4096 && a < 4096;
}

void hc_type_pack(MPI_Datatype dt, int64_t count, const void *buf, void *packed)
{
	hc_dt *t = hc_dt_get(dt);
	if (t) hc_dt_pack(t, count, buf, packed, count * t->size);
}

void hc_type_unpack(MPI_Datatype dt, int64_t count, const void *packed, int64_t bytes, void *buf)
{
	hc_dt *t = hc_dt_get(dt);
	if (t) hc_dt_unpack(t, count, packed, bytes, buf);
}

intptr_t hc_type_hold(MPI_Datatype dt)
{
	hc_dt *t = hc_dt_get(dt);
	if (!t || t->predefined) return (intptr_t)dt;
	hc_dt_ref(t);
	int i = hc_htab_put(&hc_dtab, (void *)((uintptr_t)t | HC_DT_HOLD));
	if (i < 0) {
		/* Out of memory: fall back to the caller's handle. */
		hc_dt_unref(t);
		return (intptr_t)dt;
	}
	return hc_make(HK_TYPE, i);
}

void hc_type_release(intptr_t h)
{
	int hold = 0;
	hc_dt *t = hc_dt_slot((MPI_Datatype)h, &hold);
	if (!t || !hold) return;
	hc_htab_del(&hc_dtab, hc_index((MPI_Datatype)h, HK_TYPE));
	hc_dt_unref(t);
}

/* hc_red_apply reduces n elements of dt as the engine holds them: laid out
 * as in memory when dt is contiguous, packed otherwise. A user function
 * gets them in dt's own layout; a predefined operator runs on the base
 * elements, laid out as the base type is. */
static void red_apply(uintptr_t ufn, int big, intptr_t op, intptr_t dt, void *in, void *inout, int64_t n);

/* A user function runs with Go below it on the stack: hc_in_callback keeps
 * the receive lane from queueing any MPI_Irecv it makes (fastlane.h). */
void hc_red_apply(uintptr_t ufn, int big, intptr_t op, intptr_t dt, void *in, void *inout, int64_t n)
{
	hc_in_callback++;
	red_apply(ufn, big, op, dt, in, inout, n);
	hc_in_callback--;
}

static void red_apply(uintptr_t ufn, int big, intptr_t op, intptr_t dt, void *in, void *inout, int64_t n)
{
	hc_dt *t = hc_dt_get((MPI_Datatype)dt);
	if (!t || n <= 0) return;
	hc_dt *lay = t;
	int64_t m = n;
	if (!ufn) {
		lay = hc_dt_get((MPI_Datatype)t->base);
		if (!lay) return;
		m = n * t->nbase;
	}
	int direct = ufn ? (lay->dense && lay->lb == 0) : lay->dense;
	if (direct) {
		if (ufn) hc_user_apply(ufn, big, in, inout, n, dt);
		else hc_builtin_apply(op, t->base, in, inout, m);
		return;
	}
	int64_t e = hc_dt_extent(lay);
	int64_t lo = hc_min(lay->tlb, (m - 1) * e + lay->tlb), hi = hc_max(lay->tub, (m - 1) * e + lay->tub);
	/* The pair kernels copy whole C structs, padding included, and a
	 * user function may do the same: the last element gets a full
	 * extent past its true upper bound (DOUBLE_INT: 12 bytes of data in
	 * 16). */
	int64_t span = (hi - lo > 0 ? hi - lo : 1) + (e > 0 ? e : 0);
	char *a = calloc(1, span), *b = calloc(1, span);
	if (a && b) {
		int64_t bytes = m * lay->size;
		hc_dt_unpack(lay, m, in, bytes, a - lo);
		hc_dt_unpack(lay, m, inout, bytes, b - lo);
		if (ufn) hc_user_apply(ufn, big, a - lo, b - lo, n, dt);
		else hc_builtin_apply(op, t->base, a - lo, b - lo, m);
		hc_dt_pack(lay, m, b - lo, inout, bytes);
	}
	free(a);
	free(b);
}

/* ---- queries ---------------------------------------------------------- */

#define TYPE_OR_FAIL(t, dt, fn)                                  \
	hc_dt *t = hc_dt_get(dt);                                \
	if (!t) return hc_error(-1, MPI_ERR_TYPE, fn)

int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size)
{
	TYPE_OR_FAIL(t, datatype, "MPI_Type_size_c");
	HC_CHECK_PTR(-1, size, "MPI_Type_size_c");
	*size = t->size;
	return MPI_SUCCESS;
}

int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
	TYPE_OR_FAIL(t, datatype, "MPI_Type_size");
	HC_CHECK_PTR(-1, size, "MPI_Type_size");
	*size = t->size > 0x7fffffff ? MPI_UNDEFINED : (int)t->size;
	return MPI_SUCCESS;
}

int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size) { return PMPI_Type_size_c(datatype, size); }

int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
	TYPE_OR_FAIL(t, datatype, "MPI_Type_get_extent");
	HC_CHECK_PTR(-1, lb, "MPI_Type_get_extent");
	HC_CHECK_PTR(-1, extent, "MPI_Type_get_extent");
	*lb = t->lb;
	*extent = hc_dt_extent(t);
	return MPI_SUCCESS;
}

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
	MPI_Count l = 0, e = 0; /* set on success only; inlining makes gcc unsure */
	HC_CHECK_PTR(-1, lb, "MPI_Type_get_extent");
	HC_CHECK_PTR(-1, extent, "MPI_Type_get_extent");
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
	TYPE_OR_FAIL(t, datatype, "MPI_Type_get_true_extent");
	HC_CHECK_PTR(-1, lb, "MPI_Type_get_true_extent");
	HC_CHECK_PTR(-1, extent, "MPI_Type_get_true_extent");
	*lb = t->tlb;
	*extent = t->tub - t->tlb;
	return MPI_SUCCESS;
}

int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
	MPI_Count l = 0, e = 0;
	HC_CHECK_PTR(-1, lb, "MPI_Type_get_true_extent");
	HC_CHECK_PTR(-1, extent, "MPI_Type_get_true_extent");
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
	hc_dt *t = hc_dt_named(datatype);
	if (!t) return hc_error(-1, MPI_ERR_TYPE, "MPI_Type_get_name");
	HC_CHECK_PTR(-1, type_name, "MPI_Type_get_name");
	HC_CHECK_PTR(-1, resultlen, "MPI_Type_get_name");
	snprintf(type_name, MPI_MAX_OBJECT_NAME, "%s", t->name);
	*resultlen = (int)strlen(type_name);
	return MPI_SUCCESS;
}

int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
	hc_dt *t = hc_dt_named(datatype);
	if (!t) return hc_error(-1, MPI_ERR_TYPE, "MPI_Type_set_name");
	HC_CHECK_PTR(-1, type_name, "MPI_Type_set_name");
	snprintf(t->name, MPI_MAX_OBJECT_NAME, "%s", type_name);
	return MPI_SUCCESS;
}

int PMPI_Type_commit(MPI_Datatype *datatype)
{
	HC_CHECK_PTR(-1, datatype, "MPI_Type_commit");
	TYPE_OR_FAIL(t, *datatype, "MPI_Type_commit");
	t->committed = 1;
	return MPI_SUCCESS;
}

HC_HIDDEN void hc_dt_delete_attrs(MPI_Datatype dt, hc_dt *t);

int PMPI_Type_free(MPI_Datatype *datatype)
{
	HC_GUARD("MPI_Type_free"); /* it tells Go (hympi_go_type_freed) */
	HC_CHECK_PTR(-1, datatype, "MPI_Type_free");
	int hold = 0;
	hc_dt *t = hc_dt_slot(*datatype, &hold);
	if (!t || t->predefined || hold) return hc_error(-1, MPI_ERR_TYPE, "MPI_Type_free");
	hc_dt_delete_attrs(*datatype, t);
	hympi_go_type_freed((intptr_t)*datatype);
	hc_htab_del(&hc_dtab, hc_index(*datatype, HK_TYPE));
	hc_dt_unref(t);
	*datatype = MPI_DATATYPE_NULL;
	return MPI_SUCCESS;
}

/* ---- counts from statuses --------------------------------------------- */

static int64_t hc_status_bytes(const MPI_Status *st)
{
	int64_t b;
	__builtin_memcpy(&b, &st->MPI_internal[0], sizeof b);
	return b;
}

int PMPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
	TYPE_OR_FAIL(t, datatype, "MPI_Get_count");
	HC_CHECK_PTR(-1, status, "MPI_Get_count");
	HC_CHECK_PTR(-1, count, "MPI_Get_count");
	int64_t b = hc_status_bytes(status);
	if (t->size == 0) *count = 0;
	else *count = b % t->size ? MPI_UNDEFINED : b / t->size;
	return MPI_SUCCESS;
}

int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
	MPI_Count c = 0;
	HC_CHECK_PTR(-1, count, "MPI_Get_count");
	int rc = PMPI_Get_count_c(status, datatype, &c);
	if (rc == MPI_SUCCESS) *count = c > 0x7fffffff ? MPI_UNDEFINED : (int)c;
	return rc;
}

/* hc_prefix_elems counts the basic elements in the first bytes bytes of
 * one element of t (bytes < t->size), in typemap order; *partial is set
 * when bytes ends inside a basic element. Whole blocks and whole kid
 * elements are skipped by arithmetic, so a regular type costs its depth,
 * not its count. */
static int64_t hc_prefix_elems(const hc_dt *t, int64_t bytes, int *partial)
{
	if (bytes <= 0) return 0;
	if (t->leaf) {
		*partial |= bytes % t->size != 0;
		return bytes / t->size;
	}
	int64_t elems = 0;
	for (int64_t i = 0; i < t->n && bytes > 0; i++) {
		hc_dt *kd = hc_dt_kid(t, i);
		int64_t bl = hc_dt_blen(t, i), bsize = bl * kd->size;
		if (!t->blens && !t->kids && kd->size > 0 && bsize > 0) {
			/* Regular: all blocks alike. */
			int64_t whole = bytes / bsize;
			if (whole > t->n - i) whole = t->n - i;
			elems += whole * bl * kd->nelems;
			bytes -= whole * bsize;
			i += whole;
			if (i >= t->n || bytes <= 0) break;
		}
		if (bytes >= bsize) {
			elems += bl * kd->nelems;
			bytes -= bsize;
			continue;
		}
		int64_t k = kd->size > 0 ? bytes / kd->size : 0;
		elems += k * kd->nelems;
		bytes -= k * kd->size;
		elems += hc_prefix_elems(kd, bytes, partial);
		bytes = 0;
	}
	return elems;
}

int PMPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
	TYPE_OR_FAIL(t, datatype, "MPI_Get_elements");
	HC_CHECK_PTR(-1, status, "MPI_Get_elements");
	HC_CHECK_PTR(-1, count, "MPI_Get_elements");
	int64_t b = hc_status_bytes(status);
	if (t->size == 0) {
		*count = 0;
		return MPI_SUCCESS;
	}
	int partial = 0;
	int64_t elems = (b / t->size) * t->nelems + hc_prefix_elems(t, b % t->size, &partial);
	*count = partial ? MPI_UNDEFINED : elems;
	return MPI_SUCCESS;
}

int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
	MPI_Count c;
	HC_CHECK_PTR(-1, count, "MPI_Get_elements");
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
	TYPE_OR_FAIL(t, datatype, "MPI_Status_set_elements");
	HC_CHECK_PTR(-1, status, "MPI_Status_set_elements");
	HC_CHECK_COUNT(-1, count, "MPI_Status_set_elements");
	/* count elements of the datatype, as MPICH and Open MPI read it (their
	 * test suites check that Get_count then returns count). */
	int64_t b = count * t->size;
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

#define HC_ALIASES_dtype
#include "aliases_gen.h"
