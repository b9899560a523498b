// Command osutable lays two sets of OSU-format benchmark outputs side by
// side as a Markdown table: per message size, the median of each set over
// its runs and the ratio of the first set to the second.
//
// Usage:
//
//	osutable [-sizes MIN:MAX] NAME=FILE[,FILE...] NAME=FILE[,FILE...]
//
// Each NAME=FILE argument adds the outputs in FILE (a path or a glob; a
// comma separates several) to the set called NAME; a name may be given more
// than once, and exactly two names must appear. The first is the subject
// (hympi), the second the reference (Open MPI); the ratio is subject divided
// by reference, so for latency lower is better and for bandwidth higher is
// better. Every file must hold the same kind of table (latency or
// bandwidth). A file is one run; a size that appears several times in one
// file counts once per appearance. Lines that are not part of an OSU table
// (launcher warnings, Open MPI's banners, --tag-output prefixes) are
// skipped, so outputs captured with 2>&1 read as they are.
//
// The median rather than the mean, because on a shared machine the noise
// is one-sided: a run is sometimes slowed, never sped up.
//
// Example:
//
//	$ osutable -sizes 0:8 hympi=testdata/lat.hympi.*.txt 'Open MPI=testdata/lat.ompi.*.txt'
//	Latency (us), median of 3 runs; ratio hympi / Open MPI: lower is better
//
//	| Size | hympi | Open MPI | hympi / Open MPI |
//	|-----:|------:|---------:|-----------------:|
//	|    0 |  0.36 |     0.21 |             1.71 |
//	|    1 |  0.26 |     0.25 |             1.04 |
//	|    2 |  0.25 |     0.25 |             1.00 |
//	|    4 |  0.24 |     0.25 |             0.96 |
//	|    8 |  0.25 |     0.25 |             1.00 |
package main

import (
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
	"unicode/utf8"

	"github.com/hympi/hympi/bench/internal/osu"
)

func main() {
	if err := run(os.Stdout, os.Stderr, os.Args[1:]); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(os.Stderr, "osutable: %v\n", err)
		}
		os.Exit(2)
	}
}

func run(stdout, stderr io.Writer, args []string) error {
	fs := flag.NewFlagSet("osutable", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: osutable [-sizes MIN:MAX] NAME=FILE[,FILE...] NAME=FILE[,FILE...]")
		fs.PrintDefaults()
	}
	lo, hi := 0, math.MaxInt32
	fs.Func("sizes", "only sizes in `MIN:MAX` (default all)", func(s string) error {
		var err error
		lo, hi, err = osu.ParseRange(s, lo, hi)
		return err
	})
	if err := fs.Parse(args); err != nil {
		return err
	}

	sets, err := load(fs.Args())
	if err != nil {
		return err
	}
	t, err := tabulate(sets, lo, hi)
	if err != nil {
		return err
	}
	_, err = io.WriteString(stdout, t.markdown())
	return err
}

// set is the runs of one implementation.
type set struct {
	name    string
	kind    osu.Kind
	runs    int
	samples map[int][]float64 // size → one value per appearance
}

// load reads NAME=FILE arguments into exactly two sets, in order of first
// appearance.
func load(args []string) ([2]*set, error) {
	var sets []*set
	for _, arg := range args {
		name, files, ok := strings.Cut(arg, "=")
		if !ok || name == "" || files == "" {
			return [2]*set{}, fmt.Errorf("argument %q is not NAME=FILE", arg)
		}
		i := slices.IndexFunc(sets, func(s *set) bool { return s.name == name })
		if i < 0 {
			sets = append(sets, &set{name: name, samples: map[int][]float64{}})
			i = len(sets) - 1
		}
		for pattern := range strings.SplitSeq(files, ",") {
			paths, err := expand(pattern)
			if err != nil {
				return [2]*set{}, err
			}
			for _, p := range paths {
				if err := sets[i].add(p); err != nil {
					return [2]*set{}, err
				}
			}
		}
	}
	if len(sets) != 2 {
		return [2]*set{}, fmt.Errorf("need outputs of exactly two names, got %d", len(sets))
	}
	if sets[0].kind != sets[1].kind {
		return [2]*set{}, fmt.Errorf("%s has %v results but %s has %v", sets[0].name, sets[0].kind, sets[1].name, sets[1].kind)
	}
	return [2]*set{sets[0], sets[1]}, nil
}

// expand resolves a glob; a pattern that matches nothing is an error, since
// a silently empty set would print a table of dashes.
func expand(pattern string) ([]string, error) {
	paths, err := filepath.Glob(pattern)
	if err != nil {
		return nil, fmt.Errorf("bad pattern %q: %w", pattern, err)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no file matches %q", pattern)
	}
	return paths, nil
}

func (s *set) add(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	res, err := osu.Parse(f)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if s.kind != 0 && s.kind != res.Kind {
		return fmt.Errorf("%s: %v results, but earlier %s files hold %v", path, res.Kind, s.name, s.kind)
	}
	s.kind = res.Kind
	s.runs++
	for _, r := range res.Rows {
		s.samples[r.Size] = append(s.samples[r.Size], r.Value)
	}
	return nil
}

// table is the aggregated comparison.
type table struct {
	kind       osu.Kind
	names      [2]string
	runs       [2]int // files read per set
	minN, maxN int    // fewest and most samples behind any cell
	rows       []row
}

type row struct {
	size   int
	median [2]float64
	has    [2]bool
}

func tabulate(sets [2]*set, lo, hi int) (table, error) {
	t := table{kind: sets[0].kind, minN: math.MaxInt}
	var sizes []int
	for i, s := range sets {
		t.names[i], t.runs[i] = s.name, s.runs
		for size, v := range s.samples {
			if size < lo || size > hi {
				continue
			}
			if !slices.Contains(sizes, size) {
				sizes = append(sizes, size)
			}
			t.minN, t.maxN = min(t.minN, len(v)), max(t.maxN, len(v))
		}
	}
	if len(sizes) == 0 {
		return table{}, fmt.Errorf("no sizes in %d:%d", lo, hi)
	}
	slices.Sort(sizes)
	for _, size := range sizes {
		r := row{size: size}
		for i, s := range sets {
			if v, ok := s.samples[size]; ok {
				r.median[i], r.has[i] = osu.Median(v), true
			}
		}
		t.rows = append(t.rows, r)
	}
	return t, nil
}

// markdown renders the table with padded columns, so it reads as well in a
// terminal as it renders on a page.
func (t table) markdown() string {
	var b strings.Builder
	runs := strconv.Itoa(t.maxN) + " runs"
	if t.maxN == 1 {
		runs = "1 run"
	}
	if t.minN != t.maxN {
		runs = fmt.Sprintf("%d–%d runs", t.minN, t.maxN)
	}
	better := "lower is better"
	if t.kind == osu.Bandwidth {
		better = "higher is better"
	}
	ratio := t.names[0] + " / " + t.names[1]
	fmt.Fprintf(&b, "%s, median of %s; ratio %s: %s\n\n", osu.ColumnTitle(t.kind), runs, ratio, better)

	cells := [][]string{{"Size", t.names[0], t.names[1], ratio}}
	for _, r := range t.rows {
		c := []string{strconv.Itoa(r.size), "–", "–", "–"}
		for i := range 2 {
			if r.has[i] {
				c[1+i] = strconv.FormatFloat(r.median[i], 'f', 2, 64)
			}
		}
		if r.has[0] && r.has[1] && r.median[1] != 0 {
			c[3] = strconv.FormatFloat(r.median[0]/r.median[1], 'f', 2, 64)
		}
		cells = append(cells, c)
	}
	width := make([]int, 4)
	for _, c := range cells {
		for i, s := range c {
			width[i] = max(width[i], utf8.RuneCountInString(s))
		}
	}
	line := func(c []string) {
		b.WriteString("|")
		for i, s := range c {
			// Right-aligned by runes, not bytes: "–" is one column but three bytes.
			fmt.Fprintf(&b, " %s%s |", strings.Repeat(" ", width[i]-utf8.RuneCountInString(s)), s)
		}
		b.WriteString("\n")
	}
	line(cells[0])
	b.WriteString("|")
	for _, w := range width {
		b.WriteString(strings.Repeat("-", w+1) + ":|")
	}
	b.WriteString("\n")
	for _, c := range cells[1:] {
		line(c)
	}
	return b.String()
}
