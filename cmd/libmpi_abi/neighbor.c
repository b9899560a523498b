/*
 * neighbor.c — neighbourhood collectives (MPI_Neighbor_*, MPI_Ineighbor_*,
 * MPI_Neighbor_*_init and their _c forms). Every one is a neighbour
 * all-to-all of bytes in the engine: here the call's counts become byte
 * counts and displacements per neighbour, and hc_neighbors says who the
 * neighbours are. Blocking forms run through the engine's blocking entry
 * (hympi_go_neighbor), the others bind a request (hympi_go_ineighbor).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "nbc.h"
#include "collane.h"
#include "_cgo_export.h"
#include "golane.h"

/* hc_neighbors describes the topology of communicator ci: a Cartesian grid,
 * or a graph's or distributed graph's lists (kept by the communicator, not
 * copied; topo_graph.c). Repeated neighbours pair their messages in order,
 * weights play no part. */
static int hc_neighbors(int ci, hc_nbrs *nb)
{
	memset(nb, 0, sizeof *nb);
	if (hc_comms[ci].cart) {
		nb->ndims = hc_comms[ci].ndims;
		nb->cart = hc_comms[ci].cart;
		nb->indeg = nb->outdeg = 2 * nb->ndims;
		return MPI_SUCCESS;
	}
	return hc_graph_nbrs(ci, &nb->indeg, &nb->outdeg, &nb->sources, &nb->dests);
}


/* The call's arguments; counts are int[] or MPI_Count[] (cbig),
 * displacements int[] or MPI_Aint[] (dbig). */
typedef struct {
	const void *sbuf;
	void *rbuf;
	int64_t scount, rcount;
	const void *scounts, *sdispls, *rcounts, *rdispls;
	int cbig, dbig;
	MPI_Datatype stype, rtype;
	const MPI_Datatype *stypes, *rtypes;
	/* A blocking call's raw arguments for the collective lane
	 * (hc_cc_first), or NULL. */
	const int64_t *raw;
} hc_nraw;

static int64_t hc_nat(const void *v, int big, int i)
{
	return big ? ((const int64_t *)v)[i] : ((const int *)v)[i];
}

static int hc_ntype(MPI_Datatype dt, int64_t *size)
{
	return (*size = hc_type_msg_size(dt)) < 0 ? MPI_ERR_TYPE : MPI_SUCCESS;
}

/* The type of block k on one side. */
static MPI_Datatype hc_nblock_type(hc_nraw *a, int recv, int k)
{
	if (a->rtypes) return recv ? a->rtypes[k] : a->stypes[k];
	return recv ? a->rtype : a->stype;
}

/* hc_npack makes non-contiguous blocks travel packed: each side with a
 * non-contiguous type gets scratch laid out block after block, packed
 * from (or unpacked into) the user's blocks, whose places the call's own
 * displacements give (in extents; bytes for alltoallw). */
static int hc_npack(int kind, hc_nraw *a, hc_nbrs *nb, hc_nbc *g)
{
	int nc[2] = {0, 0}, n[2] = {nb->outdeg, nb->indeg};
	for (int side = 0; side < 2; side++)
		for (int k = 0; k < n[side] && !nc[side]; k++) nc[side] = !hc_type_contig(hc_nblock_type(a, side, k));
	if (!nc[0] && !nc[1]) return MPI_SUCCESS;
	int64_t bytes[2] = {0, 0};
	for (int side = 0; side < 2; side++)
		for (int k = 0; nc[side] && k < n[side]; k++) bytes[side] += side ? g->rc[k] : g->sc[k];
	hc_pk *pk = malloc(sizeof *pk + (n[0] + n[1]) * sizeof(hc_pkop) + bytes[0] + bytes[1] + 1);
	if (!pk) return MPI_ERR_NO_MEM;
	pk->nops = 0;
	pk->keep = 1;
	pk->sscr = (char *)&pk->ops[n[0] + n[1]];
	pk->rscr = pk->sscr + bytes[0];
	for (int side = 0; side < 2; side++) {
		if (!nc[side]) continue;
		int64_t off = 0, *c = side ? g->rc : g->sc, *d = side ? g->rd : g->sd;
		const void *ds = side ? a->rdispls : a->sdispls;
		int vec = kind == HC_NBR_ALLTOALLV || (side && kind == HC_NBR_ALLGATHERV);
		char *user = side ? a->rbuf : (char *)a->sbuf;
		for (int k = 0; k < n[side]; k++) {
			MPI_Datatype dt = hc_nblock_type(a, side, k);
			int64_t es = hc_type_msg_size(dt), cnt = es > 0 ? c[k] / es : 0, at;
			MPI_Aint lb, ext;
			PMPI_Type_get_extent(dt, &lb, &ext);
			if (kind == HC_NBR_ALLTOALLW)
				at = hc_nat(ds, a->dbig, k);
			else if (vec)
				at = hc_nat(ds, a->dbig, k) * ext;
			else if (!side && (kind == HC_NBR_ALLGATHER || kind == HC_NBR_ALLGATHERV))
				at = 0;
			else
				at = k * cnt * ext;
			pk->ops[pk->nops++] = (hc_pkop){dt, cnt, off, user + at, side};
			d[k] = off;
			off += c[k];
		}
		if (side)
			g->rbuf = pk->rscr;
		else
			g->sbuf = pk->sscr;
	}
	g->pk = pk;
	return MPI_SUCCESS;
}

/* hc_nside fills one side's byte counts and displacements (n blocks). */
static int hc_nside(int kind, int recv, hc_nraw *a, int n, int64_t *cnt, int64_t *dsp)
{
	const void *cs = recv ? a->rcounts : a->scounts, *ds = recv ? a->rdispls : a->sdispls;
	int64_t count = recv ? a->rcount : a->scount, s;
	int rc;
	if (kind == HC_NBR_ALLTOALLW) {
		const MPI_Datatype *ts = recv ? a->rtypes : a->stypes;
		if (n > 0 && (!ts || !cs || !ds)) return MPI_ERR_ARG;
		for (int k = 0; k < n; k++) {
			if ((rc = hc_ntype(ts[k], &s))) return rc;
			int64_t c = hc_nat(cs, a->cbig, k);
			if (c < 0 || (s > 0 && c > INT64_MAX / s)) return MPI_ERR_COUNT;
			cnt[k] = c * s;
			dsp[k] = hc_nat(ds, a->dbig, k); /* bytes */
			if (dsp[k] < 0) return MPI_ERR_BUFFER;
		}
		return MPI_SUCCESS;
	}
	if ((rc = hc_ntype(recv ? a->rtype : a->stype, &s))) return rc;
	int vec = kind == HC_NBR_ALLTOALLV || (recv && kind == HC_NBR_ALLGATHERV);
	if (vec) {
		if (n > 0 && (!cs || !ds)) return MPI_ERR_ARG;
		for (int k = 0; k < n; k++) {
			int64_t c = hc_nat(cs, a->cbig, k), d = hc_nat(ds, a->dbig, k);
			if (c < 0 || (s > 0 && c > INT64_MAX / s)) return MPI_ERR_COUNT;
			if (d < 0 || (s > 0 && d > INT64_MAX / s)) return MPI_ERR_BUFFER;
			cnt[k] = c * s;
			dsp[k] = d * s;
		}
		return MPI_SUCCESS;
	}
	if (count < 0 || (s > 0 && count > INT64_MAX / s / (n > 0 ? n : 1))) return MPI_ERR_COUNT;
	/* Allgather sends the one buffer to every neighbour. */
	int same = !recv && (kind == HC_NBR_ALLGATHER || kind == HC_NBR_ALLGATHERV);
	for (int k = 0; k < n; k++) {
		cnt[k] = count * s;
		dsp[k] = same ? 0 : k * count * s;
	}
	return MPI_SUCCESS;
}

/* hc_nside_check checks one side's arrays, counts and buffer before
 * anything is allocated (n blocks). */
static int hc_nside_check(int ci, int kind, int recv, hc_nraw *a, int n, const char *fn)
{
	const void *cs = recv ? a->rcounts : a->scounts, *ds = recv ? a->rdispls : a->sdispls;
	const void *buf = recv ? a->rbuf : a->sbuf;
	if (kind == HC_NBR_ALLTOALLW) {
		const MPI_Datatype *ts = recv ? a->rtypes : a->stypes;
		HC_CHECK_ARRAY(ci, ts, n, fn);
		HC_CHECK_ARRAY(ci, cs, n, fn);
		HC_CHECK_ARRAY(ci, ds, n, fn);
		for (int k = 0; k < n; k++) {
			HC_CHECK_COUNT(ci, hc_nat(cs, a->cbig, k), fn);
			HC_CHECK_BUF(ci, buf, hc_nat(cs, a->cbig, k), ts[k], fn);
		}
		return MPI_SUCCESS;
	}
	MPI_Datatype dt = recv ? a->rtype : a->stype;
	if (kind == HC_NBR_ALLTOALLV || (recv && kind == HC_NBR_ALLGATHERV)) {
		HC_CHECK_ARRAY(ci, cs, n, fn);
		HC_CHECK_ARRAY(ci, ds, n, fn);
		int64_t total = 0;
		for (int k = 0; k < n; k++) {
			HC_CHECK_COUNT(ci, hc_nat(cs, a->cbig, k), fn);
			total += hc_nat(cs, a->cbig, k);
		}
		HC_CHECK_BUF(ci, buf, total, dt, fn);
		return MPI_SUCCESS;
	}
	int64_t count = recv ? a->rcount : a->scount;
	HC_CHECK_COUNT(ci, count, fn);
	int same = !recv && (kind == HC_NBR_ALLGATHER || kind == HC_NBR_ALLGATHERV);
	if (n > 0) HC_CHECK_BUF(ci, buf, same ? count : count * n, dt, fn);
	return MPI_SUCCESS;
}

/* hc_nbr_blocking runs a blocking neighbourhood exchange of byte counts g
 * from the communicator's plan when it has one of this call (collane.c:
 * the buffers and byte counts are the key; the neighbourhood is the
 * communicator's, the same on every call), else through Go. Packed
 * blocks travel through fresh scratch: those calls take Go. */
static int hc_nbr_blocking(int ci, hc_nbc *g, const hc_nbrs *nb, const int64_t *raw)
{
	hc_cc_key k = {{HC_CC_NBR, (int64_t)(intptr_t)g->sbuf, (int64_t)(intptr_t)g->rbuf, nb->outdeg, nb->indeg},
		       0, NULL, raw};
	size_t so = (size_t)nb->outdeg * sizeof(int64_t), si = (size_t)nb->indeg * sizeof(int64_t);
	hc_cc_vec v = {4, {{g->sc, so}, {g->sd, so}, {g->rc, si}, {g->rd, si}}};
	int rc, lane = !g->pk;
	if (lane && hc_cc_try_v(ci, &k, &v, NULL, &rc)) return rc;
	rc = hympi_go_neighbor(ci, g, (hc_nbrs *)nb);
	if (!rc && lane) hc_cc_learn_v(ci, &k, &v);
	return rc;
}

static int hc_ineighbor(int kind, hc_nraw *a, MPI_Comm comm, int run, MPI_Request *req, const char *fn)
{
	HC_GUARD(fn);
	int ci = hc_comm_index(comm);
	if (ci < 0) return hc_error(-1, MPI_ERR_COMM, fn);
	if (run != RUN_BLOCKING) HC_CHECK_PTR(ci, req, fn);
	HC_CHECK_NOT_IN_PLACE(ci, a->sbuf, fn);
	HC_CHECK_NOT_IN_PLACE(ci, a->rbuf, fn);
	hc_nbrs nb;
	int rc = hc_neighbors(ci, &nb);
	if (rc) return hc_error(ci, rc, fn);
	if ((rc = hc_nside_check(ci, kind, 0, a, nb.outdeg, fn)) || (rc = hc_nside_check(ci, kind, 1, a, nb.indeg, fn)))
		return rc;
	/* Small neighbourhoods (every Cartesian one up to 16 dimensions) keep
	 * their byte counts on the stack. */
	int64_t local_arr[4 * 32 + 1], *arr = local_arr;
	size_t narr = 2 * ((size_t)nb.indeg + (size_t)nb.outdeg) + 1;
	if (narr > sizeof local_arr / sizeof local_arr[0] && !(arr = malloc(sizeof(int64_t) * narr)))
		return hc_error(ci, MPI_ERR_NO_MEM, fn);
	hc_nbc g;
	memset(&g, 0, sizeof g);
	g.sc = arr, g.sd = arr + nb.outdeg, g.rc = arr + 2 * nb.outdeg, g.rd = g.rc + nb.indeg;
	g.sbuf = (void *)a->sbuf, g.rbuf = a->rbuf;
	rc = hc_nside(kind, 0, a, nb.outdeg, g.sc, g.sd);
	if (!rc) rc = hc_nside(kind, 1, a, nb.indeg, g.rc, g.rd);
	if (!rc) rc = hc_npack(kind, a, &nb, &g);
	if (!rc && run == RUN_BLOCKING) {
		/* The engine's blocking entry: one call into Go, no request to
		 * make and wait on. Packed blocks go out and come back here. */
		if (g.pk) hc_pk_run(g.pk, 0);
		rc = hc_nbr_blocking(ci, &g, &nb, a->raw);
		if (!rc && g.pk) hc_pk_run(g.pk, 1);
		hc_pk_free(g.pk);
	} else if (!rc) {
		rc = hympi_go_ineighbor(ci, &g, &nb, run == RUN_PERSISTENT, (intptr_t *)req);
		if (rc) hc_pk_free(g.pk); /* on success the request owns it */
	} else {
		hc_pk_free(g.pk);
	}
	if (arr != local_arr) free(arr);
	if (rc) return hc_error(ci, rc, fn);
	return MPI_SUCCESS;
}

static int hc_nb_fixed(int kind, const void *sbuf, int64_t scount, MPI_Datatype st, void *rbuf, int64_t rcount,
		       MPI_Datatype rt, MPI_Comm comm, int run, MPI_Request *req, const char *fn)
{
	hc_nraw a = {.sbuf = sbuf, .rbuf = rbuf, .scount = scount, .rcount = rcount, .stype = st, .rtype = rt};
	/* A blocking call of the arguments that keyed a plan passes its
	 * checks again: the neighbourhood is the communicator's for good. */
	int64_t raw[HC_CC_RAW] = {HC_CC_NBR, kind, (int64_t)(intptr_t)sbuf, scount, (int64_t)(intptr_t)st,
				  (int64_t)(intptr_t)rbuf, rcount, (int64_t)(intptr_t)rt};
	if (run == RUN_BLOCKING && HC_CC_PREDEF(st) && HC_CC_PREDEF(rt)) {
		HC_GUARD(fn);
		int ci = hc_comm_index(comm), rc;
		if (ci >= 0 && hc_cc_first_v(ci, raw, NULL, NULL, &rc)) return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
		a.raw = raw;
	}
	return hc_ineighbor(kind, &a, comm, run, req, fn);
}

static int hc_nb_agv(const void *sbuf, int64_t scount, MPI_Datatype st, void *rbuf, const void *rcounts,
		     const void *displs, int big, MPI_Datatype rt, MPI_Comm comm, int run, MPI_Request *req, const char *fn)
{
	hc_nraw a = {.sbuf = sbuf, .rbuf = rbuf, .scount = scount, .rcounts = rcounts, .rdispls = displs, .cbig = big,
		     .dbig = big, .stype = st, .rtype = rt};
	return hc_ineighbor(HC_NBR_ALLGATHERV, &a, comm, run, req, fn);
}

static int hc_nb_a2av(const void *sbuf, const void *scounts, const void *sdispls, MPI_Datatype st, void *rbuf,
		      const void *rcounts, const void *rdispls, MPI_Datatype rt, int big, MPI_Comm comm, int run,
		      MPI_Request *req, const char *fn)
{
	hc_nraw a = {.sbuf = sbuf, .rbuf = rbuf, .scounts = scounts, .sdispls = sdispls, .rcounts = rcounts,
		     .rdispls = rdispls, .cbig = big, .dbig = big, .stype = st, .rtype = rt};
	return hc_ineighbor(HC_NBR_ALLTOALLV, &a, comm, run, req, fn);
}

/* Alltoallw's displacements are MPI_Aint even in the int form. */
static int hc_nb_a2aw(const void *sbuf, const void *scounts, const void *sdispls, const MPI_Datatype *st, void *rbuf,
		      const void *rcounts, const void *rdispls, const MPI_Datatype *rt, int big, MPI_Comm comm, int run,
		      MPI_Request *req, const char *fn)
{
	hc_nraw a = {.sbuf = sbuf, .rbuf = rbuf, .scounts = scounts, .sdispls = sdispls, .rcounts = rcounts,
		     .rdispls = rdispls, .cbig = big, .dbig = 1, .stypes = st, .rtypes = rt};
	return hc_ineighbor(HC_NBR_ALLTOALLW, &a, comm, run, req, fn);
}

/* ---- entry points ---------------------------------------------------- */

int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	return hc_nb_fixed(HC_NBR_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, RUN_BLOCKING, NULL, "MPI_Neighbor_allgather");
}

int PMPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	return hc_nb_fixed(HC_NBR_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, RUN_NB, request, "MPI_Ineighbor_allgather");
}

int PMPI_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Neighbor_allgather_init");
	return hc_nb_fixed(HC_NBR_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, RUN_PERSISTENT, request, "MPI_Neighbor_allgather_init");
}

int PMPI_Neighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	return hc_nb_fixed(HC_NBR_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, RUN_BLOCKING, NULL, "MPI_Neighbor_allgather_c");
}

int PMPI_Ineighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	return hc_nb_fixed(HC_NBR_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, RUN_NB, request, "MPI_Ineighbor_allgather_c");
}

int PMPI_Neighbor_allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Neighbor_allgather_init_c");
	return hc_nb_fixed(HC_NBR_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, RUN_PERSISTENT, request, "MPI_Neighbor_allgather_init_c");
}

int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
	return hc_nb_agv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0, recvtype, comm, RUN_BLOCKING, NULL, "MPI_Neighbor_allgatherv");
}

int PMPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	return hc_nb_agv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0, recvtype, comm, RUN_NB, request, "MPI_Ineighbor_allgatherv");
}

int PMPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Neighbor_allgatherv_init");
	return hc_nb_agv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0, recvtype, comm, RUN_PERSISTENT, request, "MPI_Neighbor_allgatherv_init");
}

int PMPI_Neighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
	return hc_nb_agv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 1, recvtype, comm, RUN_BLOCKING, NULL, "MPI_Neighbor_allgatherv_c");
}

int PMPI_Ineighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	return hc_nb_agv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 1, recvtype, comm, RUN_NB, request, "MPI_Ineighbor_allgatherv_c");
}

int PMPI_Neighbor_allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Neighbor_allgatherv_init_c");
	return hc_nb_agv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 1, recvtype, comm, RUN_PERSISTENT, request, "MPI_Neighbor_allgatherv_init_c");
}

int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	return hc_nb_fixed(HC_NBR_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, RUN_BLOCKING, NULL, "MPI_Neighbor_alltoall");
}

int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	return hc_nb_fixed(HC_NBR_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, RUN_NB, request, "MPI_Ineighbor_alltoall");
}

int PMPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Neighbor_alltoall_init");
	return hc_nb_fixed(HC_NBR_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, RUN_PERSISTENT, request, "MPI_Neighbor_alltoall_init");
}

int PMPI_Neighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	return hc_nb_fixed(HC_NBR_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, RUN_BLOCKING, NULL, "MPI_Neighbor_alltoall_c");
}

int PMPI_Ineighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	return hc_nb_fixed(HC_NBR_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, RUN_NB, request, "MPI_Ineighbor_alltoall_c");
}

int PMPI_Neighbor_alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Neighbor_alltoall_init_c");
	return hc_nb_fixed(HC_NBR_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, RUN_PERSISTENT, request, "MPI_Neighbor_alltoall_init_c");
}

int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
	return hc_nb_a2av(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, 0, comm, RUN_BLOCKING, NULL, "MPI_Neighbor_alltoallv");
}

int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	return hc_nb_a2av(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, 0, comm, RUN_NB, request, "MPI_Ineighbor_alltoallv");
}

int PMPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Neighbor_alltoallv_init");
	return hc_nb_a2av(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, 0, comm, RUN_PERSISTENT, request, "MPI_Neighbor_alltoallv_init");
}

int PMPI_Neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
	return hc_nb_a2av(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, 1, comm, RUN_BLOCKING, NULL, "MPI_Neighbor_alltoallv_c");
}

int PMPI_Ineighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	return hc_nb_a2av(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, 1, comm, RUN_NB, request, "MPI_Ineighbor_alltoallv_c");
}

int PMPI_Neighbor_alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Neighbor_alltoallv_init_c");
	return hc_nb_a2av(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, 1, comm, RUN_PERSISTENT, request, "MPI_Neighbor_alltoallv_init_c");
}

int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
	return hc_nb_a2aw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, 0, comm, RUN_BLOCKING, NULL, "MPI_Neighbor_alltoallw");
}

int PMPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request)
{
	return hc_nb_a2aw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, 0, comm, RUN_NB, request, "MPI_Ineighbor_alltoallw");
}

int PMPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Neighbor_alltoallw_init");
	return hc_nb_a2aw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, 0, comm, RUN_PERSISTENT, request, "MPI_Neighbor_alltoallw_init");
}

int PMPI_Neighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
	return hc_nb_a2aw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, 1, comm, RUN_BLOCKING, NULL, "MPI_Neighbor_alltoallw_c");
}

int PMPI_Ineighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request)
{
	return hc_nb_a2aw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, 1, comm, RUN_NB, request, "MPI_Ineighbor_alltoallw_c");
}

int PMPI_Neighbor_alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Neighbor_alltoallw_init_c");
	return hc_nb_a2aw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, 1, comm, RUN_PERSISTENT, request, "MPI_Neighbor_alltoallw_init_c");
}

#define HC_ALIASES_neighbor
#include "aliases_gen.h"
