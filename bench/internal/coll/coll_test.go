package coll

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/hympi/hympi/bench/internal/osu"
	"github.com/hympi/hympi/mpi"
)

var (
	bcast     = Benchmark{Name: "osu_bcast", Title: "Broadcast", Op: "Bcast", Sized: true}
	allreduce = Benchmark{Name: "osu_allreduce", Title: "Allreduce", Op: "Allreduce", Sized: true, Elem: 4}
	barrier   = Benchmark{Name: "osu_barrier", Title: "Barrier", Op: "Barrier"}
	ibarrier  = Benchmark{Name: "osu_ibarrier", Title: "Barrier", Op: "Ibarrier",
		PrepareNBC: func(*mpi.Comm, int) (Start, error) { return nil, nil }}
)

func TestParseOptions(t *testing.T) {
	def := DefaultSchedule()
	nbc := osu.Schedule{Iters: 100, Skip: 10, ItersLarge: 100, SkipLarge: 10}
	tests := []struct {
		name    string
		b       Benchmark
		args    []string
		want    Options
		wantErr string // substring; "" means success
	}{
		{"defaults", bcast, nil, Options{Min: 1, Max: 1 << 20, Sched: def, Reps: 1}, ""},
		{"range", bcast, []string{"-m", "8:65536"}, Options{Min: 8, Max: 65536, Sched: def, Reps: 1}, ""},
		{"max only", bcast, []string{"-m", "1024"}, Options{Min: 1, Max: 1024, Sched: def, Reps: 1}, ""},
		{"min only", bcast, []string{"-m", "512:"}, Options{Min: 512, Max: 1 << 20, Sched: def, Reps: 1}, ""},
		{"iterations", bcast, []string{"-i", "50", "-x", "0"},
			Options{Min: 1, Max: 1 << 20, Sched: osu.Schedule{Iters: 50, Skip: 0, ItersLarge: 50, SkipLarge: 0}, Reps: 1}, ""},
		{"full and reps", bcast, []string{"-f", "-reps", "3"}, Options{Min: 1, Max: 1 << 20, Sched: def, Full: true, Reps: 3}, ""},
		{"reduction starts at one float", allreduce, []string{"-m", "1:64"}, Options{Min: 4, Max: 64, Sched: def, Reps: 1}, ""},
		{"reduction below one float", allreduce, []string{"-m", "1:2"}, Options{}, "at least 4 bytes"},
		{"barrier ignores -m", barrier, []string{"-m", "1:2", "-i", "10"},
			Options{Min: 1, Max: 2, Sched: osu.Schedule{Iters: 10, Skip: 100, ItersLarge: 10, SkipLarge: 10}, Reps: 1}, ""},
		{"ibarrier schedule and tests", ibarrier, []string{"-t", "5"}, Options{Min: 1, Max: 1 << 20, Sched: nbc, Reps: 1, Probes: 5}, ""},
		{"-t only for non-blocking", bcast, []string{"-t", "5"}, Options{}, "usage error"},
		{"zero iterations", bcast, []string{"-i", "0"}, Options{}, "at least 1 iteration"},
		{"negative warm-up", bcast, []string{"-x", "-2"}, Options{}, "negative warm-up"},
		{"bad number", bcast, []string{"-i", "ten"}, Options{}, "usage error"},
		{"inverted range", bcast, []string{"-m", "64:8"}, Options{}, "usage error"},
		{"zero reps", bcast, []string{"-reps", "0"}, Options{}, "-reps 0"},
		{"negative tests", ibarrier, []string{"-t", "-1"}, Options{}, "negative number of tests"},
		{"stray argument", bcast, []string{"extra"}, Options{}, `unexpected argument "extra"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseOptions(tt.b, tt.args, io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
	if _, err := ParseOptions(bcast, []string{"-h"}, io.Discard); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: err = %v, want flag.ErrHelp", err)
	}
}

func TestSizes(t *testing.T) {
	o, err := ParseOptions(allreduce, []string{"-m", "1:64"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := o.Sizes(allreduce), []int{4, 8, 16, 32, 64}; !reflect.DeepEqual(got, want) {
		t.Errorf("allreduce sizes %v, want %v", got, want)
	}
	if got := o.Sizes(barrier); !reflect.DeepEqual(got, []int{0}) {
		t.Errorf("barrier sizes %v, want [0]", got)
	}
}

// TestFormat pins the output byte for byte: OSU's column widths, the
// sizeless barrier table, -f's extra columns and the non-blocking table.
func TestFormat(t *testing.T) {
	s := Stats{Avg: 1.234, Min: 0.5, Max: 2, Iters: 1000}
	nbc := NBCStats{Overall: 10, Compute: 8, Init: 0.25, Test: 0, Wait: 1.5, PureComm: 4, MinComm: 3.5, MaxComm: 4.5, Iters: 100}
	tests := []struct {
		name string
		b    Benchmark
		full bool
		size int
		want string
	}{
		{"sized", bcast, false, 1024,
			"# OSU MPI Broadcast Latency Test\n# info\n" +
				"# Size       Avg Latency(us)\n" +
				"1024                    1.23\n"},
		{"sized full", allreduce, true, 8,
			"# OSU MPI Allreduce Latency Test\n# info\n" +
				"# Size       Avg Latency(us)   Min Latency(us)   Max Latency(us)  Iterations\n" +
				"8                       1.23              0.50              2.00        1000\n"},
		{"sizeless", barrier, false, 0,
			"# OSU MPI Barrier Latency Test\n# info\n" +
				"# Avg Latency(us)\n" +
				"             1.23\n"},
		{"sizeless full", barrier, true, 0,
			"# OSU MPI Barrier Latency Test\n# info\n" +
				"# Avg Latency(us)   Min Latency(us)   Max Latency(us)  Iterations\n" +
				"             1.23              0.50              2.00        1000\n"},
		{"non-blocking", ibarrier, false, 0,
			"# OSU MPI Non-blocking Barrier Latency Test\n# info\n" +
				"# Overall = Coll. Init + Compute + MPI_Test + MPI_Wait\n\n" +
				"    # Overall(us)       Compute(us)    Pure Comm.(us)        Overlap(%)\n" +
				"            10.00              8.00              4.00             50.00\n"},
		{"non-blocking full", ibarrier, true, 0,
			"# OSU MPI Non-blocking Barrier Latency Test\n# info\n" +
				"# Overall = Coll. Init + Compute + MPI_Test + MPI_Wait\n\n" +
				"    # Overall(us)       Compute(us)    Coll. Init(us)      MPI_Test(us)      MPI_Wait(us)" +
				"    Pure Comm.(us)     Min Comm.(us)     Max Comm.(us)        Overlap(%)\n" +
				"            10.00              8.00              0.25              0.00              1.50" +
				"              4.00              3.50              4.50             50.00\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := Options{Full: tt.full}
			var buf bytes.Buffer
			if tt.b.NonBlocking() {
				if err := WriteNBCHeader(&buf, tt.b, o, "info"); err != nil {
					t.Fatal(err)
				}
				if err := WriteNBCRow(&buf, tt.b, o, tt.size, nbc); err != nil {
					t.Fatal(err)
				}
			} else {
				if err := WriteHeader(&buf, tt.b, o, "info"); err != nil {
					t.Fatal(err)
				}
				if err := WriteRow(&buf, tt.b, o, tt.size, s); err != nil {
					t.Fatal(err)
				}
			}
			if got := buf.String(); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
			// Blocking tables are what bench/cmd/osutable reads.
			if !tt.b.NonBlocking() {
				res, err := osu.Parse(strings.NewReader(buf.String()))
				if err != nil {
					t.Fatal(err)
				}
				if res.Kind != osu.Latency || len(res.Rows) != 1 || res.Rows[0].Size != tt.size || res.Rows[0].Value != 1.23 {
					t.Errorf("parsed back as %+v", res)
				}
			}
		})
	}
}

func TestOverlap(t *testing.T) {
	for _, tt := range []struct {
		s    NBCStats
		want float64
	}{
		{NBCStats{Overall: 10, Compute: 8, PureComm: 4}, 50},
		{NBCStats{Overall: 8, Compute: 8, PureComm: 4}, 100},
		{NBCStats{Overall: 20, Compute: 8, PureComm: 4}, 0}, // floored
		{NBCStats{Overall: 1, Compute: 1, PureComm: 0}, 0},  // nothing to hide
	} {
		if got := tt.s.Overlap(); got != tt.want {
			t.Errorf("%+v: overlap %v, want %v", tt.s, got, tt.want)
		}
	}
}

func TestMedianRow(t *testing.T) {
	rows := []NBCStats{{Overall: 3, PureComm: 1, Iters: 5}, {Overall: 1, PureComm: 9, Iters: 5}, {Overall: 2, PureComm: 2, Iters: 5}}
	got := medianRow(rows)
	if got.Overall != 2 || got.PureComm != 2 || got.Iters != 5 {
		t.Errorf("median row %+v", got)
	}
}

func TestNotImplemented(t *testing.T) {
	if !NotImplemented(&mpi.Error{Class: mpi.ErrOther, Op: "Bcast", Msg: "not implemented yet"}) {
		t.Error("placeholder error not recognised")
	}
	if NotImplemented(&mpi.Error{Class: mpi.ErrRoot, Op: "Bcast", Msg: "root 9 out of range"}) || NotImplemented(errors.New("not implemented")) {
		t.Error("other errors taken for the placeholder")
	}
}
