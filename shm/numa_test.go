package shm

import (
	"fmt"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// memPolicy reports the policy at region offset off and its node mask's
// lowest node (-1: empty), and, when inMemory, the node of the page there: what the tests check placement by.
func (r *Region) memPolicy(off int64, inMemory bool) (mode, node, pageNode int, err error) {
	var mask [maxNodes / 64]uint64
	var m int32
	addr := uintptr(unsafe.Pointer(&r.mem[off]))
	if _, _, e := unix.Syscall6(unix.SYS_GET_MEMPOLICY, uintptr(unsafe.Pointer(&m)),
		uintptr(unsafe.Pointer(&mask[0])), maxNodes+1, addr, mpolFAddr, 0); e != 0 {
		return 0, 0, 0, fmt.Errorf("get_mempolicy: %w", e)
	}
	node = -1
	for i := range maxNodes {
		if mask[i/64]&(1<<(i%64)) != 0 {
			node = i
			break
		}
	}
	if !inMemory {
		return int(m), node, -1, nil
	}
	var pn int32
	if _, _, e := unix.Syscall6(unix.SYS_GET_MEMPOLICY, uintptr(unsafe.Pointer(&pn)), 0, 0, addr, mpolFAddr|mpolFNode, 0); e != 0 {
		return 0, 0, 0, fmt.Errorf("get_mempolicy node: %w", e)
	}
	return int(m), node, int(pn), nil
}

// TestChannelNUMAPlacement: a channel made after SetChannelNodes carries
// MPOL_PREFERRED for its receiver's node on its ring and its last cell
// (this machine has node 0 only, so node 0 is the one that must work), and
// its ring pages are on that node; without placement, or for a receiver
// whose node is unknown, the channel keeps the default policy.
func TestChannelNUMAPlacement(t *testing.T) {
	const mpolDefault = 0
	tests := []struct {
		name     string
		nodes    []int
		src, dst int
		wantMode int
	}{
		{"placed on the receiver's node", []int{-1, 0, -1}, 0, 1, mpolPreferred},
		{"receiver's node unknown", []int{0, -1, 0}, 0, 1, mpolDefault},
		{"placement off", nil, 2, 0, mpolDefault},
	}
	for _, file := range []bool{false, true} {
		for _, tc := range tests {
			name := fmt.Sprintf("%s (file %v)", tc.name, file)
			var r *Region
			var err error
			if file {
				var f interface{ Close() error }
				r, f, err = createIn(t, "/dev/shm")
				if err == nil {
					defer f.Close()
				}
			} else {
				r, err = CreateAnonymous(3, tinyConfig)
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			defer r.Close()
			if err := r.SetChannelNodes(tc.nodes); err != nil {
				t.Fatalf("%s: SetChannelNodes: %v", name, err)
			}
			c, err := r.OpenChannel(tc.src, tc.dst)
			if err != nil {
				t.Fatalf("%s: OpenChannel: %v", name, err)
			}
			ring, lastCell := c.base, c.base+r.L.ChannelStride-pageSize
			for _, off := range []int64{ring, lastCell} {
				mode, node, pageNode, err := r.memPolicy(off, off == ring)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if mode != tc.wantMode {
					t.Errorf("%s: policy at +%d is mode %d, want %d", name, off-c.base, mode, tc.wantMode)
				}
				if tc.wantMode == mpolPreferred && node != 0 {
					t.Errorf("%s: preferred node at +%d is %d, want 0", name, off-c.base, node)
				}
				if off == ring && pageNode != 0 {
					t.Errorf("%s: ring page on node %d, want 0", name, pageNode)
				}
			}
		}
	}
}

// TestSetChannelNodesRejects: a table of the wrong length or with a node out
// of range is refused and leaves placement as it was.
func TestSetChannelNodesRejects(t *testing.T) {
	r, err := CreateAnonymous(2, tinyConfig)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.SetChannelNodes([]int{0, 0}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]int{{0}, {0, 0, 0}, {0, -2}, {maxNodes, 0}} {
		if err := r.SetChannelNodes(bad); err == nil {
			t.Errorf("SetChannelNodes(%v) accepted", bad)
		}
		if len(r.nodes) != 2 || r.nodes[0] != 0 || r.nodes[1] != 0 {
			t.Errorf("after SetChannelNodes(%v): nodes %v, want [0 0]", bad, r.nodes)
		}
	}
	if err := r.preferNode(1, pageSize, 0); err == nil {
		t.Error("preferNode accepted an unaligned offset")
	}
}

func createIn(t *testing.T, dir string) (*Region, interface{ Close() error }, error) {
	t.Helper()
	r, f, err := Create(dir, 3, tinyConfig)
	return r, f, err
}
