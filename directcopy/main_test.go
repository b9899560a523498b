package directcopy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// roleEnv tells a re-executed test binary what to be:
//   - "holder": hold a patterned buffer for the parent to read (holder.go
//     protocol below) and never run the tests;
//   - anything else: run the tests named by -test.run, in child mode (the
//     test looks at the role and takes its child branch).
const roleEnv = "HYMPI_DIRECTCOPY_TEST_ROLE"

// requireEnv makes skipIfNotSupported fail instead of skip: set it where CMA
// is known to work, so a probe saying "no" there is a bug.
const requireEnv = "HYMPI_REQUIRE_CMA"

// TestMain dispatches child roles and is the package's leak tracker: it fails
// the run when a test left a buffer pinned or a child process behind.
func TestMain(m *testing.M) {
	if os.Getenv(roleEnv) == "holder" {
		os.Exit(runHolder())
	}
	code := m.Run()

	var leaks []string
	if n := Pinned(); n != 0 {
		leaks = append(leaks, fmt.Sprintf("%d buffer(s) still pinned", n))
	}
	if kids := childPIDs(); len(kids) > 0 {
		leaks = append(leaks, fmt.Sprintf("child process(es) still alive or unreaped: %v", kids))
	}
	if len(leaks) > 0 {
		fmt.Fprintf(os.Stderr, "directcopy leak tracker (pid %d):\n\t%s\nFAIL\n", os.Getpid(), strings.Join(leaks, "\n\t"))
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// childPIDs lists this process's children (running or zombie) from
// /proc/self/task/*/children.
func childPIDs() []string {
	files, _ := filepath.Glob("/proc/self/task/*/children")
	var kids []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		kids = append(kids, strings.Fields(string(data))...)
	}
	return kids
}

// skipIfNotSupported skips the test when err is a conclusive "no" (unless
// HYMPI_REQUIRE_CMA=1 says CMA must work here) or when the fault-injection
// hook is set for the whole run, and fails it on any other error.
func skipIfNotSupported(tb testing.TB, err error) {
	tb.Helper()
	if v := os.Getenv(FailEnv); v != "" {
		tb.Skipf("%s=%s: every transfer fails on purpose", FailEnv, v)
	}
	if err == nil {
		return
	}
	if errors.Is(err, ErrNotSupported) {
		if os.Getenv(requireEnv) == "1" {
			tb.Fatalf("%s=1 but: %v", requireEnv, err)
		}
		tb.Skip(err)
	}
	tb.Fatalf("probe could not tell: %v", err)
}

// addrOf is the address of b[0] (b non-empty).
func addrOf(b []byte) uintptr { return uintptr(unsafe.Pointer(&b[0])) }

// pattern fills b with a sequence determined by seed and position.
func pattern(b []byte, seed int) {
	for i := range b {
		b[i] = byte(i*131 + i>>9 + seed*29 + 1)
	}
}

// firstDiff returns the first index where b differs from pattern(seed), or -1.
func firstDiff(b []byte, seed int) int {
	for i := range b {
		if b[i] != byte(i*131+i>>9+seed*29+1) {
			return i
		}
	}
	return -1
}

// runChildTest re-executes this test binary to run test name in child mode
// with the given role and extra environment. It returns the combined output
// and the exit error.
func runChildTest(t *testing.T, name, role string, env ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^"+name+"$", "-test.v", "-test.count=1")
	// A race-enabled child otherwise sleeps 1 s at exit (atexit_sleep_ms).
	gorace := strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
	// The child starts without the fault-injection hook unless env sets it.
	cmd.Env = append(append(os.Environ(), roleEnv+"="+role, "GORACE="+gorace, FailEnv+"="), env...)
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// holderSize is the buffer a holder child offers by default (1 MiB + an odd
// tail); holdSizeEnv overrides it.
const (
	holderSize  = 1<<20 + 123
	holdSizeEnv = "HYMPI_DIRECTCOPY_TEST_HOLDSIZE"
)

// runHolder is the holder child: it pins a patterned buffer, prints
// "READY <buf addr> <len> <probe addr>", then serves stdin commands until
// EOF:
//
//	check <seed>   reply "ok" if the buffer holds pattern(seed), else "bad <i>"
func runHolder() int {
	size, err := strconv.Atoi(os.Getenv(holdSizeEnv))
	if err != nil || size <= 0 {
		size = holderSize
	}
	buf := make([]byte, size)
	pattern(buf, 1)
	var pins Pins
	addr := pins.Pin(buf)
	defer pins.Unpin()
	fmt.Printf("READY %d %d %d\n", addr, len(buf), ProbeAddr())
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		f := strings.Fields(in.Text())
		if len(f) == 2 && f[0] == "check" {
			seed, _ := strconv.Atoi(f[1])
			if i := firstDiff(buf, seed); i >= 0 {
				fmt.Printf("bad %d\n", i)
			} else {
				fmt.Println("ok")
			}
			continue
		}
		fmt.Println("unknown command")
	}
	return 0
}

// holder is the parent's handle on a holder child.
type holder struct {
	cmd   *exec.Cmd
	pid   int
	in    *bufio.Writer
	out   *bufio.Scanner
	addr  uintptr
	size  int
	probe uintptr
	done  bool // reaped
}

// startHolder starts a holder child offering size bytes; a cleanup kills it
// (by pid) and reaps it.
func startHolder(t testing.TB, size int) *holder {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), roleEnv+"=holder", holdSizeEnv+"="+strconv.Itoa(size))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &holder{cmd: cmd, pid: cmd.Process.Pid, in: bufio.NewWriter(stdin), out: bufio.NewScanner(stdout)}
	t.Cleanup(func() {
		if !h.done {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	line := h.line(t)
	var a, p uint64
	if _, err := fmt.Sscanf(line, "READY %d %d %d", &a, &h.size, &p); err != nil {
		t.Fatalf("holder said %q: %v", line, err)
	}
	h.addr, h.probe = uintptr(a), uintptr(p)
	return h
}

func (h *holder) line(t testing.TB) string {
	t.Helper()
	if !h.out.Scan() {
		t.Fatalf("holder %d: no output (%v)", h.pid, h.out.Err())
	}
	return h.out.Text()
}

func (h *holder) command(t testing.TB, cmd string) string {
	t.Helper()
	fmt.Fprintln(h.in, cmd)
	if err := h.in.Flush(); err != nil {
		t.Fatal(err)
	}
	return h.line(t)
}
