package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// The driver (make soak): without a launcher around it, soak -modes runs
// the job once per configuration below under hympirun and checks each run's
// result line.

// configs are the runs of a soak: every HYMPI_DIRECT mode, async progress,
// and the payload checksum.
var configs = []struct {
	name string
	env  []string
}{
	{"HYMPI_DIRECT=off HYMPI_CHECKSUM=1", []string{"HYMPI_DIRECT=off", "HYMPI_CHECKSUM=1"}},
	{"HYMPI_DIRECT=auto", []string{"HYMPI_DIRECT=auto"}},
	{"HYMPI_DIRECT=always HYMPI_CHECKSUM=1", []string{"HYMPI_DIRECT=always", "HYMPI_CHECKSUM=1"}},
	{"HYMPI_DIRECT=auto HYMPI_ASYNC_PROGRESS=1", []string{"HYMPI_DIRECT=auto", "HYMPI_ASYNC_PROGRESS=1"}},
}

// runModes runs every configuration for dur each and reports whether all
// passed. soakArgs are passed to each rank.
func runModes(hympirun string, ranks int, dur time.Duration, soakArgs []string, out io.Writer) bool {
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(out, "soak:", err)
		return false
	}
	ok := true
	for _, c := range configs {
		// A run ends at dur plus its last round; the rest is for a
		// loaded machine.
		limit := dur*2 + 60*time.Second
		args := []string{"-n", fmt.Sprint(ranks), "--timeout", limit.String(), self, "-duration", dur.String()}
		cmd := exec.Command(hympirun, append(args, soakArgs...)...)
		cmd.Env = append(os.Environ(), c.env...)
		var buf bytes.Buffer
		cmd.Stdout, cmd.Stderr = &buf, &buf
		err := cmd.Run()
		line := ""
		for _, l := range strings.Split(buf.String(), "\n") {
			if strings.HasPrefix(l, "soak: ok:") {
				line = strings.TrimPrefix(l, "soak: ok: ")
			}
		}
		if err != nil || line == "" {
			ok = false
			fmt.Fprintf(out, "FAIL  %-42s %v\n%s", c.name, err, buf.String())
			continue
		}
		fmt.Fprintf(out, "ok    %-42s %s\n", c.name, line)
	}
	return ok
}
