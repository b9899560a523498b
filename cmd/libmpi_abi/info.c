/*
 * info.c — MPI_Info objects: ordered (key, value) lists kept in C, in a
 * growable table (htab.c). hympi takes hints from none of them, but
 * programs that pass hints must work. MPI_INFO_ENV holds the keys the
 * standard reserves for the process's environment, built on first use.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cabi.h"
#include "argcheck.h"
#include "htab.h"

typedef struct {
	char *key, *val;
} hc_kv;

typedef struct {
	pthread_mutex_t mu;
	hc_kv *kv;
	int n, cap;
} hc_info;

static hc_htab hc_infos = HC_HTAB_INIT;
static hc_info hc_env_info = {.mu = PTHREAD_MUTEX_INITIALIZER};
static pthread_once_t hc_env_once = PTHREAD_ONCE_INIT;

static int hc_info_put(hc_info *in, const char *key, const char *value);

/* The environment as MPI_INFO_ENV reports it: the command and its
 * arguments, as the kernel saw them, and the job's shape. */
static void hc_env_init(void)
{
	char buf[4096];
	FILE *f = fopen("/proc/self/cmdline", "r");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	if (f) fclose(f);
	buf[n] = 0;
	if (n > 0) {
		hc_info_put(&hc_env_info, "command", buf);
		size_t first = strlen(buf) + 1;
		if (first < n) {
			/* The arguments, space-separated. */
			for (size_t i = first; i + 1 < n; i++)
				if (buf[i] == 0) buf[i] = ' ';
			hc_info_put(&hc_env_info, "argv", buf + first);
		}
	}
	snprintf(buf, sizeof buf, "%d", hc_comms[0].used == 1 ? hc_comms[0].size : 1);
	hc_info_put(&hc_env_info, "maxprocs", buf);
	hc_info_put(&hc_env_info, "soft", buf);
	if (gethostname(buf, sizeof buf) == 0) hc_info_put(&hc_env_info, "host", buf);
	if (getcwd(buf, sizeof buf)) hc_info_put(&hc_env_info, "wdir", buf);
	hc_info_put(&hc_env_info, "arch", "x86_64");
	hc_info_put(&hc_env_info, "thread_level", "MPI_THREAD_MULTIPLE");
}

/* hc_info_of finds an info object; MPI_INFO_ENV is one too. */
static hc_info *hc_info_of(MPI_Info info)
{
	if (info == MPI_INFO_ENV) {
		pthread_once(&hc_env_once, hc_env_init);
		return &hc_env_info;
	}
	int i = hc_index(info, HK_INFO);
	return i > 0 ? hc_htab_get(&hc_infos, i) : NULL;
}

static hc_kv *hc_info_find(hc_info *in, const char *key)
{
	for (int k = 0; k < in->n; k++)
		if (strcmp(in->kv[k].key, key) == 0) return &in->kv[k];
	return NULL;
}

/* hc_info_put sets key (under in->mu held by the caller, or before in is
 * published). */
static int hc_info_put(hc_info *in, const char *key, const char *value)
{
	char *v = strdup(value);
	if (!v) return MPI_ERR_NO_MEM;
	hc_kv *kv = hc_info_find(in, key);
	if (kv) {
		free(kv->val);
		kv->val = v;
		return MPI_SUCCESS;
	}
	if (in->n == in->cap) {
		int cap = in->cap ? 2 * in->cap : 4;
		hc_kv *p = realloc(in->kv, cap * sizeof *p);
		if (!p) {
			free(v);
			return MPI_ERR_NO_MEM;
		}
		in->kv = p;
		in->cap = cap;
	}
	char *k = strdup(key);
	if (!k) {
		free(v);
		return MPI_ERR_NO_MEM;
	}
	in->kv[in->n].key = k;
	in->kv[in->n].val = v;
	in->n++;
	return MPI_SUCCESS;
}

static void hc_info_destroy(hc_info *in)
{
	for (int k = 0; k < in->n; k++) {
		free(in->kv[k].key);
		free(in->kv[k].val);
	}
	free(in->kv);
	pthread_mutex_destroy(&in->mu);
	free(in);
}

/* hc_info_new publishes a copy of src (NULL: empty) as a new handle. */
static int hc_info_new(hc_info *src, MPI_Info *out)
{
	hc_info *in = calloc(1, sizeof *in);
	if (!in) return MPI_ERR_NO_MEM;
	pthread_mutex_init(&in->mu, NULL);
	int rc = MPI_SUCCESS;
	if (src) {
		pthread_mutex_lock(&src->mu);
		for (int k = 0; k < src->n && !rc; k++) rc = hc_info_put(in, src->kv[k].key, src->kv[k].val);
		pthread_mutex_unlock(&src->mu);
	}
	int i = rc ? -1 : hc_htab_put(&hc_infos, in);
	if (i < 0) {
		hc_info_destroy(in);
		return rc ? rc : MPI_ERR_NO_MEM;
	}
	*out = (MPI_Info)hc_make(HK_INFO, i);
	return MPI_SUCCESS;
}

#define INFO(in, info, fn)                                 \
	hc_info *in = hc_info_of(info);                    \
	if (!in) return hc_error(-1, MPI_ERR_INFO, fn)

static int hc_key_ok(const char *key)
{
	return (uintptr_t)key >= 4096 && *key && strnlen(key, MPI_MAX_INFO_KEY) < MPI_MAX_INFO_KEY;
}

int hc_info_ok(MPI_Info info) { return info == MPI_INFO_NULL || hc_info_of(info) != NULL; }

int PMPI_Info_create(MPI_Info *info)
{
	HC_CHECK_PTR(-1, info, "MPI_Info_create");
	int rc = hc_info_new(NULL, info);
	return rc ? hc_error(-1, rc, "MPI_Info_create") : MPI_SUCCESS;
}

int PMPI_Info_create_env(int argc, char *argv[], MPI_Info *info)
{
	(void)argc, (void)argv;
	HC_CHECK_PTR(-1, info, "MPI_Info_create_env");
	int rc = hc_info_new(hc_info_of(MPI_INFO_ENV), info);
	return rc ? hc_error(-1, rc, "MPI_Info_create_env") : MPI_SUCCESS;
}

int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
	const char *fn = "MPI_Info_set";
	if (info == MPI_INFO_ENV) return hc_error(-1, MPI_ERR_INFO, fn);
	INFO(in, info, fn);
	if (!hc_key_ok(key)) return hc_error(-1, MPI_ERR_INFO_KEY, fn);
	if ((uintptr_t)value < 4096 || strnlen(value, MPI_MAX_INFO_VAL) >= MPI_MAX_INFO_VAL)
		return hc_error(-1, MPI_ERR_INFO_VALUE, fn);
	pthread_mutex_lock(&in->mu);
	int rc = hc_info_put(in, key, value);
	pthread_mutex_unlock(&in->mu);
	return rc ? hc_error(-1, rc, fn) : MPI_SUCCESS;
}

int PMPI_Info_delete(MPI_Info info, const char *key)
{
	const char *fn = "MPI_Info_delete";
	if (info == MPI_INFO_ENV) return hc_error(-1, MPI_ERR_INFO, fn);
	INFO(in, info, fn);
	if (!hc_key_ok(key)) return hc_error(-1, MPI_ERR_INFO_KEY, fn);
	pthread_mutex_lock(&in->mu);
	hc_kv *kv = hc_info_find(in, key);
	if (!kv) {
		pthread_mutex_unlock(&in->mu);
		return hc_error(-1, MPI_ERR_INFO_NOKEY, fn);
	}
	free(kv->key);
	free(kv->val);
	int k = (int)(kv - in->kv);
	/* Keep the order of the others: nthkey numbers them. */
	memmove(kv, kv + 1, (size_t)(in->n - k - 1) * sizeof *kv);
	in->n--;
	pthread_mutex_unlock(&in->mu);
	return MPI_SUCCESS;
}

int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
	const char *fn = "MPI_Info_get";
	INFO(in, info, fn);
	if (!hc_key_ok(key)) return hc_error(-1, MPI_ERR_INFO_KEY, fn);
	HC_CHECK_PTR(-1, flag, fn);
	if (valuelen < 0) return hc_arg_fail(-1, MPI_ERR_ARG, fn, "negative valuelen");
	HC_CHECK_PTR(-1, value, fn);
	pthread_mutex_lock(&in->mu);
	hc_kv *kv = hc_info_find(in, key);
	*flag = kv != NULL;
	if (kv) {
		/* At most valuelen characters and the terminator, nothing more:
		 * the bytes after it are the caller's. */
		size_t n = strlen(kv->val);
		if (n > (size_t)valuelen) n = valuelen;
		memcpy(value, kv->val, n);
		value[n] = 0;
	}
	pthread_mutex_unlock(&in->mu);
	return MPI_SUCCESS;
}

int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag)
{
	const char *fn = "MPI_Info_get_string";
	INFO(in, info, fn);
	if (!hc_key_ok(key)) return hc_error(-1, MPI_ERR_INFO_KEY, fn);
	HC_CHECK_PTR(-1, flag, fn);
	HC_CHECK_PTR(-1, buflen, fn);
	if (*buflen < 0) return hc_arg_fail(-1, MPI_ERR_ARG, fn, "negative buflen");
	HC_CHECK_ARRAY(-1, value, *buflen, fn);
	pthread_mutex_lock(&in->mu);
	hc_kv *kv = hc_info_find(in, key);
	*flag = kv != NULL;
	if (kv) {
		size_t n = strlen(kv->val);
		if (*buflen > 0) {
			size_t m = n < (size_t)*buflen - 1 ? n : (size_t)*buflen - 1;
			memcpy(value, kv->val, m);
			value[m] = 0;
		}
		*buflen = (int)n + 1;
	}
	pthread_mutex_unlock(&in->mu);
	return MPI_SUCCESS;
}

int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
	const char *fn = "MPI_Info_get_valuelen";
	INFO(in, info, fn);
	if (!hc_key_ok(key)) return hc_error(-1, MPI_ERR_INFO_KEY, fn);
	HC_CHECK_PTR(-1, valuelen, fn);
	HC_CHECK_PTR(-1, flag, fn);
	pthread_mutex_lock(&in->mu);
	hc_kv *kv = hc_info_find(in, key);
	*flag = kv != NULL;
	if (kv) *valuelen = (int)strlen(kv->val);
	pthread_mutex_unlock(&in->mu);
	return MPI_SUCCESS;
}

int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
	INFO(in, info, "MPI_Info_get_nkeys");
	HC_CHECK_PTR(-1, nkeys, "MPI_Info_get_nkeys");
	pthread_mutex_lock(&in->mu);
	*nkeys = in->n;
	pthread_mutex_unlock(&in->mu);
	return MPI_SUCCESS;
}

int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
	const char *fn = "MPI_Info_get_nthkey";
	INFO(in, info, fn);
	HC_CHECK_PTR(-1, key, fn);
	pthread_mutex_lock(&in->mu);
	int ok = n >= 0 && n < in->n;
	if (ok) snprintf(key, MPI_MAX_INFO_KEY, "%s", in->kv[n].key);
	pthread_mutex_unlock(&in->mu);
	return ok ? MPI_SUCCESS : hc_error(-1, MPI_ERR_ARG, fn);
}

int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
	const char *fn = "MPI_Info_dup";
	INFO(in, info, fn);
	HC_CHECK_PTR(-1, newinfo, fn);
	int rc = hc_info_new(in, newinfo);
	return rc ? hc_error(-1, rc, fn) : MPI_SUCCESS;
}

int PMPI_Info_free(MPI_Info *info)
{
	const char *fn = "MPI_Info_free";
	HC_CHECK_PTR(-1, info, fn);
	if (*info == MPI_INFO_ENV) return hc_error(-1, MPI_ERR_INFO, fn);
	int i = hc_index(*info, HK_INFO);
	hc_info *in = i > 0 ? hc_htab_del(&hc_infos, i) : NULL;
	if (!in) return hc_error(-1, MPI_ERR_INFO, fn);
	hc_info_destroy(in);
	*info = MPI_INFO_NULL;
	return MPI_SUCCESS;
}

/* hc_info_with builds a new info from NULL-terminated key, value pairs. */
HC_HIDDEN int hc_info_with(MPI_Info *out, const char *const *kv)
{
	int rc = hc_info_new(NULL, out);
	if (rc) return rc;
	hc_info *in = hc_info_of(*out);
	for (; kv[0]; kv += 2)
		if ((rc = hc_info_put(in, kv[0], kv[1]))) break;
	if (rc) PMPI_Info_free(out);
	return rc;
}

/* The hardware as MPI 4.1 describes it: one shared-memory domain. */
int PMPI_Get_hw_resource_info(MPI_Info *hw_info)
{
	HC_CHECK_PTR(-1, hw_info, "MPI_Get_hw_resource_info");
	char n[32];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	snprintf(n, sizeof n, "%ld", cpus > 0 ? cpus : 1);
	const char *kv[] = {"mpi_hw_resource_type", "mpi_shared_memory", "mpi_shared_memory", "1", "cores", n, NULL};
	int rc = hc_info_with(hw_info, kv);
	return rc ? hc_error(-1, rc, "MPI_Get_hw_resource_info") : MPI_SUCCESS;
}

/* The ABI's sizes, as the MPI 5.0 standard ABI names the keys. */
int PMPI_Abi_get_info(MPI_Info *info)
{
	HC_CHECK_PTR(-1, info, "MPI_Abi_get_info");
	char a[8], c[8], o[8];
	snprintf(a, sizeof a, "%d", (int)sizeof(MPI_Aint));
	snprintf(c, sizeof c, "%d", (int)sizeof(MPI_Count));
	snprintf(o, sizeof o, "%d", (int)sizeof(MPI_Offset));
	const char *kv[] = {"mpi_aint_size", a, "mpi_count_size", c, "mpi_offset_size", o, NULL};
	int rc = hc_info_with(info, kv);
	return rc ? hc_error(-1, rc, "MPI_Abi_get_info") : MPI_SUCCESS;
}

#define HC_ALIASES_info
#include "aliases_gen.h"
