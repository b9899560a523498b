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
//
// Several benchmarks in one table (bench/compare.sh):
//
//	osutable -grouped [-relative REF] [-allow-missing] [-svg FILE] GROUP:NAME=FILE[,FILE...]...
//
// where
//
//   - -grouped reads each argument as GROUP:NAME=FILE: a group is one
//     benchmark (e.g. "osu_allreduce n=4"), with rows for its sizes, and the
//     table starts with a Benchmark column holding the group and its unit.
//     Groups may differ in kind (latency and bandwidth in one table); within
//     a group all sets must agree. Without -ratio or -relative, the columns
//     are the medians alone.
//   - -relative REF shows set REF's medians in their unit and every other
//     set as its median divided by REF's at that size, so each column reads
//     as "times Open MPI". For latency below 1 is better, for bandwidth
//     above 1.
//   - -allow-missing lets a FILE pattern match nothing: the set's cells read
//     "n/a" (not built, skipped or failed), where "–" means only that the
//     set has no row for that size.
//   - -svg FILE also writes an SVG of the medians against the size, one
//     panel per group (or one for an ungrouped table) with at least two
//     sizes, both axes logarithmic; sizes or values of 0 are left out. Each
//     panel's subtitle says where (-where TEXT, default this machine's CPU
//     model and count) and how many runs are behind the medians.
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
	"github.com/hympi/hympi/bench/plot"
)

func main() {
	if err := run(os.Stdout, os.Stderr, os.Args[1:]); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(os.Stderr, "osutable: %v\n", err)
		}
		os.Exit(2)
	}
}

// config is the command line beyond the NAME=FILE arguments.
type config struct {
	lo, hi       int
	ratios       []ratio
	grouped      bool
	relative     string
	allowMissing bool
	svg          string
	where        string // the machine, for the plot's subtitles
}

func run(stdout, stderr io.Writer, args []string) error {
	fs := flag.NewFlagSet("osutable", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: osutable [-sizes MIN:MAX] NAME=FILE[,FILE...] NAME=FILE[,FILE...]")
		fmt.Fprintln(fs.Output(), "       osutable [-sizes MIN:MAX] -ratio NUM/DEN [-ratio NUM/DEN]... NAME=FILE[,FILE...]...")
		fmt.Fprintln(fs.Output(), "       osutable -grouped [-relative REF] [-allow-missing] [-svg FILE] GROUP:NAME=FILE[,FILE...]...")
		fs.PrintDefaults()
	}
	cfg := config{lo: 0, hi: math.MaxInt32}
	fs.Func("sizes", "only sizes in `MIN:MAX` (default all)", func(s string) error {
		var err error
		cfg.lo, cfg.hi, err = osu.ParseRange(s, cfg.lo, cfg.hi)
		return err
	})
	fs.Func("ratio", "add a ratio column `NUM/DEN`; each side a NAME or max(...), min(...), best(...) of NAMEs", func(s string) error {
		r, err := parseRatio(s)
		cfg.ratios = append(cfg.ratios, r)
		return err
	})
	fs.BoolVar(&cfg.grouped, "grouped", false, "arguments are GROUP:NAME=FILE; one table, rows grouped by benchmark")
	fs.StringVar(&cfg.relative, "relative", "", "show set `REF` in its unit and every other set divided by it")
	fs.BoolVar(&cfg.allowMissing, "allow-missing", false, "a FILE pattern may match nothing: its set reads n/a")
	fs.StringVar(&cfg.svg, "svg", "", "also write an SVG plot of the medians to `FILE`")
	fs.StringVar(&cfg.where, "where", plot.Where(), "the machine the outputs come from, for the plot's subtitles")
	if err := fs.Parse(args); err != nil {
		return err
	}

	d, err := load(fs.Args(), cfg)
	if err != nil {
		return err
	}
	if cfg.relative != "" && !slices.Contains(d.names, cfg.relative) {
		return fmt.Errorf("-relative %q: no NAME=FILE argument gives it (have %s)", cfg.relative, strings.Join(d.names, ", "))
	}
	if cfg.ratios == nil && !cfg.grouped && cfg.relative == "" {
		if len(d.names) != 2 {
			return fmt.Errorf("need outputs of exactly two names, got %d (or say what to compare with -ratio)", len(d.names))
		}
		cfg.ratios = []ratio{{num: operand{names: []string{d.names[0]}}, den: operand{names: []string{d.names[1]}}}}
	}
	t, err := tabulate(d, cfg)
	if err != nil {
		return err
	}
	if cfg.svg != "" {
		if err := writeSVG(cfg.svg, t); err != nil {
			return err
		}
	}
	_, err = io.WriteString(stdout, t.markdown())
	return err
}

// set is the runs of one implementation or configuration in one group.
type set struct {
	name    string
	kind    osu.Kind
	runs    int
	samples map[int][]float64 // size → one value per appearance
}

// group is one benchmark: its sets by name. An ungrouped table is one
// group with an empty label.
type group struct {
	label string
	kind  osu.Kind // 0 while no set of the group has data
	sets  map[string]*set
}

// data is everything loaded: set names and groups in order of first appearance.
type data struct {
	names  []string
	groups []*group
}

// load reads [GROUP:]NAME=FILE arguments.
func load(args []string, cfg config) (*data, error) {
	d := &data{}
	for _, arg := range args {
		label, rest := "", arg
		if cfg.grouped {
			// The group comes first and may hold "=" (e.g. "osu_bcast n=4").
			var ok bool
			if label, rest, ok = strings.Cut(arg, ":"); !ok || label == "" || !strings.Contains(rest, "=") {
				return nil, fmt.Errorf("argument %q is not GROUP:NAME=FILE", arg)
			}
		}
		name, files, ok := strings.Cut(rest, "=")
		if !ok || name == "" || files == "" {
			return nil, fmt.Errorf("argument %q is not NAME=FILE", arg)
		}
		gi := slices.IndexFunc(d.groups, func(g *group) bool { return g.label == label })
		if gi < 0 {
			d.groups = append(d.groups, &group{label: label, sets: map[string]*set{}})
			gi = len(d.groups) - 1
		}
		g := d.groups[gi]
		if !slices.Contains(d.names, name) {
			d.names = append(d.names, name)
		}
		s := g.sets[name]
		if s == nil {
			s = &set{name: name, samples: map[int][]float64{}}
			g.sets[name] = s
		}
		for pattern := range strings.SplitSeq(files, ",") {
			paths, err := expand(pattern)
			if err != nil {
				if cfg.allowMissing && errors.Is(err, errNoMatch) {
					continue
				}
				return nil, err
			}
			for _, p := range paths {
				if err := s.add(p); err != nil {
					return nil, err
				}
			}
		}
	}
	if len(d.groups) == 0 {
		return nil, errors.New("no NAME=FILE arguments")
	}
	for _, g := range d.groups {
		var first *set
		for _, name := range d.names {
			s := g.sets[name]
			if s == nil || s.runs == 0 {
				continue
			}
			if first == nil {
				first, g.kind = s, s.kind
			} else if s.kind != first.kind {
				in := ""
				if g.label != "" {
					in = " in " + g.label
				}
				return nil, fmt.Errorf("%s has %v results but %s has %v%s", first.name, first.kind, s.name, s.kind, in)
			}
		}
	}
	return d, nil
}

var errNoMatch = errors.New("no file matches")

// expand resolves a glob; a pattern that matches nothing is an error, since
// a silently empty set would print a table of dashes (-allow-missing makes
// it n/a on purpose).
func expand(pattern string) ([]string, error) {
	paths, err := filepath.Glob(pattern)
	if err != nil {
		return nil, fmt.Errorf("bad pattern %q: %w", pattern, err)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%w %q", errNoMatch, pattern)
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

// check fails if the operand names a set no argument gives.
func (o operand) check(names []string) error {
	for _, n := range o.names {
		if !slices.Contains(names, n) {
			return fmt.Errorf("ratio names %q, which no NAME=FILE argument gives (have %s)", n, strings.Join(names, ", "))
		}
	}
	return nil
}

// fn is the function the operand applies for kind k: best is max for
// bandwidth and min for latency.
func (o operand) fnFor(k osu.Kind) string {
	if o.fn != "best" {
		return o.fn
	}
	if k == osu.Bandwidth {
		return "max"
	}
	return "min"
}

// label is the operand as a column title; best is spelled out when every
// group has the same kind.
func (o operand) label(k osu.Kind) string {
	if o.fn == "" {
		return o.names[0]
	}
	fn := o.fn
	if k != 0 {
		fn = o.fnFor(k)
	}
	return fn + "(" + strings.Join(o.names, ", ") + ")"
}

func (r ratio) label(k osu.Kind) string { return r.num.label(k) + " / " + r.den.label(k) }

// eval returns the operand's value in a row, or false if one of its sets
// has no value there.
func (o operand) eval(t *table, r row) (float64, bool) {
	fn := o.fnFor(r.kind)
	var v float64
	for i, n := range o.names {
		j := slices.Index(t.names, n)
		if !r.has[j] {
			return 0, false
		}
		switch x := r.median[j]; {
		case i == 0:
			v = x
		case fn == "max":
			v = max(v, x)
		case fn == "min":
			v = min(v, x)
		}
	}
	return v, true
}

// table is the aggregated comparison.
type table struct {
	cfg        config
	kinds      []osu.Kind // the kinds of the groups, each once, in order
	names      []string
	minN, maxN int // fewest and most samples behind any cell
	rows       []row
}

type row struct {
	group  string
	kind   osu.Kind
	size   int
	none   bool // the group has no data at all: one row of n/a
	median []float64
	has    []bool // a median for this size
	ran    []bool // the set has runs in this group (false: n/a)
}

func tabulate(d *data, cfg config) (table, error) {
	t := table{cfg: cfg, names: d.names, minN: math.MaxInt}
	for _, r := range cfg.ratios {
		if err := r.num.check(d.names); err != nil {
			return table{}, err
		}
		if err := r.den.check(d.names); err != nil {
			return table{}, err
		}
	}
	for _, g := range d.groups {
		if g.kind != 0 && !slices.Contains(t.kinds, g.kind) {
			t.kinds = append(t.kinds, g.kind)
		}
		ran := make([]bool, len(d.names))
		var sizes []int
		for i, name := range d.names {
			s := g.sets[name]
			if s == nil || s.runs == 0 {
				continue
			}
			ran[i] = true
			for size, v := range s.samples {
				if size < cfg.lo || size > cfg.hi {
					continue
				}
				if !slices.Contains(sizes, size) {
					sizes = append(sizes, size)
				}
				t.minN, t.maxN = min(t.minN, len(v)), max(t.maxN, len(v))
			}
		}
		if len(sizes) == 0 {
			if !cfg.grouped {
				return table{}, fmt.Errorf("no sizes in %d:%d", cfg.lo, cfg.hi)
			}
			t.rows = append(t.rows, row{group: g.label, none: true, has: make([]bool, len(d.names)), ran: ran,
				median: make([]float64, len(d.names))})
			continue
		}
		slices.Sort(sizes)
		for _, size := range sizes {
			r := row{group: g.label, kind: g.kind, size: size, median: make([]float64, len(d.names)),
				has: make([]bool, len(d.names)), ran: ran}
			for i, name := range d.names {
				if s := g.sets[name]; s != nil {
					if v, ok := s.samples[size]; ok {
						r.median[i], r.has[i] = osu.Median(v), true
					}
				}
			}
			t.rows = append(t.rows, r)
		}
	}
	if t.minN == math.MaxInt {
		t.minN = 0
	}
	return t, nil
}

// kind is the one kind of every group, or 0 if they differ or none has data.
func (t table) kind() osu.Kind {
	if len(t.kinds) == 1 {
		return t.kinds[0]
	}
	return 0
}

// title is the line above the table.
func (t table) title() string {
	runs := strconv.Itoa(t.maxN) + " runs"
	if t.maxN == 1 {
		runs = "1 run"
	}
	if t.minN != t.maxN {
		runs = fmt.Sprintf("%d–%d runs", t.minN, t.maxN)
	}
	var rs []string
	for _, r := range t.cfg.ratios {
		rs = append(rs, r.label(t.kind()))
	}
	if !t.cfg.grouped && t.cfg.relative == "" {
		better := "lower is better"
		if t.kind() == osu.Bandwidth {
			better = "higher is better"
		}
		label := "ratio "
		if len(rs) > 1 {
			label = "ratios "
		}
		return fmt.Sprintf("%s, median of %s; %s%s: %s", osu.ColumnTitle(t.kind()), runs, label, strings.Join(rs, ", "), better)
	}
	var units []string
	for _, k := range t.kinds {
		if k == osu.Bandwidth {
			units = append(units, "bandwidth in MB/s (higher is better)")
		} else {
			units = append(units, "latency in us (lower is better)")
		}
	}
	s := "Medians of " + runs
	if len(units) > 0 {
		s += "; " + strings.Join(units, ", ")
	}
	if t.cfg.relative != "" {
		s += fmt.Sprintf("; %s in its unit, every other column as a ratio to %s", t.cfg.relative, t.cfg.relative)
	}
	if len(rs) > 0 {
		s += "; ratios " + strings.Join(rs, ", ")
	}
	if t.cfg.allowMissing {
		s += "; n/a: no result (not built, skipped or failed)"
	}
	return s
}

// unit is the unit a group's label carries in a grouped table.
func unit(k osu.Kind) string {
	switch k {
	case osu.Latency:
		return " (us)"
	case osu.Bandwidth:
		return " (MB/s)"
	}
	return ""
}

// markdown renders the table with padded columns, so it reads as well in a
// terminal as it renders on a page.
func (t table) markdown() string {
	var b strings.Builder
	b.WriteString(t.title() + "\n\n")
	head := []string{"Size"}
	if t.cfg.grouped {
		head = []string{"Benchmark", "Size"}
	}
	head = append(head, t.names...)
	for _, r := range t.cfg.ratios {
		head = append(head, r.label(t.kind()))
	}
	cells := [][]string{head}
	ref := slices.Index(t.names, t.cfg.relative)
	for _, r := range t.rows {
		var c []string
		if t.cfg.grouped {
			c = append(c, r.group+unit(r.kind))
		}
		if r.none {
			c = append(c, "–")
		} else {
			c = append(c, strconv.Itoa(r.size))
		}
		for i := range t.names {
			s := "–"
			switch {
			case !r.ran[i]:
				s = "n/a"
			case !r.has[i]:
			case ref < 0 || i == ref:
				s = strconv.FormatFloat(r.median[i], 'f', 2, 64)
			case r.has[ref] && r.median[ref] != 0:
				s = strconv.FormatFloat(r.median[i]/r.median[ref], 'f', 2, 64)
			}
			c = append(c, s)
		}
		for _, q := range t.cfg.ratios {
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
	// The benchmark column is text: left-aligned; numbers right-aligned.
	left := t.cfg.grouped
	line := func(c []string) {
		b.WriteString("|")
		for i, s := range c {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(s))
			if left && i == 0 {
				fmt.Fprintf(&b, " %s%s |", s, pad)
			} else {
				// Right-aligned by runes, not bytes: "–" is one column but three bytes.
				fmt.Fprintf(&b, " %s%s |", pad, s)
			}
		}
		b.WriteString("\n")
	}
	line(cells[0])
	b.WriteString("|")
	for i, w := range width {
		if left && i == 0 {
			b.WriteString(":" + strings.Repeat("-", w+1) + "|")
		} else {
			b.WriteString(strings.Repeat("-", w+1) + ":|")
		}
	}
	b.WriteString("\n")
	for _, c := range cells[1:] {
		line(c)
	}
	return b.String()
}

// writeSVG plots the medians against the size: one panel per group with at
// least two plottable sizes, one line per set with data there.
func writeSVG(path string, t table) error {
	var panels []plot.Plot
	var order []string
	byGroup := map[string][]row{}
	for _, r := range t.rows {
		if r.none {
			continue
		}
		if _, ok := byGroup[r.group]; !ok {
			order = append(order, r.group)
		}
		byGroup[r.group] = append(byGroup[r.group], r)
	}
	for _, g := range order {
		rows := byGroup[g]
		k := rows[0].kind
		p := plot.Plot{Title: g, XLabel: "message size (bytes)", YLabel: osu.ColumnTitle(k), LogX: true, LogY: true,
			Subtitle: plot.Runs(t.minN, t.maxN)}
		if t.cfg.where != "" {
			p.Subtitle = t.cfg.where + "; " + p.Subtitle
		}
		if p.Title == "" {
			p.Title = osu.ColumnTitle(k)
		}
		for i, name := range t.names {
			var pts []plot.Point
			for _, r := range rows {
				if r.has[i] && r.size > 0 && r.median[i] > 0 {
					pts = append(pts, plot.Point{X: float64(r.size), Y: r.median[i]})
				}
			}
			if len(pts) > 0 {
				p.Series = append(p.Series, plot.Series{Name: name, Points: pts})
			}
		}
		sizes := 0
		for _, r := range rows {
			if r.size > 0 {
				sizes++
			}
		}
		if sizes >= 2 && len(p.Series) > 0 {
			panels = append(panels, p)
		}
	}
	if len(panels) == 0 {
		return errors.New("-svg: no group has two or more sizes to plot")
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := plot.WriteStack(f, panels); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
