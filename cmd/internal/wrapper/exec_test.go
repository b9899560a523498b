package wrapper

// These tests run the real wrapper binaries, built once into a temporary
// build-tree layout (bin/ with include/mpi.h), against the system compilers.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hympi/hympi/internal/version"
)

var bin string // the wrappers and include/mpi.h

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	d, err := os.MkdirTemp("", "hympi-wrapper-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(d)
	bin = filepath.Join(d, "bin")
	if err := buildWrappers(bin); err != nil {
		fmt.Fprintln(os.Stderr, "wrapper tests:", err)
		return 1
	}
	return m.Run()
}

func buildWrappers(bin string) error {
	if err := os.MkdirAll(filepath.Join(bin, "include"), 0o755); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(bin, "lib"), 0o755); err != nil {
		return err
	}
	out, err := exec.Command("go", "build", "-o", bin+"/", "../../hympicc", "../../hympicxx", "../../hympifort").CombinedOutput()
	if err != nil {
		return fmt.Errorf("go build: %v\n%s", err, out)
	}
	h, err := os.ReadFile("../../libmpi_abi/include/mpi.h")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(bin, "include", "mpi.h"), h, 0o644); err != nil {
		return err
	}
	// The names other MPIs use, as make install creates them.
	for _, l := range [][2]string{{"mpicc", "hympicc"}, {"mpicxx", "hympicxx"}, {"hympic++", "hympicxx"}} {
		if err := os.Symlink(l[1], filepath.Join(bin, l[0])); err != nil {
			return err
		}
	}
	return nil
}

// wrapperEnv is a clean environment with bin first on PATH plus extra.
func wrapperEnv(extra ...string) []string {
	var env []string
	clear := map[string]bool{"CC": true, "CXX": true, "FC": true, "HYMPICC_CC": true, "HYMPICXX_CXX": true,
		"HYMPIFORT_FC": true, "HYMPI_HOME": true, guardVar: true, "PATH": true}
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); !clear[name] {
			env = append(env, kv)
		}
	}
	return append(append(env, "PATH="+bin+":"+os.Getenv("PATH")), extra...)
}

// runWrapper runs bin/name with a generous bound: a wrapper that loops is
// killed and reported rather than hanging the test (the bound is a safety
// net, not a timing assertion).
func runWrapper(t *testing.T, dir string, env []string, name string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bin, name), args...)
	cmd.Dir, cmd.Env = dir, env
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%s %q did not finish: it loops", name, args)
	}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return code, o.String(), e.String()
}

func needCompiler(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("no %s on PATH", name)
	}
}

// TestNeverRunsItself is issue 11's fork bomb: CC (or the wrapper's own
// variable) naming the wrapper, by path, by name, through a symlink or
// through a script, must give the real compiler, for --showme and for a
// compile.
func TestNeverRunsItself(t *testing.T) {
	needCompiler(t, "cc")
	d := t.TempDir()
	mkfile(t, filepath.Join(d, "x.c"), "#include <mpi.h>\nint f(void) { return MPI_SUCCESS; }\n")
	mkfile(t, filepath.Join(d, "callswrapper"), "#!/bin/sh\nexec hympicc \"$@\"\n")
	tests := []struct {
		name string
		env  string
	}{
		{"CC by path", "CC=" + filepath.Join(bin, "hympicc")},
		{"CC by name", "CC=hympicc"},
		{"CC=mpicc symlink", "CC=mpicc"},
		{"HYMPICC_CC by path", "HYMPICC_CC=" + filepath.Join(bin, "hympicc")},
		{"CC is a script calling hympicc", "CC=" + filepath.Join(d, "callswrapper")},
		{"CC with a launcher word", "CC=env hympicc"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := wrapperEnv(tc.env)
			code, out, errs := runWrapper(t, d, env, "hympicc", "--showme")
			if code != 0 || errs != "" {
				t.Fatalf("--showme: exit %d, stderr %q", code, errs)
			}
			first := strings.Fields(out)[0]
			if first != "cc" || !strings.Contains(out, "-I"+filepath.Join(bin, "include")) {
				t.Fatalf("--showme chose %q: %q", first, out)
			}
			if code, _, errs := runWrapper(t, d, env, "hympicc", "-c", "x.c", "-o", "x.o"); code != 0 {
				t.Fatalf("compile: exit %d, stderr %q", code, errs)
			}
			if _, err := os.Stat(filepath.Join(d, "x.o")); err != nil {
				t.Fatal(err)
			}
			os.Remove(filepath.Join(d, "x.o"))
		})
	}
}

// TestGuardStopsIndirectLoop: a compiler that runs a wrapper in a way no
// check can see (a script calling whatever a variable names) is stopped by
// the guard variable at the second wrapper, with a message saying why.
func TestGuardStopsIndirectLoop(t *testing.T) {
	d := t.TempDir()
	sneaky := filepath.Join(d, "sneaky")
	mkfile(t, sneaky, "#!/bin/sh\nexec \"$LOOP\" \"$@\"\n")
	mkfile(t, filepath.Join(d, "x.c"), "int main(void) { return 0; }\n")
	for _, w := range []struct{ name, env string }{{"hympicc", "CC"}, {"hympicxx", "CXX"}, {"hympifort", "FC"}} {
		t.Run(w.name, func(t *testing.T) {
			env := wrapperEnv(w.env+"="+sneaky, "LOOP="+filepath.Join(bin, w.name))
			code, _, errs := runWrapper(t, d, env, w.name, "-c", "x.c")
			if code != exitFailure || !strings.Contains(errs, "refusing to run: "+guardVar+"=1") {
				t.Fatalf("exit %d, stderr %q", code, errs)
			}
			// Queries run nothing, so they answer even under the guard.
			code, out, _ := runWrapper(t, d, append(env, guardVar+"=1"), w.name, "--showme:command")
			if code != 0 || strings.TrimSpace(out) != sneaky {
				t.Fatalf("--showme:command under the guard: exit %d, %q", code, out)
			}
		})
	}
}

// TestHeaderCompilesCleanly: mpi.h is warning-free C++ from C++11 to C++23
// and C from C99, with -Wall -Wextra -pedantic.
func TestHeaderCompilesCleanly(t *testing.T) {
	d := t.TempDir()
	mkfile(t, filepath.Join(d, "h.cpp"), `#include <mpi.h>
#include <iostream>
int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	MPI_Comm c = MPI_COMM_WORLD;
	MPI_Status st;
	int n = 0;
	MPI_Get_count(&st, MPI_INT, &n);
	MPI_Allreduce(MPI_IN_PLACE, &n, 1, MPI_INT, MPI_SUM, c);
	std::cout << n << MPI_ANY_SOURCE << std::endl;
	return MPI_Finalize();
}
`)
	mkfile(t, filepath.Join(d, "h.c"), "#include <mpi.h>\nint main(void) { return MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : 1; }\n")
	type lang struct{ wrapper, compiler, file string }
	cxx, c := lang{"hympicxx", "c++", "h.cpp"}, lang{"hympicc", "cc", "h.c"}
	tests := []struct {
		l   lang
		std string
	}{
		{cxx, "c++11"}, {cxx, "c++14"}, {cxx, "c++17"}, {cxx, "c++20"}, {cxx, "c++23"},
		{c, "c99"}, {c, "c11"}, {c, "c17"},
	}
	for _, tc := range tests {
		t.Run(tc.l.wrapper+"-"+tc.std, func(t *testing.T) {
			needCompiler(t, tc.l.compiler)
			code, _, errs := runWrapper(t, d, wrapperEnv(), tc.l.wrapper,
				"-std="+tc.std, "-Wall", "-Wextra", "-pedantic", "-Werror", "-fsyntax-only", tc.l.file)
			if code != 0 {
				t.Fatalf("exit %d:\n%s", code, errs)
			}
		})
	}
}

// TestVersion: hympi's version first, then the compiler's.
func TestVersion(t *testing.T) {
	needCompiler(t, "cc")
	want, err := exec.Command("cc", "--version").Output()
	if err != nil {
		t.Skip("cc --version:", err)
	}
	code, out, errs := runWrapper(t, t.TempDir(), wrapperEnv(), "hympicc", "--version")
	first, rest, _ := strings.Cut(out, "\n")
	if code != 0 || first != "hympicc: "+version.String()+" (Language: C)" || rest != string(want) {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, _ = runWrapper(t, t.TempDir(), wrapperEnv(), "mpicxx", "--showme:version")
	if code != 0 || !strings.HasPrefix(out, "hympicxx: hympi "+version.Release()) {
		t.Fatalf("mpicxx --showme:version: exit %d, %q", code, out)
	}
}

// TestUsageErrors: the wrapper's own mistakes are exit 2 with a message.
func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{nil, "no input files"},
		{[]string{"--showme:bogus"}, "unknown option --showme:bogus"},
		{[]string{"-showme:compile", "-showme:link"}, "cannot be combined"},
	}
	for _, tc := range tests {
		code, out, errs := runWrapper(t, t.TempDir(), wrapperEnv(), "hympicc", tc.args...)
		if code != exitUsage || out != "" || !strings.Contains(errs, tc.want) {
			t.Errorf("hympicc %q: exit %d, stdout %q, stderr %q", tc.args, code, out, errs)
		}
	}
	code, out, _ := runWrapper(t, t.TempDir(), wrapperEnv(), "hympifort", "--help")
	if code != 0 || !strings.Contains(out, "$HYMPIFORT_FC, $FC") || !strings.Contains(out, "--showme:link") {
		t.Errorf("hympifort --help: exit %d, %q", code, out)
	}
}
