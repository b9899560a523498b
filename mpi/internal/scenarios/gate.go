package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/hympi/hympi/internal/enginehook"
	"github.com/hympi/hympi/mpi"
)

func init() {
	// Barrier and small Allreduce where an oversubscribed job runs them
	// through the communicator's gate (mpi/coll_gate.go): run with more
	// ranks than CPUs, from 3 ranks (Barrier from 9). Results are checked
	// against serial references; the forms and communicators interleave so that gate and
	// message-based collectives, blocking and nonblocking ones, and two
	// communicators' gates are in flight together.
	register("gate", func(c *mpi.Comm) {
		gateBarrierOrder(c)
		dup, err := c.Dup()
		must(err, "Dup")
		half, err := c.Split(c.Rank()%2, -c.Rank()) // reversed rank order
		must(err, "Split")
		for round := range 30 {
			for _, x := range []*mpi.Comm{c, dup, half} {
				gateSums(x, round)
				gateExchanges(x, round)
				gateReduceScatters(x, round)
			}
		}
		gateNonCommutative(c)
		gateNonCommutative(half)
		gateNonblocking(c, dup)
		gatePersistent(c)
		gateLate(c)
		gateMismatch(c)
		must(half.Free(), "Free")
		must(dup.Free(), "Free")
	})
}

// gateBarrierOrder: a rank that reaches the barrier late (after a sleep)
// stamps the wall clock as it enters and broadcasts the stamp; no rank may
// have left the barrier before it. Causality, not timing: the clock is the
// machine's one, and the late rank's stamp precedes its arrival.
func gateBarrierOrder(c *mpi.Comm) {
	r, n := c.Rank(), c.Size()
	for _, late := range []int{n - 1, 0, n / 2} {
		var enter int64
		if r == late {
			time.Sleep(30 * time.Millisecond)
			enter = time.Now().UnixNano()
		}
		must(c.Barrier(), "Barrier")
		left := time.Now().UnixNano()
		stamp := make([]byte, 8)
		binary.LittleEndian.PutUint64(stamp, uint64(enter))
		must(c.Bcast(stamp, late), "Bcast stamp")
		if e := int64(binary.LittleEndian.Uint64(stamp)); left < e {
			fail("left the barrier at %d, before rank %d entered it at %d", left, late, e)
		}
	}
}

// gateSums: Allreduce sums of 1..8 int64 (the gate's sizes) and of 9
// (above them), in place and not, with values that change every round.
func gateSums(c *mpi.Comm, round int) {
	r, n := c.Rank(), c.Size()
	for _, count := range []int{1, 3, 8, 9} {
		in := make([]byte, 8*count)
		want := make([]byte, 8*count)
		for i := range count {
			binary.LittleEndian.PutUint64(in[8*i:], uint64(r*1000+i+round*7))
			binary.LittleEndian.PutUint64(want[8*i:], uint64(n*(n-1)/2*1000+n*(i+round*7)))
		}
		out := make([]byte, len(in))
		if round%2 == 1 {
			out = in // in place
		}
		must(c.Allreduce(in, out, mpi.Int64, mpi.Sum), "Allreduce")
		expect(out, want, "Allreduce sum of %d int64, round %d", count, round)
	}
	must(c.Barrier(), "Barrier")
}

// gateExchanges: Allgather, Allgatherv and Alltoall of blocks that fit
// the gate's slot (Alltoall: all of a rank's blocks together) and above
// it, blocking and nonblocking, in place on odd rounds; every byte names
// its sender, its receiver's block and the round.
func gateExchanges(c *mpi.Comm, round int) {
	r, n := c.Rank(), c.Size()
	val := func(from, blk, i int) byte { return byte(from*31 + blk*7 + i + round*13) }
	inPlace := round%2 == 1
	for _, m := range []int{1, 8, 56 / n, 57} {
		if m == 0 {
			continue
		}
		for _, nb := range []bool{false, true} {
			// Allgather and Allgatherv.
			for _, v := range []bool{false, true} {
				recv := make([]byte, n*m)
				send := make([]byte, m)
				for i := range send {
					send[i] = val(r, 0, i)
				}
				// Allgatherv's displacements are each rank's own: odd
				// ranks take the blocks in reverse order.
				counts, displs := make([]int, n), make([]int, n)
				for p := range n {
					counts[p], displs[p] = m, p*m
					if v && r%2 == 1 {
						displs[p] = (n - 1 - p) * m
					}
				}
				if inPlace {
					copy(recv[displs[r]:], send)
					send = recv[displs[r] : displs[r]+m]
				}
				var q *mpi.Request
				var err error
				switch {
				case v && nb:
					q, err = c.Iallgatherv(send, recv, counts, displs)
				case v:
					err = c.Allgatherv(send, recv, counts, displs)
				case nb:
					q, err = c.Iallgather(send, recv)
				default:
					err = c.Allgather(send, recv)
				}
				must(err, "Allgather(v) of %d bytes", m)
				if q != nil {
					_, err = q.Wait()
					must(err, "Wait Iallgather(v)")
				}
				want := make([]byte, n*m)
				for p := range n {
					for i := range m {
						want[displs[p]+i] = val(p, 0, i)
					}
				}
				expect(recv, want, "Allgather(v %v, nonblocking %v) of %d bytes, round %d", v, nb, m, round)
			}
			// Alltoall.
			send, recv := make([]byte, n*m), make([]byte, n*m)
			for j := range n {
				for i := range m {
					send[j*m+i] = val(r, j, i)
				}
			}
			if inPlace {
				recv = send
			}
			var err error
			if nb {
				var q *mpi.Request
				q, err = c.Ialltoall(send, recv)
				must(err, "Ialltoall of %d bytes", m)
				_, err = q.Wait()
			} else {
				err = c.Alltoall(send, recv)
			}
			must(err, "Alltoall of %d-byte blocks", m)
			want := make([]byte, n*m)
			for p := range n {
				for i := range m {
					want[p*m+i] = val(p, r, i)
				}
			}
			expect(recv, want, "Alltoall (nonblocking %v) of %d-byte blocks, round %d", nb, m, round)
		}
	}
}

// gateReduceScatters: Reduce_scatter_block and Reduce_scatter (uneven
// parts, some empty) of int32 sums and of a non-commutative operator on
// 8-byte elements, blocking and nonblocking, in place on odd rounds;
// small enough for the gate's slot up to 14 and 7 ranks and above it
// beyond.
func gateReduceScatters(c *mpi.Comm, round int) {
	r, n := c.Rank(), c.Size()
	aff, err := mpi.OpaqueType(8)
	must(err, "OpaqueType")
	op, err := mpi.NewOp(affine32, false)
	must(err, "NewOp")
	defer op.Free()
	elemVal := func(rank, i int) uint32 { return uint32(rank*1009 + i*17 + round*101 + 1) }
	for _, noncomm := range []bool{false, true} {
		for _, v := range []bool{false, true} {
			for _, nb := range []bool{false, true} {
				elem, dt, o := 4, mpi.Int32, mpi.Sum
				if noncomm {
					elem, dt, o = 8, aff, op
				}
				counts := make([]int, n) // bytes
				for p := range n {
					counts[p] = elem
					if v {
						counts[p] = elem * ((p + round) % 3)
					}
				}
				total, at := 0, 0
				for p, k := range counts {
					if p == r {
						at = total
					}
					total += k
				}
				in := make([]byte, total)
				for i := 0; i < total; i += 4 {
					binary.LittleEndian.PutUint32(in[i:], elemVal(r, i/4))
				}
				// The reference: every rank's input folded in rank order.
				want := make([]byte, counts[r])
				for i := 0; i < counts[r]; i += elem {
					acc := make([]byte, elem)
					for p := range n {
						x := make([]byte, elem)
						for j := 0; j < elem; j += 4 {
							binary.LittleEndian.PutUint32(x[j:], elemVal(p, (at+i+j)/4))
						}
						if p == 0 {
							copy(acc, x)
						} else if noncomm {
							affine32(acc, x, aff)
							acc = x
						} else {
							binary.LittleEndian.PutUint32(acc, binary.LittleEndian.Uint32(acc)+binary.LittleEndian.Uint32(x))
						}
					}
					copy(want[i:], acc)
				}
				out := make([]byte, counts[r])
				if round%2 == 1 {
					out = in // in place: the part lands at the start
				}
				var q *mpi.Request
				switch {
				case v && nb:
					q, err = c.IreduceScatter(in, out, counts, dt, o)
				case v:
					err = c.ReduceScatter(in, out, counts, dt, o)
				case nb:
					q, err = c.IreduceScatterBlock(in, out, dt, o)
				default:
					err = c.ReduceScatterBlock(in, out, dt, o)
				}
				must(err, "Reduce_scatter (v %v, nonblocking %v, non-commutative %v)", v, nb, noncomm)
				if q != nil {
					_, err = q.Wait()
					must(err, "Wait")
				}
				expect(out[:counts[r]], want, "Reduce_scatter (v %v, nonblocking %v, non-commutative %v) of %d bytes, round %d", v, nb, noncomm, total, round)
			}
		}
	}
}

// affine32 is an associative, non-commutative operator on pairs (a, b) of
// uint32, the maps x ↦ a·x + b: lower op higher applies the lower first.
func affine32(in, inout []byte, _ mpi.Datatype) {
	for off := 0; off+8 <= len(in); off += 8 {
		a1, b1 := binary.LittleEndian.Uint32(in[off:]), binary.LittleEndian.Uint32(in[off+4:])
		a2, b2 := binary.LittleEndian.Uint32(inout[off:]), binary.LittleEndian.Uint32(inout[off+4:])
		binary.LittleEndian.PutUint32(inout[off:], a1*a2)
		binary.LittleEndian.PutUint32(inout[off+4:], a2*b1+b2)
	}
}

// gateNonCommutative: a 2x2 matrix product in rank order, one and two
// matrices (32 and 64 bytes, through the gate) and three (above it).
func gateNonCommutative(c *mpi.Comm) {
	mat, err := mpi.OpaqueType(32)
	must(err, "OpaqueType")
	op, err := mpi.NewOp(matMul, false)
	must(err, "NewOp")
	defer op.Free()
	all := span(0, c.Size())
	for range 5 {
		for _, count := range []int{1, 2, 3} {
			out := make([]byte, 32*count)
			must(c.Allreduce(matInput(c.Rank(), count), out, mat, op), "Allreduce matrices")
			expect(out, matFold(all, count), "non-commutative Allreduce of %d matrices", count)
		}
	}
}

// gateNonblocking: several nonblocking gate collectives outstanding on one
// communicator and on another at once, waited for in reverse order, with
// a blocking one on a third communicator between their starts and waits.
func gateNonblocking(c, d *mpi.Comm) {
	r, n := c.Rank(), c.Size()
	for round := range 10 {
		const k = 4
		var reqs []*mpi.Request
		outs := make([][]byte, 0, 2*k)
		for i := range k {
			for _, x := range []*mpi.Comm{c, d} {
				in := make([]byte, 8)
				binary.LittleEndian.PutUint64(in, uint64(r+i+round))
				out := make([]byte, 8)
				q, err := x.Iallreduce(in, out, mpi.Int64, mpi.Sum)
				must(err, "Iallreduce")
				reqs = append(reqs, q)
				outs = append(outs, out)
			}
			q, err := c.Ibarrier()
			must(err, "Ibarrier")
			reqs = append(reqs, q)
			outs = append(outs, nil)
		}
		if round%2 == 0 {
			must(d.Barrier(), "Barrier between")
		}
		for j := len(reqs) - 1; j >= 0; j-- {
			_, err := reqs[j].Wait()
			must(err, "Wait")
		}
		for j, out := range outs {
			if out == nil {
				continue
			}
			i := j / 3
			want := make([]byte, 8)
			binary.LittleEndian.PutUint64(want, uint64(n*(n-1)/2+n*(i+round)))
			expect(out, want, "Iallreduce %d of round %d", j, round)
		}
	}
}

// gatePersistent: persistent collectives (which keep the message-based
// algorithms) interleaved with gate ones on the same communicator.
func gatePersistent(c *mpi.Comm) {
	r, n := c.Rank(), c.Size()
	in, out := make([]byte, 8), make([]byte, 8)
	p, err := c.AllreduceInit(in, out, mpi.Int64, mpi.Sum)
	must(err, "AllreduceInit")
	b, err := c.BarrierInit()
	must(err, "BarrierInit")
	for round := range 10 {
		binary.LittleEndian.PutUint64(in, uint64(r*round))
		q, err := p.Start()
		must(err, "Start")
		gin, gout := make([]byte, 8), make([]byte, 8)
		binary.LittleEndian.PutUint64(gin, 1)
		must(c.Allreduce(gin, gout, mpi.Int64, mpi.Sum), "Allreduce beside a persistent one")
		_, err = q.Wait()
		must(err, "Wait")
		if got, want := binary.LittleEndian.Uint64(out), uint64(n*(n-1)/2*round); got != want {
			fail("persistent Allreduce round %d: %d, want %d", round, got, want)
		}
		if got := binary.LittleEndian.Uint64(gout); got != uint64(n) {
			fail("Allreduce beside a persistent one: %d, want %d", got, n)
		}
		q, err = b.Start()
		must(err, "Start barrier")
		_, err = q.Wait()
		must(err, "Wait barrier")
	}
	must(p.Free(), "Free")
	must(b.Free(), "Free")
}

// gateLate: one rank arrives long after the others (they sleep at the
// gate) at an Allreduce, repeatedly, a different rank each time.
func gateLate(c *mpi.Comm) {
	r, n := c.Rank(), c.Size()
	for i, late := range []int{n - 1, 0, n / 3} {
		if r == late {
			time.Sleep(50 * time.Millisecond)
		}
		in, out := make([]byte, 8), make([]byte, 8)
		binary.LittleEndian.PutUint64(in, uint64(r+i))
		must(c.Allreduce(in, out, mpi.Int64, mpi.Sum), "late Allreduce")
		if got, want := binary.LittleEndian.Uint64(out), uint64(n*(n-1)/2+n*i); got != want {
			fail("late Allreduce %d: %d, want %d", i, got, want)
		}
	}
}

// gateMismatch: ranks that disagree on an Allreduce's count (erroneous)
// all get ErrCount, and the communicator's next collectives still work.
func gateMismatch(c *mpi.Comm) {
	r, n := c.Rank(), c.Size()
	count := 1
	if r == n/2 {
		count = 2
	}
	in, out := make([]byte, 8*count), make([]byte, 8*count)
	if err := c.Allreduce(in, out, mpi.Int64, mpi.Sum); !errors.Is(err, mpi.ErrCount) {
		fail("Allreduce with rank %d giving 2 elements, the others 1: %v (class %d), want ErrCount", n/2, err, mpi.ClassOf(err))
	}
	gateSums(c, 1)
}

func init() {
	// Communicators created and freed over and over, each with a gate:
	// the gate blocks come back when every member has freed a
	// communicator, so a thousand of them fit in an arena of 2n+16. Two
	// are alive at a time (the next is made before the last is freed).
	// Run with more than 12 ranks on fewer CPUs.
	register("gatereuse", func(c *mpi.Comm) {
		r, n := c.Rank(), c.Size()
		const rounds = 1000
		gated0, _, _ := gateStats()
		var prev *mpi.Comm
		mine := 0 // communicators of this rank that should have a gate
		for i := range rounds {
			var x *mpi.Comm
			var err error
			if i%2 == 0 {
				x, err = c.Dup()
				must(err, "Dup %d", i)
			} else {
				// Ranks 0..n-3 in one part, reversed; the other two
				// (no gate: too few) in another.
				x, err = c.Split(min(r/(n-2), 1), -r)
				must(err, "Split %d", i)
			}
			if x.Size() > 2 { // mpi's gateMinRanks
				mine++
			}
			must(x.Barrier(), "Barrier %d", i)
			in, out := make([]byte, 8), make([]byte, 8)
			binary.LittleEndian.PutUint64(in, uint64(x.Rank()+i))
			must(x.Allreduce(in, out, mpi.Int64, mpi.Sum), "Allreduce %d", i)
			m := x.Size()
			if got, want := binary.LittleEndian.Uint64(out), uint64(m*(m-1)/2+m*i); got != want {
				fail("Allreduce on communicator %d: %d, want %d", i, got, want)
			}
			if prev != nil {
				must(prev.Free(), "Free %d", i-1)
			}
			prev = x
		}
		must(prev.Free(), "Free last")
		gated, reused, handedOut := gateStats()
		if gateStatsFn == nil {
			return // a system MPI: nothing to count
		}
		if got := int(gated - gated0); got != mine {
			fail("%d of the %d communicators with more than 2 ranks got a gate", got, mine)
		}
		// Every gated communicator took a block, and few were new.
		sums := make([]byte, 8)
		binary.LittleEndian.PutUint64(sums, reused)
		must(c.Allreduce(sums, sums, mpi.Uint64, mpi.Sum), "Allreduce reuses")
		total := binary.LittleEndian.Uint64(sums)
		if r == 0 {
			fmt.Printf("gatereuse: %d gated communicators, %d blocks handed out, %d reuses\n", rounds, handedOut, total)
		}
		if total+uint64(handedOut) < rounds || handedOut > 2*n+16 {
			fail("%d reuses and %d blocks handed out for %d gated communicators", total, handedOut, rounds)
		}
		gateFull(c)
	})

	// A rank asleep at a gate wakes for a point-to-point message at once,
	// not when its sleep times out: ranks 1..n-1 wait in a Barrier that
	// rank 0 joins only after a synchronous send to rank 1 has been
	// matched, which needs rank 1's progress (it posted the receive before
	// the Barrier). Rank 0 gives rank 1 time to fall asleep first (2 ms
	// each time). Asleep until the 20 ms timeout of the sleep at the gate,
	// as rank 1 once was, the 450 messages take 8 s or more; woken at
	// once, about 1 s (2 s on a busy machine). The bound is between.
	register("gatewake", func(c *mpi.Comm) {
		r := c.Rank()
		const rounds, sends, limit = 150, 3, 6 * time.Second
		buf := make([]byte, 8)
		start := time.Now()
		for i := range rounds {
			var reqs []*mpi.Request
			if r == 1 {
				for k := range sends {
					q, err := c.Irecv(buf[k:k+1], 0, k)
					must(err, "Irecv")
					reqs = append(reqs, q)
				}
			}
			if r == 0 {
				for k := range sends {
					time.Sleep(2 * time.Millisecond)
					must(c.Ssend([]byte{byte(i + k)}, 1, k), "Ssend %d.%d", i, k)
				}
			}
			must(c.Barrier(), "Barrier %d", i)
			for k, q := range reqs {
				_, err := q.Wait()
				must(err, "Wait")
				if buf[k] != byte(i+k) {
					fail("round %d message %d: %d", i, k, buf[k])
				}
			}
		}
		if r == 0 {
			took := time.Since(start).Round(time.Millisecond)
			fmt.Printf("gatewake: %d rounds of %d messages in %v\n", rounds, sends, took)
			if took > limit {
				fail("%d messages to a rank asleep at a gate took %v (bound %v): it does not wake for them", rounds*sends, took, limit)
			}
		}
	})
}

// gateFull: more communicators alive at once than the gate arena and the
// leaders' tables hold (60 of n-3 or more ranks, led by ranks 0..3, where
// the arena has 2n+16 blocks and a leader 16 entries): those left without
// a gate run the message-based algorithms, with the same results. Once
// they are freed, a new communicator gets a gate again.
func gateFull(c *mpi.Comm) {
	r := c.Rank()
	const live = 60
	var comms []*mpi.Comm
	for k := range live {
		color := 0
		if r < k%4 {
			color = mpi.Undefined
		}
		x, err := c.Split(color, r)
		must(err, "Split %d", k)
		comms = append(comms, x)
	}
	before, _, _ := gateStats()
	for round := range 3 {
		for k, x := range comms {
			if x == nil {
				continue
			}
			must(x.Barrier(), "Barrier on communicator %d", k)
			in, out := make([]byte, 8), make([]byte, 8)
			binary.LittleEndian.PutUint64(in, uint64(x.Rank()*round+k))
			must(x.Allreduce(in, out, mpi.Int64, mpi.Sum), "Allreduce on communicator %d", k)
			m := x.Size()
			if got, want := binary.LittleEndian.Uint64(out), uint64(m*(m-1)/2*round+m*k); got != want {
				fail("Allreduce on communicator %d of %d live: %d, want %d", k, live, got, want)
			}
		}
	}
	after, _, _ := gateStats()
	mine := 0
	for _, x := range comms {
		if x != nil {
			mine++
			must(x.Free(), "Free")
		}
	}
	if gateStatsFn == nil {
		return
	}
	if got := int(after - before); got >= mine {
		fail("all %d live communicators of this rank got a gate, past the arena's %d blocks", got, 2*c.Size()+16)
	}
	d, err := c.Dup()
	must(err, "Dup")
	must(d.Barrier(), "Barrier")
	if again, _, _ := gateStats(); again != after+1 {
		fail("after the communicators were freed, a new one got no gate")
	}
	must(d.Free(), "Free")
}

var gateStatsFn = enginehook.GateStats

func gateStats() (gated, reused uint64, handedOut int) {
	if gateStatsFn == nil {
		return 0, 0, 0
	}
	return gateStatsFn()
}
