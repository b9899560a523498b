package topology

import (
	"testing"

	"github.com/shirou/gopsutil/v3/cpu"
)

// TestLiveGopsutil cross-checks the live CPU and package counts against
// gopsutil, which reads /proc rather than /sys; it skips where gopsutil
// cannot tell.
func TestLiveGopsutil(t *testing.T) {
	m := readLive(t)
	logical, err := cpu.Counts(true)
	if err != nil || logical <= 0 {
		t.Skipf("gopsutil cannot count CPUs: %d, %v", logical, err)
	}
	if logical != len(m.CPUs) {
		t.Errorf("sysfs has %d online CPUs, gopsutil counts %d", len(m.CPUs), logical)
	}
	infos, err := cpu.Info()
	if err != nil || len(infos) == 0 {
		t.Skipf("gopsutil has no CPU info: %v", err)
	}
	packages := map[string]bool{}
	for _, info := range infos {
		if info.PhysicalID == "" {
			t.Skip("gopsutil reports no physical ids here")
		}
		packages[info.PhysicalID] = true
	}
	if len(packages) != len(m.Packages()) {
		t.Errorf("sysfs has packages %v, gopsutil has physical ids %v", m.Packages(), packages)
	}
	if infos[0].ModelName != m.Model {
		t.Errorf("model %q, gopsutil says %q", m.Model, infos[0].ModelName)
	}
	t.Logf("gopsutil: %d logical CPUs, %d packages, model %q", logical, len(packages), infos[0].ModelName)
}
