/* fastlane.c — small blocking sends and receives that the C hot path takes
 * (cmd/libmpi_abi/fastlane.c) interleaved with ones it must leave to the Go
 * engine: a posted Irecv, an unexpected message, another tag or
 * communicator at the head, ANY_SOURCE, Ssend, truncation, messages too big
 * to travel inline. Every message carries its identity, so a wrong order,
 * a wrong match or a wrong status fails a check. Then every rank exchanges
 * with every other at once (the stress). */
#include <unistd.h>

#include "check.h"

static void fill(unsigned char *b, int n, int a, int c)
{
	for (int i = 0; i < n; i++) b[i] = (unsigned char)(a * 131 + c * 7 + i);
}

static void expect(const unsigned char *b, int n, int a, int c)
{
	for (int i = 0; i < n; i++) CHECK(b[i] == (unsigned char)(a * 131 + c * 7 + i));
}

static int count_of(MPI_Status *st)
{
	int n = -1;
	CHECK_RC(MPI_Get_count(st, MPI_BYTE, &n));
	return n;
}

static unsigned char sb[4096], rb[4096], rb2[4096];

/* One exchange in pattern p from s to r (ranks of comm world) in round i. */
static void pair_round(int me, int s, int r, int i, MPI_Comm dup, MPI_Comm rev)
{
	MPI_Status st;
	MPI_Request q;
	int n = (i * 37) % 1025; /* 0..1024: always inline */
	switch (i % 8) {
	case 0: /* the plain case: fast on both sides */
		if (me == s) {
			fill(sb, n, i, 0);
			CHECK_RC(MPI_Send(sb, n, MPI_BYTE, r, 1, MPI_COMM_WORLD));
		} else {
			CHECK_RC(MPI_Recv(rb, sizeof rb, MPI_BYTE, s, 1, MPI_COMM_WORLD, &st));
			CHECK(st.MPI_SOURCE == s && st.MPI_TAG == 1 && count_of(&st) == n);
			expect(rb, n, i, 0);
		}
		break;
	case 1: /* a posted Irecv: the blocking receive must go through Go */
		if (me == s) {
			fill(sb, n, i, 1);
			fill(sb + 2048, 8, i, 2);
			CHECK_RC(MPI_Send(sb, n, MPI_BYTE, r, 2, MPI_COMM_WORLD));
			CHECK_RC(MPI_Send(sb + 2048, 8, MPI_BYTE, r, 3, MPI_COMM_WORLD));
		} else {
			CHECK_RC(MPI_Irecv(rb2, 8, MPI_BYTE, s, 3, MPI_COMM_WORLD, &q));
			CHECK_RC(MPI_Recv(rb, sizeof rb, MPI_BYTE, s, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
			CHECK(st.MPI_TAG == 2 && count_of(&st) == n);
			expect(rb, n, i, 1);
			CHECK_RC(MPI_Wait(&q, &st));
			CHECK(st.MPI_TAG == 3 && count_of(&st) == 8);
			expect(rb2, 8, i, 2);
		}
		break;
	case 2: /* tags out of order: the first message becomes unexpected */
		if (me == s) {
			fill(sb, n, i, 3);
			fill(sb + 2048, 5, i, 4);
			CHECK_RC(MPI_Send(sb, n, MPI_BYTE, r, 5, MPI_COMM_WORLD));
			CHECK_RC(MPI_Send(sb + 2048, 5, MPI_BYTE, r, 6, MPI_COMM_WORLD));
			CHECK_RC(MPI_Send(sb + 2048, 5, MPI_BYTE, r, 5, MPI_COMM_WORLD));
		} else {
			CHECK_RC(MPI_Recv(rb, sizeof rb, MPI_BYTE, s, 6, MPI_COMM_WORLD, &st));
			CHECK(st.MPI_TAG == 6 && count_of(&st) == 5);
			expect(rb, 5, i, 4);
			/* Both tag-5 messages in order, the first one unexpected. */
			CHECK_RC(MPI_Recv(rb, sizeof rb, MPI_BYTE, s, 5, MPI_COMM_WORLD, &st));
			CHECK(count_of(&st) == n);
			expect(rb, n, i, 3);
			CHECK_RC(MPI_Recv(rb, sizeof rb, MPI_BYTE, s, 5, MPI_COMM_WORLD, &st));
			CHECK(count_of(&st) == 5);
			expect(rb, 5, i, 4);
		}
		break;
	case 3: /* ANY_SOURCE and a message too long to travel inline */
		if (me == s) {
			fill(sb, 3000, i, 5);
			fill(sb + 3000, 9, i, 6);
			CHECK_RC(MPI_Send(sb, 3000, MPI_BYTE, r, 7, MPI_COMM_WORLD));
			CHECK_RC(MPI_Send(sb + 3000, 9, MPI_BYTE, r, 7, MPI_COMM_WORLD));
			CHECK_RC(MPI_Isend(sb + 3000, 9, MPI_BYTE, r, 8, MPI_COMM_WORLD, &q));
			CHECK_RC(MPI_Wait(&q, MPI_STATUS_IGNORE));
		} else {
			CHECK_RC(MPI_Recv(rb, sizeof rb, MPI_BYTE, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &st));
			CHECK(st.MPI_SOURCE == s && count_of(&st) == 3000);
			expect(rb, 3000, i, 5);
			CHECK_RC(MPI_Recv(rb, sizeof rb, MPI_BYTE, s, 7, MPI_COMM_WORLD, &st));
			CHECK(count_of(&st) == 9);
			expect(rb, 9, i, 6);
			CHECK_RC(MPI_Recv(rb, sizeof rb, MPI_BYTE, s, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
			expect(rb, 9, i, 6);
		}
		break;
	case 4: /* Ssend wants an acknowledgement: Go's */
		if (me == s) {
			fill(sb, n, i, 7);
			CHECK_RC(MPI_Ssend(sb, n, MPI_BYTE, r, 9, MPI_COMM_WORLD));
			CHECK_RC(MPI_Send(sb, n, MPI_BYTE, r, 9, MPI_COMM_WORLD));
		} else {
			for (int k = 0; k < 2; k++) {
				CHECK_RC(MPI_Recv(rb, sizeof rb, MPI_BYTE, s, 9, MPI_COMM_WORLD, &st));
				CHECK(count_of(&st) == n);
				expect(rb, n, i, 7);
			}
		}
		break;
	case 5: /* truncation is Go's to report; the next message is fine */
		if (me == s) {
			fill(sb, 16, i, 8);
			CHECK_RC(MPI_Send(sb, 16, MPI_BYTE, r, 10, MPI_COMM_WORLD));
			CHECK_RC(MPI_Send(sb, 16, MPI_BYTE, r, 10, MPI_COMM_WORLD));
		} else {
			int rc = MPI_Recv(rb, 8, MPI_BYTE, s, 10, MPI_COMM_WORLD, &st);
			int cls = -1;
			MPI_Error_class(rc, &cls);
			CHECK(cls == MPI_ERR_TRUNCATE);
			expect(rb, 8, i, 8);
			CHECK_RC(MPI_Recv(rb, 16, MPI_BYTE, s, 10, MPI_COMM_WORLD, &st));
			CHECK(count_of(&st) == 16);
			expect(rb, 16, i, 8);
		}
		break;
	case 6: /* another communicator's message at the head */
		if (me == s) {
			fill(sb, n, i, 9);
			fill(sb + 2048, 4, i, 10);
			CHECK_RC(MPI_Send(sb, n, MPI_BYTE, r, 11, MPI_COMM_WORLD));
			CHECK_RC(MPI_Send(sb + 2048, 4, MPI_BYTE, r, 11, dup));
		} else {
			CHECK_RC(MPI_Recv(rb, sizeof rb, MPI_BYTE, s, 11, dup, &st));
			CHECK(count_of(&st) == 4);
			expect(rb, 4, i, 10);
			CHECK_RC(MPI_Recv(rb, sizeof rb, MPI_BYTE, s, 11, MPI_COMM_WORLD, &st));
			CHECK(count_of(&st) == n);
			expect(rb, n, i, 9);
		}
		break;
	case 7: { /* ranks renumbered: the status names the communicator's rank */
		int size, rs, rr;
		MPI_Comm_size(MPI_COMM_WORLD, &size);
		rs = size - 1 - s, rr = size - 1 - r;
		if (me == s) {
			fill(sb, n, i, 11);
			CHECK_RC(MPI_Send(sb, n, MPI_BYTE, rr, 12, rev));
		} else {
			CHECK_RC(MPI_Recv(rb, sizeof rb, MPI_BYTE, rs, 12, rev, &st));
			CHECK(st.MPI_SOURCE == rs && st.MPI_TAG == 12 && count_of(&st) == n);
			expect(rb, n, i, 11);
		}
		break;
	}
	}
}

/* Sizes whose copy out of the slot takes each of its cases (none, 1-3,
 * 4-7, 8-16 bytes by hand, the library's copy above) and the inline limit. */
static const int edge_sizes[] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,   10,   11,   12,   13,   14,  15,
				 16, 17, 18, 19, 20, 31, 32, 33, 39, 40, 41, 63, 64, 65, 1000, 1023, 1024, 1039, 1040};
enum { NEDGE = sizeof edge_sizes / sizeof edge_sizes[0], GUARD = 0xa5 };

/* edge_round sends every size of edge_sizes from s to r while r sleeps
 * outside MPI (Go's progress would move them off the channel), so that r
 * mostly takes them off its channel in C, by
 * MPI_Recv (lane 0) or by MPI_Irecv and one MPI_Waitall (lane 1), each
 * into a buffer at another alignment: the payload and status must be
 * exact and not a byte around the payload written. */
static void edge_round(int me, int s, int r, int lane)
{
	static unsigned char in[NEDGE][1200];
	MPI_Request q[NEDGE];
	MPI_Status st[NEDGE];
	if (me == s) {
		CHECK_RC(MPI_Recv(NULL, 0, MPI_BYTE, r, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
		for (int k = 0; k < NEDGE; k++) {
			fill(sb, edge_sizes[k], k, lane);
			CHECK_RC(MPI_Send(sb, edge_sizes[k], MPI_BYTE, r, 20, MPI_COMM_WORLD));
		}
	}
	if (me != r) return;
	memset(in, GUARD, sizeof in);
	/* The go-ahead: r is not in Go (a wait there would drain the channel)
	 * while s sends. */
	CHECK_RC(MPI_Send(NULL, 0, MPI_BYTE, s, 21, MPI_COMM_WORLD));
	usleep(30000);
	for (int k = 0; k < NEDGE; k++) {
		unsigned char *b = in[k] + 8 + k % 8;
		if (lane)
			CHECK_RC(MPI_Irecv(b, edge_sizes[k], MPI_BYTE, s, 20, MPI_COMM_WORLD, &q[k]));
		else
			CHECK_RC(MPI_Recv(b, edge_sizes[k], MPI_BYTE, s, 20, MPI_COMM_WORLD, &st[k]));
	}
	if (lane) CHECK_RC(MPI_Waitall(NEDGE, q, st));
	for (int k = 0; k < NEDGE; k++) {
		int n = edge_sizes[k], off = 8 + k % 8;
		CHECK(st[k].MPI_SOURCE == s && st[k].MPI_TAG == 20 && count_of(&st[k]) == n);
		expect(in[k] + off, n, k, lane);
		for (int i = 0; i < (int)sizeof in[k]; i++)
			if (i < off || i >= off + n) CHECK(in[k][i] == GUARD);
	}
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
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm dup, rev;
	CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
	CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, 0, size - me, &rev));

	/* Pairs (0,1), (2,3)...; the roles swap every round. */
	int partner = me ^ 1;
	if (partner < size) {
		for (int i = 0; i < 4000; i++) {
			int lo = me < partner ? me : partner, hi = lo + 1;
			int s = (i / 8) % 2 ? hi : lo, r = s == lo ? hi : lo;
			pair_round(me, s, r, i, dup, rev);
		}
	}
	CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
	for (int lane = 0; lane < 2 && size > 1; lane++) {
		edge_round(me, 0, 1, lane);
		edge_round(me, 1, 0, lane);
	}

	/* Stress: everybody sends to everybody, then receives from each,
	 * by name or by ANY_SOURCE, sizes around the inline limit. */
	static unsigned char in[1][1200];
	CHECK(size <= 64);
	for (int k = 0; k < 600 && size > 1; k++) {
		int n = (k * 53) % 1100, tag = k % 3;
		for (int d = 1; d < size; d++) {
			int p = (me + d) % size;
			fill(sb, n, k, me);
			CHECK_RC(MPI_Send(sb, n, MPI_BYTE, p, tag, MPI_COMM_WORLD));
		}
		int seen[64] = {0};
		for (int d = 1; d < size; d++) {
			MPI_Status st;
			int p = k % 2 ? MPI_ANY_SOURCE : (me - d + size) % size;
			CHECK_RC(MPI_Recv(in[0], sizeof in[0], MPI_BYTE, p, tag, MPI_COMM_WORLD, &st));
			CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < size && st.MPI_SOURCE != me && !seen[st.MPI_SOURCE]);
			CHECK(p == MPI_ANY_SOURCE || st.MPI_SOURCE == p);
			seen[st.MPI_SOURCE] = 1;
			CHECK(count_of(&st) == n && st.MPI_TAG == tag);
			expect(in[0], n, k, st.MPI_SOURCE);
		}
	}
	CHECK_RC(MPI_Comm_free(&dup));
	CHECK_RC(MPI_Comm_free(&rev));
	report_ok();
	MPI_Finalize();
	return 0;
}
