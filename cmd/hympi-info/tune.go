package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/hympi/hympi/directcopy"
	"github.com/hympi/hympi/internal/cabi"
	"github.com/hympi/hympi/internal/calib"
	"github.com/hympi/hympi/topology"
)

// tune is hympi-info --tune: for each relation present among the CPUs this
// process may run on, measure eager against direct between one pair of CPUs
// with that relation (cabi.Calibrate), take the crossover as the relation's
// threshold (calib.Crossover), and save the profile mpi.Init loads.
//
// Relations not measured this time (say, inter-socket when run under a
// one-socket taskset) keep their value from the previous profile, if that
// was measured on this machine: a narrower run refines, it does not forget.
// Nothing is saved unless every measurement succeeded.
func tune(o *options, stdout, stderr io.Writer) int {
	fail := func(format string, args ...any) int {
		fmt.Fprintf(stderr, "hympi-info: --tune: "+format+"\n", args...)
		return exitFailure
	}
	if root := os.Getenv(topology.EnvSysfs); root != "" && filepath.Clean(root) != topology.DefaultSysfsRoot {
		return fail("%s=%s points at another sysfs tree, but tuning measures this machine; unset %s to tune",
			topology.EnvSysfs, root, topology.EnvSysfs)
	}
	m, live, err := machine()
	if err != nil {
		return fail("reading the CPU topology: %v", err)
	}
	allowed := allowedCPUs(m, live)
	rels, pairs := presentRelations(m, allowed)
	if len(rels) == 0 {
		return fail("needs two CPUs to measure between, and this process may run only on cpu %s",
			topology.FormatCPUList(allowed))
	}
	path, err := topology.DefaultProfilePath()
	if err != nil {
		return fail("%v", err)
	}
	if err := directcopy.Available(); err != nil {
		if d := probeDirect(); d.Conclusive {
			return fail("direct copy is unavailable here: %s\n"+
				"Every message goes through shared memory, so there is no crossover to measure; no profile saved.", d.Reason)
		}
		return fail("could not tell whether direct copy works here (%v); no profile saved, try again", err)
	}

	fmt.Fprintf(stdout, "tuning eager vs direct on cpus %s, %d sizes from %s to %s\n",
		topology.FormatCPUList(allowed), len(o.sizes), fmtBytes(int64(o.sizes[0])), fmtBytes(int64(o.sizes[len(o.sizes)-1])))
	measured := map[topology.Relation]int{}
	for _, r := range rels {
		a, b := pairs[r][0], pairs[r][1]
		fmt.Fprintf(stdout, "\n%s (cpu %d ↔ cpu %d), one-way latency, median:\n", r, a, b)
		start := time.Now()
		points, err := cabi.Calibrate(a, b, o.sizes)
		if err != nil {
			return fail("measuring %s between cpus %d and %d: %v; no profile saved", r, a, b, err)
		}
		writePoints(stdout, points)
		measured[r] = calib.Crossover(points)
		fmt.Fprintf(stdout, "  crossover: %s (default %s), measured in %.1fs\n",
			fmtBytes(int64(measured[r])), fmtBytes(int64(topology.BaseThreshold(r))), time.Since(start).Seconds())
	}

	thresholds := make(map[topology.Relation]int, len(measured))
	for r, n := range measured {
		thresholds[r] = n
	}
	kept := map[topology.Relation]bool{}
	if old, err := topology.LoadProfile(path); err == nil && topology.NewThresholds(m).Usable(old) {
		for r, n := range old.Thresholds {
			if _, ok := thresholds[r]; !ok {
				thresholds[r] = n
				kept[r] = true
			}
		}
	}
	if err := topology.SaveProfile(path, topology.NewProfile(m, thresholds)); err != nil {
		return fail("%v", err)
	}

	fmt.Fprintf(stdout, "\nthresholds saved to %s:\n", path)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  relation\ttuned\tdefault")
	for _, r := range topology.Relations() {
		n, ok := thresholds[r]
		if !ok {
			continue
		}
		note := ""
		if kept[r] {
			note = "  (kept from the previous profile: not measured this time)"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s%s\n", r, fmtBytes(int64(n)), fmtBytes(int64(topology.BaseThreshold(r))), note)
	}
	tw.Flush()
	if v := os.Getenv(topology.EnvThreshold); v != "" {
		fmt.Fprintf(stdout, "note: %s=%s is set and overrides this profile until unset\n", topology.EnvThreshold, v)
	}
	return exitOK
}

// writePoints prints one relation's measurements.
func writePoints(w io.Writer, points []calib.Point) {
	points = slices.Clone(points)
	slices.SortFunc(points, func(a, b calib.Point) int { return a.Size - b.Size })
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "  size\teager µs\tdirect µs\tfaster\t")
	for _, p := range points {
		faster := "eager"
		if p.Direct < p.Eager {
			faster = "direct"
		}
		fmt.Fprintf(tw, "  %s\t%.2f\t%.2f\t%s\t\n", fmtBytes(int64(p.Size)), micros(p.Eager), micros(p.Direct), faster)
	}
	tw.Flush()
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
