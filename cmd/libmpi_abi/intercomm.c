/*
 * intercomm.c — intercommunicators: MPI_Intercomm_create,
 * MPI_Intercomm_create_from_groups, MPI_Intercomm_merge and the queries.
 * Point-to-point on an intercommunicator goes through the ordinary entry
 * points (the engine maps ranks to the remote group); MPI_Comm_dup and
 * MPI_Comm_free work on them too; the collectives go to coll_inter.c
 * (MPI_Scan and MPI_Exscan fail with MPI_ERR_COMM there); topologies on an
 * intercommunicator fail with MPI_ERR_COMM.
 */
#include <stdint.h>

#include "cabi.h"
#include "argcheck.h"
#include "_cgo_export.h"
#include "golane.h"

HC_HIDDEN int hc_comm_reserve(void);
HC_HIDDEN void hc_comm_release(int i);
HC_HIDDEN void hc_comm_publish(int i, int rank, int size, MPI_Errhandler eh);

static int hc_inter_adopt(int ci, int rc, int ni, int rank, int size, MPI_Errhandler eh, MPI_Comm *newcomm,
			  const char *fn)
{
	if (rc || size == 0) {
		hc_comm_release(ni);
		*newcomm = MPI_COMM_NULL;
		return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
	}
	hc_comm_publish(ni, rank, size, eh);
	*newcomm = (MPI_Comm)hc_make(HK_COMM, ni);
	return MPI_SUCCESS;
}

int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag,
			  MPI_Comm *newintercomm)
{
	const char *fn = "MPI_Intercomm_create";
	HC_GUARD(fn);
	int ci = hc_comm_index(local_comm);
	if (ci < 0) return hc_error(-1, MPI_ERR_COMM, fn);
	HC_CHECK_PTR(ci, newintercomm, fn);
	/* peer_comm matters at the local leader only. */
	int pi = hc_comm_index(peer_comm);
	if (hc_comms[ci].rank == local_leader && pi < 0) return hc_error(ci, MPI_ERR_COMM, fn);
	int ni = hc_comm_reserve();
	if (ni < 0) return hc_error(ci, MPI_ERR_INTERN, fn);
	int rank, size;
	int rc = hympi_go_intercomm_create(ci, local_leader, pi, remote_leader, tag, ni, &rank, &size);
	return hc_inter_adopt(ci, rc, ni, rank, size, hc_comms[ci].eh, newintercomm, fn);
}

static int hc_tag_of(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
	return (int)(h & 0x7fffffff);
}

int PMPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader, MPI_Group remote_group,
				      int remote_leader, const char *stringtag, MPI_Info info, MPI_Errhandler errhandler,
				      MPI_Comm *newintercomm)
{
	const char *fn = "MPI_Intercomm_create_from_groups";
	HC_GUARD(fn);
	HC_CHECK_PTR(-1, stringtag, fn);
	HC_CHECK_PTR(-1, newintercomm, fn);
	HC_CHECK_INFO(-1, info, fn);
	if (!hc_errh_valid(errhandler)) return hc_arg_fail(-1, MPI_ERR_ARG, fn, "invalid error handler");
	int ni = hc_comm_reserve();
	if (ni < 0) return hc_error(-1, MPI_ERR_INTERN, fn);
	int rank, size;
	int rc = hympi_go_intercomm_from_groups((intptr_t)local_group, local_leader, (intptr_t)remote_group,
						remote_leader, hc_tag_of(stringtag), ni, &rank, &size);
	return hc_inter_adopt(-1, rc, ni, rank, size, errhandler, newintercomm, fn);
}

int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
	const char *fn = "MPI_Intercomm_merge";
	HC_GUARD(fn);
	int ci = hc_comm_index(intercomm);
	if (ci < 0) return hc_error(-1, MPI_ERR_COMM, fn);
	HC_CHECK_PTR(ci, newintracomm, fn);
	int ni = hc_comm_reserve();
	if (ni < 0) return hc_error(ci, MPI_ERR_INTERN, fn);
	int rank, size;
	int rc = hympi_go_intercomm_merge(ci, high != 0, ni, &rank, &size);
	return hc_inter_adopt(ci, rc, ni, rank, size, hc_comms[ci].eh, newintracomm, fn);
}

/* hc_is_inter says whether communicator index ci is an intercommunicator:
 * the constructors that need an intracommunicator refuse one. */
int hc_is_inter(int ci)
{
	int flag = 0, rsize;
	return hympi_go_comm_inter(ci, &flag, &rsize) == 0 && flag;
}

int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
	HC_GUARD("MPI_Comm_test_inter");
	int ci = hc_comm_index(comm);
	if (ci < 0) return hc_error(-1, MPI_ERR_COMM, "MPI_Comm_test_inter");
	HC_CHECK_PTR(ci, flag, "MPI_Comm_test_inter");
	int rsize;
	int rc = hympi_go_comm_inter(ci, flag, &rsize);
	return rc ? hc_error(ci, rc, "MPI_Comm_test_inter") : MPI_SUCCESS;
}

int PMPI_Comm_remote_size(MPI_Comm comm, int *size)
{
	HC_GUARD("MPI_Comm_remote_size");
	int ci = hc_comm_index(comm);
	if (ci < 0) return hc_error(-1, MPI_ERR_COMM, "MPI_Comm_remote_size");
	HC_CHECK_PTR(ci, size, "MPI_Comm_remote_size");
	int flag;
	int rc = hympi_go_comm_inter(ci, &flag, size);
	if (!rc && !flag) rc = MPI_ERR_COMM;
	return rc ? hc_error(ci, rc, "MPI_Comm_remote_size") : MPI_SUCCESS;
}

int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
	HC_GUARD("MPI_Comm_remote_group");
	int ci = hc_comm_index(comm);
	if (ci < 0) return hc_error(-1, MPI_ERR_COMM, "MPI_Comm_remote_group");
	HC_CHECK_PTR(ci, group, "MPI_Comm_remote_group");
	int rc = hympi_go_comm_remote_group(ci, (intptr_t *)group);
	return rc ? hc_error(ci, rc, "MPI_Comm_remote_group") : MPI_SUCCESS;
}

#define HC_ALIASES_intercomm
#include "aliases_gen.h"
