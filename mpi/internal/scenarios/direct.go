package main

import (
	"os"

	"github.com/hympi/hympi/directcopy"
	"github.com/hympi/hympi/mpi"
)

func init() {
	// The protocol each message took matches HYMPI_DIRECT and the peer's
	// threshold, the data is right either way, and no buffer stays pinned.
	register("counters", func(c *mpi.Comm) {
		mode := os.Getenv("HYMPI_DIRECT")
		refused := os.Getenv(directcopy.FailEnv) != ""
		r := c.Rank()
		if r > 1 {
			return
		}
		peer := 1 - r
		before := mpi.Counters(peer)
		thr := before.Threshold
		if thr <= 0 || thr > 64<<20 {
			fail("threshold toward %d is %d", peer, thr)
		}
		switch before.Relation {
		case "smt", "shared-cache", "intra-socket", "inter-socket":
		default:
			fail("relation toward %d is %q", peer, before.Relation)
		}
		sizes := []int{thr, thr + 1, 3 << 20}
		for k, sz := range sizes {
			buf := make([]byte, sz)
			if r == 0 {
				pattern(buf, sz)
				must(c.Send(buf, 1, k), "Send %d", sz)
			} else {
				st, err := c.Recv(buf, 0, k)
				must(err, "Recv %d", sz)
				if st.Count != sz {
					fail("Recv %d: count %d", sz, st.Count)
				}
				checkPattern(buf, sz, "message")
			}
		}
		if r != 0 {
			return
		}
		// Every Send above has returned, so every direct one got its FIN.
		after := mpi.Counters(1)
		eager, direct := after.EagerMsgs-before.EagerMsgs, after.DirectMsgs-before.DirectMsgs
		want := map[string][2]uint64{"": {1, 2}, "auto": {1, 2}, "off": {3, 0}, "always": {0, 3}}[mode]
		if os.Getenv("HYMPI_THRESHOLD") != "" && mode != "off" && mode != "always" {
			want = [2]uint64{1, 2} // the threshold moved, the rule did not
		}
		if refused {
			want = [2]uint64{3, 0} // the kernel said no at Init: all shared memory
		}
		if eager != want[0] || direct != want[1] {
			fail("HYMPI_DIRECT=%q refused=%v threshold %d: %d eager and %d direct messages, want %d and %d",
				mode, refused, thr, eager, direct, want[0], want[1])
		}
		if after.DirectBytes-before.DirectBytes != bytesOver(sizes, want[1]) {
			fail("direct bytes %d", after.DirectBytes-before.DirectBytes)
		}
		if n := directcopy.Pinned(); n != 0 {
			fail("%d buffers still pinned after every send completed", n)
		}
	})
}

// bytesOver sums the last k sizes (the ones that went direct).
func bytesOver(sizes []int, k uint64) uint64 {
	var n uint64
	for _, s := range sizes[len(sizes)-int(k):] {
		n += uint64(s)
	}
	return n
}
