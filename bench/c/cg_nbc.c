/*
 * cg_nbc: what the C ABI's nonblocking and persistent collectives cost one
 * rank, start, test and wait apart, counted with callgrind
 * (bench/callgrind_nbc.sh). Each call alternates with an MPI_Barrier, as in
 * the OSU loops, so the collective goes through the Go engine rather than
 * the C collective lane. Rank 1 is measured: callgrind collects only
 * around the measured calls (CALLGRIND_TOGGLE_COLLECT; run with
 * --collect-atstart=no) and dumps once per iteration, so the script can
 * take medians (a peer descheduled on a loaded machine makes a few
 * iterations poll). "there": rank 1 calls 3 ms after rank 0, whose
 * messages are then in; "early": rank 1 calls first (rank 0 3 ms late)
 * and sleeps 5 ms between its start and its test or wait. Phases: see
 * names[] below.
 *
 * Usage: hympirun -n 2 cg_nbc [ITERS]   (under bench/callgrind_nbc.sh)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <valgrind/callgrind.h>
static float sb[256], rb[256];
static int cnt = 2, me;
#define ON if (me == 1) CALLGRIND_TOGGLE_COLLECT
#define OFF if (me == 1) CALLGRIND_TOGGLE_COLLECT
enum { NPH = 13 };
static const char *names[NPH] = {"ibcast there start+wait", "iallreduce there start+wait", "bcast blocking", "allreduce blocking",
	"barrier blocking", "ibcast early: start", "ibcast early: wait after sleep", "iallreduce early: start",
	"iallreduce early: wait after sleep", "ibcast early: test after sleep", "barrier persistent start+wait",
	"bcast persistent start+wait", "ibcast early: test at once (nothing there)"};
int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	int iters = argc > 1 ? atoi(argv[1]) : 200;
	MPI_Request pb, pc;
	MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &pb);
	MPI_Bcast_init(sb, cnt, MPI_FLOAT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &pc);
	if (me == 1) fprintf(stderr, "phases:");
	for (int ph = 0; ph < NPH; ph++) {
		if (me == 1) fprintf(stderr, " %d=%s;", ph, names[ph]);
		for (int i = 0; i < iters + 20; i++) {
			MPI_Barrier(MPI_COMM_WORLD);
			if (i >= 20) CALLGRIND_ZERO_STATS;
			int early = (ph >= 5 && ph <= 9) || ph == 12;
			int late = early ? me == 0 : me == 1;
			if (late) usleep(3000);
			MPI_Request r;
			int f = 0;
			switch (ph) {
			case 0: ON; MPI_Ibcast(sb, cnt, MPI_FLOAT, 0, MPI_COMM_WORLD, &r); MPI_Wait(&r, MPI_STATUS_IGNORE); OFF; break;
			case 1: ON; MPI_Iallreduce(sb, rb, cnt, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &r); MPI_Wait(&r, MPI_STATUS_IGNORE); OFF; break;
			case 2: ON; MPI_Bcast(sb, cnt, MPI_FLOAT, 0, MPI_COMM_WORLD); OFF; break;
			case 3: ON; MPI_Allreduce(sb, rb, cnt, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); OFF; break;
			case 4: ON; MPI_Barrier(MPI_COMM_WORLD); OFF; break;
			case 5: case 6: case 9: case 12:
				if (ph == 5) ON;
				MPI_Ibcast(sb, cnt, MPI_FLOAT, 0, MPI_COMM_WORLD, &r);
				if (ph == 5) OFF;
				if (ph == 12) { MPI_Test(&r, &f, MPI_STATUS_IGNORE); ON; MPI_Test(&r, &f, MPI_STATUS_IGNORE); OFF; }
				if (me == 1) usleep(5000);
				if (ph == 9) { ON; MPI_Test(&r, &f, MPI_STATUS_IGNORE); OFF; }
				if (ph == 6) ON;
				MPI_Wait(&r, MPI_STATUS_IGNORE);
				if (ph == 6) OFF;
				break;
			case 7: case 8:
				if (ph == 7) ON;
				MPI_Iallreduce(sb, rb, cnt, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &r);
				if (ph == 7) OFF;
				if (me == 1) usleep(5000);
				if (ph == 8) ON;
				MPI_Wait(&r, MPI_STATUS_IGNORE);
				if (ph == 8) OFF;
				break;
			case 10: ON; MPI_Start(&pb); MPI_Wait(&pb, MPI_STATUS_IGNORE); OFF; break;
			case 11: ON; MPI_Start(&pc); MPI_Wait(&pc, MPI_STATUS_IGNORE); OFF; break;
			}
			if (i >= 20) CALLGRIND_DUMP_STATS;
		}
	}
	if (me == 1) fprintf(stderr, "\n");
	MPI_Request_free(&pb);
	MPI_Request_free(&pc);
	MPI_Finalize();
	return 0;
}
