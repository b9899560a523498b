/* spans.c — messages of 0 B to 8 KiB at every boundary of the C fast
 * lane's forms (inline max ±1, a span's head and continuation sizes ±1,
 * 4 KiB ±1, above the largest span) from C to C, mixed with traffic the Go
 * engine must take (ANY_SOURCE, a probe, Ssend, a posted receive, a
 * truncation) in an order every check depends on. Pairs of ranks (0,1),
 * (2,3)... take turns sending; then a long run of mixed sizes goes round
 * each pair's rings many times, so spans meet the ring's end. */
#include "check.h"

static void fill(unsigned char *b, int n, int a, int c)
{
	for (int i = 0; i < n; i++) b[i] = (unsigned char)(a * 131 + c * 7 + i + (i >> 8));
}

static void expect(const unsigned char *b, int n, int a, int c)
{
	for (int i = 0; i < n; i++) CHECK(b[i] == (unsigned char)(a * 131 + c * 7 + i + (i >> 8)));
}

static int count_of(MPI_Status *st)
{
	int n = -1;
	CHECK_RC(MPI_Get_count(st, MPI_BYTE, &n));
	return n;
}

enum { BIG = 8200, Q = 8 };
static unsigned char sb[Q][BIG], rb[Q][BIG];

static const int sizes[] = {0,    1,    1039, 1040, 1041, 1063, 1064, 1065, 2047, 2048, 2049, 2143,
			    2144, 2145, 3223, 3224, 3225, 4095, 4096, 4097, 8191, 8192, 8193};
enum { NSIZES = sizeof sizes / sizeof sizes[0] };

/* A receive buffer of up to 4 KiB is one C may take a message into (a
 * larger one the skew controller watches, in Go). */
static int cap_for(int n) { return n <= 4096 ? 4096 : BIG; }

/* The sizes of the receive lane's messages: up to 4 KiB. */
static int lane_size(int k) { return sizes[k % (NSIZES - 4)]; }

/* Each size blocking, in both directions' turns. */
static void boundaries(int me, int s, int r, int turn)
{
	MPI_Status st;
	for (int rep = 0; rep < 3; rep++) {
		for (int i = 0; i < NSIZES; i++) {
			int n = sizes[i], id = turn * 1000 + rep * 100 + i;
			if (me == s) {
				fill(sb[0], n, id, 0);
				CHECK_RC(MPI_Send(sb[0], n, MPI_BYTE, r, i % 5, MPI_COMM_WORLD));
			} else {
				CHECK_RC(MPI_Recv(rb[0], cap_for(n), MPI_BYTE, s, i % 5, MPI_COMM_WORLD, &st));
				CHECK(st.MPI_SOURCE == s && st.MPI_TAG == i % 5 && count_of(&st) == n);
				expect(rb[0], n, id, 0);
			}
		}
	}
}

/* Spans among messages Go must take: ANY_SOURCE, a probe, Ssend, receives
 * posted in Go; the order of arrival is the order of sending. */
static void mixed(int me, int s, int r, int round)
{
	MPI_Status st, sts[Q];
	MPI_Request q[Q];
	int n0 = sizes[round % NSIZES], n1 = sizes[(round + 7) % NSIZES], n2 = sizes[(round + 11) % NSIZES];
	if (me == s) {
		fill(sb[0], n0, round, 1);
		fill(sb[1], n1, round, 2);
		fill(sb[2], n2, round, 3);
		fill(sb[3], n0, round, 4);
		CHECK_RC(MPI_Send(sb[0], n0, MPI_BYTE, r, 1, MPI_COMM_WORLD));
		CHECK_RC(MPI_Ssend(sb[1], n1, MPI_BYTE, r, 2, MPI_COMM_WORLD));
		CHECK_RC(MPI_Send(sb[2], n2, MPI_BYTE, r, 3, MPI_COMM_WORLD));
		CHECK_RC(MPI_Isend(sb[3], n0, MPI_BYTE, r, 3, MPI_COMM_WORLD, &q[0]));
		CHECK_RC(MPI_Wait(&q[0], &st));
		fill(sb[4], n1, round, 5);
		CHECK_RC(MPI_Send(sb[4], n1, MPI_BYTE, r, 4, MPI_COMM_WORLD));
		return;
	}
	CHECK_RC(MPI_Recv(rb[0], BIG, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
	CHECK(st.MPI_SOURCE == s && st.MPI_TAG == 1 && count_of(&st) == n0);
	expect(rb[0], n0, round, 1);
	CHECK_RC(MPI_Probe(s, 2, MPI_COMM_WORLD, &st));
	CHECK(count_of(&st) == n1);
	CHECK_RC(MPI_Recv(rb[1], n1, MPI_BYTE, s, 2, MPI_COMM_WORLD, &st));
	expect(rb[1], n1, round, 2);
	/* Two receives of one tag: the first posted gets the first sent. */
	CHECK_RC(MPI_Irecv(rb[2], BIG, MPI_BYTE, s, 3, MPI_COMM_WORLD, &q[0]));
	CHECK_RC(MPI_Irecv(rb[3], BIG, MPI_BYTE, s, 3, MPI_COMM_WORLD, &q[1]));
	CHECK_RC(MPI_Waitall(2, q, sts));
	CHECK(count_of(&sts[0]) == n2 && count_of(&sts[1]) == n0);
	expect(rb[2], n2, round, 3);
	expect(rb[3], n0, round, 4);
	/* An ANY_TAG receive posted in Go before the span arrives. */
	CHECK_RC(MPI_Irecv(rb[4], BIG, MPI_BYTE, MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, &q[0]));
	CHECK_RC(MPI_Wait(&q[0], &st));
	CHECK(st.MPI_SOURCE == s && count_of(&st) == n1);
	expect(rb[4], n1, round, 5);
}

/* Q receives queued in C's receive lane, completed by Testall (which looks
 * at every message before taking any) or Waitany. */
static void lane(int me, int s, int r, int round)
{
	MPI_Status sts[Q];
	MPI_Request q[Q];
	if (me == s) {
		/* After the receives are posted, so that they queue in C. */
		CHECK_RC(MPI_Recv(NULL, 0, MPI_BYTE, r, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
		for (int j = 0; j < Q; j++) {
			int n = lane_size(round + 3 * j);
			fill(sb[j], n, round, 10 + j);
			CHECK_RC(MPI_Send(sb[j], n, MPI_BYTE, r, 5, MPI_COMM_WORLD));
		}
		return;
	}
	for (int j = 0; j < Q; j++) CHECK_RC(MPI_Irecv(rb[j], 4096, MPI_BYTE, s, 5, MPI_COMM_WORLD, &q[j]));
	CHECK_RC(MPI_Send(NULL, 0, MPI_BYTE, s, 9, MPI_COMM_WORLD));
	if (round % 2) {
		int flag = 0;
		while (!flag) CHECK_RC(MPI_Testall(Q, q, &flag, sts));
	} else {
		for (int j = 0; j < Q; j++) {
			int idx = -1;
			MPI_Status st;
			CHECK_RC(MPI_Waitany(Q, q, &idx, &st));
			CHECK(idx >= 0 && idx < Q);
			sts[idx] = st;
		}
	}
	for (int j = 0; j < Q; j++) {
		int n = lane_size(round + 3 * j);
		CHECK(sts[j].MPI_TAG == 5 && count_of(&sts[j]) == n);
		expect(rb[j], n, round, 10 + j);
	}
}

/* A span into a buffer one byte short: MPI_ERR_TRUNCATE, and the message
 * after it still arrives in order. */
static void truncation(int me, int s, int r)
{
	MPI_Status st;
	MPI_Request q;
	if (me == s) {
		for (int j = 0; j < 3; j++) {
			fill(sb[j], 2048 + j, 77, j);
			CHECK_RC(MPI_Send(sb[j], 2048 + j, MPI_BYTE, r, 6, MPI_COMM_WORLD));
		}
		return;
	}
	int rc = MPI_Recv(rb[0], 2047, MPI_BYTE, s, 6, MPI_COMM_WORLD, &st), cls = -1;
	CHECK(rc != MPI_SUCCESS);
	CHECK_RC(MPI_Error_class(rc, &cls));
	CHECK(cls == MPI_ERR_TRUNCATE);
	CHECK_RC(MPI_Irecv(rb[1], 2048, MPI_BYTE, s, 6, MPI_COMM_WORLD, &q));
	rc = MPI_Wait(&q, &st);
	CHECK_RC(MPI_Error_class(rc, &cls));
	CHECK(cls == MPI_ERR_TRUNCATE);
	CHECK_RC(MPI_Recv(rb[2], BIG, MPI_BYTE, s, 6, MPI_COMM_WORLD, &st));
	CHECK(count_of(&st) == 2050);
	expect(rb[2], 2050, 77, 2);
}

int main(int argc, char **argv)
{
	int me, size;
	if (getenv("FL_MULTIPLE")) {
		int provided;
		CHECK_RC(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
		CHECK(provided == MPI_THREAD_MULTIPLE);
	} else {
		CHECK_RC(MPI_Init(&argc, &argv));
	}
	CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &me));
	CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
	CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
	int partner = me ^ 1;
	if (partner < size) {
		int lo = me < partner ? me : partner, hi = lo + 1;
		for (int turn = 0; turn < 2; turn++) {
			int s = turn ? hi : lo, r = turn ? lo : hi;
			boundaries(me, s, r, turn);
			for (int round = 0; round < 3 * NSIZES; round++) mixed(me, s, r, round);
			for (int round = 0; round < 2 * NSIZES; round++) lane(me, s, r, round);
			truncation(me, s, r);
		}
		/* Round and round the rings: ping-pong of mixed sizes, each
		 * side replying with another size. */
		MPI_Status st;
		for (int i = 0; i < 3000; i++) {
			int n = (i * 389) % 4200, m = (i * 211) % 4200;
			if (me == lo) {
				fill(sb[0], n, i, 20);
				CHECK_RC(MPI_Send(sb[0], n, MPI_BYTE, hi, 7, MPI_COMM_WORLD));
				CHECK_RC(MPI_Recv(rb[0], cap_for(m), MPI_BYTE, hi, 7, MPI_COMM_WORLD, &st));
				CHECK(count_of(&st) == m);
				expect(rb[0], m, i, 21);
			} else {
				CHECK_RC(MPI_Recv(rb[0], cap_for(n), MPI_BYTE, lo, 7, MPI_COMM_WORLD, &st));
				CHECK(count_of(&st) == n);
				expect(rb[0], n, i, 20);
				fill(sb[0], m, i, 21);
				CHECK_RC(MPI_Send(sb[0], m, MPI_BYTE, lo, 7, MPI_COMM_WORLD));
			}
		}
		/* Streams: many spans in flight before the first is received. */
		MPI_Request q[Q];
		for (int i = 0; i < 200; i++) {
			int n = 1041 + (i * 577) % 3056;
			if (me == lo) {
				for (int j = 0; j < Q; j++) {
					fill(sb[j], n, i, 30 + j);
					CHECK_RC(MPI_Isend(sb[j], n, MPI_BYTE, hi, 8, MPI_COMM_WORLD, &q[j]));
				}
				CHECK_RC(MPI_Waitall(Q, q, MPI_STATUSES_IGNORE));
			} else {
				for (int j = 0; j < Q; j++) {
					CHECK_RC(MPI_Recv(rb[j], 4096, MPI_BYTE, lo, 8, MPI_COMM_WORLD, &st));
					CHECK(count_of(&st) == n);
					expect(rb[j], n, i, 30 + j);
				}
			}
		}
	}
	CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
	report_ok();
	MPI_Finalize();
	return 0;
}
