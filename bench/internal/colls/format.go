package colls

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Row is one timed collective, form and size: microseconds per call, the
// mean over ranks of each rank's average, and the smallest and largest.
// OK is false when the checked call's result was wrong on some rank.
type Row struct {
	Coll          Coll
	Form          Form
	Size          int
	Avg, Min, Max float64
	Iters         int
	OK            bool
}

func check(ok bool) string {
	if ok {
		return "ok"
	}
	return "WRONG"
}

// String is the row's output line, as osu_colls.c prints it.
func (r Row) String() string {
	return fmt.Sprintf("row %s %s %d %.3f %.3f %.3f %d %s", r.Coll, r.Form, r.Size, r.Avg, r.Min, r.Max, r.Iters, check(r.OK))
}

// OverlapRow is one overlap measurement (OSU's osu_iallreduce table):
// per-iteration times in microseconds, averaged over ranks.
type OverlapRow struct {
	Coll                   Coll
	Size, Tests            int
	Overall, Compute, Pure float64
	Iters                  int
	OK                     bool
}

// Percent is OSU's overlap: the share of the pure communication time
// hidden behind the compute phase, max(0, 100 - 100*(overall-compute)/pure).
func (o OverlapRow) Percent() float64 {
	if o.Pure <= 0 {
		return 0
	}
	return max(0, 100-100*(o.Overall-o.Compute)/o.Pure)
}

// String is the row's output line, as osu_colls.c prints it.
func (o OverlapRow) String() string {
	return fmt.Sprintf("ovl %s %d %d %.3f %.3f %.3f %.2f %d %s", o.Coll, o.Size, o.Tests, o.Overall, o.Compute, o.Pure,
		o.Percent(), o.Iters, check(o.OK))
}

// Skip is a form a run could not measure, and why.
type Skip struct {
	Coll   Coll
	Form   Form
	Reason string
}

// Output is one run's parsed output.
type Output struct {
	Header   []string // the '#' lines, without "# "
	Rows     []Row
	Overlaps []OverlapRow
	Skips    []Skip
}

// Parse reads one run's output (of either program). Lines it does not
// know (a launcher's chatter) are ignored; a known line that does not
// parse is an error.
func Parse(r io.Reader) (Output, error) {
	var out Output
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for ln := 1; sc.Scan(); ln++ {
		line := strings.TrimSpace(sc.Text())
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		var err error
		switch f[0] {
		case "#":
			out.Header = append(out.Header, strings.TrimSpace(strings.TrimPrefix(line, "#")))
		case "row":
			var row Row
			row, err = parseRow(f)
			out.Rows = append(out.Rows, row)
		case "ovl":
			var o OverlapRow
			o, err = parseOverlap(f)
			out.Overlaps = append(out.Overlaps, o)
		case "skip":
			if len(f) < 3 {
				err = fmt.Errorf("short skip line")
				break
			}
			c, ok1 := ParseColl(f[1])
			fm, ok2 := ParseForm(f[2])
			if !ok1 || !ok2 {
				err = fmt.Errorf("unknown collective or form")
				break
			}
			out.Skips = append(out.Skips, Skip{c, fm, strings.Join(f[3:], " ")})
		}
		if err != nil {
			return out, fmt.Errorf("line %d %q: %w", ln, line, err)
		}
	}
	return out, sc.Err()
}

// fieldParser parses the numbers of one line, keeping the first error.
type fieldParser struct {
	f   []string
	err error
}

func (p *fieldParser) int(i int) int {
	v, err := strconv.Atoi(p.f[i])
	if err != nil && p.err == nil {
		p.err = fmt.Errorf("field %d: %w", i+1, err)
	}
	return v
}

func (p *fieldParser) float(i int) float64 {
	v, err := strconv.ParseFloat(p.f[i], 64)
	if err != nil && p.err == nil {
		p.err = fmt.Errorf("field %d: %w", i+1, err)
	}
	return v
}

func (p *fieldParser) ok(i int) bool {
	switch p.f[i] {
	case "ok":
		return true
	case "WRONG":
		return false
	}
	if p.err == nil {
		p.err = fmt.Errorf("field %d: %q is neither ok nor WRONG", i+1, p.f[i])
	}
	return false
}

func parseRow(f []string) (Row, error) {
	if len(f) != 9 {
		return Row{}, fmt.Errorf("want 9 fields, got %d", len(f))
	}
	c, ok1 := ParseColl(f[1])
	fm, ok2 := ParseForm(f[2])
	if !ok1 || !ok2 || fm == Overlap {
		return Row{}, fmt.Errorf("unknown collective or form")
	}
	p := fieldParser{f: f}
	r := Row{Coll: c, Form: fm, Size: p.int(3), Avg: p.float(4), Min: p.float(5), Max: p.float(6), Iters: p.int(7), OK: p.ok(8)}
	return r, p.err
}

func parseOverlap(f []string) (OverlapRow, error) {
	if len(f) != 10 {
		return OverlapRow{}, fmt.Errorf("want 10 fields, got %d", len(f))
	}
	c, ok := ParseColl(f[1])
	if !ok {
		return OverlapRow{}, fmt.Errorf("unknown collective")
	}
	p := fieldParser{f: f}
	o := OverlapRow{Coll: c, Size: p.int(2), Tests: p.int(3), Overall: p.float(4), Compute: p.float(5), Pure: p.float(6),
		Iters: p.int(8), OK: p.ok(9)}
	p.float(7) // the percentage, recomputed from the times
	return o, p.err
}
