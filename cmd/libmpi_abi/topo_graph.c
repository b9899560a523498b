/*
 * topo_graph.c — graph and distributed-graph topologies, kept beside the
 * communicator in C like the Cartesian ones (topo.c), and the mapping
 * helpers MPI_Cart_map and MPI_Graph_map. hympi never reorders ranks: on
 * one machine every placement shares the same memory, so the identity is
 * as good as any (MPICH does the same by default).
 *
 * A graph communicator is MPI_Comm_split of the old one (ranks beyond the
 * graph's nodes get MPI_COMM_NULL); a distributed graph is a duplicate.
 * MPI_Dist_graph_create, where a rank may describe edges of other ranks,
 * gathers every rank's edge list so each rank keeps its own in and out
 * edges, in the order of (describing rank, position in its list).
 */
#include <stdlib.h>
#include <string.h>

#include "cabi.h"
#include "argcheck.h"

struct hc_graph {
	int kind; /* MPI_GRAPH or MPI_DIST_GRAPH: first, MPI_Topo_test reads it */
	/* MPI_GRAPH */
	int nnodes;
	int *index, *edges;
	/* MPI_DIST_GRAPH */
	int indeg, outdeg, weighted;
	int *src, *srcw, *dst, *dstw;
};

void hc_graph_free(struct hc_graph *g)
{
	if (!g) return;
	free(g->index);
	free(g->edges);
	free(g->src);
	free(g->srcw);
	free(g->dst);
	free(g->dstw);
	free(g);
}

static int *hc_dup_ints(const int *p, int n)
{
	int *q = malloc((n > 0 ? n : 1) * sizeof *q);
	if (q && n > 0 && p) memcpy(q, p, n * sizeof *q);
	else if (q && n > 0) memset(q, 0, n * sizeof *q);
	return q;
}

static struct hc_graph *hc_graph_new(int kind)
{
	struct hc_graph *g = calloc(1, sizeof *g);
	if (g) g->kind = kind;
	return g;
}

/* hc_graph_adopt hangs g on communicator ci, replacing any topology. */
static void hc_graph_adopt(int ci, struct hc_graph *g)
{
	hc_graph_free(hc_comms[ci].graph);
	hc_comms[ci].graph = g;
}

int hc_graph_copy(int from, int to)
{
	struct hc_graph *f = hc_comms[from].graph, *g = hc_graph_new(f->kind);
	if (!g) return MPI_ERR_NO_MEM;
	*g = *f;
	int ne = f->kind == MPI_GRAPH && f->nnodes > 0 ? f->index[f->nnodes - 1] : 0;
	g->index = f->index ? hc_dup_ints(f->index, f->nnodes) : NULL;
	g->edges = f->edges ? hc_dup_ints(f->edges, ne) : NULL;
	g->src = f->src ? hc_dup_ints(f->src, f->indeg) : NULL;
	g->srcw = f->srcw ? hc_dup_ints(f->srcw, f->indeg) : NULL;
	g->dst = f->dst ? hc_dup_ints(f->dst, f->outdeg) : NULL;
	g->dstw = f->dstw ? hc_dup_ints(f->dstw, f->outdeg) : NULL;
	hc_graph_adopt(to, g);
	return MPI_SUCCESS;
}

/* hc_topo finds the communicator behind comm with a topology of kind. */
static int hc_topo(MPI_Comm comm, int kind, const char *fn, int *ci)
{
	*ci = hc_comm_index(comm);
	if (*ci < 0) return hc_error(-1, MPI_ERR_COMM, fn);
	struct hc_graph *g = hc_comms[*ci].graph;
	if (!g || g->kind != kind) return hc_error(*ci, MPI_ERR_TOPOLOGY, fn);
	return MPI_SUCCESS;
}

/* hc_graph_nbrs is ci's neighbourhood for the neighbour collectives
 * (neighbor.c): a graph node's neighbours both ways, in the order of
 * MPI_Graph_neighbors; a distributed graph's sources and destinations as
 * MPI_Dist_graph_neighbors lists them. The lists stay the communicator's. */
int hc_graph_nbrs(int ci, int *indeg, int *outdeg, const int **sources, const int **dests)
{
	struct hc_graph *g = hc_comms[ci].graph;
	if (!g) return MPI_ERR_TOPOLOGY;
	if (g->kind == MPI_GRAPH) {
		int me = hc_comms[ci].rank;
		if (me < 0 || me >= g->nnodes) return MPI_ERR_TOPOLOGY;
		int lo = me ? g->index[me - 1] : 0;
		*indeg = *outdeg = g->index[me] - lo;
		*sources = *dests = g->edges + lo;
		return MPI_SUCCESS;
	}
	*indeg = g->indeg, *outdeg = g->outdeg;
	*sources = g->src, *dests = g->dst;
	return MPI_SUCCESS;
}

/* ---- graphs ----------------------------------------------------------- */

int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder,
		      MPI_Comm *comm_graph)
{
	(void)reorder;
	const char *fn = "MPI_Graph_create";
	HC_GUARD(fn);
	int ci = hc_comm_index(comm_old);
	if (ci < 0 || hc_is_inter(ci)) return hc_error(ci, MPI_ERR_COMM, fn);
	HC_CHECK_PTR(ci, comm_graph, fn);
	if (nnodes < 0 || nnodes > hc_comms[ci].size) return hc_error(ci, MPI_ERR_ARG, fn);
	HC_CHECK_ARRAY(ci, index, nnodes, fn);
	HC_CHECK_ARRAY(ci, edges, nnodes > 0 ? index[nnodes - 1] : 0, fn);
	for (int i = 0; i < nnodes; i++)
		if (index[i] < (i ? index[i - 1] : 0)) return hc_error(ci, MPI_ERR_ARG, fn);
	int ne = nnodes > 0 ? index[nnodes - 1] : 0;
	for (int k = 0; k < ne; k++)
		if (edges[k] < 0 || edges[k] >= nnodes) return hc_error(ci, MPI_ERR_ARG, fn);
	int me = hc_comms[ci].rank;
	int rc = PMPI_Comm_split(comm_old, me < nnodes ? 0 : MPI_UNDEFINED, me, comm_graph);
	if (rc || *comm_graph == MPI_COMM_NULL) return rc;
	struct hc_graph *g = hc_graph_new(MPI_GRAPH);
	if (!g) return hc_error(ci, MPI_ERR_NO_MEM, fn);
	g->nnodes = nnodes;
	g->index = hc_dup_ints(index, nnodes);
	g->edges = hc_dup_ints(edges, ne);
	hc_graph_adopt(hc_comm_index(*comm_graph), g);
	return MPI_SUCCESS;
}

int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
	int ci, rc = hc_topo(comm, MPI_GRAPH, "MPI_Graphdims_get", &ci);
	if (rc) return rc;
	HC_CHECK_PTR(ci, nnodes, "MPI_Graphdims_get");
	HC_CHECK_PTR(ci, nedges, "MPI_Graphdims_get");
	struct hc_graph *g = hc_comms[ci].graph;
	*nnodes = g->nnodes;
	*nedges = g->nnodes > 0 ? g->index[g->nnodes - 1] : 0;
	return MPI_SUCCESS;
}

int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[])
{
	int ci, rc = hc_topo(comm, MPI_GRAPH, "MPI_Graph_get", &ci);
	if (rc) return rc;
	struct hc_graph *g = hc_comms[ci].graph;
	if (maxindex < 0 || maxedges < 0) return hc_error(ci, MPI_ERR_ARG, "MPI_Graph_get");
	HC_CHECK_ARRAY(ci, index, maxindex, "MPI_Graph_get");
	HC_CHECK_ARRAY(ci, edges, maxedges, "MPI_Graph_get");
	int ne = g->nnodes > 0 ? g->index[g->nnodes - 1] : 0;
	for (int i = 0; i < g->nnodes && i < maxindex; i++) index[i] = g->index[i];
	for (int k = 0; k < ne && k < maxedges; k++) edges[k] = g->edges[k];
	return MPI_SUCCESS;
}

int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
	int ci, rc = hc_topo(comm, MPI_GRAPH, "MPI_Graph_neighbors_count", &ci);
	if (rc) return rc;
	struct hc_graph *g = hc_comms[ci].graph;
	if (rank < 0 || rank >= g->nnodes) return hc_error(ci, MPI_ERR_RANK, "MPI_Graph_neighbors_count");
	HC_CHECK_PTR(ci, nneighbors, "MPI_Graph_neighbors_count");
	*nneighbors = g->index[rank] - (rank ? g->index[rank - 1] : 0);
	return MPI_SUCCESS;
}

int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
{
	int ci, rc = hc_topo(comm, MPI_GRAPH, "MPI_Graph_neighbors", &ci);
	if (rc) return rc;
	struct hc_graph *g = hc_comms[ci].graph;
	if (rank < 0 || rank >= g->nnodes) return hc_error(ci, MPI_ERR_RANK, "MPI_Graph_neighbors");
	if (maxneighbors < 0) return hc_error(ci, MPI_ERR_ARG, "MPI_Graph_neighbors");
	HC_CHECK_ARRAY(ci, neighbors, maxneighbors, "MPI_Graph_neighbors");
	int lo = rank ? g->index[rank - 1] : 0, hi = g->index[rank];
	for (int k = lo; k < hi && k - lo < maxneighbors; k++) neighbors[k - lo] = g->edges[k];
	return MPI_SUCCESS;
}

int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank)
{
	(void)index, (void)edges;
	int ci = hc_comm_index(comm);
	if (ci < 0) return hc_error(-1, MPI_ERR_COMM, "MPI_Graph_map");
	if (nnodes < 1 || nnodes > hc_comms[ci].size) return hc_error(ci, MPI_ERR_ARG, "MPI_Graph_map");
	HC_CHECK_PTR(ci, index, "MPI_Graph_map");
	for (int i = 0; i < nnodes; i++)
		if (index[i] < (i ? index[i - 1] : 0)) return hc_error(ci, MPI_ERR_ARG, "MPI_Graph_map");
	HC_CHECK_ARRAY(ci, edges, index[nnodes - 1], "MPI_Graph_map");
	HC_CHECK_PTR(ci, newrank, "MPI_Graph_map");
	*newrank = hc_comms[ci].rank < nnodes ? hc_comms[ci].rank : MPI_UNDEFINED;
	return MPI_SUCCESS;
}

int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank)
{
	(void)periods;
	int ci = hc_comm_index(comm);
	if (ci < 0) return hc_error(-1, MPI_ERR_COMM, "MPI_Cart_map");
	if (ndims < 0) return hc_error(ci, MPI_ERR_DIMS, "MPI_Cart_map");
	HC_CHECK_ARRAY(ci, dims, ndims, "MPI_Cart_map");
	HC_CHECK_ARRAY(ci, periods, ndims, "MPI_Cart_map");
	HC_CHECK_PTR(ci, newrank, "MPI_Cart_map");
	int64_t n = 1;
	for (int d = 0; d < ndims; d++) {
		if (dims[d] <= 0) return hc_error(ci, MPI_ERR_DIMS, "MPI_Cart_map");
		n *= dims[d];
	}
	if (n > hc_comms[ci].size) return hc_error(ci, MPI_ERR_DIMS, "MPI_Cart_map");
	*newrank = hc_comms[ci].rank < n ? hc_comms[ci].rank : MPI_UNDEFINED;
	return MPI_SUCCESS;
}

/* ---- distributed graphs ---------------------------------------------- */

static int hc_weights_ok(const int *w, int n)
{
	/* The two constants live in page zero, where no array can. */
	return w == MPI_UNWEIGHTED || (n == 0 && w == MPI_WEIGHTS_EMPTY) ||
	       (n >= 0 && (n == 0 || (uintptr_t)w >= 4096));
}

/* hc_dist_adopt builds the distributed-graph state on the new communicator. */
static int hc_dist_adopt(MPI_Comm comm, int indeg, const int *src, const int *srcw, int outdeg, const int *dst,
			 const int *dstw, int weighted)
{
	struct hc_graph *g = hc_graph_new(MPI_DIST_GRAPH);
	if (!g) return MPI_ERR_NO_MEM;
	g->indeg = indeg, g->outdeg = outdeg, g->weighted = weighted;
	g->src = hc_dup_ints(src, indeg);
	g->dst = hc_dup_ints(dst, outdeg);
	if (weighted) {
		g->srcw = hc_dup_ints(srcw, indeg);
		g->dstw = hc_dup_ints(dstw, outdeg);
	}
	hc_graph_adopt(hc_comm_index(comm), g);
	return MPI_SUCCESS;
}

int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[],
				    int outdegree, const int destinations[], const int destweights[], MPI_Info info,
				    int reorder, MPI_Comm *comm_dist_graph)
{
	(void)info, (void)reorder;
	const char *fn = "MPI_Dist_graph_create_adjacent";
	HC_GUARD(fn);
	int ci = hc_comm_index(comm_old);
	if (ci < 0 || hc_is_inter(ci)) return hc_error(ci, MPI_ERR_COMM, fn);
	int n = hc_comms[ci].size;
	HC_CHECK_PTR(ci, comm_dist_graph, fn);
	if (indegree < 0 || outdegree < 0) return hc_error(ci, MPI_ERR_ARG, fn);
	HC_CHECK_ARRAY(ci, sources, indegree, fn);
	HC_CHECK_ARRAY(ci, destinations, outdegree, fn);
	HC_CHECK_INFO(ci, info, fn);
	if (!hc_weights_ok(sourceweights, indegree) || !hc_weights_ok(destweights, outdegree))
		return hc_error(ci, MPI_ERR_ARG, fn);
	if ((sourceweights == MPI_UNWEIGHTED) != (destweights == MPI_UNWEIGHTED) &&
	    !(indegree == 0 || outdegree == 0))
		return hc_error(ci, MPI_ERR_ARG, fn);
	for (int i = 0; i < indegree; i++)
		if (sources[i] < 0 || sources[i] >= n) return hc_error(ci, MPI_ERR_RANK, fn);
	for (int i = 0; i < outdegree; i++)
		if (destinations[i] < 0 || destinations[i] >= n) return hc_error(ci, MPI_ERR_RANK, fn);
	int weighted = sourceweights != MPI_UNWEIGHTED && destweights != MPI_UNWEIGHTED;
	int rc = PMPI_Comm_dup(comm_old, comm_dist_graph);
	if (rc) return rc;
	int ni = hc_comm_index(*comm_dist_graph);
	free(hc_comms[ni].cart), hc_comms[ni].cart = NULL, hc_comms[ni].ndims = 0;
	rc = hc_dist_adopt(*comm_dist_graph, indegree, sources,
			   sourceweights == MPI_WEIGHTS_EMPTY ? NULL : sourceweights, outdegree, destinations,
			   destweights == MPI_WEIGHTS_EMPTY ? NULL : destweights, weighted);
	return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
}

int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int nodes[], const int degrees[], const int targets[],
			   const int weights[], MPI_Info info, int reorder, MPI_Comm *newcomm)
{
	(void)info, (void)reorder;
	const char *fn = "MPI_Dist_graph_create";
	HC_GUARD(fn);
	int ci = hc_comm_index(comm_old);
	if (ci < 0 || hc_is_inter(ci)) return hc_error(ci, MPI_ERR_COMM, fn);
	int size = hc_comms[ci].size, me = hc_comms[ci].rank;
	HC_CHECK_PTR(ci, newcomm, fn);
	if (n < 0) return hc_error(ci, MPI_ERR_ARG, fn);
	HC_CHECK_ARRAY(ci, nodes, n, fn);
	HC_CHECK_ARRAY(ci, degrees, n, fn);
	HC_CHECK_INFO(ci, info, fn);
	int ne = 0;
	for (int i = 0; i < n; i++) {
		if (nodes[i] < 0 || nodes[i] >= size) return hc_error(ci, MPI_ERR_RANK, fn);
		if (degrees[i] < 0) return hc_error(ci, MPI_ERR_ARG, fn);
		ne += degrees[i];
	}
	HC_CHECK_ARRAY(ci, targets, ne, fn);
	for (int k = 0; k < ne; k++)
		if (targets[k] < 0 || targets[k] >= size) return hc_error(ci, MPI_ERR_RANK, fn);
	if (!hc_weights_ok(weights, ne)) return hc_error(ci, MPI_ERR_ARG, fn);
	/* Every rank's edges as (source, target, weight, unweighted) quads. */
	int uw = weights == MPI_UNWEIGHTED;
	int *mine = malloc((4 * ne + 1) * sizeof *mine);
	int *counts = malloc(size * sizeof *counts), *displs = malloc(size * sizeof *displs);
	if (!mine || !counts || !displs) {
		free(mine), free(counts), free(displs);
		return hc_error(ci, MPI_ERR_NO_MEM, fn);
	}
	for (int i = 0, k = 0; i < n; i++)
		for (int d = 0; d < degrees[i]; d++, k++) {
			mine[4 * k] = nodes[i];
			mine[4 * k + 1] = targets[k];
			mine[4 * k + 2] = uw || weights == MPI_WEIGHTS_EMPTY ? 1 : weights[k];
			mine[4 * k + 3] = uw;
		}
	int cnt = 4 * ne;
	int rc = PMPI_Allgather(&cnt, 1, MPI_INT, counts, 1, MPI_INT, comm_old);
	int total = 0;
	for (int r = 0; r < size; r++) displs[r] = total, total += counts[r];
	int *all = malloc((total + 1) * sizeof *all);
	if (!rc && !all) rc = MPI_ERR_NO_MEM;
	if (!rc) rc = PMPI_Allgatherv(mine, cnt, MPI_INT, all, counts, displs, MPI_INT, comm_old);
	free(mine), free(counts), free(displs);
	if (rc) {
		free(all);
		return hc_error(ci, rc, fn);
	}
	/* Unweighted when this rank says so, even with no edge at all (as
	 * MPICH: its test topo/distgraph1 checks), or when any edge is. */
	int indeg = 0, outdeg = 0, weighted = !uw;
	for (int q = 0; q < total / 4; q++) {
		if (all[4 * q + 3]) weighted = 0;
		indeg += all[4 * q + 1] == me;
		outdeg += all[4 * q] == me;
	}
	int *src = malloc((indeg + 1) * sizeof *src), *srcw = malloc((indeg + 1) * sizeof *srcw);
	int *dst = malloc((outdeg + 1) * sizeof *dst), *dstw = malloc((outdeg + 1) * sizeof *dstw);
	int a = 0, b = 0;
	for (int q = 0; src && srcw && dst && dstw && q < total / 4; q++) {
		if (all[4 * q + 1] == me) src[a] = all[4 * q], srcw[a++] = all[4 * q + 2];
		if (all[4 * q] == me) dst[b] = all[4 * q + 1], dstw[b++] = all[4 * q + 2];
	}
	free(all);
	rc = src && srcw && dst && dstw ? PMPI_Comm_dup(comm_old, newcomm) : MPI_ERR_NO_MEM;
	if (!rc) {
		int ni = hc_comm_index(*newcomm);
		free(hc_comms[ni].cart), hc_comms[ni].cart = NULL, hc_comms[ni].ndims = 0;
		rc = hc_dist_adopt(*newcomm, indeg, src, srcw, outdeg, dst, dstw, weighted);
	}
	free(src), free(srcw), free(dst), free(dstw);
	return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
}

int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted)
{
	int ci, rc = hc_topo(comm, MPI_DIST_GRAPH, "MPI_Dist_graph_neighbors_count", &ci);
	if (rc) return rc;
	HC_CHECK_PTR(ci, indegree, "MPI_Dist_graph_neighbors_count");
	HC_CHECK_PTR(ci, outdegree, "MPI_Dist_graph_neighbors_count");
	HC_CHECK_PTR(ci, weighted, "MPI_Dist_graph_neighbors_count");
	struct hc_graph *g = hc_comms[ci].graph;
	*indegree = g->indeg, *outdegree = g->outdeg, *weighted = g->weighted;
	return MPI_SUCCESS;
}

int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[], int maxoutdegree,
			      int destinations[], int destweights[])
{
	int ci, rc = hc_topo(comm, MPI_DIST_GRAPH, "MPI_Dist_graph_neighbors", &ci);
	if (rc) return rc;
	struct hc_graph *g = hc_comms[ci].graph;
	if (maxindegree < 0 || maxoutdegree < 0) return hc_error(ci, MPI_ERR_ARG, "MPI_Dist_graph_neighbors");
	/* Only the entries written must be there. */
	int nin = maxindegree < g->indeg ? maxindegree : g->indeg;
	int nout = maxoutdegree < g->outdeg ? maxoutdegree : g->outdeg;
	HC_CHECK_ARRAY(ci, sources, nin, "MPI_Dist_graph_neighbors");
	HC_CHECK_ARRAY(ci, destinations, nout, "MPI_Dist_graph_neighbors");
	int wi = g->weighted && sourceweights != MPI_UNWEIGHTED && sourceweights != MPI_WEIGHTS_EMPTY && sourceweights;
	int wo = g->weighted && destweights != MPI_UNWEIGHTED && destweights != MPI_WEIGHTS_EMPTY && destweights;
	if (wi) HC_CHECK_ARRAY(ci, sourceweights, nin, "MPI_Dist_graph_neighbors");
	if (wo) HC_CHECK_ARRAY(ci, destweights, nout, "MPI_Dist_graph_neighbors");
	for (int i = 0; i < g->indeg && i < maxindegree; i++) {
		sources[i] = g->src[i];
		if (wi) sourceweights[i] = g->srcw[i];
	}
	for (int i = 0; i < g->outdeg && i < maxoutdegree; i++) {
		destinations[i] = g->dst[i];
		if (wo) destweights[i] = g->dstw[i];
	}
	return MPI_SUCCESS;
}

#define HC_ALIASES_topo_graph
#include "aliases_gen.h"
