package main

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/hympi/hympi/shm"
	"github.com/hympi/hympi/topology"
)

// writeText writes the human report of rep. The topology summary is
// topology's own Describe of the machine.
func writeText(w io.Writer, rep *report) error {
	bw := bufio.NewWriter(w)
	where := "this machine"
	if !rep.Machine.Live {
		where = "fixture tree"
	}
	fmt.Fprintf(bw, "topology (%s, %s):\n", rep.Machine.SysfsRoot, where)
	if err := rep.m.Describe(bw); err != nil {
		return err
	}

	writeDomains(bw, rep)

	fmt.Fprintf(bw, "\nbinding of %d ranks (hympirun --map-by %s --bind-to %s, allowed cpus %s):\n",
		rep.Ranks, rep.MapBy, rep.BindTo, topology.FormatCPUList(rep.Machine.Allowed))
	for r, cpu := range rep.Binding {
		switch set := rep.BoundTo[r]; set {
		case "":
			fmt.Fprintf(bw, "  rank %d → cpu %d (not bound)\n", r, cpu)
		case strconv.Itoa(cpu):
			fmt.Fprintf(bw, "  rank %d → cpu %d\n", r, cpu)
		default:
			fmt.Fprintf(bw, "  rank %d → cpu %d (bound to cpus %s)\n", r, cpu, set)
		}
	}

	if len(rep.Pairs) > 0 {
		fmt.Fprintf(bw, "\nrank pairs by relation: %s\n", relationCounts(rep.PairRelations))
	}
	if len(rep.Pairs) > maxPairsListed {
		fmt.Fprintf(bw, "(%d rank pairs: hympi-info --json lists each)\n", len(rep.Pairs))
	} else if len(rep.Pairs) > 0 {
		fmt.Fprintf(bw, "\nrank pairs (%d):\n", len(rep.Pairs))
		tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  rank a\trank b\tcpu a\tcpu b\trelation\tthreshold")
		for _, p := range rep.Pairs {
			fmt.Fprintf(tw, "  %d\t%d\t%d\t%d\t%s\t%s\n", p.A, p.B, p.CPUA, p.CPUB, p.Relation, fmtBytes(int64(p.Threshold)))
		}
		tw.Flush()
	}

	fmt.Fprintf(bw, "\nthresholds in force (eager up to, direct above):\n")
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  relation\tthreshold\tsource\tdefault")
	for _, r := range relevantRelations(rep) {
		t := rep.Thresholds[r]
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", r, fmtBytes(int64(t.Threshold)), t.Source, fmtBytes(int64(t.Default)))
	}
	tw.Flush()
	fmt.Fprintf(bw, "threshold source: %s", rep.ThresholdSource)
	if rep.ThresholdSource == topology.SourceEnvironment {
		fmt.Fprintf(bw, " (%s=%s, for every pair)", topology.EnvThreshold, strings.TrimSpace(rep.ThresholdEnv))
	}
	fmt.Fprintln(bw)
	fmt.Fprintf(bw, "profile: %s\n", profileLine(rep.Profile))

	fmt.Fprintf(bw, "\ndirect copy (process_vm_readv): %s\n", directLine(rep.DirectCopy))
	fmt.Fprintf(bw, "HYMPI_DIRECT: %s\n", modeLine(rep.DirectMode, rep.DirectModeSource))

	s := rep.Shm
	fmt.Fprintf(bw, "\nshared memory for %d ranks:\n", s.Ranks)
	if s.Error != "" {
		fmt.Fprintf(bw, "  no region can be laid out: %s\n", s.Error)
	} else {
		fmt.Fprintf(bw, "  channels: up to %d (one per ordered rank pair), each made when its pair first talks\n", s.Channels)
		fmt.Fprintf(bw, "  per channel: %d descriptor slots, %d cells × %s = %s pool; %s of rings reserved when made, cells as first used\n",
			s.Slots, s.CellsPerChannel, fmtBytes(int64(s.CellSize)), fmtBytes(s.PoolBytesPerChannel), fmtBytes(s.RingBytesPerChannel))
		fmt.Fprintf(bw, "  region: %s reserved in /dev/shm at start, %s of address space; about %s once the %d pairs pools are sized for talk (pool budget %s, HYMPI_SHM_BUDGET)\n",
			fmtBytes(s.FixedBytes), fmtBytes(s.RegionBytes), fmtBytes(s.ExpectedBytes), s.ExpectedPairs, fmtBytes(s.BudgetBytes))
		fmt.Fprintf(bw, "  gates: up to %d communicators at once (%d led by one rank), %s each when first taken, reused after a communicator is freed\n",
			s.GateBlocks, shm.GateEntries, fmtBytes(s.GateBlockBytes))
	}
	return bw.Flush()
}

// relevantRelations are the relations that matter for this report: those
// between the allowed CPUs, and any a pair has (self, when ranks outnumber
// CPUs), closest first.
func relevantRelations(rep *report) []string {
	want := map[string]bool{}
	for _, r := range rep.RelationsPresent {
		want[r] = true
	}
	for _, p := range rep.Pairs {
		want[p.Relation] = true
	}
	var rels []string
	for _, r := range topology.Relations() {
		if want[r.String()] {
			rels = append(rels, r.String())
		}
	}
	if len(rels) == 0 { // a single CPU and a single rank
		rels = []string{topology.Self.String()}
	}
	return rels
}

func profileLine(p profileInfo) string {
	switch {
	case p.Path == "":
		return "none (" + p.Error + ")"
	case p.Error != "":
		return p.Path + ": unreadable, ignored: " + p.Error
	case !p.Loaded:
		return p.Path + ": none yet (hympi-info --tune writes it there)"
	case !p.Matches:
		return p.Path + ": measured on another machine, ignored (hympi-info --tune replaces it)"
	case p.Created != "":
		return p.Path + " (measured " + p.Created + ", in use)"
	default:
		return p.Path + " (in use)"
	}
}

func directLine(d directInfo) string {
	switch {
	case d.Available:
		return "available"
	case d.Conclusive:
		return "unavailable: " + d.Reason + "\n  (every message goes through shared memory)"
	default:
		return "unknown, treated as unavailable: " + d.Reason
	}
}

func modeLine(mode, source string) string {
	how := map[string]string{
		modeAuto:   "eager up to each pair's threshold, direct copy above",
		modeOff:    "shared memory for every size; thresholds unused",
		modeAlways: "direct copy for every non-empty message; thresholds unused",
	}[mode]
	if source == fromDefault {
		return mode + " (default: " + how + ")"
	}
	return mode + " (" + how + ")"
}

// fmtBytes writes n in the largest binary unit that divides it exactly;
// from 1 MiB up, a size no unit divides gets one decimal of MiB (or GiB),
// below 1 MiB it stays in bytes.
func fmtBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

// maxPairsListed bounds the rank pairs the text report lists one by one
// (16 ranks); beyond it only their counts by relation are shown.
const maxPairsListed = 120

// writeDomains writes the domains ranks can be mapped over and the
// relations among the allowed CPUs.
func writeDomains(w io.Writer, rep *report) {
	fmt.Fprintf(w, "\ndomains (hympirun --map-by, --bind-to):\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	var l3 []string
	for _, d := range rep.Machine.L3Domains {
		l3 = append(l3, topology.FormatCPUList(d))
	}
	fmt.Fprintf(tw, "  l3cache\t%s\t%s\n", countOf(len(l3), rep.Machine.L3Domains), strings.Join(l3, " | "))
	var nodes []string
	var cpus [][]int
	for _, n := range rep.Machine.Nodes {
		nodes = append(nodes, fmt.Sprintf("%d: %s", n.ID, topology.FormatCPUList(n.CPUs)))
		cpus = append(cpus, n.CPUs)
	}
	fmt.Fprintf(tw, "  numa\t%s\t%s\n", countOf(len(nodes), cpus), strings.Join(nodes, " | "))
	tw.Flush()
	fmt.Fprintf(w, "CPU pairs by relation (allowed cpus): %s\n", relationCounts(rep.Machine.CPUPairs))
}

// countOf says how many domains of how many CPUs: "16 × 16 CPUs", or
// "3 × 2-4 CPUs" when their sizes differ.
func countOf(n int, doms [][]int) string {
	lo, hi := 0, 0
	for i, d := range doms {
		if i == 0 || len(d) < lo {
			lo = len(d)
		}
		hi = max(hi, len(d))
	}
	if lo == hi {
		return fmt.Sprintf("%d × %d CPUs", n, lo)
	}
	return fmt.Sprintf("%d × %d-%d CPUs", n, lo, hi)
}

// relationCounts writes counts by relation, closest first: "smt 128,
// shared-cache 1792"; "none" when there are none.
func relationCounts(counts map[string]int) string {
	var parts []string
	for _, r := range topology.Relations() {
		if c := counts[r.String()]; c > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", r, c))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
