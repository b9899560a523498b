package osu

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Row is one line of an OSU table: a message size and its value in the
// unit of the result's Kind.
type Row struct {
	Size  int
	Value float64
}

// Result is one OSU-format output as read by Parse.
type Result struct {
	Kind  Kind
	Title string // the first '#' line without its "# ", e.g. "OSU MPI Latency Test v7.3"
	Rows  []Row  // in output order; a size may repeat if outputs were concatenated
}

// ompiTag is the prefix Open MPI's --tag-output puts on each line,
// "[jobid,rank]<stdout>:"; it is stripped so tagged logs parse too.
const ompiTag = "]<stdout>:"

// Parse reads OSU-format output: OSU's own binaries (any version),
// bench/c/osu_pt2pt and hympi's Go benchmarks. Whatever the launcher or the
// MPI library mixes into the stream (Open MPI's warning banners, hwloc
// notices, blank lines) is skipped: only lines after the "# Size" column
// header whose first two fields are a size and a finite number are rows.
// Extra columns (OSU's -f: min, max, iterations) are ignored.
//
// OSU's barriers print a table without a size column ("# Avg Latency(us)"
// and rows of values alone); their rows read as size 0.
func Parse(r io.Reader) (Result, error) {
	var res Result
	header, sizeless := false, false
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.Index(line, ompiTag); strings.HasPrefix(line, "[") && i >= 0 {
			line = line[i+len(ompiTag):]
		}
		line = strings.TrimSpace(line)
		if text, ok := strings.CutPrefix(line, "#"); ok {
			text = strings.TrimSpace(text)
			if res.Title == "" {
				res.Title = text
			}
			if col, ok := strings.CutPrefix(text, "Size"); ok {
				k := columnKind(col)
				if k == 0 {
					return Result{}, fmt.Errorf("osu: unknown column header %q", line)
				}
				if res.Kind != 0 && res.Kind != k {
					return Result{}, fmt.Errorf("osu: output mixes %v and %v tables", res.Kind, k)
				}
				res.Kind, header, sizeless = k, true, false
			} else if strings.HasPrefix(text, "Avg Latency") {
				if res.Kind != 0 && res.Kind != Latency {
					return Result{}, fmt.Errorf("osu: output mixes %v and %v tables", res.Kind, Latency)
				}
				res.Kind, header, sizeless = Latency, true, true
			}
			continue
		}
		if !header {
			continue
		}
		if sizeless {
			if v, ok := parseValue(strings.Fields(line)); ok {
				res.Rows = append(res.Rows, Row{0, v})
			}
			continue
		}
		if row, ok := parseRow(line); ok {
			res.Rows = append(res.Rows, row)
		}
	}
	if err := sc.Err(); err != nil {
		return Result{}, err
	}
	if !header {
		return Result{}, errors.New("osu: no \"# Size\" column header")
	}
	if len(res.Rows) == 0 {
		return Result{}, errors.New("osu: no data rows")
	}
	return res, nil
}

// columnKind reads the unit from the rest of a "# Size ..." line. OSU's
// bandwidth-like tests (osu_bw, osu_bibw, osu_mbw_mr) all report MB/s.
func columnKind(col string) Kind {
	switch {
	case strings.Contains(col, "Latency"), strings.Contains(col, "(us)"):
		return Latency
	case strings.Contains(col, "Bandwidth"), strings.Contains(col, "MB/s"):
		return Bandwidth
	}
	return 0
}

func parseRow(line string) (Row, bool) {
	f := strings.Fields(line)
	if len(f) < 2 {
		return Row{}, false
	}
	size, err := strconv.Atoi(f[0])
	if err != nil || size < 0 {
		return Row{}, false
	}
	v, err := strconv.ParseFloat(f[1], 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return Row{}, false
	}
	return Row{size, v}, true
}

// parseValue reads the first field of a sizeless row.
func parseValue(f []string) (float64, bool) {
	if len(f) < 1 {
		return 0, false
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}
