package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/hympi/hympi/topology"
)

const usageLine = "usage: hympi-info [--json] [-n N] [--map-by K] [--bind-to K] | hympi-info --tune [-sizes LIST] | hympi-info --version\n"

const usage = usageLine + `
Shows the CPU topology (with its L3, NUMA and socket domains and how many
CPU pairs have each relation), the placement of N ranks as hympirun would
make it, the relation and eager→direct threshold of every rank pair, where
the thresholds come from, whether direct copy works here, and the
shared-memory budget of an N-rank job.

  -n, -np N      ranks to show (default: the CPUs this process may run on,
                 at least 2; at most ` + maxRanksText + `)
  --map-by K     place the ranks as hympirun --map-by K (hwthread, core,
                 slot, l3cache, numa, socket; default core)
  --bind-to K    and bind them as hympirun --bind-to K (hwthread, core,
                 l3cache, numa, socket, none; default: the --map-by kind)
  --json         print one JSON object instead of the text report
  --tune         measure the eager/direct crossover of each CPU relation on
                 this machine and save the thresholds as the profile
  -sizes LIST    message sizes --tune measures, comma-separated bytes with
                 an optional K, M or G suffix (default 1K,2K,4K,...,4M)
  --version      print hympi's version and the commit it was built from
  --help         show this help

Flags may be written with one dash or two.

Environment: HYMPI_SYSFS (sysfs root, e.g. a fixture tree), HYMPI_THRESHOLD,
HYMPI_PROFILE (profile path), HYMPI_DIRECT, HYMPI_SHM_BUDGET, HYMPI_CELL_SIZE.
A bad value of any HYMPI_* setting is refused, as hympirun and Init refuse it.

Exit status: 0 on success, 2 on a usage error, 1 otherwise.
`

// maxRanks bounds -n: the report lists every pair, n(n-1)/2 of them.
const (
	maxRanks     = 1024
	maxRanksText = "1024"
)

// Bounds on a --tune message size: Calibrate allocates two buffers of each.
const (
	minTuneSize = 1
	maxTuneSize = 256 << 20
)

// errHelp asks for the help text on stdout and exit status 0.
var errHelp = errors.New("help requested")

// errVersion asks for the version on stdout and exit status 0.
var errVersion = errors.New("version requested")

type options struct {
	n      int    // 0: the default (allowed CPUs, at least 2)
	mapBy  string // --map-by; "": core
	bindTo string // --bind-to; "": the --map-by kind's default
	json   bool
	tune   bool
	sizes  []int // --tune message sizes, ascending, distinct
}

// defaultTuneSizes are powers of two from 1 KiB to 4 MiB: below 1 KiB eager
// always wins (the inline and single-cell path), above 4 MiB both protocols
// are bandwidth-bound and the order no longer changes.
func defaultTuneSizes() []int {
	var s []int
	for n := 1 << 10; n <= 4<<20; n <<= 1 {
		s = append(s, n)
	}
	return s
}

// parseArgs reads the command line (without the command name).
func parseArgs(args []string) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("hympi-info", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // our messages and usage replace the package's
	fs.IntVar(&o.n, "n", 0, "")
	fs.IntVar(&o.n, "np", 0, "")
	fs.BoolVar(&o.json, "json", false, "")
	fs.Func("map-by", "", func(v string) (err error) {
		o.mapBy, err = topology.ParseMapPolicy(v)
		return err
	})
	fs.Func("bind-to", "", func(v string) error {
		p, err := topology.ParseBindPolicy(v)
		o.bindTo = string(p)
		return err
	})
	fs.BoolVar(&o.tune, "tune", false, "")
	fs.Var((*sizesFlag)(&o.sizes), "sizes", "")
	showVersion := fs.Bool("version", false, "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, errHelp
		}
		return nil, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *showVersion {
		if len(set) > 1 || fs.NArg() > 0 {
			return nil, errors.New("--version cannot be combined with other flags")
		}
		return nil, errVersion
	}
	nSet := set["n"] || set["np"]
	switch {
	case fs.NArg() > 0:
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case nSet && (o.n < 1 || o.n > maxRanks):
		return nil, fmt.Errorf("-n %d: want 1..%d ranks", o.n, maxRanks)
	case o.tune && o.json:
		return nil, errors.New("--tune and --json cannot be combined")
	case o.tune && nSet:
		return nil, errors.New("-n has no meaning with --tune (it measures CPU pairs, not a job)")
	case o.tune && (set["map-by"] || set["bind-to"]):
		return nil, errors.New("--map-by and --bind-to have no meaning with --tune (it measures CPU pairs, not a job)")
	case set["sizes"] && !o.tune:
		return nil, errors.New("-sizes needs --tune")
	}
	if o.tune && o.sizes == nil {
		o.sizes = defaultTuneSizes()
	}
	return o, nil
}

// sizesFlag parses -sizes: "4K,64K,1M" → ascending distinct byte counts.
type sizesFlag []int

func (s *sizesFlag) String() string { return fmt.Sprint([]int(*s)) }

func (s *sizesFlag) Set(v string) error {
	sizes, err := parseSizes(v)
	if err != nil {
		return err
	}
	*s = sizes
	return nil
}

func parseSizes(v string) ([]int, error) {
	var sizes []int
	for f := range strings.SplitSeq(v, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			return nil, fmt.Errorf("empty size in %q", v)
		}
		n, err := topology.ParseSize(f)
		if err != nil {
			return nil, fmt.Errorf("size %q: %v", f, err)
		}
		if n < minTuneSize || n > maxTuneSize {
			return nil, fmt.Errorf("size %q: want %d bytes to %d MiB", f, minTuneSize, maxTuneSize>>20)
		}
		sizes = append(sizes, n)
	}
	slices.Sort(sizes)
	return slices.Compact(sizes), nil
}
