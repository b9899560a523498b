/* Communicators beyond dup and split: Comm_split_type as MPI 4.1 defines
 * it, hints (set/get_info, dup_with_info, idup), Comm_create_from_group,
 * Group_excl of everyone, Cart_sub keeping no dimension, and graph and
 * distributed-graph topologies with Topo_test, Cart_map and Graph_map. */
#include "check.h"

/* MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY are sentinel pointers GCC takes for
 * tiny arrays. */
#pragma GCC diagnostic ignored "-Wstringop-overread"
#pragma GCC diagnostic ignored "-Warray-bounds"
#pragma GCC diagnostic ignored "-Wstringop-overflow"

static int deletes;
static int count_delete(MPI_Comm c, int k, void *v, void *x)
{
	(void)c, (void)k, (void)v, (void)x;
	deletes++;
	return MPI_SUCCESS;
}
static int count_type_delete(MPI_Datatype t, int k, void *v, void *x)
{
	(void)t, (void)k, (void)v, (void)x;
	deletes++;
	return MPI_SUCCESS;
}

static int info_is(MPI_Comm c, const char *key, const char *want)
{
	MPI_Info info;
	char v[MPI_MAX_INFO_VAL + 1];
	int flag = 0;
	CHECK_RC(MPI_Comm_get_info(c, &info));
	CHECK_RC(MPI_Info_get(info, key, MPI_MAX_INFO_VAL, v, &flag));
	MPI_Info_free(&info);
	return flag && (!want || strcmp(v, want) == 0);
}

static void check_size(MPI_Comm c, int want)
{
	int n;
	CHECK(c != MPI_COMM_NULL);
	CHECK_RC(MPI_Comm_size(c, &n));
	CHECK(n == want);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size, n, res;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm c;
	MPI_Info info;

	/* ---- Comm_split_type ---- */
	CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, -rank, MPI_INFO_NULL, &c));
	check_size(c, size);
	MPI_Comm_rank(c, &n);
	CHECK(n == size - 1 - rank); /* ordered by key */
	MPI_Comm_free(&c);
	CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &c));
	CHECK(c == MPI_COMM_NULL);
	CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, 12345, 0, MPI_INFO_NULL, &c) == MPI_ERR_ARG);
	/* HW_GUIDED: no info, an unknown value -> MPI_COMM_NULL. */
	CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, MPI_INFO_NULL, &c));
	CHECK(c == MPI_COMM_NULL);
	MPI_Info_create(&info);
	MPI_Info_set(info, "mpi_hw_resource_type", "hwloc://NoSuchThing");
	CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &c));
	CHECK(c == MPI_COMM_NULL);
	/* mpi_shared_memory and the machine: everyone. */
	MPI_Info_set(info, "mpi_hw_resource_type", "mpi_shared_memory");
	CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &c));
	check_size(c, size);
	CHECK(info_is(c, "mpi_hw_resource_type", "mpi_shared_memory"));
	MPI_Comm_free(&c);
	MPI_Info_set(info, "mpi_hw_resource_type", "hwloc://Machine");
	CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &c));
	check_size(c, size);
	MPI_Comm_free(&c);
	/* The hardware thread: a rank is either bound to one (then it is alone
	 * there or shares it with oversubscribed ranks) or gets COMM_NULL. */
	MPI_Info_set(info, "mpi_hw_resource_type", "hwloc://PU");
	CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &c));
	if (c != MPI_COMM_NULL) {
		CHECK(info_is(c, "mpi_hw_resource_type", "hwloc://PU"));
		MPI_Comm_free(&c);
	}
	/* HW_UNGUIDED: a strictly smaller communicator with the key set, or
	 * MPI_COMM_NULL when no level splits the ranks. */
	CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, 0, MPI_INFO_NULL, &c));
	if (c != MPI_COMM_NULL) {
		MPI_Comm_size(c, &n);
		CHECK(n < size);
		CHECK(info_is(c, "mpi_hw_resource_type", NULL));
		MPI_Comm_free(&c);
	}
	if (size == 1) CHECK(c == MPI_COMM_NULL);
	/* With an info, the level is also set in it (as MPICH does). */
	MPI_Info hw;
	MPI_Info_create(&hw);
	CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, 0, hw, &c));
	if (c != MPI_COMM_NULL) {
		char lv[MPI_MAX_INFO_VAL];
		int lflag = 0;
		MPI_Info_get(hw, "mpi_hw_resource_type", sizeof lv - 1, lv, &lflag);
		CHECK(lflag && lv[0] && info_is(c, "mpi_hw_resource_type", lv));
		MPI_Comm_free(&c);
	}
	MPI_Info_free(&hw);
	/* RESOURCE_GUIDED with the two process sets; anything else: NULL. */
	MPI_Info_set(info, "mpi_pset_name", "mpi://WORLD");
	CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, 0, info, &c));
	check_size(c, size);
	MPI_Comm_free(&c);
	MPI_Info_set(info, "mpi_pset_name", "mpi://SELF");
	CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, 0, info, &c));
	check_size(c, 1);
	MPI_Comm_free(&c);
	MPI_Info_set(info, "mpi_pset_name", "mpi://nonsense");
	CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, 0, info, &c));
	CHECK(c == MPI_COMM_NULL);
	MPI_Info_free(&info);

	/* ---- hints, dup_with_info, idup ---- */
	MPI_Info_create(&info);
	MPI_Info_set(info, "hympi_test_hint", "yes");
	CHECK_RC(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &c));
	CHECK(info_is(c, "hympi_test_hint", "yes"));
	MPI_Comm d;
	CHECK_RC(MPI_Comm_dup(c, &d)); /* Comm_dup keeps the hints */
	CHECK(info_is(d, "hympi_test_hint", "yes"));
	MPI_Comm_free(&d);
	MPI_Info_set(info, "hympi_test_hint", "no");
	CHECK_RC(MPI_Comm_set_info(c, info));
	CHECK(info_is(c, "hympi_test_hint", "no"));
	CHECK(!info_is(MPI_COMM_WORLD, "hympi_test_hint", NULL));
	/* Hints hympi does not know are ignored, so not returned (MPICH too). */
	MPI_Info_set(info, "no_such_hint", "1");
	CHECK_RC(MPI_Comm_set_info(c, info));
	CHECK(!info_is(c, "no_such_hint", NULL));
	CHECK(info_is(c, "hympi_test_hint", "no"));
	MPI_Info_delete(info, "no_such_hint");
	MPI_Request rq;
	CHECK_RC(MPI_Comm_idup_with_info(c, info, &d, &rq));
	CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
	CHECK(rq == MPI_REQUEST_NULL && info_is(d, "hympi_test_hint", "no"));
	MPI_Comm_free(&d);
	MPI_Comm_free(&c);
	MPI_Info_free(&info);
	CHECK_RC(MPI_Comm_idup(MPI_COMM_WORLD, &c, &rq));
	CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
	CHECK_RC(MPI_Comm_compare(MPI_COMM_WORLD, c, &res));
	CHECK(res == MPI_CONGRUENT);
	int x = rank, y = -1;
	CHECK_RC(MPI_Sendrecv(&x, 1, MPI_INT, (rank + 1) % size, 0, &y, 1, MPI_INT, (rank + size - 1) % size, 0, c,
			      MPI_STATUS_IGNORE));
	CHECK(y == (rank + size - 1) % size);
	MPI_Comm_free(&c);

	/* ---- groups: excluding everyone gives MPI_GROUP_EMPTY ---- */
	MPI_Group wg, g;
	MPI_Comm_group(MPI_COMM_WORLD, &wg);
	int all[64];
	for (int i = 0; i < size; i++) all[i] = i;
	CHECK_RC(MPI_Group_excl(wg, size, all, &g));
	CHECK(g == MPI_GROUP_EMPTY);
	CHECK_RC(MPI_Group_incl(wg, 0, all, &g));
	CHECK(g == MPI_GROUP_EMPTY);
	CHECK_RC(MPI_Group_difference(wg, wg, &g));
	CHECK(g == MPI_GROUP_EMPTY);

	/* ---- Comm_create_from_group: the even ranks, by string tag ---- */
	int evens[64], ne = 0;
	for (int i = 0; i < size; i += 2) evens[ne++] = i;
	MPI_Group_incl(wg, ne, evens, &g);
	if (rank % 2 == 0) {
		CHECK_RC(MPI_Comm_create_from_group(g, "org.hympi.test.evens", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
		check_size(c, ne);
		MPI_Comm_rank(c, &n);
		CHECK(n == rank / 2);
		MPI_Errhandler eh;
		MPI_Comm_get_errhandler(c, &eh);
		CHECK(eh == MPI_ERRORS_RETURN);
		int sum = 0;
		CHECK_RC(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c));
		CHECK(sum == (ne - 1) * ne);
		MPI_Comm_free(&c);
	}
	MPI_Group_free(&g);
	CHECK_RC(MPI_Comm_create_from_group(wg, "org.hympi.test.all", MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &c));
	check_size(c, size);
	MPI_Comm_free(&c);
	MPI_Group_free(&wg);

	/* ---- Cart_sub keeping no dimension: a 0-dim cart of rank 0 alone,
	 * congruent to MPI_COMM_SELF; MPI_COMM_NULL elsewhere (MPICH) ---- */
	{
		int dims[2] = {0, 0}, periods[2] = {0, 0}, remain[2] = {0, 0};
		MPI_Dims_create(size, 2, dims);
		MPI_Comm cart, sub;
		CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
		CHECK_RC(MPI_Cart_sub(cart, remain, &sub));
		if (rank == 0) {
			check_size(sub, 1);
			int nd = -1, st;
			CHECK_RC(MPI_Cartdim_get(sub, &nd));
			CHECK(nd == 0);
			CHECK_RC(MPI_Topo_test(sub, &st));
			CHECK(st == MPI_CART);
			CHECK_RC(MPI_Comm_compare(MPI_COMM_SELF, sub, &res));
			CHECK(res == MPI_CONGRUENT);
			MPI_Comm_free(&sub);
		} else {
			CHECK(sub == MPI_COMM_NULL);
		}
		MPI_Comm_free(&cart);
		CHECK_RC(MPI_Cart_map(MPI_COMM_WORLD, 2, dims, periods, &n));
		CHECK(n == rank);
		int one = 1;
		CHECK_RC(MPI_Cart_map(MPI_COMM_WORLD, 1, &one, periods, &n));
		CHECK(n == (rank == 0 ? 0 : MPI_UNDEFINED));
	}

	/* ---- graph topology: a ring over all ranks but the last ---- */
	{
		int nn = size > 1 ? size - 1 : 1, index[64], edges[128], k = 0;
		for (int i = 0; i < nn; i++) {
			if (nn > 1) {
				edges[k++] = (i + 1) % nn;
				edges[k++] = (i + nn - 1) % nn;
			}
			index[i] = k;
		}
		MPI_Comm gc;
		CHECK_RC(MPI_Graph_create(MPI_COMM_WORLD, nn, index, edges, 0, &gc));
		if (rank >= nn) {
			CHECK(gc == MPI_COMM_NULL);
		} else {
			int st, nodes, nedges, cnt, nb[2];
			CHECK_RC(MPI_Topo_test(gc, &st));
			CHECK(st == MPI_GRAPH);
			CHECK_RC(MPI_Graphdims_get(gc, &nodes, &nedges));
			CHECK(nodes == nn && nedges == k);
			CHECK_RC(MPI_Graph_neighbors_count(gc, rank, &cnt));
			CHECK(cnt == (nn > 1 ? 2 : 0));
			if (nn > 1) {
				CHECK_RC(MPI_Graph_neighbors(gc, rank, 2, nb));
				CHECK(nb[0] == (rank + 1) % nn && nb[1] == (rank + nn - 1) % nn);
			}
			int gi[64], ge[128];
			CHECK_RC(MPI_Graph_get(gc, nn, k, gi, ge));
			for (int i = 0; i < nn; i++) CHECK(gi[i] == index[i]);
			for (int i = 0; i < k; i++) CHECK(ge[i] == edges[i]);
			CHECK(MPI_Graph_neighbors_count(gc, nn, &cnt) == MPI_ERR_RANK);
			MPI_Comm dup;
			CHECK_RC(MPI_Comm_dup(gc, &dup)); /* the topology goes along */
			CHECK_RC(MPI_Topo_test(dup, &st));
			CHECK(st == MPI_GRAPH);
			MPI_Comm_free(&dup);
			CHECK(MPI_Cartdim_get(gc, &cnt) == MPI_ERR_TOPOLOGY);
			MPI_Comm_free(&gc);
		}
		CHECK_RC(MPI_Graph_map(MPI_COMM_WORLD, nn, index, edges, &n));
		CHECK(n == (rank < nn ? rank : MPI_UNDEFINED));
		int bad[1] = {5};
		int bi[1] = {1};
		CHECK(MPI_Graph_create(MPI_COMM_WORLD, 1, bi, bad, 0, &gc) == MPI_ERR_ARG);
		int st;
		CHECK_RC(MPI_Topo_test(MPI_COMM_WORLD, &st));
		CHECK(st == MPI_UNDEFINED);
	}

	/* ---- distributed graphs ---- */
	{
		/* Adjacent: each rank hears from its left, talks to its right,
		 * weighted by the peer's rank. */
		int left = (rank + size - 1) % size, right = (rank + 1) % size;
		int lw = left + 10, rw = right + 10;
		MPI_Comm dg;
		CHECK_RC(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, &lw, 1, &right, &rw, MPI_INFO_NULL, 0,
						       &dg));
		int st, in, out, w, s[2], sw[2], dd[2], dw[2];
		CHECK_RC(MPI_Topo_test(dg, &st));
		CHECK(st == MPI_DIST_GRAPH);
		CHECK_RC(MPI_Dist_graph_neighbors_count(dg, &in, &out, &w));
		CHECK(in == 1 && out == 1 && w);
		CHECK_RC(MPI_Dist_graph_neighbors(dg, 1, s, sw, 1, dd, dw));
		CHECK(s[0] == left && sw[0] == left + 10 && dd[0] == right && dw[0] == right + 10);
		MPI_Comm_free(&dg);
		/* General: rank 0 describes every edge r -> (r+1)%size, unweighted. */
		int nodes[64], degs[64], tg[64], nn = 0;
		if (rank == 0)
			for (int r = 0; r < size; r++) nodes[nn] = r, degs[nn] = 1, tg[nn] = (r + 1) % size, nn++;
		CHECK_RC(MPI_Dist_graph_create(MPI_COMM_WORLD, nn, nodes, degs, tg, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg));
		CHECK_RC(MPI_Dist_graph_neighbors_count(dg, &in, &out, &w));
		CHECK(in == 1 && out == 1 && !w);
		CHECK_RC(MPI_Dist_graph_neighbors(dg, 1, s, MPI_UNWEIGHTED, 1, dd, MPI_UNWEIGHTED));
		CHECK(s[0] == left && dd[0] == right);
		CHECK(MPI_Graphdims_get(dg, &in, &out) == MPI_ERR_TOPOLOGY);
		MPI_Comm_free(&dg);
		/* No edge anywhere: MPI_UNWEIGHTED still makes it unweighted. */
		CHECK_RC(MPI_Dist_graph_create(MPI_COMM_WORLD, 0, NULL, NULL, NULL, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg));
		CHECK_RC(MPI_Dist_graph_neighbors_count(dg, &in, &out, &w));
		CHECK(in == 0 && out == 0 && !w);
		MPI_Comm_free(&dg);
		/* No edges at all. */
		CHECK_RC(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_WEIGHTS_EMPTY, 0, NULL, MPI_WEIGHTS_EMPTY,
						       MPI_INFO_NULL, 0, &dg));
		CHECK_RC(MPI_Dist_graph_neighbors_count(dg, &in, &out, &w));
		CHECK(in == 0 && out == 0);
		MPI_Comm_free(&dg);
		CHECK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &size, MPI_UNWEIGHTED, 0, NULL, MPI_UNWEIGHTED,
						    MPI_INFO_NULL, 0, &dg) == MPI_ERR_RANK);
	}

	/* ---- Comm_free does not wait for the other members: a receive
	 * posted before the free completes when the message comes, sent
	 * after a handshake the free would deadlock if it synchronised. ---- */
	if (size > 1) {
		MPI_Comm dup;
		CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
		int src = 0, dst = size - 1, buf[16];
		if (rank == dst) {
			for (int i = 0; i < 16; i++) buf[i] = -1;
			MPI_Request rq;
			CHECK_RC(MPI_Irecv(buf, 16, MPI_INT, src, 0, dup, &rq));
			CHECK_RC(MPI_Comm_free(&dup));
			CHECK(dup == MPI_COMM_NULL);
			CHECK_RC(MPI_Sendrecv(NULL, 0, MPI_INT, src, 1, NULL, 0, MPI_INT, src, 1, MPI_COMM_WORLD,
					      MPI_STATUS_IGNORE));
			CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
			for (int i = 0; i < 16; i++) CHECK(buf[i] == i);
		} else if (rank == src) {
			for (int i = 0; i < 16; i++) buf[i] = i;
			CHECK_RC(MPI_Sendrecv(NULL, 0, MPI_INT, dst, 1, NULL, 0, MPI_INT, dst, 1, MPI_COMM_WORLD,
					      MPI_STATUS_IGNORE));
			CHECK_RC(MPI_Send(buf, 16, MPI_INT, dst, 0, dup));
			CHECK_RC(MPI_Comm_free(&dup));
		} else {
			CHECK_RC(MPI_Comm_free(&dup));
		}
	}

	MPI_Barrier(MPI_COMM_WORLD);
	/* A keyval freed twice through two copies of its handle while an
	 * attribute still holds it: the second free succeeds and releases
	 * nothing (MPICH and Open MPI alike); the attribute's delete callback
	 * still runs once, when the attribute goes. */
	{
		int kv, kv2, tkv, tkv2;
		MPI_Comm cd;
		MPI_Datatype td;
		CHECK_RC(MPI_Comm_dup(MPI_COMM_SELF, &cd));
		CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_delete, &kv, NULL));
		kv2 = kv;
		CHECK_RC(MPI_Comm_set_attr(cd, kv, NULL));
		CHECK_RC(MPI_Comm_free_keyval(&kv));
		CHECK(kv == MPI_KEYVAL_INVALID);
		CHECK_RC(MPI_Comm_free_keyval(&kv2));
		deletes = 0;
		CHECK_RC(MPI_Comm_free(&cd));
		CHECK(deletes == 1);
		CHECK_RC(MPI_Type_dup(MPI_INT, &td));
		CHECK_RC(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, count_type_delete, &tkv, NULL));
		tkv2 = tkv;
		CHECK_RC(MPI_Type_set_attr(td, tkv, NULL));
		CHECK_RC(MPI_Type_free_keyval(&tkv));
		CHECK_RC(MPI_Type_free_keyval(&tkv2));
		CHECK_RC(MPI_Type_free(&td));
		CHECK(deletes == 2);
	}
	/* A process the launcher started (not MPI_Comm_spawn) has no parent:
	 * MPI_COMM_NULL, as in MPICH and Open MPI, not an error. */
	{
		MPI_Comm parent = MPI_COMM_WORLD;
		CHECK_RC(MPI_Comm_get_parent(&parent));
		CHECK(parent == MPI_COMM_NULL);
		CHECK(MPI_Comm_get_parent(NULL) == MPI_ERR_ARG);
	}
	report_ok();
	MPI_Finalize();
	return 0;
}
