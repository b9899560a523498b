//go:build !ompi && !mpich

package mpi

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
	"unsafe"
)

// The schedules as data: every rank's schedule of a collective, built by
// the same builder methods the engine runs, replayed against an in-memory
// model of the message layer. A send is queued on its (from, to) pair in
// order, a receive takes the oldest message of its pair (matching by
// (from, to, seq)), and a round completes when all its receives have their
// message. The replay fails on a length mismatch, a message left over, a
// deadlock, or two transfers of one round that overlap where one of them
// writes, and the buffers it leaves must equal a serial reference.

// modelComm is a communicator for building schedules without an engine.
func modelComm(rank, n int, oversub bool) *Comm {
	c := &Comm{e: &engine{oversub: oversub}, rank: rank, size: n, private: true}
	if modelGate {
		c.gate.state = gateOn
	}
	return c
}

// modelGate gives the model's communicators a gate (coll_gate.go), which
// the model plays: the round completes when every rank has arrived.
var modelGate bool

// overlaps reports whether a and b share a byte.
func overlaps(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	pa, pb := uintptr(unsafe.Pointer(unsafe.SliceData(a))), uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return pa < pb+uintptr(len(b)) && pb < pa+uintptr(len(a))
}

// replay builds rank r's schedule with build(r, s) for every rank of n and
// runs them all to completion in the model.
func replay(n int, oversub bool, build func(c *Comm, s *schedule) error) error {
	return replayModel(n, oversub, false, build)
}

// replaySync is replay for a collective no rank may leave before every
// rank has joined it (Barrier, and every all-to-all pattern): each message
// carries what its sender has heard of, and each rank must finish having
// heard, directly or not, from all.
func replaySync(n int, oversub bool, build func(c *Comm, s *schedule) error) error {
	return replayModel(n, oversub, true, build)
}

func replayModel(n int, oversub, sync bool, build func(c *Comm, s *schedule) error) error {
	scheds := make([]*schedule, n)
	for r := range n {
		s := new(schedule)
		s.reset()
		if err := build(modelComm(r, n, oversub), s); err != nil {
			return fmt.Errorf("rank %d: build: %w", r, err)
		}
		scheds[r] = s
	}
	type pair struct{ from, to int }
	type msg struct {
		data  []byte
		heard []bool
	}
	queues := map[pair][]msg{}
	heard := make([][]bool, n)
	for r := range heard {
		heard[r] = make([]bool, n)
		heard[r][r] = true
	}
	cur := make([]int, n)
	issued := make([]bool, n)
	for r, s := range scheds {
		if s.own[0] != nil {
			copy(s.own[0], s.own[1])
		}
		for i := range s.rounds {
			rd := &s.rounds[i]
			xs := s.xfers[rd.x0:rd.x1]
			for a := range xs {
				if xs[a].peer < 0 || xs[a].peer >= n {
					return fmt.Errorf("rank %d round %d: peer %d", r, i, xs[a].peer)
				}
				for b := a + 1; b < len(xs); b++ {
					if (!xs[a].send || !xs[b].send) && overlaps(xs[a].buf, xs[b].buf) {
						return fmt.Errorf("rank %d round %d: transfers %d and %d overlap", r, i, a, b)
					}
				}
			}
		}
	}
	for {
		moved, done := false, 0
		for r, s := range scheds {
			for cur[r] < len(s.rounds) {
				rd := &s.rounds[cur[r]]
				if rd.gate {
					if rd.x0 != rd.x1 {
						return fmt.Errorf("rank %d round %d: a gate round with transfers", r, cur[r])
					}
					moved = moved || !issued[r]
					issued[r] = true
					break
				}
				xs := s.xfers[rd.x0:rd.x1]
				if !issued[r] {
					for _, x := range xs {
						if x.send {
							k := pair{r, x.peer}
							queues[k] = append(queues[k], msg{bytes.Clone(x.buf), append([]bool(nil), heard[r]...)})
						}
					}
					issued[r], moved = true, true
				}
				need := map[int]int{}
				for _, x := range xs {
					if !x.send {
						need[x.peer]++
					}
				}
				ready := true
				for p, k := range need {
					if len(queues[pair{p, r}]) < k {
						ready = false
					}
				}
				if !ready {
					break
				}
				for _, x := range xs {
					if x.send {
						continue
					}
					k := pair{x.peer, r}
					m := queues[k][0]
					queues[k] = queues[k][1:]
					if len(m.data) != len(x.buf) {
						return fmt.Errorf("rank %d round %d: %d bytes from rank %d into %d", r, cur[r], len(m.data), x.peer, len(x.buf))
					}
					copy(x.buf, m.data)
					for i, h := range m.heard {
						heard[r][i] = heard[r][i] || h
					}
				}
				s.runSteps(rd)
				cur[r]++
				issued[r] = false
				moved = true
			}
			if cur[r] == len(s.rounds) {
				done++
				if sync && slices.Contains(heard[r], false) {
					return fmt.Errorf("rank %d finished without hearing from every rank: %v", r, heard[r])
				}
			}
		}
		if err := openGate(scheds, cur, issued); err != nil {
			return err
		} else if allAtGate(scheds, cur, issued) {
			for r := range heard {
				for i := range heard[r] {
					heard[r][i] = true
				}
				cur[r]++
				issued[r] = false
			}
			continue
		}
		if done == n {
			break
		}
		if !moved {
			return fmt.Errorf("deadlock: rounds reached %v", cur)
		}
	}
	for k, q := range queues {
		if len(q) > 0 {
			return fmt.Errorf("%d messages from rank %d to %d never received", len(q), k.from, k.to)
		}
	}
	return nil
}

// allAtGate reports whether every rank has arrived at a gate round.
func allAtGate(scheds []*schedule, cur []int, issued []bool) bool {
	for r, s := range scheds {
		if cur[r] >= len(s.rounds) || !s.rounds[cur[r]].gate || !issued[r] {
			return false
		}
	}
	return true
}

// openGate plays the last arriver when every rank is at a gate round: the
// contributions combined in rank order into every rank's result. It
// reports contributions that disagree in size.
func openGate(scheds []*schedule, cur []int, issued []bool) error {
	if !allAtGate(scheds, cur, issued) {
		return nil
	}
	n, m := len(scheds), len(scheds[0].gateIn)
	for r, s := range scheds {
		if len(s.gateIn) != m || len(s.gateOut) != m {
			return fmt.Errorf("rank %d: gate contribution %d and result %d bytes, rank 0's %d", r, len(s.gateIn), len(s.gateOut), m)
		}
	}
	if m == 0 {
		return nil
	}
	res := make([]byte, m)
	gateCombine(&scheds[0].red, n, m, func(p int) []byte { return scheds[p].gateIn }, res)
	for _, s := range scheds {
		copy(s.gateOut, res)
	}
	return nil
}

// modelOp is an operator for the model: its reducer and what the
// collective API is called with.
type modelOp struct {
	name string
	red  reducer
	dt   Datatype
	op   Op
}

func modelOps(t *testing.T) []modelOp {
	sum, err := resolveOp("model", Int64, Sum)
	if err != nil {
		t.Fatal(err)
	}
	aff, err := NewOp(affine, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { aff.Free() })
	pair, err := OpaqueType(16)
	if err != nil {
		t.Fatal(err)
	}
	affRed, err := resolveOp("model", pair, aff)
	if err != nil {
		t.Fatal(err)
	}
	return []modelOp{{"sum", sum, Int64, Sum}, {"affine", affRed, pair, aff}}
}

// input is rank r's contribution of elems elements of elem bytes.
func input(r, elems, elem int) []byte {
	v := make([]int64, elems*elem/8)
	for i := range v {
		v[i] = int64(r*7919+i*31+1) | 1
	}
	return putInt64s(v)
}

// fold is the serial reference: the contributions of ranks lo..hi-1
// combined in rank order.
func fold(red reducer, in [][]byte, lo, hi int) []byte {
	acc := bytes.Clone(in[lo])
	for r := lo + 1; r < hi; r++ {
		tmp := bytes.Clone(in[r])
		red.apply(acc, tmp)
		acc = tmp
	}
	return acc
}

// tuning is a setting of the algorithm thresholds, so that the model
// meets every algorithm at sizes it can afford.
type tuning struct {
	name                          string
	ringMin, halvesMin, flatBcast int
	agDirect                      int
	halving, noDoubling, oversub  bool
	scanChain, rsPair             int
	rsPairRanks                   int
	gate                          bool
}

var modelTunings = []tuning{
	{name: "default", ringMin: allreduceRingMin, halvesMin: allreduceHalvesMin, flatBcast: bcastFlatMin, agDirect: allgatherDirectMax, halving: true, scanChain: scanChainMin, rsPair: reduceScatterPairMin, rsPairRanks: reduceScatterPairRanks},
	{name: "large", ringMin: 0, halvesMin: 0, flatBcast: 0, agDirect: -1, halving: true, oversub: true},
	{name: "ring", ringMin: 0, halvesMin: 1 << 30, flatBcast: 0, agDirect: -1, halving: false, rsPair: 1 << 30},
	{name: "tree", ringMin: 1 << 30, halvesMin: 1 << 30, flatBcast: 1 << 30, agDirect: 1 << 30, noDoubling: true, scanChain: 1 << 30, rsPair: 1 << 30},
	{name: "gate", ringMin: allreduceRingMin, halvesMin: allreduceHalvesMin, flatBcast: bcastFlatMin, agDirect: allgatherDirectMax, halving: true, oversub: true, gate: true, scanChain: scanChainMin, rsPair: reduceScatterPairMin, rsPairRanks: reduceScatterPairRanks},
	// flat: the small-message algorithms of an oversubscribed job
	// without the gate or the one-round Reduce_scatter, at every size.
	{name: "flat", ringMin: allreduceRingMin, halvesMin: allreduceHalvesMin, flatBcast: bcastFlatMin, agDirect: allgatherDirectMax, halving: true, oversub: true, scanChain: scanChainMin, rsPair: reduceScatterPairMin},
}

func (tu tuning) apply(t *testing.T) {
	old := tuning{ringMin: allreduceRingMin, halvesMin: allreduceHalvesMin, flatBcast: bcastFlatMin, agDirect: allgatherDirectMax, halving: allreduceHalving, noDoubling: noRecursiveDoubling, scanChain: scanChainMin, rsPair: reduceScatterPairMin, rsPairRanks: reduceScatterPairRanks}
	allreduceRingMin, allreduceHalvesMin, bcastFlatMin, allgatherDirectMax = tu.ringMin, tu.halvesMin, tu.flatBcast, tu.agDirect
	allreduceHalving, noRecursiveDoubling = tu.halving, tu.noDoubling
	scanChainMin, reduceScatterPairMin, reduceScatterPairRanks = tu.scanChain, tu.rsPair, tu.rsPairRanks
	modelGate = tu.gate
	t.Cleanup(func() {
		modelGate = false
		allreduceRingMin, allreduceHalvesMin, bcastFlatMin, allgatherDirectMax = old.ringMin, old.halvesMin, old.flatBcast, old.agDirect
		allreduceHalving, noRecursiveDoubling = old.halving, old.noDoubling
		scanChainMin, reduceScatterPairMin, reduceScatterPairRanks = old.scanChain, old.rsPair, old.rsPairRanks
	})
}

// vblocks is counts and displacements of n blocks of unequal sizes
// (multiples of elem, some empty) with gaps between them, and the buffer
// length they need.
func vblocks(n, elem, seed int) (counts, displs []int, length int) {
	counts, displs = make([]int, n), make([]int, n)
	off := 0
	for i := n - 1; i >= 0; i-- {
		counts[i] = elem * ((i + seed) % 4)
		displs[i] = off
		off += counts[i] + elem*(i%2)
	}
	return counts, displs, off
}

func TestScheduleModel(t *testing.T) {
	ops := modelOps(t)
	for _, tu := range modelTunings {
		t.Run(tu.name, func(t *testing.T) {
			tu.apply(t)
			for n := 1; n <= 17; n++ {
				t.Run(fmt.Sprint("n=", n), func(t *testing.T) { modelAll(t, n, tu.oversub, ops) })
			}
		})
	}
}

// modelAll checks every collective at n ranks.
func modelAll(t *testing.T, n int, oversub bool, ops []modelOp) {
	fail := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	fail("Barrier", replaySync(n, oversub, func(c *Comm, s *schedule) error { return c.barrierBuild(s) }))

	for root := range n {
		// Bcast.
		want := input(100, 5, 8)
		bufs := make([][]byte, n)
		for r := range bufs {
			bufs[r] = make([]byte, len(want))
			if r == root {
				copy(bufs[r], want)
			}
		}
		fail(fmt.Sprint("Bcast root ", root), replay(n, oversub, func(c *Comm, s *schedule) error {
			return c.bcastBuild(s, "Bcast", bufs[c.rank], root)
		}))
		for r := range bufs {
			if !bytes.Equal(bufs[r], want) {
				t.Fatalf("Bcast root %d: rank %d got %v", root, r, bufs[r])
			}
		}

		// Gatherv and Scatterv, with uneven blocks out of order.
		counts, displs, length := vblocks(n, 8, root)
		in := make([][]byte, n)
		for r := range in {
			in[r] = input(r, counts[r]/8, 8)
		}
		recv := make([]byte, length)
		fail(fmt.Sprint("Gatherv root ", root), replay(n, oversub, func(c *Comm, s *schedule) error {
			return c.gathervBuild(s, "Gatherv", in[c.rank], recv, counts, displs, root)
		}))
		for r := range n {
			if got := block(recv, counts, displs, r); !bytes.Equal(got, in[r]) {
				t.Fatalf("Gatherv root %d: block %d is %v, want %v", root, r, got, in[r])
			}
		}
		outs := make([][]byte, n)
		for r := range outs {
			outs[r] = make([]byte, counts[r])
		}
		fail(fmt.Sprint("Scatterv root ", root), replay(n, oversub, func(c *Comm, s *schedule) error {
			return c.scattervBuild(s, "Scatterv", recv, counts, displs, outs[c.rank], root)
		}))
		for r := range n {
			if !bytes.Equal(outs[r], in[r]) {
				t.Fatalf("Scatterv root %d: rank %d got %v, want %v", root, r, outs[r], in[r])
			}
		}

		// Gather and Scatter of equal blocks.
		all := make([]byte, 16*n)
		eq := make([][]byte, n)
		for r := range eq {
			eq[r] = input(r, 2, 8)
		}
		fail(fmt.Sprint("Gather root ", root), replay(n, oversub, func(c *Comm, s *schedule) error {
			return c.gatherBuild(s, "Gather", eq[c.rank], all, root)
		}))
		if want := bytes.Join(eq, nil); !bytes.Equal(all, want) {
			t.Fatalf("Gather root %d: %v, want %v", root, all, want)
		}
		sc := make([][]byte, n)
		for r := range sc {
			sc[r] = make([]byte, 16)
		}
		fail(fmt.Sprint("Scatter root ", root), replay(n, oversub, func(c *Comm, s *schedule) error {
			return c.scatterBuild(s, "Scatter", all, sc[c.rank], root)
		}))
		for r := range n {
			if !bytes.Equal(sc[r], eq[r]) {
				t.Fatalf("Scatter root %d: rank %d got %v", root, r, sc[r])
			}
		}

		for _, op := range ops {
			elem := op.red.elem
			in := make([][]byte, n)
			for r := range in {
				in[r] = input(r, 3, elem)
			}
			want := fold(op.red, in, 0, n)
			for _, inPlace := range []bool{false, true} {
				out := make([]byte, len(want))
				rootIn := in[root]
				if inPlace {
					copy(out, in[root])
					rootIn = out
				}
				fail(fmt.Sprintf("Reduce %s root %d inplace %v", op.name, root, inPlace), replay(n, oversub, func(c *Comm, s *schedule) error {
					if c.rank == root {
						return c.reduceBuild(s, "Reduce", rootIn, out, op.dt, op.op, root)
					}
					return c.reduceBuild(s, "Reduce", in[c.rank], nil, op.dt, op.op, root)
				}))
				if !bytes.Equal(out, want) {
					t.Fatalf("Reduce %s root %d inplace %v: %v, want %v", op.name, root, inPlace, int64s(out), int64s(want))
				}
			}
			for r := range in {
				if !bytes.Equal(in[r], input(r, 3, elem)) {
					t.Fatalf("Reduce %s root %d: rank %d's input changed", op.name, root, r)
				}
			}
		}
	}

	for _, op := range ops {
		elem := op.red.elem
		for _, elems := range []int{1, 3, 2*n + 5} {
			for _, inPlace := range []bool{false, true} {
				name := fmt.Sprintf("Allreduce %s elems %d inplace %v", op.name, elems, inPlace)
				in := make([][]byte, n)
				out := make([][]byte, n)
				for r := range in {
					in[r] = input(r, elems, elem)
					out[r] = make([]byte, len(in[r]))
					if inPlace {
						out[r] = in[r]
					}
				}
				want := fold(op.red, in, 0, n)
				fail(name, replaySync(n, oversub, func(c *Comm, s *schedule) error {
					return c.allreduceBuild(s, "Allreduce", in[c.rank], out[c.rank], op.dt, op.op)
				}))
				for r := range n {
					if !bytes.Equal(out[r], want) {
						t.Fatalf("%s: rank %d wrong", name, r)
					}
				}
			}
		}

		// Scan and Exscan.
		in := make([][]byte, n)
		for r := range in {
			in[r] = input(r, 3, elem)
		}
		for _, sc := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			excl, inPlace := sc[0], sc[1]
			out := make([][]byte, n)
			src := make([][]byte, n)
			for r := range out {
				out[r] = make([]byte, len(in[r]))
				src[r] = in[r]
				if inPlace {
					copy(out[r], in[r])
					src[r] = out[r]
				}
			}
			fail(fmt.Sprintf("Scan %s excl %v inplace %v", op.name, excl, inPlace), replay(n, oversub, func(c *Comm, s *schedule) error {
				return c.scanBuild(s, "Scan", src[c.rank], out[c.rank], op.dt, op.op, excl)
			}))
			for r := range n {
				var want []byte
				switch {
				case !excl:
					want = fold(op.red, in, 0, r+1)
				case r == 0 && inPlace:
					want = in[r] // untouched
				case r == 0:
					want = make([]byte, len(in[r])) // untouched
				default:
					want = fold(op.red, in, 0, r)
				}
				if !bytes.Equal(out[r], want) {
					t.Fatalf("Scan %s excl %v inplace %v: rank %d wrong", op.name, excl, inPlace, r)
				}
			}
		}

		// ReduceScatter with uneven counts (some empty), and
		// ReduceScatterBlock, in place too.
		for _, zeros := range []bool{false, true} {
			for _, inPlace := range []bool{false, true} {
				name := fmt.Sprintf("ReduceScatter %s zeros %v inplace %v", op.name, zeros, inPlace)
				counts := make([]int, n)
				total := 0
				for i := range counts {
					counts[i] = elem * (1 + i%3)
					if zeros {
						counts[i] = elem * (i % 3)
					}
					total += counts[i]
				}
				if total == 0 {
					continue
				}
				for r := range in {
					in[r] = input(r, total/elem, elem)
				}
				full := fold(op.red, in, 0, n)
				src, outs := make([][]byte, n), make([][]byte, n)
				for r := range outs {
					src[r], outs[r] = in[r], make([]byte, counts[r])
					if inPlace {
						outs[r] = bytes.Clone(in[r])
						src[r] = outs[r]
					}
				}
				fail(name, replaySync(n, oversub, func(c *Comm, s *schedule) error {
					return c.reduceScatterBuild(s, "ReduceScatter", src[c.rank], outs[c.rank], counts, op.dt, op.op)
				}))
				off := 0
				for r := range n {
					if !bytes.Equal(outs[r][:counts[r]], full[off:off+counts[r]]) {
						t.Fatalf("%s: rank %d wrong", name, r)
					}
					off += counts[r]
				}
			}
		}
		for _, inPlace := range []bool{false, true} {
			name := fmt.Sprintf("ReduceScatterBlock %s inplace %v", op.name, inPlace)
			for r := range in {
				in[r] = input(r, 2*n, elem)
			}
			full := fold(op.red, in, 0, n)
			src, outs := make([][]byte, n), make([][]byte, n)
			for r := range outs {
				src[r], outs[r] = in[r], make([]byte, 2*elem)
				if inPlace {
					outs[r] = bytes.Clone(in[r])
					src[r] = outs[r]
				}
			}
			fail(name, replay(n, oversub, func(c *Comm, s *schedule) error {
				return c.reduceScatterBlockBuild(s, "ReduceScatterBlock", src[c.rank], outs[c.rank], op.dt, op.op)
			}))
			for r := range n {
				if !bytes.Equal(outs[r][:2*elem], full[r*2*elem:(r+1)*2*elem]) {
					t.Fatalf("%s: rank %d wrong", name, r)
				}
			}
		}
	}

	// Allgather (in place too) and Allgatherv.
	for _, inPlace := range []bool{false, true} {
		blocks := make([][]byte, n)
		recv := make([][]byte, n)
		for r := range blocks {
			blocks[r] = input(r, 3, 8)
			recv[r] = make([]byte, 24*n)
		}
		fail(fmt.Sprint("Allgather inplace ", inPlace), replaySync(n, oversub, func(c *Comm, s *schedule) error {
			send := blocks[c.rank]
			if inPlace {
				send = recv[c.rank][24*c.rank : 24*(c.rank+1)]
				copy(send, blocks[c.rank])
			}
			return c.allgatherBuild(s, "Allgather", send, recv[c.rank])
		}))
		want := bytes.Join(blocks, nil)
		for r := range n {
			if !bytes.Equal(recv[r], want) {
				t.Fatalf("Allgather inplace %v: rank %d wrong", inPlace, r)
			}
		}
	}
	counts, displs, length := vblocks(n, 8, 1)
	blocks := make([][]byte, n)
	recv := make([][]byte, n)
	for r := range blocks {
		blocks[r] = input(r, counts[r]/8, 8)
		recv[r] = make([]byte, length)
	}
	fail("Allgatherv", replay(n, oversub, func(c *Comm, s *schedule) error {
		return c.allgathervBuild(s, "Allgatherv", blocks[c.rank], recv[c.rank], counts, displs)
	}))
	for r := range n {
		for j := range n {
			if !bytes.Equal(block(recv[r], counts, displs, j), blocks[j]) {
				t.Fatalf("Allgatherv: rank %d block %d wrong", r, j)
			}
		}
	}

	// Alltoall (in place too): block j of rank i is input(i*n+j).
	for _, inPlace := range []bool{false, true} {
		send := make([][]byte, n)
		recv := make([][]byte, n)
		for i := range send {
			for j := range n {
				send[i] = append(send[i], input(i*n+j, 2, 8)...)
			}
			recv[i] = make([]byte, len(send[i]))
			if inPlace {
				copy(recv[i], send[i])
			}
		}
		fail(fmt.Sprint("Alltoall inplace ", inPlace), replaySync(n, oversub, func(c *Comm, s *schedule) error {
			if inPlace {
				return c.alltoallBuild(s, "Alltoall", recv[c.rank], recv[c.rank])
			}
			return c.alltoallBuild(s, "Alltoall", send[c.rank], recv[c.rank])
		}))
		for i := range n {
			for j := range n {
				if !bytes.Equal(recv[i][16*j:16*(j+1)], send[j][16*i:16*(i+1)]) {
					t.Fatalf("Alltoall inplace %v: rank %d block %d wrong", inPlace, i, j)
				}
			}
		}
	}

	// Alltoallv: rank i sends (i+j)%3 elements to rank j, blocks in
	// reverse order in both buffers.
	cnt := func(i, j int) int { return 8 * ((i + j) % 3) }
	type vb struct {
		counts, displs []int
		buf            []byte
	}
	sv, rv := make([]vb, n), make([]vb, n)
	for i := range n {
		sv[i] = vb{counts: make([]int, n), displs: make([]int, n)}
		rv[i] = vb{counts: make([]int, n), displs: make([]int, n)}
		so, ro := 0, 0
		for j := n - 1; j >= 0; j-- {
			sv[i].counts[j], sv[i].displs[j] = cnt(i, j), so
			rv[i].counts[j], rv[i].displs[j] = cnt(j, i), ro
			so += cnt(i, j)
			ro += cnt(j, i)
		}
		sv[i].buf = make([]byte, so)
		for j := range n {
			copy(block(sv[i].buf, sv[i].counts, sv[i].displs, j), input(i*n+j, cnt(i, j)/8, 8))
		}
		rv[i].buf = make([]byte, ro)
	}
	fail("Alltoallv", replay(n, oversub, func(c *Comm, s *schedule) error {
		i := c.rank
		return c.alltoallvBuild(s, "Alltoallv", sv[i].buf, sv[i].counts, sv[i].displs, rv[i].buf, rv[i].counts, rv[i].displs)
	}))
	for i := range n {
		for j := range n {
			if got, want := block(rv[i].buf, rv[i].counts, rv[i].displs, j), block(sv[j].buf, sv[j].counts, sv[j].displs, i); !bytes.Equal(got, want) {
				t.Fatalf("Alltoallv: rank %d block from %d wrong", i, j)
			}
		}
	}
}

// TestScheduleAppend replays a schedule holding two allreduces built one
// after the other into it, the second reducing the first's result, as the
// context agreement's open-ended schedule grows (ctxagree.go): the second
// build's rounds run after the first's, with its scratch and reducer.
func TestScheduleAppend(t *testing.T) {
	red, err := resolveOp("append", Int64, Sum)
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 6; n++ {
		outs := make([][]byte, n)
		err := replay(n, false, func(c *Comm, s *schedule) error {
			r := c.rank
			in, mid := putInt64s([]int64{int64(r + 1)}), make([]byte, 8)
			outs[r] = make([]byte, 8)
			allreduceSched(s, r, n, in, mid, red, false)
			allreduceSched(s, r, n, mid, outs[r], red, false)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		want := int64(n * n * (n + 1) / 2)
		for r := range n {
			if got := int64s(outs[r])[0]; got != want {
				t.Fatalf("n=%d rank %d: %d, want %d", n, r, got, want)
			}
		}
	}
}
