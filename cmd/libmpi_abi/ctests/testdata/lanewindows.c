/* lanewindows.c — osu_bw's loop, checked: rank 0 sends windows of W small
 * messages with MPI_Isend and MPI_Waitall, rank 1 receives each window with
 * MPI_Irecv (queued by the C receive lane) and MPI_Waitall and answers with
 * one byte. Every message carries its window and place, so a receive
 * matched out of order fails a check. Run with more ranks than CPUs, the
 * lane's Waitall must yield for the window rather than hand it to Go
 * (TestCLaneYields reads the debug report). */
#include "check.h"

enum { W = 64, WINDOWS = 200, LEN = 8 };

int main(int argc, char **argv)
{
	static unsigned char buf[W][LEN];
	MPI_Request reqs[W];
	unsigned char ack = 0;
	int rank, size;
	CHECK_RC(MPI_Init(&argc, &argv));
	CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
	CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
	CHECK(size == 2);
	for (int w = 0; w < WINDOWS; w++) {
		if (rank == 0) {
			for (int i = 0; i < W; i++) {
				for (int j = 0; j < LEN; j++) buf[i][j] = (unsigned char)(w * 7 + i * 3 + j);
				CHECK_RC(MPI_Isend(buf[i], LEN, MPI_BYTE, 1, 5, MPI_COMM_WORLD, &reqs[i]));
			}
			CHECK_RC(MPI_Waitall(W, reqs, MPI_STATUSES_IGNORE));
			CHECK_RC(MPI_Recv(&ack, 1, MPI_BYTE, 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
		} else {
			MPI_Status sts[W];
			for (int i = 0; i < W; i++) CHECK_RC(MPI_Irecv(buf[i], LEN, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &reqs[i]));
			CHECK_RC(MPI_Waitall(W, reqs, sts));
			for (int i = 0; i < W; i++) {
				int n = -1;
				CHECK_RC(MPI_Get_count(&sts[i], MPI_BYTE, &n));
				CHECK(n == LEN && sts[i].MPI_SOURCE == 0 && sts[i].MPI_TAG == 5);
				for (int j = 0; j < LEN; j++) CHECK(buf[i][j] == (unsigned char)(w * 7 + i * 3 + j));
			}
			CHECK_RC(MPI_Send(&ack, 1, MPI_BYTE, 0, 6, MPI_COMM_WORLD));
		}
	}
	report_ok();
	CHECK_RC(MPI_Finalize());
	return 0;
}
