// Package report is the output format of bench/osu_skew: its column header,
// its rows, a reader for them (bench/plot/cmd/skewplot reads the outputs of
// several modes), and the size and list syntax of its flags ("64K,256K,1M").
//
// An output is '#' comment lines, one of which names the columns,
//
//	# S n c1 c2 producer_us twocopy_us direct_us t_isend_us t_recv_us t_waitall_us eager direct raises lowers threshold
//
// followed by one whitespace-separated row per (S, c2). Lines that are
// neither (launcher noise, --tag-output prefixes) are skipped by Parse.
package report

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Row is one (S, c2) measurement. Times are in microseconds.
type Row struct {
	S  int     // message size, bytes
	N  int     // window: messages per iteration
	C1 float64 // producer's busy work per message
	C2 float64 // consumer's busy work per message

	Producer float64 // median producer time per window (Isends + Waitall)
	TwoCopy  float64 // seed formula (c1 + t_isend)·n + t_waitall
	Direct   float64 // seed formula (t_recv + c2)·n + t_waitall

	Isend   float64 // mean Isend call time in this row's timed iterations
	Recv    float64 // consumer's mean Recv time in the size's c2=0 pass
	Waitall float64 // producer's median Waitall time in the size's c2=0 pass

	// Counters(1) deltas on the producer over the row (warm-up and timed
	// iterations), and the threshold toward rank 1 after it.
	Eager, DirectMsgs, Raises, Lowers uint64
	Threshold                         int
}

// Columns are the names of the row fields in output order.
var Columns = []string{
	"S", "n", "c1", "c2",
	"producer_us", "twocopy_us", "direct_us",
	"t_isend_us", "t_recv_us", "t_waitall_us",
	"eager", "direct", "raises", "lowers", "threshold",
}

// WriteColumns writes the column header line.
func WriteColumns(w io.Writer) error {
	_, err := fmt.Fprintf(w, "# %s\n", strings.Join(Columns, " "))
	return err
}

// WriteRow writes one row, fields separated by single spaces.
func WriteRow(w io.Writer, r Row) error {
	_, err := fmt.Fprintf(w, "%d %d %s %s %.2f %.2f %.2f %.3f %.3f %.2f %d %d %d %d %d\n",
		r.S, r.N, fmtFloat(r.C1), fmtFloat(r.C2),
		r.Producer, r.TwoCopy, r.Direct,
		r.Isend, r.Recv, r.Waitall,
		r.Eager, r.DirectMsgs, r.Raises, r.Lowers, r.Threshold)
	return err
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// Parse reads every row of an osu_skew output. Rows are read by column
// name, so columns added after these in a later version are ignored. It
// fails if there is no column header or no row.
func Parse(r io.Reader) ([]Row, error) {
	var (
		rows []Row
		idx  map[string]int // column name → field index
	)
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		// hympirun --tag-output: "[1,0]<stdout>:..."
		if i := strings.Index(line, "]<stdout>:"); strings.HasPrefix(line, "[") && i >= 0 {
			line = line[i+len("]<stdout>:"):]
		}
		line = strings.TrimSpace(line)
		if text, ok := strings.CutPrefix(line, "#"); ok {
			f := strings.Fields(text)
			if len(f) > 1 && f[0] == Columns[0] && f[1] == Columns[1] {
				idx = make(map[string]int, len(f))
				for i, name := range f {
					idx[name] = i
				}
				for _, c := range Columns {
					if _, ok := idx[c]; !ok {
						return nil, fmt.Errorf("report: column header %q lacks %q", line, c)
					}
				}
			}
			continue
		}
		if idx == nil {
			continue
		}
		if row, ok := parseRow(strings.Fields(line), idx); ok {
			rows = append(rows, row)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if idx == nil {
		return nil, errors.New("report: no osu_skew column header")
	}
	if len(rows) == 0 {
		return nil, errors.New("report: no data rows")
	}
	return rows, nil
}

func parseRow(f []string, idx map[string]int) (Row, bool) {
	if len(f) < len(idx) {
		return Row{}, false
	}
	ok := true
	num := func(col string) float64 {
		v, err := strconv.ParseFloat(f[idx[col]], 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			ok = false
		}
		return v
	}
	whole := func(col string) uint64 {
		v, err := strconv.ParseUint(f[idx[col]], 10, 64)
		if err != nil {
			ok = false
		}
		return v
	}
	r := Row{
		S: int(whole("S")), N: int(whole("n")), C1: num("c1"), C2: num("c2"),
		Producer: num("producer_us"), TwoCopy: num("twocopy_us"), Direct: num("direct_us"),
		Isend: num("t_isend_us"), Recv: num("t_recv_us"), Waitall: num("t_waitall_us"),
		Eager: whole("eager"), DirectMsgs: whole("direct"), Raises: whole("raises"), Lowers: whole("lowers"),
		Threshold: int(whole("threshold")),
	}
	return r, ok
}

// maxSize keeps a size within what an MPI count (a C int) can express.
const maxSize = 1<<31 - 1

// ParseSize reads a byte count: a whole number with an optional binary
// suffix K, M or G (or KiB, MiB, GiB; any case), e.g. 65536, 64K, 1M.
func ParseSize(s string) (int, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	mult := 1
	for _, u := range []struct {
		suffix string
		mult   int
	}{{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}} {
		if rest, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = rest, u.mult
			break
		}
	}
	n, err := strconv.Atoi(t)
	switch {
	case err != nil:
		return 0, fmt.Errorf("size %q: not a whole number with an optional K, M or G", s)
	case n < 0:
		return 0, fmt.Errorf("size %q: negative", s)
	case n > maxSize/mult:
		return 0, fmt.Errorf("size %q: above %d bytes", s, maxSize)
	}
	return n * mult, nil
}

// ParseSizes reads a comma-separated list of sizes.
func ParseSizes(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := ParseSize(f)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// ParseMicros reads a comma-separated list of non-negative durations in
// microseconds (decimals allowed), e.g. "0,10,50.5".
func ParseMicros(s string) ([]float64, error) {
	var out []float64
	for f := range strings.SplitSeq(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%q: not a number of microseconds", f)
		}
		if v < 0 {
			return nil, fmt.Errorf("%q: negative", f)
		}
		out = append(out, v)
	}
	return out, nil
}

// FormatSize writes n with the largest binary suffix that divides it:
// 65536 → 64K, 1048576 → 1M, 1000 → 1000.
func FormatSize(n int) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return strconv.Itoa(n>>30) + "G"
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.Itoa(n>>20) + "M"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.Itoa(n>>10) + "K"
	}
	return strconv.Itoa(n)
}
