/* MPI_Cancel: receives not matched yet are cancelled; a synchronous send
 * the receiver has not matched is cancelled and never seen; a rendezvous
 * send (HYMPI_DIRECT=always) likewise; an eager send already delivered is
 * not cancelled (Test_cancelled false) and still arrives. Every rank sends
 * to its right neighbour; rank checks use the message values. */
#include "check.h"

enum { BIG = 1 << 20 };

static int cancelled_of(MPI_Status *st)
{
	int c = -1;
	CHECK_RC(MPI_Test_cancelled(st, &c));
	return c;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size, flag;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	const char *mode = getenv("HYMPI_DIRECT");
	int rendezvous = mode && strcmp(mode, "always") == 0;
	int right = (rank + 1) % size, left = (rank + size - 1) % size;
	MPI_Status st;
	MPI_Request rq;

	/* A receive nobody sends to. */
	int v = -1;
	CHECK_RC(MPI_Irecv(&v, 1, MPI_INT, left, 1, MPI_COMM_WORLD, &rq));
	CHECK_RC(MPI_Cancel(&rq));
	CHECK_RC(MPI_Wait(&rq, &st));
	CHECK(cancelled_of(&st) == 1 && v == -1);

	/* A synchronous send nobody has received: cancelled, then a second
	 * message with the same envelope is the one that arrives. */
	int a = 100 + rank, b = 200 + rank;
	CHECK_RC(MPI_Issend(&a, 1, MPI_INT, right, 2, MPI_COMM_WORLD, &rq));
	CHECK_RC(MPI_Cancel(&rq));
	CHECK_RC(MPI_Wait(&rq, &st));
	CHECK(cancelled_of(&st) == 1);
	MPI_Barrier(MPI_COMM_WORLD);
	CHECK_RC(MPI_Iprobe(left, 2, MPI_COMM_WORLD, &flag, &st));
	CHECK(!flag);
	MPI_Barrier(MPI_COMM_WORLD); /* nobody sends the next tag-2 message before everyone looked */
	CHECK_RC(MPI_Send(&b, 1, MPI_INT, right, 2, MPI_COMM_WORLD));
	CHECK_RC(MPI_Recv(&v, 1, MPI_INT, left, 2, MPI_COMM_WORLD, &st));
	CHECK(v == 200 + left);

	/* A large standard send: cancelled when it went rendezvous; else
	 * either outcome is allowed, and the receiver is told which. */
	char *big = malloc(BIG), *in = malloc(BIG);
	memset(big, rank + 1, BIG);
	CHECK_RC(MPI_Isend(big, BIG, MPI_CHAR, right, 3, MPI_COMM_WORLD, &rq));
	CHECK_RC(MPI_Cancel(&rq));
	CHECK_RC(MPI_Wait(&rq, &st));
	int mine = cancelled_of(&st), theirs = -1;
	if (rendezvous && size > 1) CHECK(mine == 1); /* a rank's sends to itself never go rendezvous */
	CHECK_RC(MPI_Sendrecv(&mine, 1, MPI_INT, right, 4, &theirs, 1, MPI_INT, left, 4, MPI_COMM_WORLD, &st));
	if (!theirs) {
		CHECK_RC(MPI_Recv(in, BIG, MPI_CHAR, left, 3, MPI_COMM_WORLD, &st));
		CHECK(in[0] == left + 1 && in[BIG - 1] == left + 1);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	CHECK_RC(MPI_Iprobe(left, 3, MPI_COMM_WORLD, &flag, &st));
	CHECK(!flag);

	/* A small eager send, delivered before the cancel: not cancelled, and
	 * the message arrives. */
	if (!rendezvous) {
		int c = 300 + rank;
		CHECK_RC(MPI_Isend(&c, 1, MPI_INT, right, 5, MPI_COMM_WORLD, &rq));
		MPI_Barrier(MPI_COMM_WORLD);
		CHECK_RC(MPI_Cancel(&rq));
		CHECK_RC(MPI_Wait(&rq, &st));
		CHECK(cancelled_of(&st) == 0);
		CHECK_RC(MPI_Recv(&v, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &st));
		CHECK(v == 300 + left);
	}

	/* A receive already matched is not cancelled. */
	CHECK_RC(MPI_Irecv(&v, 1, MPI_INT, left, 6, MPI_COMM_WORLD, &rq));
	CHECK_RC(MPI_Send(&a, 1, MPI_INT, right, 6, MPI_COMM_WORLD));
	MPI_Barrier(MPI_COMM_WORLD);
	CHECK_RC(MPI_Request_get_status(rq, &flag, &st));
	CHECK_RC(MPI_Cancel(&rq));
	CHECK_RC(MPI_Wait(&rq, &st));
	if (flag) CHECK(cancelled_of(&st) == 0 && v == 100 + left);
	if (cancelled_of(&st) == 0) CHECK(v == 100 + left);
	else CHECK_RC(MPI_Recv(&v, 1, MPI_INT, left, 6, MPI_COMM_WORLD, &st));

	/* A persistent synchronous send, cancelled, then started again. */
	MPI_Request ps;
	CHECK_RC(MPI_Ssend_init(&a, 1, MPI_INT, right, 7, MPI_COMM_WORLD, &ps));
	CHECK_RC(MPI_Start(&ps));
	CHECK_RC(MPI_Cancel(&ps));
	CHECK_RC(MPI_Wait(&ps, &st));
	CHECK(cancelled_of(&st) == 1);
	MPI_Barrier(MPI_COMM_WORLD);
	CHECK_RC(MPI_Start(&ps));
	CHECK_RC(MPI_Recv(&v, 1, MPI_INT, left, 7, MPI_COMM_WORLD, &st));
	CHECK_RC(MPI_Wait(&ps, &st));
	CHECK(cancelled_of(&st) == 0 && v == 100 + left);
	MPI_Request_free(&ps);

	free(big);
	free(in);
	MPI_Barrier(MPI_COMM_WORLD);
	report_ok();
	MPI_Finalize();
	return 0;
}
