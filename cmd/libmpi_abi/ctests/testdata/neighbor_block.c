/* The blocking neighbourhood collectives' own path (one call into the
 * engine, the neighbourhood remembered per communicator): results on more
 * Cartesian and graph communicators alive at once than the library
 * remembers, called round-robin so each is looked up again after others
 * pushed it out; a communicator freed and replaced by one with the reverse
 * topology (the replacement must not run on the old neighbours); edges to
 * MPI_PROC_NULL leaving their receive blocks untouched, with contiguous and
 * with non-contiguous (packed) receive types; and a bad count refused with
 * nothing changed; and no Go allocation in the steady state. */
#include <stdint.h>
#include "check.h"

uint64_t hympi_go_allocs(void); /* libmpi_abi's test hook */

#define NCOMM 12
#define MAXK 8 /* neighbours per rank: up to 4 dimensions */
static int wrank, wsize;

static int val(int s, int k) { return s * 100 + k + 1; }

enum { RING, LINE, GRID, GRAPH_UP, GRAPH_DOWN };

typedef struct {
	MPI_Comm c;
	int shape;
	int indeg, outdeg;
	int in[MAXK];
	/* sblk[k]: which send block of in[k] lands in my receive block k. */
	int sblk[MAXK];
} topo;

static void make(topo *t, int shape)
{
	memset(t, 0, sizeof *t);
	t->shape = shape;
	int me = wrank, n = wsize;
	if (shape == GRAPH_UP || shape == GRAPH_DOWN) {
		/* A directed ring: each rank sends to the next (UP) or previous
		 * (DOWN) rank and hears from the other side. */
		int step = shape == GRAPH_UP ? 1 : n - 1;
		int src = (me + n - step) % n, dst = (me + step) % n;
		int w = 1;
		CHECK_RC(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &src, &w, 1, &dst, &w, MPI_INFO_NULL, 0,
							&t->c));
		t->indeg = t->outdeg = 1;
		t->in[0] = src, t->sblk[0] = 0;
		return;
	}
	int nd = shape == GRID ? 2 : 1, dims[2] = {0, 0}, periods[2] = {shape != LINE, shape != LINE};
	CHECK_RC(MPI_Dims_create(n, nd, dims));
	CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, nd, dims, periods, 0, &t->c));
	t->indeg = t->outdeg = 2 * nd;
	for (int d = 0; d < nd; d++) {
		int lo, hi;
		CHECK_RC(MPI_Cart_shift(t->c, d, 1, &lo, &hi));
		/* The lower neighbour's upward block arrives first, and the upper
		 * one's downward block second. */
		t->in[2 * d] = lo, t->sblk[2 * d] = 2 * d + 1;
		t->in[2 * d + 1] = hi, t->sblk[2 * d + 1] = 2 * d;
	}
}

static void run(topo *t, int round)
{
	int sb[MAXK], rb[MAXK], one = val(wrank, round);
	for (int k = 0; k < t->outdeg; k++) sb[k] = val(wrank, round * 10 + k);
	/* Alltoall: block k from in[k], its block sblk[k]. */
	for (int k = 0; k < MAXK; k++) rb[k] = -7;
	CHECK_RC(MPI_Neighbor_alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, t->c));
	for (int k = 0; k < t->indeg; k++) {
		int s = t->in[k];
		CHECK(rb[k] == (s == MPI_PROC_NULL ? -7 : val(s, round * 10 + t->sblk[k])));
	}
	for (int k = t->indeg; k < MAXK; k++) CHECK(rb[k] == -7);
	/* Allgather: everyone's one block. */
	for (int k = 0; k < MAXK; k++) rb[k] = -7;
	CHECK_RC(MPI_Neighbor_allgather(&one, 1, MPI_INT, rb, 1, MPI_INT, t->c));
	for (int k = 0; k < t->indeg; k++) {
		int s = t->in[k];
		CHECK(rb[k] == (s == MPI_PROC_NULL ? -7 : val(s, round)));
	}
	/* Alltoallv, blocks in reverse order in the receive buffer. */
	int cnt[MAXK], sd[MAXK], rd[MAXK];
	for (int k = 0; k < MAXK; k++) cnt[k] = 1, sd[k] = k, rd[k] = t->indeg - 1 - k, rb[k] = -7;
	CHECK_RC(MPI_Neighbor_alltoallv(sb, cnt, sd, MPI_INT, rb, cnt, rd, MPI_INT, t->c));
	for (int k = 0; k < t->indeg; k++) {
		int s = t->in[k];
		CHECK(rb[t->indeg - 1 - k] == (s == MPI_PROC_NULL ? -7 : val(s, round * 10 + t->sblk[k])));
	}
}

/* Packed receive blocks: every other int of the receive buffer is a
 * block; the ints between and the blocks from MPI_PROC_NULL keep their
 * values. */
static void run_packed(topo *t)
{
	MPI_Datatype v, st;
	CHECK_RC(MPI_Type_vector(1, 1, 2, MPI_INT, &v));
	CHECK_RC(MPI_Type_create_resized(v, 0, 2 * sizeof(int), &st));
	CHECK_RC(MPI_Type_commit(&st));
	int sb[MAXK], rb[2 * MAXK];
	for (int k = 0; k < t->outdeg; k++) sb[k] = val(wrank, 50 + k);
	for (int k = 0; k < 2 * MAXK; k++) rb[k] = -7;
	CHECK_RC(MPI_Neighbor_alltoall(sb, 1, MPI_INT, rb, 1, st, t->c));
	for (int k = 0; k < t->indeg; k++) {
		int s = t->in[k];
		CHECK(rb[2 * k] == (s == MPI_PROC_NULL ? -7 : val(s, 50 + t->sblk[k])));
		CHECK(rb[2 * k + 1] == -7);
	}
	CHECK_RC(MPI_Type_free(&st));
	CHECK_RC(MPI_Type_free(&v));
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
	MPI_Comm_size(MPI_COMM_WORLD, &wsize);
	topo t[NCOMM];
	for (int i = 0; i < NCOMM; i++) make(&t[i], i % 5);
	for (int round = 0; round < 3; round++)
		for (int i = 0; i < NCOMM; i++) run(&t[(i * 5 + round) % NCOMM], round);
	for (int i = 0; i < NCOMM; i++)
		if (t[i].shape == LINE || t[i].shape == GRID) run_packed(&t[i]);
	/* Replace each graph by its reverse, in the slot it leaves. */
	for (int i = 0; i < NCOMM; i++) {
		if (t[i].shape != GRAPH_UP && t[i].shape != GRAPH_DOWN) continue;
		int rev = t[i].shape == GRAPH_UP ? GRAPH_DOWN : GRAPH_UP;
		CHECK_RC(MPI_Comm_free(&t[i].c));
		make(&t[i], rev);
		run(&t[i], 3);
	}
	/* Steady state: the blocking calls allocate no Go memory (the
	 * neighbourhood is remembered, the counts are C's). */
	for (int i = 0; i < NCOMM; i++) {
		int sb[MAXK] = {0}, rb[MAXK], one = 1;
		for (int pass = 0; pass < 2; pass++) { /* pass 0 warms up */
			uint64_t a0 = hympi_go_allocs();
			for (int k = 0; k < 200; k++) {
				CHECK_RC(MPI_Neighbor_alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, t[i].c));
				CHECK_RC(MPI_Neighbor_allgather(&one, 1, MPI_INT, rb, 1, MPI_INT, t[i].c));
			}
			uint64_t got = hympi_go_allocs() - a0;
			if (pass == 1 && got != 0) fprintf(stderr, "rank %d: comm %d: %llu Go allocations in 400 calls\n", wrank, i, (unsigned long long)got);
			CHECK(pass == 0 || got == 0);
		}
	}
	/* A negative count: refused, the receive buffer as it was. */
	MPI_Comm_set_errhandler(t[0].c, MPI_ERRORS_RETURN);
	int sb[MAXK] = {0}, rb[MAXK];
	for (int k = 0; k < MAXK; k++) rb[k] = -7;
	int rc = MPI_Neighbor_alltoall(sb, -1, MPI_INT, rb, 1, MPI_INT, t[0].c), cls;
	MPI_Error_class(rc, &cls);
	CHECK(cls == MPI_ERR_COUNT);
	for (int k = 0; k < MAXK; k++) CHECK(rb[k] == -7);
	for (int i = 0; i < NCOMM; i++) CHECK_RC(MPI_Comm_free(&t[i].c));
	report_ok();
	MPI_Finalize();
	return 0;
}
