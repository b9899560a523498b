package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hympi/hympi/internal/sysfsfixture"
	"github.com/hympi/hympi/topology"
)

// TestPlanOnBigMachines: --do-not-launch --report-bindings on the
// generated two-socket machines (HYMPI_SYSFS): Open MPI's mapping and
// binding, reported in its words, and nothing started.
func TestPlanOnBigMachines(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	trees := map[string]string{}
	// Each machine's CPU at mask position (socket, core, thread): the
	// fixtures number first threads by socket, then second threads.
	numbering := map[string]func(s, c, th int) int{
		"epyc-2s-128c":     func(s, c, th int) int { return s*64 + c + th*128 },
		"epyc-2s-128c-smt": func(s, c, th int) int { return s*64 + c + th*128 },
		"xeon-2s-112c-smt": func(s, c, th int) int { return s*56 + c + th*112 },
	}
	for name, tree := range sysfsfixture.All() {
		root, err := tree.Write(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		trees[name] = root
	}
	type want struct {
		where string // the "bound to" part, or "" for not bound
		cpus  string // the CPUs the mask marks
	}
	for _, tc := range []struct {
		fixture string
		flags   []string
		n       int
		ranks   map[int]want
	}{
		{"epyc-2s-128c-smt", []string{"--map-by", "l3cache", "--bind-to", "l3cache"}, 3, map[int]want{
			0: {cores(0, 0, 7, "0-1"), "0-7,128-135"},
			1: {cores(0, 8, 15, "0-1"), "8-15,136-143"},
			2: {cores(0, 16, 23, "0-1"), "16-23,144-151"},
		}},
		// --bind-to defaults to the --map-by kind.
		{"epyc-2s-128c-smt", []string{"--map-by", "socket"}, 3, map[int]want{
			1: {cores(1, 0, 63, "0-1"), "64-127,192-255"},
			2: {cores(0, 0, 63, "0-1"), "0-63,128-191"},
		}},
		{"epyc-2s-128c-smt", []string{"--map-by", "numa", "--bind-to", "core"}, 9, map[int]want{
			0: {"socket 0[core 0[hwt 0-1]]", "0,128"},
			1: {"socket 0[core 16[hwt 0-1]]", "16,144"},
			4: {"socket 1[core 0[hwt 0-1]]", "64,192"},
			8: {"socket 0[core 1[hwt 0-1]]", "1,129"},
		}},
		{"epyc-2s-128c-smt", []string{"--map-by", "hwthread"}, 3, map[int]want{
			0: {"socket 0[core 0[hwt 0]]", "0"},
			1: {"socket 0[core 0[hwt 1]]", "128"},
			2: {"socket 0[core 1[hwt 0]]", "1"},
		}},
		{"epyc-2s-128c-smt", []string{"--map-by", "core", "--bind-to", "hwthread"}, 130, map[int]want{
			127: {"socket 1[core 63[hwt 0]]", "127"},
			128: {"socket 0[core 0[hwt 1]]", "128"},
			129: {"socket 0[core 1[hwt 1]]", "129"},
		}},
		{"epyc-2s-128c-smt", []string{"--map-by", "l3cache", "--bind-to", "none"}, 2, map[int]want{0: {}, 1: {}}},
		{"epyc-2s-128c", nil, 130, map[int]want{
			0:   {"socket 0[core 0[hwt 0]]", "0"},
			64:  {"socket 1[core 0[hwt 0]]", "64"},
			129: {"socket 0[core 1[hwt 0]]", "1"},
		}},
		{"epyc-2s-128c", []string{"--map-by", "l3cache", "--bind-to", "numa"}, 17, map[int]want{
			1:  {cores(0, 0, 15, "0"), "0-15"},
			2:  {cores(0, 16, 31, "0"), "16-31"},
			15: {cores(1, 48, 63, "0"), "112-127"},
			16: {cores(0, 0, 15, "0"), "0-15"},
		}},
		{"xeon-2s-112c-smt", []string{"--map-by", "package", "--bind-to", "numa"}, 2, map[int]want{
			0: {cores(0, 0, 55, "0-1"), "0-55,112-167"},
			1: {cores(1, 0, 55, "0-1"), "56-111,168-223"},
		}},
		{"xeon-2s-112c-smt", []string{"--map-by", "l3cache", "--bind-to", "core"}, 3, map[int]want{
			1: {"socket 1[core 0[hwt 0-1]]", "56,168"},
			2: {"socket 0[core 1[hwt 0-1]]", "1,113"},
		}},
	} {
		t.Run(tc.fixture+" "+strings.Join(tc.flags, " "), func(t *testing.T) {
			t.Parallel()
			a := append([]string{"--do-not-launch", "--report-bindings", "-n", strconv.Itoa(tc.n)}, tc.flags...)
			j := startJob(t, "", []string{topology.EnvSysfs + "=" + trees[tc.fixture]}, append(a, sh("echo started")...)...)
			j.wait(30 * time.Second)
			j.expect(0, "")
			if out := j.outText(); out != "" {
				t.Errorf("--do-not-launch started ranks: stdout %q", out)
			}
			line := regexp.MustCompile(fmt.Sprintf(`^\[[^:\]]+:%d\] MCW rank (\d+) (.*)$`, j.cmd.Process.Pid))
			bound := regexp.MustCompile(`^bound to (.*): ((?:\[[B./]+\])+)$`)
			seen := map[int]bool{}
			for _, l := range strings.Split(strings.TrimSpace(j.errText()), "\n") {
				m := line.FindStringSubmatch(l)
				if m == nil {
					t.Errorf("stderr line %q is not a binding report", l)
					continue
				}
				r, _ := strconv.Atoi(m[1])
				seen[r] = true
				w, ok := tc.ranks[r]
				if !ok {
					continue
				}
				if w.where == "" {
					if m[2] != "is not bound (or bound to all available processors)" {
						t.Errorf("rank %d: %q, want not bound", r, m[2])
					}
					continue
				}
				b := bound.FindStringSubmatch(m[2])
				if b == nil {
					t.Errorf("rank %d: %q is not Open MPI's form", r, m[2])
					continue
				}
				if b[1] != w.where {
					t.Errorf("rank %d bound to %q, want %q", r, b[1], w.where)
				}
				if got := maskCPUs(b[2], numbering[tc.fixture]); got != w.cpus {
					t.Errorf("rank %d: mask marks cpus %s, want %s", r, got, w.cpus)
				}
			}
			if len(seen) != tc.n {
				t.Errorf("%d ranks reported, want %d", len(seen), tc.n)
			}
		})
	}
}

// cores is Open MPI's list of the cores lo..hi of a socket with the given
// threads: "socket 0[core 0[hwt 0-1]], socket 0[core 1[hwt 0-1]], ...".
func cores(socket, lo, hi int, hwt string) string {
	var parts []string
	for c := lo; c <= hi; c++ {
		parts = append(parts, fmt.Sprintf("socket %d[core %d[hwt %s]]", socket, c, hwt))
	}
	return strings.Join(parts, ", ")
}

// maskCPUs decodes a --report-bindings mask ("[B./..][../..]") into the
// CPUs it marks, by the fixture's numbering.
func maskCPUs(mask string, cpu func(s, c, th int) int) string {
	var cpus []int
	sockets := strings.Split(strings.Trim(mask, "[]"), "][")
	for s, sock := range sockets {
		for c, core := range strings.Split(sock, "/") {
			for th, mark := range core {
				if mark == 'B' {
					cpus = append(cpus, cpu(s, c, th))
				}
			}
		}
	}
	slices.Sort(cpus)
	return topology.FormatCPUList(cpus)
}
