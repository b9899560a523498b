package main

import (
	"github.com/hympi/hympi/mpi"
)

// Every nonblocking and persistent collective against a serial reference:
// all of them outstanding at once and completed in reverse order, then
// each bound once as a persistent collective and started several times
// with fresh inputs (so a run that reused stale data shows).

// nbcCase is one collective over buffers it owns: fill writes the inputs
// of round seed (and clears the outputs), check compares the outputs with
// the reference, start and bind are its nonblocking and persistent forms
// over those buffers.
type nbcCase struct {
	name  string
	fill  func(seed int)
	check func(seed int)
	start func() (*mpi.Request, error)
	bind  func() (*mpi.Persistent, error)
}

func nbcCases(c *mpi.Comm, root int) []nbcCase {
	r, n := c.Rank(), c.Size()
	all := span(0, n)
	var cases []nbcCase
	add := func(k nbcCase) { cases = append(cases, k) }
	// The seed enters every input so each round differs.
	blk := func(b []byte, seed, who, j int) { pattern(b, seed*10007+who*101+j) }
	zero := func(b []byte) { clear(b) }

	const m = 7
	{
		send, recv := make([]byte, m), make([]byte, n*m)
		add(nbcCase{name: "Igather",
			fill: func(s int) { blk(send, s, r, 0); zero(recv) },
			check: func(s int) {
				if r == root {
					for i := range n {
						checkPattern(recv[i*m:(i+1)*m], s*10007+i*101, "Igather")
					}
				}
			},
			start: func() (*mpi.Request, error) { return c.Igather(send, recv, root) },
			bind:  func() (*mpi.Persistent, error) { return c.GatherInit(send, recv, root) },
		})
	}
	size := func(i int) int { return (i*3 + 1) % 4 * 9 }
	counts, displs, total := irregular(n, size)
	{
		send, recv := make([]byte, size(r)), make([]byte, total)
		add(nbcCase{name: "Igatherv",
			fill: func(s int) { blk(send, s, r, 1); zero(recv) },
			check: func(s int) {
				if r == root {
					for i := range n {
						checkPattern(recv[displs[i]:displs[i]+counts[i]], s*10007+i*101+1, "Igatherv")
					}
				}
			},
			start: func() (*mpi.Request, error) { return c.Igatherv(send, recv, counts, displs, root) },
			bind:  func() (*mpi.Persistent, error) { return c.GathervInit(send, recv, counts, displs, root) },
		})
	}
	{
		send, recv := make([]byte, n*m), make([]byte, m)
		add(nbcCase{name: "Iscatter",
			fill: func(s int) {
				for i := range n {
					blk(send[i*m:(i+1)*m], s, i, 2)
				}
				zero(recv)
			},
			check: func(s int) { checkPattern(recv, s*10007+r*101+2, "Iscatter") },
			start: func() (*mpi.Request, error) { return c.Iscatter(send, recv, root) },
			bind:  func() (*mpi.Persistent, error) { return c.ScatterInit(send, recv, root) },
		})
	}
	{
		send, recv := make([]byte, total), make([]byte, size(r))
		add(nbcCase{name: "Iscatterv",
			fill: func(s int) {
				for i := range n {
					blk(send[displs[i]:displs[i]+counts[i]], s, i, 3)
				}
				zero(recv)
			},
			check: func(s int) { checkPattern(recv, s*10007+r*101+3, "Iscatterv") },
			start: func() (*mpi.Request, error) { return c.Iscatterv(send, counts, displs, recv, root) },
			bind:  func() (*mpi.Persistent, error) { return c.ScattervInit(send, counts, displs, recv, root) },
		})
	}
	for _, inPlace := range []bool{false, true} {
		send, recv := make([]byte, m), make([]byte, n*m)
		if inPlace {
			send = recv[r*m : (r+1)*m]
		}
		add(nbcCase{name: "Iallgather",
			fill: func(s int) {
				zero(recv)
				blk(send, s, r, 4)
			},
			check: func(s int) {
				for i := range n {
					checkPattern(recv[i*m:(i+1)*m], s*10007+i*101+4, "Iallgather")
				}
			},
			start: func() (*mpi.Request, error) { return c.Iallgather(send, recv) },
			bind:  func() (*mpi.Persistent, error) { return c.AllgatherInit(send, recv) },
		})
	}
	{
		send, recv := make([]byte, size(r)), make([]byte, total)
		add(nbcCase{name: "Iallgatherv",
			fill: func(s int) { blk(send, s, r, 5); zero(recv) },
			check: func(s int) {
				for i := range n {
					checkPattern(recv[displs[i]:displs[i]+counts[i]], s*10007+i*101+5, "Iallgatherv")
				}
			},
			start: func() (*mpi.Request, error) { return c.Iallgatherv(send, recv, counts, displs) },
			bind:  func() (*mpi.Persistent, error) { return c.AllgathervInit(send, recv, counts, displs) },
		})
	}
	for _, inPlace := range []bool{false, true} {
		send, recv := make([]byte, n*m), make([]byte, n*m)
		if inPlace {
			send = recv
		}
		add(nbcCase{name: "Ialltoall",
			fill: func(s int) {
				zero(recv)
				for j := range n {
					blk(send[j*m:(j+1)*m], s, r*n+j, 6)
				}
			},
			check: func(s int) {
				for i := range n {
					checkPattern(recv[i*m:(i+1)*m], s*10007+(i*n+r)*101+6, "Ialltoall")
				}
			},
			start: func() (*mpi.Request, error) { return c.Ialltoall(send, recv) },
			bind:  func() (*mpi.Persistent, error) { return c.AlltoallInit(send, recv) },
		})
	}
	{
		amount := func(i, j int) int { return (i + 2*j) % 4 * 5 }
		sc, sd, st := irregular(n, func(j int) int { return amount(r, j) })
		rc, rd, rt := irregular(n, func(i int) int { return amount(i, r) })
		send, recv := make([]byte, st), make([]byte, rt)
		add(nbcCase{name: "Ialltoallv",
			fill: func(s int) {
				for j := range n {
					blk(send[sd[j]:sd[j]+sc[j]], s, r*n+j, 7)
				}
				zero(recv)
			},
			check: func(s int) {
				for i := range n {
					checkPattern(recv[rd[i]:rd[i]+rc[i]], s*10007+(i*n+r)*101+7, "Ialltoallv")
				}
			},
			start: func() (*mpi.Request, error) { return c.Ialltoallv(send, sc, sd, recv, rc, rd) },
			bind:  func() (*mpi.Persistent, error) { return c.AlltoallvInit(send, sc, sd, recv, rc, rd) },
		})
	}
	// Reductions with the non-commutative matrix product: the seed is the
	// number of matrices, so each round's reference differs.
	mat, err := mpi.OpaqueType(32)
	must(err, "OpaqueType")
	op, err := mpi.NewOp(matMul, false)
	must(err, "NewOp")
	const most = 4
	{
		send, recv := make([]byte, 32*most), make([]byte, 32*most)
		var k int
		add(nbcCase{name: "Ireduce",
			fill: func(s int) { k = s%most + 1; copy(send, matInput(r, k)); zero(recv) },
			check: func(s int) {
				if r == root {
					expect(recv[:32*k], matFold(all, k), "Ireduce root %d", root)
				}
			},
			start: func() (*mpi.Request, error) { return c.Ireduce(send[:32*k], recv[:32*k], mat, op, root) },
			bind:  func() (*mpi.Persistent, error) { return c.ReduceInit(send, recv, mat, op, root) },
		})
	}
	for _, exclusive := range []bool{false, true} {
		buf := make([]byte, 32*2)
		var k int
		name := "Iscan"
		if exclusive {
			name = "Iexscan"
		}
		// In place: the input is overwritten by the result.
		add(nbcCase{name: name,
			fill: func(s int) { k = 2; copy(buf, matInput(r+s, k)) },
			check: func(s int) {
				ranks := make([]int, 0, n)
				hi := r + 1
				if exclusive {
					hi = r
				}
				for i := 0; i < hi; i++ {
					ranks = append(ranks, i+s)
				}
				if len(ranks) > 0 {
					expect(buf, matFold(ranks, k), "%s", name)
				}
			},
			start: func() (*mpi.Request, error) {
				if exclusive {
					return c.Iexscan(buf, buf, mat, op)
				}
				return c.Iscan(buf, buf, mat, op)
			},
			bind: func() (*mpi.Persistent, error) {
				if exclusive {
					return c.ExscanInit(buf, buf, mat, op)
				}
				return c.ScanInit(buf, buf, mat, op)
			},
		})
	}
	{
		send, recv := make([]byte, 32*2*n), make([]byte, 32*2)
		add(nbcCase{name: "IreduceScatterBlock",
			fill: func(s int) {
				copy(send, matInput(r+s, 2*n))
				zero(recv)
			},
			check: func(s int) {
				ranks := make([]int, n)
				for i := range ranks {
					ranks[i] = i + s
				}
				expect(recv, matFold(ranks, 2*n)[r*64:(r+1)*64], "IreduceScatterBlock")
			},
			start: func() (*mpi.Request, error) { return c.IreduceScatterBlock(send, recv, mat, op) },
			bind:  func() (*mpi.Persistent, error) { return c.ReduceScatterBlockInit(send, recv, mat, op) },
		})
	}
	{
		// uint32 sums over irregular blocks, some empty.
		u32 := dtCases[6]
		rcounts := make([]int, n)
		tot := 0
		for i := range n {
			rcounts[i] = 4 * ((i*2 + 1) % 3)
			tot += rcounts[i]
		}
		off := 0
		for i := 0; i < r; i++ {
			off += rcounts[i]
		}
		send, recv := make([]byte, tot), make([]byte, rcounts[r])
		add(nbcCase{name: "IreduceScatter",
			fill: func(s int) { copy(send, u32.input(r+s, tot/4)); zero(recv) },
			check: func(s int) {
				ranks := make([]int, n)
				for i := range ranks {
					ranks[i] = i + s
				}
				expect(recv, u32.fold(mpi.Sum, ranks, tot/4)[off:off+rcounts[r]], "IreduceScatter")
			},
			start: func() (*mpi.Request, error) { return c.IreduceScatter(send, recv, rcounts, mpi.Uint32, mpi.Sum) },
			bind:  func() (*mpi.Persistent, error) { return c.ReduceScatterInit(send, recv, rcounts, mpi.Uint32, mpi.Sum) },
		})
	}
	{
		send, recv := make([]byte, 8), make([]byte, 8)
		u32 := dtCases[6]
		add(nbcCase{name: "Iallreduce",
			fill: func(s int) { copy(send, u32.input(r+s, 2)); zero(recv) },
			check: func(s int) {
				ranks := make([]int, n)
				for i := range ranks {
					ranks[i] = i + s
				}
				expect(recv, u32.fold(mpi.Max, ranks, 2), "Iallreduce")
			},
			start: func() (*mpi.Request, error) { return c.Iallreduce(send, recv, mpi.Uint32, mpi.Max) },
			bind:  func() (*mpi.Persistent, error) { return c.AllreduceInit(send, recv, mpi.Uint32, mpi.Max) },
		})
	}
	{
		buf := make([]byte, 300)
		add(nbcCase{name: "Ibcast",
			fill: func(s int) {
				zero(buf)
				if r == root {
					blk(buf, s, root, 8)
				}
			},
			check: func(s int) { checkPattern(buf, s*10007+root*101+8, "Ibcast") },
			start: func() (*mpi.Request, error) { return c.Ibcast(buf, root) },
			bind:  func() (*mpi.Persistent, error) { return c.BcastInit(buf, root) },
		})
	}
	add(nbcCase{name: "Ibarrier",
		fill:  func(int) {},
		check: func(int) {},
		start: func() (*mpi.Request, error) { return c.Ibarrier() },
		bind:  func() (*mpi.Persistent, error) { return c.BarrierInit() },
	})
	return cases
}

func nbcEvery(c *mpi.Comm) {
	n := c.Size()
	// The typed forms.
	xs, sum, top := []int64{int64(c.Rank()), 1}, make([]int64, 2), []float64{-1, -1}
	if c.Rank() == n-1 {
		top = []float64{0.5, 2.5}
	}
	qs := make([]*mpi.Request, 3)
	var err error
	qs[0], err = mpi.IallreduceSlice(c, xs, sum, mpi.Sum)
	must(err, "IallreduceSlice")
	rsum := make([]int64, 2)
	qs[1], err = mpi.IreduceSlice(c, xs, rsum, mpi.Max, 0)
	must(err, "IreduceSlice")
	qs[2], err = mpi.IbcastSlice(c, top, n-1)
	must(err, "IbcastSlice")
	_, err = mpi.Waitall(qs)
	must(err, "Waitall typed")
	if sum[0] != int64(n*(n-1)/2) || sum[1] != int64(n) || top[0] != 0.5 || top[1] != 2.5 {
		fail("typed nonblocking: sum %v bcast %v", sum, top)
	}
	if c.Rank() == 0 && (rsum[0] != int64(n-1) || rsum[1] != 1) {
		fail("IreduceSlice: %v", rsum)
	}
	for _, root := range []int{0, n - 1, n / 2} {
		cases := nbcCases(c, root)
		// Every nonblocking collective outstanding at once; waited on
		// in reverse order of starting.
		for seed := 1; seed <= 2; seed++ {
			reqs := make([]*mpi.Request, len(cases))
			for i, k := range cases {
				k.fill(seed + root)
				var err error
				reqs[i], err = k.start()
				must(err, "%s", k.name)
			}
			for i := len(reqs) - 1; i >= 0; i-- {
				_, err := reqs[i].Wait()
				must(err, "Wait %s", cases[i].name)
			}
			for _, k := range cases {
				k.check(seed + root)
			}
		}
		// Persistent: bound once, started three times, all active at
		// once, completed in reverse order; then freed.
		ps := make([]*mpi.Persistent, len(cases))
		for i, k := range cases {
			var err error
			ps[i], err = k.bind()
			must(err, "%s persistent", k.name)
		}
		for seed := 3; seed <= 5; seed++ {
			for i, k := range cases {
				k.fill(seed + root)
				_, err := ps[i].Start()
				must(err, "Start %s", k.name)
			}
			if _, err := ps[0].Start(); err == nil {
				fail("Start of an active persistent collective succeeded")
			}
			for i := len(ps) - 1; i >= 0; i-- {
				_, err := ps[i].Wait()
				must(err, "Wait persistent %s", cases[i].name)
			}
			for _, k := range cases {
				k.check(seed + root)
			}
		}
		for i := range ps {
			must(ps[i].Free(), "Free %s", cases[i].name)
		}
	}
}

// nbcNeighbors: the neighbour all-to-all on a periodic ring (at 1 and 2
// ranks both neighbours are one rank: the pairing of its two messages
// shows), blocking, nonblocking and persistent. Block k goes to neighbour
// k; what goes up arrives from below.
func nbcNeighbors(c *mpi.Comm) {
	r, n := c.Rank(), c.Size()
	nb := mpi.CartNeighbors([]int{n}, []bool{true}, r)
	const m = 5
	send, recv := make([]byte, 2*m), make([]byte, 2*m)
	counts, displs := []int{m, m}, []int{0, m}
	fill := func(seed int) {
		pattern(send[:m], seed*100+r*2)
		pattern(send[m:], seed*100+r*2+1)
		clear(recv)
	}
	check := func(seed int, what string) {
		below, above := (r-1+n)%n, (r+1)%n
		checkPattern(recv[:m], seed*100+below*2+1, what+" from below")
		checkPattern(recv[m:], seed*100+above*2, what+" from above")
	}
	fill(1)
	must(c.NeighborAlltoallv(nb, send, counts, displs, recv, counts, displs), "NeighborAlltoallv")
	check(1, "NeighborAlltoallv")
	fill(2)
	q, err := c.IneighborAlltoallv(nb, send, counts, displs, recv, counts, displs)
	must(err, "IneighborAlltoallv")
	_, err = q.Wait()
	must(err, "Wait")
	check(2, "IneighborAlltoallv")
	p, err := c.NeighborAlltoallvInit(nb, send, counts, displs, recv, counts, displs)
	must(err, "NeighborAlltoallvInit")
	for seed := 3; seed < 6; seed++ {
		fill(seed)
		_, err := p.Start()
		must(err, "Start")
		_, err = p.Wait()
		must(err, "Wait")
		check(seed, "persistent neighbour all-to-all")
	}
	must(p.Free(), "Free")
	if err := c.NeighborAlltoallv(&mpi.Neighbors{Sources: []int{n}}, nil, nil, nil, nil, []int{0}, []int{0}); mpi.ClassOf(err) != mpi.ErrRank {
		fail("neighbour outside the communicator: %v, want an ErrRank error", err)
	}
}

// nbcErrors: bad arguments to the nonblocking and persistent forms fail at
// once with the blocking form's class, start nothing, and leave the
// communicator usable.
func nbcErrors(c *mpi.Comm) {
	n := c.Size()
	b8 := make([]byte, 8)
	bad := func(what string, err error, want mpi.ErrorClass) {
		if mpi.ClassOf(err) != want {
			fail("%s: %v, want class %v", what, err, want)
		}
	}
	r, err := c.Igather(b8, make([]byte, 8*n), n)
	bad("Igather root n", err, mpi.ErrRoot)
	if r != nil {
		fail("Igather with a bad root returned a request")
	}
	_, err = c.Ireduce(b8, b8, mpi.Int32, mpi.Op(-9), 0)
	bad("Ireduce bad op", err, mpi.ErrOp)
	_, err = c.IreduceScatter(b8, b8, make([]int, n+1), mpi.Int64, mpi.Sum)
	bad("IreduceScatter counts length", err, mpi.ErrCount)
	_, err = c.Iallgatherv(b8, b8, []int{8}, []int{0, 0})
	bad("Iallgatherv counts length", err, mpi.ErrCount)
	if n > 1 {
		_, err = c.Ialltoall(make([]byte, n+1), make([]byte, n+1))
		bad("Ialltoall not divisible", err, mpi.ErrCount)
	}
	_, err = c.ScatterInit(b8, make([]byte, 8), -1)
	bad("ScatterInit root -1", err, mpi.ErrRoot)
	_, err = c.AllgathervInit(b8, b8, []int{-1}, []int{0})
	bad("AllgathervInit bad counts", err, mpi.ErrCount)
	p, err := c.BarrierInit()
	must(err, "BarrierInit")
	_, err = p.Start()
	must(err, "Start")
	bad("Free while active", p.Free(), mpi.ErrRequest)
	_, err = p.Wait()
	must(err, "Wait")
	must(p.Free(), "Free")
	_, err = p.Start()
	bad("Start after Free", err, mpi.ErrRequest)
	// Still usable: a collective after all that.
	must(c.Barrier(), "Barrier after bad calls")
}
