package ctests

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// classNames reads the error classes' names from mpi.h.
func classNames(t *testing.T) map[int]string {
	h, err := os.ReadFile("../include/mpi.h")
	if err != nil {
		t.Fatal(err)
	}
	names := map[int]string{0: "success", -1: "not an error code"}
	for _, m := range regexp.MustCompile(`(?m)^\s*(MPI_ERR_\w+)\s*=\s*(\d+),`).FindAllStringSubmatch(string(h), -1) {
		n, _ := strconv.Atoi(m[2])
		if _, ok := names[n]; !ok && m[1] != "MPI_ERR_LASTCODE" {
			names[n] = m[1]
		}
	}
	return names
}

// TestArgumentAttack calls every implemented function of the C ABI with
// bad arguments, one at a time (see attackgen_test.go), under an error
// handler that returns. A call must return, success or an error that went
// through the handler once: a crash, a hang or an error the handler did
// not see fails the test, naming the call. The program runs as one rank
// under hympirun; after a crash it starts again past the call that
// crashed, so one run reports every crash.
func TestArgumentAttack(t *testing.T) {
	src, cases, skipped, err := genAttack("..")
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	cfile := filepath.Join(work, "attack.c")
	if err := os.WriteFile(cfile, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(work, "attack")
	cmd := exec.Command(filepath.Join(dir, "hympicc"), "-O0", "-w", cfile, "-o", exe)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("hympicc attack.c: %v\n%s", err, out)
	}
	logf := filepath.Join(work, "attack.log")

	type death struct {
		i      int
		how    string
		output string
	}
	var deaths []death
	outcome := map[int]int{}      // case -> class
	unhandled := map[int]string{} // case -> how the handler was missed
	first, sane := 0, false
	for runs := 0; first < len(cases); runs++ {
		if runs > 60 {
			t.Fatalf("more than 60 crashes; stopping (first ones below)\n%v", deaths)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		c := exec.CommandContext(ctx, filepath.Join(dir, "hympirun"), "-n", "1", "--timeout", "4m", exe, logf, fmt.Sprint(first))
		out, runErr := c.CombinedOutput()
		cancel()
		last, hung, done := -1, -1, false
		f, err := os.Open(logf)
		if err != nil {
			t.Fatalf("attack wrote no log: %v\n%s", err, out)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fs := strings.Fields(sc.Text())
			switch {
			case len(fs) == 2 && fs[0] == "C":
				last, _ = strconv.Atoi(fs[1])
			case len(fs) == 5 && fs[0] == "R":
				i, _ := strconv.Atoi(fs[1])
				cl, _ := strconv.Atoi(fs[2])
				outcome[i] = cl
				calls, _ := strconv.Atoi(fs[3])
				if strings.HasPrefix(cases[i].fn, "T_") {
					// MPI_T returns its errors and never raises
					// them (MPI 4.1 §15.3.10).
					if calls != 0 {
						unhandled[i] = fmt.Sprintf("returned %d, and an MPI_T error ran the error handler %d times", cl, calls)
					}
				} else if (cl != 0) != (calls == 1) || cl != 0 && fs[4] != "1" {
					unhandled[i] = fmt.Sprintf("returned %d, the error handler ran %d times (same code: %s)", cl, calls, fs[4])
				}
			case len(fs) == 2 && fs[0] == "H":
				hung, _ = strconv.Atoi(fs[1])
			case len(fs) == 1 && fs[0] == "DONE":
				done = true
			case len(fs) == 1 && fs[0] == "SANE":
				sane = true
			}
		}
		f.Close()
		os.Remove(logf)
		if done && runErr == nil {
			if !sane {
				t.Errorf("after the attack, a message to self, an allreduce or a dup failed")
			}
			break
		}
		if last < first {
			t.Fatalf("attack died before its first call (%v):\n%s", runErr, out)
		}
		if _, returned := outcome[last]; returned && !done {
			// Died between calls: blame the call before, whose
			// damage showed late.
			deaths = append(deaths, death{last, fmt.Sprintf("died after returning (%v)", runErr), string(out)})
		} else if hung == last {
			deaths = append(deaths, death{last, "hang (no return in 20 s)", string(out)})
		} else if !done {
			deaths = append(deaths, death{last, fmt.Sprint(runErr), string(out)})
		} else {
			t.Errorf("attack finished but hympirun failed: %v\n%s", runErr, out)
			break
		}
		first = last + 1
	}

	// The tally.
	names := classNames(t)
	className := func(c int) string {
		if n, ok := names[c]; ok {
			return n
		}
		return fmt.Sprintf("class %d", c)
	}
	byClass := map[string]int{}
	after := map[string]int{}
	funcs := map[string]bool{}
	goodFail := 0
	for i, c := range cases {
		funcs[c.fn] = true
		cl, ok := outcome[i]
		if !ok {
			continue
		}
		if c.label == "after MPI_Finalize" {
			after[className(cl)]++
			continue
		}
		if c.label == "all good" {
			if cl != 0 {
				goodFail++
			}
			continue
		}
		byClass[className(cl)]++
	}
	var classes []string
	for k := range byClass {
		classes = append(classes, k)
	}
	sort.Slice(classes, func(a, b int) bool { return byClass[classes[a]] > byClass[classes[b]] })
	var b strings.Builder
	fmt.Fprintf(&b, "argument attack: %d functions, %d bad calls (+%d good ones, %d of which failed); %d crashed or hung\n",
		len(funcs), len(cases)-2*len(funcs), len(funcs), goodFail, len(deaths))
	for _, k := range classes {
		fmt.Fprintf(&b, "  %6d  %s\n", byClass[k], k)
	}
	fmt.Fprintf(&b, "  after MPI_Finalize, each function once with good arguments: %v\n", after)
	fmt.Fprintf(&b, "  skipped: %s\n", strings.Join(skipped, "; "))
	t.Log(b.String())
	if os.Getenv("HYMPI_ATTACK_VERBOSE") != "" {
		for i, c := range cases {
			fmt.Printf("%-28s %-24s %-28s %s\n", c.fn, c.param, c.label, className(outcome[i]))
		}
	}
	for i, how := range unhandled {
		c := cases[i]
		if strings.HasSuffix(c.fn, "_call_errhandler") || c.label == "after MPI_Finalize" {
			// Calling the handler is the first one's job; after
			// MPI_Finalize the good arguments themselves fail to be
			// made, through the handler.
			continue
		}
		t.Errorf("MPI_%s(%s = %s): %s", c.fn, c.param, c.label, how)
	}
	for _, d := range deaths {
		c := cases[d.i]
		out := d.output
		if len(out) > 1500 {
			out = out[:1500] + "..."
		}
		t.Errorf("MPI_%s(%s = %s): %s\n%s", c.fn, c.param, c.label, d.how, out)
	}
}
