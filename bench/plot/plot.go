// Package plot writes small line plots as SVG, with no dependencies beyond
// the standard library: a title, axis labels, linear or logarithmic axes,
// several named series of (x, y) points and a legend. It is meant for
// benchmark tooling (bench/plot/cmd/skewplot), not for publication: the
// layout is fixed and every series is drawn as one <path> with a circle at
// each point.
package plot

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Point is one (x, y) sample.
type Point struct{ X, Y float64 }

// Series is a named line. Its points are drawn in order of X.
type Series struct {
	Name   string
	Points []Point
}

// Plot describes one chart.
type Plot struct {
	Title, XLabel, YLabel string
	// Subtitle is a second, smaller title line: where and how the numbers
	// were measured (see Where).
	Subtitle string
	// LogX and LogY make an axis logarithmic (base 10); every value on a
	// logarithmic axis must then be positive.
	LogX, LogY bool
	// Width and Height are the image size in pixels; 0 means 720×440.
	Width, Height int
	Series        []Series
}

// Default image size and the fixed margins around the plotting area (the
// legend sits in the right margin).
const (
	defaultWidth  = 720
	defaultHeight = 440
	marginLeft    = 80
	marginRight   = 170
	marginTop     = 40
	marginBottom  = 56
	// subtitleHeight is the room a subtitle adds above the plotting area.
	subtitleHeight = 16
)

// palette is the series colours, in order; after the last, colours repeat
// with a dash pattern.
var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"}

var dashes = []string{"", "6,3", "2,3", "8,3,2,3"}

// Write renders p as an SVG document. It fails, writing nothing, if p has
// no series, a series has no points, a value is NaN or infinite, a value on
// a logarithmic axis is not positive, or the image is too small for the
// margins.
func Write(w io.Writer, p Plot) error {
	if p.Width == 0 {
		p.Width = defaultWidth
	}
	if p.Height == 0 {
		p.Height = defaultHeight
	}
	top := marginTop
	if p.Subtitle != "" {
		top += subtitleHeight
	}
	if p.Width < marginLeft+marginRight+50 || p.Height < top+marginBottom+50 {
		return fmt.Errorf("plot: image %d×%d too small", p.Width, p.Height)
	}
	if len(p.Series) == 0 {
		return errors.New("plot: no series")
	}
	var xs, ys []float64
	for _, s := range p.Series {
		if len(s.Points) == 0 {
			return fmt.Errorf("plot: series %q has no points", s.Name)
		}
		for _, pt := range s.Points {
			if bad(pt.X) || bad(pt.Y) {
				return fmt.Errorf("plot: series %q: point (%v, %v) is not finite", s.Name, pt.X, pt.Y)
			}
			if p.LogX && pt.X <= 0 || p.LogY && pt.Y <= 0 {
				return fmt.Errorf("plot: series %q: point (%v, %v) is not positive on a logarithmic axis", s.Name, pt.X, pt.Y)
			}
			xs = append(xs, pt.X)
			ys = append(ys, pt.Y)
		}
	}
	x := newAxis(xs, p.LogX, false, float64(marginLeft), float64(p.Width-marginRight))
	// The y axis of a linear plot starts at 0 when all values are positive,
	// so heights compare as ratios; SVG's y grows downward.
	y := newAxis(ys, p.LogY, true, float64(p.Height-marginBottom), float64(top))

	var b strings.Builder
	x0, x1 := float64(marginLeft), float64(p.Width-marginRight)
	y0, y1 := float64(p.Height-marginBottom), float64(top)
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		p.Width, p.Height, p.Width, p.Height)
	fmt.Fprintf(&b, `<rect x="0" y="0" width="%d" height="%d" fill="white"/>`+"\n", p.Width, p.Height)
	if p.Title != "" {
		fmt.Fprintf(&b, `<text x="%s" y="22" text-anchor="middle" font-size="15" font-weight="bold">%s</text>`+"\n",
			num((x0+x1)/2), esc(p.Title))
	}
	if p.Subtitle != "" {
		fmt.Fprintf(&b, `<text x="%s" y="40" text-anchor="middle" fill="#444">%s</text>`+"\n",
			num((x0+x1)/2), esc(p.Subtitle))
	}
	// Grid and tick labels.
	for _, t := range x.ticks {
		px := x.pos(t.v)
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#ddd"/>`+"\n", num(px), num(y0), num(px), num(y1))
		fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="middle">%s</text>`+"\n", num(px), num(y0+17), esc(t.label))
	}
	for _, t := range y.ticks {
		py := y.pos(t.v)
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#ddd"/>`+"\n", num(x0), num(py), num(x1), num(py))
		fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="end">%s</text>`+"\n", num(x0-6), num(py+4), esc(t.label))
	}
	// Axes and their labels.
	fmt.Fprintf(&b, `<rect x="%s" y="%s" width="%s" height="%s" fill="none" stroke="black"/>`+"\n",
		num(x0), num(y1), num(x1-x0), num(y0-y1))
	if p.XLabel != "" {
		fmt.Fprintf(&b, `<text x="%s" y="%d" text-anchor="middle">%s</text>`+"\n", num((x0+x1)/2), p.Height-14, esc(p.XLabel))
	}
	if p.YLabel != "" {
		cy := (y0 + y1) / 2
		fmt.Fprintf(&b, `<text x="18" y="%s" text-anchor="middle" transform="rotate(-90 18 %s)">%s</text>`+"\n",
			num(cy), num(cy), esc(p.YLabel))
	}
	// Series, then the legend.
	for i, s := range p.Series {
		color, dash := style(i)
		pts := slices.Clone(s.Points)
		slices.SortStableFunc(pts, func(a, b Point) int { return compare(a.X, b.X) })
		var d strings.Builder
		for k, pt := range pts {
			cmd := "L"
			if k == 0 {
				cmd = "M"
			}
			fmt.Fprintf(&d, "%s%s %s ", cmd, num(x.pos(pt.X)), num(y.pos(pt.Y)))
		}
		fmt.Fprintf(&b, `<path d="%s" fill="none" stroke="%s" stroke-width="2"%s><title>%s</title></path>`+"\n",
			strings.TrimSpace(d.String()), color, dashAttr(dash), esc(s.Name))
		for _, pt := range pts {
			fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="3" fill="%s"/>`+"\n", num(x.pos(pt.X)), num(y.pos(pt.Y)), color)
		}
	}
	for i, s := range p.Series {
		color, dash := style(i)
		ly := y1 + 10 + float64(i)*20
		lx := x1 + 16
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="2"%s/>`+"\n",
			num(lx), num(ly), num(lx+24), num(ly), color, dashAttr(dash))
		fmt.Fprintf(&b, `<text x="%s" y="%s">%s</text>`+"\n", num(lx+30), num(ly+4), esc(s.Name))
	}
	b.WriteString("</svg>\n")

	bw := bufio.NewWriter(w)
	if _, err := bw.WriteString(b.String()); err != nil {
		return err
	}
	return bw.Flush()
}

func bad(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }

func compare(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func style(i int) (color, dash string) {
	return palette[i%len(palette)], dashes[(i/len(palette))%len(dashes)]
}

func dashAttr(d string) string {
	if d == "" {
		return ""
	}
	return ` stroke-dasharray="` + d + `"`
}

// num formats a pixel coordinate.
func num(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

func esc(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&quot;")
		default:
			// Characters XML 1.0 forbids (most controls) are dropped.
			if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0xFFFE || r == 0xFFFF {
				continue
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// axis maps data values to pixels.
type axis struct {
	log      bool
	lo, hi   float64 // data range after rounding to ticks, transformed (log10 on a log axis)
	from, to float64 // pixels of lo and hi
	ticks    []tick
}

type tick struct {
	v     float64 // data value
	label string
}

func (a *axis) pos(v float64) float64 {
	if a.log {
		v = math.Log10(v)
	}
	return a.from + (v-a.lo)/(a.hi-a.lo)*(a.to-a.from)
}

// newAxis chooses the range and ticks of an axis over values vs. A linear
// axis with zero set starts at 0 when every value is positive.
func newAxis(vs []float64, log, zero bool, from, to float64) *axis {
	lo, hi := slices.Min(vs), slices.Max(vs)
	a := &axis{log: log, from: from, to: to}
	if log {
		l, h := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
		if h == l {
			h = l + 1
		}
		a.lo, a.hi = l, h
		for e := l; e <= h; e++ {
			d := math.Pow(10, e)
			a.ticks = append(a.ticks, tick{d, label(d)})
			if h-l <= 2 && e < h {
				for _, m := range []float64{2, 5} {
					a.ticks = append(a.ticks, tick{m * d, label(m * d)})
				}
			}
		}
		return a
	}
	if zero && lo > 0 {
		lo = 0
	}
	if lo == hi {
		if lo == 0 {
			hi = 1
		} else {
			lo, hi = lo-math.Abs(lo)/2, hi+math.Abs(hi)/2
		}
	}
	step := niceStep((hi - lo) / 5)
	a.lo, a.hi = math.Floor(lo/step)*step, math.Ceil(hi/step)*step
	for k := 0; ; k++ {
		v := a.lo + float64(k)*step
		if v > a.hi+step/2 {
			break
		}
		// Recompute from an integer multiple so rounding does not print
		// 0.30000000000000004.
		v = math.Round(v/step) * step
		a.ticks = append(a.ticks, tick{v, label(v)})
	}
	return a
}

// niceStep rounds raw up to 1, 2 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if raw <= m*p*(1+1e-9) {
			return m * p
		}
	}
	return 10 * p
}

// label formats a tick value: plain digits for ordinary magnitudes,
// exponent notation for very large or small ones.
func label(v float64) string {
	av := math.Abs(v)
	if av != 0 && (av >= 1e7 || av < 1e-3) {
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	s := strconv.FormatFloat(v, 'f', 6, 64)
	s = strings.TrimRight(s, "0")
	s = strings.TrimSuffix(s, ".")
	if s == "-0" {
		s = "0"
	}
	return s
}

// WriteStack renders several plots one above the other in one SVG
// document, each at its own size (the widest sets the document's width).
// It fails, writing nothing, if there is no plot or any plot would fail
// alone.
func WriteStack(w io.Writer, plots []Plot) error {
	if len(plots) == 0 {
		return errors.New("plot: no plots")
	}
	var inner []string
	width, height := 0, 0
	for _, p := range plots {
		var b strings.Builder
		if err := Write(&b, p); err != nil {
			return err
		}
		if p.Width == 0 {
			p.Width = defaultWidth
		}
		if p.Height == 0 {
			p.Height = defaultHeight
		}
		// A nested <svg> is placed by its x and y attributes.
		inner = append(inner, strings.Replace(b.String(), "<svg ", fmt.Sprintf(`<svg x="0" y="%d" `, height), 1))
		width = max(width, p.Width)
		height += p.Height
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">`+"\n", width, height, width, height)
	for _, s := range inner {
		b.WriteString(s)
	}
	b.WriteString("</svg>\n")
	bw := bufio.NewWriter(w)
	if _, err := bw.WriteString(b.String()); err != nil {
		return err
	}
	return bw.Flush()
}
