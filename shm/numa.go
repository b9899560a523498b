package shm

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// NUMA placement of channels. A channel is made and first written by its
// sender (arena.go), so by first touch its pages would land on the
// sender's node, while the receiver is the one that polls the ring and
// reads every cell. When the engine knows each rank's node (a job bound
// across several nodes: topology.ChannelNodes), SetChannelNodes records
// them and OpenChannel gives the whole channel, ring and cells, the
// receiver's node as its preferred node with mbind(2) before anything
// reserves or touches it. The region is shared memory, so the policy
// belongs to the file's pages, not to this mapping: whoever faults or
// reserves a page later (the sender's fallocate of a cell included) gets
// it from that node. MPOL_PREFERRED, not MPOL_BIND: a full node gives
// pages from another rather than failing the job.

const (
	mpolPreferred = 1 // MPOL_PREFERRED
	mpolFAddr     = 2 // MPOL_F_ADDR: get_mempolicy reports the policy at an address
	mpolFNode     = 1 // MPOL_F_NODE: with MPOL_F_ADDR, the node of the page there
)

// SetChannelNodes records, for each rank, the node for the pages of the
// channels this process will make toward it (-1: none). nil turns
// placement off. It must be called before the first OpenChannel to matter.
func (r *Region) SetChannelNodes(nodes []int) error {
	if nodes != nil && len(nodes) != r.L.Ranks {
		return fmt.Errorf("shm: %d channel nodes for %d ranks", len(nodes), r.L.Ranks)
	}
	for _, n := range nodes {
		if n < -1 || n >= maxNodes {
			return fmt.Errorf("shm: NUMA node %d out of range", n)
		}
	}
	r.nodes = append([]int(nil), nodes...)
	if nodes == nil {
		r.nodes = nil
	}
	return nil
}

// maxNodes bounds the node numbers placement handles (the kernel's
// MAX_NUMNODES is at most 1024).
const maxNodes = 1024

// placeChannel prefers dst's node for [base, base+n). A failure (a kernel
// or sandbox without mbind, a node gone offline) only loses the placement:
// the channel works wherever its pages end up.
func (r *Region) placeChannel(base, n int64, dst int) {
	if r.nodes == nil || r.nodes[dst] < 0 {
		return
	}
	_ = r.preferNode(base, n, r.nodes[dst])
}

// preferNode sets MPOL_PREFERRED node on the pages of [off, off+n), which
// must start on a page boundary inside the mapping.
func (r *Region) preferNode(off, n int64, node int) error {
	if off%pageSize != 0 || n <= 0 || off+n > int64(len(r.mem)) || node < 0 || node >= maxNodes {
		return fmt.Errorf("shm: cannot place [%d, %d) on node %d", off, off+n, node)
	}
	var mask [maxNodes / 64]uint64
	mask[node/64] = 1 << (node % 64)
	// maxnode counts the mask's bits plus one: the kernel drops the last.
	_, _, errno := unix.Syscall6(unix.SYS_MBIND, uintptr(unsafe.Pointer(&r.mem[off])), uintptr(n),
		mpolPreferred, uintptr(unsafe.Pointer(&mask[0])), maxNodes+1, 0)
	if errno != 0 {
		return fmt.Errorf("shm: mbind node %d: %w", node, errno)
	}
	return nil
}
