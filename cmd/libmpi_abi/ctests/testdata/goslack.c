/* goslack.c — slack.c's split: after MPI_Init the calling thread has the
 * timer slack it started with (below 1 ms: a rank that owns its CPU), and
 * the Go runtime's threads of the process (sysmon among them) have 1 ms.
 * Run with one rank, never oversubscribed (hympirun would give the whole
 * process 1 ms then). */
#include <dirent.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

static long slack_of(long tid)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%ld/timerslack_ns", tid);
	FILE *f = fopen(path, "r");
	long v = -1;
	if (f) {
		if (fscanf(f, "%ld", &v) != 1) v = -1;
		fclose(f);
	}
	return v;
}

int main(int argc, char **argv)
{
	CHECK_RC(MPI_Init(&argc, &argv));
	long self = syscall(SYS_gettid);
	long mine = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
	CHECK(mine > 0 && mine < 1000000);
	int others = 0, long_slack = 0;
	DIR *d = opendir("/proc/self/task");
	CHECK(d != NULL);
	for (struct dirent *e; (e = readdir(d)) != NULL;) {
		long tid = atol(e->d_name);
		if (tid <= 0 || tid == self) continue;
		others++;
		long s = slack_of(tid);
		if (s < 0) continue; /* a kernel without the file: nothing to check */
		CHECK(s == 1000000);
		long_slack++;
	}
	closedir(d);
	CHECK(others > 0);
	if (slack_of(self) >= 0) CHECK(long_slack == others);
	report_ok();
	CHECK_RC(MPI_Finalize());
	return 0;
}
