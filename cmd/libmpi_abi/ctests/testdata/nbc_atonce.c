/* Nonblocking and persistent collectives waited at once, or after some
 * computation (nbc_atonce.c of the library decides which the program
 * does).
 *
 * NBC_MODE=atonce (the default): ROUNDS rounds of Ibarrier, Ibcast,
 * Iallreduce, Ialltoall and Iallgather, each waited at once, and of a
 * persistent Bcast and Allreduce started and waited at once, every result
 * checked; the library should run most starts as the blocking calls
 * (the debug report's "starts run as blocking"). Then a start must still
 * send this rank's part before the wait although starts now spin: rank 0
 * starts, then makes no MPI call until every other rank has its result
 * (a flag in a shared window); the root's Ibcast at any size, the
 * Iallreduce at 2 ranks (whose start sends everything). Last, requests of
 * active nonblocking collectives freed with MPI_Request_free (erroneous
 * but accepted), a Barrier after each: the buffers must not change after
 * the next round began (a late write of the freed run would show).
 *
 * NBC_MODE=compute: the same rounds with a point-to-point exchange waited
 * at once and COMPUTE_US of computation between each start and its wait:
 * no start should run as the blocking call.
 *
 * The program checks every result; ctests (TestCNbcAtOnce) reads the
 * counts of the debug report. */
#include <stdint.h>
#include <time.h>

#include "check.h"

enum { ROUNDS = 100, FLAGS = 20, COMPUTE_US = 40, MAXN = 64 };

static int rank, size, compute;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* finish waits for r, at once or after some computation. */
static void finish(MPI_Request *r)
{
	if (compute) {
		/* A halo exchange first, waited at once: only the wait of the
		 * collective's own handle tells how the program waits. */
		int to = (rank + 1) % size, from = (rank + size - 1) % size, v = rank, w = -1;
		MPI_Request h[2];
		CHECK_RC(MPI_Irecv(&w, 1, MPI_INT, from, 77, MPI_COMM_WORLD, &h[0]));
		CHECK_RC(MPI_Isend(&v, 1, MPI_INT, to, 77, MPI_COMM_WORLD, &h[1]));
		CHECK_RC(MPI_Waitall(2, h, MPI_STATUSES_IGNORE));
		CHECK(w == from);
		double end = now() + COMPUTE_US * 1e-6;
		volatile double x = 1;
		while (now() < end) x = x * 1.0000001 + 1e-9;
	}
	CHECK_RC(MPI_Wait(r, MPI_STATUS_IGNORE));
}

static long sum_of(int i) { return (long)size * i + (long)size * (size - 1) / 2; }

/* vkinds: persistent v-collectives and Reduce_scatter, rank p's block
 * p + 1 longs (displaced by one gap long), restarted ROUNDS times over new
 * input, each result checked. */
static void vkinds(void)
{
	enum { V = MAXN * (MAXN + 3) };
	static long sb[V], rb[V];
	int cnt[MAXN], dsp[MAXN], one[MAXN], zero[MAXN], total = 0;
	for (int p = 0; p < size; p++) {
		cnt[p] = p + 1, dsp[p] = total, total += p + 2;
		one[p] = 1, zero[p] = p;
	}
	MPI_Request r[5];
	CHECK_RC(MPI_Gatherv_init(sb, rank + 1, MPI_LONG, rb, cnt, dsp, MPI_LONG, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
				  &r[0]));
	CHECK_RC(MPI_Scatterv_init(sb, cnt, dsp, MPI_LONG, rb, rank + 1, MPI_LONG, size - 1, MPI_COMM_WORLD,
				   MPI_INFO_NULL, &r[1]));
	CHECK_RC(MPI_Allgatherv_init(sb, rank + 1, MPI_LONG, rb, cnt, dsp, MPI_LONG, MPI_COMM_WORLD, MPI_INFO_NULL,
				     &r[2]));
	CHECK_RC(MPI_Alltoallv_init(sb, one, zero, MPI_LONG, rb, one, zero, MPI_LONG, MPI_COMM_WORLD, MPI_INFO_NULL,
				    &r[3]));
	CHECK_RC(MPI_Reduce_scatter_init(sb, rb, cnt, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[4]));
	for (int i = 0; i < ROUNDS; i++) {
		for (int k = 0; k < 5; k++) {
			for (int j = 0; j < V; j++) sb[j] = 100000L * rank + 100L * i + j, rb[j] = -1;
			CHECK_RC(MPI_Start(&r[k]));
			finish(&r[k]);
			for (int p = 0; p < size; p++) {
				switch (k) {
				case 0: /* Gatherv at 0 */
				case 2: /* Allgatherv */
					if (k == 0 && rank != 0) break;
					for (int j = 0; j <= p; j++) CHECK(rb[dsp[p] + j] == 100000L * p + 100L * i + j);
					CHECK(rb[dsp[p] + p + 1] == -1);
					break;
				case 1: /* Scatterv from size - 1 */
					if (p == rank)
						for (int j = 0; j <= p; j++)
							CHECK(rb[j] == 100000L * (size - 1) + 100L * i + dsp[p] + j);
					break;
				case 3: /* Alltoallv, one long each */
					CHECK(rb[p] == 100000L * p + 100L * i + rank);
					break;
				default: /* Reduce_scatter: block rank of the sum */
					if (p == rank)
						for (int j = 0; j <= p; j++) {
							long want = 0, off = (long)p * (p + 1) / 2 + j;
							for (int q = 0; q < size; q++) want += 100000L * q + 100L * i + off;
							CHECK(rb[j] == want);
						}
				}
			}
		}
	}
	for (int k = 0; k < 5; k++) CHECK_RC(MPI_Request_free(&r[k]));
}

static void rounds(void)
{
	long in, out, b[4], a2a_in[MAXN], a2a_out[MAXN], ag[MAXN], pb[4], pin, pout;
	MPI_Request r, rb, ra;
	CHECK_RC(MPI_Bcast_init(pb, 4, MPI_LONG, size - 1, MPI_COMM_WORLD, MPI_INFO_NULL, &rb));
	CHECK_RC(MPI_Allreduce_init(&pin, &pout, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &ra));
	for (int i = 0; i < ROUNDS; i++) {
		CHECK_RC(MPI_Ibarrier(MPI_COMM_WORLD, &r));
		finish(&r);
		CHECK(r == MPI_REQUEST_NULL);

		for (int j = 0; j < 4; j++) b[j] = rank == 0 ? 10L * i + j : -1;
		CHECK_RC(MPI_Ibcast(b, 4, MPI_LONG, 0, MPI_COMM_WORLD, &r));
		finish(&r);
		CHECK(r == MPI_REQUEST_NULL);
		for (int j = 0; j < 4; j++) CHECK(b[j] == 10L * i + j);

		in = rank + i, out = -1;
		CHECK_RC(MPI_Iallreduce(&in, &out, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &r));
		finish(&r);
		CHECK(r == MPI_REQUEST_NULL);
		CHECK(out == sum_of(i));

		for (int p = 0; p < size; p++) a2a_in[p] = 1000L * rank + p + i, a2a_out[p] = -1;
		CHECK_RC(MPI_Ialltoall(a2a_in, 1, MPI_LONG, a2a_out, 1, MPI_LONG, MPI_COMM_WORLD, &r));
		finish(&r);
		CHECK(r == MPI_REQUEST_NULL);
		for (int p = 0; p < size; p++) CHECK(a2a_out[p] == 1000L * p + rank + i);

		in = 3L * rank + i;
		for (int p = 0; p < size; p++) ag[p] = -1;
		CHECK_RC(MPI_Iallgather(&in, 1, MPI_LONG, ag, 1, MPI_LONG, MPI_COMM_WORLD, &r));
		finish(&r);
		CHECK(r == MPI_REQUEST_NULL);
		for (int p = 0; p < size; p++) CHECK(ag[p] == 3L * p + i);

		for (int j = 0; j < 4; j++) pb[j] = rank == size - 1 ? 5L * i + j : -1;
		CHECK_RC(MPI_Start(&rb));
		finish(&rb);
		CHECK(rb != MPI_REQUEST_NULL);
		for (int j = 0; j < 4; j++) CHECK(pb[j] == 5L * i + j);

		pin = rank + i, pout = -1;
		CHECK_RC(MPI_Start(&ra));
		finish(&ra);
		CHECK(pout == sum_of(i));
	}
	CHECK_RC(MPI_Request_free(&rb));
	CHECK_RC(MPI_Request_free(&ra));
	vkinds();
}

/* sends_first: the start sends before the wait while starts spin. */
static void sends_first(void)
{
	int *flags = NULL, disp = 0;
	MPI_Aint wsize = 0;
	MPI_Win win;
	long in, out, b[4];
	MPI_Request r;
	CHECK_RC(MPI_Win_allocate_shared(rank == 0 ? (MPI_Aint)(FLAGS * sizeof(int)) : 0, sizeof(int), MPI_INFO_NULL,
					 MPI_COMM_WORLD, &flags, &win));
	CHECK_RC(MPI_Win_shared_query(win, 0, &wsize, &disp, &flags));
	if (rank == 0) memset(flags, 0, FLAGS * sizeof(int));
	CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
	for (int i = 0; i < FLAGS; i++) {
		int bc = i % 2 || size != 2;
		/* Waited at once just before: the next start spins. */
		in = rank;
		CHECK_RC(MPI_Iallreduce(&in, &out, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &r));
		CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
		in = rank + i;
		for (int j = 0; j < 4; j++) b[j] = rank == 0 ? 7L * i + j : -1;
		if (bc)
			CHECK_RC(MPI_Ibcast(b, 4, MPI_LONG, 0, MPI_COMM_WORLD, &r));
		else
			CHECK_RC(MPI_Iallreduce(&in, &out, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &r));
		if (rank == 0) {
			double end = now() + 30;
			while (__atomic_load_n(&flags[i], __ATOMIC_ACQUIRE) != size - 1 && now() < end);
			CHECK(__atomic_load_n(&flags[i], __ATOMIC_ACQUIRE) == size - 1);
			CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
		} else {
			CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
			__atomic_fetch_add(&flags[i], 1, __ATOMIC_RELEASE);
		}
		if (bc)
			for (int j = 0; j < 4; j++) CHECK(b[j] == 7L * i + j);
		else
			CHECK(out == sum_of(i));
	}
	CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
	CHECK_RC(MPI_Win_free(&win));
}

/* freed: active nonblocking collectives whose requests are freed, of
 * plain data and of a non-contiguous type (which travels packed: its
 * result reaches the buffer only through an unpack after the run). */
static void freed(void)
{
	enum { K = 8 };
	static long outs[K], bufs[K][4], vin[4], vout[K][4], vb[K][4];
	MPI_Datatype v;
	CHECK_RC(MPI_Type_vector(2, 1, 2, MPI_LONG, &v));
	CHECK_RC(MPI_Type_commit(&v));
	for (int i = 0; i < 4 * K; i++) {
		int k = i % K;
		MPI_Request r;
		long in = rank + i;
		/* Every other round rank 0 comes late: the others' starts
		 * cannot finish, and their runs are freed pending. */
		if (i % 2 && rank == 0) {
			double end = now() + 200e-6;
			while (now() < end);
		}
		outs[k] = -1;
		CHECK_RC(MPI_Iallreduce(&in, &outs[k], 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &r));
		CHECK_RC(MPI_Request_free(&r));
		CHECK(r == MPI_REQUEST_NULL);
		for (int j = 0; j < 4; j++) bufs[k][j] = rank == 0 ? 11L * i + j : -1;
		CHECK_RC(MPI_Ibcast(bufs[k], 4, MPI_LONG, 0, MPI_COMM_WORLD, &r));
		CHECK_RC(MPI_Request_free(&r));
		CHECK_RC(MPI_Ibarrier(MPI_COMM_WORLD, &r));
		CHECK_RC(MPI_Request_free(&r));
		vin[0] = rank + i, vin[2] = rank + 2L * i, vin[1] = vin[3] = -7;
		for (int j = 0; j < 4; j++) vout[k][j] = -5, vb[k][j] = j % 2 ? -5 : rank == 0 ? 13L * i + j : -1;
		CHECK_RC(MPI_Iallreduce(vin, vout[k], 1, v, MPI_SUM, MPI_COMM_WORLD, &r));
		CHECK_RC(MPI_Request_free(&r));
		CHECK_RC(MPI_Ibcast(vb[k], 1, v, 0, MPI_COMM_WORLD, &r));
		CHECK_RC(MPI_Request_free(&r));
		/* Each Barrier's progress takes the freed runs a round
		 * further at least (every rank's messages of a round are out
		 * before its Barrier's); one per round of the deepest of them,
		 * and the results are in. */
		for (int d = 1; d < 2 * size; d *= 2) CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
		CHECK(outs[k] == sum_of(i));
		for (int j = 0; j < 4; j++) CHECK(bufs[k][j] == 11L * i + j);
		CHECK(vout[k][0] == sum_of(i) && vout[k][2] == sum_of(2 * i) && vout[k][1] == -5);
		CHECK(vb[k][0] == 13L * i && vb[k][2] == 13L * i + 2 && vb[k][1] == -5 && vb[k][3] == -5);
	}
	CHECK_RC(MPI_Type_free(&v));
}

int main(int argc, char **argv)
{
	CHECK_RC(MPI_Init(&argc, &argv));
	CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
	CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
	CHECK(size <= MAXN);
	const char *mode = getenv("NBC_MODE");
	compute = mode && strcmp(mode, "compute") == 0;
	rounds();
	if (!compute) {
		sends_first();
		freed();
	}
	report_ok();
	CHECK_RC(MPI_Finalize());
	return 0;
}
