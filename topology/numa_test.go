package topology

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestChannelNodes: the node chosen for a receiver's channels on the
// generated two-socket machines (EPYC 7763 NPS4: 8 nodes of 16 cores, two
// L3s each; Xeon 8480+: one node per socket, CPUs n and n+112 one core) and
// on a committed one-node tree.
func TestChannelNodes(t *testing.T) {
	tests := []struct {
		name    string
		machine string // big fixture name, or a testdata directory
		bind    string
		cpus    []int
		want    []int
	}{
		{"epyc core, one rank per node", epyc, DomainCore, []int{0, 16, 32, 48, 64, 80, 96, 112}, []int{0, 1, 2, 3, 4, 5, 6, 7}},
		{"epyc core, every rank in node 0", epyc, DomainCore, []int{0, 1, 2, 15}, nil},
		{"epyc hwthread, SMT siblings share a node", epycSMT, DomainHWThread, []int{0, 128, 127, 255}, []int{0, 0, 7, 7}},
		{"epyc l3cache stays inside a node", epyc, DomainL3, []int{0, 8, 120}, []int{0, 0, 7}},
		{"epyc numa", epyc, DomainNUMA, []int{5, 17}, []int{0, 1}},
		{"epyc socket spans four nodes", epyc, DomainSocket, []int{0, 64}, nil},
		{"epyc unbound", epyc, string(BindNone), []int{0, 64}, nil},
		{"epyc no policy", epyc, "", []int{0, 64}, nil},
		{"epyc unknown CPU", epyc, DomainCore, []int{0, -1, 64, 9999}, []int{0, -1, 4, -1}},
		{"xeon core across sockets", xeon, DomainCore, []int{0, 56, 112, 168}, []int{0, 1, 0, 1}},
		{"xeon socket is one node", xeon, DomainSocket, []int{0, 56}, []int{0, 1}},
		{"one-node machine", "onesocket-l3", DomainCore, []int{0, 1}, nil},
	}
	for _, tc := range tests {
		var m *Machine
		if _, ok := bigNames[tc.machine]; ok {
			m = readBig(t, tc.machine)
		} else {
			var err error
			if m, err = Read(filepath.Join("testdata", tc.machine)); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
		}
		if got := ChannelNodes(m, tc.bind, tc.cpus); !slices.Equal(got, tc.want) {
			t.Errorf("%s: ChannelNodes = %v, want %v", tc.name, got, tc.want)
		}
	}
	if got := ChannelNodes(nil, DomainCore, []int{0, 1}); got != nil {
		t.Errorf("unknown machine: %v, want nil", got)
	}
}

var bigNames = map[string]bool{epyc: true, epycSMT: true, xeon: true}
