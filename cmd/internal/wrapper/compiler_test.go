package wrapper

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWrapperName(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"hympicc", true}, {"hympicxx", true}, {"hympic++", true}, {"hympifort", true},
		{"mpicc", true}, {"mpicxx", true}, {"mpic++", true}, {"mpiCC", true},
		{"mpifort", true}, {"mpif77", true}, {"mpif90", true},
		{"mpicc.openmpi", true}, {"mpicc.mpich", true}, {"mpicxx-4.1", true},
		{"opal_wrapper", true}, {"mpiicc", true}, {"mpigcc", true},
		{"cc", false}, {"gcc", false}, {"gcc-12", false}, {"clang++", false},
		{"x86_64-linux-gnu-gcc-12", false}, {"c99", false}, {"gfortran", false},
		{"ccache", false}, {"mpirun", false}, {"hympirun", false}, {"hympi-info", false},
	}
	for _, tc := range tests {
		if got := wrapperName.MatchString(tc.name); got != tc.want {
			t.Errorf("wrapperName(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestByContent: a renamed wrapper is recognised by what it is.
func TestByContent(t *testing.T) {
	d := t.TempDir()
	tests := []struct {
		name, body string
		want       bool
	}{
		{"script calling hympicc", "#!/bin/sh\nexec hympicc \"$@\"\n", true},
		{"script calling mpicc by path", "#!/bin/sh\nexec /usr/bin/mpicc.openmpi \"$@\"\n", true},
		{"script calling gcc", "#!/bin/sh\nexec gcc -std=c99 \"$@\"\n", false},
		{"script naming a file like a wrapper", "#!/bin/sh\nexec gcc -o mpicc_test \"$@\"\n", false},
		{"binary with our marker", "\x7fELF\x00\x00 junk " + marker + " more", true},
		{"other binary", "\x7fELF\x00\x00 junk hympicc mpicc", false},
		{"empty", "", false},
	}
	for i, tc := range tests {
		p := filepath.Join(d, "f"+string(rune('a'+i)))
		mkfile(t, p, tc.body)
		if got := byContent(p) != ""; got != tc.want {
			t.Errorf("%s: byContent = %q, want wrapper %v", tc.name, byContent(p), tc.want)
		}
	}
}

// TestChooseCompiler runs the selection over a PATH of fake compilers.
func TestChooseCompiler(t *testing.T) {
	d := t.TempDir()
	self := filepath.Join(d, "hympicc")
	mkfile(t, self, "\x7fELF "+marker)
	for _, name := range []string{"cc", "gcc", "mycc", "ccache"} {
		mkfile(t, filepath.Join(d, name), "\x7fELF a compiler")
	}
	mkfile(t, filepath.Join(d, "loop.sh"), "#!/bin/sh\nexec hympicc \"$@\"\n")
	mkfile(t, filepath.Join(d, "copy"), "\x7fELF "+marker)
	for _, link := range []struct{ name, to string }{{"mpicc", "hympicc"}, {"cc-link", "hympicc"}} {
		if err := os.Symlink(link.to, filepath.Join(d, link.name)); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", d)
	vars := []string{"HYMPICC_CC", "CC"}
	tests := []struct {
		name     string
		hcc, cc  string
		want     string // chosen argv, joined
		from     string
		skips    int
		wantErr  string
		defaults []string
	}{
		{"defaults", "", "", "cc", "default", 0, "", nil},
		{"CC", "", "mycc", "mycc", "CC", 0, "", nil},
		{"HYMPICC_CC first", "gcc", "mycc", "gcc", "HYMPICC_CC", 0, "", nil},
		{"CC with words", "", "ccache gcc -m64", "ccache gcc -m64", "CC", 0, "", nil},
		{"CC is self by path", "", self, "cc", "default", 1, "", nil},
		{"CC is self by name", "", "hympicc", "cc", "default", 1, "", nil},
		{"CC is a symlink to self, odd name", "", "cc-link", "cc", "default", 1, "", nil},
		{"CC is mpicc", "", "mpicc", "cc", "default", 1, "", nil},
		{"CC is a copy of a wrapper", "", "copy", "cc", "default", 1, "", nil},
		{"CC is a script calling a wrapper", "", "loop.sh", "cc", "default", 1, "", nil},
		{"CC runs a wrapper through ccache", "", "ccache mpicc", "cc", "default", 1, "", nil},
		{"both are wrappers", "mpicc", "hympicc", "cc", "default", 2, "", nil},
		{"missing CC", "", "nosuchcc", "", "", 0, `compiler "nosuchcc" from $CC`, nil},
		{"no default", "", "mpicc", "", "", 1, "no compiler found", []string{"nosuch", "cc-link"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("HYMPICC_CC", tc.hcc)
			t.Setenv("CC", tc.cc)
			defaults := tc.defaults
			if defaults == nil {
				defaults = []string{"nosuch", "cc", "gcc"}
			}
			c, skips, err := chooseCompiler(self, vars, defaults)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(c.argv, " "); got != tc.want || c.from != tc.from || len(skips) != tc.skips {
				t.Fatalf("chose %q from %s with skips %+v; want %q from %s with %d skips", got, c.from, skips, tc.want, tc.from, tc.skips)
			}
		})
	}
}
