package main

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/hympi/hympi/mpi"
)

// Collectives of 233 B to 8 KiB, the messages that span consecutive
// collective slots (shm/coll.go) instead of taking the descriptor ring,
// and one size past the span limit that takes it again: each collective
// repeated with new data (so the memoised schedule and the direct run
// serve it), checked against a serial reference; a root that runs far
// ahead of late receivers (spans queued behind a full ring, then drained
// as unexpected messages); nonblocking forms; point-to-point messages on
// the same communicator in between. Rank 0 prints how many calls it
// checked, which the test compares with what it expects.
func init() {
	register("coll1k", func(c *mpi.Comm) {
		calls := 0
		for _, m := range c1kSizes {
			for it := range c1kIters {
				calls += c1kRound(c, m, it)
			}
			calls += c1kBurst(c, m)
			calls += c1kRepeat(c, m)
		}
		if c.Rank() == 0 {
			fmt.Printf("coll1k calls %d\n", calls)
		}
	})
}

// c1kSizes: one slot's payload plus one, 1 KiB, 4 KiB, the largest span
// (8 KiB), and one byte more.
var c1kSizes = []int{233, 1024, 4096, 8192, 8193}

const c1kIters = 12

// c1kVal is element e of rank r's contribution to call it of size m.
func c1kVal(r, m, it, e int) int32 { return int32((r*7919+m*31+it*131+e*17)%100003) - 50000 }

func c1kInts(r, m, it, k int) []byte {
	b := make([]byte, 4*k)
	for e := range k {
		binary.LittleEndian.PutUint32(b[4*e:], uint32(c1kVal(r, m, it, e)))
	}
	return b
}

// c1kSum is the sum over ranks [lo, hi) of element e.
func c1kSum(lo, hi, m, it, e int) int32 {
	var s int32
	for r := lo; r < hi; r++ {
		s += c1kVal(r, m, it, e)
	}
	return s
}

func c1kCheckSum(got []byte, lo, hi, m, it, first int, what string) {
	for e := range len(got) / 4 {
		v := int32(binary.LittleEndian.Uint32(got[4*e:]))
		if w := c1kSum(lo, hi, m, it, first+e); v != w {
			fail("%s (%d B, call %d): element %d is %d, want %d", what, m, it, first+e, v, w)
		}
	}
}

// c1kRound runs every collective once with m-byte blocks (reductions
// over ceil(m/4) int32s); it returns the calls it made.
func c1kRound(c *mpi.Comm, m, it int) int {
	r, n := c.Rank(), c.Size()
	root := it % n
	what := func(s string) string { return fmt.Sprintf("%s %d B call %d", s, m, it) }

	buf := make([]byte, m)
	if r == root {
		pattern(buf, m+it)
	}
	must(c.Bcast(buf, root), "%s", what("Bcast"))
	checkPattern(buf, m+it, what("Bcast"))

	k := (m + 3) / 4
	in, out := c1kInts(r, m, it, k), make([]byte, 4*k)
	must(c.Allreduce(in, out, mpi.Int32, mpi.Sum), "%s", what("Allreduce"))
	c1kCheckSum(out, 0, n, m, it, 0, "Allreduce")
	clear(out)
	must(c.Reduce(in, out, mpi.Int32, mpi.Sum, root), "%s", what("Reduce"))
	if r == root {
		c1kCheckSum(out, 0, n, m, it, 0, "Reduce")
	}
	must(c.Scan(in, out, mpi.Int32, mpi.Sum), "%s", what("Scan"))
	c1kCheckSum(out, 0, r+1, m, it, 0, "Scan")
	clear(out)
	must(c.Exscan(in, out, mpi.Int32, mpi.Sum), "%s", what("Exscan"))
	if r > 0 {
		c1kCheckSum(out, 0, r, m, it, 0, "Exscan")
	}
	// Reduce_scatter_block: k int32s a rank of n*k.
	all := c1kInts(r, m, it, n*k)
	must(c.ReduceScatterBlock(all, out, mpi.Int32, mpi.Sum), "%s", what("ReduceScatterBlock"))
	c1kCheckSum(out, 0, n, m, it, r*k, "ReduceScatterBlock")

	send := make([]byte, m)
	pattern(send, r*100003+m+it)
	var gathered []byte
	if r == root {
		gathered = make([]byte, n*m)
	}
	must(c.Gather(send, gathered, root), "%s", what("Gather"))
	if r == root {
		for i := range n {
			checkPattern(gathered[i*m:(i+1)*m], i*100003+m+it, what("Gather"))
		}
	}
	var scat []byte
	if r == root {
		scat = make([]byte, n*m)
		for i := range n {
			pattern(scat[i*m:(i+1)*m], i*7+m+it)
		}
	}
	back := make([]byte, m)
	must(c.Scatter(scat, back, root), "%s", what("Scatter"))
	checkPattern(back, r*7+m+it, what("Scatter"))

	ag := make([]byte, n*m)
	must(c.Allgather(send, ag), "%s", what("Allgather"))
	for i := range n {
		checkPattern(ag[i*m:(i+1)*m], i*100003+m+it, what("Allgather"))
	}
	a2a, got := make([]byte, n*m), make([]byte, n*m)
	for i := range n {
		pattern(a2a[i*m:(i+1)*m], r*1000+i+m+it)
	}
	must(c.Alltoall(a2a, got), "%s", what("Alltoall"))
	for i := range n {
		checkPattern(got[i*m:(i+1)*m], i*1000+r+m+it, what("Alltoall"))
	}

	// Nonblocking forms, with a point-to-point message round the ring
	// in flight on the same communicator.
	if r == root {
		pattern(buf, m+it+1)
	} else {
		clear(buf)
	}
	rq, err := c.Ibcast(buf, root)
	must(err, "%s", what("Ibcast"))
	var p2p *mpi.Request
	pin := make([]byte, m)
	if n > 1 {
		p2p, err = c.Irecv(pin, (r+n-1)%n, 5)
		must(err, "%s", what("Irecv"))
		pout := make([]byte, m)
		pattern(pout, r+m+it+3)
		must(c.Send(pout, (r+1)%n, 5), "%s", what("Send"))
	}
	_, err = rq.Wait()
	must(err, "%s", what("Ibcast wait"))
	checkPattern(buf, m+it+1, what("Ibcast"))
	clear(out)
	rq, err = c.Iallreduce(in, out, mpi.Int32, mpi.Sum)
	must(err, "%s", what("Iallreduce"))
	_, err = rq.Wait()
	must(err, "%s", what("Iallreduce wait"))
	c1kCheckSum(out, 0, n, m, it, 0, "Iallreduce")
	if p2p != nil {
		_, err = p2p.Wait()
		must(err, "%s", what("p2p wait"))
		checkPattern(pin, (r+n-1)%n+m+it+3, what("p2p"))
	}
	return 12
}

// c1kBurst: the root broadcasts a run of m-byte messages while the others
// arrive late, so the root's spans fill the ring and queue behind it, and
// the receivers find them drained into the unexpected queue.
func c1kBurst(c *mpi.Comm, m int) int {
	const runs = 6
	r := c.Rank()
	if r != 0 {
		time.Sleep(20 * time.Millisecond)
	}
	buf := make([]byte, m)
	for k := range runs {
		if r == 0 {
			pattern(buf, m*3+k)
		} else {
			clear(buf)
		}
		must(c.Bcast(buf, 0), "burst Bcast %d B %d", m, k)
		checkPattern(buf, m*3+k, fmt.Sprintf("burst Bcast %d B %d", m, k))
	}
	must(c.Barrier(), "burst Barrier")
	return runs + 1
}

// c1kRepeats is how often c1kRepeat calls each collective.
const c1kRepeats = 6

// c1kRepeat calls each collective c1kRepeats times in a row with the same
// buffers and root and new data each time, so that from the second call
// on the memo's replay (and a persistent collective's plan) moves the
// spans; c1kRound's fresh buffers never hit the memo. It returns the calls
// it made.
func c1kRepeat(c *mpi.Comm, m int) int {
	r, n := c.Rank(), c.Size()
	root := n - 1
	k := (m + 3) / 4
	what := func(s string, it int) string { return fmt.Sprintf("repeated %s %d B call %d", s, m, it) }
	buf, in, out := make([]byte, m), make([]byte, 4*k), make([]byte, 4*k)
	send, all, got := make([]byte, m), make([]byte, n*m), make([]byte, n*m)
	nb := mpi.CartNeighbors([]int{n}, []bool{true}, r)
	nbs, nbr := make([]byte, 2*m), make([]byte, 2*m)
	per, err := c.BcastInit(buf, root)
	must(err, "%s", what("BcastInit", 0))
	calls := 0
	for it := range c1kRepeats {
		seed := 1000 + it
		if r == root {
			pattern(buf, m+seed)
		} else {
			clear(buf)
		}
		must(c.Bcast(buf, root), "%s", what("Bcast", it))
		checkPattern(buf, m+seed, what("Bcast", it))

		copy(in, c1kInts(r, m, seed, k))
		must(c.Allreduce(in, out, mpi.Int32, mpi.Sum), "%s", what("Allreduce", it))
		c1kCheckSum(out, 0, n, m, seed, 0, what("Allreduce", it))
		clear(out)
		must(c.Reduce(in, out, mpi.Int32, mpi.Sum, root), "%s", what("Reduce", it))
		if r == root {
			c1kCheckSum(out, 0, n, m, seed, 0, what("Reduce", it))
		}
		must(c.Scan(in, out, mpi.Int32, mpi.Sum), "%s", what("Scan", it))
		c1kCheckSum(out, 0, r+1, m, seed, 0, what("Scan", it))

		pattern(send, r*100003+m+seed)
		clear(all)
		must(c.Gather(send, all, root), "%s", what("Gather", it))
		if r == root {
			for i := range n {
				checkPattern(all[i*m:(i+1)*m], i*100003+m+seed, what("Gather", it))
			}
		}
		must(c.Allgather(send, got), "%s", what("Allgather", it))
		for i := range n {
			checkPattern(got[i*m:(i+1)*m], i*100003+m+seed, what("Allgather", it))
		}
		for i := range n {
			pattern(all[i*m:(i+1)*m], r*1000+i+m+seed)
		}
		must(c.Alltoall(all, got), "%s", what("Alltoall", it))
		for i := range n {
			checkPattern(got[i*m:(i+1)*m], i*1000+r+m+seed, what("Alltoall", it))
		}
		// The periodic ring's two blocks: to the left, then the right
		// (at 2 ranks both go to the one peer, in that order).
		for j, d := range nb.Destinations {
			pattern(nbs[j*m:(j+1)*m], r*10+d+j+m+seed)
		}
		clear(nbr)
		must(c.NeighborAlltoall(nb, nbs, nbr), "%s", what("NeighborAlltoall", it))
		for j, src := range nb.Sources {
			// The source's block for us is the one it sent the other way.
			checkPattern(nbr[j*m:(j+1)*m], src*10+r+(1-j)+m+seed, what("NeighborAlltoall", it))
		}

		if r == root {
			pattern(buf, m+seed+1)
		} else {
			clear(buf)
		}
		_, err := per.Start()
		must(err, "%s", what("BcastInit start", it))
		_, err = per.Wait()
		must(err, "%s", what("BcastInit wait", it))
		checkPattern(buf, m+seed+1, what("BcastInit", it))
		calls += 9
	}
	must(per.Free(), "%s", what("BcastInit free", 0))
	return calls
}
