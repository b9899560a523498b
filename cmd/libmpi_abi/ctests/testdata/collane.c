/* collane.c — small collectives the C collective lane runs from the Go
 * engine's plans (cmd/libmpi_abi/collane.c): each repeated with the same
 * arguments (so its plan is learned and then runs in C), with values that
 * change every repetition, point-to-point traffic and another
 * communicator's collectives in between, ranks that arrive late (so C
 * hands collectives to Go part-way), MPI_IN_PLACE, nonblocking forms, and
 * a non-commutative user operator that must stay in Go. Every result is
 * checked against what it must be. It starts with loops of different
 * collectives in turn (a collective and a Barrier, as OSU's benchmarks
 * call them; a rotation of four and a Barrier), each of whose calls the
 * lane must serve from its own plan; COLLANE_ALT_ONLY=1 runs only those,
 * so that the debug report counts them alone. The v, w and neighbourhood
 * collectives and Reduce_scatter follow (vforms; COLLANE_V_ONLY=1 runs only
 * those). */
#include <unistd.h>
#include "check.h"

enum { REPS = 200 };

static int me, n;
static MPI_Comm other;

/* late makes some ranks arrive late now and then, so that the others find
 * an empty ring head and go on in Go. */
static void late(int i)
{
	if (i % 37 == (me * 5) % 37) usleep(200);
}

/* p2p sends a message around the ring and receives the one from the left. */
static void p2p(int i)
{
	if (n == 1) return;
	int out = me * 1000 + i, in = -1;
	MPI_Request q;
	CHECK_RC(MPI_Irecv(&in, 1, MPI_INT, (me + n - 1) % n, 7, MPI_COMM_WORLD, &q));
	CHECK_RC(MPI_Send(&out, 1, MPI_INT, (me + 1) % n, 7, MPI_COMM_WORLD));
	CHECK_RC(MPI_Wait(&q, MPI_STATUS_IGNORE));
	CHECK(in == ((me + n - 1) % n) * 1000 + i);
}

/* A non-commutative operator: 2x2 integer matrix product, b = a * b. */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	(void)dt;
	int *a = in, *b = inout;
	for (int k = 0; k < *len; k++, a += 4, b += 4) {
		int r[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
			    a[2] * b[1] + a[3] * b[3]};
		memcpy(b, r, sizeof r);
	}
}

enum { ALT_REPS = 300 };

/* alternate: Bcast and Barrier in turn, then a rotation of Allreduce,
 * Reduce, Allgather and Bcast from another root with a Barrier; every call
 * has the arguments of its own earlier ones, so each has its plan. */
static void alternate(void)
{
	static char b8[8];
	for (int i = 0; i < ALT_REPS; i++) {
		for (int k = 0; k < 8; k++) b8[k] = me == 0 ? (char)(i + k) : -1;
		CHECK_RC(MPI_Bcast(b8, 8, MPI_CHAR, 0, MPI_COMM_WORLD));
		for (int k = 0; k < 8; k++) CHECK(b8[k] == (char)(i + k));
		CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
	}
	static double dv[2], dr[2];
	static int iv, ir, ag[64], bb[4];
	int root = n - 1;
	for (int i = 0; i < ALT_REPS; i++) {
		dv[0] = me + i, dv[1] = -1;
		CHECK_RC(MPI_Allreduce(dv, dr, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
		CHECK(dr[0] == (double)n * i + n * (n - 1) / 2 && dr[1] == -n);
		iv = me * 3 + i, ir = -1;
		CHECK_RC(MPI_Reduce(&iv, &ir, 1, MPI_INT, MPI_MAX, root, MPI_COMM_WORLD));
		if (me == root) CHECK(ir == (n - 1) * 3 + i);
		iv = me - i;
		CHECK_RC(MPI_Allgather(&iv, 1, MPI_INT, ag, 1, MPI_INT, MPI_COMM_WORLD));
		for (int k = 0; k < n; k++) CHECK(ag[k] == k - i);
		for (int k = 0; k < 4; k++) bb[k] = me == root ? i * k : -1;
		CHECK_RC(MPI_Bcast(bb, 4, MPI_INT, root, MPI_COMM_WORLD));
		for (int k = 0; k < 4; k++) CHECK(bb[k] == i * k);
		CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
	}
}

enum { V_REPS = 120 };

/* flip: whether call i uses a collective's second layout (every 8th call
 * and the one after it): the same buffers and arrays, other displacements
 * (or counts) in them, so that only the arrays' contents tell the calls
 * apart and a plan of the first layout must not run. */
static int flip(int i)
{
	return i % 8 >= 6;
}

/* vforms: the v, w and neighbourhood collectives and Reduce_scatter, each
 * repeated (so the lane learns and runs it), with layouts that change
 * between calls and MPI_IN_PLACE where the standard allows it. */
static void vforms(void)
{
	static int cnt[16], dsp[16], cnt2[16], dsp2[16], sb[256], rb[256], rw[256];
	static MPI_Datatype ty[16], ty2[16];
	int tri = n * (n + 1) / 2;
	for (int i = 0; i < V_REPS; i++) { /* Gatherv to the last rank, k+1 ints from rank k */
		late(i);
		int root = n - 1, f = flip(i);
		for (int k = 0, at = 0; k < n; k++) cnt[k] = k + 1, dsp[k] = f ? 2 * tri - at - (k + 1) : at, at += k + 1;
		for (int j = 0; j <= me; j++) sb[j] = me * 100 + j + i;
		for (int k = 0; k < 2 * tri; k++) rb[k] = -1;
		CHECK_RC(MPI_Gatherv(sb, me + 1, MPI_INT, rb, cnt, dsp, MPI_INT, root, MPI_COMM_WORLD));
		if (me == root)
			for (int k = 0; k < n; k++)
				for (int j = 0; j <= k; j++) CHECK(rb[dsp[k] + j] == k * 100 + j + i);
	}
	for (int i = 0; i < V_REPS; i++) { /* Gatherv in place at the root, rank 0 */
		int f = flip(i);
		for (int k = 0; k < n; k++) cnt[k] = 2, dsp[k] = f ? 2 * (n - 1 - k) : 2 * k;
		for (int k = 0; k < 2 * n; k++) rb[k] = -1;
		sb[0] = me + i, sb[1] = -me;
		if (me == 0) rb[dsp[0]] = i, rb[dsp[0] + 1] = 0;
		CHECK_RC(MPI_Gatherv(me == 0 ? MPI_IN_PLACE : sb, 2, MPI_INT, rb, cnt, dsp, MPI_INT, 0, MPI_COMM_WORLD));
		if (me == 0)
			for (int k = 0; k < n; k++) CHECK(rb[dsp[k]] == k + i && rb[dsp[k] + 1] == -k);
	}
	for (int i = 0; i < V_REPS; i++) { /* Scatterv from rank 0, k+1 ints to rank k; in place every other call */
		late(i);
		int f = flip(i), ip = i % 2 && me == 0;
		for (int k = 0, at = 0; k < n; k++) cnt[k] = k + 1, dsp[k] = f ? 2 * tri - at - (k + 1) : at, at += k + 1;
		for (int k = 0; k < 2 * tri; k++) sb[k] = me == 0 ? k * 7 + i : -1;
		for (int j = 0; j < 16; j++) rb[j] = -1;
		CHECK_RC(MPI_Scatterv(sb, cnt, dsp, MPI_INT, ip ? MPI_IN_PLACE : rb, me + 1, MPI_INT, 0, MPI_COMM_WORLD));
		for (int j = 0; j <= me && !ip; j++) CHECK(rb[j] == (dsp[me] + j) * 7 + i);
		if (ip) CHECK(sb[dsp[0]] == dsp[0] * 7 + i && rb[0] == -1);
	}
	for (int i = 0; i < V_REPS; i++) { /* Allgatherv, k+1 ints from rank k; in place every third call */
		late(i);
		int f = flip(i), ip = i % 3 == 1;
		for (int k = 0, at = 0; k < n; k++) cnt[k] = k + 1, dsp[k] = f ? 2 * tri - at - (k + 1) : at, at += k + 1;
		for (int k = 0; k < 2 * tri; k++) rb[k] = -1;
		for (int j = 0; j <= me; j++) {
			sb[j] = me * 100 + j - i;
			if (ip) rb[dsp[me] + j] = sb[j];
		}
		CHECK_RC(MPI_Allgatherv(ip ? MPI_IN_PLACE : sb, me + 1, MPI_INT, rb, cnt, dsp, MPI_INT, MPI_COMM_WORLD));
		for (int k = 0; k < n; k++)
			for (int j = 0; j <= k; j++) CHECK(rb[dsp[k] + j] == k * 100 + j - i);
	}
	for (int i = 0; i < V_REPS; i++) { /* nonblocking Allgatherv and Scatterv, waited on at once */
		late(i);
		int f = flip(i);
		MPI_Request q;
		for (int k = 0, at = 0; k < n; k++) cnt[k] = k + 1, dsp[k] = f ? 2 * tri - at - (k + 1) : at, at += k + 1;
		for (int k = 0; k < 2 * tri; k++) rb[k] = -1;
		for (int j = 0; j <= me; j++) sb[j] = me * 100 + j + 2 * i;
		CHECK_RC(MPI_Iallgatherv(sb, me + 1, MPI_INT, rb, cnt, dsp, MPI_INT, MPI_COMM_WORLD, &q));
		CHECK_RC(MPI_Wait(&q, MPI_STATUS_IGNORE));
		for (int k = 0; k < n; k++)
			for (int j = 0; j <= k; j++) CHECK(rb[dsp[k] + j] == k * 100 + j + 2 * i);
		for (int k = 0; k < 2 * tri; k++) sb[k] = me == 0 ? k * 3 - i : -1;
		for (int j = 0; j < 16; j++) rw[j] = -1;
		CHECK_RC(MPI_Iscatterv(sb, cnt, dsp, MPI_INT, rw, me + 1, MPI_INT, 0, MPI_COMM_WORLD, &q));
		CHECK_RC(MPI_Wait(&q, MPI_STATUS_IGNORE));
		for (int j = 0; j <= me; j++) CHECK(rw[j] == (dsp[me] + j) * 3 - i);
	}
	for (int i = 0; i < V_REPS; i++) { /* Alltoallv and Alltoallw: 1 + (me+j)%2 ints between me and j */
		late(i);
		int f = flip(i), at = 0, rat = 0;
		for (int j = 0; j < n; j++) {
			cnt[j] = 1 + (me + j) % 2, dsp[j] = at, at += cnt[j];
			cnt2[j] = cnt[j], dsp2[j] = f ? 2 * n - rat - cnt[j] : rat, rat += cnt[j];
		}
		for (int k = 0; k < at; k++) sb[k] = me * 1000 + k * 10 + i;
		for (int k = 0; k < 2 * n; k++) rb[k] = -1;
		CHECK_RC(MPI_Alltoallv(sb, cnt, dsp, MPI_INT, rb, cnt2, dsp2, MPI_INT, MPI_COMM_WORLD));
		/* From j: its block for me, at its dsp[me] = sum over k < me of 1 + (j+k)%2. */
		for (int j = 0; j < n; j++) {
			int jat = 0;
			for (int k = 0; k < me; k++) jat += 1 + (j + k) % 2;
			for (int e = 0; e < cnt2[j]; e++) CHECK(rb[dsp2[j] + e] == j * 1000 + (jat + e) * 10 + i);
		}
		int bd[16], bd2[16];
		for (int j = 0; j < n; j++) bd[j] = dsp[j] * 4, bd2[j] = dsp2[j] * 4, ty[j] = MPI_INT, ty2[j] = MPI_INT;
		/* Into another buffer, a plan of its own; on every fourth call
		 * the same bytes between the same buffers as the Alltoallv: in
		 * Go, the Alltoallv's own memo entry, whose plan the next call
		 * of either keys again. */
		int *out = i % 4 == 3 ? rb : rw;
		for (int k = 0; k < 2 * n; k++) out[k] = -1;
		CHECK_RC(MPI_Alltoallw(sb, cnt, bd, ty, out, cnt2, bd2, ty2, MPI_COMM_WORLD));
		for (int j = 0; j < n; j++) {
			int jat = 0;
			for (int k = 0; k < me; k++) jat += 1 + (j + k) % 2;
			for (int e = 0; e < cnt2[j]; e++) CHECK(out[dsp2[j] + e] == j * 1000 + (jat + e) * 10 + i);
		}
	}
	for (int i = 0; i < V_REPS; i++) { /* Reduce_scatter: k+1 ints to rank k, or n-k; in place every third call */
		late(i);
		int f = flip(i), ip = i % 3 == 2;
		for (int k = 0; k < n; k++) cnt[k] = f ? n - k : k + 1;
		for (int k = 0; k < tri; k++) sb[k] = k + me + i, rb[k] = ip ? sb[k] : -1;
		CHECK_RC(MPI_Reduce_scatter(ip ? MPI_IN_PLACE : sb, rb, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
		int at = 0;
		for (int k = 0; k < me; k++) at += cnt[k];
		for (int j = 0; j < cnt[me]; j++) CHECK(rb[j] == n * (at + j + i) + n * (n - 1) / 2);
	}
	/* Neighbourhood collectives on a periodic ring: neighbours left, right. */
	MPI_Comm ring;
	int dims[1] = {n}, per[1] = {1};
	CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, per, 0, &ring));
	int L = (me + n - 1) % n, R = (me + 1) % n;
	for (int i = 0; i < V_REPS; i++) {
		late(i);
		int v = me * 10 + i, two[2] = {-1, -1};
		CHECK_RC(MPI_Neighbor_allgather(&v, 1, MPI_INT, two, 1, MPI_INT, ring));
		CHECK(two[0] == L * 10 + i && two[1] == R * 10 + i);
		int s2[2] = {me * 10 + i, me * 10 + 1 + i};
		two[0] = two[1] = -1;
		CHECK_RC(MPI_Neighbor_alltoall(s2, 1, MPI_INT, two, 1, MPI_INT, ring));
		CHECK(two[0] == L * 10 + 1 + i && two[1] == R * 10 + i);
		/* v and w: 1 int from the left, 2 from the right, placed apart or swapped. */
		int f = flip(i), sc[2] = {2, 1}, sd[2] = {0, 2}, rc[2] = {1, 2}, rd[2] = {f ? 2 : 0, f ? 0 : 1}, s3[3];
		for (int k = 0; k < 3; k++) s3[k] = me * 100 + k + i, rb[k] = -1;
		CHECK_RC(MPI_Neighbor_alltoallv(s3, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, ring));
		CHECK(rb[rd[0]] == L * 100 + 2 + i && rb[rd[1]] == R * 100 + i && rb[rd[1] + 1] == R * 100 + 1 + i);
		MPI_Aint sdb[2] = {0, 8}, rdb[2] = {4 * rd[0], 4 * rd[1]};
		MPI_Datatype nt[2] = {MPI_INT, MPI_INT};
		for (int k = 0; k < 3; k++) rb[k] = -1;
		CHECK_RC(MPI_Neighbor_alltoallw(s3, sc, sdb, nt, rb, rc, rdb, nt, ring));
		CHECK(rb[rd[0]] == L * 100 + 2 + i && rb[rd[1]] == R * 100 + i && rb[rd[1] + 1] == R * 100 + 1 + i);
		int gc[2] = {1, 1}, gd[2] = {f ? 1 : 0, f ? 0 : 1};
		two[0] = two[1] = -1;
		CHECK_RC(MPI_Neighbor_allgatherv(&v, 1, MPI_INT, two, gc, gd, MPI_INT, ring));
		CHECK(two[gd[0]] == L * 10 + i && two[gd[1]] == R * 10 + i);
	}
	CHECK_RC(MPI_Comm_free(&ring));
	if (n >= 2) { /* a distributed graph: from the left, to the right */
		MPI_Comm dg;
		int one = 1; /* weights (MPI_UNWEIGHTED trips gcc's array-bounds warning) */
		CHECK_RC(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &L, &one, 1, &R, &one, MPI_INFO_NULL, 0, &dg));
		for (int i = 0; i < V_REPS; i++) {
			int v = me + i, w = -1;
			CHECK_RC(MPI_Neighbor_allgather(&v, 1, MPI_INT, &w, 1, MPI_INT, dg));
			CHECK(w == L + i);
		}
		CHECK_RC(MPI_Comm_free(&dg));
	}
	if (n >= 3) { /* a graph: the ring again, each rank's edges left then right */
		int index[16], edges[32];
		for (int k = 0; k < n; k++) index[k] = 2 * (k + 1), edges[2 * k] = (k + n - 1) % n, edges[2 * k + 1] = (k + 1) % n;
		MPI_Comm g;
		CHECK_RC(MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &g));
		for (int i = 0; i < V_REPS; i++) {
			int s2[2] = {me * 10 + i, me * 10 + 1 + i}, two[2] = {-1, -1};
			CHECK_RC(MPI_Neighbor_alltoall(s2, 1, MPI_INT, two, 1, MPI_INT, g));
			CHECK(two[0] == L * 10 + 1 + i && two[1] == R * 10 + i);
		}
		CHECK_RC(MPI_Comm_free(&g));
	}
}

int main(int argc, char **argv)
{
	if (getenv("FL_MULTIPLE")) {
		int provided;
		CHECK_RC(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
		CHECK(provided == MPI_THREAD_MULTIPLE);
	} else {
		CHECK_RC(MPI_Init(&argc, &argv));
	}
	CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &me));
	CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &n));
	CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &other));
	int tri = n * (n + 1) / 2;

	if (getenv("COLLANE_V_ONLY")) {
		vforms();
		CHECK_RC(MPI_Comm_free(&other));
		report_ok();
		CHECK_RC(MPI_Finalize());
		return 0;
	}
	alternate();
	if (getenv("COLLANE_ALT_ONLY")) {
		CHECK_RC(MPI_Comm_free(&other));
		report_ok();
		CHECK_RC(MPI_Finalize());
		return 0;
	}

	for (int i = 0; i < REPS; i++) { /* Barrier, with p2p and other's Allreduce between */
		late(i);
		CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
		int v = me + i, s = -1;
		CHECK_RC(MPI_Allreduce(&v, &s, 1, MPI_INT, MPI_SUM, other));
		CHECK(s == n * i + n * (n - 1) / 2);
		if (i % 3 == 0) p2p(i);
	}
	for (int i = 0; i < REPS; i++) { /* Allreduce of 3 ints and of a double */
		late(i);
		int v[3] = {me + 1, (me + 1) * i, -(me + 1)}, r[3];
		CHECK_RC(MPI_Allreduce(v, r, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
		CHECK(r[0] == tri && r[1] == tri * i && r[2] == -tri);
		double d = me == i % n ? 1e9 + i : (double)me, dm = 0;
		CHECK_RC(MPI_Allreduce(&d, &dm, 1, MPI_DOUBLE, MPI_MAX, other));
		CHECK(dm == 1e9 + i);
		if (i % 4 == 1) p2p(i);
	}
	for (int i = 0; i < REPS; i++) { /* in place */
		late(i);
		long x[2] = {me + i, 1};
		CHECK_RC(MPI_Allreduce(MPI_IN_PLACE, x, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
		CHECK(x[0] == (long)n * i + n * (n - 1) / 2 && x[1] == n);
	}
	static int bb[16];
	for (int i = 0; i < REPS; i++) { /* Bcast from a fixed root */
		late(i);
		int root = n - 1;
		for (int k = 0; k < 16; k++) bb[k] = me == root ? i * 16 + k : -1;
		CHECK_RC(MPI_Bcast(bb, 16, MPI_INT, root, MPI_COMM_WORLD));
		for (int k = 0; k < 16; k++) CHECK(bb[k] == i * 16 + k);
		if (i % 5 == 2) p2p(i);
	}
	for (int i = 0; i < REPS; i++) { /* Reduce to rank 0, Scan, Exscan */
		late(i);
		float f = (float)(me + i), g = -1;
		CHECK_RC(MPI_Reduce(&f, &g, 1, MPI_FLOAT, MPI_MIN, 0, MPI_COMM_WORLD));
		if (me == 0) CHECK(g == (float)i);
	}
	for (int i = 0; i < REPS; i++) {
		int v = me + 1 + i, s = -1;
		CHECK_RC(MPI_Scan(&v, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
		CHECK(s == (me + 1) * (me + 2) / 2 + (me + 1) * i);
	}
	for (int i = 0; i < REPS; i++) {
		int v = me + 1 + i, s = -12345;
		CHECK_RC(MPI_Exscan(&v, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
		if (me > 0) CHECK(s == me * (me + 1) / 2 + me * i);
	}
	static int rs[64];
	for (int i = 0; i < REPS; i++) { /* Reduce_scatter_block of 2 per rank */
		late(i);
		for (int k = 0; k < 2 * n; k++) rs[k] = k + i;
		int out[2];
		CHECK_RC(MPI_Reduce_scatter_block(rs, out, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
		CHECK(out[0] == n * (2 * me + i) && out[1] == n * (2 * me + 1 + i));
	}
	static int ga[64], gb[64];
	for (int i = 0; i < REPS; i++) { /* Gather to and Scatter from the last rank */
		late(i);
		int root = n - 1, v[2] = {me + i, -me};
		for (int k = 0; k < 2 * n; k++) ga[k] = -7;
		CHECK_RC(MPI_Gather(v, 2, MPI_INT, ga, 2, MPI_INT, root, MPI_COMM_WORLD));
		if (me == root)
			for (int k = 0; k < n; k++) CHECK(ga[2 * k] == k + i && ga[2 * k + 1] == -k);
		for (int k = 0; k < 2 * n; k++) gb[k] = me == root ? k * 3 + i : -1;
		int w[2] = {-1, -1};
		CHECK_RC(MPI_Scatter(gb, 2, MPI_INT, w, 2, MPI_INT, root, other));
		CHECK(w[0] == 2 * me * 3 + i && w[1] == (2 * me + 1) * 3 + i);
	}
	for (int i = 0; i < REPS; i++) { /* Allgather, in place too, and Alltoall */
		late(i);
		int v = me * 10 + i;
		CHECK_RC(MPI_Allgather(&v, 1, MPI_INT, ga, 1, MPI_INT, MPI_COMM_WORLD));
		for (int k = 0; k < n; k++) CHECK(ga[k] == k * 10 + i);
		for (int k = 0; k < n; k++) gb[k] = k == me ? me * 5 - i : -1;
		CHECK_RC(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, gb, 1, MPI_INT, other));
		for (int k = 0; k < n; k++) CHECK(gb[k] == k * 5 - i);
		int sa[16], ra[16];
		for (int k = 0; k < n; k++) sa[k] = me * 100 + k + i, ra[k] = -1;
		CHECK_RC(MPI_Alltoall(sa, 1, MPI_INT, ra, 1, MPI_INT, MPI_COMM_WORLD));
		for (int k = 0; k < n; k++) CHECK(ra[k] == k * 100 + me + i);
		if (i % 7 == 3) p2p(i);
	}
	for (int i = 0; i < REPS; i++) { /* nonblocking forms, waited on at once */
		late(i);
		MPI_Request q;
		CHECK_RC(MPI_Ibarrier(MPI_COMM_WORLD, &q));
		CHECK_RC(MPI_Wait(&q, MPI_STATUS_IGNORE));
		int v = me + i, s = -1;
		CHECK_RC(MPI_Iallreduce(&v, &s, 1, MPI_INT, MPI_SUM, other, &q));
		CHECK_RC(MPI_Wait(&q, MPI_STATUS_IGNORE));
		CHECK(s == n * i + n * (n - 1) / 2);
	}
	vforms();
	MPI_Op mm;
	MPI_Datatype mat;
	CHECK_RC(MPI_Op_create(matmul, 0, &mm));
	CHECK_RC(MPI_Type_contiguous(4, MPI_INT, &mat));
	CHECK_RC(MPI_Type_commit(&mat));
	for (int i = 0; i < 50; i++) { /* a non-commutative user op: Go's, in rank order */
		int m[4] = {1, me + i % 3, 0, 2 + me % 2}, r[4], want[4] = {1, 0, 0, 1};
		CHECK_RC(MPI_Allreduce(m, r, 1, mat, mm, MPI_COMM_WORLD));
		for (int k = 0; k < n; k++) {
			int a[4] = {1, k + i % 3, 0, 2 + k % 2}, len = 1;
			matmul(want, a, &len, NULL); /* a = want * a */
			memcpy(want, a, sizeof a);
		}
		CHECK(memcmp(r, want, sizeof r) == 0);
	}
	CHECK_RC(MPI_Type_free(&mat));
	CHECK_RC(MPI_Op_free(&mm));
	CHECK_RC(MPI_Comm_free(&other));
	report_ok();
	CHECK_RC(MPI_Finalize());
	return 0;
}
