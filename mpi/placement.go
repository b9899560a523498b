//go:build !ompi && !mpich

package mpi

import (
	"os"

	"github.com/hympi/hympi/mpi/internal/peer"
	"github.com/hympi/hympi/topology"
)

// placeChannels tells the region on which NUMA node each rank's incoming
// channels belong (topology.ChannelNodes), before this rank makes any: the
// sender creates a channel, the receiver reads it. It needs every rank's
// published CPU, so it runs once all have attached; on a machine of one
// node, or with unbound ranks, it leaves placement to first touch.
func (e *engine) placeChannels(th *peer.Thresholds) {
	if th.Machine == nil || len(th.Machine.Nodes) <= 1 {
		return
	}
	cpus := make([]int, e.size)
	for p := range cpus {
		cpus[p] = e.region.RankCPU(p)
	}
	_ = e.region.SetChannelNodes(topology.ChannelNodes(th.Machine, os.Getenv(topology.EnvBind), cpus))
}
