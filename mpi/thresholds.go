//go:build !ompi && !mpich

package mpi

import (
	"os"
	"strconv"

	"github.com/hympi/hympi/internal/config"
	"github.com/hympi/hympi/topology"
)

// thresholdSource turns a pair of CPUs into the relation name and the
// eager→direct threshold for it. Precedence: HYMPI_THRESHOLD, then a tuned
// profile for this machine (hympi-info --tune), then the topology defaults.
type thresholdSource struct {
	machine *topology.Machine
	// domains classifies pairs by where hympirun let the ranks run
	// (HYMPI_BIND); nil when machine is.
	domains *topology.DomainRelations
	th      *topology.Thresholds
	prof    *topology.Profile
	env     string
	source  string // where the last threshold came from
}

func newThresholdSource(k config.Knobs) thresholdSource {
	m, err := topology.Default()
	if err != nil {
		m = nil
	}
	t := thresholdsFor(m, os.Getenv(topology.EnvBind), k)
	if path, err := topology.DefaultProfilePath(); err == nil {
		if p, err := topology.LoadProfile(path); err == nil {
			t.prof = p
		}
	}
	return t
}

// thresholdsFor is the source for machine m (nil: unknown) when hympirun
// bound the ranks by policy bind (HYMPI_BIND), without a profile.
func thresholdsFor(m *topology.Machine, bind string, k config.Knobs) thresholdSource {
	var t thresholdSource
	if k.ThresholdSet {
		t.env = strconv.Itoa(k.Threshold)
	}
	t.machine = m
	if m != nil {
		t.domains = topology.NewDomainRelations(m, bind)
	}
	t.th = topology.NewThresholds(m)
	return t
}

// relation classifies two ranks' CPUs (topology.DomainRelations): a rank
// bound to a domain could run on any CPU of it and gets the farthest
// relation its domain allows; an unbound rank (-1) could run anywhere.
func (t *thresholdSource) relation(a, b int) topology.Relation {
	if t.machine == nil {
		return topology.InterSocket
	}
	return t.domains.Relation(a, b)
}

func (t *thresholdSource) forPeer(a, b int) (string, int) {
	rel := t.relation(a, b)
	thr, src := t.th.Resolve(rel, t.env, t.prof)
	t.source = src
	return rel.String(), thr
}
