/*
 * topo.c — Cartesian process topologies, kept beside the communicator in
 * C. The communicator itself comes from MPI_Comm_split; the grid is
 * row-major (the last dimension varies fastest), as MPI prescribes.
 */
#include <stdlib.h>
#include <string.h>

#include "cabi.h"
#include "argcheck.h"

static int hc_set_cart(int ci, int ndims, const int *dims, const int *periods)
{
	int *c = malloc(2 * (ndims > 0 ? ndims : 1) * sizeof *c);
	if (!c) return MPI_ERR_NO_MEM;
	for (int d = 0; d < ndims; d++) {
		c[d] = dims[d];
		c[ndims + d] = periods[d] != 0;
	}
	free(hc_comms[ci].cart);
	hc_comms[ci].cart = c;
	hc_comms[ci].ndims = ndims;
	return MPI_SUCCESS;
}

/* hc_cart finds the Cartesian communicator behind comm. */
static int hc_cart(MPI_Comm comm, const char *fn, int *ci)
{
	*ci = hc_comm_index(comm);
	if (*ci < 0) return hc_error(-1, MPI_ERR_COMM, fn);
	if (!hc_comms[*ci].cart) return hc_error(*ci, MPI_ERR_TOPOLOGY, fn);
	return MPI_SUCCESS;
}

static void hc_coords_of(int ci, int rank, int *coords)
{
	int n = hc_comms[ci].ndims, *dims = hc_comms[ci].cart;
	for (int d = n - 1; d >= 0; d--) {
		coords[d] = rank % dims[d];
		rank /= dims[d];
	}
}

/* hc_rank_of is the rank at coords, wrapping periodic dimensions; -1 when
 * a coordinate is outside a non-periodic dimension. */
static int hc_rank_of(int ci, const int *coords)
{
	int n = hc_comms[ci].ndims, *dims = hc_comms[ci].cart, *per = dims + n, r = 0;
	for (int d = 0; d < n; d++) {
		int c = coords[d];
		if (c < 0 || c >= dims[d]) {
			if (!per[d]) return -1;
			c = ((c % dims[d]) + dims[d]) % dims[d];
		}
		r = r * dims[d] + c;
	}
	return r;
}

int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
		     MPI_Comm *comm_cart)
{
	(void)reorder;
	const char *fn = "MPI_Cart_create";
	HC_GUARD(fn);
	int ci = hc_comm_index(comm_old);
	if (ci < 0 || hc_is_inter(ci)) return hc_error(ci, MPI_ERR_COMM, fn);
	if (ndims < 0) return hc_error(ci, MPI_ERR_DIMS, fn);
	HC_CHECK_ARRAY(ci, dims, ndims, fn);
	HC_CHECK_ARRAY(ci, periods, ndims, fn);
	HC_CHECK_PTR(ci, comm_cart, fn);
	int64_t nodes = 1;
	for (int d = 0; d < ndims; d++) {
		if (dims[d] <= 0) return hc_error(ci, MPI_ERR_DIMS, fn);
		nodes *= dims[d];
		if (nodes > hc_comms[ci].size) return hc_error(ci, MPI_ERR_DIMS, fn);
	}
	if (nodes > hc_comms[ci].size) return hc_error(ci, MPI_ERR_DIMS, fn);
	int me = hc_comms[ci].rank;
	int rc = PMPI_Comm_split(comm_old, me < nodes ? 0 : MPI_UNDEFINED, me, comm_cart);
	if (rc || *comm_cart == MPI_COMM_NULL) return rc;
	rc = hc_set_cart(hc_comm_index(*comm_cart), ndims, dims, periods);
	return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
}

int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
	const char *fn = "MPI_Cart_sub";
	HC_GUARD(fn);
	int ci, rc = hc_cart(comm, fn, &ci);
	if (rc) return rc;
	HC_CHECK_ARRAY(ci, remain_dims, hc_comms[ci].ndims, fn);
	HC_CHECK_PTR(ci, newcomm, fn);
	int n = hc_comms[ci].ndims, *dims = hc_comms[ci].cart, *per = dims + n;
	int coords[n > 0 ? n : 1], ndims[n > 0 ? n : 1], nper[n > 0 ? n : 1];
	hc_coords_of(ci, hc_comms[ci].rank, coords);
	int color = 0, key = 0, k = 0;
	for (int d = 0; d < n; d++) {
		if (remain_dims[d]) {
			key = key * dims[d] + coords[d];
			ndims[k] = dims[d];
			nper[k] = per[d];
			k++;
		} else {
			color = color * dims[d] + coords[d];
		}
	}
	/* Keeping no dimension gives a 0-dimensional grid of one process: as
	 * in MPICH, rank 0's, the others get MPI_COMM_NULL. */
	if (k == 0) color = hc_comms[ci].rank == 0 ? 0 : MPI_UNDEFINED;
	rc = PMPI_Comm_split(comm, color, key, newcomm);
	if (rc || *newcomm == MPI_COMM_NULL) return rc;
	rc = hc_set_cart(hc_comm_index(*newcomm), k, ndims, nper);
	return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
}

int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
	int ci, rc = hc_cart(comm, "MPI_Cart_rank", &ci);
	if (rc) return rc;
	HC_CHECK_ARRAY(ci, coords, hc_comms[ci].ndims, "MPI_Cart_rank");
	HC_CHECK_PTR(ci, rank, "MPI_Cart_rank");
	int r = hc_rank_of(ci, coords);
	if (r < 0) return hc_error(ci, MPI_ERR_ARG, "MPI_Cart_rank");
	*rank = r;
	return MPI_SUCCESS;
}

int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
	int ci, rc = hc_cart(comm, "MPI_Cart_coords", &ci);
	if (rc) return rc;
	if (rank < 0 || rank >= hc_comms[ci].size) return hc_error(ci, MPI_ERR_RANK, "MPI_Cart_coords");
	if (maxdims < hc_comms[ci].ndims) return hc_error(ci, MPI_ERR_ARG, "MPI_Cart_coords");
	HC_CHECK_ARRAY(ci, coords, hc_comms[ci].ndims, "MPI_Cart_coords");
	hc_coords_of(ci, rank, coords);
	return MPI_SUCCESS;
}

int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest)
{
	int ci, rc = hc_cart(comm, "MPI_Cart_shift", &ci);
	if (rc) return rc;
	int n = hc_comms[ci].ndims;
	if (direction < 0 || direction >= n) return hc_error(ci, MPI_ERR_ARG, "MPI_Cart_shift");
	HC_CHECK_PTR(ci, rank_source, "MPI_Cart_shift");
	HC_CHECK_PTR(ci, rank_dest, "MPI_Cart_shift");
	int coords[n];
	hc_coords_of(ci, hc_comms[ci].rank, coords);
	int c = coords[direction];
	coords[direction] = c + disp;
	int r = hc_rank_of(ci, coords);
	*rank_dest = r < 0 ? MPI_PROC_NULL : r;
	coords[direction] = c - disp;
	r = hc_rank_of(ci, coords);
	*rank_source = r < 0 ? MPI_PROC_NULL : r;
	return MPI_SUCCESS;
}

int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
	int ci, rc = hc_cart(comm, "MPI_Cart_get", &ci);
	if (rc) return rc;
	int n = hc_comms[ci].ndims;
	if (maxdims < n) return hc_error(ci, MPI_ERR_ARG, "MPI_Cart_get");
	HC_CHECK_ARRAY(ci, dims, n, "MPI_Cart_get");
	HC_CHECK_ARRAY(ci, periods, n, "MPI_Cart_get");
	HC_CHECK_ARRAY(ci, coords, n, "MPI_Cart_get");
	memcpy(dims, hc_comms[ci].cart, n * sizeof *dims);
	memcpy(periods, hc_comms[ci].cart + n, n * sizeof *periods);
	hc_coords_of(ci, hc_comms[ci].rank, coords);
	return MPI_SUCCESS;
}

int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
	int ci, rc = hc_cart(comm, "MPI_Cartdim_get", &ci);
	if (rc) return rc;
	HC_CHECK_PTR(ci, ndims, "MPI_Cartdim_get");
	*ndims = hc_comms[ci].ndims;
	return MPI_SUCCESS;
}

int PMPI_Topo_test(MPI_Comm comm, int *status)
{
	int ci = hc_comm_index(comm);
	if (ci < 0) return hc_error(-1, MPI_ERR_COMM, "MPI_Topo_test");
	HC_CHECK_PTR(ci, status, "MPI_Topo_test");
	*status = hc_comms[ci].cart ? MPI_CART : hc_comms[ci].graph ? *(int *)hc_comms[ci].graph : MPI_UNDEFINED;
	return MPI_SUCCESS;
}

/* MPI_Comm_dup keeps the topology. */
HC_HIDDEN int hc_comm_copy_topo(int from, int to)
{
	if (hc_comms[from].graph) return hc_graph_copy(from, to);
	if (!hc_comms[from].cart) return MPI_SUCCESS;
	int n = hc_comms[from].ndims;
	return hc_set_cart(to, n, hc_comms[from].cart, hc_comms[from].cart + n);
}

#define HC_ALIASES_topo
#include "aliases_gen.h"
