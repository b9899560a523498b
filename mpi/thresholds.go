//go:build !ompi && !mpich

package mpi

import (
	"strconv"

	"github.com/hympi/hympi/internal/config"
	"github.com/hympi/hympi/topology"
)

// thresholdSource turns a pair of CPUs into the relation name and the
// eager→direct threshold for it. Precedence: HYMPI_THRESHOLD, then a tuned
// profile for this machine (hympi-info --tune), then the topology defaults.
type thresholdSource struct {
	machine *topology.Machine
	th      *topology.Thresholds
	prof    *topology.Profile
	env     string
	source  string // where the last threshold came from
}

func newThresholdSource(k config.Knobs) thresholdSource {
	var t thresholdSource
	if k.ThresholdSet {
		t.env = strconv.Itoa(k.Threshold)
	}
	if m, err := topology.Default(); err == nil {
		t.machine = m
	}
	t.th = topology.NewThresholds(t.machine)
	if path, err := topology.DefaultProfilePath(); err == nil {
		if p, err := topology.LoadProfile(path); err == nil {
			t.prof = p
		}
	}
	return t
}

// relation classifies two ranks' CPUs. An unbound rank (-1) could run
// anywhere: on a one-socket machine the pair is at least intra-socket,
// otherwise assume the far case.
func (t *thresholdSource) relation(a, b int) topology.Relation {
	if t.machine == nil {
		return topology.InterSocket
	}
	if a < 0 || b < 0 {
		if len(t.machine.Packages()) <= 1 {
			return topology.IntraSocket
		}
		return topology.InterSocket
	}
	return t.machine.Relation(a, b)
}

func (t *thresholdSource) forPeer(a, b int) (string, int) {
	rel := t.relation(a, b)
	thr, src := t.th.Resolve(rel, t.env, t.prof)
	t.source = src
	return rel.String(), thr
}
