/*
 * dtype_attr.c — attributes on datatypes and their keyvals. Keyvals live
 * in a growable table (freed ones are reused); a keyval freed while types
 * still carry it stays until the last such attribute is deleted, as the
 * standard asks.
 */
#include <stdlib.h>

#include "argcheck.h"
#include "dtype.h"
#include "htab.h"

typedef struct {
	MPI_Type_copy_attr_function *copy;
	MPI_Type_delete_attr_function *del;
	void *extra;
	int refs;  /* the keyval handle itself + attributes using it; under hc_tkv_lock */
	int freed; /* MPI_Type_free_keyval was called; under hc_tkv_lock */
} hc_tkv;

static hc_htab hc_tkvs = HC_HTAB_INIT;
static pthread_mutex_t hc_tkv_lock = PTHREAD_MUTEX_INITIALIZER;

/* Type keyvals are numbered apart from the communicators'. */
#define HC_TKV_BASE 0x10000

static hc_tkv *hc_tkv_get(int keyval)
{
	return keyval > HC_TKV_BASE ? hc_htab_get(&hc_tkvs, keyval - HC_TKV_BASE) : NULL;
}

static void hc_tkv_unref(int keyval)
{
	pthread_mutex_lock(&hc_tkv_lock);
	hc_tkv *k = hc_tkv_get(keyval);
	int gone = k && --k->refs == 0;
	pthread_mutex_unlock(&hc_tkv_lock);
	if (gone) free(hc_htab_del(&hc_tkvs, keyval - HC_TKV_BASE));
}

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
			    MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval, void *extra_state)
{
	HC_CHECK_PTR(-1, type_keyval, "MPI_Type_create_keyval");
	hc_tkv *k = calloc(1, sizeof *k);
	if (!k) return hc_error(-1, MPI_ERR_NO_MEM, "MPI_Type_create_keyval");
	k->copy = type_copy_attr_fn;
	k->del = type_delete_attr_fn;
	k->extra = extra_state;
	k->refs = 1;
	int i = hc_htab_put(&hc_tkvs, k);
	if (i < 0) {
		free(k);
		return hc_error(-1, MPI_ERR_NO_MEM, "MPI_Type_create_keyval");
	}
	*type_keyval = HC_TKV_BASE + i;
	return MPI_SUCCESS;
}

int PMPI_Type_free_keyval(int *type_keyval)
{
	HC_CHECK_PTR(-1, type_keyval, "MPI_Type_free_keyval");
	hc_tkv *k = hc_tkv_get(*type_keyval);
	if (!k) return hc_error(-1, MPI_ERR_KEYVAL, "MPI_Type_free_keyval");
	/* A second free (through a copy of the handle) while attributes still
	 * hold the keyval succeeds and releases nothing, as in MPICH and Open
	 * MPI: dropping the handle's reference twice would free the keyval
	 * under its attributes. */
	pthread_mutex_lock(&hc_tkv_lock);
	int again = k->freed;
	k->freed = 1;
	pthread_mutex_unlock(&hc_tkv_lock);
	if (!again) hc_tkv_unref(*type_keyval);
	*type_keyval = MPI_KEYVAL_INVALID;
	return MPI_SUCCESS;
}

static hc_tattr *hc_tattr_find(hc_dt *t, int keyval)
{
	for (int i = 0; i < t->nattrs; i++)
		if (t->attrs[i].keyval == keyval) return &t->attrs[i];
	return NULL;
}

int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val)
{
	const char *fn = "MPI_Type_set_attr";
	hc_dt *t = hc_dt_get(datatype);
	if (!t) return hc_error(-1, MPI_ERR_TYPE, fn);
	hc_tkv *k = hc_tkv_get(type_keyval);
	if (!k) return hc_error(-1, MPI_ERR_KEYVAL, fn);
	hc_tattr *a = hc_tattr_find(t, type_keyval);
	if (a) {
		/* Replacing a value deletes the old one first. */
		if (k->del) {
			int rc = k->del(datatype, type_keyval, a->value, k->extra);
			if (rc) return hc_error(-1, rc, fn);
		}
		a->value = attribute_val;
		return MPI_SUCCESS;
	}
	if (t->nattrs == t->capattrs) {
		int cap = t->capattrs ? 2 * t->capattrs : 4;
		hc_tattr *n = realloc(t->attrs, cap * sizeof *n);
		if (!n) return hc_error(-1, MPI_ERR_NO_MEM, fn);
		t->attrs = n;
		t->capattrs = cap;
	}
	t->attrs[t->nattrs].keyval = type_keyval;
	t->attrs[t->nattrs].value = attribute_val;
	t->nattrs++;
	pthread_mutex_lock(&hc_tkv_lock);
	k->refs++;
	pthread_mutex_unlock(&hc_tkv_lock);
	return MPI_SUCCESS;
}

int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag)
{
	const char *fn = "MPI_Type_get_attr";
	hc_dt *t = hc_dt_get(datatype);
	if (!t) return hc_error(-1, MPI_ERR_TYPE, fn);
	if (!hc_tkv_get(type_keyval)) return hc_error(-1, MPI_ERR_KEYVAL, fn);
	HC_CHECK_PTR(-1, attribute_val, fn);
	HC_CHECK_PTR(-1, flag, fn);
	hc_tattr *a = hc_tattr_find(t, type_keyval);
	*flag = a != NULL;
	if (a) *(void **)attribute_val = a->value;
	return MPI_SUCCESS;
}

/* hc_tattr_remove drops attribute a of t after its delete callback
 * succeeded. */
static void hc_tattr_remove(hc_dt *t, hc_tattr *a)
{
	int keyval = a->keyval;
	*a = t->attrs[--t->nattrs];
	hc_tkv_unref(keyval);
}

int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval)
{
	const char *fn = "MPI_Type_delete_attr";
	hc_dt *t = hc_dt_get(datatype);
	if (!t) return hc_error(-1, MPI_ERR_TYPE, fn);
	hc_tkv *k = hc_tkv_get(type_keyval);
	if (!k) return hc_error(-1, MPI_ERR_KEYVAL, fn);
	hc_tattr *a = hc_tattr_find(t, type_keyval);
	if (!a) return hc_error(-1, MPI_ERR_KEYVAL, fn);
	if (k->del) {
		int rc = k->del(datatype, type_keyval, a->value, k->extra);
		if (rc) return hc_error(-1, rc, fn);
	}
	hc_tattr_remove(t, a);
	return MPI_SUCCESS;
}

/* Called by MPI_Type_free: every attribute's delete callback runs. */
void hc_dt_delete_attrs(MPI_Datatype dt, hc_dt *t)
{
	while (t->nattrs > 0) {
		hc_tattr *a = &t->attrs[t->nattrs - 1];
		hc_tkv *k = hc_tkv_get(a->keyval);
		if (k && k->del) k->del(dt, a->keyval, a->value, k->extra);
		hc_tattr_remove(t, a);
	}
}

/* Called by MPI_Type_dup: each keyval's copy callback decides. */
int hc_dt_copy_attrs(MPI_Datatype from, hc_dt *src, MPI_Datatype to, hc_dt *dst)
{
	(void)to;
	for (int i = 0; i < src->nattrs; i++) {
		int keyval = src->attrs[i].keyval;
		hc_tkv *k = hc_tkv_get(keyval);
		if (!k || k->copy == MPI_TYPE_NULL_COPY_FN) continue;
		void *out = NULL;
		int flag = 0;
		if (k->copy == MPI_TYPE_DUP_FN) {
			out = src->attrs[i].value;
			flag = 1;
		} else {
			int rc = k->copy(from, keyval, k->extra, src->attrs[i].value, &out, &flag);
			if (rc) return rc;
		}
		if (flag) {
			int rc = PMPI_Type_set_attr(to, keyval, out);
			if (rc) return rc;
		}
	}
	(void)dst;
	return MPI_SUCCESS;
}

#define HC_ALIASES_dtype_attr
#include "aliases_gen.h"
