package main

// The tests run hympirun as a real process, as users do: signals, process
// groups, Pdeathsig and CPU affinity cannot be exercised in-process.
// TestMain builds it (and the helper programs in testdata/) into a temporary
// directory. Every job a test starts is checked afterwards: its ranks are
// gone and /dev/shm holds nothing of it.

import (
	"bufio"
	"bytes"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	binDir      string
	hympirunBin string
	fakerankBin string
	// shmBefore is what /dev/shm held before any test ran.
	shmBefore []string
	// raceBuild is set by race_test.go.
	raceBuild bool
)

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "hympirun-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binDir = dir
	hympirunBin = filepath.Join(dir, "hympirun")
	fakerankBin = filepath.Join(dir, "fakerank")
	for _, b := range []struct{ out, pkg string }{
		{hympirunBin, "."},
		{fakerankBin, "./testdata/fakerank"},
	} {
		if err := goBuild(b.out, b.pkg); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	shmBefore = hympiShmEntries()
	code := m.Run()
	// Backstop for the per-job check, which knows the naming scheme only.
	if leaked := newShmEntries(); len(leaked) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: left in /dev/shm: %v\n", leaked)
		code = 1
	}
	return code
}

func goBuild(out, pkg string) error {
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	}
	args := []string{"build", "-o", out}
	if raceBuild {
		args = append(args, "-race")
	}
	cmd := exec.Command(goTool, append(args, pkg)...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", pkg, err, msg)
	}
	return nil
}

func hympiShmEntries() []string {
	ents, _ := os.ReadDir("/dev/shm")
	var names []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "hympi") {
			names = append(names, e.Name())
		}
	}
	return names
}

func newShmEntries() []string {
	var added []string
	for _, n := range hympiShmEntries() {
		if !slices.Contains(shmBefore, n) {
			added = append(added, n)
		}
	}
	return added
}

// launched is one hympirun run under test.
type launched struct {
	t     *testing.T
	cmd   *exec.Cmd
	start time.Time

	mu     sync.Mutex
	stdout []string    // lines so far
	pids   map[int]int // rank → pid, from "pid RANK PID" lines
	stderr bytes.Buffer

	done    chan struct{} // closed once hympirun is reaped and its output read
	code    int           // exit code, -1 for a death by signal
	elapsed time.Duration
}

// pidLine matches what every test program prints first, tagged or not.
var pidLine = regexp.MustCompile(`pid (\d+) (\d+)$`)

// startJob starts hympirun with args. env changes the test's environment
// for it: NAME=VALUE sets, a bare NAME unsets. stdin is its standard input.
func startJob(t *testing.T, stdin string, env []string, args ...string) *launched {
	t.Helper()
	j := &launched{t: t, pids: map[int]int{}, done: make(chan struct{})}
	j.cmd = exec.Command(hympirunBin, args...)
	j.cmd.Env = environ(env)
	j.cmd.Stdin = strings.NewReader(stdin)
	j.cmd.Stderr = &lockedWriter{mu: &j.mu, w: &j.stderr}
	out, err := j.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	j.start = time.Now()
	if err := j.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			j.mu.Lock()
			j.stdout = append(j.stdout, line)
			if m := pidLine.FindStringSubmatch(line); m != nil {
				r, _ := strconv.Atoi(m[1])
				p, _ := strconv.Atoi(m[2])
				j.pids[r] = p
			}
			j.mu.Unlock()
		}
		j.cmd.Wait()
		j.elapsed = time.Since(j.start)
		j.code = j.cmd.ProcessState.ExitCode()
		close(j.done)
	}()
	t.Cleanup(j.cleanup)
	return j
}

func environ(changes []string) []string {
	env := os.Environ()
	if _, set := os.LookupEnv("GORACE"); raceBuild && !set {
		// The race runtime sleeps a second at exit by default: that
		// would be a second per rank and per job.
		env = append(env, "GORACE=atexit_sleep_ms=0")
	}
	for _, c := range changes {
		name, _, set := strings.Cut(c, "=")
		env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, name+"=") })
		if set {
			env = append(env, c)
		}
	}
	return env
}

// runJob runs hympirun to its end, at most limit.
func runJob(t *testing.T, limit time.Duration, args ...string) *launched {
	t.Helper()
	j := startJob(t, "", nil, args...)
	j.wait(limit)
	return j
}

// wait waits for hympirun to exit, at most limit, then checks that it left
// nothing behind.
func (j *launched) wait(limit time.Duration) {
	j.t.Helper()
	select {
	case <-j.done:
	case <-time.After(limit):
		j.t.Fatalf("hympirun still running after %v\nstdout:\n%s\nstderr:\n%s", limit, j.outText(), j.errText())
	}
	j.checkRanksGone(false)
	j.checkShm()
}

// waitPids waits until n ranks have printed their pid.
func (j *launched) waitPids(n int) map[int]int {
	j.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		j.mu.Lock()
		got := len(j.pids)
		pids := maps.Clone(j.pids)
		j.mu.Unlock()
		if got >= n {
			return pids
		}
		select {
		case <-j.done:
			j.t.Fatalf("hympirun exited (%d) before %d ranks printed their pid\nstdout:\n%s\nstderr:\n%s", j.code, n, j.outText(), j.errText())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			j.t.Fatalf("only %d of %d ranks printed their pid", got, n)
		}
	}
}

// checkRanksGone asserts that every rank that printed its pid no longer
// exists. hympirun reaps its ranks, so after it exits normally they must be
// gone entirely; after hympirun itself was killed they are orphans, and a
// zombie waiting for its new parent to reap it counts as gone.
func (j *launched) checkRanksGone(zombieOK bool) {
	j.t.Helper()
	j.mu.Lock()
	pids := maps.Clone(j.pids)
	j.mu.Unlock()
	for r, p := range pids {
		if alive(p, zombieOK) {
			j.t.Errorf("rank %d (pid %d) still exists after hympirun exited", r, p)
		}
	}
}

func alive(pid int, zombieOK bool) bool {
	if syscall.Kill(pid, 0) == syscall.ESRCH {
		return false
	}
	return !(zombieOK && isZombie(pid))
}

func isZombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // gone meanwhile
	}
	// The state follows the parenthesised command name, which may itself
	// contain parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}

// checkShm asserts that the job's region file is not in /dev/shm. shm names
// it hympi-UID-PID-RANDOM, PID being hympirun's.
func (j *launched) checkShm() {
	j.t.Helper()
	mark := fmt.Sprintf("-%d-", j.cmd.Process.Pid)
	for _, n := range hympiShmEntries() {
		if strings.Contains(n, mark) {
			j.t.Errorf("/dev/shm/%s left behind", n)
		}
	}
}

// cleanup makes sure nothing of a failed test outlives it: hympirun and any
// rank still running are SIGKILLed, by pid.
func (j *launched) cleanup() {
	select {
	case <-j.done:
	default:
		j.cmd.Process.Kill()
		<-j.done
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, p := range j.pids {
		if alive(p, true) {
			syscall.Kill(p, syscall.SIGKILL)
		}
	}
}

func (j *launched) outText() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return strings.Join(j.stdout, "\n")
}

func (j *launched) outLines() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return slices.Clone(j.stdout)
}

func (j *launched) errText() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.stderr.String()
}

// messages returns hympirun's own lines on stderr.
func (j *launched) messages() []string {
	var msgs []string
	for _, l := range strings.Split(j.errText(), "\n") {
		if strings.HasPrefix(l, "hympirun: ") {
			msgs = append(msgs, l)
		}
	}
	return msgs
}

func (j *launched) pidsSeen() map[int]int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return maps.Clone(j.pids)
}

func (j *launched) pid(rank int) int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.pids[rank]
}

// expect asserts the exit code and that hympirun printed exactly the one
// message want (or none when want is "").
func (j *launched) expect(code int, want string) {
	j.t.Helper()
	if j.code != code {
		j.t.Errorf("exit code %d, want %d", j.code, code)
	}
	msgs := j.messages()
	switch {
	case want == "" && len(msgs) != 0:
		j.t.Errorf("hympirun printed %q, want nothing", msgs)
	case want != "" && (len(msgs) != 1 || msgs[0] != want):
		j.t.Errorf("hympirun printed %q, want exactly %q", msgs, want)
	}
	if j.t.Failed() {
		j.t.Logf("stdout:\n%s\nstderr:\n%s", j.outText(), j.errText())
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// sh wraps a shell script run by every rank; it first prints the rank's pid
// ("pid RANK PID") so tests can follow the ranks.
func sh(script string) []string {
	return []string{"/bin/sh", "-c", `R=$HYMPI_RANK; echo pid $R $$; ` + script}
}

func args(front []string, prog []string) []string {
	return append(slices.Clone(front), prog...)
}
