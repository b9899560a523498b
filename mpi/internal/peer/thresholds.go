package peer

import (
	"os"
	"strconv"

	"github.com/hympi/hympi/internal/config"
	"github.com/hympi/hympi/topology"
)

// Thresholds turns a pair of CPUs into the relation name and the
// eager→direct threshold for it. Precedence: HYMPI_THRESHOLD, then a tuned
// profile for this machine (hympi-info --tune), then the topology defaults.
type Thresholds struct {
	// Machine is the topology the ranks run on; nil when unknown.
	Machine *topology.Machine
	// domains classifies pairs by where hympirun let the ranks run
	// (HYMPI_BIND); nil when machine is.
	domains *topology.DomainRelations
	th      *topology.Thresholds
	prof    *topology.Profile
	env     string
	// Source is where the last threshold came from (topology.Source*).
	Source string
}

// NewThresholds reads the machine, the binding hympirun chose and any
// tuned profile.
func NewThresholds(k config.Knobs) Thresholds {
	m, err := topology.Default()
	if err != nil {
		m = nil
	}
	t := ThresholdsFor(m, os.Getenv(topology.EnvBind), k)
	if path, err := topology.DefaultProfilePath(); err == nil {
		if p, err := topology.LoadProfile(path); err == nil {
			t.prof = p
		}
	}
	return t
}

// ThresholdsFor is the source for machine m (nil: unknown) when hympirun
// bound the ranks by policy bind (HYMPI_BIND), without a profile.
func ThresholdsFor(m *topology.Machine, bind string, k config.Knobs) Thresholds {
	var t Thresholds
	if k.ThresholdSet {
		t.env = strconv.Itoa(k.Threshold)
	}
	t.Machine = m
	if m != nil {
		t.domains = topology.NewDomainRelations(m, bind)
	}
	t.th = topology.NewThresholds(m)
	return t
}

// relation classifies two ranks' CPUs (topology.DomainRelations): a rank
// bound to a domain could run on any CPU of it and gets the farthest
// relation its domain allows; an unbound rank (-1) could run anywhere.
func (t *Thresholds) relation(a, b int) topology.Relation {
	if t.Machine == nil {
		return topology.InterSocket
	}
	return t.domains.Relation(a, b)
}

// ForPeer is the relation name and threshold between ranks on CPUs a and b
// (-1: unbound).
func (t *Thresholds) ForPeer(a, b int) (string, int) {
	rel := t.relation(a, b)
	thr, src := t.th.Resolve(rel, t.env, t.prof)
	t.Source = src
	return rel.String(), thr
}
