package main

import (
	"bufio"
	"os"
	"regexp"
	"strings"
	"testing"
)

// The standard-ABI signatures live in testdata/signatures.txt, one function
// a line: "name | return type | parameter type | ...", parameter names
// dropped and arrays written as pointers (C treats "int a[]" and "int *a"
// as the same parameter type). The list is independent of functions.txt so
// that an edit there that changes a type fails here instead of slipping
// into the generated mpi.h.

var (
	sigRE   = regexp.MustCompile(`^(.*?)\b(P?MPIX?_\w+)\((.*)\);$`)
	identRE = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
)

// paramType strips the parameter name from one C parameter declaration.
func paramType(p string) string {
	p = strings.TrimSpace(p)
	if p == "void" || p == "..." {
		return p
	}
	arrays := strings.Count(p, "[]")
	p = strings.ReplaceAll(p, "[]", "")
	// The name is the last identifier when the declaration has more than a
	// type ("const int" alone has no name, but the standard names every
	// parameter, so a declaration always ends in its name).
	locs := identRE.FindAllStringIndex(p, -1)
	if len(locs) >= 2 {
		last := locs[len(locs)-1]
		p = p[:last[0]] + p[last[1]:]
	}
	p = strings.ReplaceAll(p, "*", " * ")
	t := strings.Join(strings.Fields(p), " ")
	t = strings.ReplaceAll(t, " *", "*")
	t += strings.Repeat("*", arrays)
	return t
}

// signature normalises one prototype line to the list's form.
func signature(line string) (name, sig string, ok bool) {
	m := sigRE.FindStringSubmatch(strings.TrimSpace(line))
	if m == nil {
		return "", "", false
	}
	parts := []string{strings.TrimSpace(m[1])}
	for _, p := range strings.Split(m[3], ",") {
		parts = append(parts, paramType(p))
	}
	return m[2], strings.Join(parts, " | "), true
}

func readSignatures(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open("testdata/signatures.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		name, rest, ok := strings.Cut(l, " | ")
		if !ok {
			t.Fatalf("bad line %q", l)
		}
		if _, dup := want[name]; dup {
			t.Fatalf("%s listed twice", name)
		}
		want[name] = rest
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return want
}

func TestParamType(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"const void *buf", "const void*"},
		{"int count", "int"},
		{"const int array_of_dargs[]", "const int*"},
		{"MPI_Datarep_conversion_function_c *read_conversion_fn", "MPI_Datarep_conversion_function_c*"},
		{"char **argv[]", "char***"},
		{"void", "void"},
		{"...", "..."},
		{"const int level", "const int"},
	} {
		if got := paramType(c.in); got != c.want {
			t.Errorf("paramType(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestHeaderSignatures checks every MPI_ and PMPI_ prototype of the
// generated mpi.h against the standard's list: same set of functions, same
// return and parameter types.
func TestHeaderSignatures(t *testing.T) {
	want := readSignatures(t)
	f, err := os.Open("../include/mpi.h")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		name, sig, ok := signature(sc.Text())
		if !ok {
			continue
		}
		base := strings.TrimPrefix(name, "P")
		w, listed := want[base]
		if !listed {
			t.Errorf("mpi.h declares %s, which the standard ABI does not have", name)
			continue
		}
		if sig != w {
			t.Errorf("%s:\n got  %s\n want %s", name, sig, w)
		}
		seen[name] = true
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for name := range want {
		for _, n := range []string{name, "P" + name} {
			if !seen[n] {
				t.Errorf("mpi.h lacks %s", n)
			}
		}
	}
}
