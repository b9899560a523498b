package installtest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hympi/hympi/internal/version"
)

var (
	prefix string // the installed tree, moved after installing
	stage  string // where make install put it (DESTDIR + PREFIX)
)

// builtFor is the PREFIX make install was told; the tree never lives there.
const builtFor = "/opt/hympi-test"

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	tmp, err := os.MkdirTemp("", "hympi-install-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	root, err := filepath.Abs("../../..")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if _, err := exec.LookPath("make"); err != nil {
		fmt.Println("installtest: no make on PATH: skipping the install tests")
		return 0
	}
	build, destdir := filepath.Join(tmp, "build"), filepath.Join(tmp, "destdir")
	stage = filepath.Join(destdir, builtFor)
	// The Fortran bindings are installed when they are built; build them
	// where the Makefile knows how and gfortran is there.
	goals := []string{"install"}
	if _, err := exec.LookPath("gfortran"); err == nil {
		probe := exec.Command("make", "-C", root, "-n", "fortran", "BIN="+build)
		probe.Env = cleanEnv()
		if probe.Run() == nil {
			goals = []string{"fortran", "install"}
		}
	}
	args := append([]string{"-C", root}, goals...)
	cmd := exec.Command("make", append(args, "BIN="+build, "PREFIX="+builtFor, "DESTDIR="+destdir)...)
	cmd.Env = cleanEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "make install: %v\n%s", err, out)
		return 1
	}
	// The build tree goes away and the installed tree moves: what is left
	// must work from wherever it is.
	prefix = filepath.Join(tmp, "moved", "hympi")
	if err := os.MkdirAll(filepath.Dir(prefix), 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := exec.Command("cp", "-a", stage, prefix).Run(); err != nil {
		fmt.Fprintln(os.Stderr, "copy the installed tree:", err)
		return 1
	}
	if err := os.RemoveAll(build); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	before := shmFiles()
	code := m.Run()
	if left := newShmFiles(before); len(left) > 0 {
		fmt.Fprintln(os.Stderr, "FAIL: left files in /dev/shm:", left)
		code = 1
	}
	return code
}

// cleanEnv is the test's environment without what would change a build:
// an outer make's flags and any compiler or MPI choice.
func cleanEnv(extra ...string) []string {
	drop := map[string]bool{"MAKEFLAGS": true, "MFLAGS": true, "MAKELEVEL": true, "CC": true, "CXX": true, "FC": true,
		"HYMPICC_CC": true, "HYMPICXX_CXX": true, "HYMPIFORT_FC": true, "HYMPI_HOME": true, "HYMPICC_DEPTH": true,
		"MPI_HOME": true, "PKG_CONFIG_PATH": true, "CFLAGS": true, "LDFLAGS": true}
	var env []string
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); !drop[name] {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// userEnv is a user's environment after switching to hympi: its bin first
// on PATH.
func userEnv(extra ...string) []string {
	var env []string
	for _, kv := range cleanEnv(extra...) {
		if !strings.HasPrefix(kv, "PATH=") {
			env = append(env, kv)
		}
	}
	return append(env, "PATH="+filepath.Join(prefix, "bin")+":"+os.Getenv("PATH"))
}

// sh runs a command line in dir with a generous bound and returns its
// combined output; a failure or a run past the bound fails the test.
func sh(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, lookPathIn(t, env, name), args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

// lookPathIn finds name on the PATH of env (exec.Command would use the
// test's own PATH, where another MPI's mpirun may come first).
func lookPathIn(t *testing.T, env []string, name string) string {
	t.Helper()
	if strings.Contains(name, "/") {
		return name
	}
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v // the last one wins, as in exec.Cmd
		}
	}
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	t.Fatalf("%s is not on PATH %s", name, path)
	return ""
}

func need(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (make test-tools installs it)", tool)
		}
	}
}

// fortranBuilt reports whether the Fortran bindings were installed (they
// come from `make fortran`).
func fortranBuilt() bool {
	_, err := os.Stat(filepath.Join(prefix, "include", "mpif.h"))
	return err == nil
}

// helloC prints the library version on rank 0 and "rank R OK" on each.
const helloC = `#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
	char v[MPI_MAX_LIBRARY_VERSION_STRING];
	int rank, size, len;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Get_library_version(v, &len);
	int sum = 0;
	MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0) printf("library: %s\n", v);
	if (sum == size * (size - 1) / 2) printf("rank %d OK\n", rank);
	return MPI_Finalize();
}
`

const helloCXX = `#include <mpi.h>
#include <iostream>
#include <string>
#include <vector>
int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	int rank = 0, size = 0;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	std::vector<char> v(MPI_MAX_LIBRARY_VERSION_STRING);
	int len = 0;
	MPI_Get_library_version(v.data(), &len);
	int sum = 0;
	MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0) std::cout << "library: " << std::string(v.data(), len) << std::endl;
	if (sum == size * (size - 1) / 2) std::cout << "rank " << rank << " OK" << std::endl;
	return MPI_Finalize();
}
`

const helloF90 = `program hello
  use mpi
  implicit none
  integer :: ierr, rank, size, sum
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: v
  integer :: vlen
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  call MPI_Get_library_version(v, vlen, ierr)
  call MPI_Allreduce(rank, sum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(2a)', 'library: ', v(1:vlen)
  if (sum == size * (size - 1) / 2) print '(a,i0,a)', 'rank ', rank, ' OK'
  call MPI_Finalize(ierr)
end program hello
`

var libraryLine = regexp.MustCompile(`(?m)^library: (.*)$`)

// checkRun checks a job's output: hympi's library, every rank OK.
func checkRun(t *testing.T, out string, ranks int) {
	t.Helper()
	m := libraryLine.FindStringSubmatch(out)
	want := "hympi " + version.Release() + " (commit "
	if m == nil || !strings.HasPrefix(m[1], want) {
		t.Fatalf("not hympi's library (want %q):\n%s", want, out)
	}
	for r := 0; r < ranks; r++ {
		if !strings.Contains(out, fmt.Sprintf("rank %d OK\n", r)) {
			t.Fatalf("rank %d did not report OK:\n%s", r, out)
		}
	}
}

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
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

// TestLayout: every file and name the issue lists, links relative (so the
// tree moves), nothing pointing back at the build tree.
func TestLayout(t *testing.T) {
	links := map[string]string{
		"bin/mpicc": "hympicc", "bin/mpicxx": "hympicxx", "bin/mpic++": "hympicxx", "bin/mpiCC": "hympicxx",
		"bin/hympic++": "hympicxx", "bin/mpifort": "hympifort", "bin/mpif90": "hympifort", "bin/mpif77": "hympifort",
		"bin/mpirun": "hympirun", "bin/mpiexec": "hympirun",
		"lib/libmpi_abi.so": "libmpi_abi.so.1", "lib/libmpi.so": "libmpi_abi.so.1",
	}
	for l, want := range links {
		got, err := os.Readlink(filepath.Join(prefix, l))
		if err != nil || got != want {
			t.Errorf("%s -> %q (%v), want -> %s", l, got, err, want)
		}
	}
	files := []string{"bin/hympirun", "bin/hympicc", "bin/hympicxx", "bin/hympifort", "bin/hympi-info",
		"include/mpi.h", "lib/libmpi_abi.so.1",
		"share/man/man1/hympicc.1", "share/man/man1/hympicxx.1", "share/man/man1/hympifort.1",
		"share/man/man1/hympirun.1", "share/man/man1/hympi-info.1", "share/man/man1/mpicc.1", "share/man/man1/mpirun.1"}
	for _, pc := range []string{"hympi", "mpi", "mpi-c", "mpi-cxx", "mpi-fort", "ompi-c"} {
		files = append(files, "lib/pkgconfig/"+pc+".pc")
	}
	for _, f := range files {
		st, err := os.Stat(filepath.Join(prefix, f))
		if err != nil || !st.Mode().IsRegular() {
			t.Errorf("%s: %v", f, err)
		}
	}
	// Installed files name neither the build tree nor the install prefix:
	// the tree is relocatable. (The library's soname is checked by ldd
	// below, when programs run.)
	for _, f := range []string{"lib/pkgconfig/mpi.pc", "lib/pkgconfig/mpi-fort.pc"} {
		b, _ := os.ReadFile(filepath.Join(prefix, f))
		if bytes.Contains(b, []byte(builtFor)) || !bytes.Contains(b, []byte("${pcfiledir}")) {
			t.Errorf("%s is not relocatable:\n%s", f, b)
		}
	}
}

// TestPrefixAndDestdir: PREFIX defaults to /usr/local, and DESTDIR keeps
// the install out of PREFIX itself.
func TestPrefixAndDestdir(t *testing.T) {
	root, _ := filepath.Abs("../../..")
	out := sh(t, "", cleanEnv(), "make", "-C", root, "-n", "install")
	if !strings.Contains(out, "/usr/local/bin") || !strings.Contains(out, "/usr/local/lib/pkgconfig") {
		t.Errorf("make -n install does not install into /usr/local:\n%s", out)
	}
	if _, err := os.Stat(builtFor); err == nil {
		t.Errorf("make install DESTDIR=... wrote into PREFIX=%s itself", builtFor)
	}
}

// TestUninstall: make uninstall removes every file install made.
func TestUninstall(t *testing.T) {
	root, _ := filepath.Abs("../../..")
	destdir := t.TempDir()
	if err := exec.Command("cp", "-a", filepath.Dir(stage), destdir+"/").Run(); err != nil {
		t.Fatal(err)
	}
	sh(t, "", cleanEnv(), "make", "-C", root, "uninstall", "PREFIX="+builtFor, "DESTDIR="+destdir)
	var left []string
	filepath.Walk(destdir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			left = append(left, p)
		}
		return nil
	})
	if len(left) > 0 {
		t.Fatalf("make uninstall left %q", left)
	}
}

// TestWrappersAndLauncher: the installed mpicc and mpicxx build C and C++
// programs that the installed mpirun and mpiexec run, from the moved tree,
// with CC/CXX naming the wrappers as `make CC=mpicc` users have them.
func TestWrappersAndLauncher(t *testing.T) {
	d := t.TempDir()
	write(t, filepath.Join(d, "hello.c"), helloC)
	write(t, filepath.Join(d, "hello.cpp"), helloCXX)
	env := userEnv("CC=mpicc", "CXX=mpicxx")
	tests := []struct {
		wrapper, src, launcher string
	}{
		{"mpicc", "hello.c", "mpirun"},
		{"mpicxx", "hello.cpp", "mpiexec"},
		{"hympic++", "hello.cpp", "hympirun"},
	}
	for _, tc := range tests {
		t.Run(tc.wrapper, func(t *testing.T) {
			show := sh(t, d, env, tc.wrapper, "--showme:incdirs")
			if strings.TrimSpace(show) != filepath.Join(prefix, "include") {
				t.Fatalf("%s finds its headers in %q, want %s", tc.wrapper, show, filepath.Join(prefix, "include"))
			}
			exe := filepath.Join(d, tc.wrapper+".exe")
			sh(t, d, env, tc.wrapper, tc.src, "-o", exe)
			checkRun(t, sh(t, d, env, tc.launcher, "-n", "2", exe), 2)
		})
	}
	t.Run("mpifort", func(t *testing.T) {
		need(t, "gfortran")
		if !fortranBuilt() {
			t.Skip("the Fortran bindings are not built (make fortran); mpifort is installed but has nothing to link")
		}
		write(t, filepath.Join(d, "hello.f90"), helloF90)
		exe := filepath.Join(d, "hellof")
		sh(t, d, env, "mpifort", "hello.f90", "-o", exe)
		checkRun(t, sh(t, d, env, "mpirun", "-n", "2", exe), 2)
	})
}

// TestPkgConfig: the .pc files, read from the moved tree, give flags that
// build a working program with the plain compiler.
func TestPkgConfig(t *testing.T) {
	need(t, "pkg-config", "cc")
	d := t.TempDir()
	write(t, filepath.Join(d, "hello.c"), helloC)
	env := userEnv("PKG_CONFIG_PATH=" + filepath.Join(prefix, "lib", "pkgconfig"))
	for _, pc := range []string{"mpi", "mpi-c", "hympi", "ompi-c"} {
		t.Run(pc, func(t *testing.T) {
			flags := strings.Fields(sh(t, d, env, "pkg-config", "--cflags", "--libs", pc))
			// pkg-config does not clean ${pcfiledir}/../..; the compiler does.
			inc := ""
			for _, f := range flags {
				if dir, ok := strings.CutPrefix(f, "-I"); ok {
					inc = filepath.Clean(dir)
				}
			}
			if inc != filepath.Join(prefix, "include") {
				t.Fatalf("pkg-config %s: %q does not point at %s", pc, flags, prefix)
			}
			exe := filepath.Join(d, pc)
			sh(t, d, env, "cc", append([]string{"hello.c", "-o", exe}, flags...)...)
			checkRun(t, sh(t, d, env, "mpirun", "-n", "2", exe), 2)
		})
	}
}

// TestMakeCC: the autotools and plain-make idioms, `./configure CC=mpicc`
// (a minimal configure script of the kind autoconf writes: it checks that
// $CC links an MPI program) and `make CC=mpicc`.
func TestMakeCC(t *testing.T) {
	need(t, "make")
	d := t.TempDir()
	write(t, filepath.Join(d, "hello.c"), helloC)
	write(t, filepath.Join(d, "configure"), `#!/bin/sh
for a in "$@"; do case $a in CC=*) CC=${a#CC=};; esac; done
CC=${CC:-cc}
printf 'checking for MPI_Init with %s... ' "$CC"
printf '#include <mpi.h>\nint main(int c, char **v) { MPI_Init(&c, &v); return MPI_Finalize(); }\n' > conftest.c
if $CC conftest.c -o conftest; then echo yes; else echo no; exit 1; fi
rm -f conftest conftest.c
printf 'CC = %s\nhello: hello.c\n\t$(CC) -O2 -o $@ hello.c\n' "$CC" > Makefile
`)
	env := userEnv()
	out := sh(t, d, env, "./configure", "CC=mpicc")
	if !strings.Contains(out, "... yes") {
		t.Fatalf("configure:\n%s", out)
	}
	sh(t, d, env, "make")
	checkRun(t, sh(t, d, env, "mpiexec", "-n", "2", "./hello"), 2)
	os.Remove(filepath.Join(d, "hello"))
	sh(t, d, append(env, "CC=mpicc"), "make", "-e", "CC=mpicc")
	checkRun(t, sh(t, d, env, "mpirun", "-n", "2", "./hello"), 2)
}

// cmakeProject is a project as users write it: find_package(MPI), the
// imported targets, and a CTest that runs 2 ranks through the launcher
// FindMPI found.
func cmakeProject(fortran bool) string {
	langs, comps := "C CXX", "C CXX"
	fort := ""
	if fortran {
		langs, comps = "C CXX Fortran", "C CXX Fortran"
		fort = `add_executable(hellof hello.f90)
target_link_libraries(hellof MPI::MPI_Fortran)
add_test(NAME fortran COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 ${MPIEXEC_PREFLAGS} $<TARGET_FILE:hellof> ${MPIEXEC_POSTFLAGS})
set_tests_properties(fortran PROPERTIES PASS_REGULAR_EXPRESSION "rank 1 OK")
`
	}
	return `cmake_minimum_required(VERSION 3.10)
project(hello LANGUAGES ` + langs + `)
find_package(MPI REQUIRED COMPONENTS ` + comps + `)
file(WRITE ${CMAKE_BINARY_DIR}/found.txt "MPIEXEC_EXECUTABLE=${MPIEXEC_EXECUTABLE}\nMPI_C_COMPILER=${MPI_C_COMPILER}\nMPI_CXX_COMPILER=${MPI_CXX_COMPILER}\nMPI_C_INCLUDE_DIRS=${MPI_C_INCLUDE_DIRS}\n")
enable_testing()
add_executable(hello hello.c)
target_link_libraries(hello MPI::MPI_C)
add_executable(hellocxx hello.cpp)
target_link_libraries(hellocxx MPI::MPI_CXX)
add_test(NAME c COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 ${MPIEXEC_PREFLAGS} $<TARGET_FILE:hello> ${MPIEXEC_POSTFLAGS})
add_test(NAME cxx COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 ${MPIEXEC_PREFLAGS} $<TARGET_FILE:hellocxx> ${MPIEXEC_POSTFLAGS})
set_tests_properties(c cxx PROPERTIES PASS_REGULAR_EXPRESSION "rank 1 OK")
` + fort
}

// TestCMake: find_package(MPI) finds hympi for C and C++ (and Fortran when
// its bindings are built) with hympi's bin first on PATH, or with MPI_HOME
// naming the prefix, picks hympi's launcher as MPIEXEC_EXECUTABLE, and a
// CTest runs 2 ranks with it.
func TestCMake(t *testing.T) {
	need(t, "cmake", "ctest", "cc", "c++")
	fortran := fortranBuilt()
	if !fortran {
		t.Log("Fortran bindings not built (make fortran): CMake is checked for C and C++ only")
	}
	tests := []struct {
		name string
		env  []string
	}{
		{"PATH", userEnv()},
		{"MPI_HOME", cleanEnv("MPI_HOME=" + prefix)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := t.TempDir()
			write(t, filepath.Join(d, "CMakeLists.txt"), cmakeProject(fortran))
			write(t, filepath.Join(d, "hello.c"), helloC)
			write(t, filepath.Join(d, "hello.cpp"), helloCXX)
			write(t, filepath.Join(d, "hello.f90"), helloF90)
			b := filepath.Join(d, "build")
			sh(t, d, tc.env, "cmake", "-S", d, "-B", b)
			found, err := os.ReadFile(filepath.Join(b, "found.txt"))
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{
				"MPIEXEC_EXECUTABLE=" + filepath.Join(prefix, "bin", "mpiexec") + "\n",
				"MPI_C_COMPILER=" + filepath.Join(prefix, "bin", "mpicc") + "\n",
				"MPI_CXX_COMPILER=" + filepath.Join(prefix, "bin", "mpicxx") + "\n",
			} {
				if !strings.Contains(string(found), want) {
					t.Fatalf("FindMPI did not find hympi: want %q in\n%s", want, found)
				}
			}
			sh(t, d, tc.env, "cmake", "--build", b)
			out := sh(t, b, tc.env, "ctest", "--output-on-failure", "--timeout", "120")
			if !strings.Contains(out, "100% tests passed") {
				t.Fatalf("ctest:\n%s", out)
			}
			checkRun(t, sh(t, d, tc.env, filepath.Join(prefix, "bin", "mpiexec"), "-n", "2", filepath.Join(b, "hellocxx")), 2)
		})
	}
}

// TestCMakeCCIsTheWrapper: `CC=mpicc cmake` (issue 11's fork bomb) configures
// and builds: the wrapper skips CC naming itself.
func TestCMakeCCIsTheWrapper(t *testing.T) {
	need(t, "cmake", "cc")
	d := t.TempDir()
	write(t, filepath.Join(d, "CMakeLists.txt"), "cmake_minimum_required(VERSION 3.10)\nproject(hello LANGUAGES C)\nadd_executable(hello hello.c)\n")
	write(t, filepath.Join(d, "hello.c"), helloC)
	env := userEnv("CC=" + filepath.Join(prefix, "bin", "mpicc"))
	b := filepath.Join(d, "build")
	sh(t, d, env, "cmake", "-S", d, "-B", b)
	sh(t, d, env, "cmake", "--build", b)
	checkRun(t, sh(t, d, env, "mpirun", "-n", "2", filepath.Join(b, "hello")), 2)
}

// TestMeson: dependency('mpi') finds hympi, for C and C++, through
// pkg-config (Meson asks for Open MPI's ompi-c and ompi-cxx names).
func TestMeson(t *testing.T) {
	need(t, "meson", "ninja", "pkg-config", "cc", "c++")
	d := t.TempDir()
	write(t, filepath.Join(d, "meson.build"), `project('hello', 'c', 'cpp')
mpi_c = dependency('mpi', language: 'c')
mpi_cpp = dependency('mpi', language: 'cpp')
executable('hello', 'hello.c', dependencies: mpi_c)
executable('hellocxx', 'hello.cpp', dependencies: mpi_cpp)
`)
	write(t, filepath.Join(d, "hello.c"), helloC)
	write(t, filepath.Join(d, "hello.cpp"), helloCXX)
	env := userEnv("PKG_CONFIG_PATH=" + filepath.Join(prefix, "lib", "pkgconfig"))
	b := filepath.Join(d, "build")
	out := sh(t, d, env, "meson", "setup", b)
	if !strings.Contains(out, "found: YES "+version.Release()) {
		t.Fatalf("meson did not find hympi %s:\n%s", version.Release(), out)
	}
	sh(t, d, env, "ninja", "-C", b)
	for _, exe := range []string{"hello", "hellocxx"} {
		checkRun(t, sh(t, d, env, "mpirun", "-n", "2", filepath.Join(b, exe)), 2)
	}
}
