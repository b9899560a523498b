package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// stopLimit is how long a test allows for a whole job whose ranks would
// otherwise sleep 30 s: the launcher promises about a second after the
// failure; the rest is slack for a loaded two-core machine.
const stopLimit = 3 * time.Second

func TestSuccess(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"no MPI at all", []string{"-n", "2", "hostname"}},
		{"every rank exits 0", args([]string{"-n", "3"}, sh(`exit 0`))},
		{"one rank", args([]string{"-np", "1"}, sh(`exit 0`))},
		{"more ranks than CPUs", args([]string{"-n", "7"}, sh(`exit 0`))},
		{"flags after PROGRAM are its own", args([]string{"-n", "2"}, append(sh(`[ "$0 $1" = "-n 5" ]`), "-n", "5"))},
		{"-- ends the flags", args([]string{"-n", "2", "--"}, sh(`exit 0`))},
		{"timeout not reached", args([]string{"-n", "2", "--timeout", "20s"}, sh(`exit 0`))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			j := runJob(t, 10*time.Second, tc.args...)
			j.expect(0, "")
		})
	}
}

// TestRankFailure: one failing rank is named, the job is stopped at once
// and hympirun exits with the rank's status.
func TestRankFailure(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		n      int
		script string
		code   int
		fail   int    // rank named in the message, -1: any
		msg    string // regexp; PID stands for the failing rank's pid
		min    time.Duration
	}{
		{
			name:   "non-zero exit",
			n:      3,
			script: `if [ $R = 1 ]; then sleep 0.2; exit 3; fi; exec sleep 30`,
			code:   3, fail: 1,
			msg: `rank 1 \(pid PID\) exited with status 3`,
		},
		{
			name:   "signal",
			n:      3,
			script: `if [ $R = 2 ]; then sleep 0.2; kill -SEGV $$; fi; exec sleep 30`,
			code:   128 + int(syscall.SIGSEGV), fail: 2,
			msg: `rank 2 \(pid PID\) killed by signal SIGSEGV \(segmentation fault\)`,
		},
		{
			name:   "rank 0 fails while the others ignore SIGTERM",
			n:      3,
			script: `if [ $R = 0 ]; then sleep 0.2; exit 4; fi; trap "" TERM; while :; do sleep 0.1; done`,
			code:   4, fail: 0,
			msg: `rank 0 \(pid PID\) exited with status 4`,
			// SIGKILL comes only after the grace period.
			min: 200*time.Millisecond + failureGrace,
		},
		{
			name:   "a rank succeeding first does not hide a later failure",
			n:      2,
			script: `if [ $R = 1 ]; then sleep 0.3; exit 5; fi; exit 0`,
			code:   5, fail: 1,
			msg: `rank 1 \(pid PID\) exited with status 5`,
		},
		{
			name:   "simultaneous failures are reported once",
			n:      4,
			script: `sleep 0.2; exit 1`,
			code:   1, fail: -1,
			msg: `rank \d \(pid \d+\) exited with status 1`,
		},
		{
			name:   "status above 127",
			n:      2,
			script: `if [ $R = 1 ]; then exit 200; fi; exec sleep 30`,
			code:   200, fail: 1,
			msg: `rank 1 \(pid PID\) exited with status 200`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			j := runJob(t, 10*time.Second, args([]string{"-n", strconv.Itoa(tc.n)}, sh(tc.script))...)
			if tc.fail >= 0 {
				tc.msg = regexp.MustCompile(`PID`).ReplaceAllString(tc.msg, strconv.Itoa(j.pid(tc.fail)))
			}
			expectMatch(j, tc.code, `^hympirun: `+tc.msg+`$`)
			if j.elapsed > stopLimit || j.elapsed < tc.min {
				t.Errorf("job took %v, want between %v and %v", j.elapsed, tc.min, stopLimit)
			}
		})
	}
}

// expectMatch is job.expect with a regexp for the one message.
func expectMatch(j *launched, code int, re string) {
	j.t.Helper()
	if j.code != code {
		j.t.Errorf("exit code %d, want %d", j.code, code)
	}
	msgs := j.messages()
	if len(msgs) != 1 || !regexp.MustCompile(re).MatchString(msgs[0]) {
		j.t.Errorf("hympirun printed %q, want one line matching %s", msgs, re)
	}
	if j.t.Failed() {
		j.t.Logf("stdout:\n%s\nstderr:\n%s", j.outText(), j.errText())
	}
}

func TestTimeout(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		flag   string
		d      time.Duration
		script string
	}{
		{"1s", time.Second, `exec sleep 30`},
		{"1", time.Second, `exec sleep 30`},
		{"0.5", 500 * time.Millisecond, `exec sleep 30`},
		{"1500ms", 1500 * time.Millisecond, `trap "" TERM; while :; do sleep 0.1; done`},
	} {
		t.Run(tc.flag, func(t *testing.T) {
			t.Parallel()
			j := runJob(t, 10*time.Second, args([]string{"-n", "3", "--timeout", tc.flag}, sh(tc.script))...)
			j.expect(exitTimeout, fmt.Sprintf("hympirun: job timed out after %v", tc.d))
			if j.elapsed < tc.d || j.elapsed > tc.d+stopLimit {
				t.Errorf("job took %v, want between %v and %v", j.elapsed, tc.d, tc.d+stopLimit)
			}
		})
	}
}

// TestSignalForwarding: a signal to hympirun reaches every rank; ranks that
// ignore it are killed after the grace period.
func TestSignalForwarding(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
		for _, tc := range []struct {
			name   string
			script string
			min    time.Duration // after the signal
		}{
			{"default action", `exec sleep 30`, 0},
			{"handled", `trap "exit 0" INT TERM HUP; while :; do sleep 0.1; done`, 0},
			{"ignored", `trap "" INT TERM HUP; while :; do sleep 0.1; done`, signalGrace},
		} {
			t.Run(fmt.Sprintf("%v/%s", sig, tc.name), func(t *testing.T) {
				t.Parallel()
				j := startJob(t, "", nil, args([]string{"-n", "3"}, sh(tc.script))...)
				j.waitPids(3)
				sent := time.Now()
				if err := j.cmd.Process.Signal(sig); err != nil {
					t.Fatal(err)
				}
				j.wait(10 * time.Second)
				took := time.Since(sent)
				j.expect(128+int(sig), fmt.Sprintf("hympirun: received %s, stopping the job", signame(sig)))
				if took < tc.min || took > stopLimit {
					t.Errorf("job ended %v after the signal, want between %v and %v", took, tc.min, stopLimit)
				}
			})
		}
	}
}

func signame(s syscall.Signal) string {
	return map[syscall.Signal]string{syscall.SIGTERM: "SIGTERM", syscall.SIGINT: "SIGINT", syscall.SIGHUP: "SIGHUP"}[s]
}

// TestKillRank: a rank SIGKILLed from outside is reported and the others are
// stopped.
func TestKillRank(t *testing.T) {
	t.Parallel()
	j := startJob(t, "", nil, args([]string{"-n", "3"}, sh(`exec sleep 30`))...)
	pids := j.waitPids(3)
	killed := time.Now()
	if err := syscall.Kill(pids[1], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	j.wait(10 * time.Second)
	j.expect(128+int(syscall.SIGKILL), fmt.Sprintf("hympirun: rank 1 (pid %d) killed by signal SIGKILL (killed)", pids[1]))
	if took := time.Since(killed); took > stopLimit {
		t.Errorf("job ended %v after the kill, want at most %v", took, stopLimit)
	}
}

// TestKillLauncher: when hympirun is SIGKILLed, Pdeathsig takes the ranks
// with it, and the region (unlinked at creation) leaves no file.
func TestKillLauncher(t *testing.T) {
	t.Parallel()
	for _, flags := range [][]string{{"-n", "3"}, {"-n", "3", "--tag-output"}} {
		t.Run(fmt.Sprint(flags), func(t *testing.T) {
			t.Parallel()
			j := startJob(t, "", nil, args(flags, sh(`exec sleep 30`))...)
			pids := j.waitPids(3)
			if err := j.cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			<-j.done
			deadline := time.Now().Add(stopLimit)
			for r, p := range pids {
				for alive(p, true) && time.Now().Before(deadline) {
					time.Sleep(10 * time.Millisecond)
				}
				if alive(p, true) {
					t.Errorf("rank %d (pid %d) survived hympirun's SIGKILL", r, p)
				}
			}
			j.checkShm()
		})
	}
}

// TestRankStates drives the region contract directly (testdata/fakerank
// sets the states package mpi would), so the judging of Init, Finalize and
// Abort is tested whatever the state of package mpi.
func TestRankStates(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name          string
		target, other string // fakerank modes
		code          int
		msg           string // PID stands for rank 1's pid
	}{
		{"all finalize", "finalize", "finalize", 0, ""},
		{"none initialize", "noinit", "noinit", 0, ""},
		{"one never initializes", "noinit", "finalize", 0, ""},
		{"exit without Finalize", "nofinalize", "wait", exitFailure,
			"hympirun: rank 1 (pid PID) exited without calling mpi.Finalize"},
		// As with MPICH's launcher: the status tells, nothing is printed
		// (test harnesses take any launcher output for a failure).
		{"non-zero exit after Finalize", "exit:3", "finalize", 3, ""},
		{"non-zero exit before Finalize", "attachexit:4", "finalize", 4,
			"hympirun: rank 1 (pid PID) exited with status 4"},
		{"Abort", "abort:7", "wait", 7,
			"hympirun: rank 1 (pid PID) called Abort with code 7"},
		{"Abort then exit 0", "abortzero:9", "wait", 9,
			"hympirun: rank 1 (pid PID) called Abort with code 9"},
		{"Abort code 0 still fails", "abortzero:0", "wait", exitFailure,
			"hympirun: rank 1 (pid PID) called Abort with code 0"},
		{"Abort code wider than a status", "abort:256", "wait", exitFailure,
			"hympirun: rank 1 (pid PID) called Abort with code 256"},
		// Rank 0 dies first, killed by rank 1's Abort: the Abort is named.
		{"Abort named over its casualty", "abortkill:5", "wait", 5,
			"hympirun: rank 1 (pid PID) called Abort with code 5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			j := runJob(t, 10*time.Second, "-n", "3", fakerankBin, tc.target, tc.other, "1")
			want := regexp.MustCompile(`PID`).ReplaceAllString(tc.msg, strconv.Itoa(j.pid(1)))
			j.expect(tc.code, want)
			if j.elapsed > stopLimit {
				t.Errorf("job took %v, want at most %v", j.elapsed, stopLimit)
			}
		})
	}
}

// TestStartFailure: a program that passes the lookup but cannot be executed
// fails the job without a usage error, and nothing is left running.
func TestStartFailure(t *testing.T) {
	t.Parallel()
	bad := filepath.Join(t.TempDir(), "bad")
	if err := os.WriteFile(bad, []byte("\x00\x01 not a program"), 0o755); err != nil {
		t.Fatal(err)
	}
	j := runJob(t, 10*time.Second, "-n", "2", bad)
	j.expect(exitFailure, "hympirun: starting rank 0: "+bad+": exec format error")
}
