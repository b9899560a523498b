/* recvlane.c — nonblocking receives that the C receive lane queues
 * (cmd/libmpi_abi/fastlane.c: MPI_Irecv naming a source) mixed with every
 * kind of call that must first hand them to Go: ANY_SOURCE receives,
 * Probe, Iprobe, a collective, Cancel, Request_free, Waitany, Testall;
 * tags out of order, a truncation, a window completed half in C and half
 * in Go. Each message carries its identity, so a receive matched out of
 * order or a wrong status fails a check. Pairs (0,1), (2,3)... run the
 * cases; then every rank streams windows to every other (the stress). */
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

enum { W = 64, LEN = 24 };
static unsigned char sb[W][LEN], rb[W][LEN];

/* send_ids sends messages first..first+n-1 (tag tagof(i), identity i). */
static void send_ids(int to, int first, int n, int (*tagof)(int), MPI_Comm comm)
{
	for (int i = first; i < first + n; i++) {
		fill(sb[i], LEN, i, 9);
		CHECK_RC(MPI_Send(sb[i], LEN, MPI_BYTE, to, tagof(i), comm));
	}
}

static int tag_mod3(int i) { return i % 3; }
static int tag_one(int i) { (void)i; return 1; }

static void check_msg(MPI_Status *st, int i, int from, int tag)
{
	CHECK(st->MPI_SOURCE == from && st->MPI_TAG == tag && count_of(st) == LEN);
	expect(rb[i], LEN, i, 9);
}

/* Case r of the pair (s sends, r receives). */
static void run_case(int c, int me, int s, int r, MPI_Comm dup)
{
	MPI_Request q[W + 2];
	MPI_Status st[W + 2];
	switch (c) {
	case 0: /* a window, Waitall with statuses */
		if (me == s) {
			send_ids(r, 0, W, tag_mod3, MPI_COMM_WORLD);
		} else {
			for (int i = 0; i < W; i++) CHECK_RC(MPI_Irecv(rb[i], LEN, MPI_BYTE, s, i % 3, MPI_COMM_WORLD, &q[i]));
			CHECK_RC(MPI_Waitall(W, q, st));
			for (int i = 0; i < W; i++) {
				CHECK(q[i] == MPI_REQUEST_NULL);
				check_msg(&st[i], i, s, i % 3);
			}
		}
		break;
	case 1: /* a window with MPI_ANY_TAG, Wait one by one, no statuses */
		if (me == s) {
			send_ids(r, 0, W, tag_mod3, MPI_COMM_WORLD);
		} else {
			for (int i = 0; i < W; i++)
				CHECK_RC(MPI_Irecv(rb[i], LEN, MPI_BYTE, s, MPI_ANY_TAG, MPI_COMM_WORLD, &q[i]));
			for (int i = 0; i < W; i++) {
				CHECK_RC(MPI_Wait(&q[i], &st[0]));
				check_msg(&st[0], i, s, i % 3);
			}
			for (int i = 0; i < W; i++) expect(rb[i], LEN, i, 9);
		}
		break;
	case 2: /* an ANY_SOURCE receive between lane receives */
		if (me == s) {
			send_ids(r, 0, 1, tag_one, MPI_COMM_WORLD);
			fill(sb[1], LEN, 1, 9);
			CHECK_RC(MPI_Send(sb[1], LEN, MPI_BYTE, r, 2, MPI_COMM_WORLD));
			send_ids(r, 2, 1, tag_one, MPI_COMM_WORLD);
		} else {
			CHECK_RC(MPI_Irecv(rb[0], LEN, MPI_BYTE, s, 1, MPI_COMM_WORLD, &q[0]));
			CHECK_RC(MPI_Irecv(rb[1], LEN, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &q[1]));
			CHECK_RC(MPI_Irecv(rb[2], LEN, MPI_BYTE, s, 1, MPI_COMM_WORLD, &q[2]));
			CHECK_RC(MPI_Waitall(3, q, st));
			check_msg(&st[0], 0, s, 1);
			check_msg(&st[1], 1, s, 2);
			check_msg(&st[2], 2, s, 1);
		}
		break;
	case 3: /* tags out of order: 5 posted before 6, 6 arrives first */
		if (me == s) {
			fill(sb[1], LEN, 1, 9);
			CHECK_RC(MPI_Send(sb[1], LEN, MPI_BYTE, r, 6, MPI_COMM_WORLD));
			fill(sb[0], LEN, 0, 9);
			CHECK_RC(MPI_Send(sb[0], LEN, MPI_BYTE, r, 5, MPI_COMM_WORLD));
		} else {
			CHECK_RC(MPI_Irecv(rb[0], LEN, MPI_BYTE, s, 5, MPI_COMM_WORLD, &q[0]));
			CHECK_RC(MPI_Irecv(rb[1], LEN, MPI_BYTE, s, 6, MPI_COMM_WORLD, &q[1]));
			CHECK_RC(MPI_Waitall(2, q, st));
			check_msg(&st[0], 0, s, 5);
			check_msg(&st[1], 1, s, 6);
		}
		break;
	case 4: /* Probe and Iprobe while lane receives are queued */
		if (me == s) {
			send_ids(r, 0, 1, tag_one, MPI_COMM_WORLD);
			fill(sb[1], LEN, 1, 9);
			CHECK_RC(MPI_Send(sb[1], LEN, MPI_BYTE, r, 8, MPI_COMM_WORLD));
			fill(sb[2], LEN, 2, 9);
			CHECK_RC(MPI_Send(sb[2], LEN, MPI_BYTE, r, 9, MPI_COMM_WORLD));
		} else {
			CHECK_RC(MPI_Irecv(rb[0], LEN, MPI_BYTE, s, 1, MPI_COMM_WORLD, &q[0]));
			/* The tag-1 message goes to the queued receive, not Probe. */
			CHECK_RC(MPI_Probe(s, MPI_ANY_TAG, MPI_COMM_WORLD, &st[1]));
			CHECK(st[1].MPI_TAG == 8);
			CHECK_RC(MPI_Irecv(rb[2], LEN, MPI_BYTE, s, 9, MPI_COMM_WORLD, &q[2]));
			int flag = 0;
			while (!flag) CHECK_RC(MPI_Iprobe(s, 8, MPI_COMM_WORLD, &flag, &st[1]));
			CHECK_RC(MPI_Recv(rb[1], LEN, MPI_BYTE, s, 8, MPI_COMM_WORLD, &st[1]));
			check_msg(&st[1], 1, s, 8);
			CHECK_RC(MPI_Wait(&q[2], &st[2]));
			check_msg(&st[2], 2, s, 9);
			CHECK_RC(MPI_Wait(&q[0], &st[0]));
			check_msg(&st[0], 0, s, 1);
		}
		break;
	case 5: /* a collective between MPI_Irecv and MPI_Waitall */
		if (me == r) {
			for (int i = 0; i < 8; i++) CHECK_RC(MPI_Irecv(rb[i], LEN, MPI_BYTE, s, 1, dup, &q[i]));
		}
		CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
		if (me == s) {
			send_ids(r, 0, 8, tag_one, dup);
		} else if (me == r) {
			CHECK_RC(MPI_Waitall(8, q, st));
			for (int i = 0; i < 8; i++) check_msg(&st[i], i, s, 1);
		}
		break;
	case 6: /* Test loops, then Testall loops */
		if (me == s) {
			send_ids(r, 0, 40, tag_mod3, MPI_COMM_WORLD);
		} else {
			for (int i = 0; i < 16; i++) CHECK_RC(MPI_Irecv(rb[i], LEN, MPI_BYTE, s, i % 3, MPI_COMM_WORLD, &q[i]));
			for (int i = 0; i < 16; i++) {
				int flag = 0;
				while (!flag) CHECK_RC(MPI_Test(&q[i], &flag, &st[0]));
				CHECK(q[i] == MPI_REQUEST_NULL);
				check_msg(&st[0], i, s, i % 3);
			}
			for (int i = 16; i < 32; i++) CHECK_RC(MPI_Irecv(rb[i], LEN, MPI_BYTE, s, i % 3, MPI_COMM_WORLD, &q[i]));
			int flag = 0;
			while (!flag) CHECK_RC(MPI_Testall(16, q + 16, &flag, st));
			for (int i = 16; i < 32; i++) check_msg(&st[i - 16], i, s, i % 3);
			/* Testall over an array in reverse posting order, with a
			 * null handle: each status lands at its request's place. */
			for (int i = 32; i < 40; i++)
				CHECK_RC(MPI_Irecv(rb[i], LEN, MPI_BYTE, s, i % 3, MPI_COMM_WORLD, &q[39 - i]));
			q[8] = MPI_REQUEST_NULL;
			flag = 0;
			while (!flag) CHECK_RC(MPI_Testall(9, q, &flag, st));
			for (int i = 32; i < 40; i++) check_msg(&st[39 - i], i, s, i % 3);
			CHECK(st[8].MPI_SOURCE == MPI_ANY_SOURCE && st[8].MPI_TAG == MPI_ANY_TAG);
			for (int i = 0; i < 9; i++) CHECK(q[i] == MPI_REQUEST_NULL);
		}
		break;
	case 7: /* Cancel, Request_get_status and Request_free of lane receives */
		if (me == s) {
			send_ids(r, 0, 3, tag_one, MPI_COMM_WORLD);
		} else {
			int flag = 1;
			CHECK_RC(MPI_Irecv(rb[W - 1], LEN, MPI_BYTE, s, 99, MPI_COMM_WORLD, &q[0]));
			CHECK_RC(MPI_Request_get_status(q[0], &flag, &st[0]));
			CHECK(!flag);
			CHECK_RC(MPI_Cancel(&q[0]));
			CHECK_RC(MPI_Wait(&q[0], &st[0]));
			CHECK_RC(MPI_Test_cancelled(&st[0], &flag));
			CHECK(flag);
			/* Freed while active: it still takes message 0. */
			CHECK_RC(MPI_Irecv(rb[0], LEN, MPI_BYTE, s, 1, MPI_COMM_WORLD, &q[0]));
			CHECK_RC(MPI_Request_free(&q[0]));
			CHECK(q[0] == MPI_REQUEST_NULL);
			CHECK_RC(MPI_Irecv(rb[1], LEN, MPI_BYTE, s, 1, MPI_COMM_WORLD, &q[1]));
			CHECK_RC(MPI_Irecv(rb[2], LEN, MPI_BYTE, s, 1, MPI_COMM_WORLD, &q[2]));
			int idx = -1;
			CHECK_RC(MPI_Waitany(2, q + 1, &idx, &st[0]));
			CHECK(idx == 0 || idx == 1);
			check_msg(&st[0], idx + 1, s, 1);
			CHECK_RC(MPI_Wait(&q[2 - idx], &st[0]));
			check_msg(&st[0], 2 - idx, s, 1);
		}
		break;
	case 8: /* truncation: the error class, in Wait and in Waitall */
		if (me == s) {
			send_ids(r, 0, 3, tag_one, MPI_COMM_WORLD);
		} else {
			CHECK_RC(MPI_Irecv(rb[0], LEN / 2, MPI_BYTE, s, 1, MPI_COMM_WORLD, &q[0]));
			int rc = MPI_Wait(&q[0], &st[0]), cls = -1;
			MPI_Error_class(rc, &cls);
			CHECK(cls == MPI_ERR_TRUNCATE);
			CHECK_RC(MPI_Irecv(rb[1], LEN, MPI_BYTE, s, 1, MPI_COMM_WORLD, &q[0]));
			CHECK_RC(MPI_Irecv(rb[2], LEN - 1, MPI_BYTE, s, 1, MPI_COMM_WORLD, &q[1]));
			rc = MPI_Waitall(2, q, st);
			CHECK(rc == MPI_ERR_IN_STATUS);
			CHECK(st[0].MPI_ERROR == MPI_SUCCESS);
			check_msg(&st[0], 1, s, 1);
			MPI_Error_class(st[1].MPI_ERROR, &cls);
			CHECK(cls == MPI_ERR_TRUNCATE);
		}
		break;
	case 10: /* Waitany, then Testany loops, over a window */
		if (me == s) {
			send_ids(r, 0, 32, tag_mod3, MPI_COMM_WORLD);
		} else {
			for (int half = 0; half < 2; half++) {
				int b = half * 16, seen[16] = {0};
				for (int i = 0; i < 16; i++)
					CHECK_RC(MPI_Irecv(rb[b + i], LEN, MPI_BYTE, s, (b + i) % 3, MPI_COMM_WORLD, &q[i]));
				for (int n = 0; n < 16; n++) {
					int idx = -1, flag = 0;
					if (half == 0)
						CHECK_RC(MPI_Waitany(16, q, &idx, &st[0]));
					else
						while (!flag) CHECK_RC(MPI_Testany(16, q, &idx, &flag, &st[0]));
					CHECK(idx >= 0 && idx < 16 && !seen[idx] && q[idx] == MPI_REQUEST_NULL);
					seen[idx] = 1;
					check_msg(&st[0], b + idx, s, (b + idx) % 3);
				}
				int idx = 0, flag = 0;
				CHECK_RC(MPI_Testany(16, q, &idx, &flag, &st[0]));
				CHECK(flag && idx == MPI_UNDEFINED);
			}
		}
		break;
	case 9: /* half a window arrives now, half later: C completes the
		 * first half, Go the rest, and the statuses are all there. The
		 * sender starts once the receives are posted (else an earlier
		 * call into Go may have taken its messages as unexpected). */
		if (me == s) {
			CHECK_RC(MPI_Recv(rb[0], 1, MPI_BYTE, r, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
			send_ids(r, 0, W / 2, tag_mod3, MPI_COMM_WORLD);
			usleep(50000);
			send_ids(r, W / 2, W / 2, tag_mod3, MPI_COMM_WORLD);
		} else {
			for (int i = 0; i < W; i++) CHECK_RC(MPI_Irecv(rb[i], LEN, MPI_BYTE, s, i % 3, MPI_COMM_WORLD, &q[i]));
			/* A send completed at once and a null handle in the array. */
			CHECK_RC(MPI_Isend(sb[0], 1, MPI_BYTE, s, 77, MPI_COMM_WORLD, &q[W]));
			q[W + 1] = MPI_REQUEST_NULL;
			usleep(5000); /* the first half is there, the second is not */
			CHECK_RC(MPI_Waitall(W + 2, q, st));
			for (int i = 0; i < W; i++) check_msg(&st[i], i, s, i % 3);
			CHECK(st[W + 1].MPI_SOURCE == MPI_ANY_SOURCE && st[W + 1].MPI_TAG == MPI_ANY_TAG);
		}
		break;
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
	MPI_Comm dup;
	CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &dup));

	int partner = me ^ 1;
	for (int round = 0; round < 40; round++) {
		for (int c = 0; c < 11; c++) {
			if (c == 5) {
				/* The collective case involves everybody. */
				int lo = me & ~1, s = round % 2 ? lo + 1 : lo, r = s ^ 1;
				if (partner >= size) s = r = -1;
				run_case(c, me, s, r, dup);
				continue;
			}
			if (c == 9 && round % 8) continue; /* it sleeps */
			if (partner >= size) continue;
			int lo = me < partner ? me : partner;
			int s = round % 2 ? lo + 1 : lo, r = s == lo ? lo + 1 : lo;
			run_case(c, me, s, r, dup);
		}
	}
	CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));

	/* Stress: windows to and from every other rank at once, receives
	 * named by source, in tags that interleave. */
	enum { PER = 16 };
	CHECK(size <= 8);
	static unsigned char in[8][PER][LEN], out[8][PER][LEN];
	for (int k = 0; k < 200 && size > 1; k++) {
		MPI_Request q[2 * 8 * PER];
		MPI_Status st[2 * 8 * PER];
		int nq = 0;
		for (int d = 1; d < size; d++) {
			int p = (me - d + size) % size;
			for (int j = 0; j < PER; j++)
				CHECK_RC(MPI_Irecv(in[p][j], LEN, MPI_BYTE, p, j % 2, MPI_COMM_WORLD, &q[nq++]));
		}
		for (int d = 1; d < size; d++) {
			int p = (me + d) % size;
			for (int j = 0; j < PER; j++) {
				fill(out[p][j], LEN, k * PER + j, me);
				CHECK_RC(MPI_Isend(out[p][j], LEN, MPI_BYTE, p, j % 2, MPI_COMM_WORLD, &q[nq++]));
			}
		}
		CHECK_RC(MPI_Waitall(nq, q, st));
		nq = 0;
		for (int d = 1; d < size; d++) {
			int p = (me - d + size) % size;
			for (int j = 0; j < PER; j++, nq++) {
				CHECK(st[nq].MPI_SOURCE == p && st[nq].MPI_TAG == j % 2 && count_of(&st[nq]) == LEN);
				expect(in[p][j], LEN, k * PER + j, p);
			}
		}
	}
	CHECK_RC(MPI_Comm_free(&dup));
	report_ok();
	MPI_Finalize();
	return 0;
}
