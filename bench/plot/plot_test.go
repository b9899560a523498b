package plot

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
)

// element is what the tests look at in a parsed SVG.
type svgDoc struct {
	paths   int
	titles  []string // path <title>s, i.e. series names
	texts   []string // every <text>
	circles int
}

// parse decodes an SVG with encoding/xml, failing the test if it is not
// well-formed XML with an <svg> root.
func parse(t *testing.T, data []byte) svgDoc {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(data))
	var doc svgDoc
	var stack []string
	var text strings.Builder
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v\n%s", err, data)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if len(stack) == 0 && (tok.Name.Local != "svg" || tok.Name.Space != "http://www.w3.org/2000/svg") {
				t.Fatalf("root element %v, want svg in the SVG namespace", tok.Name)
			}
			stack = append(stack, tok.Name.Local)
			text.Reset()
			switch tok.Name.Local {
			case "path":
				doc.paths++
			case "circle":
				doc.circles++
			}
		case xml.CharData:
			text.Write(tok)
		case xml.EndElement:
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			switch {
			case top == "title" && len(stack) > 0 && stack[len(stack)-1] == "path":
				doc.titles = append(doc.titles, text.String())
			case top == "text":
				doc.texts = append(doc.texts, text.String())
			}
		}
	}
	if len(stack) != 0 {
		t.Fatalf("unclosed elements %v", stack)
	}
	return doc
}

func TestWrite(t *testing.T) {
	p := Plot{
		Title:  `producer time, S=64K <"&">`,
		XLabel: "c2 (µs)",
		YLabel: "producer time (µs)",
		Series: []Series{
			{"off", []Point{{0, 100}, {10, 120}, {500, 140}}},
			{"auto", []Point{{500, 150}, {0, 90}, {10, 130}}}, // unsorted: drawn by X
			{"always & co", []Point{{0, 80}, {10, 400}, {500, 8000}}},
		},
	}
	for _, logs := range [][2]bool{{false, false}, {false, true}} {
		p.LogX, p.LogY = logs[0], logs[1]
		var buf bytes.Buffer
		if err := Write(&buf, p); err != nil {
			t.Fatal(err)
		}
		doc := parse(t, buf.Bytes())
		if doc.paths != len(p.Series) {
			t.Errorf("%d paths, want one per series (%d)", doc.paths, len(p.Series))
		}
		if want := []string{"off", "auto", "always & co"}; !slices.Equal(doc.titles, want) {
			t.Errorf("path titles %q, want %q", doc.titles, want)
		}
		if doc.circles != 9 {
			t.Errorf("%d point markers, want 9", doc.circles)
		}
		for _, want := range []string{p.Title, p.XLabel, p.YLabel, "off", "auto", "always & co"} {
			if !slices.Contains(doc.texts, want) {
				t.Errorf("no text %q in %q", want, doc.texts)
			}
		}
	}
}

func TestWriteLogX(t *testing.T) {
	var buf bytes.Buffer
	err := Write(&buf, Plot{LogX: true, Series: []Series{{"a", []Point{{1, 1}, {10, 2}, {1000, 3}}}}})
	if err != nil {
		t.Fatal(err)
	}
	doc := parse(t, buf.Bytes())
	for _, want := range []string{"1", "10", "100", "1000"} {
		if !slices.Contains(doc.texts, want) {
			t.Errorf("log x axis: no tick %q in %q", want, doc.texts)
		}
	}
	// Points are placed by log10: x=10 is a third of the way from 1 to 1000.
	a := newAxis([]float64{1, 1000}, true, false, 0, 300)
	if got := a.pos(10); math.Abs(got-100) > 1e-9 {
		t.Errorf("log axis: pos(10) = %v, want 100", got)
	}
}

func TestWriteErrors(t *testing.T) {
	ok := []Series{{"a", []Point{{1, 1}}}}
	tests := []struct {
		name string
		p    Plot
	}{
		{"no series", Plot{}},
		{"empty series", Plot{Series: []Series{{"a", nil}}}},
		{"NaN", Plot{Series: []Series{{"a", []Point{{math.NaN(), 1}}}}}},
		{"Inf", Plot{Series: []Series{{"a", []Point{{1, math.Inf(1)}}}}}},
		{"zero on log x", Plot{LogX: true, Series: []Series{{"a", []Point{{0, 1}}}}}},
		{"negative on log y", Plot{LogY: true, Series: []Series{{"a", []Point{{1, -1}}}}}},
		{"too small", Plot{Width: 100, Height: 100, Series: ok}},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		if err := Write(&buf, tt.p); err == nil {
			t.Errorf("%s: no error", tt.name)
		} else if buf.Len() != 0 {
			t.Errorf("%s: wrote %d bytes before failing", tt.name, buf.Len())
		}
	}
}

func TestLinearTicks(t *testing.T) {
	tests := []struct {
		vs   []float64
		zero bool
		want []string
	}{
		{[]float64{0, 500}, false, []string{"0", "100", "200", "300", "400", "500"}},
		{[]float64{120, 8000}, true, []string{"0", "2000", "4000", "6000", "8000"}},
		{[]float64{0.1, 0.3}, false, []string{"0.1", "0.15", "0.2", "0.25", "0.3"}},
		{[]float64{7, 7}, false, []string{"2", "4", "6", "8", "10", "12"}},
		{[]float64{0, 0}, true, []string{"0", "0.2", "0.4", "0.6", "0.8", "1"}},
		{[]float64{-3, 2}, false, []string{"-3", "-2", "-1", "0", "1", "2"}},
	}
	for _, tt := range tests {
		a := newAxis(tt.vs, false, tt.zero, 0, 100)
		var got []string
		for _, tk := range a.ticks {
			got = append(got, tk.label)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("ticks over %v (zero %v) = %q, want %q", tt.vs, tt.zero, got, tt.want)
		}
		// Every value lies inside the axis.
		for _, v := range tt.vs {
			if p := a.pos(v); p < -1e-9 || p > 100+1e-9 {
				t.Errorf("value %v outside the axis over %v: pixel %v", v, tt.vs, p)
			}
		}
	}
}

func TestLabel(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 1: "1", 2.5: "2.5", 1000: "1000", 1e6: "1000000", 1e7: "1e+07", 0.0005: "0.0005", -1.5: "-1.5"} {
		if got := label(v); got != want {
			t.Errorf("label(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestWriteStack(t *testing.T) {
	p := Plot{Title: "a", Series: []Series{{Name: "s", Points: []Point{{1, 1}, {2, 3}}}}}
	q := p
	q.Title, q.Height = "b", 300
	var b strings.Builder
	if err := WriteStack(&b, []Plot{p, q}); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, want := range []string{`width="720" height="740"`, `<svg x="0" y="0" `, `<svg x="0" y="440" `, ">a</text>", ">b</text>"} {
		if !strings.Contains(s, want) {
			t.Errorf("no %q in\n%.300s", want, s)
		}
	}
	if err := xml.Unmarshal([]byte(s), new(struct{})); err != nil {
		t.Errorf("not well-formed: %v", err)
	}
	if err := WriteStack(&b, nil); err == nil {
		t.Error("no plots: no error")
	}
	if err := WriteStack(&b, []Plot{p, {Title: "empty"}}); err == nil {
		t.Error("a plot with no series: no error")
	}
}

func TestSubtitle(t *testing.T) {
	p := Plot{Title: "what", Subtitle: "where & how", Series: []Series{{Name: "a", Points: []Point{{1, 1}, {2, 2}}}}}
	var with, without strings.Builder
	if err := Write(&with, p); err != nil {
		t.Fatal(err)
	}
	p.Subtitle = ""
	if err := Write(&without, p); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(with.String(), ">where &amp; how</text>") || strings.Contains(without.String(), "where") {
		t.Fatalf("subtitle not drawn, or drawn when empty:\n%s", with.String())
	}
	// The plotting area moves down to make room.
	if !strings.Contains(with.String(), fmt.Sprintf(`y="%d.0"`, marginTop+subtitleHeight)) {
		t.Errorf("plotting area does not start below the subtitle")
	}
}

func TestWhereAndRuns(t *testing.T) {
	d := t.TempDir()
	info := d + "/cpuinfo"
	if err := os.WriteFile(info, []byte("processor\t: 0\nmodel name\t: Intel(R)  Xeon(R) CPU E5345 @ 2.33GHz\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ path, want string }{
		{info, "Intel(R) Xeon(R) CPU E5345 @ 2.33GHz, 8 CPUs"},
		{d + "/missing", "unknown CPU, 8 CPUs"},
	}
	for _, tc := range tests {
		if got := where(tc.path, 8); got != tc.want {
			t.Errorf("where(%s) = %q, want %q", tc.path, got, tc.want)
		}
	}
	for _, tc := range []struct {
		lo, hi int
		want   string
	}{{5, 5, "median of 5 runs"}, {1, 1, "1 run"}, {3, 5, "median of 3–5 runs"}} {
		if got := Runs(tc.lo, tc.hi); got != tc.want {
			t.Errorf("Runs(%d, %d) = %q, want %q", tc.lo, tc.hi, got, tc.want)
		}
	}
}
