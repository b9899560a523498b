// Command skewplot tabulates and plots bench/osu_skew outputs of several
// modes (typically HYMPI_DIRECT=off, auto and always) side by side.
//
// Usage:
//
//	skewplot [-S SIZE] [-o FILE.svg] [-md FILE] [-details FILE] [-logy=false] [-where TEXT] NAME=FILE[,FILE...]...
//
// Each NAME=FILE argument adds the osu_skew outputs in FILE (a path or a
// glob; a comma separates several) to the set called NAME; a name may be
// given more than once, and sets keep the order of their first appearance.
// Each file is one run; for every (S, c2) a set's value is the median over
// all its rows for that pair.
//
//   - -o writes an SVG line plot of the producer time against c2 for the
//     size -S (which may be left out when the outputs hold only one size),
//     one line per set. The time axis is logarithmic (the modes differ by
//     orders of magnitude; -logy=false for linear), and the subtitle says
//     where (-where, default this machine's CPU model and count) and how
//     many runs are behind each median.
//   - -md writes a Markdown table of the producer time per (S, c2), one
//     column per set, followed by ratios: if a set is called "auto", auto
//     over each other set, otherwise the first set over each other. "-"
//     means standard output. With neither -o nor -md nor -details the table
//     goes to standard output.
//   - -details writes, per set, a Markdown table of the measured time next
//     to the seed's two formulas and the counters (messages by protocol,
//     skew raises and lowers, final threshold).
package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/hympi/hympi/bench/osu_skew/report"
	"github.com/hympi/hympi/bench/plot"
)

func main() {
	if err := run(os.Stdout, os.Stderr, os.Args[1:]); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(os.Stderr, "skewplot: %v\n", err)
		}
		os.Exit(2)
	}
}

// set is one named mode: every row of its files.
type set struct {
	name  string
	files int
	rows  []report.Row
}

// key is one table line.
type key struct {
	s  int
	c2 float64
}

func run(stdout, stderr io.Writer, args []string) error {
	fs := flag.NewFlagSet("skewplot", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sizeFlag := fs.String("S", "", "message `size` to plot (K/M/G suffixes allowed); needed when the outputs hold several sizes")
	svgOut := fs.String("o", "", "write the SVG plot to `file`")
	mdOut := fs.String("md", "", "write the Markdown table to `file` (- for standard output)")
	detOut := fs.String("details", "", "write per-set detail tables (formulas, counters) to `file` (- for standard output)")
	logY := fs.Bool("logy", true, "logarithmic time axis (false: linear)")
	where := fs.String("where", plot.Where(), "the machine the outputs come from, for the plot's subtitle")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: skewplot [-S SIZE] [-o FILE.svg] [-md FILE] [-details FILE] [-logy=false] [-where TEXT] NAME=FILE[,FILE...]...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	sets, err := readSets(fs.Args())
	if err != nil {
		return err
	}
	if *svgOut == "" && *mdOut == "" && *detOut == "" {
		*mdOut = "-"
	}
	if *mdOut != "" {
		if err := output(stdout, *mdOut, func(w io.Writer) error { return writeTable(w, sets) }); err != nil {
			return err
		}
	}
	if *detOut != "" {
		if *mdOut == "-" && *detOut == "-" {
			if _, err := io.WriteString(stdout, "\n"); err != nil {
				return err
			}
		}
		if err := output(stdout, *detOut, func(w io.Writer) error { return writeDetails(w, sets) }); err != nil {
			return err
		}
	}
	if *svgOut != "" {
		size := 0
		if *sizeFlag != "" {
			if size, err = report.ParseSize(*sizeFlag); err != nil {
				return fmt.Errorf("-S: %v", err)
			}
		}
		p, err := chart(sets, size, *logY, *where)
		if err != nil {
			return err
		}
		if err := output(stdout, *svgOut, func(w io.Writer) error { return plot.Write(w, p) }); err != nil {
			return err
		}
	}
	return nil
}

func readSets(args []string) ([]*set, error) {
	if len(args) == 0 {
		return nil, errors.New("no NAME=FILE arguments")
	}
	var sets []*set
	for _, a := range args {
		name, files, ok := strings.Cut(a, "=")
		if !ok || name == "" || files == "" {
			return nil, fmt.Errorf("argument %q: want NAME=FILE[,FILE...]", a)
		}
		i := slices.IndexFunc(sets, func(s *set) bool { return s.name == name })
		if i < 0 {
			sets = append(sets, &set{name: name})
			i = len(sets) - 1
		}
		for pattern := range strings.SplitSeq(files, ",") {
			paths, err := filepath.Glob(pattern)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", pattern, err)
			}
			if paths == nil {
				return nil, fmt.Errorf("%s: no such file", pattern)
			}
			for _, path := range paths {
				rows, err := readFile(path)
				if err != nil {
					return nil, err
				}
				sets[i].rows = append(sets[i].rows, rows...)
				sets[i].files++
			}
		}
	}
	return sets, nil
}

func readFile(path string) ([]report.Row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows, err := report.Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return rows, nil
}

func output(stdout io.Writer, path string, write func(io.Writer) error) error {
	if path == "-" {
		return write(stdout)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// keys returns every (S, c2) of the sets, by S then c2.
func keys(sets []*set) []key {
	var ks []key
	for _, s := range sets {
		for _, r := range s.rows {
			ks = append(ks, key{r.S, r.C2})
		}
	}
	slices.SortFunc(ks, func(a, b key) int {
		return cmp.Or(cmp.Compare(a.s, b.s), cmp.Compare(a.c2, b.c2))
	})
	return slices.Compact(ks)
}

// agg is the median of a set's rows at one key.
type agg struct {
	n                                 int // rows
	producer, twoCopy, direct         float64
	eager, directMsgs, raises, lowers float64
	threshold                         float64
}

func (s *set) at(k key) agg {
	var rs []report.Row
	for _, r := range s.rows {
		if r.S == k.s && r.C2 == k.c2 {
			rs = append(rs, r)
		}
	}
	med := func(f func(report.Row) float64) float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = f(r)
		}
		return median(v)
	}
	if len(rs) == 0 {
		return agg{}
	}
	return agg{
		n:          len(rs),
		producer:   med(func(r report.Row) float64 { return r.Producer }),
		twoCopy:    med(func(r report.Row) float64 { return r.TwoCopy }),
		direct:     med(func(r report.Row) float64 { return r.Direct }),
		eager:      med(func(r report.Row) float64 { return float64(r.Eager) }),
		directMsgs: med(func(r report.Row) float64 { return float64(r.DirectMsgs) }),
		raises:     med(func(r report.Row) float64 { return float64(r.Raises) }),
		lowers:     med(func(r report.Row) float64 { return float64(r.Lowers) }),
		threshold:  med(func(r report.Row) float64 { return float64(r.Threshold) }),
	}
}

func median(v []float64) float64 {
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// describe is the common setting of the rows (window and c1), or "" if the
// rows disagree.
func describe(sets []*set) string {
	var n int
	var c1 float64
	first := true
	for _, s := range sets {
		for _, r := range s.rows {
			if first {
				n, c1, first = r.N, r.C1, false
			} else if r.N != n || r.C1 != c1 {
				return ""
			}
		}
	}
	return fmt.Sprintf("n=%d, c1=%s µs", n, fmtNum(c1))
}

// ratioSets picks the numerator of the ratio columns and the denominators.
func ratioSets(sets []*set) (*set, []*set) {
	num := sets[0]
	if i := slices.IndexFunc(sets, func(s *set) bool { return s.name == "auto" }); i >= 0 {
		num = sets[i]
	}
	var dens []*set
	for _, s := range sets {
		if s != num {
			dens = append(dens, s)
		}
	}
	return num, dens
}

func writeTable(w io.Writer, sets []*set) error {
	head := []string{"S", "c2 (µs)"}
	align := []bool{true, true}
	var runs []string
	for _, s := range sets {
		head = append(head, s.name)
		align = append(align, true)
		runs = append(runs, fmt.Sprintf("%s %d", s.name, s.files))
	}
	num, dens := ratioSets(sets)
	for _, d := range dens {
		head = append(head, num.name+"/"+d.name)
		align = append(align, true)
	}
	var rows [][]string
	for _, k := range keys(sets) {
		row := []string{report.FormatSize(k.s), fmtNum(k.c2)}
		vals := map[*set]agg{}
		for _, s := range sets {
			a := s.at(k)
			vals[s] = a
			row = append(row, cell(a, a.producer, 1))
		}
		for _, d := range dens {
			a, b := vals[num], vals[d]
			if a.n == 0 || b.n == 0 || b.producer == 0 {
				row = append(row, "—")
			} else {
				row = append(row, strconv.FormatFloat(a.producer/b.producer, 'f', 2, 64))
			}
		}
		rows = append(rows, row)
	}
	title := "Producer time per window (µs), median over runs (" + strings.Join(runs, ", ") + ")"
	if d := describe(sets); d != "" {
		title += "; " + d
	}
	if _, err := fmt.Fprintf(w, "%s\n\n", title); err != nil {
		return err
	}
	return markdown(w, head, align, rows)
}

func writeDetails(w io.Writer, sets []*set) error {
	head := []string{"S", "c2 (µs)", "measured", "two-copy formula", "direct formula", "eager msgs", "direct msgs", "raises", "lowers", "threshold"}
	align := make([]bool, len(head))
	for i := range align {
		align[i] = true
	}
	for i, s := range sets {
		if i > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		if _, err := fmt.Fprintf(w, "%s: producer time and the seed's formulas (µs), counters over each row\n\n", s.name); err != nil {
			return err
		}
		var rows [][]string
		for _, k := range keys(sets) {
			a := s.at(k)
			rows = append(rows, []string{
				report.FormatSize(k.s), fmtNum(k.c2),
				cell(a, a.producer, 1), cell(a, a.twoCopy, 1), cell(a, a.direct, 1),
				cell(a, a.eager, 0), cell(a, a.directMsgs, 0), cell(a, a.raises, 0), cell(a, a.lowers, 0),
				cell(a, a.threshold, 0),
			})
		}
		if err := markdown(w, head, align, rows); err != nil {
			return err
		}
	}
	return nil
}

func cell(a agg, v float64, prec int) string {
	if a.n == 0 {
		return "—"
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

func fmtNum(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// markdown writes a table with padded columns; right[i] right-aligns
// column i.
func markdown(w io.Writer, head []string, right []bool, rows [][]string) error {
	width := make([]int, len(head))
	for i, h := range head {
		width[i] = max(runeLen(h), 3)
	}
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], runeLen(c))
		}
	}
	var b strings.Builder
	line := func(cells []string) {
		b.WriteString("|")
		for i, c := range cells {
			pad := strings.Repeat(" ", width[i]-runeLen(c))
			if right[i] {
				b.WriteString(" " + pad + c + " |")
			} else {
				b.WriteString(" " + c + pad + " |")
			}
		}
		b.WriteString("\n")
	}
	line(head)
	b.WriteString("|")
	for i := range head {
		dash := strings.Repeat("-", width[i]+1)
		if right[i] {
			b.WriteString(dash + ":|")
		} else {
			b.WriteString(":" + dash + "|")
		}
	}
	b.WriteString("\n")
	for _, r := range rows {
		line(r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func runeLen(s string) int { return len([]rune(s)) }

// chart builds the plot of producer time against c2 at size (0: the only
// size there is).
func chart(sets []*set, size int, logY bool, where string) (plot.Plot, error) {
	ks := keys(sets)
	if size == 0 {
		sizes := map[int]bool{}
		for _, k := range ks {
			sizes[k.s] = true
		}
		if len(sizes) != 1 {
			return plot.Plot{}, fmt.Errorf("the outputs hold %d sizes: choose one with -S", len(sizes))
		}
		size = ks[0].s
	}
	p := plot.Plot{
		Title:  "osu_skew: producer time vs consumer compute, S=" + report.FormatSize(size),
		XLabel: "consumer compute per message c2 (µs)",
		YLabel: "producer time per window (µs)",
		LogY:   logY,
	}
	if d := describe(sets); d != "" {
		p.Title += ", " + d
	}
	lo, hi := sets[0].files, sets[0].files
	for _, s := range sets {
		lo, hi = min(lo, s.files), max(hi, s.files)
	}
	p.Subtitle = plot.Runs(lo, hi) + " per mode"
	if where != "" {
		p.Subtitle = where + "; " + p.Subtitle
	}
	for _, s := range sets {
		ser := plot.Series{Name: s.name}
		for _, k := range ks {
			if k.s != size {
				continue
			}
			if a := s.at(k); a.n > 0 && !math.IsNaN(a.producer) {
				ser.Points = append(ser.Points, plot.Point{X: k.c2, Y: a.producer})
			}
		}
		if len(ser.Points) == 0 {
			return plot.Plot{}, fmt.Errorf("set %s has no rows for S=%s", s.name, report.FormatSize(size))
		}
		p.Series = append(p.Series, ser)
	}
	return p, nil
}
