package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestEnvironment: each rank gets its place in the job, the region as
// descriptor 3 (already unlinked), the -x variables, and hympirun's own
// environment otherwise.
func TestEnvironment(t *testing.T) {
	t.Parallel()
	j := startJob(t, "", []string{
		"FOO=parent", "HYMPI_TEST_FWD=forwarded", "HYMPI_TEST_UNSET",
		"HYMPI_RANK=99", "HYMPI_SIZE=99", "HYMPI_TEST_KEPT=kept",
	},
		"-n", "3", "-x", "FOO=bar", "-x", "HYMPI_TEST_FWD", "-x", "HYMPI_TEST_UNSET", "-x", "EMPTY=",
		"/bin/sh", "-c", `echo "env $HYMPI_RANK|$HYMPI_SIZE|$HYMPI_REGION_FD|$HYMPI_JOBID|$FOO|$HYMPI_TEST_FWD|${HYMPI_TEST_UNSET-unset}|${EMPTY-unset}|$HYMPI_TEST_KEPT|$(readlink /proc/self/fd/3)"`)
	j.wait(10 * time.Second)
	j.expect(0, "")
	ranks := map[string]bool{}
	jobIDs := map[string]bool{}
	for _, l := range j.outLines() {
		f := strings.Split(strings.TrimPrefix(l, "env "), "|")
		if len(f) != 10 {
			t.Fatalf("line %q: want 10 fields", l)
		}
		ranks[f[0]] = true
		jobIDs[f[3]] = true
		want := []string{f[0], "3", "3", f[3], "bar", "forwarded", "unset", "", "kept"}
		for i, w := range want {
			if f[i] != w {
				t.Errorf("line %q: field %d is %q, want %q", l, i, f[i], w)
			}
		}
		if !regexp.MustCompile(`^/dev/shm/hympi.* \(deleted\)$`).MatchString(f[9]) {
			t.Errorf("line %q: descriptor 3 is %q, want the unlinked region", l, f[9])
		}
	}
	if len(ranks) != 3 || !ranks["0"] || !ranks["1"] || !ranks["2"] {
		t.Errorf("ranks seen: %v, want 0, 1 and 2 once each", ranks)
	}
	if len(jobIDs) != 1 || jobIDs[""] {
		t.Errorf("job ids seen: %v, want one non-empty id shared by all ranks", jobIDs)
	}
}

func allowedCPUs(t *testing.T) []int {
	t.Helper()
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		t.Fatal(err)
	}
	var cpus []int
	for c := 0; c < len(set)*64; c++ {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	return cpus
}

func TestGOMAXPROCS(t *testing.T) {
	t.Parallel()
	ncpu := len(allowedCPUs(t))
	for _, tc := range []struct {
		name  string
		n     int
		env   []string
		flags []string
		want  int
	}{
		{"a bound rank owns one CPU", 1, nil, nil, 1},
		{"bound ranks share nothing", 2, nil, nil, 1},
		{"oversubscribed", ncpu + 1, nil, nil, 1},
		{"one unbound rank gets every CPU", 1, nil, []string{"--bind-to", "none"}, ncpu},
		{"unbound ranks share the CPUs", 2, nil, []string{"--bind-to", "none"}, max(1, ncpu/2)},
		{"user's environment wins", 2, []string{"GOMAXPROCS=7"}, nil, 7},
		{"-x wins", 2, nil, []string{"-x", "GOMAXPROCS=5"}, 5},
		{"-x over environment", 2, []string{"GOMAXPROCS=7"}, []string{"-x", "GOMAXPROCS=5"}, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := append([]string{"GOMAXPROCS"}, tc.env...)
			a := append([]string{"-n", strconv.Itoa(tc.n)}, tc.flags...)
			j := startJob(t, "", env, args(a, sh(`echo gmp $GOMAXPROCS`))...)
			j.wait(10 * time.Second)
			j.expect(0, "")
			got := 0
			for _, l := range j.outLines() {
				if v, ok := strings.CutPrefix(l, "gmp "); ok {
					got++
					if v != strconv.Itoa(tc.want) {
						t.Errorf("GOMAXPROCS=%q, want %d", v, tc.want)
					}
				}
			}
			if got != tc.n {
				t.Errorf("%d ranks reported GOMAXPROCS, want %d", got, tc.n)
			}
		})
	}
}

// TestTimerSlack: the ranks of an oversubscribed job, bound or not, start
// with oversubTimerSlack; others keep hympirun's own slack.
func TestTimerSlack(t *testing.T) {
	t.Parallel()
	ncpu := len(allowedCPUs(t))
	b, err := os.ReadFile("/proc/self/timerslack_ns")
	if err != nil {
		t.Skipf("no timer slack in /proc: %v", err)
	}
	own := strings.TrimSpace(string(b))
	over := strconv.FormatInt(oversubTimerSlack.Nanoseconds(), 10)
	for _, tc := range []struct {
		name  string
		n     int
		flags []string
		want  string
	}{
		{"a CPU per rank", 1, nil, own},
		{"as many ranks as CPUs", ncpu, nil, own},
		{"oversubscribed", ncpu + 1, nil, over},
		{"oversubscribed, unbound", ncpu + 1, []string{"--bind-to", "none"}, over},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := append([]string{"-n", strconv.Itoa(tc.n)}, tc.flags...)
			j := startJob(t, "", nil, args(a, sh(`echo slack $(cat /proc/self/timerslack_ns)`))...)
			j.wait(10 * time.Second)
			j.expect(0, "")
			got := 0
			for _, l := range j.outLines() {
				if v, ok := strings.CutPrefix(l, "slack "); ok {
					got++
					if v != tc.want {
						t.Errorf("timer slack %s ns, want %s", v, tc.want)
					}
				}
			}
			if got != tc.n {
				t.Errorf("%d ranks reported their slack, want %d", got, tc.n)
			}
		})
	}
}

// cpusAllowed reads a thread's Cpus_allowed_list from a /proc status file.
func cpusAllowed(t *testing.T, status string) string {
	t.Helper()
	b, err := os.ReadFile(status)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^Cpus_allowed_list:\s*(\S+)$`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("%s: no Cpus_allowed_list", status)
	}
	return string(m[1])
}

// TestBinding: with --bind-to core rank i runs on the i-th allowed CPU,
// wrapping around; with none it keeps hympirun's whole mask.
func TestBinding(t *testing.T) {
	t.Parallel()
	cpus := allowedCPUs(t)
	own := cpusAllowed(t, "/proc/self/status")
	n := min(2*len(cpus)+1, 9)
	script := `echo bind $R $HYMPI_CPU $(awk '/^Cpus_allowed_list/ {print $2}' /proc/$$/status)`
	for _, tc := range []struct {
		name  string
		flags []string
		cpu   func(rank int) (env, mask string)
	}{
		{"core by default", nil, func(r int) (string, string) {
			c := strconv.Itoa(cpus[r%len(cpus)])
			return c, c
		}},
		{"core", []string{"--bind-to", "core"}, func(r int) (string, string) {
			c := strconv.Itoa(cpus[r%len(cpus)])
			return c, c
		}},
		{"none", []string{"--bind-to", "none"}, func(int) (string, string) { return "-1", own }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			j := runJob(t, 10*time.Second, args(append([]string{"-n", strconv.Itoa(n)}, tc.flags...), sh(script))...)
			j.expect(0, "")
			seen := 0
			for _, l := range j.outLines() {
				var r int
				var env, mask string
				if _, err := fmt.Sscanf(l, "bind %d %s %s", &r, &env, &mask); err != nil {
					continue
				}
				seen++
				wantEnv, wantMask := tc.cpu(r)
				if env != wantEnv || mask != wantMask {
					t.Errorf("rank %d: HYMPI_CPU=%s, Cpus_allowed_list %s; want %s, %s", r, env, mask, wantEnv, wantMask)
				}
			}
			if seen != n {
				t.Errorf("%d ranks reported their binding, want %d\n%s", seen, n, j.outText())
			}
		})
	}
}

// TestLauncherMaskRestored: pinning happens on hympirun's main thread only
// while ranks start; afterwards every hympirun thread has its mask back.
func TestLauncherMaskRestored(t *testing.T) {
	t.Parallel()
	own := cpusAllowed(t, "/proc/self/status")
	j := startJob(t, "", nil, args([]string{"-n", "3"}, sh(`exec sleep 30`))...)
	j.waitPids(3)
	pid := j.cmd.Process.Pid
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", pid))
	if err != nil || len(tasks) == 0 {
		t.Fatalf("no threads of hympirun: %v", err)
	}
	// The last rank can print its pid before the launcher is back from
	// starting it, and so before the restore: give it a moment.
	deadline := time.Now().Add(2 * time.Second)
	for _, task := range tasks {
		got := cpusAllowed(t, task)
		for got != own && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
			got = cpusAllowed(t, task)
		}
		if got != own {
			t.Errorf("%s: Cpus_allowed_list %s, want %s", task, got, own)
		}
	}
	j.cmd.Process.Signal(syscall.SIGTERM)
	j.wait(10 * time.Second)
}

// TestStdin: rank 0 reads hympirun's stdin; the others read /dev/null.
func TestStdin(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB: more than a pipe holds
	for _, tc := range []struct {
		name   string
		stdin  string
		script string
		want   []string // stdout lines of rank 0, then of rank 1
	}{
		{"lines", "a\nb\n",
			`if [ $HYMPI_RANK = 0 ]; then cat; else readlink /proc/self/fd/0; cat; fi`,
			[]string{"[1,0]<stdout>:a", "[1,0]<stdout>:b", "[1,1]<stdout>:/dev/null"}},
		{"more than a pipe holds", big,
			`if [ $HYMPI_RANK = 0 ]; then wc -c; fi`,
			[]string{fmt.Sprintf("[1,0]<stdout>:%d", len(big))}},
		{"rank 0 does not read it", big, `exit 0`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			j := startJob(t, tc.stdin, nil, "-n", "2", "--tag-output", "/bin/sh", "-c", tc.script)
			j.wait(10 * time.Second)
			j.expect(0, "")
			got := j.outLines()
			sortByRank(got)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("stdout:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// sortByRank orders tagged lines by rank, keeping each rank's own order.
func sortByRank(lines []string) {
	rankOf := func(l string) string { r, _, _ := strings.Cut(l, "]"); return r }
	slices.SortStableFunc(lines, func(a, b string) int { return strings.Compare(rankOf(a), rankOf(b)) })
}
