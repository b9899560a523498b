package osu

import (
	"fmt"
	"io"
	"strings"
	"unicode"
)

// Column widths of OSU's table (osu_util.h: "%-*d%*.*f" with 10 and
// FIELD_WIDTH 18, FLOAT_PRECISION 2). Keeping them byte-exact lets OSU's own
// post-processing scripts read our output.
const (
	sizeWidth  = 10
	valueWidth = 18
)

// ColumnTitle is OSU's value column title for kind k.
func ColumnTitle(k Kind) string {
	if k == Bandwidth {
		return "Bandwidth (MB/s)"
	}
	return "Latency (us)"
}

// RateColumns are osu_mbw_mr's column titles: the aggregate bandwidth and
// the message rate.
var RateColumns = []string{"MB/s", "Messages/s"}

// WriteHeader writes OSU's two header lines: "# title" and the column
// header, e.g. "# Size          Latency (us)".
func WriteHeader(w io.Writer, title string, k Kind) error {
	if _, err := fmt.Fprintf(w, "# %s\n", title); err != nil {
		return err
	}
	return WriteColumns(w, ColumnTitle(k))
}

// WriteColumns writes OSU's column header line: "# Size" in 10 columns and
// each title right-aligned in 18, e.g. osu_mbw_mr's
// "# Size                  MB/s        Messages/s".
func WriteColumns(w io.Writer, titles ...string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%-*s", sizeWidth, "# Size")
	for _, t := range titles {
		fmt.Fprintf(&b, "%*s", valueWidth, t)
	}
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteRow writes one OSU row: the size left-aligned in 10 columns, then
// the value and any more values (osu_mbw_mr's message rate) each
// right-aligned in 18 with two decimals.
func WriteRow(w io.Writer, size int, value float64, more ...float64) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%-*d%*.2f", sizeWidth, size, valueWidth, value)
	for _, v := range more {
		fmt.Fprintf(&b, "%*.2f", valueWidth, v)
	}
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}

// Config is one "key: value" line of Go benchmark format, describing the
// conditions of the results that follow (benchstat groups by them).
type Config struct {
	Key, Value string
}

// WriteGoBenchConfig writes config lines. Keys must follow the Go benchmark
// format (a lower-case first letter, no spaces, no upper case), or benchstat
// would read the line as noise; a bad key is an error rather than a line
// silently dropped later.
func WriteGoBenchConfig(w io.Writer, cfg []Config) error {
	for _, c := range cfg {
		if !validConfigKey(c.Key) {
			return fmt.Errorf("osu: invalid Go benchmark config key %q", c.Key)
		}
		if strings.ContainsAny(c.Value, "\n") {
			return fmt.Errorf("osu: config value for %q spans lines", c.Key)
		}
		if _, err := fmt.Fprintf(w, "%s: %s\n", c.Key, c.Value); err != nil {
			return err
		}
	}
	return nil
}

func validConfigKey(k string) bool {
	if k == "" {
		return false
	}
	for i, r := range k {
		if (i == 0 && !unicode.IsLower(r)) || unicode.IsSpace(r) || unicode.IsUpper(r) {
			return false
		}
	}
	return true
}

// Metric is an extra value/unit pair on a Go benchmark line, e.g. MB/s.
type Metric struct {
	Value float64
	Unit  string
}

// WriteGoBenchResult writes one Go benchmark line named
// "Benchmark<name>/size=<size>" with n operations at nsPerOp each, plus any
// extra metrics. Each repetition of a sweep writes its own line; benchstat
// computes the median and confidence interval over them.
func WriteGoBenchResult(w io.Writer, name string, size, n int, nsPerOp float64, extra ...Metric) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Benchmark%s/size=%d\t%8d\t%12.1f ns/op", name, size, n, nsPerOp)
	for _, m := range extra {
		fmt.Fprintf(&b, "\t%12.2f %s", m.Value, m.Unit)
	}
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}
