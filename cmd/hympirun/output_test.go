package main

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestLineTagger(t *testing.T) {
	long := strings.Repeat("x", maxPartialLine)
	for _, tc := range []struct {
		name   string
		writes []string
		want   string
	}{
		{"nothing", nil, ""},
		{"empty write", []string{""}, ""},
		{"one line", []string{"a\n"}, "P a\n"},
		{"empty line", []string{"\n"}, "P \n"},
		{"lines in one write", []string{"a\nb\nc\n"}, "P a\nP b\nP c\n"},
		{"line across writes", []string{"ab", "c", "d\ne"}, "P abcd\nP e\n"},
		{"unterminated last line", []string{"a\nb"}, "P a\nP b\n"},
		{"overlong line is cut", []string{long, "yz\n"}, "P " + long + "\nP yz\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var dst bytes.Buffer
			l := &lineTagger{out: newOutput(nil, nil, &options{tag: tagOMPI}), dst: &dst, prefix: []byte("P ")}
			for _, w := range tc.writes {
				if n, err := l.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
			}
			l.flush()
			if got := dst.String(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestLineTaggerWholeLines: every write to the destination holds whole
// lines only, so writes from different ranks cannot split each other's.
func TestLineTaggerWholeLines(t *testing.T) {
	rec := &writeRecorder{}
	l := &lineTagger{out: newOutput(nil, nil, &options{tag: tagOMPI}), dst: rec, prefix: []byte("P ")}
	input := []byte(strings.Repeat("hello world\n", 1000))
	for len(input) > 0 {
		n := min(len(input), 7) // cut lines everywhere
		l.Write(input[:n])
		input = input[n:]
	}
	l.flush()
	for _, w := range rec.writes {
		if !strings.HasSuffix(w, "\n") || !strings.HasPrefix(w, "P ") {
			t.Fatalf("write %q is not made of whole tagged lines", w)
		}
	}
	if got := strings.Count(strings.Join(rec.writes, ""), "P hello world\n"); got != 1000 {
		t.Errorf("%d tagged lines, want 1000", got)
	}
}

type writeRecorder struct{ writes []string }

func (w *writeRecorder) Write(p []byte) (int, error) {
	w.writes = append(w.writes, string(p))
	return len(p), nil
}

func TestTagOutput(t *testing.T) {
	t.Parallel()
	j := runJob(t, 10*time.Second, "-n", "2", "--tag-output",
		"/bin/sh", "-c", `R=$HYMPI_RANK; echo out$R; echo err$R >&2; printf partial$R`)
	j.expect(0, "")
	got := j.outLines()
	sortByRank(got)
	want := []string{"[1,0]<stdout>:out0", "[1,0]<stdout>:partial0", "[1,1]<stdout>:out1", "[1,1]<stdout>:partial1"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("stdout:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	errs := strings.Split(strings.TrimSuffix(j.errText(), "\n"), "\n")
	sortByRank(errs)
	if want := "[1,0]<stderr>:err0\n[1,1]<stderr>:err1"; strings.Join(errs, "\n") != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", j.errText(), want)
	}
}

// TestTagOutputInterleaving: ranks writing many lines at once in big
// chunks; every line arrives whole, tagged with its own rank, in order.
func TestTagOutputInterleaving(t *testing.T) {
	t.Parallel()
	const n, lines = 3, 20000
	j := runJob(t, 20*time.Second, "-n", strconv.Itoa(n), "--tag-output",
		"/bin/sh", "-c", fmt.Sprintf(`seq 1 %d | sed "s/^/r$HYMPI_RANK-/"`, lines))
	j.expect(0, "")
	next := make([]int, n)
	re := regexp.MustCompile(`^\[1,(\d)\]<stdout>:r(\d)-(\d+)$`)
	for _, l := range j.outLines() {
		m := re.FindStringSubmatch(l)
		if m == nil || m[1] != m[2] {
			t.Fatalf("mangled or mistagged line %q", l)
		}
		r, _ := strconv.Atoi(m[1])
		i, _ := strconv.Atoi(m[3])
		if i != next[r]+1 {
			t.Fatalf("rank %d: line %d after line %d", r, i, next[r])
		}
		next[r] = i
	}
	for r, got := range next {
		if got != lines {
			t.Errorf("rank %d: %d lines, want %d", r, got, lines)
		}
	}
}

// TestUntaggedOutput: without --tag-output ranks write to hympirun's own
// stdout and stderr, unchanged.
func TestUntaggedOutput(t *testing.T) {
	t.Parallel()
	j := runJob(t, 10*time.Second, "-n", "2", "/bin/sh", "-c", `echo out$HYMPI_RANK; echo err$HYMPI_RANK >&2`)
	j.expect(0, "")
	out := j.outLines()
	sortByRank(out) // plain strings: sorts "out0" before "out1"
	if strings.Join(out, " ") != "out0 out1" {
		t.Errorf("stdout %q, want out0 and out1", out)
	}
	errs := strings.Fields(j.errText())
	sortByRank(errs)
	if strings.Join(errs, " ") != "err0 err1" {
		t.Errorf("stderr %q, want err0 and err1", j.errText())
	}
}

// TestTagOutputOrphanHoldsPipe: a rank's leftover child holding the output
// pipe open does not keep hympirun waiting beyond drainLimit.
func TestTagOutputOrphanHoldsPipe(t *testing.T) {
	t.Parallel()
	j := startJob(t, "", nil, "-n", "1", "--tag-output", "/bin/sh", "-c", `sleep 20 & echo bg $!; echo hi`)
	t.Cleanup(func() {
		for _, l := range j.outLines() {
			if p, ok := strings.CutPrefix(l, "[1,0]<stdout>:bg "); ok {
				if pid, err := strconv.Atoi(p); err == nil {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		}
	})
	j.wait(10 * time.Second)
	j.expect(0, "")
	if !slices.Contains(j.outLines(), "[1,0]<stdout>:hi") {
		t.Errorf("stdout %q, want the rank's line", j.outText())
	}
	if j.elapsed > drainLimit+stopLimit {
		t.Errorf("hympirun took %v, want at most %v", j.elapsed, drainLimit+stopLimit)
	}
}
