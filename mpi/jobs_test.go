//go:build !ompi && !mpich

package mpi_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The multi-rank tests run real jobs: the real launcher starts real rank
// processes running mpi/internal/scenarios, which check their own results.

var bins struct {
	hympirun, scenarios string
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "hympi-mpi-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bins.hympirun = filepath.Join(dir, "hympirun")
	bins.scenarios = filepath.Join(dir, "scenarios")
	for out, pkg := range map[string]string{bins.hympirun: "../cmd/hympirun", bins.scenarios: "./internal/scenarios"} {
		args := []string{"build", "-o", out}
		if os.Getenv("HYMPI_TEST_RACE") != "" {
			args = append(args, "-race")
		}
		cmd := exec.Command("go", append(args, pkg)...)
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "building", pkg, "failed:", err)
			os.Exit(1)
		}
	}
	before := shmFiles()
	code := m.Run()
	os.RemoveAll(dir)
	if left := newShmFiles(before); len(left) > 0 {
		fmt.Fprintln(os.Stderr, "FAIL: tests left files in /dev/shm:", left)
		code = 1
	}
	os.Exit(code)
}

func shmFiles() map[string]bool {
	m := map[string]bool{}
	ents, _ := os.ReadDir("/dev/shm")
	for _, e := range ents {
		m[e.Name()] = true
	}
	return m
}

func newShmFiles(before map[string]bool) []string {
	var left []string
	for name := range shmFiles() {
		if !before[name] && strings.HasPrefix(name, "hympi") {
			left = append(left, name)
		}
	}
	return left
}

// runJob runs `hympirun -n n scenarios name` and returns its combined output
// and error (nil only for exit status 0).
func runJob(t *testing.T, n int, limit time.Duration, name string, env ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit+10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bins.hympirun, "-n", fmt.Sprint(n), "--timeout", limit.String(), bins.scenarios, name)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestScenarios(t *testing.T) {
	tests := []struct {
		name  string
		ranks []int
	}{
		{"sizes", []int{1, 2, 3, 4, 8}},
		{"order", []int{2, 4}},
		{"anysource", []int{2, 5, 8}},
		{"probe", []int{2, 3}},
		{"truncate", []int{2, 4}},
		{"special", []int{1, 2, 5}},
		{"ssend", []int{2, 4}},
		{"allpairs", []int{2, 3, 8}},
		{"bsend", []int{2, 3}},
		{"bsend_buffers", []int{1, 3}},
		{"requests", []int{1, 2, 4}},
		{"barrier", []int{1, 2, 3, 5, 8}},
		{"errors", []int{1, 2, 4}},
		{"counters", []int{2, 4}},
		{"coll", []int{1, 2, 3, 4, 5, 8}},
		{"collbig", []int{1, 2, 3, 4, 8}},
		{"nbc", []int{1, 2, 3, 4, 5, 8}},
		{"comms", []int{1, 2, 3, 4, 5, 8}},
		{"collerrors", []int{1, 2, 3, 4, 5, 8}},
		{"mprobe", []int{1, 2, 3}},
		{"intercomm", []int{2, 3, 5}},
		{"intercoll", []int{2, 3, 5}},
		{"testpoll", []int{2, 4}},
		{"porder", []int{2, 3, 5}},
		{"graphnbr", []int{1, 2, 3, 5}},
		{"fastlane", []int{1, 2, 4}},
		{"recvlane", []int{1, 2, 3, 4}},
		{"spans", []int{2, 3}},
	}
	for _, tc := range tests {
		for _, n := range tc.ranks {
			t.Run(fmt.Sprintf("%s/n=%d", tc.name, n), func(t *testing.T) {
				out, err := runJob(t, n, 60*time.Second, tc.name)
				if err != nil || !strings.Contains(out, "scenario "+tc.name+" passed") {
					t.Fatalf("hympirun -n %d scenarios %s: %v\n%s", n, tc.name, err, out)
				}
			})
		}
	}
}

// Without hympirun a program is a singleton: World has one rank and every
// self-contained scenario passes.
func TestSingleton(t *testing.T) {
	for _, name := range []string{"special", "errors", "requests", "barrier", "sizes", "coll", "nbc", "comms", "collerrors"} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bins.scenarios, name)
			cmd.Env = withoutHympiEnv(os.Environ())
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "scenario "+name+" passed") {
				t.Fatalf("singleton %s: %v\n%s", name, err, out)
			}
		})
	}
}

func withoutHympiEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "HYMPI_") {
			out = append(out, kv)
		}
	}
	return out
}

// Eight ranks on two cores exchanging all-pairs traffic must finish in
// seconds: blocking waits yield and sleep instead of spinning.
func TestOversubscribedAllPairs(t *testing.T) {
	start := time.Now()
	out, err := runJob(t, 8, 30*time.Second, "allpairs")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if el := time.Since(start); el > 20*time.Second {
		t.Fatalf("8-rank all-pairs took %v", el)
	}
	t.Logf("8-rank all-pairs exchange took %v", time.Since(start))
}

// The same scenarios with every message forced through shared memory, and
// with every non-empty message forced through direct copy: semantics must
// not depend on the protocol.
func TestDirectModes(t *testing.T) {
	for _, mode := range []string{"off", "always"} {
		for _, name := range []string{"sizes", "order", "anysource", "probe", "truncate", "special", "ssend", "bsend", "counters", "mprobe", "spans"} {
			for _, n := range []int{2, 3} {
				t.Run(fmt.Sprintf("%s/%s/n=%d", mode, name, n), func(t *testing.T) {
					out, err := runJob(t, n, 60*time.Second, name, "HYMPI_DIRECT="+mode)
					if err != nil || !strings.Contains(out, "scenario "+name+" passed") {
						t.Fatalf("HYMPI_DIRECT=%s hympirun -n %d scenarios %s: %v\n%s", mode, n, name, err, out)
					}
				})
			}
		}
	}
}

// When the kernel refuses process_vm_readv (injected here: every call fails
// with EPERM, as under a seccomp filter or Yama), the Init probe says no and
// every message goes through shared memory: the job still succeeds.
func TestDirectRefused(t *testing.T) {
	for _, name := range []string{"counters", "sizes", "order", "ssend"} {
		t.Run(name, func(t *testing.T) {
			out, err := runJob(t, 2, 60*time.Second, name, "HYMPI_DIRECTCOPY_FAIL=eperm", "HYMPI_DIRECT=always")
			if err != nil || !strings.Contains(out, "scenario "+name+" passed") {
				t.Fatalf("%v\n%s", err, out)
			}
		})
	}
}

// With HYMPI_ASYNC_PROGRESS=1 a rank that computes without MPI calls still
// forwards a broadcast to the ranks below it; without it they wait for it.
func TestAsyncProgress(t *testing.T) {
	for _, n := range []int{4, 8} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			out, err := runJob(t, n, 60*time.Second, "async", "HYMPI_ASYNC_PROGRESS=1")
			if err != nil || !strings.Contains(out, "scenario async passed") {
				t.Fatalf("%v\n%s", err, out)
			}
		})
	}
	// The check can fail: without the progress goroutine the rank below
	// the computing one waits for it.
	out, err := runJob(t, 4, 60*time.Second, "async", "HYMPI_ASYNC_PROGRESS=0")
	if err == nil || !strings.Contains(out, "nothing progressed it") {
		t.Fatalf("without async progress the scenario should fail; got %v\n%s", err, out)
	}
}

// Collectives with every message forced through direct copy and through
// shared memory: the collective context rides both protocols.
func TestCollDirectModes(t *testing.T) {
	for _, mode := range []string{"off", "always"} {
		for _, name := range []string{"coll", "nbc", "collbig"} {
			t.Run(mode+"/"+name, func(t *testing.T) {
				out, err := runJob(t, 3, 60*time.Second, name, "HYMPI_DIRECT="+mode)
				if err != nil || !strings.Contains(out, "scenario "+name+" passed") {
					t.Fatalf("%v\n%s", err, out)
				}
			})
		}
	}
}
