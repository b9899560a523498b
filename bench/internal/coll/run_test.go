package coll

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/hympi/hympi/bench/internal/osu"
	"github.com/hympi/hympi/mpi"
)

// TestRunSingleton drives the timed loops in this process, as a job of one
// rank (mpi.Init outside hympirun), with stand-in operations: a blocking
// call that sleeps, and a non-blocking start whose request is a send to
// ProcNull. It checks the rows that come out (sizes, the latency of the
// sleep, -reps medians) and the non-blocking arithmetic (compute about the
// pure time, overall at least compute), which no real collective can
// exercise until the placeholders are replaced.
func TestRunSingleton(t *testing.T) {
	if err := mpi.Init(); err != nil {
		t.Fatal(err)
	}
	defer mpi.Finalize()
	c := mpi.World()

	const nap = 200 * time.Microsecond
	sleeper := Benchmark{Name: "osu_nap", Title: "Nap", Op: "Nap", Sized: true,
		Prepare: func(*mpi.Comm, int) (Call, error) {
			return func(int) error { time.Sleep(nap); return nil }, nil
		}}
	var out bytes.Buffer
	o := Options{Min: 1, Max: 4, Sched: osu.Schedule{Iters: 5, Skip: 1, ItersLarge: 5, SkipLarge: 1}, Reps: 3, Full: true}
	r := runner{b: sleeper, c: c, o: o, out: &out}
	if err := r.run(); err != nil {
		t.Fatal(err)
	}
	res, err := osu.Parse(strings.NewReader(out.String()))
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if len(res.Rows) != 3 || !strings.Contains(out.String(), "median of 3 repetitions") {
		t.Errorf("rows %+v\n%s", res.Rows, out.String())
	}
	for _, row := range res.Rows {
		// A sleep lasts at least its duration; an idle machine wakes well
		// within 50 ms.
		if us := nap.Seconds() * 1e6; row.Value < us || row.Value > us+50e3 {
			t.Errorf("size %d: %v us for a %v sleep", row.Size, row.Value, nap)
		}
	}

	nbc := Benchmark{Name: "osu_inull", Title: "Null", Op: "Inull",
		PrepareNBC: func(c *mpi.Comm, _ int) (Start, error) {
			return func(int) (*mpi.Request, error) { return c.Isend(nil, mpi.ProcNull, 0) }, nil
		}}
	out.Reset()
	o = Options{Sched: osu.Schedule{Iters: 50, Skip: 5, ItersLarge: 50, SkipLarge: 5}, Reps: 1, Probes: 3, Full: true}
	r = runner{b: nbc, c: c, o: o, out: &out}
	sizes := o.Sizes(nbc)
	start, _ := nbc.PrepareNBC(c, 0)
	s, err := r.nonBlocking(start, sizes[0], 50, 5)
	if err != nil {
		t.Fatal(err)
	}
	if s.PureComm <= 0 || s.Compute < s.PureComm || s.Overall < s.Compute || s.Iters != 50 ||
		s.MinComm != s.PureComm || s.MaxComm != s.PureComm {
		t.Errorf("implausible non-blocking row %+v", s)
	}
	if err := r.run(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "# OSU MPI Non-blocking Null Latency Test\n# hympi osu_inull (Go), 1 ranks\n") {
		t.Errorf("header:\n%s", out.String())
	}
}
