package peer

import (
	"testing"

	"github.com/hympi/hympi/internal/config"
	"github.com/hympi/hympi/internal/sysfsfixture"
	"github.com/hympi/hympi/topology"
)

// TestThresholdsByBinding: on a two-socket EPYC (an L3 per 8 cores, two
// L3s per NUMA node) a pair's relation and threshold follow where hympirun
// let the two ranks run (HYMPI_CPU, HYMPI_BIND).
func TestThresholdsByBinding(t *testing.T) {
	m, err := topology.ReadFS(sysfsfixture.EPYC2S(true).FS(), "epyc-2s-128c-smt")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		bind string
		a, b int
		rel  string
		thr  int
	}{
		{"hwthread", 0, 128, "smt", topology.DefaultSharedCacheThreshold},
		{"hwthread", 0, 8, "intra-socket", topology.DefaultIntraSocketThreshold},
		{"", 0, 7, "shared-cache", topology.DefaultSharedCacheThreshold}, // an older hympirun: CPUs taken as exact
		{"core", 0, 1, "shared-cache", topology.DefaultSharedCacheThreshold},
		{"l3cache", 0, 1, "shared-cache", topology.DefaultSharedCacheThreshold},
		{"l3cache", 0, 8, "intra-socket", topology.DefaultIntraSocketThreshold},
		{"numa", 0, 1, "intra-socket", topology.DefaultIntraSocketThreshold},
		{"socket", 0, 64, "inter-socket", topology.DefaultInterSocketThreshold},
		{"none", 0, 1, "shared-cache", topology.DefaultSharedCacheThreshold},
		{"socket", -1, 1, "inter-socket", topology.DefaultInterSocketThreshold}, // an unbound rank on two sockets
	} {
		th := ThresholdsFor(m, tc.bind, config.Knobs{})
		rel, thr := th.ForPeer(tc.a, tc.b)
		if rel != tc.rel || thr != tc.thr || th.Source != topology.SourceDefault {
			t.Errorf("HYMPI_BIND=%q, cpus %d,%d: %s %d from %s, want %s %d from default", tc.bind, tc.a, tc.b, rel, thr, th.Source, tc.rel, tc.thr)
		}
	}
	th := ThresholdsFor(m, "numa", config.Knobs{Threshold: 4096, ThresholdSet: true})
	if rel, thr := th.ForPeer(0, 64); rel != "inter-socket" || thr != 4096 || th.Source != topology.SourceEnvironment {
		t.Errorf("HYMPI_THRESHOLD=4096: %s %d from %s, want inter-socket 4096 from environment", rel, thr, th.Source)
	}
	unknown := ThresholdsFor(nil, "l3cache", config.Knobs{})
	if rel, _ := unknown.ForPeer(0, 1); rel != "inter-socket" {
		t.Errorf("no topology: %s, want inter-socket", rel)
	}
}
