package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hympi/hympi/directcopy"
	"github.com/hympi/hympi/internal/config"
	"github.com/hympi/hympi/shm"
	"github.com/hympi/hympi/topology"
	"golang.org/x/sys/unix"
)

// report is everything hympi-info shows, gathered once and written either
// as text or as JSON. Its JSON field names are the stable schema of
// hympi-info --json (snake_case; binding, pairs, threshold_source and
// direct_copy came first; the rest is added around them).
type report struct {
	m *topology.Machine // what the report describes; not part of the JSON

	Machine machineInfo `json:"machine"`
	// Ranks is N, the job size the binding, pairs and shm are for.
	Ranks int `json:"ranks"`
	// MapBy and BindTo are the hympirun placement shown (--map-by,
	// --bind-to; default core and core).
	MapBy  string `json:"map_by"`
	BindTo string `json:"bind_to"`
	// Binding is the CPU each rank is mapped to (its HYMPI_CPU when bound).
	Binding []int `json:"binding"`
	// BoundTo is the CPU list each rank may run on; empty when unbound.
	BoundTo []string `json:"bound_to"`
	// Pairs has one entry per rank pair a<b, in (a, b) order.
	Pairs []pairInfo `json:"pairs"`
	// PairRelations counts Pairs by relation.
	PairRelations map[string]int `json:"pair_relations"`
	// RelationsPresent are the relations between distinct CPUs this
	// process may run on, closest first ("self" never appears).
	RelationsPresent []string `json:"relations_present"`
	// Thresholds is the threshold in force for every relation, keyed by
	// relation name.
	Thresholds map[string]thresholdInfo `json:"thresholds"`
	// ThresholdSource is where the pairs' thresholds come from:
	// "environment" when HYMPI_THRESHOLD is set; else "profile" when a
	// profile measured on this machine gives at least one of them (the
	// others, absent from the profile, are defaults; Thresholds says which);
	// else "default". With a single rank (no pairs) it speaks for the
	// relations present instead.
	ThresholdSource string `json:"threshold_source"`
	// ThresholdEnv is HYMPI_THRESHOLD when set.
	ThresholdEnv string      `json:"threshold_env,omitempty"`
	Profile      profileInfo `json:"profile"`
	DirectCopy   directInfo  `json:"direct_copy"`
	// DirectMode is HYMPI_DIRECT in effect: auto, off or always.
	DirectMode string `json:"direct_mode"`
	// DirectModeSource is "environment" or "default".
	DirectModeSource string  `json:"direct_mode_source"`
	Shm              shmInfo `json:"shm"`
}

type machineInfo struct {
	SysfsRoot string `json:"sysfs_root"`
	// Live is false when SysfsRoot is not the running system's /sys (a
	// fixture tree): the binding then uses the tree's CPUs, not this
	// process's affinity.
	Live      bool   `json:"live"`
	Model     string `json:"model"`
	Packages  int    `json:"packages"`
	Cores     int    `json:"cores"`
	CPUs      int    `json:"cpus"`
	NUMANodes int    `json:"numa_nodes"`
	// Online are the online CPUs; Allowed those hympirun may bind to (this
	// process's affinity mask, or every CPU of a fixture tree).
	Online  []int `json:"online"`
	Allowed []int `json:"allowed"`
	// L3Domains are the CPU groups under one L3 (the package where there
	// is no L3), Nodes the NUMA nodes: what --map-by/--bind-to l3cache
	// and numa deal ranks over.
	L3Domains [][]int    `json:"l3_domains"`
	Nodes     []nodeInfo `json:"nodes"`
	// CPUPairs counts the pairs of distinct allowed CPUs by relation.
	CPUPairs map[string]int `json:"cpu_pairs"`
}

type nodeInfo struct {
	ID   int   `json:"id"`
	CPUs []int `json:"cpus"`
}

type pairInfo struct {
	A         int    `json:"a"`
	B         int    `json:"b"`
	CPUA      int    `json:"cpu_a"`
	CPUB      int    `json:"cpu_b"`
	Relation  string `json:"relation"`
	Threshold int    `json:"threshold"` // bytes
}

type thresholdInfo struct {
	Threshold int    `json:"threshold"` // bytes, in force
	Source    string `json:"source"`    // environment, profile or default
	Default   int    `json:"default"`   // the seed default, for comparison
}

type profileInfo struct {
	// Path is where the profile is read from and where --tune writes it;
	// "" when no path can be derived (Error says why).
	Path string `json:"path"`
	// Loaded: a profile file exists there and parsed.
	Loaded bool `json:"loaded"`
	// Matches: its fingerprint is this machine's, so it is used.
	Matches bool   `json:"matches"`
	Created string `json:"created,omitempty"` // RFC 3339
	Error   string `json:"error,omitempty"`
}

type directInfo struct {
	Available bool `json:"available"`
	// Reason is why not; empty when available.
	Reason string `json:"reason"`
	// Conclusive is false when the probe could not tell (it then counts as
	// unavailable for now).
	Conclusive bool `json:"conclusive"`
}

type shmInfo struct {
	Ranks int `json:"ranks"`
	// Channels is the most channels the region can hold: one per ordered
	// rank pair. A channel is made when its pair first talks.
	Channels            int   `json:"channels"`
	Slots               int   `json:"slots"`     // descriptor slots per channel
	CellSize            int   `json:"cell_size"` // bytes
	CellsPerChannel     int   `json:"cells_per_channel"`
	PoolBytesPerChannel int64 `json:"pool_bytes_per_channel"`
	// RingBytesPerChannel is what a channel reserves when it is made (its
	// rings and control line); its cells are reserved as first used.
	RingBytesPerChannel int64 `json:"ring_bytes_per_channel"`
	// RegionBytes is the region's size: address space, sparse in the file.
	RegionBytes int64 `json:"region_bytes"`
	// FixedBytes is what the region reserves at start (header, rank blocks
	// and their channel tables).
	FixedBytes int64 `json:"fixed_bytes"`
	// ExpectedPairs is how many pairs the pools are sized for (all pairs
	// in small jobs, about 2·n·log2 n beyond: what collectives use), and
	// ExpectedBytes the memory the region then holds with small messages:
	// FixedBytes and their rings. Each cell a pair uses adds CellSize.
	ExpectedPairs int   `json:"expected_pairs"`
	ExpectedBytes int64 `json:"expected_bytes"`
	BudgetBytes   int64 `json:"budget_bytes"`
	// GateBlocks is how many communicators can have a gate (the small
	// collectives of an oversubscribed job) at once, and GateBlockBytes
	// what each reserves when first taken; a freed communicator's block
	// serves the next one. Part of RegionBytes.
	GateBlocks     int   `json:"gate_blocks"`
	GateBlockBytes int64 `json:"gate_block_bytes"`
	// Error is set when no region can be laid out for Ranks (the other
	// fields are then zero).
	Error string `json:"error,omitempty"`
}

// env variables read here besides topology's.
const (
	envDirect   = "HYMPI_DIRECT"
	modeAuto    = "auto"
	modeOff     = "off"
	modeAlways  = "always"
	fromEnv     = "environment"
	fromDefault = "default"
)

// machine returns the topology hympi uses, and whether it is the live
// system's. The live one comes from topology.Default, as mpi.Init reads it
// (same model name, hence the same profile fingerprint); a fixture tree is
// read afresh each call, so tests can switch trees in one process.
func machine() (m *topology.Machine, live bool, err error) {
	root := os.Getenv(topology.EnvSysfs)
	if root == "" || filepath.Clean(root) == topology.DefaultSysfsRoot {
		m, err = topology.Default()
		return m, true, err
	}
	m, err = topology.Read(root)
	return m, false, err
}

// readMachine is machine; tests that read generated trees from memory
// replace it.
var readMachine = machine

// allowedCPUs are the CPUs hympirun may bind ranks to: this thread's
// affinity mask on the live system (what hympirun reads), the tree's CPUs
// for a fixture.
func allowedCPUs(m *topology.Machine, live bool) []int {
	if !live {
		return m.IDs()
	}
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return m.IDs()
	}
	var cpus []int
	for cpu := 0; cpu < len(set)*64; cpu++ {
		if set.IsSet(cpu) {
			cpus = append(cpus, cpu)
		}
	}
	if len(cpus) == 0 {
		return m.IDs()
	}
	return cpus
}

// directMode returns HYMPI_DIRECT in effect and where it came from.
func directMode(k config.Knobs) (mode, source string) {
	if strings.TrimSpace(os.Getenv(envDirect)) == "" {
		return k.Direct.String(), fromDefault
	}
	return k.Direct.String(), fromEnv
}

// thresholdEnv returns HYMPI_THRESHOLD as the user wrote it (config has
// validated it), or "" when it is not set.
func thresholdEnv(k config.Knobs) string {
	if !k.ThresholdSet {
		return ""
	}
	return os.Getenv(topology.EnvThreshold)
}

// loadProfile finds and reads the profile. A missing file is no error.
func loadProfile(th *topology.Thresholds) (*topology.Profile, profileInfo) {
	var info profileInfo
	path, err := topology.DefaultProfilePath()
	if err != nil {
		info.Error = err.Error()
		return nil, info
	}
	info.Path = path
	p, err := topology.LoadProfile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, info
	case err != nil:
		info.Error = err.Error()
		return nil, info
	}
	info.Loaded = true
	info.Matches = th.Usable(p)
	if !p.Created.IsZero() {
		info.Created = p.Created.Format(time.RFC3339)
	}
	return p, info
}

// presentRelations returns the relations between distinct CPUs of cpus,
// closest first, with one example pair of each (the first in ascending
// order).
func presentRelations(m *topology.Machine, cpus []int) ([]topology.Relation, map[topology.Relation][2]int) {
	cpus = slices.Clone(cpus)
	slices.Sort(cpus)
	cpus = slices.Compact(cpus)
	example := map[topology.Relation][2]int{}
	for i, a := range cpus {
		for _, b := range cpus[i+1:] {
			r := m.Relation(a, b)
			if _, ok := example[r]; !ok {
				example[r] = [2]int{a, b}
			}
		}
	}
	var rels []topology.Relation
	for _, r := range topology.Relations() {
		if _, ok := example[r]; ok {
			rels = append(rels, r)
		}
	}
	return rels, example
}

// gather collects the report for a job of n ranks (0: the default size)
// placed by hympirun --map-by mapBy --bind-to bindTo ("": the defaults).
func gather(n int, mapBy, bindTo string) (*report, error) {
	// What mpi.Init and hympirun would refuse is refused here too, rather
	// than reported as if it applied.
	k, err := config.FromEnv()
	if err != nil {
		return nil, err
	}
	env := thresholdEnv(k)
	mode, modeSrc := directMode(k)
	m, live, err := readMachine()
	if err != nil {
		return nil, fmt.Errorf("reading the CPU topology: %w", err)
	}
	allowed := allowedCPUs(m, live)
	if n == 0 {
		n = max(2, len(allowed))
	}
	rep := &report{
		m: m,
		Machine: machineInfo{
			SysfsRoot: m.Root,
			Live:      live,
			Model:     m.Model,
			Packages:  len(m.Packages()),
			Cores:     len(m.Cores()),
			CPUs:      len(m.CPUs),
			NUMANodes: len(m.Nodes),
			Online:    m.IDs(),
			Allowed:   allowed,
		},
		Ranks:            n,
		ThresholdEnv:     env,
		DirectMode:       mode,
		DirectModeSource: modeSrc,
		Thresholds:       map[string]thresholdInfo{},
	}

	th := topology.NewThresholds(m)
	prof, pinfo := loadProfile(th)
	rep.Profile = pinfo
	sources := map[topology.Relation]string{}
	for _, r := range topology.Relations() {
		bytes, src := th.Resolve(r, env, prof)
		sources[r] = src
		rep.Thresholds[r.String()] = thresholdInfo{Threshold: bytes, Source: src, Default: topology.BaseThreshold(r)}
	}

	rels, _ := presentRelations(m, allowed)
	rep.RelationsPresent = []string{}
	for _, r := range rels {
		rep.RelationsPresent = append(rep.RelationsPresent, r.String())
	}
	rep.Machine.describeDomains(m, allowed)
	pairRel := rep.place(m, allowed, mapBy, bindTo)
	used := map[topology.Relation]bool{} // the relations of the pairs
	rep.Pairs = make([]pairInfo, 0, n*(n-1)/2)
	rep.PairRelations = map[string]int{}
	for a := range n {
		for b := a + 1; b < n; b++ {
			ca, cb := rep.Binding[a], rep.Binding[b]
			if rep.BoundTo[a] == "" {
				ca, cb = -1, -1
			}
			r := pairRel.Relation(ca, cb)
			used[r] = true
			rep.PairRelations[r.String()]++
			rep.Pairs = append(rep.Pairs, pairInfo{A: a, B: b, CPUA: ca, CPUB: cb,
				Relation: r.String(), Threshold: rep.Thresholds[r.String()].Threshold})
		}
	}
	if len(used) == 0 { // a single rank: speak for the machine instead
		for _, r := range rels {
			used[r] = true
		}
	}
	rep.ThresholdSource = overallSource(env, th.Usable(prof), used, sources)
	rep.DirectCopy = probeDirect()
	rep.Shm = shmBudget(n, k)
	return rep, nil
}

// overallSource summarises where the thresholds that matter come from; see
// report.ThresholdSource.
func overallSource(env string, profileUsable bool, used map[topology.Relation]bool, sources map[topology.Relation]string) string {
	switch {
	case env != "":
		return topology.SourceEnvironment
	case !profileUsable:
		return topology.SourceDefault
	case len(used) == 0: // one rank on one CPU: no pair to speak of
		return topology.SourceProfile
	}
	for r := range used {
		if sources[r] == topology.SourceProfile {
			return topology.SourceProfile
		}
	}
	return topology.SourceDefault
}

// probeDirect asks directcopy for its verdict, keeping its three-way
// contract: yes, a conclusive no with a reason, or "couldn't tell".
func probeDirect() directInfo {
	err := directcopy.Available()
	if err == nil {
		return directInfo{Available: true, Conclusive: true}
	}
	if ue, ok := errors.AsType[*directcopy.UnsupportedError](err); ok {
		return directInfo{Reason: ue.Reason, Conclusive: true}
	}
	if errors.Is(err, directcopy.ErrNotSupported) {
		return directInfo{Reason: err.Error(), Conclusive: true}
	}
	return directInfo{Reason: "could not tell: " + err.Error()}
}

// shmBudget is the region a job of n ranks gets under the default
// configuration (HYMPI_SHM_BUDGET and HYMPI_CELL_SIZE applied).
func shmBudget(n int, k config.Knobs) shmInfo {
	cfg := shm.ConfigFrom(k)
	info := shmInfo{Ranks: n, BudgetBytes: cfg.BudgetBytes}
	l, err := shm.NewLayout(n, cfg)
	if err != nil {
		info.Error = err.Error()
		return info
	}
	info.Slots = l.Slots
	info.CellSize = l.CellSize
	info.CellsPerChannel = l.CellsPerChannel
	info.PoolBytesPerChannel = l.PoolBytes()
	info.RingBytesPerChannel = l.RingBytes()
	info.RegionBytes = l.Size
	info.FixedBytes = l.ChannelOff
	info.ExpectedPairs = shm.ExpectedPairs(n)
	if n < 2 {
		info.ExpectedPairs = 0
	}
	info.ExpectedBytes = l.ChannelOff + int64(info.ExpectedPairs)*l.RingBytes()
	info.Channels = l.ArenaChannels
	info.GateBlocks, info.GateBlockBytes = l.GateBlocks, l.GateStride
	return info
}

func writeJSON(w io.Writer, rep *report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}
