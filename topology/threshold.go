package topology

import (
	"fmt"
	"strings"
)

// KiB is 1024 bytes.
const KiB = 1024

// Default eager→direct thresholds per relation: messages up to the
// threshold go eager (two copies through the shared region), larger ones
// direct (one copy with process_vm_readv). They are the seed study's
// topology-aware switch points, measured on a dual-socket quad-core
// Clovertown: the two-copy path stays cheap as long as the
// intermediate copy lives in a cache both cores share, and loses early when
// it has to cross the socket. Machines differ, so hympi calibrates rather
// than trusts them (hympi-info --tune writes a Profile); they are the fallback.
//
// Today's large machines split the seed's classes along the L3. An AMD EPYC
// has one L3 per CCD of 8 cores (per CCX of 4 before Zen 3), so 8 to 16 per
// socket: two cores under one L3 are shared-cache; two cores under different
// L3s of one socket are intra-socket, the seed study's own intra-socket case
// (Clovertown's two dies per package, each with its own L2): the cell the
// sender wrote sits in its L3 and the receiver must fetch it across the
// package's interconnect (the Infinity Fabric, through the I/O die), so the
// second copy of the eager path costs nearly what a copy from memory does
// and the single copy wins early. Intel's server parts have one L3 per
// socket, where every pair of cores of a socket is shared-cache. NUMA nodes
// do not make a relation of their own: with NPS4 an EPYC node holds two
// L3s, so nodes cut no cache, and where a channel's pages live is decided by
// who touches them first, not by the threshold. --tune measures every
// relation present (on an EPYC: smt, shared-cache, intra-socket and
// inter-socket), and the profile is keyed by relation.
const (
	DefaultSharedCacheThreshold = 32 * KiB
	DefaultIntraSocketThreshold = 2 * KiB
	DefaultInterSocketThreshold = 1 * KiB
)

// BaseThreshold returns the default threshold in bytes for relation r.
//
// The seed machine had no SMT, so the study has no figure for hardware
// threads of one core; they share every cache level of that core (L1 and
// L2 included), which makes them the extreme case of "shared cache", and
// they get its threshold. A rank sending to itself (self) is the same case
// again: the eager copy never leaves its own caches, and a direct copy would
// still pay a system call. An invalid relation gets the inter-socket value,
// the most cautious one.
func BaseThreshold(r Relation) int {
	switch r {
	case Self, SMT, SharedCache:
		return DefaultSharedCacheThreshold
	case IntraSocket:
		return DefaultIntraSocketThreshold
	default:
		return DefaultInterSocketThreshold
	}
}

// EnvThreshold names the environment variable that overrides the threshold
// for every peer (a public name).
const EnvThreshold = "HYMPI_THRESHOLD"

// Where a threshold came from, as hympi-info reports it.
const (
	SourceEnvironment = "environment"
	SourceProfile     = "profile"
	SourceDefault     = "default"
)

// ParseThreshold parses a HYMPI_THRESHOLD value: bytes, as a decimal
// number, optionally with a K, M or G suffix ("8192", "8K"). Callers that
// must reject a bad value (hympi-info, Init) use it before Resolve, which
// ignores values that do not parse.
func ParseThreshold(s string) (int, error) {
	n, err := ParseSize(s)
	if err != nil {
		return 0, fmt.Errorf("topology: %s=%q: %v", EnvThreshold, s, err)
	}
	return n, nil
}

// Thresholds resolves the threshold in force for a relation on one
// machine. The zero value knows no machine, so it never uses a profile.
type Thresholds struct {
	// Fingerprint is this machine's; a profile is used only if its own
	// fingerprint matches.
	Fingerprint Fingerprint
}

// NewThresholds returns the resolver for machine m.
func NewThresholds(m *Machine) *Thresholds {
	return &Thresholds{Fingerprint: m.Fingerprint()}
}

// Resolve returns the threshold in bytes for relation rel and where it came
// from, by precedence:
//
//  1. environment: env, the value of HYMPI_THRESHOLD, when it is set and
//     parses (ParseThreshold); it applies to every relation;
//  2. profile: prof's threshold for rel, when prof is non-nil, was measured
//     on a machine with this machine's fingerprint, and has an entry for rel;
//  3. default: BaseThreshold(rel).
//
// An env that does not parse, a profile from another machine, and a
// profile without rel all fall through to the next step.
func (t *Thresholds) Resolve(rel Relation, env string, prof *Profile) (bytes int, source string) {
	if strings.TrimSpace(env) != "" {
		if n, err := ParseThreshold(env); err == nil {
			return n, SourceEnvironment
		}
	}
	if t.Usable(prof) {
		if n, ok := prof.Thresholds[rel]; ok && n >= 0 {
			return n, SourceProfile
		}
	}
	return BaseThreshold(rel), SourceDefault
}

// Usable reports whether prof applies to this machine: it is non-nil and
// its fingerprint matches.
func (t *Thresholds) Usable(prof *Profile) bool {
	return prof != nil && t.Fingerprint.Matches(prof.Fingerprint)
}
