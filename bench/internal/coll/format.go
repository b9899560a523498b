package coll

import (
	"fmt"
	"io"
	"strings"
)

// Column widths of OSU's collective tables (osu_util.c, print_preamble and
// print_stats with FIELD_WIDTH 18): the size left-aligned in 10, each value
// right-aligned in 18 with two decimals, the iteration count in 12; a
// sizeless row (osu_barrier, osu_ibarrier) starts with its first value
// right-aligned in 17.
const (
	sizeWidth     = 10
	valueWidth    = 18
	sizelessWidth = 17
	itersWidth    = 12
)

// Stats is one row of a blocking benchmark, in microseconds per call: the
// mean over ranks of each rank's average, and the smallest and largest rank
// average.
type Stats struct {
	Avg, Min, Max float64
	Iters         int
}

// NBCStats is one row of a non-blocking benchmark, in microseconds per
// iteration (averaged over ranks), as osu_ibarrier reports it.
type NBCStats struct {
	Overall  float64 // start + compute (with tests) + wait
	Compute  float64 // the compute phase
	Init     float64 // the start call (Ibarrier)
	Test     float64 // the Request.Test calls inside the compute phase
	Wait     float64 // Request.Wait after the compute phase
	PureComm float64 // start + wait with no compute: the blocking cost
	MinComm  float64 // smallest rank's PureComm
	MaxComm  float64 // largest rank's PureComm
	Iters    int
}

// Overlap is OSU's overlap percentage: the share of the pure communication
// time hidden behind the compute phase, max(0, 100 - (overall-compute)/pure*100).
func (s NBCStats) Overlap() float64 {
	if s.PureComm <= 0 {
		return 0
	}
	return max(0, 100-(s.Overall-s.Compute)/s.PureComm*100)
}

// Title is OSU's first header line for b, without "# ".
func Title(b Benchmark) string {
	if b.NonBlocking() {
		return "OSU MPI Non-blocking " + b.Title + " Latency Test"
	}
	return "OSU MPI " + b.Title + " Latency Test"
}

// WriteHeader writes the header of a blocking benchmark's table: OSU's
// title, a line saying what ran (info, e.g. "hympi osu_bcast (Go), 4
// ranks"), and the column line.
func WriteHeader(w io.Writer, b Benchmark, o Options, info string) error {
	var h strings.Builder
	fmt.Fprintf(&h, "# %s\n", Title(b))
	if info != "" {
		fmt.Fprintf(&h, "# %s\n", info)
	}
	if b.Sized {
		fmt.Fprintf(&h, "%-*s%*s", sizeWidth, "# Size", valueWidth, "Avg Latency(us)")
	} else {
		fmt.Fprintf(&h, "%-*s", sizelessWidth, "# Avg Latency(us)")
	}
	if o.Full {
		fmt.Fprintf(&h, "%*s%*s%*s", valueWidth, "Min Latency(us)", valueWidth, "Max Latency(us)", itersWidth, "Iterations")
	}
	h.WriteByte('\n')
	_, err := io.WriteString(w, h.String())
	return err
}

// WriteRow writes one row of a blocking benchmark.
func WriteRow(w io.Writer, b Benchmark, o Options, size int, s Stats) error {
	var r strings.Builder
	if b.Sized {
		fmt.Fprintf(&r, "%-*d%*.2f", sizeWidth, size, valueWidth, s.Avg)
	} else {
		fmt.Fprintf(&r, "%*.2f", sizelessWidth, s.Avg)
	}
	if o.Full {
		fmt.Fprintf(&r, "%*.2f%*.2f%*d", valueWidth, s.Min, valueWidth, s.Max, itersWidth, s.Iters)
	}
	r.WriteByte('\n')
	_, err := io.WriteString(w, r.String())
	return err
}

// WriteNBCHeader writes the header of a non-blocking benchmark's table, as
// OSU's print_preamble_nbc does.
func WriteNBCHeader(w io.Writer, b Benchmark, o Options, info string) error {
	var h strings.Builder
	fmt.Fprintf(&h, "# %s\n", Title(b))
	if info != "" {
		fmt.Fprintf(&h, "# %s\n", info)
	}
	h.WriteString("# Overall = Coll. Init + Compute + MPI_Test + MPI_Wait\n\n")
	if b.Sized {
		fmt.Fprintf(&h, "%-*s%*s", sizeWidth, "# Size", valueWidth, "Overall(us)")
	} else {
		fmt.Fprintf(&h, "%*s", sizelessWidth, "# Overall(us)")
	}
	cols := []string{"Compute(us)", "Pure Comm.(us)", "Overlap(%)"}
	if o.Full {
		cols = []string{"Compute(us)", "Coll. Init(us)", "MPI_Test(us)", "MPI_Wait(us)",
			"Pure Comm.(us)", "Min Comm.(us)", "Max Comm.(us)", "Overlap(%)"}
	}
	for _, c := range cols {
		fmt.Fprintf(&h, "%*s", valueWidth, c)
	}
	h.WriteByte('\n')
	_, err := io.WriteString(w, h.String())
	return err
}

// WriteNBCRow writes one row of a non-blocking benchmark.
func WriteNBCRow(w io.Writer, b Benchmark, o Options, size int, s NBCStats) error {
	var r strings.Builder
	if b.Sized {
		fmt.Fprintf(&r, "%-*d%*.2f", sizeWidth, size, valueWidth, s.Overall)
	} else {
		fmt.Fprintf(&r, "%*.2f", sizelessWidth, s.Overall)
	}
	vals := []float64{s.Compute, s.PureComm, s.Overlap()}
	if o.Full {
		vals = []float64{s.Compute, s.Init, s.Test, s.Wait, s.PureComm, s.MinComm, s.MaxComm, s.Overlap()}
	}
	for _, v := range vals {
		fmt.Fprintf(&r, "%*.2f", valueWidth, v)
	}
	r.WriteByte('\n')
	_, err := io.WriteString(w, r.String())
	return err
}
