package main

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hympi/hympi/internal/version"
	"github.com/hympi/hympi/topology"
)

func TestParseArgs(t *testing.T) {
	tuneDefault := defaultTuneSizes()
	for _, tc := range []struct {
		args []string
		want options // ignored when err is set
		err  string  // substring of the error; "" = success
	}{
		{args: nil, want: options{}},
		{args: []string{"-n", "4"}, want: options{n: 4}},
		{args: []string{"--n=4"}, want: options{n: 4}},
		{args: []string{"-np", "3", "--json"}, want: options{n: 3, json: true}},
		{args: []string{"-json", "-n", "1"}, want: options{n: 1, json: true}},
		{args: []string{"-n", "1024"}, want: options{n: 1024}},
		{args: []string{"--tune"}, want: options{tune: true, sizes: tuneDefault}},
		{args: []string{"--tune", "-sizes", "64K,4K,4096,1M"}, want: options{tune: true, sizes: []int{4096, 64 << 10, 1 << 20}}},
		{args: []string{"-tune", "--sizes=512"}, want: options{tune: true, sizes: []int{512}}},

		{args: []string{"-n", "0"}, err: "-n 0"},
		{args: []string{"-n", "-3"}, err: "-n -3"},
		{args: []string{"-n", "1025"}, err: "1..1024"},
		{args: []string{"-n", "four"}, err: "invalid value"},
		{args: []string{"-n"}, err: "needs an argument"},
		{args: []string{"--bogus"}, err: "not defined"},
		{args: []string{"extra"}, err: `unexpected argument "extra"`},
		{args: []string{"--json", "--tune"}, err: "cannot be combined"},
		{args: []string{"--tune", "-n", "2"}, err: "-n has no meaning"},
		{args: []string{"-sizes", "4K"}, err: "-sizes needs --tune"},
		{args: []string{"--tune", "-sizes", ""}, err: "empty size"},
		{args: []string{"--tune", "-sizes", "4K,,8K"}, err: "empty size"},
		{args: []string{"--tune", "-sizes", "4X"}, err: `size "4X"`},
		{args: []string{"--tune", "-sizes", "0"}, err: `size "0"`},
		{args: []string{"--tune", "-sizes", "1G"}, err: `size "1G"`},
	} {
		got, err := parseArgs(tc.args)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("parseArgs(%q): %v", tc.args, err)
		case tc.err == "" && !reflect.DeepEqual(*got, tc.want):
			t.Errorf("parseArgs(%q) = %+v, want %+v", tc.args, *got, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("parseArgs(%q): error %v, want one containing %q", tc.args, err, tc.err)
		}
	}
}

// TestUsage: a bad command line prints the error and the usage line on
// stderr, nothing on stdout, and exits 2; --help prints the help on stdout.
func TestUsage(t *testing.T) {
	hermetic(t, fixture(t, "onesocket-l3"))
	for _, args := range [][]string{{"--bogus"}, {"-n", "0"}, {"--json", "x"}, {"--tune", "--json"}, {"-sizes", "1K"},
		{"--version", "--json"}, {"--version", "x"}} {
		code, out, errs := runIn(t, args...)
		if code != exitUsage || out != "" || !strings.HasPrefix(errs, "hympi-info: ") || !strings.Contains(errs, usageLine) {
			t.Errorf("hympi-info %q: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
	for _, args := range [][]string{{"--help"}, {"-h"}, {"-help"}} {
		code, out, errs := runIn(t, args...)
		if code != exitOK || out != usage || errs != "" {
			t.Errorf("hympi-info %q: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
}

// TestDocExamples parses every example command line of the package doc
// (and the usage text's flags), so that the doc never shows a command line
// hympi-info refuses.
func TestDocExamples(t *testing.T) {
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	type example struct {
		env  []string // NAME=value prefixes
		args []string
	}
	var examples []example
	for _, l := range strings.Split(string(src), "\n") {
		line, ok := strings.CutPrefix(l, "//\t")
		if !ok {
			continue
		}
		var ex example
		f := strings.Fields(line)
		for len(f) > 0 && strings.Contains(f[0], "=") {
			ex.env, f = append(ex.env, f[0]), f[1:]
		}
		if len(f) > 0 && f[0] == "hympi-info" {
			ex.args = f[1:]
			examples = append(examples, ex)
		}
	}
	if len(examples) < 3 {
		t.Fatalf("found %d examples in the package doc", len(examples))
	}
	for _, ex := range examples {
		opts, err := parseArgs(ex.args)
		if errors.Is(err, errVersion) {
			continue // TestVersion runs --version
		}
		if err != nil {
			t.Errorf("package doc example %q: %v", ex.args, err)
			continue
		}
		if opts.tune {
			continue // TestTune runs --tune
		}
		// Run the others against a fixture (the example's own, with a
		// path relative to the repository root, else onesocket-l3).
		hermetic(t, fixture(t, "onesocket-l3"))
		for _, kv := range ex.env {
			name, value, _ := strings.Cut(kv, "=")
			if name == topology.EnvSysfs {
				value = filepath.Join("..", "..", value)
			}
			t.Setenv(name, value)
		}
		if code, _, errs := runIn(t, ex.args...); code != exitOK {
			t.Errorf("package doc example %q %q: exit %d, stderr %q", ex.env, ex.args, code, errs)
		}
	}
}

// TestVersion: --version (one dash or two) prints hympi's release and commit
// from internal/version on stdout and exits 0.
func TestVersion(t *testing.T) {
	hermetic(t, fixture(t, "onesocket-l3"))
	want := "hympi-info: " + version.String() + "\n"
	for _, args := range [][]string{{"--version"}, {"-version"}} {
		code, out, errs := runIn(t, args...)
		if code != exitOK || out != want || errs != "" {
			t.Errorf("hympi-info %q: exit %d, stdout %q (want %q), stderr %q", args, code, out, want, errs)
		}
	}
	if !strings.Contains(want, version.Release()) {
		t.Fatalf("%q lacks the release %q", want, version.Release())
	}
}
