/*
 * slack.c — the Go runtime's threads in a C rank start with a timer slack of
 * HC_GO_SLACK_NS, the program's own threads keep the kernel's.
 *
 * Why: a C rank spends its time in C, so the Go runtime sees its thread as
 * in a system call since its last call into Go. Ten milliseconds later the
 * runtime's monitor thread (sysmon) takes that thread's P back, and each
 * time it takes one it polls again every 20 µs for its next 50 passes. With
 * the kernel's 50 µs slack that is a wake-up every ~80 µs for ~4 ms, ~10 µs
 * of CPU each (perf sched timehist: ~400 wake-ups of one thread in a 0.3 s
 * osu_latency sweep), on a CPU where a rank spins: every one preempts a rank
 * that its peer is waiting for, and a burst that falls into one size of a
 * ping-pong sweep (10,000 round trips of 0.2 µs) doubles that size's figure
 * (make compare's 8 B: 0.22 µs in one run against 0.10 at its neighbours).
 * Sysmon's sleeps are nanosleeps, so the slack spaces them: at 1 ms a
 * burst's 50 wake-ups spread over ~50 ms, one or two per size of the sweep.
 * hympirun gives oversubscribed ranks the same slack for the same reason
 * (cmd/hympirun/bind.go); this does it for C ranks on CPUs of their own,
 * for the runtime's threads only.
 *
 * How: a thread inherits its creator's slack. The constructor below runs
 * before the Go runtime's (a prioritized constructor comes before the
 * unprioritized ones of the same object), so the runtime's first thread,
 * and every thread created from it (sysmon, the template thread that
 * creates the others), start with the long slack; MPI_Init and
 * MPI_Session_init give the calling thread its own back. The runtime's
 * timed sleeps may then run up to HC_GO_SLACK_NS late: none of the C
 * library's waits hangs on one (a futex wake ends a sleep at once).
 */
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cabi.h"

enum { HC_GO_SLACK_NS = 1000 * 1000 };

static long hc_slack_saved = -1;
static long hc_slack_tid;

__attribute__((constructor(101))) static void hc_slack_go_threads(void)
{
	int s = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
	/* A longer slack already (hympirun's oversubscribed ranks) stays. */
	if (s <= 0 || s >= HC_GO_SLACK_NS) return;
	if (prctl(PR_SET_TIMERSLACK, (unsigned long)HC_GO_SLACK_NS, 0, 0, 0) != 0) return;
	hc_slack_saved = s;
	hc_slack_tid = syscall(SYS_gettid);
}

void hc_slack_restore(void)
{
	/* Only the thread that loaded the library changed; another thread
	 * calling MPI_Init has its own slack. */
	if (hc_slack_saved < 0 || syscall(SYS_gettid) != hc_slack_tid) return;
	prctl(PR_SET_TIMERSLACK, (unsigned long)hc_slack_saved, 0, 0, 0);
	hc_slack_saved = -1;
}
