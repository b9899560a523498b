package main

import (
	"encoding/binary"
	"errors"
	"os"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/hympi/hympi/mpi"
)

// One-sided scenarios. Every rank's window holds n+2 int64: slot o is
// written by origin o with Put, slot n collects an Accumulate(Sum) from
// every origin, slot n+1 a FetchAndOp(Sum, 1) from every origin. A serial
// model of those rules says what each slot holds after each epoch.

type rmaWin struct {
	w    *mpi.Win
	mem  []int64 // this rank's window memory
	keep []int64 // dynamic: the attached buffer
	base []uint64
}

var flavors = []string{"create", "allocate", "shared", "dynamic"}

func newRMAWin(c *mpi.Comm, flavor string, nelem int) rmaWin {
	var rw rmaWin
	var err error
	switch flavor {
	case "create":
		rw.mem = make([]int64, nelem)
		rw.w, err = mpi.WinCreateSlice(c, rw.mem)
	case "allocate":
		rw.w, rw.mem, err = mpi.WinAllocateSlice[int64](c, nelem)
	case "shared":
		rw.w, rw.mem, err = mpi.AllocateShared[int64](c, nelem)
	case "dynamic":
		rw.w, err = c.WinCreateDynamic()
		if errors.Is(err, mpi.ErrRMAFlavor) && os.Getenv("HYMPI_DIRECTCOPY_FAIL") != "" {
			return rmaWin{} // no single copy: no dynamic windows (rmanocma checks)
		}
		if err == nil {
			rw.mem = make([]int64, nelem)
			rw.keep = rw.mem
			must(rw.w.Attach(mpi.AsBytes(rw.mem)), "Attach")
			mine := make([]byte, 8)
			binary.LittleEndian.PutUint64(mine, uint64(uintptr(unsafe.Pointer(&rw.mem[0]))))
			all := make([]byte, 8*c.Size())
			must(c.Allgather(mine, all), "Allgather addresses")
			for r := 0; r < c.Size(); r++ {
				rw.base = append(rw.base, binary.LittleEndian.Uint64(all[8*r:]))
			}
		}
	}
	must(err, "%s window", flavor)
	return rw
}

// disp is element i of rank t's window as a displacement.
func (rw rmaWin) disp(t, i int) int {
	if rw.base != nil {
		return int(rw.base[t]) + 8*i
	}
	return i
}

func (rw rmaWin) free() {
	if rw.keep != nil {
		must(rw.w.Detach(mpi.AsBytes(rw.keep)), "Detach")
	}
	must(rw.w.Free(), "Win.Free")
}

// load reads this rank's slot i as another rank's stores left it.
func (rw rmaWin) load(i int) int64 { return atomic.LoadInt64(&rw.mem[i]) }

func init() {
	register("rma", rmaGrid)
	// The same on the halves of a split communicator: window ranks are
	// not world ranks (doorbells, groups, single copy by world rank).
	register("rmasplit", func(c *mpi.Comm) {
		half, err := c.Split(c.Rank()%2, -c.Rank())
		must(err, "Split")
		rmaGrid(half)
		must(half.Free(), "Free")
	})
	rmaMore()
}

func rmaGrid(c *mpi.Comm) {
	{
		r, n := c.Rank(), c.Size()
		world := c.Group()
		for _, flavor := range flavors {
			for _, sync := range []string{"fence", "pscw", "lock", "lockall"} {
				rw := newRMAWin(c, flavor, n+2)
				if rw.w == nil {
					continue
				}
				w := rw.w
				open := func(t int) {
					switch sync {
					case "fence":
						if t < 0 {
							must(w.Fence(mpi.ModeNoPrecede), "Fence")
						}
					case "pscw":
						if t < 0 {
							must(w.Post(world, 0), "Post")
							must(w.Start(world, 0), "Start")
						}
					case "lock":
						if t >= 0 {
							must(w.Lock(mpi.LockShared, t, 0), "Lock")
						}
					case "lockall":
						if t < 0 {
							must(w.LockAll(0), "LockAll")
						}
					}
				}
				close := func(t int) {
					switch sync {
					case "fence":
						if t < 0 {
							must(w.Fence(0), "Fence")
						}
					case "pscw":
						if t < 0 {
							must(w.Complete(), "Complete")
							must(w.Wait(), "Wait")
						}
					case "lock":
						if t >= 0 {
							must(w.Flush(t), "Flush")
							must(w.Unlock(t), "Unlock")
						}
					case "lockall":
						if t < 0 {
							must(w.FlushAll(), "FlushAll")
							must(w.UnlockAll(), "UnlockAll")
						}
					}
				}
				// Passive epochs say nothing to the target: a barrier
				// tells it the origins are done (and, after it checked,
				// that the next round may start).
				barrier := func() {
					if sync == "lock" || sync == "lockall" {
						must(c.Barrier(), "Barrier")
					}
				}
				const rounds = 3
				seen := map[int64]bool{}
				olds := make([]int64, n)
				for round := 0; round < rounds; round++ {
					open(-1)
					for t := 0; t < n; t++ {
						open(t)
						must(mpi.Put(w, []int64{int64(1000*r + t + round)}, t, rw.disp(t, r)), "%s/%s Put", flavor, sync)
						must(mpi.Accumulate(w, []int64{int64(r + 1)}, mpi.Sum, t, rw.disp(t, n)), "Accumulate")
						// The []byte form: as MPI says, the old value is
						// known once the epoch ends (a system MPI
						// delivers it then in fence and PSCW epochs).
						must(w.FetchAndOp(mpi.AsBytes([]int64{1}), mpi.AsBytes(olds[t:t+1]), mpi.Int64, mpi.Sum, t, rw.disp(t, n+1)), "FetchAndOp")
						close(t)
					}
					close(-1)
					if old := olds[r]; seen[old] || old < int64(round*n) || old >= int64((round+1)*n) {
						fail("%s/%s: FetchAndOp on self returned %d in round %d", flavor, sync, old, round)
					}
					seen[olds[r]] = true
					barrier()
					// A window in the separate model shows remote
					// updates to its owner after a Sync.
					must(w.Sync(), "Sync")
					// Serial model of this rank's memory after the epoch.
					for o := 0; o < n; o++ {
						if got, want := rw.load(o), int64(1000*o+r+round); got != want {
							fail("%s/%s round %d: slot %d is %d, want %d", flavor, sync, round, o, got, want)
						}
					}
					if got, want := rw.load(n), int64((round+1)*n*(n+1)/2); got != want {
						fail("%s/%s round %d: accumulate slot is %d, want %d", flavor, sync, round, got, want)
					}
					if got, want := rw.load(n+1), int64((round+1)*n); got != want {
						fail("%s/%s round %d: fetch-and-op slot is %d, want %d", flavor, sync, round, got, want)
					}
					barrier()
					// Read back the neighbour's whole window with Get.
					t := (r + 1) % n
					open(-1)
					open(t)
					got := make([]int64, n+2)
					must(mpi.Get(w, got, t, rw.disp(t, 0)), "Get")
					close(t)
					close(-1)
					barrier()
					for o := 0; o < n; o++ {
						if got[o] != int64(1000*o+t+round) {
							fail("%s/%s: Get of rank %d slot %d is %d", flavor, sync, t, o, got[o])
						}
					}
				}
				rw.free()
			}
		}
	}
}

func rmaMore() {
	// Exclusive locks serialise a read-modify-write made of a Get and a
	// Put (not atomic by itself), and accumulates, fetch-and-op and
	// compare-and-swap from every rank on one location are atomic.
	register("rmaatomic", func(c *mpi.Comm) {
		r, n := c.Rank(), c.Size()
		const iters, wide = 100, 4096
		for _, flavor := range flavors {
			rw := newRMAWin(c, flavor, 4+wide)
			if rw.w == nil {
				continue
			}
			w := rw.w
			for i := 0; i < iters; i++ {
				must(w.Lock(mpi.LockExclusive, 0, 0), "Lock exclusive")
				v := []int64{0}
				must(mpi.Get(w, v, 0, rw.disp(0, 0)), "Get")
				v[0]++
				must(mpi.Put(w, v, 0, rw.disp(0, 0)), "Put")
				must(w.Unlock(0), "Unlock")
			}
			must(w.LockAll(0), "LockAll")
			// Long accumulates overlap in time: per-element atomicity
			// is what keeps every one of their updates.
			ones := make([]int64, wide)
			for i := range ones {
				ones[i] = 1
			}
			for i := 0; i < iters; i++ {
				must(mpi.Accumulate(w, ones, mpi.Sum, 0, rw.disp(0, 4)), "wide Accumulate")
			}
			var mine []byte
			cas := true
			for i := 0; i < iters; i++ {
				must(mpi.Accumulate(w, []int64{2}, mpi.Sum, 0, rw.disp(0, 1)), "Accumulate")
				old, err := mpi.FetchAndOp(w, int64(1), mpi.Sum, 0, rw.disp(0, 2))
				must(err, "FetchAndOp")
				mine = binary.LittleEndian.AppendUint64(mine, uint64(old))
				// A ticket lock built from compare-and-swap.
				if cas {
					cas = casLock(w, r, rw.disp(0, 3), flavor)
				}
			}
			must(w.UnlockAll(), "UnlockAll")
			must(c.Barrier(), "Barrier")
			must(w.Sync(), "Sync")
			all := make([]byte, len(mine)*n)
			must(c.Gather(mine, all, 0), "Gather")
			if r == 0 {
				for i, want := range []int64{int64(iters * n), int64(2 * iters * n), int64(iters * n), 0} {
					if got := rw.load(i); got != want {
						fail("%s: slot %d is %d, want %d", flavor, i, got, want)
					}
				}
				for i := 0; i < wide; i++ {
					if got := rw.load(4 + i); got != int64(iters*n) {
						fail("%s: wide accumulate element %d is %d, want %d", flavor, i, got, iters*n)
					}
				}
				seen := make([]bool, iters*n)
				for i := 0; i < iters*n; i++ {
					v := binary.LittleEndian.Uint64(all[8*i:])
					if v >= uint64(iters*n) || seen[v] {
						fail("%s: FetchAndOp returned %d twice or out of range", flavor, v)
					}
					seen[v] = true
				}
			}
			rw.free()
		}
	})

	// Passive target: rank 0 never calls MPI while the others lock it,
	// accumulate and unlock; it watches its own memory until all arrived.
	register("rmapassive", func(c *mpi.Comm) {
		r, n := c.Rank(), c.Size()
		for _, flavor := range flavors {
			rw := newRMAWin(c, flavor, 2)
			if rw.w == nil {
				continue
			}
			w := rw.w
			must(c.Barrier(), "Barrier")
			if w.Separate() {
				// The owner sees remote updates only when it
				// synchronises: nothing to show here.
				rw.free()
				continue
			}
			if r == 0 {
				deadline := time.Now().Add(30 * time.Second)
				for rw.load(0) != int64(n-1) || rw.load(1) != int64(n-1) {
					if time.Now().After(deadline) {
						fail("%s: origins did not finish while the target computed: %d %d", flavor, rw.load(0), rw.load(1))
					}
					time.Sleep(time.Millisecond)
				}
			} else {
				for _, typ := range []int{mpi.LockExclusive, mpi.LockShared} {
					must(w.Lock(typ, 0, 0), "Lock")
					must(mpi.Accumulate(w, []int64{1}, mpi.Sum, 0, rw.disp(0, typ-1)), "Accumulate")
					must(w.Unlock(0), "Unlock")
				}
			}
			must(c.Barrier(), "Barrier")
			rw.free()
		}
	})

	// Bad input: the right class, nothing changed.
	register("rmaerrors", func(c *mpi.Comm) {
		r, n := c.Rank(), c.Size()
		w, mem, err := mpi.AllocateShared[int32](c, 4)
		must(err, "AllocateShared")
		mem[0] = 7
		if err := mpi.Put(w, []int32{1}, 0, 0); !errors.Is(err, mpi.ErrRMASync) {
			fail("Put outside an epoch: %v", err)
		}
		must(w.Fence(0), "Fence")
		for _, tc := range []struct {
			err  error
			want error
		}{
			{mpi.Put(w, []int32{1, 2}, (r+1)%n, 3), mpi.ErrRMARange},
			{mpi.Put(w, []int32{1}, (r+1)%n, -1), mpi.ErrRMARange},
			{mpi.Put(w, []int32{1}, n, 0), mpi.ErrRank},
			{w.Accumulate([]byte{1, 2, 3}, mpi.Int32, mpi.Sum, 0, 0), mpi.ErrCount},
			{w.Accumulate(make([]byte, 4), mpi.Float32, mpi.Band, 0, 0), mpi.ErrOp},
			{w.Lock(7, 0, 0), mpi.ErrLocktype},
			{w.Unlock(0), mpi.ErrRMASync},
			{w.Complete(), mpi.ErrRMASync},
			{w.Wait(), mpi.ErrRMASync},
		} {
			if !errors.Is(tc.err, tc.want) {
				fail("got %v, want %v", tc.err, tc.want)
			}
		}
		must(w.Fence(0), "Fence")
		if mem[0] != 7 || mem[3] != 0 {
			fail("a refused operation changed memory: %v", mem)
		}
		peer, err := mpi.SharedSlice[int32](w, (r+1)%n)
		must(err, "SharedSlice")
		if peer[0] != 7 {
			fail("peer's shared memory reads %d", peer[0])
		}
		must(w.Free(), "Free")
		if err := w.Fence(0); !errors.Is(err, mpi.ErrWin) {
			fail("Fence on a freed window: %v", err)
		}
		if _, err := c.WinAllocate(-1, 1); !errors.Is(err, mpi.ErrSize) && r == 0 {
			fail("negative size: %v", err)
		}
	})
}

func init() {
	// With single copy refused by the kernel, a created window falls
	// back to the separate model, a dynamic one is refused with
	// ErrRMAFlavor (on every rank: creation is collective) and windows
	// hympi allocates work as ever.
	register("rmanocma", func(c *mpi.Comm) {
		n := c.Size()
		_, err := c.WinCreateDynamic()
		if n > 1 && !errors.Is(err, mpi.ErrRMAFlavor) {
			fail("WinCreateDynamic without single copy: %v", err)
		}
		cw, err := c.WinCreate(make([]byte, 8), 1)
		must(err, "WinCreate")
		if cw.Separate() != (n > 1) {
			fail("WinCreate: separate model %v with %d ranks", cw.Separate(), n)
		}
		must(cw.Free(), "Free")
		w, mem, err := mpi.AllocateShared[int64](c, 1)
		must(err, "AllocateShared")
		must(w.LockAll(0), "LockAll")
		must(mpi.Accumulate(w, []int64{1}, mpi.Sum, 0, 0), "Accumulate")
		must(w.UnlockAll(), "UnlockAll")
		must(c.Barrier(), "Barrier")
		if c.Rank() == 0 && mem[0] != int64(n) {
			fail("accumulated %d, want %d", mem[0], n)
		}
		must(w.Free(), "Free")
	})
}

func init() {
	// PSCW on a ring: each rank exposes its window to its left neighbour
	// only and accesses its right neighbour only, for many rounds; the
	// target polls with Test. Counts per pair must keep the rounds apart.
	register("rmapscw", func(c *mpi.Comm) {
		r, n := c.Rank(), c.Size()
		g := c.Group()
		left, err := g.Incl([]int{(r + n - 1) % n})
		must(err, "Incl")
		right, err := g.Incl([]int{(r + 1) % n})
		must(err, "Incl")
		for _, flavor := range flavors {
			rw := newRMAWin(c, flavor, 1)
			if rw.w == nil {
				continue
			}
			w := rw.w
			for round := 1; round <= 20; round++ {
				must(w.Post(left, 0), "Post")
				must(w.Start(right, 0), "Start")
				must(mpi.Put(w, []int64{int64(1000*round + r)}, (r+1)%n, rw.disp((r+1)%n, 0)), "Put")
				must(w.Complete(), "Complete")
				for {
					done, err := w.Test()
					must(err, "Test")
					if done {
						break
					}
				}
				if got, want := rw.load(0), int64(1000*round+(r+n-1)%n); got != want {
					fail("%s round %d: got %d, want %d", flavor, round, got, want)
				}
			}
			if err := w.Complete(); !errors.Is(err, mpi.ErrRMASync) {
				fail("Complete without Start: %v", err)
			}
			must(c.Barrier(), "Barrier")
			rw.free()
		}
	})
}

// casLock takes and releases a lock built from compare-and-swap at disp of
// rank 0; false when the backend refuses compare-and-swap on this window
// (not every system MPI has it everywhere: the error says which).
func casLock(w *mpi.Win, r, disp int, flavor string) bool {
	for {
		cur, err := mpi.CompareAndSwap(w, int64(r+1), 0, 0, disp)
		if systemMPI && errors.Is(err, mpi.ErrOther) {
			return false
		}
		must(err, "CompareAndSwap")
		if cur == 0 {
			break
		}
	}
	cur, err := mpi.CompareAndSwap(w, 0, int64(r+1), 0, disp)
	must(err, "CompareAndSwap release")
	if cur != int64(r+1) {
		fail("%s: CAS lock held by %d while this rank held it", flavor, cur)
	}
	return true
}
