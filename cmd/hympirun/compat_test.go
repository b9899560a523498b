package main

// Tests of what mpirun and mpiexec users type: MPMD, the rank variables of
// Open MPI, MPICH and PMIx, MPIEXEC_TIMEOUT, the output options, hosts,
// bindings reports, -wdir and --version. Each runs the real hympirun.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hympi/hympi/topology"
)

// TestMPMD: programs separated by ":" form one MPI_COMM_WORLD, ranks
// numbered in command-line order, each knowing its program's number.
func TestMPMD(t *testing.T) {
	t.Parallel()
	t.Run("shell", func(t *testing.T) {
		t.Parallel()
		j := runJob(t, 10*time.Second, "-n", "1", "/bin/sh", "-c", `echo "a $HYMPI_RANK/$HYMPI_SIZE $HYMPI_APPNUM $0"`, "first",
			":", "-np", "2", "/bin/sh", "-c", `echo "b $HYMPI_RANK/$HYMPI_SIZE $HYMPI_APPNUM $0"`, "second",
			":", "-c", "1", "/bin/echo", "c", "-n", "1")
		j.expect(0, "")
		got := j.outLines()
		slices.Sort(got)
		want := []string{"a 0/4 0 first", "b 1/4 1 second", "b 2/4 1 second", "c -n 1"}
		if !slices.Equal(got, want) {
			t.Errorf("stdout %q, want %q", got, want)
		}
	})
	t.Run("mpi", func(t *testing.T) {
		t.Parallel()
		bin, err := mpiprog()
		if err != nil {
			t.Fatal(err)
		}
		j := runJob(t, 30*time.Second, "-n", "1", bin, "appnum", ":", "-n", "2", bin, "appnum")
		j.expect(0, "")
		for _, want := range []string{"app 0 rank 0 of 3", "app 1 rank 1 of 3", "app 1 rank 2 of 3"} {
			if !slices.Contains(j.outLines(), want) {
				t.Errorf("no %q in the output", want)
			}
		}
	})
}

// TestRankVariables: the variables of Open MPI, MPICH and PMIx that scripts
// and libraries read, beside hympi's own.
func TestRankVariables(t *testing.T) {
	t.Parallel()
	vars := []string{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
		"OMPI_COMM_WORLD_LOCAL_SIZE", "OMPI_COMM_WORLD_NODE_RANK", "PMI_RANK", "PMI_SIZE", "PMIX_RANK",
		"MPI_LOCALRANKID", "MPI_LOCALNRANKS", "HYMPI_APPNUM", "A", "B"}
	script := "echo vars"
	for _, v := range vars {
		script += " ${" + v + "-unset}"
	}
	j := runJob(t, 10*time.Second, "-n", "3", "-genv", "A", "a a", "-env", "B", "b", "/bin/sh", "-c", script)
	j.expect(0, "")
	var got []string
	for _, l := range j.outLines() {
		got = append(got, l)
	}
	slices.Sort(got)
	var want []string
	for r := range 3 {
		want = append(want, fmt.Sprintf("vars %d 3 %d 3 %d %d 3 %d %d 3 0 a a b", r, r, r, r, r, r))
	}
	if !slices.Equal(got, want) {
		t.Errorf("stdout\n%s\nwant\n%s\n(variables: %v)", strings.Join(got, "\n"), strings.Join(want, "\n"), vars)
	}
}

// TestMPIEXECTimeoutJob: MPICH's variable stops the job as --timeout does.
func TestMPIEXECTimeoutJob(t *testing.T) {
	t.Parallel()
	j := startJob(t, "", []string{"MPIEXEC_TIMEOUT=1"}, args([]string{"-n", "2"}, sh(`exec sleep 30`))...)
	j.wait(20 * time.Second)
	j.expect(exitTimeout, "hympirun: job timed out after 1s")
}

// ctimeRE is ctime(3)'s date, as Open MPI stamps lines.
const ctimeRE = `[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}`

// TestOutputOptions: the line prefixes of Open MPI and MPICH, exactly.
func TestOutputOptions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		flags    []string
		out, err string // regexps for rank 0's lines
	}{
		{"tag-output", []string{"--tag-output"}, `^\[1,0\]<stdout>:out0$`, `^\[1,0\]<stderr>:err0$`},
		{"mpich -l", []string{"-l"}, `^\[0\] out0$`, `^\[0\] err0$`},
		{"prepend-rank", []string{"-prepend-rank"}, `^\[0\] out0$`, `^\[0\] err0$`},
		{"timestamp-output", []string{"--timestamp-output"}, `^` + ctimeRE + `<stdout>:out0$`, `^` + ctimeRE + `<stderr>:err0$`},
		{"tag and timestamp", []string{"-timestamp-output", "-tag-output"}, `^` + ctimeRE + `\[1,0\]<stdout>:out0$`, `^` + ctimeRE + `\[1,0\]<stderr>:err0$`},
		{"none", nil, `^out0$`, `^err0$`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			j := runJob(t, 10*time.Second, append(tc.flags, "-n", "2", "/bin/sh", "-c", `echo out$HYMPI_RANK; echo err$HYMPI_RANK >&2`)...)
			j.expect(0, "")
			check := func(what string, lines []string, re string) {
				n := 0
				for _, l := range lines {
					if regexp.MustCompile(re).MatchString(l) {
						n++
					}
				}
				if n != 1 || len(lines) != 2 {
					t.Errorf("%s %q: want 2 lines, one matching %s", what, lines, re)
				}
			}
			check("stdout", j.outLines(), tc.out)
			check("stderr", strings.Split(strings.TrimSpace(j.errText()), "\n"), tc.err)
		})
	}
}

// TestOutputFilename: Open MPI's layout, DIR/1/rank.N/{stdout,stderr}, N
// padded to the width of the rank count; the terminal still gets it all.
func TestOutputFilename(t *testing.T) {
	t.Parallel()
	for _, n := range []int{2, 10} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "out")
			j := runJob(t, 20*time.Second, "--output-filename", dir, "-n", strconv.Itoa(n),
				"/bin/sh", "-c", `echo out$HYMPI_RANK; echo err$HYMPI_RANK >&2`)
			j.expect(0, "")
			if got := len(j.outLines()); got != n {
				t.Errorf("%d lines on the terminal, want %d", got, n)
			}
			for r := range n {
				rdir := filepath.Join(dir, "1", fmt.Sprintf("rank.%0*d", len(strconv.Itoa(n)), r))
				for stream, want := range map[string]string{"stdout": fmt.Sprintf("out%d\n", r), "stderr": fmt.Sprintf("err%d\n", r)} {
					b, err := os.ReadFile(filepath.Join(rdir, stream))
					if err != nil || string(b) != want {
						t.Errorf("%s/%s: %q, %v; want %q", rdir, stream, b, err, want)
					}
				}
			}
		})
	}
}

// TestHosts: host lists and hostfiles naming this machine are accepted in
// both Open MPI's and MPICH's forms, and their slots bound
// --nooversubscribe.
func TestHosts(t *testing.T) {
	t.Parallel()
	host, _ := os.Hostname()
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ompi := file("ompi", "localhost slots=2 # this machine\n")
	mpich := file("mpich", "\n"+host+":2\n")
	other := file("other", "localhost slots=1\nnode17 slots=4\n")
	for _, tc := range []struct {
		flags []string
		code  int
		msg   string
	}{
		{[]string{"--hostfile", ompi, "--nooversubscribe"}, 0, ""},
		{[]string{"-f", mpich, "--nooversubscribe"}, 0, ""},
		{[]string{"-machinefile", mpich}, 0, ""},
		{[]string{"-H", "localhost:2", "--nooversubscribe"}, 0, ""},
		{[]string{"--host", host + ",127.0.0.1", "-nooversubscribe"}, 0, ""},
		{[]string{"-H", "localhost:1", "--nooversubscribe"}, exitUsage,
			"hympirun: there are not enough slots available in the system to satisfy the 2 slots that were requested by the application (1 slots given by -H or --hostfile); request fewer ranks, or allow more ranks than slots with --oversubscribe"},
		{[]string{"-H", "localhost:1", "--oversubscribe"}, 0, ""},
		{[]string{"-H", "localhost:1"}, 0, ""},
		{[]string{"--hostfile", other}, exitUsage, `hympirun: --hostfile ` + other + `: line 2: host "node17": hympi runs on one machine (this one, "` + host + `") and cannot start ranks elsewhere`},
	} {
		t.Run(strings.Join(tc.flags, " "), func(t *testing.T) {
			t.Parallel()
			j := runJob(t, 10*time.Second, append(tc.flags, "-n", "2", "/bin/true")...)
			j.expect(tc.code, tc.msg)
		})
	}
}

// TestNoOversubscribe: without hosts, the slots are the CPUs.
func TestNoOversubscribe(t *testing.T) {
	t.Parallel()
	ncpu := len(allowedCPUs(t))
	j := runJob(t, 10*time.Second, "--nooversubscribe", "-n", strconv.Itoa(ncpu), "/bin/true")
	j.expect(0, "")
	j = runJob(t, 10*time.Second, "--nooversubscribe", "-n", strconv.Itoa(ncpu+1), "/bin/true")
	j.expect(exitUsage, fmt.Sprintf("hympirun: there are not enough slots available in the system to satisfy the %d slots that were requested by the application (%d CPUs hympirun may use); request fewer ranks, or allow more ranks than slots with --oversubscribe", ncpu+1, ncpu))
}

// TestBindDomains: under --bind-to hwthread, core, l3cache, numa or socket
// each rank may run on every allowed CPU of its domain, HYMPI_CPU is the
// CPU it was mapped to (-1 when not bound), HYMPI_BIND the policy, and
// --report-bindings says so in Open MPI's form.
func TestBindDomains(t *testing.T) {
	t.Parallel()
	m, err := topology.Default()
	if err != nil {
		t.Skipf("no CPU topology: %v", err)
	}
	cpus := allowedCPUs(t)
	n := len(cpus) + 1
	for _, policy := range []string{"hwthread", "core", "l3cache", "numa", "socket", "none"} {
		for _, mapBy := range []string{"core", "socket"} {
			t.Run(policy+"/"+mapBy, func(t *testing.T) {
				t.Parallel()
				j := runJob(t, 10*time.Second, args([]string{"--bind-to", policy, "--map-by", mapBy, "--report-bindings", "-n", strconv.Itoa(n)},
					sh(`echo bind $R $HYMPI_CPU $(awk '/^Cpus_allowed_list/ {print $2}' /proc/$$/status) $HYMPI_BIND`))...)
				j.expect(0, "")
				mapped := topology.MapRanks(m, cpus, n, mapBy)
				seen := 0
				for _, l := range j.outLines() {
					var r int
					var env, mask, bind string
					if _, err := fmt.Sscanf(l, "bind %d %s %s %s", &r, &env, &mask, &bind); err != nil {
						continue
					}
					seen++
					if bind != policy {
						t.Errorf("rank %d: HYMPI_BIND=%s, want %s", r, bind, policy)
					}
					want := cpus
					if policy != "none" {
						want = nil
						for _, c := range m.Domain(mapped[r], policy) {
							if slices.Contains(cpus, c) {
								want = append(want, c)
							}
						}
					}
					wantEnv := "-1"
					if policy != "none" {
						wantEnv = strconv.Itoa(mapped[r])
					}
					if mask != topology.FormatCPUList(want) || env != wantEnv {
						t.Errorf("rank %d: HYMPI_CPU=%s, Cpus_allowed_list %s; want %s, %s", r, env, mask, wantEnv, topology.FormatCPUList(want))
					}
					report := regexp.MustCompile(fmt.Sprintf(`(?m)^\[[^:\]]+:%d\] MCW rank %d (.*)$`, j.cmd.Process.Pid, r)).FindStringSubmatch(j.errText())
					switch {
					case report == nil:
						t.Errorf("rank %d: no binding report in %q", r, j.errText())
					case slices.Equal(want, cpus):
						if report[1] != "is not bound (or bound to all available processors)" {
							t.Errorf("rank %d: report %q, want not bound", r, report[1])
						}
					default:
						re := regexp.MustCompile(`^bound to (socket \d+\[core \d+\[hwt [\d,-]+\]\](, )?)+: (\[[B./]+\])+$`)
						if !re.MatchString(report[1]) || strings.Count(report[1], "B") != len(want) {
							t.Errorf("rank %d: report %q, want %d CPUs in Open MPI's form", r, report[1], len(want))
						}
					}
				}
				if seen != n {
					t.Errorf("%d ranks reported their binding, want %d", seen, n)
				}
			})
		}
	}
}

// TestWdir: ranks start in -wdir, where a relative program is found too.
func TestWdir(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "prog"), []byte("#!/bin/sh\necho in $(pwd)\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"-wdir", "--wdir", "-wd"} {
		j := runJob(t, 10*time.Second, flag, dir, "-n", "2", "./prog")
		j.expect(0, "")
		if got := j.outLines(); len(got) != 2 || got[0] != "in "+dir || got[1] != got[0] {
			t.Errorf("%s: stdout %q, want \"in %s\" twice", flag, got, dir)
		}
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	for _, flag := range []string{"--version", "-version", "-V"} {
		j := runJob(t, 10*time.Second, flag)
		j.expect(0, "")
		if got := j.outText(); !strings.HasPrefix(got, "hympirun (hympi) ") || strings.Contains(got, "\n") {
			t.Errorf("%s: stdout %q, want one line naming hympi's version", flag, got)
		}
	}
}
