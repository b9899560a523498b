// Package config reads every HYMPI_* tuning variable in one place, so that
// hympirun (before it starts a rank), mpi.Init (in each rank) and hympi-info
// agree on what a value means and refuse the same bad values with the same
// message. A value that does not parse is an error naming the variable, the
// value and what would be accepted; it is never silently replaced by the
// default. An unset or empty variable means the default.
//
// The launcher's own variables (HYMPI_RANK, HYMPI_SIZE, HYMPI_REGION_FD,
// HYMPI_CPU, HYMPI_JOBID) are not knobs: hympirun writes them for each rank
// and package shm names them. Test-only switches (HYMPI_DIRECTCOPY_FAIL,
// HYMPI_REQUIRE_CMA) live with the tests and failpoints that use them.
package config

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/hympi/hympi/topology"
)

// The variables, by name.
const (
	EnvShmBudget     = "HYMPI_SHM_BUDGET"
	EnvCellSize      = "HYMPI_CELL_SIZE"
	EnvDirect        = "HYMPI_DIRECT"
	EnvThreshold     = topology.EnvThreshold // HYMPI_THRESHOLD
	EnvSkew          = "HYMPI_SKEW"
	EnvAsyncProgress = "HYMPI_ASYNC_PROGRESS"
	EnvChecksum      = "HYMPI_CHECKSUM"
	EnvProfile       = topology.EnvProfile // HYMPI_PROFILE
	EnvSysfs         = topology.EnvSysfs   // HYMPI_SYSFS
)

// Bounds of the sized knobs. A budget below MinShmBudget could not give a
// pair of ranks even one cell; one above MaxShmBudget is a typo, not a plan,
// on any machine this runs on. Cells are bounded by what a region header may
// describe.
const (
	MinShmBudget = 64 << 10
	MaxShmBudget = 1 << 40
	MinCellSize  = 64
	MaxCellSize  = 16 << 20
	cellAlign    = 64
)

// Direct is HYMPI_DIRECT: when a message goes by single-copy direct read.
type Direct uint8

const (
	DirectAuto   Direct = iota // above the per-peer threshold (default)
	DirectOff                  // never: shared-memory cells for every size
	DirectAlways               // for every non-empty message
)

func (d Direct) String() string {
	switch d {
	case DirectOff:
		return "off"
	case DirectAlways:
		return "always"
	}
	return "auto"
}

// Knobs is the whole tuning environment of a job. Each field says its
// variable, its accepted values and its default.
type Knobs struct {
	// ShmBudget: HYMPI_SHM_BUDGET, bytes the job may spend on cell pools,
	// a decimal number with an optional K, M or G suffix, between 64 KiB
	// and 1 TiB. Default 256 MiB. Read by hympirun, which sizes the region.
	ShmBudget int64
	// CellSize: HYMPI_CELL_SIZE, bytes per shared-memory cell, a multiple
	// of 64 between 64 and 16 MiB (K and M suffixes accepted). Default
	// 32 KiB. Read by hympirun, which sizes the region.
	CellSize int
	// Direct: HYMPI_DIRECT, auto, off or always. Default auto.
	Direct Direct
	// Threshold: HYMPI_THRESHOLD, the eager→direct threshold toward every
	// peer in bytes (K, M, G suffixes accepted); ThresholdSet says whether
	// it was given. Default: from a tuned profile or the topology.
	Threshold    int
	ThresholdSet bool
	// Skew: HYMPI_SKEW, whether receiver feedback may raise a peer's
	// threshold; on/off, 1/0 or true/false. Default on.
	Skew bool
	// AsyncProgress: HYMPI_ASYNC_PROGRESS, a progress goroutine per rank;
	// on/off, 1/0 or true/false. Default off.
	AsyncProgress bool
	// Checksum: HYMPI_CHECKSUM, a CRC-32C over every eager payload, checked
	// on receive (for users who suspect memory corruption); on/off, 1/0 or
	// true/false. Default off, and then it costs nothing.
	Checksum bool
	// Profile: HYMPI_PROFILE, the path of the tuned profile. Default
	// $XDG_CACHE_HOME/hympi/profile.json, else ~/.cache/hympi/profile.json.
	// Any path is accepted; package topology resolves it (with the
	// defaults) where it loads the profile.
	Profile string
	// Sysfs: HYMPI_SYSFS, the sysfs root topology is read from (a fixture
	// tree in tests). Default /sys. Any path is accepted; package topology
	// reads it.
	Sysfs string
}

// Defaults is what an empty environment means.
func Defaults() Knobs {
	return Knobs{
		ShmBudget: 256 << 20,
		CellSize:  32 << 10,
		Direct:    DirectAuto,
		Skew:      true,
	}
}

// FromEnv reads the knobs from this process's environment.
func FromEnv() (Knobs, error) { return Parse(os.LookupEnv) }

// FromEnviron reads the knobs from an environment list as exec passes it
// ("NAME=value"; a later entry wins, as it does for the child).
func FromEnviron(env []string) (Knobs, error) {
	m := make(map[string]string)
	for _, kv := range env {
		if name, value, ok := strings.Cut(kv, "="); ok {
			m[name] = value
		}
	}
	return Parse(func(name string) (string, bool) {
		v, ok := m[name]
		return v, ok
	})
}

// Parse reads the knobs through lookup. Every bad value is reported, not
// just the first, so one run shows the user everything to fix.
func Parse(lookup func(string) (string, bool)) (Knobs, error) {
	k := Defaults()
	var errs []error
	get := func(name string) (string, bool) {
		v, ok := lookup(name)
		v = strings.TrimSpace(v)
		return v, ok && v != ""
	}
	bad := func(name, value, want string) {
		errs = append(errs, fmt.Errorf("%s=%q: want %s", name, value, want))
	}
	if v, ok := get(EnvShmBudget); ok {
		n, err := topology.ParseSize(v)
		if err != nil || n < MinShmBudget || n > MaxShmBudget {
			bad(EnvShmBudget, v, "bytes between 64K and 1024G (e.g. 268435456 or 256M)")
		} else {
			k.ShmBudget = int64(n)
		}
	}
	if v, ok := get(EnvCellSize); ok {
		n, err := topology.ParseSize(v)
		if err != nil || n < MinCellSize || n > MaxCellSize || n%cellAlign != 0 {
			bad(EnvCellSize, v, "bytes, a multiple of 64 between 64 and 16M (e.g. 32768 or 32K)")
		} else {
			k.CellSize = n
		}
	}
	if v, ok := get(EnvDirect); ok {
		// Exact spelling: these three words have always been the whole set.
		switch v {
		case "auto":
			k.Direct = DirectAuto
		case "off":
			k.Direct = DirectOff
		case "always":
			k.Direct = DirectAlways
		default:
			bad(EnvDirect, v, "auto, off or always")
		}
	}
	if v, ok := get(EnvThreshold); ok {
		n, err := topology.ParseThreshold(v)
		if err != nil {
			bad(EnvThreshold, v, "bytes, a decimal number with an optional K, M or G suffix")
		} else {
			k.Threshold, k.ThresholdSet = n, true
		}
	}
	for _, b := range []struct {
		name string
		dst  *bool
	}{{EnvSkew, &k.Skew}, {EnvAsyncProgress, &k.AsyncProgress}, {EnvChecksum, &k.Checksum}} {
		if v, ok := get(b.name); ok {
			on, err := parseSwitch(v)
			if err != nil {
				bad(b.name, v, "on or off (also 1/0, true/false)")
			} else {
				*b.dst = on
			}
		}
	}
	k.Profile, _ = get(EnvProfile)
	k.Sysfs, _ = get(EnvSysfs)
	if len(errs) > 0 {
		return Defaults(), &Error{errs: errs}
	}
	return k, nil
}

// parseSwitch accepts the spellings of a two-way switch. "yes" and "no" are
// left out on purpose: no hympi document ever offered them, so they are more
// likely a guess than a decision.
func parseSwitch(v string) (bool, error) {
	switch strings.ToLower(v) {
	case "1", "on", "true":
		return true, nil
	case "0", "off", "false":
		return false, nil
	}
	return false, errors.New("not a switch")
}

// Error lists every bad variable. Its text is one line per variable, so a
// launcher can print it as is.
type Error struct{ errs []error }

func (e *Error) Error() string {
	s := make([]string, len(e.errs))
	for i, err := range e.errs {
		s[i] = err.Error()
	}
	return "bad environment: " + strings.Join(s, "; ")
}

// Unwrap gives the individual refusals to errors.Is and errors.As.
func (e *Error) Unwrap() []error { return e.errs }
