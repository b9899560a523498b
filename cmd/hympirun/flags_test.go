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
	t.Setenv("MPIEXEC_TIMEOUT", "")
	host, _ := os.Hostname()
	hostfile := filepath.Join(t.TempDir(), "hosts")
	if err := os.WriteFile(hostfile, []byte("# this machine\nlocalhost slots=3 max_slots=8\n\n127.0.0.1:2 # more\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := func(n int, prog string, args ...string) options {
		return options{apps: []app{{n: n, program: prog, args: append([]string{}, args...)}}, n: n,
			bind: bindCore, mapBy: bindCore, oversubscribe: true}
	}
	with := func(o options, f func(*options)) options { f(&o); return o }
	for _, tc := range []struct {
		args []string
		want options
	}{
		{[]string{"-n", "4", "prog"}, base(4, "prog")},
		{[]string{"-np", "2", "prog", "a", "-n", "9"}, base(2, "prog", "a", "-n", "9")},
		{[]string{"-c", "2", "prog"}, base(2, "prog")},
		{[]string{"--np=3", "prog"}, base(3, "prog")},
		{[]string{"--n=3", "--bind-to", "none", "--tag-output", "prog"}, with(base(3, "prog"), func(o *options) { o.bind, o.tag = bindNone, tagOMPI })},
		{[]string{"-np", "2", "-l", "prog"}, with(base(2, "prog"), func(o *options) { o.tag = tagMPICH })},
		{[]string{"-np", "2", "-timestamp-output", "--output-filename", "out", "prog"}, with(base(2, "prog"), func(o *options) { o.timestamp, o.outputDir = true, "out" })},
		{[]string{"-oversubscribe", "-np", "2", "prog"}, base(2, "prog")},
		{[]string{"--nooversubscribe", "-np", "2", "prog"}, with(base(2, "prog"), func(o *options) { o.oversubscribe = false })},
		{[]string{"-H", "localhost:4", "-np", "2", "prog"}, with(base(2, "prog"), func(o *options) { o.slots = 4 })},
		{[]string{"--host", "localhost,127.0.0.1," + host, "-np", "2", "prog"}, with(base(2, "prog"), func(o *options) { o.slots = 3 })},
		{[]string{"--hostfile", hostfile, "-np", "2", "prog"}, with(base(2, "prog"), func(o *options) { o.slots = 5 })},
		{[]string{"-f", hostfile, "-machinefile", hostfile, "-np", "2", "prog"}, with(base(2, "prog"), func(o *options) { o.slots = 10 })},
		{[]string{"--map-by", "socket", "--bind-to", "L3cache", "--report-bindings", "-np", "2", "prog"},
			with(base(2, "prog"), func(o *options) { o.mapBy, o.bind, o.reportBindings = bindSocket, bindL3, true })},
		{[]string{"--map-by", "slot", "-np", "2", "prog"}, with(base(2, "prog"), func(o *options) { o.mapBy = mapSlot })},
		{[]string{"--bind-to", "none", "--bind-to=hwthread", "-np", "2", "prog"}, with(base(2, "prog"), func(o *options) { o.bind = bindHWThread })},
		// Without --bind-to, ranks are bound to what they were mapped by
		// (Open MPI); slot binds to a core.
		{[]string{"--map-by", "l3cache", "-np", "2", "prog"}, with(base(2, "prog"), func(o *options) { o.mapBy, o.bind = bindL3, bindL3 })},
		{[]string{"--map-by", "NUMA", "-np", "2", "prog"}, with(base(2, "prog"), func(o *options) { o.mapBy, o.bind = bindNUMA, bindNUMA })},
		{[]string{"--map-by=package", "-np", "2", "prog"}, with(base(2, "prog"), func(o *options) { o.mapBy, o.bind = bindSocket, bindSocket })},
		{[]string{"--map-by", "hwthread", "-np", "2", "prog"}, with(base(2, "prog"), func(o *options) { o.mapBy, o.bind = bindHWThread, bindHWThread })},
		{[]string{"--bind-to", "package", "--map-by", "socket", "-np", "2", "prog"}, with(base(2, "prog"), func(o *options) { o.mapBy, o.bind = bindSocket, bindSocket })},
		{[]string{"--map-by", "socket", "--bind-to", "core", "-np", "2", "prog"}, with(base(2, "prog"), func(o *options) { o.mapBy, o.bind = bindSocket, bindCore })},
		{[]string{"--do-not-launch", "-np", "2", "prog"}, with(base(2, "prog"), func(o *options) { o.doNotLaunch = true })},
		{[]string{"-n", "1", "--timeout", "90s", "prog"}, with(base(1, "prog"), func(o *options) { o.timeout, o.timeoutSet = 90*time.Second, true })},
		{[]string{"-n", "1", "--timeout", "2.5", "prog"}, with(base(1, "prog"), func(o *options) { o.timeout, o.timeoutSet = 2500*time.Millisecond, true })},
		{[]string{"-n", "1", "-x", "A=1", "-x", "B=", "-x", "HYMPI_TEST_FWD", "-x", "HYMPI_TEST_NOT_SET", "-x", "C=x=y", "-genv", "D", "d v", "-env", "E", "", "-genvall", "prog"},
			with(base(1, "prog"), func(o *options) { o.env = []string{"A=1", "B=", "HYMPI_TEST_FWD=fwd", "C=x=y", "D=d v", "E="} })},
		{[]string{"-n", "1", "-wdir", "/tmp", "prog"}, with(base(1, "prog"), func(o *options) { o.wdir = "/tmp" })},
		{[]string{"-n", "1", "--wd=/tmp", "prog"}, with(base(1, "prog"), func(o *options) { o.wdir = "/tmp" })},
		{[]string{"-n", "2", "--", "-prog"}, base(2, "-prog")},
		{[]string{"-n", "1", "a", "x", ":", "-np", "3", "-x", "A=1", "b", ":", "-n", "2", "c", "-y"},
			options{apps: []app{{n: 1, program: "a", args: []string{"x"}}, {n: 3, program: "b", args: []string{}}, {n: 2, program: "c", args: []string{"-y"}}},
				n: 6, bind: bindCore, mapBy: bindCore, oversubscribe: true, env: []string{"A=1"}}},
	} {
		got, err := parseArgs(tc.args)
		if err != nil {
			t.Errorf("parseArgs(%q): %v", tc.args, err)
			continue
		}
		if !reflect.DeepEqual(*got, tc.want) {
			t.Errorf("parseArgs(%q) =\n%+v, want\n%+v", tc.args, *got, tc.want)
		}
	}
}

// TestMPIEXECTimeout: MPICH's variable sets the timeout unless --timeout
// does; a bad value is a usage error.
func TestMPIEXECTimeout(t *testing.T) {
	for _, tc := range []struct {
		env  string
		args []string
		want time.Duration
		err  string
	}{
		{"", nil, 0, ""},
		{"7", nil, 7 * time.Second, ""},
		{" 7 ", nil, 7 * time.Second, ""},
		{"0", nil, 0, ""},
		{"7", []string{"--timeout", "3s"}, 3 * time.Second, ""},
		{"soon", nil, 0, "MPIEXEC_TIMEOUT"},
		{"-1", nil, 0, "MPIEXEC_TIMEOUT"},
	} {
		t.Setenv("MPIEXEC_TIMEOUT", tc.env)
		o, err := parseArgs(append(tc.args, "-n", "1", "prog"))
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("MPIEXEC_TIMEOUT=%q %v: error %v, want one about %s", tc.env, tc.args, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("MPIEXEC_TIMEOUT=%q %v: %v", tc.env, tc.args, err)
		case tc.err == "" && o.timeout != tc.want:
			t.Errorf("MPIEXEC_TIMEOUT=%q %v: timeout %v, want %v", tc.env, tc.args, o.timeout, tc.want)
		}
	}
}

// usageCases are command lines hympirun must refuse before starting
// anything, with a piece of the message each must print.
var usageCases = []struct {
	args []string
	msg  string
}{
	{nil, "missing PROGRAM"},
	{[]string{"PROG"}, "missing -n"},
	{[]string{"-n", "0", "PROG"}, "-n 0: need at least one rank"},
	{[]string{"-n", "-3", "PROG"}, "need at least one rank"},
	{[]string{"-n", "many", "PROG"}, "-n many: want a number of ranks"},
	{[]string{"-n", "2"}, "missing PROGRAM"},
	{[]string{"-n", "1", "PROG", ":", "PROG"}, "missing -n"},
	{[]string{"-n", "1", "PROG", ":"}, "missing PROGRAM"},
	// Unknown options are named as typed.
	{[]string{"-n", "2", "--bogus", "PROG"}, `unknown option "--bogus"`},
	{[]string{"-n", "2", "-bogus", "PROG"}, `unknown option "-bogus"`},
	{[]string{"-n", "2", "--mca=btl", "PROG"}, `unknown option "--mca"`},
	{[]string{"--tag-output=yes", "-n", "2", "PROG"}, "--tag-output takes no value"},
	{[]string{"-n", "2", "--bind-to", "board", "PROG"}, `--bind-to board: want one of hwthread, core, l3cache, numa, socket, package, none`},
	{[]string{"-n", "2", "--map-by", "node", "PROG"}, `--map-by node: want one of`},
	{[]string{"-n", "2", "--timeout", "soon", "PROG"}, "want a duration"},
	{[]string{"-n", "2", "--timeout", "-1s", "PROG"}, "want a positive duration"},
	{[]string{"-n", "2", "--timeout", "0", "PROG"}, "want a positive duration"},
	{[]string{"-n", "2", "--timeout", "NaN", "PROG"}, "want a positive duration"},
	{[]string{"-n", "2", "--timeout", "1e300", "PROG"}, "want a positive duration"},
	{[]string{"-n", "2", "-x", "=v", "PROG"}, "want NAME=VALUE or NAME"},
	{[]string{"-n", "2", "-x"}, "-x needs a value"},
	{[]string{"-n", "2", "-genv", "A"}, "-genv needs two values"},
	{[]string{"-n", "2", "-H", "node17:4", "PROG"}, `host "node17": hympi runs on one machine`},
	{[]string{"-n", "2", "-H", "localhost:0", "PROG"}, "want a positive number"},
	{[]string{"-n", "2", "--hostfile", "/nonexistent/hosts", "PROG"}, "--hostfile /nonexistent/hosts: open"},
	{[]string{"-n", "2", "-wdir", "/nonexistent/dir", "PROG"}, "-wdir /nonexistent/dir: not a directory"},
	{[]string{"-n", "3", "--nooversubscribe", "-H", "localhost:2", "PROG"}, "not enough slots available in the system to satisfy the 3 slots"},
	{[]string{"-n", "2", "/nonexistent/hympi-prog"}, "/nonexistent/hympi-prog: program not found"},
	{[]string{"-n", "2", "hympi-no-such-program"}, "hympi-no-such-program: program not found in PATH"},
	{[]string{"-n", "2", "/tmp"}, "/tmp: is a directory"},
	{[]string{"-n", "1", "PROG", ":", "-n", "1", "NOEXEC"}, "NOEXEC: not executable"},
	{[]string{"-n", "1", "noexec"}, "noexec: NOEXEC is not executable"},
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
			noexec := filepath.Join(t.TempDir(), "noexec")
			if err := os.WriteFile(noexec, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			// One pass: the paths hold the test's name, and so the words.
			names := strings.NewReplacer("PROG", prog, "NOEXEC", noexec)
			a := make([]string, len(tc.args))
			for i, s := range tc.args {
				a[i] = names.Replace(s)
			}
			j := startJob(t, "", []string{"PATH=" + filepath.Dir(noexec) + ":" + os.Getenv("PATH")}, a...)
			j.wait(10 * time.Second)
			if j.code != exitUsage {
				t.Errorf("exit code %d, want %d", j.code, exitUsage)
			}
			msg := strings.ReplaceAll(tc.msg, "NOEXEC", noexec)
			if !strings.Contains(j.errText(), msg) {
				t.Errorf("stderr %q, want it to contain %q", j.errText(), msg)
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
			if !strings.HasPrefix(j.outText(), "usage: hympirun [OPTION]") || j.errText() != "" {
				t.Errorf("stdout %q, stderr %q; want the usage on stdout only", j.outText(), j.errText())
			}
		})
	}
}
