package colls

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseRoundTrip(t *testing.T) {
	in := []string{
		"# hympi osu_colls (C, Open MPI v4.1.4), 2 ranks, -i 100",
		Row{Coll: Alltoallv, Form: NonBlocking, Size: 1024, Avg: 1.5, Min: 1, Max: 2, Iters: 100, OK: true}.String(),
		Row{Coll: Scan, Form: Persistent, Size: 8, Avg: 3, Min: 2, Max: 4, Iters: 100, OK: false}.String(),
		OverlapRow{Coll: Bcast, Size: 65536, Tests: 4, Overall: 10, Compute: 8, Pure: 4, Iters: 50, OK: true}.String(),
		"skip exscan p MPI_ERR_OTHER: not here",
		"[launcher] some chatter",
	}
	out, err := Parse(strings.NewReader(strings.Join(in, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Header) != 1 || len(out.Rows) != 2 || len(out.Overlaps) != 1 || len(out.Skips) != 1 {
		t.Fatalf("parsed %+v", out)
	}
	if r := out.Rows[0]; r.Coll != Alltoallv || r.Form != NonBlocking || r.Size != 1024 || r.Avg != 1.5 || !r.OK {
		t.Errorf("row 0: %+v", r)
	}
	if out.Rows[1].OK {
		t.Error("WRONG row read as ok")
	}
	if o := out.Overlaps[0]; o.Percent() != 50 || o.Tests != 4 || o.Coll != Bcast {
		t.Errorf("overlap %+v, %v%%", o, o.Percent())
	}
	if s := out.Skips[0]; s.Coll != Exscan || s.Form != Persistent || s.Reason != "MPI_ERR_OTHER: not here" {
		t.Errorf("skip %+v", s)
	}
	for _, bad := range []string{
		"row bcast b 8 1.0 1.0 1.0 100",       // short
		"row bcast ov 8 1 1 1 100 ok",         // ov is not a row form
		"row ibcast b 8 1 1 1 100 ok",         // unknown collective
		"row bcast b 8 x 1 1 100 ok",          // not a number
		"row bcast b 8 1 1 1 100 maybe",       // neither ok nor WRONG
		"ovl bcast 8 0 1 1 1 0 100",           // short
		"skip bcast",                          // short
		"skip bcast q reason",                 // unknown form
		"ovl allreduce 8 zero 1 1 1 0 100 ok", // not a number
	} {
		if _, err := Parse(strings.NewReader(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestOverlapPercent(t *testing.T) {
	for _, tt := range []struct {
		o    OverlapRow
		want float64
	}{
		{OverlapRow{Overall: 10, Compute: 8, Pure: 4}, 50},
		{OverlapRow{Overall: 8, Compute: 8, Pure: 4}, 100},
		{OverlapRow{Overall: 20, Compute: 8, Pure: 4}, 0}, // floored
		{OverlapRow{Overall: 1, Compute: 1, Pure: 0}, 0},  // nothing to hide
	} {
		if got := tt.o.Percent(); got != tt.want {
			t.Errorf("%+v: %v, want %v", tt.o, got, tt.want)
		}
	}
}

func TestSizeLabel(t *testing.T) {
	for n, want := range map[int]string{8: "8 B", 1000: "1000 B", 1024: "1 KiB", 65536: "64 KiB", 1 << 20: "1 MiB", 4 << 20: "4 MiB", 1536: "1536 B"} {
		if got := SizeLabel(n); got != want {
			t.Errorf("SizeLabel(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestTable writes runs to a directory as compare_coll.sh does and checks
// the table: medians over repetitions, ratios to Open MPI, hympi's form
// ratios, overlap, WRONG marks and notes.
func TestTable(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, lines ...string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	row := func(c Coll, f Form, size int, avg float64, ok bool) string {
		return Row{Coll: c, Form: f, Size: size, Avg: avg, Min: avg, Max: avg, Iters: 10, OK: ok}.String()
	}
	ovl := func(size int, overall float64) string {
		return OverlapRow{Coll: Allreduce, Size: size, Overall: overall, Compute: 10, Pure: 10, Iters: 10, OK: true}.String()
	}
	// Open MPI: medians 2 (of 1, 2, 100) at 8 B, barrier 4.
	write("n2.ompi.1.txt", row(Barrier, Blocking, 0, 4, true), row(Allreduce, Blocking, 8, 1, true), ovl(8, 15))
	write("n2.ompi.2.txt", row(Barrier, Blocking, 0, 4, true), row(Allreduce, Blocking, 8, 2, true), ovl(8, 15))
	write("n2.ompi.3.txt", row(Barrier, Blocking, 0, 4, true), row(Allreduce, Blocking, 8, 100, true), ovl(8, 15))
	write("n2.hympi-C.1.txt", row(Barrier, Blocking, 0, 2, true), row(Allreduce, Blocking, 8, 1, true),
		row(Allreduce, NonBlocking, 8, 1.5, true), row(Allreduce, Persistent, 8, 0.5, true), ovl(8, 12),
		"skip barrier p not today")
	write("n4.hympi-Go.1.txt", row(Allreduce, Blocking, 1024, 3, false))
	write("n4.ompi.1.txt", row(Allreduce, Blocking, 1024, 6, true))
	write("notes.txt", "ignored: not a run")
	write("n2.hympi-C.9.txt.failed", "ignored too")

	res, err := LoadResults(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := res.WriteMarkdown(&b, 2); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		"#### 2 ranks: time relative to Open MPI",
		"#### 4 ranks (oversubscribed on 2 CPUs)",
		"| collective | size | Open MPI µs | hympi-C | hympi-Go | hympi-C nb/b | hympi-C p/b | hympi-Go nb/b | hympi-Go p/b |",
		"| barrier | – | 4.00 | 0.50 | n/a | n/a | n/a | n/a | n/a |",
		"| allreduce | 8 B | 2.00 | 0.50 | n/a | 1.50 | 0.50 | n/a | n/a |",
		"| allreduce | 1 KiB | 6.00 | n/a | 0.50 WRONG | n/a | n/a | n/a | n/a |",
		"| iallreduce | 8 B | 0 | 50 | 80 | n/a |",
		"- WRONG result: hympi-Go, 4 ranks, allreduce b 1 KiB",
		"- not measured: hympi-C 2 barrier p (not today)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "| allreduce | 1 KiB | n/a") {
		t.Errorf("a size no implementation measured at 2 ranks has a row:\n%s", got)
	}

	b.Reset()
	if err := res.WriteSummary(&b, 2); err != nil {
		t.Fatal(err)
	}
	got = b.String()
	for _, want := range []string{
		"**2 ranks**: time relative to Open MPI's, hympi-C / hympi-Go:",
		"| collective | 8 B | 1 KiB |",
		"| barrier | 0.50 / – |  |",
		"| allreduce | 0.50 / – | – / – |",
		"**4 ranks on 2 CPUs**",
		"| allreduce | – / – | – / 0.50 WRONG |",
		"- hympi-C nb/b: median 1.50 over 1 collective × size cells, 1 above 1.1 (range 1.50–1.50)",
		"- hympi-C p/b: median 0.50 over 1 collective × size cells, 0 above 1.1",
		"| iallreduce | 0 | 80 / – / 50 | – / – / – |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}

	write("n2.other.1.txt", "x")
	if _, err := LoadResults(dir); err == nil || !strings.Contains(err.Error(), "unknown implementation") {
		t.Errorf("unknown implementation: err %v", err)
	}
	if _, err := LoadResults(t.TempDir()); err == nil {
		t.Error("empty directory: no error")
	}
}
