/* Neighbourhood collectives on Cartesian communicators against a
 * reference built from MPI_Cart_shift: a periodic ring (at 1 and 2 ranks
 * both neighbours are one rank, so the pairing of the two messages shows),
 * and a 2-D grid periodic in one dimension only (MPI_PROC_NULL edges leave
 * their blocks untouched). Every form: blocking, nonblocking, persistent
 * (restarted), int and _c, with point-to-point messages pending on the same
 * communicator and a neighbourhood collective on a duplicate in flight. */
#include "check.h"

#define MAXD 4 /* neighbours: 2 per dimension, at most 2 dimensions */

static int rank;
static int src[MAXD], dst[MAXD], nn;

/* What rank r sends in block k (alltoall) or to everyone (allgather, k = -1). */
static int sent(int seed, int r, int k) { return seed * 1000 + r * 10 + k + 1; }

/* Block k comes from src[k]; that rank sent it as its block k^1 (what goes
 * up arrives from below). */
static void expect(const int *got, int seed, int all, int per, const char *what)
{
	for (int k = 0; k < nn; k++) {
		for (int e = 0; e < per; e++) {
			int want = src[k] == MPI_PROC_NULL ? -7 : sent(seed, src[k], all ? -1 : (k ^ 1)) + e * 100;
			if (got[k * per + e] != want) {
				fprintf(stderr, "rank %d: %s block %d[%d]: %d, want %d\n", rank, what, k, e, got[k * per + e], want);
				MPI_Abort(MPI_COMM_WORLD, 3);
			}
		}
	}
}

/* A ring exchange pending on a communicator across its collectives: the
 * receive takes any tag, so a collective message matching it shows. */
typedef struct {
	int in[2], out[2], seed, left;
	MPI_Request q[2];
} ringx;

static void ring_post(ringx *g, MPI_Comm c, int seed)
{
	int size, me;
	MPI_Comm_size(c, &size);
	MPI_Comm_rank(c, &me);
	g->seed = seed, g->left = (me + size - 1) % size;
	g->out[0] = seed * 1000 + me, g->out[1] = -seed;
	CHECK_RC(MPI_Irecv(g->in, 2, MPI_INT, g->left, MPI_ANY_TAG, c, &g->q[0]));
	CHECK_RC(MPI_Isend(g->out, 2, MPI_INT, (me + 1) % size, seed % 100, c, &g->q[1]));
}

static void ring_check(ringx *g)
{
	MPI_Status st[2];
	CHECK_RC(MPI_Waitall(2, g->q, st));
	CHECK(st[0].MPI_SOURCE == g->left && st[0].MPI_TAG == g->seed % 100);
	CHECK(g->in[0] == g->seed * 1000 + g->left && g->in[1] == -g->seed);
}

static void run(MPI_Comm cart, int seed)
{
	/* Point-to-point traffic pending on cart across its collectives, and
	 * a duplicate (it keeps the topology) running a neighbourhood
	 * collective of its own at the same time. */
	MPI_Comm dup;
	CHECK_RC(MPI_Comm_dup(cart, &dup));
	int dsb[MAXD * 2], dag[MAXD * 2];
	int sb[MAXD * 2], rb[MAXD * 2], one[2];
	int cnt[MAXD], dsp[MAXD];
	MPI_Count ccnt[MAXD];
	MPI_Aint cdsp[MAXD], bdsp[MAXD];
	MPI_Datatype ts[MAXD];
	for (int k = 0; k < nn; k++) {
		cnt[k] = 2, dsp[k] = 2 * k, ccnt[k] = 2, cdsp[k] = 2 * k, bdsp[k] = 2 * k * sizeof(int), ts[k] = MPI_INT;
	}
	for (int form = 0; form < 6; form++) {
		/* 0 blocking, 1 blocking _c, 2 nonblocking, 3 nonblocking _c,
		 * 4 persistent, 5 persistent _c (each started twice). */
		int starts = form >= 4 ? 2 : 1;
		MPI_Request q[5];
		for (int i = 0; i < 5; i++) q[i] = MPI_REQUEST_NULL;
		static int ag[MAXD * 2], aa[MAXD * 2], av[MAXD * 2], aw[MAXD * 2], agv[MAXD * 2];
		for (int st = 0; st < starts; st++) {
			int s = seed + st;
			one[0] = sent(s, rank, -1), one[1] = one[0] + 100;
			for (int k = 0; k < nn; k++) sb[2 * k] = sent(s, rank, k), sb[2 * k + 1] = sent(s, rank, k) + 100;
			for (int i = 0; i < MAXD * 2; i++) ag[i] = aa[i] = av[i] = aw[i] = agv[i] = dag[i] = -7;
			(void)rb;
			ringx g;
			ring_post(&g, cart, s);
			MPI_Request dq;
			for (int k = 0; k < nn; k++) dsb[2 * k] = sent(s + 50, rank, k), dsb[2 * k + 1] = dsb[2 * k] + 100;
			CHECK_RC(MPI_Ineighbor_alltoall(dsb, 2, MPI_INT, dag, 2, MPI_INT, dup, &dq));
			switch (form) {
			case 0:
				CHECK_RC(MPI_Neighbor_allgather(one, 2, MPI_INT, ag, 2, MPI_INT, cart));
				CHECK_RC(MPI_Neighbor_allgatherv(one, 2, MPI_INT, agv, cnt, dsp, MPI_INT, cart));
				CHECK_RC(MPI_Neighbor_alltoall(sb, 2, MPI_INT, aa, 2, MPI_INT, cart));
				CHECK_RC(MPI_Neighbor_alltoallv(sb, cnt, dsp, MPI_INT, av, cnt, dsp, MPI_INT, cart));
				CHECK_RC(MPI_Neighbor_alltoallw(sb, cnt, bdsp, ts, aw, cnt, bdsp, ts, cart));
				break;
			case 1:
				CHECK_RC(MPI_Neighbor_allgather_c(one, 2, MPI_INT, ag, 2, MPI_INT, cart));
				CHECK_RC(MPI_Neighbor_allgatherv_c(one, 2, MPI_INT, agv, ccnt, cdsp, MPI_INT, cart));
				CHECK_RC(MPI_Neighbor_alltoall_c(sb, 2, MPI_INT, aa, 2, MPI_INT, cart));
				CHECK_RC(MPI_Neighbor_alltoallv_c(sb, ccnt, cdsp, MPI_INT, av, ccnt, cdsp, MPI_INT, cart));
				CHECK_RC(MPI_Neighbor_alltoallw_c(sb, ccnt, bdsp, ts, aw, ccnt, bdsp, ts, cart));
				break;
			case 2:
				CHECK_RC(MPI_Ineighbor_allgather(one, 2, MPI_INT, ag, 2, MPI_INT, cart, &q[0]));
				CHECK_RC(MPI_Ineighbor_allgatherv(one, 2, MPI_INT, agv, cnt, dsp, MPI_INT, cart, &q[1]));
				CHECK_RC(MPI_Ineighbor_alltoall(sb, 2, MPI_INT, aa, 2, MPI_INT, cart, &q[2]));
				CHECK_RC(MPI_Ineighbor_alltoallv(sb, cnt, dsp, MPI_INT, av, cnt, dsp, MPI_INT, cart, &q[3]));
				CHECK_RC(MPI_Ineighbor_alltoallw(sb, cnt, bdsp, ts, aw, cnt, bdsp, ts, cart, &q[4]));
				break;
			case 3:
				CHECK_RC(MPI_Ineighbor_allgather_c(one, 2, MPI_INT, ag, 2, MPI_INT, cart, &q[0]));
				CHECK_RC(MPI_Ineighbor_allgatherv_c(one, 2, MPI_INT, agv, ccnt, cdsp, MPI_INT, cart, &q[1]));
				CHECK_RC(MPI_Ineighbor_alltoall_c(sb, 2, MPI_INT, aa, 2, MPI_INT, cart, &q[2]));
				CHECK_RC(MPI_Ineighbor_alltoallv_c(sb, ccnt, cdsp, MPI_INT, av, ccnt, cdsp, MPI_INT, cart, &q[3]));
				CHECK_RC(MPI_Ineighbor_alltoallw_c(sb, ccnt, bdsp, ts, aw, ccnt, bdsp, ts, cart, &q[4]));
				break;
			case 4:
				if (st == 0) {
					MPI_Info in = MPI_INFO_NULL;
					CHECK_RC(MPI_Neighbor_allgather_init(one, 2, MPI_INT, ag, 2, MPI_INT, cart, in, &q[0]));
					CHECK_RC(MPI_Neighbor_allgatherv_init(one, 2, MPI_INT, agv, cnt, dsp, MPI_INT, cart, in, &q[1]));
					CHECK_RC(MPI_Neighbor_alltoall_init(sb, 2, MPI_INT, aa, 2, MPI_INT, cart, in, &q[2]));
					CHECK_RC(MPI_Neighbor_alltoallv_init(sb, cnt, dsp, MPI_INT, av, cnt, dsp, MPI_INT, cart, in, &q[3]));
					CHECK_RC(MPI_Neighbor_alltoallw_init(sb, cnt, bdsp, ts, aw, cnt, bdsp, ts, cart, in, &q[4]));
				}
				CHECK_RC(MPI_Startall(5, q));
				break;
			case 5:
				if (st == 0) {
					MPI_Info in = MPI_INFO_NULL;
					CHECK_RC(MPI_Neighbor_allgather_init_c(one, 2, MPI_INT, ag, 2, MPI_INT, cart, in, &q[0]));
					CHECK_RC(MPI_Neighbor_allgatherv_init_c(one, 2, MPI_INT, agv, ccnt, cdsp, MPI_INT, cart, in, &q[1]));
					CHECK_RC(MPI_Neighbor_alltoall_init_c(sb, 2, MPI_INT, aa, 2, MPI_INT, cart, in, &q[2]));
					CHECK_RC(MPI_Neighbor_alltoallv_init_c(sb, ccnt, cdsp, MPI_INT, av, ccnt, cdsp, MPI_INT, cart, in, &q[3]));
					CHECK_RC(MPI_Neighbor_alltoallw_init_c(sb, ccnt, bdsp, ts, aw, ccnt, bdsp, ts, cart, in, &q[4]));
				}
				for (int i = 0; i < 5; i++) CHECK_RC(MPI_Start(&q[i]));
				break;
			}
			/* Completed in reverse order, the duplicate's last. */
			for (int i = 4; i >= 0; i--) CHECK_RC(MPI_Wait(&q[i], MPI_STATUS_IGNORE));
			CHECK_RC(MPI_Wait(&dq, MPI_STATUS_IGNORE));
			ring_check(&g);
			expect(dag, s + 50, 0, 2, "alltoall on the duplicate");
			expect(ag, s, 1, 2, "allgather");
			expect(agv, s, 1, 2, "allgatherv");
			expect(aa, s, 0, 2, "alltoall");
			expect(av, s, 0, 2, "alltoallv");
			expect(aw, s, 0, 2, "alltoallw");
		}
		if (form >= 4)
			for (int i = 0; i < 5; i++) CHECK_RC(MPI_Request_free(&q[i]));
	}
	CHECK_RC(MPI_Comm_free(&dup));
}

/* Non-contiguous blocks travel packed: alltoall(v,w) into every other int
 * (a strided type of 2 ints over 4), allgather(v) from a strided send; in
 * the int and the _c forms, blocking, nonblocking and persistent. */
static void strided_run(MPI_Comm cart, int seed)
{
	MPI_Datatype v, st;
	CHECK_RC(MPI_Type_vector(2, 1, 2, MPI_INT, &v));
	CHECK_RC(MPI_Type_create_resized(v, 0, 4 * sizeof(int), &st));
	CHECK_RC(MPI_Type_commit(&st));
	int sb[MAXD * 2], rs[MAXD * 4], rv[MAXD * 4], rw[MAXD * 4], one4[4], ag[MAXD * 2], agv[MAXD * 2];
	int cnt[MAXD], dsp[MAXD], ones[MAXD], rdsp[MAXD];
	MPI_Aint bdsp[MAXD], rbdsp[MAXD];
	MPI_Datatype ti[MAXD], tst[MAXD];
	MPI_Count ccnt[MAXD], cones[MAXD];
	MPI_Aint cdsp[MAXD], crdsp[MAXD];
	for (int k = 0; k < nn; k++) {
		cnt[k] = 2, dsp[k] = 2 * k, bdsp[k] = 2 * k * (MPI_Aint)sizeof(int), ti[k] = MPI_INT;
		ones[k] = 1, rdsp[k] = k, rbdsp[k] = 4 * k * (MPI_Aint)sizeof(int), tst[k] = st;
		ccnt[k] = 2, cdsp[k] = 2 * k, cones[k] = 1, crdsp[k] = k;
	}
	/* 0 blocking, 1 nonblocking, 2 persistent; 3-5 the same in _c. */
	for (int form = 0; form < 6; form++) {
		for (int k = 0; k < nn; k++) sb[2 * k] = sent(seed, rank, k), sb[2 * k + 1] = sent(seed, rank, k) + 100;
		one4[0] = sent(seed, rank, -1), one4[1] = -5, one4[2] = one4[0] + 100, one4[3] = -5;
		for (int i = 0; i < MAXD * 4; i++) rs[i] = rv[i] = rw[i] = -7;
		for (int i = 0; i < MAXD * 2; i++) ag[i] = agv[i] = -7;
		MPI_Request q[5];
		MPI_Info in = MPI_INFO_NULL;
		if (form == 3) {
			CHECK_RC(MPI_Neighbor_alltoall_c(sb, 2, MPI_INT, rs, 1, st, cart));
			CHECK_RC(MPI_Neighbor_allgather_c(one4, 1, st, ag, 2, MPI_INT, cart));
			CHECK_RC(MPI_Neighbor_alltoallv_c(sb, ccnt, cdsp, MPI_INT, rv, cones, crdsp, st, cart));
			CHECK_RC(MPI_Neighbor_alltoallw_c(sb, ccnt, bdsp, ti, rw, cones, rbdsp, tst, cart));
			CHECK_RC(MPI_Neighbor_allgatherv_c(one4, 1, st, agv, ccnt, cdsp, MPI_INT, cart));
		} else if (form == 4 || form == 5) {
			if (form == 4) {
				CHECK_RC(MPI_Ineighbor_alltoall_c(sb, 2, MPI_INT, rs, 1, st, cart, &q[0]));
				CHECK_RC(MPI_Ineighbor_allgather_c(one4, 1, st, ag, 2, MPI_INT, cart, &q[1]));
				CHECK_RC(MPI_Ineighbor_alltoallv_c(sb, ccnt, cdsp, MPI_INT, rv, cones, crdsp, st, cart, &q[2]));
				CHECK_RC(MPI_Ineighbor_alltoallw_c(sb, ccnt, bdsp, ti, rw, cones, rbdsp, tst, cart, &q[3]));
				CHECK_RC(MPI_Ineighbor_allgatherv_c(one4, 1, st, agv, ccnt, cdsp, MPI_INT, cart, &q[4]));
			} else {
				CHECK_RC(MPI_Neighbor_alltoall_init_c(sb, 2, MPI_INT, rs, 1, st, cart, in, &q[0]));
				CHECK_RC(MPI_Neighbor_allgather_init_c(one4, 1, st, ag, 2, MPI_INT, cart, in, &q[1]));
				CHECK_RC(MPI_Neighbor_alltoallv_init_c(sb, ccnt, cdsp, MPI_INT, rv, cones, crdsp, st, cart, in, &q[2]));
				CHECK_RC(MPI_Neighbor_alltoallw_init_c(sb, ccnt, bdsp, ti, rw, cones, rbdsp, tst, cart, in, &q[3]));
				CHECK_RC(MPI_Neighbor_allgatherv_init_c(one4, 1, st, agv, ccnt, cdsp, MPI_INT, cart, in, &q[4]));
				CHECK_RC(MPI_Startall(5, q));
			}
			CHECK_RC(MPI_Waitall(5, q, MPI_STATUSES_IGNORE));
			if (form == 5)
				for (int i = 0; i < 5; i++) CHECK_RC(MPI_Request_free(&q[i]));
		} else if (form == 0) {
			CHECK_RC(MPI_Neighbor_alltoall(sb, 2, MPI_INT, rs, 1, st, cart));
			CHECK_RC(MPI_Neighbor_allgather(one4, 1, st, ag, 2, MPI_INT, cart));
			CHECK_RC(MPI_Neighbor_alltoallv(sb, cnt, dsp, MPI_INT, rv, ones, rdsp, st, cart));
			CHECK_RC(MPI_Neighbor_alltoallw(sb, cnt, bdsp, ti, rw, ones, rbdsp, tst, cart));
			CHECK_RC(MPI_Neighbor_allgatherv(one4, 1, st, agv, cnt, dsp, MPI_INT, cart));
		} else {
			if (form == 1) {
				CHECK_RC(MPI_Ineighbor_alltoall(sb, 2, MPI_INT, rs, 1, st, cart, &q[0]));
				CHECK_RC(MPI_Ineighbor_allgather(one4, 1, st, ag, 2, MPI_INT, cart, &q[1]));
				CHECK_RC(MPI_Ineighbor_alltoallv(sb, cnt, dsp, MPI_INT, rv, ones, rdsp, st, cart, &q[2]));
				CHECK_RC(MPI_Ineighbor_alltoallw(sb, cnt, bdsp, ti, rw, ones, rbdsp, tst, cart, &q[3]));
				CHECK_RC(MPI_Ineighbor_allgatherv(one4, 1, st, agv, cnt, dsp, MPI_INT, cart, &q[4]));
			} else {
				CHECK_RC(MPI_Neighbor_alltoall_init(sb, 2, MPI_INT, rs, 1, st, cart, in, &q[0]));
				CHECK_RC(MPI_Neighbor_allgather_init(one4, 1, st, ag, 2, MPI_INT, cart, in, &q[1]));
				CHECK_RC(MPI_Neighbor_alltoallv_init(sb, cnt, dsp, MPI_INT, rv, ones, rdsp, st, cart, in, &q[2]));
				CHECK_RC(MPI_Neighbor_alltoallw_init(sb, cnt, bdsp, ti, rw, ones, rbdsp, tst, cart, in, &q[3]));
				CHECK_RC(MPI_Neighbor_allgatherv_init(one4, 1, st, agv, cnt, dsp, MPI_INT, cart, in, &q[4]));
				CHECK_RC(MPI_Startall(5, q));
			}
			CHECK_RC(MPI_Waitall(5, q, MPI_STATUSES_IGNORE));
			if (form == 2)
				for (int i = 0; i < 5; i++) CHECK_RC(MPI_Request_free(&q[i]));
		}
		for (int k = 0; k < nn; k++) {
			int base = src[k] == MPI_PROC_NULL ? -7 : sent(seed, src[k], k ^ 1);
			int hi = src[k] == MPI_PROC_NULL ? -7 : base + 100;
			const int *bufs[3] = {rs, rv, rw};
			for (int b = 0; b < 3; b++) {
				const int *r = bufs[b];
				CHECK(r[4 * k] == base && r[4 * k + 1] == -7);
				CHECK(r[4 * k + 2] == hi && r[4 * k + 3] == -7);
			}
		}
		expect(ag, seed, 1, 2, "allgather from a strided send");
		expect(agv, seed, 1, 2, "allgatherv from a strided send");
	}
	CHECK_RC(MPI_Type_free(&v));
	CHECK_RC(MPI_Type_free(&st));
}

static void topo(MPI_Comm cart, int ndims)
{
	MPI_Comm_rank(cart, &rank);
	nn = 2 * ndims;
	for (int d = 0; d < ndims; d++) CHECK_RC(MPI_Cart_shift(cart, d, 1, &src[2 * d], &src[2 * d + 1]));
	/* Sources and destinations agree on a Cartesian grid. */
	memcpy(dst, src, sizeof src);
	(void)dst;
	run(cart, ndims * 10);
	strided_run(cart, ndims * 10 + 5);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int size;
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm ring, grid;
	int dims1[1] = {size}, per1[1] = {1};
	CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 1, dims1, per1, 0, &ring));
	topo(ring, 1);
	int dims2[2] = {0, 0}, per2[2] = {1, 0};
	CHECK_RC(MPI_Dims_create(size, 2, dims2));
	CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 2, dims2, per2, 0, &grid));
	topo(grid, 2);

	/* A communicator without a topology: MPI_ERR_TOPOLOGY. */
	CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
	int x[8], cls;
	MPI_Error_class(MPI_Neighbor_allgather(x, 1, MPI_INT, x, 1, MPI_INT, MPI_COMM_WORLD), &cls);
	CHECK(cls == MPI_ERR_TOPOLOGY);
	CHECK_RC(MPI_Comm_free(&ring));
	CHECK_RC(MPI_Comm_free(&grid));
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	report_ok();
	MPI_Finalize();
	return 0;
}
