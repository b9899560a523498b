/*
 * dtype.h — datatype objects, shared by the dtype_*.c files.
 *
 * A datatype is a tree: n blocks, block i holding blen(i) elements of
 * kid(i) at byte displacement disp(i); leaves are the basic predefined
 * types. Regular types (contiguous, vector, hvector) store one length and a
 * stride, so their size in memory does not grow with their count; only
 * list constructors (indexed, struct, ...) keep arrays, as long as the
 * caller's. Handles point to objects through a growable table (htab.c);
 * an object counts its references (handles, types built from it, pending
 * operations) and lives until the last goes.
 */
#ifndef HYMPI_DTYPE_H
#define HYMPI_DTYPE_H

#include "cabi.h"

typedef struct hc_dt hc_dt;

typedef struct {
	int keyval;
	void *value;
} hc_tattr;

struct hc_dt {
	int refs;       /* __atomic; predefined objects are never released */
	int predefined; /* never freed: a predefined type (or an F90 one) */
	intptr_t handle; /* its one handle, when predefined */
	int combiner;   /* MPI_COMBINER_* */
	int committed;

	/* One element: size bytes of data; lb/ub the bounds whose difference
	 * is the extent; tlb/tub the true bounds of the data; align the
	 * strictest alignment of a basic type inside (for struct padding). */
	int64_t size, lb, ub, tlb, tub, align;
	int64_t nelems; /* basic elements in one element */
	intptr_t base;  /* the predefined type all of it is made of, or 0 */
	int64_t nbase;  /* how many base elements one element holds */
	int leaf;       /* a basic predefined type: size bytes at 0 */
	int dense;      /* data is exactly [lb, lb + size) in typemap order, and extent == size */

	int64_t n;             /* blocks */
	int64_t blen;          /* every block's length (when blens == NULL) */
	int64_t stride;        /* disp(i) = i * stride (when disps == NULL) */
	int64_t *blens, *disps;
	hc_dt *kid;   /* every block's type (when kids == NULL) */
	hc_dt **kids;

	/* The constructor's arguments, for Type_get_envelope/contents. */
	int64_t ni, na, nc, nd;
	int *ints;
	MPI_Aint *addrs;
	MPI_Count *counts;
	hc_dt **dts; /* each holds a reference */

	char name[MPI_MAX_OBJECT_NAME];
	hc_tattr *attrs;
	int nattrs, capattrs;
};

static inline int64_t hc_dt_extent(const hc_dt *t) { return t->ub - t->lb; }
static inline hc_dt *hc_dt_kid(const hc_dt *t, int64_t i) { return t->kids ? t->kids[i] : t->kid; }
static inline int64_t hc_dt_blen(const hc_dt *t, int64_t i) { return t->blens ? t->blens[i] : t->blen; }
static inline int64_t hc_dt_disp(const hc_dt *t, int64_t i) { return t->disps ? t->disps[i] : i * t->stride; }

/* hc_dt_get: the object behind a handle (NULL if none). */
HC_HIDDEN hc_dt *hc_dt_get(MPI_Datatype dt);
HC_HIDDEN void hc_dt_ref(hc_dt *t);
HC_HIDDEN void hc_dt_unref(hc_dt *t);
/* The handle of a predefined type's object. */
HC_HIDDEN intptr_t hc_dt_predef_handle(const hc_dt *t);
/* hc_dt_alloc makes an empty object with one reference. */
HC_HIDDEN hc_dt *hc_dt_alloc(void);
/* hc_dt_finish computes the layout of a filled-in object (kids set). */
HC_HIDDEN void hc_dt_finish(hc_dt *t);
/* hc_dt_publish gives t (and its reference) a new handle. */
HC_HIDDEN int hc_dt_publish(hc_dt *t, MPI_Datatype *out);

/* Walking the typemap in order: fn gets runs of bytes (off from the
 * buffer's start, bytes long, made of count elements of leaf when leaf is
 * a basic type) and returns non-zero to stop. With coarse, a dense subtree
 * is one run and leaf may be any dense type. */
typedef int (*hc_walk_fn)(void *ctx, int64_t off, int64_t bytes, const hc_dt *leaf, int64_t count);
HC_HIDDEN int hc_dt_walk(const hc_dt *t, int64_t off, int64_t count, int coarse, hc_walk_fn fn, void *ctx);
/* Pack/unpack count elements; at most bytes bytes of packed data. */
HC_HIDDEN void hc_dt_pack(const hc_dt *t, int64_t count, const void *buf, void *packed, int64_t bytes);
HC_HIDDEN void hc_dt_unpack(const hc_dt *t, int64_t count, const void *packed, int64_t bytes, void *buf);

/* The predefined types' table (types.c): size and alignment by handle,
 * 0 when hympi does not support the type. */
HC_HIDDEN int hc_ptype_info(intptr_t h, int *size, int *align, const char **name);

#endif
