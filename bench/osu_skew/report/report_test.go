package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	rows := []Row{
		{S: 65536, N: 16, C1: 1, C2: 0, Producer: 113.09, TwoCopy: 99.08, Direct: 152.31,
			Isend: 4.728, Recv: 9.055, Waitall: 7.43, Eager: 224, DirectMsgs: 150, Raises: 11, Lowers: 10, Threshold: 65536},
		{S: 1 << 20, N: 16, C1: 0.5, C2: 12.5, Producer: 2810.2, TwoCopy: 1353.28, Direct: 4304.6,
			Isend: 25.853, Recv: 111.31, Waitall: 923.64, Eager: 150, DirectMsgs: 224, Raises: 10, Lowers: 32, Threshold: 262144},
	}
	var b bytes.Buffer
	b.WriteString("# hympi osu_skew (Go)\nlauncher noise 1 2 3\n")
	if err := WriteColumns(&b); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if err := WriteRow(&b, r); err != nil {
			t.Fatal(err)
		}
	}
	b.WriteString("osu_skew: a warning\n")
	got, err := Parse(&b)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, rows) {
		t.Errorf("Parse = %+v\nwant %+v", got, rows)
	}
}

func TestParseTaggedAndExtraColumns(t *testing.T) {
	in := "[1,0]<stdout>:# " + strings.Join(Columns, " ") + " future\n" +
		"[1,0]<stdout>:65536 16 1 100 1.5 2.5 3.5 0.1 0.2 0.3 1 2 3 4 32768 99\n" +
		"65536 16 1 100 nan 2.5 3.5 0.1 0.2 0.3 1 2 3 4 32768 99\n" // skipped: NaN
	got, err := Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Producer != 1.5 || got[0].Threshold != 32768 {
		t.Errorf("Parse = %+v", got)
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{
		"",
		"1 2 3\n",
		"# S n c1\n1 2 3\n", // header lacks columns
		"# " + strings.Join(Columns, " ") + "\n",
	} {
		if _, err := Parse(strings.NewReader(in)); err == nil {
			t.Errorf("Parse(%q): no error", in)
		}
	}
}

func TestSizes(t *testing.T) {
	got, err := ParseSizes("64K,256k,1M, 1MiB,1g,1000,0")
	want := []int{64 << 10, 256 << 10, 1 << 20, 1 << 20, 1 << 30, 1000, 0}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("ParseSizes = %v, %v; want %v", got, err, want)
	}
	// 2G does not fit a C int; 64KB is not a suffix this syntax knows.
	for _, bad := range []string{"", "K", "-1", "1.5M", "64KB", "2G", "1x", "64K,"} {
		if _, err := ParseSizes(bad); err == nil {
			t.Errorf("ParseSizes(%q): no error", bad)
		}
	}
	for n, s := range map[int]string{65536: "64K", 1 << 20: "1M", 1 << 30: "1G", 1000: "1000", 0: "0", 1536: "1536"} {
		if got := FormatSize(n); got != s {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, s)
		}
	}
}

func TestMicros(t *testing.T) {
	got, err := ParseMicros("0, 10,50.5")
	if err != nil || !slices.Equal(got, []float64{0, 10, 50.5}) {
		t.Errorf("ParseMicros = %v, %v", got, err)
	}
	for _, bad := range []string{"", "-1", "x", "NaN", "Inf", "1,,2"} {
		if _, err := ParseMicros(bad); err == nil {
			t.Errorf("ParseMicros(%q): no error", bad)
		}
	}
}
