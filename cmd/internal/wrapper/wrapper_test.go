package wrapper

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseArgs(t *testing.T) {
	tests := []struct {
		args    []string
		mode    mode
		rest    []string
		wantErr string
	}{
		{[]string{"-O2", "x.c"}, modeRun, []string{"-O2", "x.c"}, ""},
		{[]string{"--showme"}, modeShow, nil, ""},
		{[]string{"-showme", "x.c"}, modeShow, []string{"x.c"}, ""},
		{[]string{"-show", "-c", "x.c"}, modeShow, []string{"-c", "x.c"}, ""},
		{[]string{"--show"}, modeShow, nil, ""},
		{[]string{"-showme:compile"}, modeCompile, nil, ""},
		{[]string{"--showme:compile"}, modeCompile, nil, ""},
		{[]string{"-showme:link"}, modeLink, nil, ""},
		{[]string{"--showme:link"}, modeLink, nil, ""},
		{[]string{"-compile_info"}, modeCompileInfo, nil, ""},
		{[]string{"-compile-info"}, modeCompileInfo, nil, ""},
		{[]string{"-link_info"}, modeLinkInfo, nil, ""},
		{[]string{"-link-info"}, modeLinkInfo, nil, ""},
		{[]string{"--showme:command"}, modeCommand, nil, ""},
		{[]string{"--showme:incdirs"}, modeIncdirs, nil, ""},
		{[]string{"-showme:libdirs"}, modeLibdirs, nil, ""},
		{[]string{"-showme:libs"}, modeLibs, nil, ""},
		{[]string{"--showme:version"}, modeShowVersion, nil, ""},
		{[]string{"--help"}, modeHelp, nil, ""},
		{[]string{"-help"}, modeHelp, nil, ""},
		{[]string{"--version"}, modeVersion, nil, ""},
		{[]string{"-version"}, modeVersion, nil, ""},
		// Compiler options that merely look alike go to the compiler.
		{[]string{"-v", "-shared", "-showmex", "--help=warnings"}, modeRun, []string{"-v", "-shared", "-showmex", "--help=warnings"}, ""},
		{[]string{"--showme:bogus"}, 0, nil, "unknown option --showme:bogus"},
		{[]string{"--showme:compile", "--showme:link"}, 0, nil, "cannot be combined"},
		{[]string{"-show", "-showme"}, modeShow, nil, ""},
	}
	for _, tc := range tests {
		m, rest, err := parseArgs(tc.args)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("parseArgs(%q): err %v, want %q", tc.args, err, tc.wantErr)
			}
			continue
		}
		if err != nil || m != tc.mode || !reflect.DeepEqual(rest, tc.rest) {
			t.Errorf("parseArgs(%q) = %v, %q, %v; want %v, %q", tc.args, m, rest, err, tc.mode, tc.rest)
		}
	}
}

func TestLinking(t *testing.T) {
	tests := []struct {
		args []string
		want bool
	}{
		{[]string{"x.c", "-o", "x"}, true},
		{[]string{"-c", "x.c"}, false},
		{[]string{"-S", "x.c"}, false},
		{[]string{"-E", "x.c"}, false},
		{[]string{"-M", "x.c"}, false},
		{[]string{"-MM", "x.c"}, false},
		{[]string{"-fsyntax-only", "x.c"}, false},
		{[]string{"-MD", "x.c"}, true}, // -MD writes dependencies and still compiles and links
		{[]string{"x.o", "-lm"}, true},
	}
	for _, tc := range tests {
		if got := linking(tc.args); got != tc.want {
			t.Errorf("linking(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
}

func TestShow(t *testing.T) {
	in := at("/opt/hympi")
	cc := choice{argv: []string{"gcc"}}
	tests := []struct {
		lang Lang
		m    mode
		rest []string
		want string
	}{
		{C, modeShow, []string{"x.c", "-o", "x"}, "gcc -I/opt/hympi/include x.c -o x -L/opt/hympi/lib -Wl,-rpath,/opt/hympi/lib -lmpi_abi"},
		{C, modeShow, []string{"-c", "x.c"}, "gcc -I/opt/hympi/include -c x.c"},
		{C, modeCompile, nil, "-I/opt/hympi/include"},
		{C, modeLink, nil, "-L/opt/hympi/lib -Wl,-rpath,/opt/hympi/lib -lmpi_abi"},
		{C, modeCompileInfo, nil, "gcc -I/opt/hympi/include -L/opt/hympi/lib -Wl,-rpath,/opt/hympi/lib -lmpi_abi"},
		{C, modeLinkInfo, nil, "gcc -I/opt/hympi/include -L/opt/hympi/lib -Wl,-rpath,/opt/hympi/lib -lmpi_abi"},
		{C, modeCommand, nil, "gcc"},
		{C, modeIncdirs, nil, "/opt/hympi/include"},
		{C, modeLibdirs, nil, "/opt/hympi/lib"},
		{C, modeLibs, nil, "mpi_abi"},
		{Fortran, modeLink, nil, "-L/opt/hympi/lib -Wl,-rpath,/opt/hympi/lib -lmpi_abi_fort -lmpi_abi"},
		{Fortran, modeLibs, nil, "mpi_abi_fort mpi_abi"},
		{CXX, modeShow, []string{"-c", "x.cpp"}, "gcc -I/opt/hympi/include -c x.cpp"},
	}
	for _, tc := range tests {
		got, ok := tc.lang.show(tc.m, in, cc, tc.rest)
		if !ok || got != tc.want {
			t.Errorf("%s mode %d %q: %q, %v; want %q", tc.lang.Name, tc.m, tc.rest, got, ok, tc.want)
		}
	}
	if _, ok := C.show(modeRun, in, cc, nil); ok {
		t.Error("modeRun answered as a query")
	}
	got, _ := C.show(modeIncdirs, at("/opt/my mpi"), cc, nil)
	if got != `"/opt/my mpi/include"` {
		t.Errorf("a path with a space: %s", got)
	}
}

func TestLocate(t *testing.T) {
	build := t.TempDir() // bin/ holds include/ and lib/
	mkfile(t, filepath.Join(build, "bin", "include", "mpi.h"), "")
	prefix := t.TempDir() // PREFIX/bin beside PREFIX/include
	mkfile(t, filepath.Join(prefix, "include", "mpi.h"), "")
	empty := t.TempDir()
	tests := []struct {
		name, home, self, want, wantErr string
	}{
		{"build tree", "", filepath.Join(build, "bin", "hympicc"), filepath.Join(build, "bin"), ""},
		{"installed", "", filepath.Join(prefix, "bin", "hympicc"), prefix, ""},
		{"HYMPI_HOME wins", prefix, filepath.Join(build, "bin", "hympicc"), prefix, ""},
		{"nothing", "", filepath.Join(empty, "bin", "hympicc"), "", "no include/mpi.h"},
		{"bad HYMPI_HOME", empty, filepath.Join(build, "bin", "hympicc"), "", "HYMPI_HOME=" + empty},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("HYMPI_HOME", tc.home)
			in, err := locate(tc.self)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || in.home != tc.want || in.lib != filepath.Join(tc.want, "lib") {
				t.Fatalf("locate = %+v, %v; want home %s", in, err, tc.want)
			}
		})
	}
}

func mkfile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
}
