package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testdata/{off,auto,always}.txt are real osu_skew outputs (S 64K and 1M,
// c2 0, 50, 200 µs, -i 5 -x 1) under HYMPI_DIRECT=off, auto and always.
var modes = []string{"off=testdata/off.txt", "auto=testdata/auto.txt", "always=testdata/always.txt"}

func TestSVG(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "skew.svg")
	var stdout, stderr bytes.Buffer
	if err := run(&stdout, &stderr, append([]string{"-S", "1M", "-o", svg, "-where", "Test CPU, 2 CPUs"}, modes...)); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if stdout.Len() != 0 {
		t.Errorf("-o alone printed to stdout:\n%s", stdout.String())
	}
	data, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	// Well-formed XML with one path per mode, named after it.
	d := xml.NewDecoder(bytes.NewReader(data))
	var paths []string
	inPathTitle := false
	depthInPath := 0
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if tok.Name.Local == "path" {
				depthInPath = 1
				paths = append(paths, "")
			} else if depthInPath > 0 {
				depthInPath++
				inPathTitle = tok.Name.Local == "title"
			}
		case xml.EndElement:
			if depthInPath > 0 {
				depthInPath--
			}
			inPathTitle = false
		case xml.CharData:
			if inPathTitle {
				paths[len(paths)-1] += string(tok)
			}
		}
	}
	if want := []string{"off", "auto", "always"}; strings.Join(paths, ",") != strings.Join(want, ",") {
		t.Errorf("paths %q, want %q", paths, want)
	}
	if !bytes.Contains(data, []byte("S=1M, n=16, c1=1 µs")) {
		t.Errorf("title lacks the size and settings:\n%s", data)
	}
	if !bytes.Contains(data, []byte(">Test CPU, 2 CPUs; 1 run per mode</text>")) {
		t.Errorf("subtitle lacks where and how many runs:\n%s", data)
	}
	// The time axis is logarithmic by default (a linear one starts at 0),
	// and linear on request.
	zeroTick := []byte(`text-anchor="end">0</text>`)
	if bytes.Contains(data, zeroTick) {
		t.Errorf("time axis is not logarithmic:\n%s", data)
	}
	if err := run(&stdout, &stderr, append([]string{"-S", "1M", "-o", svg, "-logy=false"}, modes...)); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(svg); !bytes.Contains(data, zeroTick) {
		t.Errorf("-logy=false: time axis is not linear:\n%s", data)
	}
}

func TestTable(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := run(&stdout, &stderr, modes); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	out := stdout.String()
	// Medians are single runs here; ratios are auto over the others.
	for _, want := range []string{
		"median over runs (off 1, auto 1, always 1); n=16, c1=1 µs",
		"|   S | c2 (µs) |    off |   auto | always | auto/off | auto/always |",
		"| 64K |       0 |  147.9 |  160.9 |   88.2 |     1.09 |        1.83 |",
		"|  1M |     200 | 1652.4 | 4445.2 | 4379.6 |     2.69 |        1.01 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "\n|"); n != 2+6 {
		t.Errorf("%d table lines, want header, rule and 6 rows:\n%s", n, out)
	}
}

func TestDetailsAndMedian(t *testing.T) {
	// The same file twice in one set and a glob: three runs of off, whose
	// median is the value of the run given twice.
	var stdout, stderr bytes.Buffer
	args := []string{"-details", "-", "off=testdata/off.txt", "off=testdata/off.txt,testdata/al*.txt"}
	if err := run(&stdout, &stderr, args); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{
		"off: producer time and the seed's formulas",
		"|  1M |       0 |   1232.8 |           1261.8 |         1308.7 |        102 |           0 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("details lack %q:\n%s", want, out)
		}
	}
}

func TestErrors(t *testing.T) {
	tests := [][]string{
		{},                             // no sets
		{"off"},                        // not NAME=FILE
		{"off=testdata/nothing-*.txt"}, // glob matches nothing
		{"-o", "/dev/null", modes[0]},  // two sizes, no -S
		{"-S", "2M", "-o", "/dev/null", modes[0]}, // no rows at that size
		{"-S", "lots", "-o", "/dev/null", modes[0]},
		{"off=main.go"}, // not an osu_skew output
	}
	for _, args := range tests {
		if err := run(io.Discard, io.Discard, args); err == nil {
			t.Errorf("skewplot %q: no error", args)
		}
	}
}
