package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseArgs(t *testing.T) {
	t.Setenv("HYMPI_TEST_FWD", "fwd")
	for _, tc := range []struct {
		args []string
		want options
	}{
		{[]string{"-n", "4", "prog"}, options{n: 4, bind: bindCore, program: "prog", args: []string{}}},
		{[]string{"-np", "2", "prog", "a", "-n", "9"}, options{n: 2, bind: bindCore, program: "prog", args: []string{"a", "-n", "9"}}},
		{[]string{"--n=3", "--bind-to", "none", "--tag-output", "prog"}, options{n: 3, bind: bindNone, tagOutput: true, program: "prog", args: []string{}}},
		{[]string{"-n", "1", "--timeout", "90s", "prog"}, options{n: 1, bind: bindCore, timeout: 90 * time.Second, program: "prog", args: []string{}}},
		{[]string{"-n", "1", "--timeout", "2.5", "prog"}, options{n: 1, bind: bindCore, timeout: 2500 * time.Millisecond, program: "prog", args: []string{}}},
		{[]string{"-n", "1", "-x", "A=1", "-x", "B=", "-x", "HYMPI_TEST_FWD", "-x", "HYMPI_TEST_NOT_SET", "-x", "C=x=y", "prog"},
			options{n: 1, bind: bindCore, env: []string{"A=1", "B=", "HYMPI_TEST_FWD=fwd", "C=x=y"}, program: "prog", args: []string{}}},
		{[]string{"-n", "2", "--", "-prog"}, options{n: 2, bind: bindCore, program: "-prog", args: []string{}}},
	} {
		got, err := parseArgs(tc.args)
		if err != nil {
			t.Errorf("parseArgs(%q): %v", tc.args, err)
			continue
		}
		if !reflect.DeepEqual(*got, tc.want) {
			t.Errorf("parseArgs(%q) = %+v, want %+v", tc.args, *got, tc.want)
		}
	}
}

// usageCases are command lines hympirun must refuse before starting
// anything, with a piece of the message each must print.
var usageCases = []struct {
	args []string
	msg  string
}{
	{nil, "missing -n"},
	{[]string{"PROG"}, "missing -n"},
	{[]string{"-n", "0", "PROG"}, "need at least one rank"},
	{[]string{"-n", "-3", "PROG"}, "need at least one rank"},
	{[]string{"-n", "many", "PROG"}, `invalid value "many" for flag -n`},
	{[]string{"-n", "2"}, "missing PROGRAM"},
	{[]string{"-n", "2", "--bogus", "PROG"}, "flag provided but not defined: -bogus"},
	{[]string{"-n", "2", "--bind-to", "socket", "PROG"}, `--bind-to "socket"`},
	{[]string{"-n", "2", "--timeout", "soon", "PROG"}, "want a duration"},
	{[]string{"-n", "2", "--timeout", "-1s", "PROG"}, "want a positive duration"},
	{[]string{"-n", "2", "--timeout", "0", "PROG"}, "want a positive duration"},
	{[]string{"-n", "2", "--timeout", "NaN", "PROG"}, "want a positive duration"},
	{[]string{"-n", "2", "--timeout", "1e300", "PROG"}, "want a positive duration"},
	{[]string{"-n", "2", "-x", "=v", "PROG"}, "want NAME=VALUE or NAME"},
	{[]string{"-n", "2", "-x"}, "flag needs an argument: -x"},
	{[]string{"-n", "2", "/nonexistent/hympi-prog"}, "program not found"},
	{[]string{"-n", "2", "hympi-no-such-program"}, "program not found"},
}

// TestUsageErrors runs each bad command line with a PROG that would leave a
// marker file, and checks the status, the message and that no marker
// appeared.
func TestUsageErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range usageCases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			marker := filepath.Join(t.TempDir(), "started")
			prog := filepath.Join(t.TempDir(), "prog")
			if err := os.WriteFile(prog, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			a := make([]string, len(tc.args))
			for i, s := range tc.args {
				a[i] = strings.ReplaceAll(s, "PROG", prog)
			}
			j := runJob(t, 10*time.Second, a...)
			if j.code != exitUsage {
				t.Errorf("exit code %d, want %d", j.code, exitUsage)
			}
			if !strings.Contains(j.errText(), tc.msg) {
				t.Errorf("stderr %q, want it to contain %q", j.errText(), tc.msg)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Errorf("a rank was started")
			}
			if len(j.outLines()) != 0 {
				t.Errorf("stdout %q, want nothing", j.outText())
			}
		})
	}
}

func TestHelp(t *testing.T) {
	t.Parallel()
	for _, flag := range []string{"--help", "-h", "-help"} {
		t.Run(flag, func(t *testing.T) {
			t.Parallel()
			j := runJob(t, 10*time.Second, flag)
			j.expect(0, "")
			if !strings.HasPrefix(j.outText(), "usage: hympirun -n N") || j.errText() != "" {
				t.Errorf("stdout %q, stderr %q; want the usage on stdout only", j.outText(), j.errText())
			}
		})
	}
}
