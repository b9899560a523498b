// Package ctests runs hympi's C ABI tests: C programs in testdata/, built
// with hympicc against a freshly built libmpi_abi.so.1 and run under
// hympirun. Each program prints "rank R OK" on every rank when all its
// checks passed.
package ctests

import (
	"context"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hympi/hympi/mpi"
)

var dir string // the test installation: hympirun, hympicc, include/, lib/

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	var err error
	if dir, err = os.MkdirTemp("", "hympi-ctests-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if err := install(dir); err != nil {
		fmt.Fprintln(os.Stderr, "ctests:", err)
		return 1
	}
	before := shmFiles()
	code := m.Run()
	if left := newShmFiles(before); len(left) > 0 {
		fmt.Fprintln(os.Stderr, "FAIL: C tests left files in /dev/shm:", left)
		code = 1
	}
	return code
}

// install builds what `make` puts in bin/ into d.
func install(d string) error {
	for _, sub := range []string{"include", "lib"} {
		if err := os.MkdirAll(filepath.Join(d, sub), 0o755); err != nil {
			return err
		}
	}
	builds := [][]string{
		{"build", "-o", d, "../../hympirun", "../../hympicc"},
		{"build", "-buildmode=c-shared", "-ldflags=-extldflags=-Wl,-soname,libmpi_abi.so.1",
			"-o", filepath.Join(d, "lib", "libmpi_abi.so.1"), ".."},
	}
	for _, args := range builds {
		cmd := exec.Command("go", args...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	if err := os.Symlink("libmpi_abi.so.1", filepath.Join(d, "lib", "libmpi_abi.so")); err != nil {
		return err
	}
	h, err := os.ReadFile("../include/mpi.h")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(d, "include", "mpi.h"), h, 0o644)
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

// collectivesReady probes the engine: until the collectives land (issue 5)
// they are placeholders that fail with "not implemented yet", and the C
// tests that need them are skipped. No switch to flip after the merge.
func collectivesReady() bool {
	var c *mpi.Comm
	err := func() (err error) {
		defer func() {
			if recover() != nil {
				err = nil
			}
		}()
		return c.Bcast(nil, 0)
	}()
	return err == nil || !strings.Contains(err.Error(), "not implemented yet")
}

var (
	builtMu sync.Mutex
	built   = map[string]error{}
)

// compile builds testdata/name.c with hympicc, once.
func compile(t *testing.T, name string) string {
	t.Helper()
	exe := filepath.Join(dir, name)
	builtMu.Lock()
	defer builtMu.Unlock()
	err, ok := built[name]
	if !ok {
		cmd := exec.Command(filepath.Join(dir, "hympicc"), "-Wall", "-Wextra", "-Werror", "-Wno-unused-parameter",
			"-O1", "-pthread", filepath.Join("testdata", name+".c"), "-o", exe)
		if out, cerr := cmd.CombinedOutput(); cerr != nil {
			err = fmt.Errorf("hympicc %s.c: %v\n%s", name, cerr, out)
		}
		built[name] = err
	}
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

func runJob(t *testing.T, n int, exe string, env ...string) (string, error) {
	t.Helper()
	const limit = 60 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), limit+10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(dir, "hympirun"), "-n", fmt.Sprint(n), "--timeout", limit.String(), exe)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

var okLine = regexp.MustCompile(`(?m)^rank (\d+) OK$`)

func TestCPrograms(t *testing.T) {
	coll := collectivesReady()
	tests := []struct {
		name      string
		ranks     []int
		needsColl bool // uses collectives, communicators, groups or user ops (issue 5)
	}{
		{"p2p", []int{1, 2, 4}, false},
		{"requests", []int{1, 2, 4}, false},
		{"isend_done", []int{1, 2, 3}, false},
		{"allocs", []int{1, 2}, false},
		{"errors", []int{1, 3}, false},
		{"fork", []int{1, 2}, false},
		{"threads", []int{1, 2, 4}, false},
		{"datatypes", []int{1, 2, 4}, false},
		{"coll", []int{1, 2, 3, 4}, true},
		{"nbc", []int{1, 2, 3, 4, 5}, true},
		{"neighbor", []int{1, 2, 3, 4, 5, 6, 8}, true},
		{"neighbor_graph", []int{1, 2, 3, 4, 5, 8}, true},
		{"neighbor_block", []int{1, 2, 3, 4}, true},
		{"comm", []int{1, 2, 4}, true},
		{"cart", []int{1, 4, 6}, true},
		{"argcheck", []int{1, 2, 3}, true},
		{"pt2pt_ext", []int{1, 2, 3}, true},
		{"comm_ext", []int{1, 2, 4}, true},
		{"session", []int{1, 3}, true},
		{"cancel", []int{1, 2, 3}, true},
		{"intercomm", []int{1, 2, 5}, true},
		{"coll_inter", []int{2, 3, 5}, true},
		{"dtype_reduce", []int{1, 2, 3}, true},
		{"dtype_layout", []int{1}, false},
		{"dtype_p2p", []int{1, 2, 3}, true},
		{"info_errors", []int{1, 2}, true},
		{"mpit", []int{1, 2}, false},
		{"bsend_ext", []int{1, 2, 3}, true},
		{"file_errh", []int{1}, false},
		{"finalized", []int{1, 2}, true},
		{"idup", []int{1, 2, 4}, true},
		{"intercomm_create", []int{1, 2, 5}, true},
		{"p_order", []int{1, 2, 3, 5}, true},
		{"pairloc", []int{1, 2, 3}, true},
		{"attr_fail", []int{1, 2}, true},
		{"dims", []int{1}, false},
		{"nbc_types", []int{1, 2, 3}, true},
		{"nbc_done", []int{1, 2, 3}, true},
		{"nbc_free", []int{1, 2, 3}, true},
		{"nbc_overlap", []int{1, 2, 3, 4}, true},
		{"idup_inter", []int{2, 4, 5}, true},
		{"fastlane", []int{1, 4}, true},
		{"reduce_kernels", []int{1, 2}, true},
		{"bigcoll", []int{1, 2, 3, 5}, true},
	}
	for _, tc := range tests {
		for _, n := range tc.ranks {
			t.Run(fmt.Sprintf("%s/n=%d", tc.name, n), func(t *testing.T) {
				exe := compile(t, tc.name)
				if tc.needsColl && !coll {
					t.Skip("collectives not implemented yet in the engine (mpi/collectives_pending.go)")
				}
				out, err := runJob(t, n, exe)
				want := n
				if tc.name == "cancel" && err == nil {
					// Large sends go rendezvous: their cancel must win.
					var direct string
					direct, err = runJob(t, n, exe, "HYMPI_DIRECT=always")
					out += direct
					want = 2 * n
				}
				if tc.name == "finalized" && err == nil {
					var ses string
					ses, err = runJob(t, n, exe, "HYMPI_FIN_SESSION=1")
					out += ses
					want = 2 * n
				}
				if tc.name == "session" && err == nil {
					// The same program again on sessions alone, without MPI_Init.
					var alone string
					alone, err = runJob(t, n, exe, "HYMPI_SESSION_ALONE=1")
					out += alone
					want = 2 * n
				}
				got := okLine.FindAllString(out, -1)
				if err != nil || len(got) != want {
					t.Fatalf("hympirun -n %d %s: %v (%d of %d ranks OK)\n%s", n, tc.name, err, len(got), n, out)
				}
				// The library prints nothing of its own (fork's children
				// report their expected failure on stderr).
				if tc.name != "fork" {
					if extra := strings.TrimSpace(okLine.ReplaceAllString(out, "")); extra != "" {
						t.Errorf("unexpected output:\n%s", extra)
					}
				}
			})
		}
	}
}

// Nonblocking and persistent collectives also progress from the engine's
// own goroutine (HYMPI_ASYNC_PROGRESS=1), which then races the waiting
// threads for the same collectives.
func TestCNonblockingAsyncProgress(t *testing.T) {
	if !collectivesReady() {
		t.Skip("collectives not implemented yet in the engine")
	}
	exe := compile(t, "nbc")
	out, err := runJob(t, 3, exe, "HYMPI_ASYNC_PROGRESS=1")
	if got := okLine.FindAllString(out, -1); err != nil || len(got) != 3 {
		t.Fatalf("hympirun -n 3 nbc with async progress: %v (%d of 3 ranks OK)\n%s", err, len(got), out)
	}
}

// A C nonblocking collective completes while its ranks compute without
// calling MPI (HYMPI_ASYNC_PROGRESS=1: the engine's goroutine takes the
// messages and forwards them down the tree; nbc_overlap.c's async part,
// which would wait for ever without it), and the Test-only loops hold
// with the goroutine racing the tests.
func TestCOverlapAsyncProgress(t *testing.T) {
	if !collectivesReady() {
		t.Skip("collectives not implemented yet in the engine")
	}
	exe := compile(t, "nbc_overlap")
	for _, tc := range []struct {
		n   int
		env []string
	}{
		{2, []string{"HYMPI_ASYNC_PROGRESS=1", "NBC_OVERLAP_ASYNC=1"}},
		{4, []string{"HYMPI_ASYNC_PROGRESS=1", "NBC_OVERLAP_ASYNC=1"}},
		{3, []string{"HYMPI_ASYNC_PROGRESS=1"}},
	} {
		out, err := runJob(t, tc.n, exe, tc.env...)
		if got := okLine.FindAllString(out, -1); err != nil || len(got) != tc.n {
			t.Fatalf("hympirun -n %d nbc_overlap %v: %v (%d of %d ranks OK)\n%s", tc.n, tc.env, err, len(got), tc.n, out)
		}
	}
}

// Without hympirun a C program is a singleton.
func TestCSingleton(t *testing.T) {
	exe := compile(t, "p2p")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, exe).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "rank 0 OK" {
		t.Fatalf("%s alone: %v\n%s", exe, err, out)
	}
}

// The default error handler aborts the job with one line naming the
// function and the error.
func TestCFatalError(t *testing.T) {
	exe := compile(t, "fatal")
	out, err := runJob(t, 3, exe)
	if err == nil {
		t.Fatalf("job with an invalid MPI_Send succeeded:\n%s", out)
	}
	lines := regexp.MustCompile(`(?m)^hympi: rank \d+: .*$`).FindAllString(out, -1)
	if len(lines) != 1 || !strings.Contains(lines[0], "hympi: rank 0: MPI_Send: invalid rank") {
		t.Fatalf("want one line reporting rank 0's MPI_Send, got %q\n%s", lines, out)
	}
	if strings.Contains(out, "survived") {
		t.Fatalf("a rank went on after the fatal error:\n%s", out)
	}
}

// Every function of the standard ABI exists as MPI_X and PMPI_X, and the
// library's SONAME is the standard's.
func TestCSymbols(t *testing.T) {
	f, err := elf.Open(filepath.Join(dir, "lib", "libmpi_abi.so.1"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sonames, err := f.DynString(elf.DT_SONAME)
	if err != nil || len(sonames) != 1 || sonames[0] != "libmpi_abi.so.1" {
		t.Errorf("SONAME %v, %v; want libmpi_abi.so.1", sonames, err)
	}
	syms, err := f.DynamicSymbols()
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, s := range syms {
		if s.Section != elf.SHN_UNDEF {
			have[s.Name] = true
		}
	}
	protos, err := os.ReadFile("../gen/functions.txt")
	if err != nil {
		t.Fatal(err)
	}
	names := regexp.MustCompile(`\bMPI_\w+\(`).FindAllString(string(protos), -1)
	if len(names) < 600 {
		t.Fatalf("only %d functions in gen/functions.txt", len(names))
	}
	for _, n := range names {
		n = strings.TrimSuffix(n, "(")
		if !have[n] || !have["P"+n] {
			t.Errorf("%s or P%s not exported", n, n)
		}
	}
}

func TestHympiccShowme(t *testing.T) {
	out, err := exec.Command(filepath.Join(dir, "hympicc"), "--showme", "x.c", "-o", "x").Output()
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, want := range []string{"-I" + filepath.Join(dir, "include"), "x.c -o x", "-Wl,-rpath," + filepath.Join(dir, "lib"), "-lmpi_abi"} {
		if !strings.Contains(s, want) {
			t.Errorf("hympicc --showme: %q lacks %q", s, want)
		}
	}
	out, err = exec.Command(filepath.Join(dir, "hympicc"), "--showme", "-c", "x.c").Output()
	if err != nil || strings.Contains(string(out), "-lmpi_abi") {
		t.Errorf("compile-only line %q (%v) links", out, err)
	}
}

// An unmodified third-party benchmark (OSU osu_latency, BSD) builds with
// hympicc and runs to the end.
func TestThirdParty(t *testing.T) {
	exe := filepath.Join(dir, "osu_latency")
	src := filepath.Join("testdata", "third_party", "osu", "osu_latency.c")
	cmd := exec.Command(filepath.Join(dir, "hympicc"), "-O2", `-DPACKAGE_VERSION="3.1.1"`, src, "-o", exe)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("hympicc osu_latency.c: %v\n%s", err, out)
	}
	out, err := runJob(t, 2, exe)
	if err != nil || !strings.Contains(out, "# OSU MPI Latency Test") || !regexp.MustCompile(`(?m)^4194304\s+\d+\.\d+$`).MatchString(out) {
		t.Fatalf("osu_latency: %v\n%s", err, out)
	}
}
