/*
 * info.c — MPI_Info objects: ordered (key, value) lists kept in C. hympi
 * takes hints from none of them, but programs that pass hints must work.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cabi.h"
#include "argcheck.h"

#define HC_MAX_INFOS 1024

typedef struct {
	char *key, *val;
} hc_kv;

static struct {
	int used;
	hc_kv *kv;
	int n, cap;
} hc_infos[HC_MAX_INFOS];
static pthread_mutex_t hc_info_lock = PTHREAD_MUTEX_INITIALIZER;

static int hc_info_index(MPI_Info info)
{
	int i = hc_index(info, HK_INFO);
	if (i < 0 || i >= HC_MAX_INFOS || !hc_infos[i].used) return -1;
	return i;
}

static int hc_info_new(MPI_Info *info)
{
	pthread_mutex_lock(&hc_info_lock);
	for (int i = 1; i < HC_MAX_INFOS; i++) {
		if (!hc_infos[i].used) {
			hc_infos[i].used = 1;
			hc_infos[i].kv = NULL;
			hc_infos[i].n = hc_infos[i].cap = 0;
			pthread_mutex_unlock(&hc_info_lock);
			*info = (MPI_Info)hc_make(HK_INFO, i);
			return MPI_SUCCESS;
		}
	}
	pthread_mutex_unlock(&hc_info_lock);
	return MPI_ERR_NO_MEM;
}

int hc_info_ok(MPI_Info info)
{
	return info == MPI_INFO_NULL || info == MPI_INFO_ENV || hc_info_index(info) >= 0;
}

/* The keys of an info: MPI_INFO_ENV is empty. */
static int hc_info_get(MPI_Info info, int *idx, const char *fn)
{
	*idx = -1;
	if (info == MPI_INFO_ENV) return MPI_SUCCESS;
	*idx = hc_info_index(info);
	return *idx < 0 ? hc_error(-1, MPI_ERR_INFO, fn) : MPI_SUCCESS;
}

static hc_kv *hc_info_find(int i, const char *key)
{
	for (int k = 0; k < hc_infos[i].n; k++)
		if (strcmp(hc_infos[i].kv[k].key, key) == 0) return &hc_infos[i].kv[k];
	return NULL;
}

int PMPI_Info_create(MPI_Info *info)
{
	HC_CHECK_PTR(-1, info, "MPI_Info_create");
	int rc = hc_info_new(info);
	return rc ? hc_error(-1, rc, "MPI_Info_create") : MPI_SUCCESS;
}

int PMPI_Info_create_env(int argc, char *argv[], MPI_Info *info)
{
	(void)argc, (void)argv;
	return PMPI_Info_create(info);
}

int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
	int i = hc_info_index(info);
	if (i < 0) return hc_error(-1, MPI_ERR_INFO, "MPI_Info_set");
	if ((uintptr_t)key < 4096 || !*key || strlen(key) >= MPI_MAX_INFO_KEY)
		return hc_error(-1, MPI_ERR_INFO_KEY, "MPI_Info_set");
	if ((uintptr_t)value < 4096 || strlen(value) >= MPI_MAX_INFO_VAL)
		return hc_error(-1, MPI_ERR_INFO_VALUE, "MPI_Info_set");
	hc_kv *kv = hc_info_find(i, key);
	if (kv) {
		free(kv->val);
		kv->val = strdup(value);
		return MPI_SUCCESS;
	}
	if (hc_infos[i].n == hc_infos[i].cap) {
		int cap = hc_infos[i].cap ? 2 * hc_infos[i].cap : 4;
		hc_kv *p = realloc(hc_infos[i].kv, cap * sizeof *p);
		if (!p) return hc_error(-1, MPI_ERR_NO_MEM, "MPI_Info_set");
		hc_infos[i].kv = p;
		hc_infos[i].cap = cap;
	}
	hc_infos[i].kv[hc_infos[i].n].key = strdup(key);
	hc_infos[i].kv[hc_infos[i].n].val = strdup(value);
	hc_infos[i].n++;
	return MPI_SUCCESS;
}

int PMPI_Info_delete(MPI_Info info, const char *key)
{
	if ((uintptr_t)key < 4096 || !*key || strnlen(key, MPI_MAX_INFO_KEY) >= MPI_MAX_INFO_KEY)
		return hc_arg_fail(-1, MPI_ERR_INFO_KEY, "MPI_Info_delete", "key is NULL, empty or too long");
	int i = hc_info_index(info);
	if (i < 0) return hc_error(-1, MPI_ERR_INFO, "MPI_Info_delete");
	hc_kv *kv = hc_info_find(i, key);
	if (!kv) return hc_error(-1, MPI_ERR_INFO_NOKEY, "MPI_Info_delete");
	free(kv->key);
	free(kv->val);
	int k = (int)(kv - hc_infos[i].kv);
	memmove(kv, kv + 1, (hc_infos[i].n - k - 1) * sizeof *kv);
	hc_infos[i].n--;
	return MPI_SUCCESS;
}

int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
	if ((uintptr_t)key < 4096 || !*key || strnlen(key, MPI_MAX_INFO_KEY) >= MPI_MAX_INFO_KEY)
		return hc_arg_fail(-1, MPI_ERR_INFO_KEY, "MPI_Info_get", "key is NULL, empty or too long");
	HC_CHECK_PTR(-1, flag, "MPI_Info_get");
	if (valuelen < 0) return hc_arg_fail(-1, MPI_ERR_ARG, "MPI_Info_get", "negative valuelen");
	HC_CHECK_PTR(-1, value, "MPI_Info_get");
	int i, rc = hc_info_get(info, &i, "MPI_Info_get");
	if (rc) return rc;
	hc_kv *kv = i < 0 ? NULL : hc_info_find(i, key);
	*flag = kv != NULL;
	if (kv && valuelen >= 0) {
		strncpy(value, kv->val, valuelen);
		value[valuelen] = 0;
	}
	return MPI_SUCCESS;
}

int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag)
{
	if ((uintptr_t)key < 4096 || !*key || strnlen(key, MPI_MAX_INFO_KEY) >= MPI_MAX_INFO_KEY)
		return hc_arg_fail(-1, MPI_ERR_INFO_KEY, "MPI_Info_get_string", "key is NULL, empty or too long");
	HC_CHECK_PTR(-1, flag, "MPI_Info_get_string");
	HC_CHECK_PTR(-1, buflen, "MPI_Info_get_string");
	if (*buflen < 0) return hc_arg_fail(-1, MPI_ERR_ARG, "MPI_Info_get_string", "negative buflen");
	HC_CHECK_ARRAY(-1, value, *buflen, "MPI_Info_get_string");
	int i, rc = hc_info_get(info, &i, "MPI_Info_get_string");
	if (rc) return rc;
	hc_kv *kv = i < 0 ? NULL : hc_info_find(i, key);
	*flag = kv != NULL;
	if (!kv) return MPI_SUCCESS;
	int need = (int)strlen(kv->val) + 1;
	if (*buflen > 0) {
		strncpy(value, kv->val, *buflen - 1);
		value[*buflen - 1] = 0;
	}
	*buflen = need;
	return MPI_SUCCESS;
}

int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
	if ((uintptr_t)key < 4096 || !*key || strnlen(key, MPI_MAX_INFO_KEY) >= MPI_MAX_INFO_KEY)
		return hc_arg_fail(-1, MPI_ERR_INFO_KEY, "MPI_Info_get_valuelen", "key is NULL, empty or too long");
	HC_CHECK_PTR(-1, valuelen, "MPI_Info_get_valuelen");
	HC_CHECK_PTR(-1, flag, "MPI_Info_get_valuelen");
	int i, rc = hc_info_get(info, &i, "MPI_Info_get_valuelen");
	if (rc) return rc;
	hc_kv *kv = i < 0 ? NULL : hc_info_find(i, key);
	*flag = kv != NULL;
	if (kv) *valuelen = (int)strlen(kv->val);
	return MPI_SUCCESS;
}

int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
	HC_CHECK_PTR(-1, nkeys, "MPI_Info_get_nkeys");
	int i, rc = hc_info_get(info, &i, "MPI_Info_get_nkeys");
	if (rc) return rc;
	*nkeys = i < 0 ? 0 : hc_infos[i].n;
	return MPI_SUCCESS;
}

int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
	HC_CHECK_PTR(-1, key, "MPI_Info_get_nthkey");
	int i, rc = hc_info_get(info, &i, "MPI_Info_get_nthkey");
	if (rc) return rc;
	if (i < 0 || n < 0 || n >= hc_infos[i].n) return hc_error(-1, MPI_ERR_ARG, "MPI_Info_get_nthkey");
	strcpy(key, hc_infos[i].kv[n].key);
	return MPI_SUCCESS;
}

int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
	HC_CHECK_PTR(-1, newinfo, "MPI_Info_dup");
	int i, rc = hc_info_get(info, &i, "MPI_Info_dup");
	if (rc) return rc;
	if ((rc = PMPI_Info_create(newinfo))) return rc;
	for (int k = 0; i >= 0 && k < hc_infos[i].n; k++)
		if ((rc = PMPI_Info_set(*newinfo, hc_infos[i].kv[k].key, hc_infos[i].kv[k].val))) return rc;
	return MPI_SUCCESS;
}

int PMPI_Info_free(MPI_Info *info)
{
	HC_CHECK_PTR(-1, info, "MPI_Info_free");
	int i = hc_info_index(*info);
	if (i < 0) return hc_error(-1, MPI_ERR_INFO, "MPI_Info_free");
	pthread_mutex_lock(&hc_info_lock);
	for (int k = 0; k < hc_infos[i].n; k++) {
		free(hc_infos[i].kv[k].key);
		free(hc_infos[i].kv[k].val);
	}
	free(hc_infos[i].kv);
	hc_infos[i].kv = NULL;
	hc_infos[i].n = hc_infos[i].cap = 0;
	hc_infos[i].used = 0;
	pthread_mutex_unlock(&hc_info_lock);
	*info = MPI_INFO_NULL;
	return MPI_SUCCESS;
}

#define HC_ALIASES_info
#include "aliases_gen.h"
