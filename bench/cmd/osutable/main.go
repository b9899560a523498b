// Command osutable lays sets of OSU-format benchmark outputs side by side
// as a Markdown table: per message size, the median of each set over its
// runs, and ratios between sets.
//
// Usage:
//
//	osutable [-sizes MIN:MAX] NAME=FILE[,FILE...] NAME=FILE[,FILE...]
//	osutable [-sizes MIN:MAX] -ratio EXPR [-ratio EXPR]... NAME=FILE[,FILE...]...
//
// Each NAME=FILE argument adds the outputs in FILE (a path or a glob; a
// comma separates several) to the set called NAME; a name may be given more
// than once. Sets become columns in order of first appearance. Every file
// must hold the same kind of table (latency or bandwidth; osu_bibw and
// osu_mbw_mr outputs read as bandwidth, by their MB/s column). A file is
// one run; a size that appears several times in one file counts once per
// appearance. Lines that are not part of an OSU table (launcher warnings,
// Open MPI's banners, --tag-output prefixes) are skipped, so outputs
// captured with 2>&1 read as they are.
//
// Without -ratio exactly two names must appear: the first is the subject
// (hympi), the second the reference (Open MPI), and the last column is the
// subject divided by the reference. With -ratio any number of names may
// appear, and each -ratio adds a column, in order. EXPR is NUM/DEN, where
// each side is a NAME or a function of names: max(A,B,...), min(A,B,...),
// or best(A,B,...), which is max for bandwidth and min for latency (the
// better of the sets at each size). A cell whose operands are not all
// present is "–". For latency a ratio below 1 favours the numerator, for
// bandwidth one above 1 does.
//
// The median rather than the mean, because on a shared machine the noise
// is one-sided: a run is sometimes slowed, never sped up.
//
// Examples:
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
//
//	$ osutable -sizes 4096:65536 -ratio auto/best(off,always) off=testdata/modes/bw.off.*.txt auto=testdata/modes/bw.auto.*.txt always=testdata/modes/bw.always.*.txt
//	Bandwidth (MB/s), median of 3 runs; ratio auto / max(off, always): higher is better
//
//	|  Size |     off |    auto |  always | auto / max(off, always) |
//	|------:|--------:|--------:|--------:|------------------------:|
//	|  4096 | 3672.81 | 3470.63 | 1533.18 |                    0.94 |
//	|  8192 | 5115.26 | 5002.23 | 1921.39 |                    0.98 |
//	| 16384 | 6229.78 | 6316.28 | 2326.42 |                    1.01 |
//	| 32768 | 6998.41 | 7065.88 | 3453.78 |                    1.01 |
//	| 65536 | 7233.08 | 3600.18 | 3598.12 |                    0.50 |
//
// (These outputs come from bench/modes.sh, with cold buffers on a two-core
// virtual machine: from 64 KiB the hybrid uses direct copy, which there
// streams at half the rate of shared memory's two pipelined copies.)
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
		fmt.Fprintln(fs.Output(), "       osutable [-sizes MIN:MAX] -ratio NUM/DEN [-ratio NUM/DEN]... NAME=FILE[,FILE...]...")
		fs.PrintDefaults()
	}
	lo, hi := 0, math.MaxInt32
	fs.Func("sizes", "only sizes in `MIN:MAX` (default all)", func(s string) error {
		var err error
		lo, hi, err = osu.ParseRange(s, lo, hi)
		return err
	})
	var ratios []ratio
	fs.Func("ratio", "add a ratio column `NUM/DEN`; each side a NAME or max(...), min(...), best(...) of NAMEs", func(s string) error {
		r, err := parseRatio(s)
		ratios = append(ratios, r)
		return err
	})
	if err := fs.Parse(args); err != nil {
		return err
	}

	sets, err := load(fs.Args())
	if err != nil {
		return err
	}
	if ratios == nil {
		if len(sets) != 2 {
			return fmt.Errorf("need outputs of exactly two names, got %d (or say what to compare with -ratio)", len(sets))
		}
		ratios = []ratio{{num: operand{names: []string{sets[0].name}}, den: operand{names: []string{sets[1].name}}}}
	}
	t, err := tabulate(sets, ratios, lo, hi)
	if err != nil {
		return err
	}
	_, err = io.WriteString(stdout, t.markdown())
	return err
}

// set is the runs of one implementation or configuration.
type set struct {
	name    string
	kind    osu.Kind
	runs    int
	samples map[int][]float64 // size → one value per appearance
}

// load reads NAME=FILE arguments into sets, in order of first appearance.
func load(args []string) ([]*set, error) {
	var sets []*set
	for _, arg := range args {
		name, files, ok := strings.Cut(arg, "=")
		if !ok || name == "" || files == "" {
			return nil, fmt.Errorf("argument %q is not NAME=FILE", arg)
		}
		i := slices.IndexFunc(sets, func(s *set) bool { return s.name == name })
		if i < 0 {
			sets = append(sets, &set{name: name, samples: map[int][]float64{}})
			i = len(sets) - 1
		}
		for pattern := range strings.SplitSeq(files, ",") {
			paths, err := expand(pattern)
			if err != nil {
				return nil, err
			}
			for _, p := range paths {
				if err := sets[i].add(p); err != nil {
					return nil, err
				}
			}
		}
	}
	if len(sets) == 0 {
		return nil, errors.New("no NAME=FILE arguments")
	}
	for _, s := range sets[1:] {
		if s.kind != sets[0].kind {
			return nil, fmt.Errorf("%s has %v results but %s has %v", sets[0].name, sets[0].kind, s.name, s.kind)
		}
	}
	return sets, nil
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

// ratio is one ratio column, num / den.
type ratio struct {
	num, den operand
}

// operand is one side of a ratio: a name (fn == "") or a function of names.
type operand struct {
	fn    string // "", "max", "min" or "best"
	names []string
}

// parseRatio parses NUM/DEN.
func parseRatio(s string) (ratio, error) {
	num, den, ok := strings.Cut(s, "/")
	if !ok || strings.Contains(den, "/") {
		return ratio{}, fmt.Errorf("ratio %q: want NUM/DEN", s)
	}
	var r ratio
	var err error
	if r.num, err = parseOperand(num); err != nil {
		return ratio{}, fmt.Errorf("ratio %q: %w", s, err)
	}
	if r.den, err = parseOperand(den); err != nil {
		return ratio{}, fmt.Errorf("ratio %q: %w", s, err)
	}
	return r, nil
}

func parseOperand(s string) (operand, error) {
	s = strings.TrimSpace(s)
	for _, fn := range []string{"max", "min", "best"} {
		args, ok := strings.CutPrefix(s, fn+"(")
		if !ok {
			continue
		}
		args, ok = strings.CutSuffix(args, ")")
		if !ok {
			return operand{}, fmt.Errorf("%q: no closing parenthesis", s)
		}
		o := operand{fn: fn}
		for a := range strings.SplitSeq(args, ",") {
			if a = strings.TrimSpace(a); a == "" {
				return operand{}, fmt.Errorf("%q: empty name", s)
			}
			o.names = append(o.names, a)
		}
		return o, nil
	}
	if s == "" || strings.ContainsAny(s, "(),") {
		return operand{}, fmt.Errorf("%q is not a NAME or max/min/best(NAME,...)", s)
	}
	return operand{names: []string{s}}, nil
}

// resolve checks the operand's names against the sets and fixes best to
// max or min for kind k.
func (o operand) resolve(names []string, k osu.Kind) (operand, error) {
	for _, n := range o.names {
		if !slices.Contains(names, n) {
			return operand{}, fmt.Errorf("ratio names %q, which no NAME=FILE argument gives (have %s)", n, strings.Join(names, ", "))
		}
	}
	if o.fn == "best" {
		o.fn = "min"
		if k == osu.Bandwidth {
			o.fn = "max"
		}
	}
	return o, nil
}

func (o operand) String() string {
	if o.fn == "" {
		return o.names[0]
	}
	return o.fn + "(" + strings.Join(o.names, ", ") + ")"
}

func (r ratio) String() string { return r.num.String() + " / " + r.den.String() }

// eval returns the operand's value in a row, or false if one of its sets
// has no value there.
func (o operand) eval(t *table, r row) (float64, bool) {
	var v float64
	for i, n := range o.names {
		j := slices.Index(t.names, n)
		if !r.has[j] {
			return 0, false
		}
		switch x := r.median[j]; {
		case i == 0:
			v = x
		case o.fn == "max":
			v = max(v, x)
		case o.fn == "min":
			v = min(v, x)
		}
	}
	return v, true
}

// table is the aggregated comparison.
type table struct {
	kind       osu.Kind
	names      []string
	ratios     []ratio
	minN, maxN int // fewest and most samples behind any cell
	rows       []row
}

type row struct {
	size   int
	median []float64
	has    []bool
}

func tabulate(sets []*set, ratios []ratio, lo, hi int) (table, error) {
	t := table{kind: sets[0].kind, minN: math.MaxInt}
	for _, s := range sets {
		t.names = append(t.names, s.name)
	}
	for _, r := range ratios {
		var err error
		if r.num, err = r.num.resolve(t.names, t.kind); err != nil {
			return table{}, err
		}
		if r.den, err = r.den.resolve(t.names, t.kind); err != nil {
			return table{}, err
		}
		t.ratios = append(t.ratios, r)
	}
	var sizes []int
	for _, s := range sets {
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
		r := row{size: size, median: make([]float64, len(sets)), has: make([]bool, len(sets))}
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
	var rs []string
	for _, r := range t.ratios {
		rs = append(rs, r.String())
	}
	label := "ratio "
	if len(rs) > 1 {
		label = "ratios "
	}
	fmt.Fprintf(&b, "%s, median of %s; %s%s: %s\n\n", osu.ColumnTitle(t.kind), runs, label, strings.Join(rs, ", "), better)

	cells := [][]string{append(append([]string{"Size"}, t.names...), rs...)}
	for _, r := range t.rows {
		c := []string{strconv.Itoa(r.size)}
		for i := range t.names {
			s := "–"
			if r.has[i] {
				s = strconv.FormatFloat(r.median[i], 'f', 2, 64)
			}
			c = append(c, s)
		}
		for _, q := range t.ratios {
			s := "–"
			num, ok1 := q.num.eval(&t, r)
			den, ok2 := q.den.eval(&t, r)
			if ok1 && ok2 && den != 0 {
				s = strconv.FormatFloat(num/den, 'f', 2, 64)
			}
			c = append(c, s)
		}
		cells = append(cells, c)
	}
	width := make([]int, len(cells[0]))
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
