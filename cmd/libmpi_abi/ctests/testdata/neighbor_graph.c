/* Neighbourhood collectives on graph (MPI_Graph_create) and distributed
 * graph (MPI_Dist_graph_create_adjacent, MPI_Dist_graph_create)
 * communicators: allgather(v) and alltoall(v,w), blocking, nonblocking and
 * persistent, on topologies with an isolated rank, self loops and
 * repeated edges, against a serial reference built from every rank's
 * neighbour lists as the library reports them. Repeated neighbours pair
 * their messages in order: the j-th block a rank sends to a peer is the
 * j-th block that peer receives from it. */
#include "check.h"

#define MAXD 16
static int wrank, wsize;

/* Every rank's lists, gathered, for the reference. */
static int allin[64][MAXD], allout[64][MAXD], allindeg[64], alloutdeg[64];

static int val(int s, int k, int i) { return s * 1000 + k * 10 + i + 1; }

/* occurrence: how many times x appears in v[0..k). */
static int occurrence(const int *v, int k, int x)
{
	int j = 0;
	for (int q = 0; q < k; q++) j += v[q] == x;
	return j;
}

/* nth: the position of the j-th occurrence of x in v[0..n), -1 if none. */
static int nth(const int *v, int n, int x, int j)
{
	for (int q = 0; q < n; q++)
		if (v[q] == x && j-- == 0) return q;
	return -1;
}

/* The block of source s (its send block k2) that lands in my receive
 * block k, and its count for the v forms. */
static int sender_block(int me, int k)
{
	int s = allin[me][k];
	int k2 = nth(allout[s], alloutdeg[s], me, occurrence(allin[me], k, s));
	CHECK(k2 >= 0);
	return k2;
}
static int vcount(int s, int k2) { return 1 + (s + k2) % 3; }

enum { BLOCKING, NONBLOCKING, PERSISTENT };

static void finish(int mode, MPI_Request *r)
{
	if (mode == NONBLOCKING) CHECK_RC(MPI_Wait(r, MPI_STATUS_IGNORE));
	if (mode == PERSISTENT) {
		for (int t = 0; t < 2; t++) {
			CHECK_RC(MPI_Start(r));
			CHECK_RC(MPI_Wait(r, MPI_STATUS_IGNORE));
		}
		CHECK_RC(MPI_Request_free(r));
	}
}

#define CALL(mode, blocking, nonblocking, init)                                                                        \
	do {                                                                                                           \
		MPI_Request r_ = MPI_REQUEST_NULL;                                                                     \
		if ((mode) == BLOCKING) CHECK_RC(blocking);                                                            \
		if ((mode) == NONBLOCKING) CHECK_RC(nonblocking);                                                      \
		if ((mode) == PERSISTENT) CHECK_RC(init);                                                              \
		finish(mode, &r_);                                                                                     \
	} while (0)
#define R (&r_)
#define NI MPI_INFO_NULL

static void run_all(MPI_Comm c, int me)
{
	int indeg = allindeg[me], outdeg = alloutdeg[me];
	int send[4 * MAXD], recv[4 * MAXD + 4];
	for (int mode = BLOCKING; mode <= PERSISTENT; mode++) {
		/* Allgather: the same 2 ints to every destination. */
		for (int i = 0; i < 2; i++) send[i] = val(me, 0, i);
		for (int i = 0; i < 4 * MAXD + 4; i++) recv[i] = -1;
		CALL(mode, MPI_Neighbor_allgather(send, 2, MPI_INT, recv, 2, MPI_INT, c),
		     MPI_Ineighbor_allgather(send, 2, MPI_INT, recv, 2, MPI_INT, c, R),
		     MPI_Neighbor_allgather_init(send, 2, MPI_INT, recv, 2, MPI_INT, c, NI, R));
		for (int k = 0; k < indeg; k++)
			for (int i = 0; i < 2; i++) CHECK(recv[2 * k + i] == val(allin[me][k], 0, i));
		CHECK(recv[2 * indeg] == -1);
		/* Allgatherv: source s sends 1 + s % 3 ints, blocks 4 apart. */
		int rc[MAXD], rd[MAXD], sc[MAXD], sd[MAXD];
		for (int k = 0; k < indeg; k++) rc[k] = 1 + allin[me][k] % 3, rd[k] = 4 * k;
		for (int i = 0; i < 3; i++) send[i] = val(me, 0, i);
		for (int i = 0; i < 4 * MAXD + 4; i++) recv[i] = -1;
		CALL(mode, MPI_Neighbor_allgatherv(send, 1 + me % 3, MPI_INT, recv, rc, rd, MPI_INT, c),
		     MPI_Ineighbor_allgatherv(send, 1 + me % 3, MPI_INT, recv, rc, rd, MPI_INT, c, R),
		     MPI_Neighbor_allgatherv_init(send, 1 + me % 3, MPI_INT, recv, rc, rd, MPI_INT, c, NI, R));
		for (int k = 0; k < indeg; k++)
			for (int i = 0; i < 4; i++) CHECK(recv[4 * k + i] == (i < rc[k] ? val(allin[me][k], 0, i) : -1));
		/* Alltoall: block k (2 ints) to destination k. */
		for (int k = 0; k < outdeg; k++)
			for (int i = 0; i < 2; i++) send[2 * k + i] = val(me, k, i);
		for (int i = 0; i < 4 * MAXD + 4; i++) recv[i] = -1;
		CALL(mode, MPI_Neighbor_alltoall(send, 2, MPI_INT, recv, 2, MPI_INT, c),
		     MPI_Ineighbor_alltoall(send, 2, MPI_INT, recv, 2, MPI_INT, c, R),
		     MPI_Neighbor_alltoall_init(send, 2, MPI_INT, recv, 2, MPI_INT, c, NI, R));
		for (int k = 0; k < indeg; k++)
			for (int i = 0; i < 2; i++) CHECK(recv[2 * k + i] == val(allin[me][k], sender_block(me, k), i));
		CHECK(recv[2 * indeg] == -1);
		/* Alltoallv: block k of vcount(me, k) ints from 4k, received in
		 * reverse order 4 apart. */
		for (int k = 0; k < outdeg; k++) {
			sc[k] = vcount(me, k), sd[k] = 4 * k;
			for (int i = 0; i < 4; i++) send[4 * k + i] = val(me, k, i);
		}
		for (int k = 0; k < indeg; k++) rc[k] = vcount(allin[me][k], sender_block(me, k)), rd[k] = 4 * (indeg - 1 - k);
		for (int i = 0; i < 4 * MAXD + 4; i++) recv[i] = -1;
		CALL(mode, MPI_Neighbor_alltoallv(send, sc, sd, MPI_INT, recv, rc, rd, MPI_INT, c),
		     MPI_Ineighbor_alltoallv(send, sc, sd, MPI_INT, recv, rc, rd, MPI_INT, c, R),
		     MPI_Neighbor_alltoallv_init(send, sc, sd, MPI_INT, recv, rc, rd, MPI_INT, c, NI, R));
		for (int k = 0; k < indeg; k++)
			for (int i = 0; i < 4; i++)
				CHECK(recv[rd[k] + i] == (i < rc[k] ? val(allin[me][k], sender_block(me, k), i) : -1));
		/* Alltoallw: the same in bytes, per-block types. */
		MPI_Aint sdw[MAXD], rdw[MAXD];
		MPI_Datatype st[MAXD], rt[MAXD];
		for (int k = 0; k < outdeg; k++) sdw[k] = 4 * sd[k], st[k] = MPI_INT;
		for (int k = 0; k < indeg; k++) rdw[k] = 4 * rd[k], rt[k] = MPI_INT;
		for (int i = 0; i < 4 * MAXD + 4; i++) recv[i] = -1;
		CALL(mode, MPI_Neighbor_alltoallw(send, sc, sdw, st, recv, rc, rdw, rt, c),
		     MPI_Ineighbor_alltoallw(send, sc, sdw, st, recv, rc, rdw, rt, c, R),
		     MPI_Neighbor_alltoallw_init(send, sc, sdw, st, recv, rc, rdw, rt, c, NI, R));
		for (int k = 0; k < indeg; k++)
			for (int i = 0; i < 4; i++)
				CHECK(recv[rd[k] + i] == (i < rc[k] ? val(allin[me][k], sender_block(me, k), i) : -1));
	}
	/* A non-contiguous type: every other int, blocks at the type's extent. */
	MPI_Datatype v;
	CHECK_RC(MPI_Type_vector(2, 1, 2, MPI_INT, &v));
	CHECK_RC(MPI_Type_commit(&v));
	for (int k = 0; k < outdeg; k++)
		for (int i = 0; i < 3; i++) send[3 * k + i] = i == 1 ? -7 : val(me, k, i / 2);
	for (int i = 0; i < 4 * MAXD + 4; i++) recv[i] = -1;
	CHECK_RC(MPI_Neighbor_alltoall(send, 1, v, recv, 1, v, c));
	for (int k = 0; k < indeg; k++)
		for (int i = 0; i < 3; i++)
			CHECK(recv[3 * k + i] == (i == 1 ? -1 : val(allin[me][k], sender_block(me, k), i / 2)));
	MPI_Type_free(&v);
	/* Large-count form. */
	MPI_Count cc = 2;
	for (int i = 0; i < 4 * MAXD + 4; i++) recv[i] = -1;
	for (int i = 0; i < 2; i++) send[i] = val(me, 0, i);
	CHECK_RC(MPI_Neighbor_allgather_c(send, cc, MPI_INT, recv, cc, MPI_INT, c));
	for (int k = 0; k < indeg; k++)
		for (int i = 0; i < 2; i++) CHECK(recv[2 * k + i] == val(allin[me][k], 0, i));
}

/* gather_lists records every rank's in and out lists of c. */
static void gather_lists(MPI_Comm c, const int *in, int indeg, const int *out, int outdeg)
{
	int mine[2 * MAXD + 2] = {0};
	CHECK(indeg <= MAXD && outdeg <= MAXD);
	mine[0] = indeg, mine[1] = outdeg;
	memcpy(mine + 2, in, indeg * sizeof(int));
	memcpy(mine + 2 + MAXD, out, outdeg * sizeof(int));
	int all[64 * (2 * MAXD + 2)], n;
	MPI_Comm_size(c, &n);
	CHECK_RC(MPI_Allgather(mine, 2 * MAXD + 2, MPI_INT, all, 2 * MAXD + 2, MPI_INT, c));
	for (int r = 0; r < n; r++) {
		int *p = all + r * (2 * MAXD + 2);
		allindeg[r] = p[0], alloutdeg[r] = p[1];
		memcpy(allin[r], p + 2, MAXD * sizeof(int));
		memcpy(allout[r], p + 2 + MAXD, MAXD * sizeof(int));
	}
}

/* A graph: node 0 alone; the others a ring (both ways), 1 and 2 joined
 * twice more; with one other node, it loops to itself. */
static void graph_case(void)
{
	int index[64], edges[64 * 4], ne = 0, m = wsize - 1;
	for (int i = 0; i < wsize; i++) {
		if (i > 0) {
			int prev = 1 + (i - 2 + m) % m, next = 1 + i % m;
			edges[ne++] = prev;
			edges[ne++] = next;
			if (i == 1 && wsize > 2) edges[ne++] = 2;
			if (i == 2) edges[ne++] = 1;
		}
		index[i] = ne;
	}
	MPI_Comm g;
	CHECK_RC(MPI_Graph_create(MPI_COMM_WORLD, wsize, index, edges, 0, &g));
	int me, nn;
	MPI_Comm_rank(g, &me);
	CHECK_RC(MPI_Graph_neighbors_count(g, me, &nn));
	int nb[MAXD];
	CHECK_RC(MPI_Graph_neighbors(g, me, MAXD, nb));
	gather_lists(g, nb, nn, nb, nn);
	run_all(g, me);
	CHECK_RC(MPI_Comm_free(&g));
}

/* Directed edges among the first m ranks (the last rank of 3 or more is
 * alone): r -> r+1 twice, r -> r+2, and 0 -> 0. */
static int edge_list(int *src, int *dst)
{
	int m = wsize >= 3 ? wsize - 1 : wsize, ne = 0;
	for (int r = 0; r < m; r++) {
		src[ne] = r, dst[ne++] = (r + 1) % m;
		src[ne] = r, dst[ne++] = (r + 2) % m;
		src[ne] = r, dst[ne++] = (r + 1) % m;
	}
	src[ne] = 0, dst[ne++] = 0;
	return ne;
}

static void dist_cases(void)
{
	int src[256], dst[256], ne = edge_list(src, dst);
	int in[MAXD], out[MAXD], indeg = 0, outdeg = 0;
	for (int e = 0; e < ne; e++) {
		if (dst[e] == wrank) in[indeg++] = src[e];
		if (src[e] == wrank) out[outdeg++] = dst[e];
	}
	int inw[MAXD], outw[MAXD];
	for (int k = 0; k < MAXD; k++) inw[k] = outw[k] = k + 1;
	MPI_Comm d;
	CHECK_RC(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, indeg, in, inw, outdeg, out, outw, MPI_INFO_NULL, 0, &d));
	gather_lists(d, in, indeg, out, outdeg);
	run_all(d, wrank);
	CHECK_RC(MPI_Comm_free(&d));

	/* The same edges, each described by rank e % size, with weights
	 * (which play no part); the lists' order is the library's, so the
	 * reference reads them back. */
	int nodes[256], degrees[256], targets[256], weights[256], n = 0;
	for (int e = 0; e < ne; e++)
		if (e % wsize == wrank) nodes[n] = src[e], degrees[n] = 1, targets[n] = dst[e], weights[n++] = e + 1;
	CHECK_RC(MPI_Dist_graph_create(MPI_COMM_WORLD, n, nodes, degrees, targets, weights, MPI_INFO_NULL, 0, &d));
	int id, od, w;
	CHECK_RC(MPI_Dist_graph_neighbors_count(d, &id, &od, &w));
	CHECK(id == indeg && od == outdeg && w);
	int iw[MAXD], ow[MAXD];
	CHECK_RC(MPI_Dist_graph_neighbors(d, MAXD, in, iw, MAXD, out, ow));
	gather_lists(d, in, id, out, od);
	run_all(d, wrank);
	CHECK_RC(MPI_Comm_free(&d));
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
	MPI_Comm_size(MPI_COMM_WORLD, &wsize);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	graph_case();
	dist_cases();
	/* No topology: no neighbourhood. */
	int x = 0, y;
	CHECK(MPI_Neighbor_allgather(&x, 1, MPI_INT, &y, 1, MPI_INT, MPI_COMM_WORLD) == MPI_ERR_TOPOLOGY);
	report_ok();
	MPI_Finalize();
	return 0;
}
