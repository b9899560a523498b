package shm

import (
	"encoding/binary"
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"
)

func TestOpenGate(t *testing.T) {
	r, err := CreateAnonymous(4, tinyConfig)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// Every member of one communicator gets the same block; a second
	// communicator of the same leader at the same table index gets none;
	// another leader's communicator of the same context gets its own.
	g1, ok, err := r.OpenGate(2, 0, 4)
	if !ok || err != nil {
		t.Fatalf("first open: ok=%v err=%v", ok, err)
	}
	g2, ok, err := r.OpenGate(2, 0, 4)
	if !ok || err != nil || g2.gen != g1.gen {
		t.Fatalf("second open: ok=%v err=%v, same block %v", ok, err, g2.gen == g1.gen)
	}
	if _, ok, err := r.OpenGate(2+2*GateEntries, 0, 4); ok || err != nil {
		t.Errorf("colliding context: ok=%v err=%v, want no gate", ok, err)
	}
	g3, ok, err := r.OpenGate(2, 1, 3)
	if !ok || err != nil || g3.gen == g1.gen {
		t.Errorf("other leader: ok=%v err=%v, distinct %v", ok, err, g3.gen != g1.gen)
	}
	if _, _, err := r.OpenGate(2, 4, 4); err == nil {
		t.Error("leader outside the region: no error")
	}
	if _, _, err := r.OpenGate(2, 0, 5); err == nil {
		t.Error("more members than ranks: no error")
	}
	// A gate opened with another size than the claimer's is corruption.
	if _, _, err := r.OpenGate(2, 0, 3); !errors.Is(err, ErrCorrupt) {
		t.Errorf("size mismatch: err = %v, want ErrCorrupt", err)
	}
	// A table entry naming a block never handed out is corruption.
	r.u64At(r.rankBlock(3) + r.L.GateTableOff + 8*int64(6/2%GateEntries)).Store(6<<32 | 1000)
	if _, _, err := r.OpenGate(6, 3, 2); !errors.Is(err, ErrCorrupt) {
		t.Errorf("bad entry: err = %v, want ErrCorrupt", err)
	}
}

func TestGateExhausted(t *testing.T) {
	r, err := CreateAnonymous(2, tinyConfig)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.u64At(hdrGates).Store(uint64(r.L.GateBlocks))
	for range 2 { // the first call poisons the entry, the second reads it
		if _, ok, err := r.OpenGate(4, 0, 2); ok || err != nil {
			t.Errorf("no block left: ok=%v err=%v, want no gate", ok, err)
		}
	}
}

// TestGateRounds runs n goroutines through many sum reductions at one gate,
// the last arriver combining, one rank a round sleeping, the others polling.
func TestGateRounds(t *testing.T) {
	const n, rounds = 5, 200
	r, err := CreateAnonymous(n, tinyConfig)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	gates := make([]Gate, n)
	for rank := range n {
		g, ok, err := r.OpenGate(8, 0, n)
		if !ok || err != nil {
			t.Fatalf("open: %v %v", ok, err)
		}
		gates[rank] = g
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range rounds {
				gen := g.Gen()
				var mine [8]byte
				binary.LittleEndian.PutUint64(mine[:], uint64(k*n+rank))
				// Round 7 has rank 3 give a shorter contribution.
				size := 8
				if k == 7 && rank == 3 {
					size = 4
				}
				g.Put(gen, rank, mine[:size])
				last, err := g.Arrive()
				if err != nil {
					errs <- err
					return
				}
				if last {
					var sum uint64
					bad, badLen := -1, 0
					for p := range n {
						in, err := g.Contribution(gen, p)
						if err != nil {
							errs <- err
							return
						}
						if len(in) != size && bad < 0 {
							bad, badLen = p, len(in)
						} else if len(in) == 8 {
							sum += binary.LittleEndian.Uint64(in)
						}
					}
					binary.LittleEndian.PutUint64(g.Result(gen), sum)
					g.SetOutcome(gen, bad, badLen)
					g.Open()
					for p := range n {
						r.Doorbell(p).Ring()
					}
				}
				for g.Gen() == gen {
					if rank == k%n {
						// Short: a sleeper holds its P. The last
						// arriver rings the doorbells after Open.
						seq := r.Doorbell(rank).Arm()
						if g.Gen() == gen {
							g.Sleep(r.Doorbell(rank), seq, time.Millisecond)
						}
						r.Doorbell(rank).Disarm()
					} else {
						runtime.Gosched()
					}
				}
				bad, badLen, err := g.Outcome(gen)
				if err != nil {
					errs <- err
					return
				}
				if k == 7 {
					// The last arriver compares with its own length.
					if bad < 0 || (bad == 3) != (badLen == 4) {
						t.Errorf("rank %d round 7: outcome rank %d length %d, want the mismatch", rank, bad, badLen)
					}
					continue
				}
				if bad >= 0 {
					t.Errorf("rank %d round %d: outcome rank %d length %d, want none", rank, k, bad, badLen)
				}
				want := uint64(k*n*n + n*(n-1)/2)
				if got := binary.LittleEndian.Uint64(g.Result(gen)); got != want {
					t.Errorf("rank %d round %d: sum %d, want %d", rank, k, got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// A member past n is corruption.
	if _, _, err := r.OpenGate(8, 0, n); !errors.Is(err, ErrCorrupt) {
		t.Errorf("open by member %d of %d: err = %v, want ErrCorrupt", n+1, n, err)
	}
	// Values from the region that would lead out of bounds are errors.
	g := gates[0]
	g.arrivals.Store(n)
	if _, err := g.Arrive(); !errors.Is(err, ErrCorrupt) {
		t.Errorf("arrival past n: err = %v, want ErrCorrupt", err)
	}
	gen := g.Gen()
	binary.LittleEndian.PutUint64(g.slot(gen, 1)[gateWordOff:], GatePayloadMax+1)
	if _, err := g.Contribution(gen, 1); !errors.Is(err, ErrCorrupt) {
		t.Errorf("contribution too long: err = %v, want ErrCorrupt", err)
	}
	binary.LittleEndian.PutUint64(g.result(gen)[gateWordOff:], n+1)
	if _, _, err := g.Outcome(gen); !errors.Is(err, ErrCorrupt) {
		t.Errorf("outcome naming rank %d of %d: err = %v, want ErrCorrupt", n, n, err)
	}
}

// FuzzGate writes fuzzed words wherever a gate reads the region — the
// leader's table entry, the block's ident, reference count, arrival count
// and generation,
// each contribution's length word and each result's outcome word — and
// drives the gate, closing it at the end: every call must work or report
// ErrCorrupt (or, for OpenGate, an argument error), never panic or index
// outside the block.
func FuzzGate(f *testing.F) {
	f.Add(uint32(2), uint8(0), uint8(4), uint64(0), uint64(0), uint32(0), uint32(0), uint32(0), uint64(8), uint64(0))
	f.Add(uint32(2), uint8(0), uint8(4), uint64(2<<32|1), gateIdent(2, 0, 4), uint32(1), uint32(3), uint32(7), uint64(9), uint64(3|8<<32))
	f.Add(uint32(2), uint8(0), uint8(4), uint64(2<<32|1), gateIdent(2, 0, 4), uint32(4), uint32(3), uint32(7), uint64(9), uint64(0))
	f.Add(uint32(2), uint8(0), uint8(4), uint64(0), uint64(gateFree), uint32(0), uint32(0), uint32(0), uint64(8), uint64(0))
	f.Add(uint32(6), uint8(3), uint8(2), uint64(6<<32|1000), uint64(0), uint32(0), uint32(0), uint32(0), uint64(1<<40), uint64(1<<31))
	f.Add(uint32(4), uint8(1), uint8(3), uint64(4<<32|0xffffffff), uint64(0), uint32(^uint32(0)), uint32(^uint32(0)), uint32(1), uint64(0), uint64(5))
	f.Fuzz(func(t *testing.T, ctx uint32, leader, n uint8, entry, ident uint64, refs, arrivals, gen uint32, length, outcome uint64) {
		const ranks = 4
		r, err := CreateAnonymous(ranks, tinyConfig)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if int(leader) < ranks {
			r.u64At(r.rankBlock(int(leader)) + r.L.GateTableOff + 8*int64(ctx/2%GateEntries)).Store(entry)
		}
		// Block 0 may be the one the entry names: fill it whether or
		// not the entry names it.
		r.u64At(hdrGates).Store(1)
		base := r.L.GateOff
		r.u64At(base + gIdent).Store(ident)
		r.u32At(base + gArrivals).Store(arrivals)
		r.u32At(base + gGen).Store(gen)
		r.u32At(base + gRefs).Store(refs)
		for i := int64(0); i < 2*ranks; i++ {
			binary.LittleEndian.PutUint64(r.bytesAt(base+gSlots+i*GateSlotSize+gateWordOff, 8), length+uint64(i))
		}
		for p := int64(0); p < 2; p++ {
			binary.LittleEndian.PutUint64(r.bytesAt(base+gResults+p*GateSlotSize+gateWordOff, 8), outcome+uint64(p))
		}
		g, ok, err := r.OpenGate(ctx, int(leader), int(n))
		if err != nil || !ok {
			if ok || g.Valid() {
				t.Fatalf("OpenGate failed (ok=%v, err=%v) but returned a gate", ok, err)
			}
			return
		}
		wantCorrupt := func(what string, err error) {
			if err != nil && !errors.Is(err, ErrCorrupt) {
				t.Fatalf("%s: %v does not wrap ErrCorrupt", what, err)
			}
		}
		for _, gn := range []uint32{g.Gen(), g.Gen() + 1} {
			for rank := range int(n) {
				c, err := g.Contribution(gn, rank)
				wantCorrupt("Contribution", err)
				if err == nil && len(c) > GatePayloadMax {
					t.Fatalf("contribution of %d bytes", len(c))
				}
			}
			bad, m, err := g.Outcome(gn)
			wantCorrupt("Outcome", err)
			if err == nil && (bad < -1 || bad >= int(n) || (bad == -1 && m != 0)) {
				t.Fatalf("outcome %d, %d for %d ranks", bad, m, n)
			}
			_ = g.Result(gn)
		}
		last, err := g.Arrive()
		wantCorrupt("Arrive", err)
		if err == nil && last {
			g.Put(g.Gen(), int(n)-1, []byte{1, 2, 3})
			g.SetOutcome(g.Gen(), -1, 0)
			g.Open()
		}
		wantCorrupt("CloseGate", r.CloseGate(g))
	})
}

// TestGateReuse: blocks and table entries come back when every member has
// closed the gate, so far more communicators than the arena holds get one
// in turn; a full arena means no gate until one is closed; counts the
// region changed are corruption, and then nothing is freed.
func TestGateReuse(t *testing.T) {
	const n = 3
	r, err := CreateAnonymous(n, tinyConfig)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	blocks := r.L.GateBlocks
	for i := range 5 * blocks {
		ctx := uint32(2 + 2*i)
		var gs [n]Gate
		for m := range n {
			g, ok, err := r.OpenGate(ctx, 0, n)
			if !ok || err != nil {
				t.Fatalf("communicator %d, member %d: ok=%v err=%v", i, m, ok, err)
			}
			gs[m] = g
		}
		for m := range n {
			if err := r.CloseGate(gs[m]); err != nil {
				t.Fatalf("communicator %d, close %d: %v", i, m, err)
			}
		}
	}
	if used, free := r.GatesUsed(), r.GatesFree(); used != 1 || free != 1 {
		t.Errorf("after one communicator at a time: %d blocks handed out, %d free; want 1, 1", used, free)
	}
	if got := r.GateReuses(); got != uint64(5*blocks-1) {
		t.Errorf("GateReuses = %d, want %d", got, 5*blocks-1)
	}
	// Fill the arena (each communicator its own leader's table, so the
	// entries do not collide), then one more gets none until one closes.
	var live []Gate
	for i := range blocks {
		g, ok, err := r.OpenGate(uint32(1000+2*(i/n)), i%n, 1)
		if !ok || err != nil {
			t.Fatalf("filling, gate %d: ok=%v err=%v", i, ok, err)
		}
		live = append(live, g)
	}
	if _, ok, err := r.OpenGate(4, 1, 1); ok || err != nil {
		t.Fatalf("full arena: ok=%v err=%v, want no gate", ok, err)
	}
	if err := r.CloseGate(live[0]); err != nil {
		t.Fatal(err)
	}
	g, ok, err := r.OpenGate(4, 1, 1)
	if !ok || err != nil {
		t.Fatalf("after a close: ok=%v err=%v", ok, err)
	}
	// A reference count the region raised past n, or an ident it
	// changed, is reported at close.
	g.refs.Store(5)
	if err := r.CloseGate(g); !errors.Is(err, ErrCorrupt) {
		t.Errorf("close with 4 references left of 1: err = %v, want ErrCorrupt", err)
	}
	g.refs.Store(1)
	g.ident.Store(gateFree)
	if err := r.CloseGate(g); !errors.Is(err, ErrCorrupt) {
		t.Errorf("close of a freed block: err = %v, want ErrCorrupt", err)
	}
	if r.CloseGate(Gate{}) != nil {
		t.Error("closing no gate: error")
	}
}
