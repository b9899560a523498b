//go:build !ompi && !mpich

package mpi

// The collectives' entry points: check the arguments, build the schedule,
// and run it in the offload engine (coll.go), blocking or not.

// Barrier blocks until every rank of c has called it.
func (c *Comm) Barrier() error {
	if err := c.check("Barrier"); err != nil {
		return err
	}
	e := c.e
	e.mu.Lock()
	defer e.mu.Unlock()
	f := c.acquireFast()
	f.barrier(c.rank, c.size, e.oversub)
	return c.runFast("Barrier", f, fitsSlot(0))
}

func (c *Comm) barrierSched(what string) (*schedule, error) {
	if err := c.check(what); err != nil {
		return nil, err
	}
	s := &schedule{}
	s.fitsSlot(0)
	barrierSchedule(s, c.rank, c.size)
	return s, nil
}

// Ibarrier starts a barrier.
func (c *Comm) Ibarrier() (*Request, error) {
	s, err := c.barrierSched("Ibarrier")
	if err != nil {
		return nil, err
	}
	return c.startNonblocking(s)
}

// Bcast sends root's buf to every rank.
func (c *Comm) Bcast(buf []byte, root int) error {
	if err := c.checkRoot("Bcast", root); err != nil {
		return err
	}
	e := c.e
	e.mu.Lock()
	defer e.mu.Unlock()
	f := c.acquireFast()
	f.bcast(c.rank, root, c.size, buf)
	return c.runFast("Bcast", f, fitsSlot(len(buf)))
}

func (c *Comm) bcastSched(what string, buf []byte, root int) (*schedule, error) {
	if err := c.checkRoot(what, root); err != nil {
		return nil, err
	}
	s := &schedule{}
	s.fitsSlot(len(buf))
	bcastSchedule(s, bcastTree, c.rank, root, c.size, buf)
	return s, nil
}

// Ibcast starts a broadcast; buf must not be touched until it completes.
func (c *Comm) Ibcast(buf []byte, root int) (*Request, error) {
	s, err := c.bcastSched("Ibcast", buf, root)
	if err != nil {
		return nil, err
	}
	return c.startNonblocking(s)
}

// Reduce combines every rank's send element-wise with op into root's recv.
// send and recv may be the same slice (in place).
func (c *Comm) Reduce(send, recv []byte, dt Datatype, op Op, root int) error {
	return c.run("Reduce", func(w string) (*schedule, error) { return c.reduceSched(w, send, recv, dt, op, root) })
}

func (c *Comm) reduceSched(what string, send, recv []byte, dt Datatype, op Op, root int) (*schedule, error) {
	if err := c.checkRoot(what, root); err != nil {
		return nil, err
	}
	red, err := checkReduceArgs(what, send, recv, dt, op, c.rank == root)
	if err != nil {
		return nil, err
	}
	var out []byte
	if c.rank == root {
		out = recv[:len(send)]
	}
	s := &schedule{}
	s.fitsSlot(len(send))
	if c.size == 1 {
		s.local(func() { copy(out, send) })
	} else {
		reduceSchedule(s, c.rank, root, c.size, send, out, red)
	}
	return s, nil
}

// run is a blocking collective over the general schedule build makes
// (called with the operation's name).
func (c *Comm) run(what string, build func(string) (*schedule, error)) error {
	s, err := build(what)
	if err != nil {
		return err
	}
	return c.runColl(what, s)
}

// Allreduce is Reduce with the result on every rank. send and recv may be
// the same slice (in place).
func (c *Comm) Allreduce(send, recv []byte, dt Datatype, op Op) error {
	if err := c.check("Allreduce"); err != nil {
		return err
	}
	red, err := checkReduceArgs("Allreduce", send, recv, dt, op, true)
	if err != nil {
		return err
	}
	recv = recv[:len(send)]
	e := c.e
	e.mu.Lock()
	f := c.acquireFast()
	if f.allreduce(c.rank, c.size, send, recv, red) {
		err := c.runFast("Allreduce", f, fitsSlot(len(send)))
		e.mu.Unlock()
		return err
	}
	// Not a case the fast path covers: the general schedule.
	f.busy, f.red = false, reducer{}
	e.mu.Unlock()
	var s schedule
	s.fitsSlot(len(send))
	allreduceSchedule(&s, c.rank, c.size, send, recv, red)
	return c.runColl("Allreduce", &s)
}

// Iallreduce starts an allreduce.
func (c *Comm) Iallreduce(send, recv []byte, dt Datatype, op Op) (*Request, error) {
	s, err := c.allreduceArgs("Iallreduce", send, recv, dt, op)
	if err != nil {
		return nil, err
	}
	return c.startNonblocking(s)
}

func (c *Comm) allreduceArgs(what string, send, recv []byte, dt Datatype, op Op) (*schedule, error) {
	if err := c.check(what); err != nil {
		return nil, err
	}
	red, err := checkReduceArgs(what, send, recv, dt, op, true)
	if err != nil {
		return nil, err
	}
	var s schedule
	s.fitsSlot(len(send))
	allreduceSchedule(&s, c.rank, c.size, send, recv[:len(send)], red)
	return &s, nil
}

// Scan is the inclusive prefix reduction over ranks 0..Rank().
func (c *Comm) Scan(send, recv []byte, dt Datatype, op Op) error {
	return c.run("Scan", func(w string) (*schedule, error) { return c.scanSched(w, send, recv, dt, op, false) })
}

// Exscan is the exclusive prefix reduction; rank 0's recv is unchanged.
func (c *Comm) Exscan(send, recv []byte, dt Datatype, op Op) error {
	return c.run("Exscan", func(w string) (*schedule, error) { return c.scanSched(w, send, recv, dt, op, true) })
}

func (c *Comm) scanSched(what string, send, recv []byte, dt Datatype, op Op, exclusive bool) (*schedule, error) {
	if err := c.check(what); err != nil {
		return nil, err
	}
	red, err := checkReduceArgs(what, send, recv, dt, op, true)
	if err != nil {
		return nil, err
	}
	s := &schedule{}
	s.fitsSlot(len(send))
	if exclusive {
		scanSchedule(s, c.rank, c.size, send, nil, recv[:len(send)], red)
	} else {
		scanSchedule(s, c.rank, c.size, send, recv[:len(send)], nil, red)
	}
	return s, nil
}

// ReduceScatterBlock reduces Size()*len(recv) bytes and leaves block i on
// rank i. send and recv may be the same slice (in place: recv holds the
// whole input and gets block i at its start).
func (c *Comm) ReduceScatterBlock(send, recv []byte, dt Datatype, op Op) error {
	return c.run("ReduceScatterBlock", func(w string) (*schedule, error) { return c.reduceScatterBlockSched(w, send, recv, dt, op) })
}

func (c *Comm) reduceScatterBlockSched(what string, send, recv []byte, dt Datatype, op Op) (*schedule, error) {
	if err := c.check(what); err != nil {
		return nil, err
	}
	n := c.size
	inPlace := sameBuf(send, recv)
	var m int
	if inPlace {
		if len(recv)%n != 0 {
			return nil, newErr(ErrCount, what, "in place: %d bytes do not split into %d blocks", len(recv), n)
		}
		m = len(recv) / n
	} else {
		m = len(recv)
		if len(send) != n*m {
			return nil, newErr(ErrCount, what, "send has %d bytes, want %d ranks × %d", len(send), n, m)
		}
	}
	counts := make([]int, n)
	for i := range counts {
		counts[i] = m
	}
	return c.reduceScatterSchedOf(what, send, recv, counts, dt, op, inPlace)
}

// ReduceScatter reduces sum(counts) bytes and leaves counts[i] bytes
// (starting after the blocks of lower ranks) on rank i. Counts are bytes.
// send and recv may be the same slice (in place).
func (c *Comm) ReduceScatter(send, recv []byte, counts []int, dt Datatype, op Op) error {
	return c.run("ReduceScatter", func(w string) (*schedule, error) { return c.reduceScatterSched(w, send, recv, counts, dt, op) })
}

func (c *Comm) reduceScatterSched(what string, send, recv []byte, counts []int, dt Datatype, op Op) (*schedule, error) {
	if err := c.check(what); err != nil {
		return nil, err
	}
	if len(counts) != c.size {
		return nil, newErr(ErrCount, what, "%d counts for %d ranks", len(counts), c.size)
	}
	total := 0
	for i, k := range counts {
		if k < 0 {
			return nil, newErr(ErrCount, what, "count %d of rank %d is negative", k, i)
		}
		total += k
	}
	inPlace := sameBuf(send, recv)
	switch {
	case inPlace && len(recv) < total:
		return nil, newErr(ErrBuffer, what, "in place: buffer of %d bytes for %d", len(recv), total)
	case !inPlace && len(send) < total:
		return nil, newErr(ErrBuffer, what, "send buffer of %d bytes for %d", len(send), total)
	case !inPlace && len(recv) < counts[c.rank]:
		return nil, newErr(ErrBuffer, what, "receive buffer of %d bytes for %d", len(recv), counts[c.rank])
	}
	// The schedule keeps counts past this call (nonblocking, persistent).
	return c.reduceScatterSchedOf(what, send, recv, append([]int(nil), counts...), dt, op, inPlace)
}

func (c *Comm) reduceScatterSchedOf(what string, send, recv []byte, counts []int, dt Datatype, op Op, inPlace bool) (*schedule, error) {
	total := 0
	for _, k := range counts {
		total += k
	}
	in := send[:total]
	if inPlace {
		in = recv[:total]
	}
	red, err := checkReduceArgs(what, in, nil, dt, op, false)
	if err != nil {
		return nil, err
	}
	for i, k := range counts {
		if k%red.elem != 0 {
			return nil, newErr(ErrCount, what, "count %d of rank %d is not a whole number of %v elements", k, i, dt)
		}
	}
	s := &schedule{}
	s.fitsSlot(total) // MPI requires the same counts on every rank
	reduceScatterSchedule(s, c.rank, c.size, in, recv, counts, red)
	return s, nil
}

// Gather collects len(send) bytes from each rank into root's recv, in rank order.
func (c *Comm) Gather(send, recv []byte, root int) error {
	return c.run("Gather", func(w string) (*schedule, error) { return c.gatherSched(w, send, recv, root) })
}

func (c *Comm) gatherSched(what string, send, recv []byte, root int) (*schedule, error) {
	if err := c.checkRoot(what, root); err != nil {
		return nil, err
	}
	counts, displs := uniform(c.size, len(send))
	if c.rank == root && len(recv) < c.size*len(send) {
		return nil, newErr(ErrBuffer, what, "receive buffer of %d bytes for %d ranks × %d", len(recv), c.size, len(send))
	}
	s := &schedule{}
	s.fitsSlot(len(send))
	gathervSchedule(s, c.rank, root, c.size, send, recv, counts, displs)
	return s, nil
}

// Gatherv: rank i's send lands at recv[displs[i]:displs[i]+counts[i]] on root (bytes).
func (c *Comm) Gatherv(send, recv []byte, counts, displs []int, root int) error {
	return c.run("Gatherv", func(w string) (*schedule, error) { return c.gathervSched(w, send, recv, counts, displs, root) })
}

func (c *Comm) gathervSched(what string, send, recv []byte, counts, displs []int, root int) (*schedule, error) {
	if err := c.checkRoot(what, root); err != nil {
		return nil, err
	}
	if c.rank == root {
		if err := checkBlocks(what, "receive", counts, displs, c.size, len(recv)); err != nil {
			return nil, err
		}
		if counts[root] != len(send) {
			return nil, newErr(ErrCount, what, "root sends %d bytes, its count is %d", len(send), counts[root])
		}
	}
	s := &schedule{}
	gathervSchedule(s, c.rank, root, c.size, send, recv, counts, displs)
	return s, nil
}

// Scatter sends block i of root's send (len(recv) bytes each) to rank i.
func (c *Comm) Scatter(send, recv []byte, root int) error {
	return c.run("Scatter", func(w string) (*schedule, error) { return c.scatterSched(w, send, recv, root) })
}

func (c *Comm) scatterSched(what string, send, recv []byte, root int) (*schedule, error) {
	if err := c.checkRoot(what, root); err != nil {
		return nil, err
	}
	if c.rank == root && len(send) < c.size*len(recv) {
		return nil, newErr(ErrBuffer, what, "send buffer of %d bytes for %d ranks × %d", len(send), c.size, len(recv))
	}
	counts, displs := uniform(c.size, len(recv))
	s := &schedule{}
	s.fitsSlot(len(recv))
	scattervSchedule(s, c.rank, root, c.size, send, counts, displs, recv)
	return s, nil
}

// Scatterv: rank i receives send[displs[i]:displs[i]+counts[i]] from root (bytes).
func (c *Comm) Scatterv(send []byte, counts, displs []int, recv []byte, root int) error {
	return c.run("Scatterv", func(w string) (*schedule, error) { return c.scattervSched(w, send, counts, displs, recv, root) })
}

func (c *Comm) scattervSched(what string, send []byte, counts, displs []int, recv []byte, root int) (*schedule, error) {
	if err := c.checkRoot(what, root); err != nil {
		return nil, err
	}
	if c.rank == root {
		if err := checkBlocks(what, "send", counts, displs, c.size, len(send)); err != nil {
			return nil, err
		}
		if counts[root] > len(recv) {
			return nil, newErr(ErrBuffer, what, "root's block of %d bytes, receive buffer of %d", counts[root], len(recv))
		}
		recv = recv[:counts[root]]
	}
	s := &schedule{}
	scattervSchedule(s, c.rank, root, c.size, send, counts, displs, recv)
	return s, nil
}

// Allgather is Gather with the result on every rank.
func (c *Comm) Allgather(send, recv []byte) error {
	if err := c.check("Allgather"); err != nil {
		return err
	}
	if len(recv) < c.size*len(send) {
		return newErr(ErrBuffer, "Allgather", "receive buffer of %d bytes for %d ranks × %d", len(recv), c.size, len(send))
	}
	m := len(send)
	own := recv[c.rank*m : (c.rank+1)*m]
	inPlace := sameBuf(send, own)
	if !inPlace && m < allgatherOverlapMin {
		copy(own, send)
	}
	e := c.e
	e.mu.Lock()
	defer e.mu.Unlock()
	f := c.acquireFast()
	f.allgather(c.rank, c.size, m, send, recv)
	if !inPlace && m >= allgatherOverlapMin {
		f.own, f.ownAfter = [2][]byte{own, send}, !e.oversub
	}
	return c.runFast("Allgather", f, fitsSlot(m))
}

func (c *Comm) allgatherSched(what string, send, recv []byte) (*schedule, error) {
	if err := c.check(what); err != nil {
		return nil, err
	}
	if len(recv) < c.size*len(send) {
		return nil, newErr(ErrBuffer, what, "receive buffer of %d bytes for %d ranks × %d", len(recv), c.size, len(send))
	}
	counts, displs := uniform(c.size, len(send))
	s := &schedule{}
	s.fitsSlot(len(send))
	allgathervSchedule(s, c.rank, c.size, send, recv, counts, displs)
	return s, nil
}

// Allgatherv is Gatherv with the result on every rank.
func (c *Comm) Allgatherv(send, recv []byte, counts, displs []int) error {
	return c.run("Allgatherv", func(w string) (*schedule, error) { return c.allgathervSched(w, send, recv, counts, displs) })
}

func (c *Comm) allgathervSched(what string, send, recv []byte, counts, displs []int) (*schedule, error) {
	if err := c.check(what); err != nil {
		return nil, err
	}
	if err := checkBlocks(what, "receive", counts, displs, c.size, len(recv)); err != nil {
		return nil, err
	}
	if counts[c.rank] != len(send) {
		return nil, newErr(ErrCount, what, "rank %d sends %d bytes, its count is %d", c.rank, len(send), counts[c.rank])
	}
	s := &schedule{}
	allgathervSchedule(s, c.rank, c.size, send, recv, counts, displs)
	return s, nil
}

// Alltoall sends block j of send to rank j; block i of recv comes from rank i.
func (c *Comm) Alltoall(send, recv []byte) error {
	if err := c.check("Alltoall"); err != nil {
		return err
	}
	n := c.size
	if len(send)%n != 0 {
		return newErr(ErrCount, "Alltoall", "send buffer of %d bytes does not split into %d blocks", len(send), n)
	}
	if len(recv) < len(send) {
		return newErr(ErrBuffer, "Alltoall", "receive buffer of %d bytes for %d", len(recv), len(send))
	}
	if sameBuf(send, recv) {
		// In place: the fast path reads send while blocks land in recv.
		send = append([]byte(nil), send...)
	}
	m := len(send) / n
	dst, src := recv[c.rank*m:(c.rank+1)*m], send[c.rank*m:(c.rank+1)*m]
	if m < alltoallOverlapMin {
		// The own block is copied first, outside the engine's lock: no
		// other rank reads or writes it.
		copy(dst, src)
	}
	e := c.e
	e.mu.Lock()
	defer e.mu.Unlock()
	f := c.acquireFast()
	f.alltoall(c.rank, n, m, send, recv)
	if m >= alltoallOverlapMin {
		f.own, f.ownAfter = [2][]byte{dst, src}, !e.oversub
	}
	return c.runFast("Alltoall", f, fitsSlot(m))
}

func (c *Comm) alltoallSched(what string, send, recv []byte) (*schedule, error) {
	if err := c.check(what); err != nil {
		return nil, err
	}
	n := c.size
	if len(send)%n != 0 {
		return nil, newErr(ErrCount, what, "send buffer of %d bytes does not split into %d blocks", len(send), n)
	}
	if len(recv) < len(send) {
		return nil, newErr(ErrBuffer, what, "receive buffer of %d bytes for %d", len(recv), len(send))
	}
	if sameBuf(send, recv) {
		send = append([]byte(nil), send...)
	}
	counts, displs := uniform(n, len(send)/n)
	s := &schedule{}
	s.fitsSlot(len(send) / n)
	alltoallvSchedule(s, c.rank, n, send, counts, displs, recv, counts, displs)
	return s, nil
}

// Alltoallv is Alltoall with per-peer byte counts and displacements.
func (c *Comm) Alltoallv(send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) error {
	return c.run("Alltoallv", func(w string) (*schedule, error) {
		return c.alltoallvSched(w, send, scounts, sdispls, recv, rcounts, rdispls)
	})
}

func (c *Comm) alltoallvSched(what string, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) (*schedule, error) {
	if err := c.check(what); err != nil {
		return nil, err
	}
	if err := checkBlocks(what, "send", scounts, sdispls, c.size, len(send)); err != nil {
		return nil, err
	}
	if err := checkBlocks(what, "receive", rcounts, rdispls, c.size, len(recv)); err != nil {
		return nil, err
	}
	if scounts[c.rank] != rcounts[c.rank] {
		return nil, newErr(ErrCount, what, "rank %d sends itself %d bytes but expects %d", c.rank, scounts[c.rank], rcounts[c.rank])
	}
	if sameBuf(send, recv) {
		// In place: blocks go out from a copy taken now, as they arrive
		// over the originals.
		send = append([]byte(nil), send...)
	}
	s := &schedule{}
	alltoallvSchedule(s, c.rank, c.size, send, scounts, sdispls, recv, rcounts, rdispls)
	return s, nil
}
