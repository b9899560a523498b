package topology

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// readLive reads the live /sys (not $HYMPI_SYSFS: this is about the real
// machine), skipping when it is not readable.
func readLive(t *testing.T) *Machine {
	t.Helper()
	m, err := Read(DefaultSysfsRoot)
	if err != nil {
		t.Skipf("live sysfs unreadable: %v", err)
	}
	m.Model, _ = ReadModel(CPUInfoPath)
	return m
}

// TestLiveSysfs reads this machine and cross-checks it with /proc/cpuinfo:
// one "processor" entry per online CPU, one distinct "physical id" per
// package (where the architecture reports them).
func TestLiveSysfs(t *testing.T) {
	m := readLive(t)
	var b strings.Builder
	m.Describe(&b)
	t.Logf("live topology:\n%s", b.String())

	f, err := os.Open(CPUInfoPath)
	if err != nil {
		t.Skipf("no %s: %v", CPUInfoPath, err)
	}
	defer f.Close()
	processors, ids := 0, map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		key, value, _ := strings.Cut(sc.Text(), ":")
		switch strings.TrimSpace(key) {
		case "processor":
			processors++
		case "physical id":
			ids[strings.TrimSpace(value)] = true
		}
	}
	if processors > 0 && processors != len(m.CPUs) {
		t.Errorf("sysfs has %d online CPUs, %s lists %d processors", len(m.CPUs), CPUInfoPath, processors)
	}
	if len(ids) > 0 && len(ids) != len(m.Packages()) {
		t.Errorf("sysfs has packages %v, %s has physical ids %v", m.Packages(), CPUInfoPath, ids)
	}

	// Whatever the machine, the classification is total and symmetric and
	// the default binding puts the first ranks on distinct cores.
	for _, a := range m.CPUs {
		for _, c := range m.CPUs {
			if r := m.Relation(a.ID, c.ID); !r.Valid() || r != m.Relation(c.ID, a.ID) {
				t.Errorf("Relation(%d, %d) = %v", a.ID, c.ID, r)
			}
		}
	}
	binding := BindCores(m, nil, len(m.Cores()))
	seen := map[int]bool{}
	for _, cpu := range binding {
		core := m.Lookup(cpu).Siblings[0]
		if seen[core] {
			t.Errorf("binding %v puts two ranks on one core", binding)
		}
		seen[core] = true
	}
	t.Logf("binding of %d ranks: %v", len(binding), binding)
}
