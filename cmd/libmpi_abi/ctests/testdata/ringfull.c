/* ringfull.c — a sender that fills its ring and sleeps until the receiver
 * hands slots back. Each round rank 0 sends N spans of LEN bytes (more
 * slots than the channel's ring holds: the first ones go from C, the rest
 * wait in Go, which sleeps on its doorbell once it has spun and yielded);
 * rank 1 first sleeps SLEEP_US, so that the sender is asleep, then receives
 * the round with MPI_Irecv (the C receive lane) and MPI_Waitall, whose
 * hand-backs are batched (fastlane.c, rel_flush): the batch's doorbell
 * check must wake the sender (TestCRingFull reads the debug report's count
 * of senders woken so). Every message carries its round and place, so
 * a message received out of order or twice fails a check. */
#include <unistd.h>

#include "check.h"

/* SLEEP_US well under the sender's 100 ms futex timeout (a sender that
 * woke from it would be spinning again when the receiver comes) and well
 * over its spin and yield phases; several rounds, as a loaded machine may
 * keep the sender from its sleep in one. */
enum { N = 200, LEN = 4096, ROUNDS = 10, SLEEP_US = 20 * 1000 };

static unsigned char val(int r, int i, int j) { return (unsigned char)(r * 31 + i * 7 + j * 13 + (j >> 8)); }

int main(int argc, char **argv)
{
	static unsigned char buf[N][LEN];
	MPI_Request reqs[N];
	MPI_Status sts[N];
	int rank, size;
	CHECK_RC(MPI_Init(&argc, &argv));
	CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
	CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
	CHECK(size == 2);
	for (int r = 0; r < ROUNDS; r++) {
		if (rank == 0) {
			for (int i = 0; i < N; i++) {
				for (int j = 0; j < LEN; j++) buf[i][j] = val(r, i, j);
				CHECK_RC(MPI_Isend(buf[i], LEN, MPI_BYTE, 1, 9, MPI_COMM_WORLD, &reqs[i]));
			}
			CHECK_RC(MPI_Waitall(N, reqs, MPI_STATUSES_IGNORE));
		} else {
			usleep(SLEEP_US);
			memset(buf, 0, sizeof buf);
			for (int i = 0; i < N; i++) CHECK_RC(MPI_Irecv(buf[i], LEN, MPI_BYTE, 0, 9, MPI_COMM_WORLD, &reqs[i]));
			CHECK_RC(MPI_Waitall(N, reqs, sts));
			for (int i = 0; i < N; i++) {
				int n = -1;
				CHECK_RC(MPI_Get_count(&sts[i], MPI_BYTE, &n));
				CHECK(n == LEN && sts[i].MPI_SOURCE == 0 && sts[i].MPI_TAG == 9);
				for (int j = 0; j < LEN; j++) CHECK(buf[i][j] == val(r, i, j));
			}
		}
		CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
	}
	report_ok();
	CHECK_RC(MPI_Finalize());
	return 0;
}
