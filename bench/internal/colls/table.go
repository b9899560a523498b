package colls

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/hympi/hympi/bench/internal/osu"
)

// Impls are the columns of the tables, in order; "ompi" is the reference.
var Impls = []string{"ompi", "hympi-C", "hympi-Go", "mpich"}

var implNames = map[string]string{"ompi": "Open MPI", "hympi-C": "hympi-C", "hympi-Go": "hympi-Go", "mpich": "MPICH"}

// key is one measurement across repetitions.
type key struct {
	impl  string
	ranks int
	coll  Coll
	form  Form
	size  int
	tests int // overlap only
}

// Results are the parsed runs of one comparison.
type Results struct {
	times    map[key][]float64 // microseconds per call, one per repetition
	overlaps map[key][]float64 // percent
	wrong    map[key]bool
	skips    map[string]string // "impl ranks coll form" → reason
	ranks    []int
	sizes    []int
	tests    []int
	impls    map[string]bool
}

var fileName = regexp.MustCompile(`^n([0-9]+)\.([A-Za-z-]+)\.([0-9]+)\.txt$`)

// LoadResults reads every n<RANKS>.<IMPL>.<REP>.txt of dir.
func LoadResults(dir string) (*Results, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	r := &Results{times: map[key][]float64{}, overlaps: map[key][]float64{}, wrong: map[key]bool{},
		skips: map[string]string{}, impls: map[string]bool{}}
	for _, e := range ents {
		m := fileName.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		ranks, _ := strconv.Atoi(m[1])
		impl := m[2]
		if _, ok := implNames[impl]; !ok {
			return nil, fmt.Errorf("%s: unknown implementation %q", e.Name(), impl)
		}
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out, err := Parse(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name(), err)
		}
		r.Add(impl, ranks, out)
	}
	if len(r.impls) == 0 {
		return nil, fmt.Errorf("%s: no n<RANKS>.<IMPL>.<REP>.txt outputs", dir)
	}
	return r, nil
}

// Add records one run of impl on ranks ranks.
func (r *Results) Add(impl string, ranks int, out Output) {
	r.impls[impl] = true
	addInt := func(s []int, v int) []int {
		if !slices.Contains(s, v) {
			s = append(s, v)
			slices.Sort(s)
		}
		return s
	}
	r.ranks = addInt(r.ranks, ranks)
	for _, row := range out.Rows {
		k := key{impl, ranks, row.Coll, row.Form, row.Size, 0}
		r.times[k] = append(r.times[k], row.Avg)
		r.wrong[k] = r.wrong[k] || !row.OK
		if row.Coll != Barrier {
			r.sizes = addInt(r.sizes, row.Size)
		}
	}
	for _, o := range out.Overlaps {
		k := key{impl, ranks, o.Coll, Overlap, o.Size, o.Tests}
		r.overlaps[k] = append(r.overlaps[k], o.Percent())
		r.wrong[k] = r.wrong[k] || !o.OK
		r.tests = addInt(r.tests, o.Tests)
	}
	for _, s := range out.Skips {
		r.skips[fmt.Sprintf("%s %d %s %s", implNames[impl], ranks, s.Coll, s.Form)] = s.Reason
	}
}

func (r *Results) median(m map[key][]float64, k key) (float64, bool) {
	v := m[k]
	if len(v) == 0 {
		return 0, false
	}
	return osu.Median(v), true
}

// SizeLabel is a size in bytes as the tables show it: 8 B, 64 KiB, 4 MiB.
func SizeLabel(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

// ratio formats a/b, with a mark when either side computed a wrong result.
func ratioCell(a, b float64, okA, okB, wrong bool) string {
	if !okA || !okB || b <= 0 {
		return "n/a"
	}
	s := fmt.Sprintf("%.2f", a/b)
	if wrong {
		s += " WRONG"
	}
	return s
}

// WriteMarkdown writes, per job size, the latency table and the overlap
// table, then the notes (skipped forms, wrong results).
func (r *Results) WriteMarkdown(w io.Writer, cpus int) error {
	var b strings.Builder
	impls := []string{}
	for _, i := range Impls {
		if r.impls[i] {
			impls = append(impls, i)
		}
	}
	hympis := []string{}
	for _, i := range []string{"hympi-C", "hympi-Go"} {
		if r.impls[i] {
			hympis = append(hympis, i)
		}
	}
	var wrongs []string
	for _, n := range r.ranks {
		title := fmt.Sprintf("%d ranks", n)
		if cpus > 0 && n > cpus {
			title += fmt.Sprintf(" (oversubscribed on %d CPUs)", cpus)
		}
		fmt.Fprintf(&b, "#### %s: time relative to Open MPI (below 1: faster)\n\n", title)
		b.WriteString("| collective | size | Open MPI µs |")
		for _, i := range impls[1:] {
			fmt.Fprintf(&b, " %s |", implNames[i])
		}
		for _, h := range hympis {
			fmt.Fprintf(&b, " %s nb/b | %s p/b |", h, h)
		}
		b.WriteString("\n|---|---:|---:|")
		b.WriteString(strings.Repeat("---:|", len(impls)-1+2*len(hympis)))
		b.WriteString("\n")
		for c := range NumColls {
			sizes := r.sizes
			if c == Barrier {
				sizes = []int{0}
			}
			for _, s := range sizes {
				ref := key{"ompi", n, c, Blocking, s, 0}
				refT, refOK := r.median(r.times, ref)
				any := refOK
				var cells []string
				label := SizeLabel(s)
				if c == Barrier {
					label = "–"
				}
				if refOK {
					cell := fmt.Sprintf("%.2f", refT)
					if r.wrong[ref] {
						cell += " WRONG"
					}
					cells = append(cells, cell)
				} else {
					cells = append(cells, "n/a")
				}
				for _, i := range impls[1:] {
					k := key{i, n, c, Blocking, s, 0}
					t, ok := r.median(r.times, k)
					any = any || ok
					cells = append(cells, ratioCell(t, refT, ok, refOK, r.wrong[k] || r.wrong[ref]))
				}
				for _, h := range hympis {
					bk := key{h, n, c, Blocking, s, 0}
					bt, bok := r.median(r.times, bk)
					for _, f := range []Form{NonBlocking, Persistent} {
						k := key{h, n, c, f, s, 0}
						t, ok := r.median(r.times, k)
						cells = append(cells, ratioCell(t, bt, ok, bok, r.wrong[k] || r.wrong[bk]))
					}
				}
				if !any {
					continue
				}
				fmt.Fprintf(&b, "| %s | %s | %s |\n", c, label, strings.Join(cells, " | "))
			}
		}
		b.WriteString("\n")
		if len(r.tests) > 0 {
			fmt.Fprintf(&b, "#### %s: overlap %% (OSU's osu_i* method; higher is better)\n\n", title)
			b.WriteString("| collective | size | MPI_Test calls |")
			for _, i := range impls {
				fmt.Fprintf(&b, " %s |", implNames[i])
			}
			b.WriteString("\n|---|---:|---:|" + strings.Repeat("---:|", len(impls)) + "\n")
			for _, c := range []Coll{Allreduce, Bcast, Alltoall} {
				for _, s := range r.sizes {
					for _, t := range r.tests {
						var cells []string
						any := false
						for _, i := range impls {
							k := key{i, n, c, Overlap, s, t}
							v, ok := r.median(r.overlaps, k)
							any = any || ok
							cell := "n/a"
							if ok {
								cell = fmt.Sprintf("%.0f", v)
								if r.wrong[k] {
									cell += " WRONG"
								}
							}
							cells = append(cells, cell)
						}
						if any {
							fmt.Fprintf(&b, "| i%s | %s | %d | %s |\n", c, SizeLabel(s), t, strings.Join(cells, " | "))
						}
					}
				}
			}
			b.WriteString("\n")
		}
	}
	for k, bad := range r.wrong {
		if bad {
			wrongs = append(wrongs, fmt.Sprintf("- WRONG result: %s, %d ranks, %s %s %s", implNames[k.impl], k.ranks, k.coll, k.form, SizeLabel(k.size)))
		}
	}
	sort.Strings(wrongs)
	var skips []string
	for what, why := range r.skips {
		skips = append(skips, fmt.Sprintf("- not measured: %s (%s)", what, why))
	}
	sort.Strings(skips)
	if len(wrongs)+len(skips) > 0 {
		b.WriteString("Notes:\n\n")
		for _, s := range append(wrongs, skips...) {
			b.WriteString(s + "\n")
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteSummary writes the short form of the tables for the README: per
// job size one row per collective with hympi-C / hympi-Go ratios to Open
// MPI at each size, the median nonblocking/blocking and
// persistent/blocking ratios over all collectives and sizes, and the
// overlap of hympi-C, hympi-Go and Open MPI.
func (r *Results) WriteSummary(w io.Writer, cpus int) error {
	var b strings.Builder
	hympis := []string{}
	for _, i := range []string{"hympi-C", "hympi-Go"} {
		if r.impls[i] {
			hympis = append(hympis, i)
		}
	}
	cell := func(n int, impl string, c Coll, f Form, s int, ref string, refForm Form) (float64, bool, bool) {
		k, rk := key{impl, n, c, f, s, 0}, key{ref, n, c, refForm, s, 0}
		t, ok := r.median(r.times, k)
		rt, rok := r.median(r.times, rk)
		if !ok || !rok || rt <= 0 {
			return 0, false, false
		}
		return t / rt, true, r.wrong[k] || r.wrong[rk]
	}
	for _, n := range r.ranks {
		title := fmt.Sprintf("%d ranks", n)
		if cpus > 0 && n > cpus {
			title += fmt.Sprintf(" on %d CPUs", cpus)
		}
		fmt.Fprintf(&b, "**%s**: time relative to Open MPI's, %s:\n\n| collective |", title, strings.Join(hympis, " / "))
		for _, s := range r.sizes {
			fmt.Fprintf(&b, " %s |", SizeLabel(s))
		}
		b.WriteString("\n|---|" + strings.Repeat("---:|", len(r.sizes)) + "\n")
		for c := range NumColls {
			sizes := r.sizes
			if c == Barrier {
				sizes = r.sizes[:1]
			}
			var cells []string
			any := false
			for _, s := range sizes {
				size := s
				if c == Barrier {
					size = 0
				}
				var parts []string
				for _, h := range hympis {
					v, ok, wrong := cell(n, h, c, Blocking, size, "ompi", Blocking)
					switch {
					case !ok:
						parts = append(parts, "–")
					case wrong:
						any = true
						parts = append(parts, fmt.Sprintf("%.2f WRONG", v))
					default:
						any = true
						parts = append(parts, fmt.Sprintf("%.2f", v))
					}
				}
				cells = append(cells, strings.Join(parts, " / "))
			}
			if c == Barrier {
				for len(cells) < len(r.sizes) {
					cells = append(cells, "")
				}
			}
			if any {
				fmt.Fprintf(&b, "| %s | %s |\n", c, strings.Join(cells, " | "))
			}
		}
		b.WriteString("\n")
		for _, h := range hympis {
			for _, f := range []Form{NonBlocking, Persistent} {
				var v []float64
				over := 0
				for c := range NumColls {
					for _, s := range append([]int{0}, r.sizes...) {
						if x, ok, _ := cell(n, h, c, f, s, h, Blocking); ok {
							v = append(v, x)
							if x > 1.1 {
								over++
							}
						}
					}
				}
				if len(v) > 0 {
					fmt.Fprintf(&b, "- %s %s/b: median %.2f over %d collective × size cells, %d above 1.1 (range %.2f–%.2f)\n",
						h, f, osu.Median(v), len(v), over, slices.Min(v), slices.Max(v))
				}
			}
		}
		if len(r.tests) > 0 {
			b.WriteString("\nOverlap %, hympi-C / hympi-Go / Open MPI:\n\n| collective | MPI_Test calls |")
			for _, s := range r.sizes {
				fmt.Fprintf(&b, " %s |", SizeLabel(s))
			}
			b.WriteString("\n|---|---:|" + strings.Repeat("---:|", len(r.sizes)) + "\n")
			for _, c := range []Coll{Allreduce, Bcast, Alltoall} {
				for _, t := range r.tests {
					var cells []string
					for _, s := range r.sizes {
						var parts []string
						for _, i := range []string{"hympi-C", "hympi-Go", "ompi"} {
							if v, ok := r.median(r.overlaps, key{i, n, c, Overlap, s, t}); ok {
								parts = append(parts, fmt.Sprintf("%.0f", v))
							} else {
								parts = append(parts, "–")
							}
						}
						cells = append(cells, strings.Join(parts, " / "))
					}
					fmt.Fprintf(&b, "| i%s | %d | %s |\n", c, t, strings.Join(cells, " | "))
				}
			}
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
