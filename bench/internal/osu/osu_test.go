package osu

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

func TestParseRange(t *testing.T) {
	tests := []struct {
		in               string
		min, max         int // defaults passed in
		wantMin, wantMax int
		wantErr          bool
	}{
		{"4096", 0, 100, 0, 4096, false},
		{"8:4096", 0, 100, 8, 4096, false},
		{"8:", 0, 100, 8, 100, false},
		{":64", 1, 100, 1, 64, false},
		{"0:0", 1, 100, 0, 0, false},
		{"", 0, 100, 0, 100, false},
		{"64:8", 0, 100, 0, 0, true},
		{"-1:8", 0, 100, 0, 0, true},
		{"a:8", 0, 100, 0, 0, true},
		{"1:2:3", 0, 100, 0, 0, true},
		{"1k", 0, 100, 0, 0, true},
		{"4294967296", 0, 100, 0, 0, true},
	}
	for _, tt := range tests {
		gotMin, gotMax, err := ParseRange(tt.in, tt.min, tt.max)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseRange(%q) error = %v, want error %v", tt.in, err, tt.wantErr)
			continue
		}
		if err == nil && (gotMin != tt.wantMin || gotMax != tt.wantMax) {
			t.Errorf("ParseRange(%q) = %d:%d, want %d:%d", tt.in, gotMin, gotMax, tt.wantMin, tt.wantMax)
		}
	}
}

func TestSizes(t *testing.T) {
	tests := []struct {
		min, max int
		want     []int
	}{
		{0, 8, []int{0, 1, 2, 4, 8}},
		{1, 1, []int{1}},
		{0, 0, []int{0}},
		{3, 20, []int{3, 6, 12}},
		{1024, 4096, []int{1024, 2048, 4096}},
		{5, 4, nil},
	}
	for _, tt := range tests {
		if got := Sizes(tt.min, tt.max); !slices.Equal(got, tt.want) {
			t.Errorf("Sizes(%d, %d) = %v, want %v", tt.min, tt.max, got, tt.want)
		}
	}
}

func TestSchedule(t *testing.T) {
	tests := []struct {
		name      string
		s         Schedule
		size      int
		wantIters int
		wantSkip  int
	}{
		{"latency small", DefaultSchedule(Latency), 8192, 10000, 100},
		{"latency large", DefaultSchedule(Latency), 8193, 1000, 10},
		{"bw small", DefaultSchedule(Bandwidth), 1, 100, 10},
		{"bw large", DefaultSchedule(Bandwidth), 1 << 22, 20, 2},
		{"-i overrides large too", DefaultSchedule(Latency).Override(50, -1), 1 << 20, 50, 10},
		{"-x overrides small too", DefaultSchedule(Bandwidth).Override(-1, 0), 8, 100, 0},
	}
	for _, tt := range tests {
		iters, skip := tt.s.At(tt.size)
		if iters != tt.wantIters || skip != tt.wantSkip {
			t.Errorf("%s: At(%d) = %d, %d, want %d, %d", tt.name, tt.size, iters, skip, tt.wantIters, tt.wantSkip)
		}
	}
}

func TestMedian(t *testing.T) {
	tests := []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3}, 3},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{0.45, 9.8, 0.44, 0.46, 0.47}, 0.46},
	}
	for _, tt := range tests {
		in := slices.Clone(tt.in)
		if got := Median(in); got != tt.want {
			t.Errorf("Median(%v) = %v, want %v", tt.in, got, tt.want)
		}
		if !slices.Equal(in, tt.in) {
			t.Errorf("Median reordered its input: %v", in)
		}
	}
}

// TestWriteFormat pins OSU's byte layout: scripts written for OSU's output
// split on column positions, not only on whitespace.
func TestWriteFormat(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHeader(&b, "hympi osu_latency (Go)", Latency); err != nil {
		t.Fatal(err)
	}
	WriteRow(&b, 0, 0.4512)
	WriteRow(&b, 4194304, 1234.567)
	want := "# hympi osu_latency (Go)\n" +
		"# Size          Latency (us)\n" +
		"0                       0.45\n" +
		"4194304              1234.57\n"
	if b.String() != want {
		t.Errorf("latency output:\n%s\nwant:\n%s", b.String(), want)
	}

	b.Reset()
	WriteHeader(&b, "hympi osu_bw (Go)", Bandwidth)
	WriteRow(&b, 1024, 3776.17)
	want = "# hympi osu_bw (Go)\n" +
		"# Size      Bandwidth (MB/s)\n" +
		"1024                 3776.17\n"
	if b.String() != want {
		t.Errorf("bandwidth output:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestWriteRate pins osu_mbw_mr's layout, two value columns, and checks
// that Parse reads its first value column as bandwidth.
func TestWriteRate(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("# hympi osu_mbw_mr (Go)\n# [ pairs: 2 ] [ window size: 64 ]\n")
	if err := WriteColumns(&b, RateColumns...); err != nil {
		t.Fatal(err)
	}
	WriteRow(&b, 1, 6.125, 6125000)
	WriteRow(&b, 4194304, 12345.678, 2943.4)
	want := "# hympi osu_mbw_mr (Go)\n# [ pairs: 2 ] [ window size: 64 ]\n" +
		"# Size                  MB/s        Messages/s\n" +
		"1                       6.12        6125000.00\n" +
		"4194304             12345.68           2943.40\n"
	if b.String() != want {
		t.Errorf("mbw_mr output:\n%s\nwant:\n%s", b.String(), want)
	}
	res, err := Parse(strings.NewReader(want))
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != Bandwidth || res.Title != "hympi osu_mbw_mr (Go)" ||
		!slices.Equal(res.Rows, []Row{{1, 6.12}, {4194304, 12345.68}}) {
		t.Errorf("Parse = %+v", res)
	}
}

func TestWriteThenParse(t *testing.T) {
	for _, k := range []Kind{Latency, Bandwidth} {
		var b bytes.Buffer
		WriteHeader(&b, "round trip", k)
		in := []Row{{0, 0.25}, {1, 0.5}, {2, 12345.67}}
		for _, r := range in {
			WriteRow(&b, r.Size, r.Value)
		}
		res, err := Parse(&b)
		if err != nil {
			t.Fatalf("%v: %v", k, err)
		}
		if res.Kind != k || res.Title != "round trip" || !slices.Equal(res.Rows, in) {
			t.Errorf("%v: Parse = %+v", k, res)
		}
	}
}

func TestGoBench(t *testing.T) {
	var b bytes.Buffer
	err := WriteGoBenchConfig(&b, []Config{{"goos", "linux"}, {"hympi_direct", "auto"}})
	if err != nil {
		t.Fatal(err)
	}
	WriteGoBenchResult(&b, "OSUBandwidth", 1024, 6400, 270.5, Metric{3785.5, "MB/s"})
	want := "goos: linux\nhympi_direct: auto\n" +
		"BenchmarkOSUBandwidth/size=1024\t    6400\t       270.5 ns/op\t     3785.50 MB/s\n"
	if b.String() != want {
		t.Errorf("got:\n%q\nwant:\n%q", b.String(), want)
	}

	for _, bad := range []string{"", "Goos", "hympi direct", "hympiDirect", "1x"} {
		if err := WriteGoBenchConfig(&b, []Config{{bad, "v"}}); err == nil {
			t.Errorf("config key %q accepted", bad)
		}
	}
	if err := WriteGoBenchConfig(&b, []Config{{"k", "a\nb"}}); err == nil {
		t.Error("multi-line config value accepted")
	}
}

func FuzzParse(f *testing.F) {
	f.Add("# OSU MPI Latency Test v7.3\n# Size          Latency (us)\n0    0.21\n1  0.24\n")
	f.Add("# x\n# Size      Bandwidth (MB/s)\n1024  3776.17\nnoise\n")
	f.Add("[1,0]<stdout>:# Size Latency (us)\n[1,0]<stdout>:8 0.3\n")
	f.Fuzz(func(t *testing.T, in string) {
		res, err := Parse(strings.NewReader(in))
		if err != nil {
			return
		}
		if res.Kind != Latency && res.Kind != Bandwidth {
			t.Fatalf("Parse succeeded with kind %v", res.Kind)
		}
		if len(res.Rows) == 0 {
			t.Fatal("Parse succeeded with no rows")
		}
		for _, r := range res.Rows {
			if r.Size < 0 || r.Value != r.Value {
				t.Fatalf("bad row %+v", r)
			}
		}
	})
}

// TestParseSizeless reads OSU's barrier table, which has no size column,
// as rows of size 0, and keeps rejecting tables of two kinds.
func TestParseSizeless(t *testing.T) {
	out := "# OSU MPI Barrier Latency Test v5.8\n" +
		"# Avg Latency(us)   Min Latency(us)   Max Latency(us)  Iterations\n" +
		"             1.23              0.50              2.00        1000\n"
	res, err := Parse(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != Latency || len(res.Rows) != 1 || res.Rows[0] != (Row{0, 1.23}) {
		t.Errorf("got %+v", res)
	}
	mixed := out + "# Size      Bandwidth (MB/s)\n8 1.0\n"
	if _, err := Parse(strings.NewReader(mixed)); err == nil {
		t.Error("barrier table followed by a bandwidth table parsed")
	}
	if _, err := Parse(strings.NewReader("# Avg Latency(us)\n")); err == nil {
		t.Error("barrier header without rows parsed")
	}
}
