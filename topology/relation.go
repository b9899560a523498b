package topology

import (
	"fmt"
	"slices"
)

// Relation classifies a pair of CPUs by the closest thing they share. The
// values are ordered from closest to farthest.
type Relation int

const (
	Self        Relation = iota // the same CPU
	SMT                         // hardware threads of one core
	SharedCache                 // different cores sharing a data or unified cache
	IntraSocket                 // same package, no shared data cache
	InterSocket                 // different packages

	// NumRelations is the number of relations; valid values are
	// 0 ≤ r < NumRelations.
	NumRelations = iota
)

// relationNames are public, stable names (PeerCounters.Relation,
// hympi-info --json "relation", profile keys).
var relationNames = [NumRelations]string{
	Self:        "self",
	SMT:         "smt",
	SharedCache: "shared-cache",
	IntraSocket: "intra-socket",
	InterSocket: "inter-socket",
}

// Relations returns every relation, closest first.
func Relations() []Relation {
	rs := make([]Relation, NumRelations)
	for i := range rs {
		rs[i] = Relation(i)
	}
	return rs
}

// Valid reports whether r is one of the defined relations.
func (r Relation) Valid() bool { return r >= 0 && r < NumRelations }

// String returns "self", "smt", "shared-cache", "intra-socket" or
// "inter-socket"; "Relation(N)" for an invalid value.
func (r Relation) String() string {
	if !r.Valid() {
		return fmt.Sprintf("Relation(%d)", int(r))
	}
	return relationNames[r]
}

// ParseRelation is the inverse of String.
func ParseRelation(s string) (Relation, error) {
	for r, name := range relationNames {
		if s == name {
			return Relation(r), nil
		}
	}
	return 0, fmt.Errorf("topology: unknown relation %q", s)
}

// MarshalText makes relations JSON strings and JSON object keys.
func (r Relation) MarshalText() ([]byte, error) {
	if !r.Valid() {
		return nil, fmt.Errorf("topology: invalid relation %d", int(r))
	}
	return []byte(relationNames[r]), nil
}

// UnmarshalText accepts the names String returns.
func (r *Relation) UnmarshalText(b []byte) error {
	v, err := ParseRelation(string(b))
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// Relation classifies CPUs a and b by the closest thing they share:
//
//   - self: a == b;
//   - smt: hardware threads of one core (b is in a's thread siblings);
//   - shared-cache: a data or unified cache of any level lists both in
//     its shared_cpu_list (instruction caches do not count);
//   - intra-socket: the same physical package;
//   - inter-socket: anything else.
//
// On a machine whose L3 is split (AMD's CCDs), shared-cache is "same L3"
// and intra-socket "another L3 of the same socket"; private L1 and L2 do not
// blur this, as they are shared by no two cores.
//
// A CPU that m does not know (offline, or -1 for an unbound rank) shares
// nothing with anyone but itself, so the pair is inter-socket: the farthest
// class, whose threshold is the most cautious.
func (m *Machine) Relation(a, b int) Relation {
	if a == b {
		return Self
	}
	ca, cb := m.Lookup(a), m.Lookup(b)
	if ca == nil || cb == nil {
		return InterSocket
	}
	if slices.Contains(ca.Siblings, b) || slices.Contains(cb.Siblings, a) {
		return SMT
	}
	if sharesDataCache(ca, b) || sharesDataCache(cb, a) {
		return SharedCache
	}
	if ca.Package == cb.Package {
		return IntraSocket
	}
	return InterSocket
}

func sharesDataCache(c *CPU, other int) bool {
	for _, cache := range c.Caches {
		if cache.HoldsData() && slices.Contains(cache.SharedCPUs, other) {
			return true
		}
	}
	return false
}

// RelationCounts counts the pairs of distinct CPUs among cpus (each
// unordered pair once) by relation: what a job spread over those CPUs
// would see. Repeated CPUs count once.
func (m *Machine) RelationCounts(cpus []int) [NumRelations]int {
	cpus = slices.Compact(slices.Sorted(slices.Values(cpus)))
	var n [NumRelations]int
	for i, a := range cpus {
		for _, b := range cpus[i+1:] {
			n[m.Relation(a, b)]++
		}
	}
	return n
}

// EnvBind names the variable hympirun sets in every rank to the job's
// --bind-to policy (hwthread, core, l3cache, numa, socket or none). With
// HYMPI_CPU, the CPU the rank was mapped to, it tells the engine where each
// rank may run: anywhere in that CPU's domain of this kind.
const EnvBind = "HYMPI_BIND"

// DomainRelations classifies pairs of ranks that are bound to domains
// rather than to CPUs: a rank mapped to CPU a and bound to the l3cache
// domain may run on any CPU under a's L3. The relation of two such ranks
// is the farthest relation between a CPU of one's domain and a CPU of the
// other's, the one whose threshold is safe wherever the scheduler puts
// them: two ranks bound to one L3 are shared-cache, to one NUMA node of an
// EPYC (two L3s) intra-socket, to one socket of a Xeon (one L3) shared-
// cache. Under hwthread (or none, or any other kind) it is Relation.
//
// It remembers each pair of domains it has worked out; it is not safe for
// concurrent use.
type DomainRelations struct {
	m    *Machine
	kind string
	memo map[[2]int]Relation // (lowest CPU of each domain) → relation
}

// NewDomainRelations returns the classifier for ranks bound to domains of
// kind on m.
func NewDomainRelations(m *Machine, kind string) *DomainRelations {
	return &DomainRelations{m: m, kind: kind, memo: map[[2]int]Relation{}}
}

// Relation returns the relation of ranks mapped to CPUs a and b; see
// DomainRelations. A rank that is not bound (CPU -1) could run anywhere: on
// a one-socket machine the pair is taken as intra-socket (no shared cache
// can be counted on), otherwise as inter-socket.
func (d *DomainRelations) Relation(a, b int) Relation {
	if a < 0 || b < 0 {
		if len(d.m.Packages()) <= 1 {
			return IntraSocket
		}
		return InterSocket
	}
	switch d.kind {
	case DomainCore, DomainL3, DomainNUMA, DomainSocket:
	default:
		return d.m.Relation(a, b)
	}
	da, db := d.m.Domain(a, d.kind), d.m.Domain(b, d.kind)
	key := [2]int{min(da[0], db[0]), max(da[0], db[0])}
	if r, ok := d.memo[key]; ok {
		return r
	}
	far := Self
	for _, x := range da {
		for _, y := range db {
			far = max(far, d.m.Relation(x, y))
		}
		if far == InterSocket {
			break
		}
	}
	d.memo[key] = far
	return far
}
