package main

import (
	"strings"
	"testing"
	"time"
)

// TestBadKnobs: a HYMPI_* value that does not parse, whether inherited or
// given with -x, stops hympirun before any rank starts, with a usage
// status and a message naming the variable and the value.
func TestBadKnobs(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		env  []string // hympirun's own environment
		x    []string // -x arguments
		name string   // the variable the message must name
		val  string
	}{
		{env: []string{"HYMPI_SHM_BUDGET=0"}, name: "HYMPI_SHM_BUDGET", val: "0"},
		{env: []string{"HYMPI_SHM_BUDGET=-1"}, name: "HYMPI_SHM_BUDGET", val: "-1"},
		{env: []string{"HYMPI_SHM_BUDGET=garbage"}, name: "HYMPI_SHM_BUDGET", val: "garbage"},
		{env: []string{"HYMPI_SHM_BUDGET=1e15"}, name: "HYMPI_SHM_BUDGET", val: "1e15"},
		{env: []string{"HYMPI_CELL_SIZE=0"}, name: "HYMPI_CELL_SIZE", val: "0"},
		{env: []string{"HYMPI_CELL_SIZE=-64"}, name: "HYMPI_CELL_SIZE", val: "-64"},
		{env: []string{"HYMPI_CELL_SIZE=xyz"}, name: "HYMPI_CELL_SIZE", val: "xyz"},
		{env: []string{"HYMPI_SKEW=maybe"}, name: "HYMPI_SKEW", val: "maybe"},
		{env: []string{"HYMPI_ASYNC_PROGRESS=yes"}, name: "HYMPI_ASYNC_PROGRESS", val: "yes"},
		{env: []string{"HYMPI_THRESHOLD=lots"}, name: "HYMPI_THRESHOLD", val: "lots"},
		{env: []string{"HYMPI_DIRECT=sometimes"}, name: "HYMPI_DIRECT", val: "sometimes"},
		{x: []string{"HYMPI_SKEW=maybe"}, name: "HYMPI_SKEW", val: "maybe"},
		// -x wins over the inherited value, as it does in the rank.
		{env: []string{"HYMPI_DIRECT=off"}, x: []string{"HYMPI_DIRECT=never"}, name: "HYMPI_DIRECT", val: "never"},
	} {
		args := []string{"-n", "2"}
		for _, x := range c.x {
			args = append(args, "-x", x)
		}
		// The rank would print a line if it ever started.
		args = append(args, "/bin/sh", "-c", "echo started")
		j := startJob(t, "", c.env, args...)
		j.wait(30 * time.Second)
		if j.code != exitUsage {
			t.Errorf("env %q -x %q: exit %d, want %d", c.env, c.x, j.code, exitUsage)
		}
		if out := j.outText(); out != "" {
			t.Errorf("env %q -x %q: a rank started: %q", c.env, c.x, out)
		}
		msg := j.errText()
		if !strings.HasPrefix(msg, "hympirun: ") || !strings.Contains(msg, c.name+`="`+c.val+`"`) {
			t.Errorf("env %q -x %q: stderr %q does not name %s=%q", c.env, c.x, msg, c.name, c.val)
		}
	}
}

// TestGoodKnobs: accepted spellings start the job, and the inherited bad
// value an -x overrides is not held against it.
func TestGoodKnobs(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ env, x []string }{
		{env: []string{"HYMPI_SHM_BUDGET=64M", "HYMPI_CELL_SIZE=8K", "HYMPI_SKEW=off", "HYMPI_ASYNC_PROGRESS=true"}},
		{env: []string{"HYMPI_SKEW=maybe"}, x: []string{"HYMPI_SKEW=on"}},
	} {
		args := []string{"-n", "2"}
		for _, x := range c.x {
			args = append(args, "-x", x)
		}
		j := startJob(t, "", c.env, append(args, "/bin/sh", "-c", "echo started")...)
		j.wait(30 * time.Second)
		if j.code != 0 || strings.Count(j.outText(), "started") != 2 {
			t.Errorf("env %q -x %q: exit %d, stdout %q, stderr %q", c.env, c.x, j.code, j.outText(), j.errText())
		}
	}
}
