package fort

import (
	"bytes"
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
)

// dir is the test's build tree, laid out like bin/: hympirun, include/,
// lib/. Built once by TestMain with `make fortran BIN=dir`.
var (
	dir      string
	setupErr error // why the Fortran toolchain is unusable: tests skip
)

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	var err error
	if dir, err = os.MkdirTemp("", "hympi-fort-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if setupErr = ensureGfortran(); setupErr == nil {
		if err := build(dir); err != nil {
			fmt.Fprintln(os.Stderr, "fort:", err)
			return 1
		}
	}
	before := shmFiles()
	code := m.Run()
	if left := newShmFiles(before); len(left) > 0 {
		fmt.Fprintln(os.Stderr, "FAIL: Fortran tests left files in /dev/shm:", left)
		code = 1
	}
	return code
}

// ensureGfortran installs Debian's gfortran when it is missing and we may.
func ensureGfortran() error {
	if _, err := exec.LookPath("gfortran"); err == nil {
		return nil
	}
	if os.Geteuid() != 0 {
		return fmt.Errorf("gfortran is not installed and installing it needs root")
	}
	if _, err := exec.Command("apt-get", "install", "-y", "gfortran").CombinedOutput(); err != nil {
		// A fresh machine may not know the package yet.
		_ = exec.Command("apt-get", "update").Run()
		if out, err := exec.Command("apt-get", "install", "-y", "gfortran").CombinedOutput(); err != nil {
			return fmt.Errorf("gfortran is not installed and apt-get install gfortran failed: %v\n%s", err, out)
		}
	}
	_, err := exec.LookPath("gfortran")
	return err
}

// build runs the same recipe as `make fortran`, into d, and adds the
// launcher (and hympifort where the tree has it).
func build(d string) error {
	root, err := filepath.Abs("../..")
	if err != nil {
		return err
	}
	cmds := [][]string{
		{"make", "-s", "-C", root, "fortran", "BIN=" + d},
		{"go", "build", "-o", d, "../hympirun"},
	}
	if _, err := os.Stat("../hympifort"); err == nil {
		cmds = append(cmds, []string{"go", "build", "-o", d, "../hympifort"})
	}
	for _, args := range cmds {
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return nil
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

func needFortran(t *testing.T) {
	t.Helper()
	if setupErr != nil {
		t.Skip("no Fortran compiler: ", setupErr)
	}
}

var (
	builtMu sync.Mutex
	built   = map[string]error{}
)

// compile builds testdata/src with hympifort when the tree has it, else
// with gfortran and the flags hympifort passes; warnings are errors, so
// the headers and modules must compile cleanly in user code.
func compile(t *testing.T, src string) string {
	t.Helper()
	exe := filepath.Join(dir, strings.TrimSuffix(src, filepath.Ext(src)))
	builtMu.Lock()
	defer builtMu.Unlock()
	err, ok := built[src]
	if !ok {
		// The programs' own modules go to a directory of their own, not
		// into the source tree.
		mods := exe + ".mod.d"
		if err := os.MkdirAll(mods, 0o755); err != nil {
			t.Fatal(err)
		}
		flags := []string{"-Wall", "-Werror", "-O1", "-J", mods, filepath.Join("testdata", src), "-o", exe}
		// A program with a C half (testdata/x_c.c) links its object.
		if csrc := filepath.Join("testdata", strings.TrimSuffix(src, filepath.Ext(src))+"_c.c"); fileExists(csrc) {
			obj := exe + "_c.o"
			cc := exec.Command("cc", "-Wall", "-Werror", "-I", filepath.Join(dir, "include"), "-c", csrc, "-o", obj)
			if out, cerr := cc.CombinedOutput(); cerr != nil {
				built[src] = fmt.Errorf("%s: %v\n%s", strings.Join(cc.Args, " "), cerr, out)
				t.Fatal(built[src])
			}
			flags = append(flags, obj)
		}
		var cmd *exec.Cmd
		if fc := filepath.Join(dir, "hympifort"); fileExists(fc) {
			cmd = exec.Command(fc, flags...)
		} else {
			inc, lib := filepath.Join(dir, "include"), filepath.Join(dir, "lib")
			cmd = exec.Command("gfortran", append(flags, "-I", inc, "-L", lib, "-Wl,-rpath,"+lib,
				"-lmpi_abi_fort", "-lmpi_abi")...)
		}
		cmd.Dir = "."
		if out, cerr := cmd.CombinedOutput(); cerr != nil {
			err = fmt.Errorf("%s: %v\n%s", strings.Join(cmd.Args, " "), cerr, out)
		}
		built[src] = err
	}
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func runJob(t *testing.T, n int, exe string) (string, error) {
	t.Helper()
	const limit = 60 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), limit+10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(dir, "hympirun"), "-n", fmt.Sprint(n), "--timeout", limit.String(), exe)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

var okLine = regexp.MustCompile(`(?m)^rank (\d+) OK$`)

// Each program checks its own results and prints "rank R OK" on every
// rank that saw no failure.
func TestFortranPrograms(t *testing.T) {
	needFortran(t)
	tests := []struct {
		src   string
		ranks []int
		quiet bool // prints nothing but the OK lines
	}{
		{"f77_basic.f", []int{2, 3, 4}, true},      // include 'mpif.h', fixed form
		{"freeform_mpif.f90", []int{1, 2}, true},   // mpif.h in free form
		{"f90_mpi.f90", []int{2, 3, 4}, true},      // use mpi
		{"f08.f90", []int{2, 3, 4}, true},          // use mpi_f08
		{"f08_more.f90", []int{1, 2, 4}, true},     // strings, logical and handle arrays, callbacks
		{"mixed.f90", []int{2}, true},              // with C, via mpi_abi_fort.h
		{"classic_pi.f", []int{1, 4}, false},       // classic F77 code
		{"classic_jacobi.f90", []int{2, 3}, false}, // classic F90 code
	}
	for _, tc := range tests {
		for _, n := range tc.ranks {
			t.Run(fmt.Sprintf("%s/n=%d", tc.src, n), func(t *testing.T) {
				exe := compile(t, tc.src)
				out, err := runJob(t, n, exe)
				got := okLine.FindAllString(out, -1)
				if err != nil || len(got) != n {
					t.Fatalf("hympirun -n %d %s: %v (%d of %d ranks OK)\n%s", n, tc.src, err, len(got), n, out)
				}
				if extra := strings.TrimSpace(okLine.ReplaceAllString(out, "")); tc.quiet && extra != "" {
					t.Errorf("unexpected output:\n%s", extra)
				}
			})
		}
	}
}

// The library exports gfortran's names for the routines programs call,
// the hand-written ones, and the C conversions of mixed-language codes.
func TestFortranSymbols(t *testing.T) {
	needFortran(t)
	f, err := elf.Open(filepath.Join(dir, "lib", "libmpi_abi_fort.so.1"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
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
	for _, name := range []string{
		"mpi_init_", "mpi_init_thread_", "mpi_finalize_", "mpi_send_", "mpi_recv_", "mpi_isend_",
		"mpi_waitall_", "mpi_allreduce_", "mpi_alltoallw_", "mpi_comm_split_", "mpi_group_range_incl_",
		"mpi_type_create_struct_", "mpi_op_create_", "mpi_comm_create_errhandler_",
		"mpi_comm_create_keyval_", "mpi_comm_get_attr_", "mpi_wtime_", "mpi_wtick_",
		"mpi_comm_dup_fn_", "mpi_get_processor_name_", "mpi_abi_get_fortran_info_",
		"MPI_Comm_c2f", "MPI_Comm_f2c", "MPI_Type_c2f", "MPI_Status_c2f", "MPI_Status_f2c",
		"mpi_fortran_bottom_", "mpi_fortran_in_place_", "mpi_fortran_status_ignore_",
		"__mpi_f08_MOD_mpi_send", "__mpi_f08_MOD_mpi_init", "pmpi_send_", "pmpi_init_", "pmpi_op_create_",
		"mpi_address_", "mpi_type_struct_", "mpi_errhandler_set_",
	} {
		if !have[name] {
			t.Errorf("libmpi_abi_fort.so.1 does not export %s", name)
		}
	}
}

// A build that compiled the wrong module, or none, must not pass for a
// working one: a program using a name the bindings lack fails to build.
func TestFortranCompileRejects(t *testing.T) {
	needFortran(t)
	tests := []struct{ name, src string }{
		{"f08 type mismatch", "program p\nuse mpi_f08\ntype(MPI_Comm) :: c\ncall MPI_Comm_size(c, 1.5)\nend program\n"},
		{"unknown routine", "program p\nuse mpi\ncall MPI_No_such_routine(1)\nend program\n"},
		{"use mpi wrong argument count", "program p\nuse mpi\ninteger :: r, e\ncall MPI_Comm_rank(MPI_COMM_WORLD, r)\nend program\n"},
		{"use mpi wrong kind", "program p\nuse mpi\ninteger :: k, e\ninteger(kind=8) :: v\nlogical :: f\ncall MPI_Comm_get_attr(MPI_COMM_WORLD, k, k, f, e)\nend program\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := filepath.Join(t.TempDir(), "bad.f90")
			if err := os.WriteFile(src, []byte(tc.src), 0o644); err != nil {
				t.Fatal(err)
			}
			lib := filepath.Join(dir, "lib")
			cmd := exec.Command("gfortran", "-fimplicit-none", src, "-o", src+".exe", "-I", filepath.Join(dir, "include"),
				"-L", lib, "-lmpi_abi_fort", "-lmpi_abi")
			if out, err := cmd.CombinedOutput(); err == nil {
				t.Fatalf("compiled:\n%s", out)
			}
		})
	}
}

// The committed generated files are what the generator writes today.
func TestGeneratedUpToDate(t *testing.T) {
	out := t.TempDir()
	cmd := exec.Command("go", "run", "./gen", "-o", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run ./gen: %v\n%s", err, b)
	}
	for _, name := range []string{"wrappers_gen.c", "mpif.h", "mpi_f08_gen.f90", "mpi_f08_procs_gen.f90", "mpi_gen.f90"} {
		want, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join("src", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("src/%s is stale: run `go generate ./cmd/libmpi_abi_fort`", name)
		}
	}
}

// The C sources compile without a warning (the build does not use
// -Werror, so that another compiler's new warnings cannot break it).
func TestCSourcesWarningFree(t *testing.T) {
	for _, src := range []string{"fort.c", "callbacks.c", "legacy.c", "wrappers_gen.c"} {
		t.Run(src, func(t *testing.T) {
			// The optimiser's warnings (bounds) matter in the hand-written
			// files; the generated one is large and straight-line.
			mode := []string{"-c", "-o", os.DevNull, "-O2"}
			if strings.HasSuffix(src, "_gen.c") {
				mode = []string{"-fsyntax-only"}
			}
			cmd := exec.Command("cc", append(mode, "-Wall", "-Wextra", "-Werror", "-I", "../libmpi_abi/include",
				filepath.Join("src", src))...)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
		})
	}
}

// Programs written to a standard compile with gfortran's -std for it:
// mpif.h and the modules use no extension the program would be blamed for.
func TestFortranStrictStandards(t *testing.T) {
	needFortran(t)
	tests := []struct{ src, std string }{
		{"classic_pi.f", "f95"},
		{"classic_pi.f", "f2008"},
		{"classic_jacobi.f90", "f2008"},
		{"f90_mpi.f90", "f2008"},
		{"f08.f90", "f2008"},
	}
	for _, tc := range tests {
		t.Run(tc.src+"/"+tc.std, func(t *testing.T) {
			cmd := exec.Command("gfortran", "-std="+tc.std, "-c", "-o", os.DevNull, "-J", t.TempDir(),
				"-I", filepath.Join(dir, "include"), filepath.Join("testdata", tc.src))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out)
			}
		})
	}
}

// Without hympirun a Fortran program is a singleton, as a C one is.
func TestFortranSingleton(t *testing.T) {
	needFortran(t)
	exe := compile(t, "classic_pi.f")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, exe).CombinedOutput()
	if err != nil || len(okLine.FindAllString(string(out), -1)) != 1 {
		t.Fatalf("%s alone: %v\n%s", exe, err, out)
	}
}
