/*
 * comm_ext.c — communicator creation beyond dup and split: MPI_Comm_split_type
 * as MPI 4.1 defines it over hympi's topology, MPI_Comm_dup_with_info,
 * MPI_Comm_idup(_with_info), MPI_Comm_create_from_group, and communicator
 * hints (MPI_Comm_set_info/get_info).
 *
 * Hints: hympi acts on none, but keeps what the application set and gives
 * it back from MPI_Comm_get_info (as MPICH does; Open MPI returns only the
 * hints it recognises), plus mpi_hw_resource_type on communicators that
 * MPI_Comm_split_type made by hardware.
 *
 * Hardware splits: hympi_go_hw_colors gives, per level (machine, package,
 * NUMA node, L3, L2, L1, core, hardware thread), the domain this process
 * runs in, or -1 when the CPUs it may run on span several (an unbound
 * process is in no single core): such a process gets MPI_COMM_NULL for that
 * level, as the standard says for a process not restricted to one resource.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cabi.h"
#include "argcheck.h"
#include "_cgo_export.h"
#include "golane.h"

enum { HW_MACHINE, HW_PACKAGE, HW_NUMA, HW_L3, HW_L2, HW_L1, HW_CORE, HW_PU, HW_LEVELS };

/* Canonical names (hwloc's object types, as MPICH spells them) first,
 * then the short forms programs use. */
static const struct {
	const char *name;
	int level;
} hc_hw_names[] = {
	{"hwloc://Machine", HW_MACHINE}, {"hwloc://Package", HW_PACKAGE}, {"hwloc://NUMANode", HW_NUMA},
	{"hwloc://L3Cache", HW_L3},      {"hwloc://L2Cache", HW_L2},      {"hwloc://L1Cache", HW_L1},
	{"hwloc://Core", HW_CORE},       {"hwloc://PU", HW_PU},           {"hwloc://Socket", HW_PACKAGE},
	{"hwloc://L1dCache", HW_L1},     {"machine", HW_MACHINE},         {"package", HW_PACKAGE},
	{"socket", HW_PACKAGE},          {"numa", HW_NUMA},               {"numanode", HW_NUMA},
	{"l3", HW_L3},                   {"l3cache", HW_L3},              {"l2", HW_L2},
	{"l2cache", HW_L2},              {"l1", HW_L1},                   {"l1cache", HW_L1},
	{"core", HW_CORE},               {"pu", HW_PU},                   {"hwthread", HW_PU},
};

static const char *hc_hw_name(int level)
{
	return hc_hw_names[level].name;
}

/* hc_hw_level is the level an mpi_hw_resource_type value names, -1 for
 * none, HW_LEVELS for mpi_shared_memory. */
static int hc_hw_level(const char *v)
{
	if (strcmp(v, "mpi_shared_memory") == 0) return HW_LEVELS;
	for (size_t i = 0; i < sizeof hc_hw_names / sizeof hc_hw_names[0]; i++)
		if (strcasecmp(v, hc_hw_names[i].name) == 0) return hc_hw_names[i].level;
	return -1;
}

/* ---- hints ------------------------------------------------------------ */

void hc_comm_info_free(int ci)
{
	MPI_Info info = hc_comms[ci].info;
	hc_comms[ci].info = 0;
	if (info) PMPI_Info_free(&info);
}

int hc_comm_info_copy(int from, int to)
{
	hc_comm_info_free(to);
	if (!hc_comms[from].info) return MPI_SUCCESS;
	return PMPI_Info_dup(hc_comms[from].info, &hc_comms[to].info);
}

/* hc_hint_known: the hints a communicator keeps. MPI_Comm_get_info returns
 * only hints the implementation does not ignore (MPI 4.1 §7.4.4); hympi
 * keeps the standard's reserved mpi_* keys and its own hympi_* ones, and
 * drops the rest, as MPICH does (its test comm/comm_info checks). */
static int hc_hint_known(const char *key)
{
	return strncmp(key, "mpi_", 4) == 0 || strncmp(key, "hympi_", 6) == 0;
}

/* hc_comm_set_hints replaces ci's hints by a copy of info's known ones. */
static int hc_comm_set_hints(int ci, MPI_Info info)
{
	if (info == MPI_INFO_NULL) {
		hc_comm_info_free(ci);
		return MPI_SUCCESS;
	}
	MPI_Info copy;
	int rc = PMPI_Info_dup(info, &copy);
	if (rc) return rc;
	int n = 0;
	PMPI_Info_get_nkeys(copy, &n);
	for (int i = n - 1; i >= 0; i--) { /* backwards: deleting renumbers the later keys */
		char key[MPI_MAX_INFO_KEY + 1];
		if (PMPI_Info_get_nthkey(copy, i, key) == MPI_SUCCESS && !hc_hint_known(key)) PMPI_Info_delete(copy, key);
	}
	hc_comm_info_free(ci);
	hc_comms[ci].info = copy;
	return MPI_SUCCESS;
}

static int hc_comm_set_hint(int ci, const char *key, const char *val)
{
	if (!hc_comms[ci].info) {
		int rc = PMPI_Info_create(&hc_comms[ci].info);
		if (rc) return rc;
	}
	return PMPI_Info_set(hc_comms[ci].info, key, val);
}

int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
	int ci = hc_comm_index(comm);
	if (ci < 0) return hc_error(-1, MPI_ERR_COMM, "MPI_Comm_set_info");
	HC_CHECK_INFO(ci, info, "MPI_Comm_set_info");
	int rc = hc_comm_set_hints(ci, info);
	return rc ? hc_error(ci, MPI_ERR_INFO, "MPI_Comm_set_info") : MPI_SUCCESS;
}

int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
	int ci = hc_comm_index(comm);
	if (ci < 0) return hc_error(-1, MPI_ERR_COMM, "MPI_Comm_get_info");
	HC_CHECK_PTR(ci, info_used, "MPI_Comm_get_info");
	int rc = hc_comms[ci].info ? PMPI_Info_dup(hc_comms[ci].info, info_used) : PMPI_Info_create(info_used);
	return rc ? hc_error(ci, rc, "MPI_Comm_get_info") : MPI_SUCCESS;
}

/* ---- duplicates ------------------------------------------------------- */

int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
	const char *fn = "MPI_Comm_dup_with_info";
	int ci = hc_comm_index(comm);
	if (ci < 0) return hc_error(-1, MPI_ERR_COMM, fn);
	HC_CHECK_INFO(ci, info, fn);
	HC_CHECK_PTR(ci, newcomm, fn);
	int rc = PMPI_Comm_dup(comm, newcomm);
	if (rc) return rc;
	rc = hc_comm_set_hints(hc_comm_index(*newcomm), info);
	return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
}

HC_HIDDEN int hc_comm_reserve(void);
HC_HIDDEN void hc_comm_release(int i);
HC_HIDDEN void hc_comm_publish(int i, int rank, int size, MPI_Errhandler eh);
HC_HIDDEN int hc_comm_copy_attrs(int from, int to);
HC_HIDDEN int hc_comm_copy_topo(int from, int to);

/* The new communicator's handle, attributes, topology and hints exist when
 * the call returns (its group is the parent's); its context is agreed
 * through progress, and the engine refuses nothing on it, so a program
 * that uses it before the request completes is erroneous, as MPI says.
 * with_info: MPI_Comm_idup_with_info's hints replace the parent's. */
static int hc_idup(MPI_Comm comm, int with_info, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request, const char *fn)
{
	HC_GUARD(fn);
	int ci = hc_comm_index(comm);
	if (ci < 0) return hc_error(-1, MPI_ERR_COMM, fn);
	HC_CHECK_INFO(ci, info, fn);
	HC_CHECK_PTR(ci, newcomm, fn);
	HC_CHECK_PTR(ci, request, fn);
	int ni = hc_comm_reserve();
	if (ni < 0) return hc_error(ci, MPI_ERR_INTERN, fn);
	int rank, size;
	int rc = hympi_go_comm_idup(ci, ni, &rank, &size, (intptr_t *)request);
	if (rc) {
		hc_comm_release(ni);
		*newcomm = MPI_COMM_NULL;
		return hc_error(ci, rc, fn);
	}
	hc_comm_publish(ni, rank, size, hc_comms[ci].eh);
	*newcomm = (MPI_Comm)hc_make(HK_COMM, ni);
	rc = hc_comm_copy_attrs(ci, ni);
	if (!rc) rc = hc_comm_copy_topo(ci, ni);
	if (!rc) rc = hc_comm_info_copy(ci, ni);
	if (!rc && with_info) rc = hc_comm_set_hints(ni, info);
	return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
}

int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
	return hc_idup(comm, 0, MPI_INFO_NULL, newcomm, request, "MPI_Comm_idup");
}

int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request)
{
	return hc_idup(comm, 1, info, newcomm, request, "MPI_Comm_idup_with_info");
}

/* ---- split by type ---------------------------------------------------- */

/* hc_info_value reads key from info into v (size n); 0 when absent. */
static int hc_info_value(MPI_Info info, const char *key, char *v, int n)
{
	int flag = 0;
	if (info == MPI_INFO_NULL || PMPI_Info_get(info, key, n - 1, v, &flag) != MPI_SUCCESS) return 0;
	return flag;
}

/* hc_unguided picks the outermost level that splits comm into smaller
 * parts with every member in one domain, from every member's colours:
 * the same answer on every member. -1: none. */
static int hc_unguided(MPI_Comm comm, int size, const int *mine, int *level, const char *fn, int ci)
{
	int *all = malloc((size_t)size * HW_LEVELS * sizeof *all);
	if (!all) return hc_error(ci, MPI_ERR_NO_MEM, fn);
	int rc = PMPI_Allgather(mine, HW_LEVELS, MPI_INT, all, HW_LEVELS, MPI_INT, comm);
	*level = -1;
	for (int l = HW_PACKAGE; !rc && l < HW_LEVELS && *level < 0; l++) {
		int ok = 1, split = 0;
		for (int r = 0; r < size; r++) {
			if (all[r * HW_LEVELS + l] < 0) ok = 0;
			if (all[r * HW_LEVELS + l] != all[l]) split = 1;
		}
		if (ok && split) *level = l;
	}
	free(all);
	return rc;
}

int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
	const char *fn = "MPI_Comm_split_type";
	HC_GUARD(fn);
	int ci = hc_comm_index(comm);
	if (ci < 0 || hc_is_inter(ci)) return hc_error(ci, MPI_ERR_COMM, fn);
	HC_CHECK_INFO(ci, info, fn);
	HC_CHECK_PTR(ci, newcomm, fn);
	int colors[HW_LEVELS], color = MPI_UNDEFINED, level = -1, rc;
	char v[MPI_MAX_INFO_VAL + 1];
	switch (split_type) {
	case MPI_UNDEFINED:
		break;
	case MPI_COMM_TYPE_SHARED:
		/* One machine: every rank shares memory with every other. */
		color = 0;
		break;
	case MPI_COMM_TYPE_HW_GUIDED:
		if (!hc_info_value(info, "mpi_hw_resource_type", v, sizeof v)) break;
		level = hc_hw_level(v);
		if (level == HW_LEVELS) {
			color = 0;
		} else if (level >= 0) {
			hympi_go_hw_colors(colors);
			if (colors[level] >= 0) color = colors[level];
		}
		break;
	case MPI_COMM_TYPE_HW_UNGUIDED:
		hympi_go_hw_colors(colors);
		rc = hc_unguided(comm, hc_comms[ci].size, colors, &level, fn, ci);
		if (rc) return hc_error(ci, rc, fn);
		if (level >= 0) color = colors[level];
		break;
	case MPI_COMM_TYPE_RESOURCE_GUIDED:
		if (!hc_info_value(info, "mpi_pset_name", v, sizeof v)) break;
		if (strcasecmp(v, "mpi://WORLD") == 0) color = 0;
		else if (strcasecmp(v, "mpi://SELF") == 0) color = hc_comms[ci].rank;
		break;
	default:
		return hc_error(ci, MPI_ERR_ARG, fn);
	}
	rc = PMPI_Comm_split(comm, color, key, newcomm);
	if (rc || *newcomm == MPI_COMM_NULL) return rc;
	int ni = hc_comm_index(*newcomm);
	if (split_type == MPI_COMM_TYPE_HW_GUIDED)
		rc = hc_comm_set_hint(ni, "mpi_hw_resource_type", level == HW_LEVELS ? "mpi_shared_memory" : v);
	else if (split_type == MPI_COMM_TYPE_HW_UNGUIDED) {
		rc = hc_comm_set_hint(ni, "mpi_hw_resource_type", hc_hw_name(level));
		/* The caller's info learns the level too, as in MPICH (its test
		 * comm/cmsplit_type reads it back). */
		if (!rc && info != MPI_INFO_NULL && info != MPI_INFO_ENV)
			rc = PMPI_Info_set(info, "mpi_hw_resource_type", hc_hw_name(level));
	}
	else if (split_type == MPI_COMM_TYPE_RESOURCE_GUIDED)
		rc = hc_comm_set_hint(ni, "mpi_pset_name", v);
	return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
}

/* ---- from a group ----------------------------------------------------- */

/* A string tag becomes an integer tag for the engine's group creation. */
static int hc_tag_hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
	return (int)(h & 0x7fffffff);
}

int PMPI_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info, MPI_Errhandler errhandler,
				MPI_Comm *newcomm)
{
	const char *fn = "MPI_Comm_create_from_group";
	HC_GUARD(fn);
	HC_CHECK_PTR(-1, stringtag, fn);
	HC_CHECK_PTR(-1, newcomm, fn);
	if (group == MPI_GROUP_NULL) return hc_error(-1, MPI_ERR_GROUP, fn);
	HC_CHECK_INFO(-1, info, fn);
	if (!hc_errh_valid(errhandler)) return hc_arg_fail(-1, MPI_ERR_ARG, fn, "invalid error handler");
	int ni = hc_comm_reserve();
	if (ni < 0) return hc_error(-1, MPI_ERR_INTERN, fn);
	int rank, size;
	int rc = hympi_go_comm_from_group((intptr_t)group, hc_tag_hash(stringtag), ni, &rank, &size);
	if (rc || size == 0) {
		hc_comm_release(ni);
		*newcomm = MPI_COMM_NULL;
		return rc ? hc_error(-1, rc, fn) : MPI_SUCCESS;
	}
	hc_comm_publish(ni, rank, size, errhandler);
	*newcomm = (MPI_Comm)hc_make(HK_COMM, ni);
	if (info != MPI_INFO_NULL) hc_comm_set_hints(ni, info);
	return MPI_SUCCESS;
}

#define HC_ALIASES_comm_ext
#include "aliases_gen.h"

/* Dynamic processes are not supported (MPI_Comm_spawn reports so), so no
 * process has a parent: MPI_COMM_NULL is the standard's answer for a
 * process not started by a spawn, and programs ask it unconditionally. */
int PMPI_Comm_get_parent(MPI_Comm *parent)
{
	HC_CHECK_PTR(-1, parent, "MPI_Comm_get_parent");
	*parent = MPI_COMM_NULL;
	return MPI_SUCCESS;
}
