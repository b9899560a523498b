//go:build !ompi && !mpich

package mpi

// The collectives' entry points. Each collective has one builder method
// (xxxBuild) that checks the arguments and writes this rank's schedule;
// the blocking form runs it to completion (Comm.blocking), the
// nonblocking one starts it and returns its request (coll_nb.go), the
// persistent one builds it once and starts it again and again.
// On an intercommunicator each runs the collective's intercommunicator
// form (coll_inter.go); Scan and Exscan, which have none, fail with
// ErrComm.

func (c *Comm) barrierBuild(s *schedule) error {
	if c.size > gateBarrierMinRanks && c.useGate(s, 0) {
		s.gateRound(nil, nil)
		return nil
	}
	barrierSched(s, c.rank, c.size, c.e.oversub)
	return nil
}

// Barrier blocks until every rank of c has called it.
func (c *Comm) Barrier() error {
	key := kindKey(memoBarrier)
	if ok, err := c.runMemo("Barrier", &key, nil, 0); ok {
		return err
	}
	if c.IsInter() {
		return c.interColl(interArgs{Kind: interBarrier})
	}
	if err := c.settleGate("Barrier", 0); err != nil {
		return err
	}
	return c.blockingBuild("Barrier", key, nil, c.barrierBuild)
}

func (c *Comm) bcastBuild(s *schedule, what string, buf []byte, root int) error {
	if err := c.checkRoot(what, root); err != nil {
		return err
	}
	bcastSched(s, c.rank, root, c.size, buf, c.e.oversub)
	return nil
}

// Bcast sends root's buf to every rank.
func (c *Comm) Bcast(buf []byte, root int) error {
	if c.IsInter() {
		return c.interColl(interArgs{Kind: interBcast, Root: root, Send: buf, Recv: buf})
	}
	key := keyOf(memoBcast, buf, nil, 0, 0, root)
	if ok, err := c.runMemo("Bcast", &key, nil, -1); ok {
		return err
	}
	return c.blockingBuild("Bcast", key, nil, func(s *schedule) error { return c.bcastBuild(s, "Bcast", buf, root) })
}

func (c *Comm) reduceBuild(s *schedule, what string, send, recv []byte, dt Datatype, op Op, root int) error {
	if err := c.checkRoot(what, root); err != nil {
		return err
	}
	red, err := checkReduceArgs(what, send, recv, dt, op, c.rank == root)
	if err != nil {
		return err
	}
	var out []byte
	if c.rank == root {
		out = recv[:len(send)]
	}
	reduceSched(s, c.rank, root, c.size, send, out, red, c.e.oversub)
	s.fitsSlot(len(send))
	return nil
}

// Reduce combines every rank's send element-wise with op into root's recv.
// send and recv may be the same slice (in place).
func (c *Comm) Reduce(send, recv []byte, dt Datatype, op Op, root int) error {
	if c.IsInter() {
		return c.interColl(interArgs{Kind: interReduce, Root: root, Send: send, Recv: recv, Datatype: dt, Op: op})
	}
	key := keyOf(memoReduce, send, recv, dt, op, root)
	if ok, err := c.runMemo("Reduce", &key, nil, -1); ok {
		return err
	}
	return c.blockingBuild("Reduce", key, nil, func(s *schedule) error { return c.reduceBuild(s, "Reduce", send, recv, dt, op, root) })
}

func (c *Comm) allreduceBuild(s *schedule, what string, send, recv []byte, dt Datatype, op Op) error {
	red, err := checkReduceArgs(what, send, recv, dt, op, true)
	if err != nil {
		return err
	}
	if c.useGate(s, len(send)) {
		s.red = red
		s.gateRound(send, recv[:len(send)])
		return nil
	}
	allreduceSched(s, c.rank, c.size, send, recv[:len(send)], red, c.e.oversub)
	return nil
}

// Allreduce is Reduce with the result on every rank. send and recv may be
// the same slice (in place).
func (c *Comm) Allreduce(send, recv []byte, dt Datatype, op Op) error {
	if c.IsInter() {
		return c.interColl(interArgs{Kind: interAllreduce, Send: send, Recv: recv, Datatype: dt, Op: op})
	}
	key := keyOf(memoAllreduce, send, recv, dt, op, 0)
	if ok, err := c.runMemo("Allreduce", &key, nil, len(send)); ok {
		return err
	}
	if err := c.settleGate("Allreduce", len(send)); err != nil {
		return err
	}
	return c.blockingBuild("Allreduce", key, nil, func(s *schedule) error { return c.allreduceBuild(s, "Allreduce", send, recv, dt, op) })
}

func (c *Comm) scanBuild(s *schedule, what string, send, recv []byte, dt Datatype, op Op, exclusive bool) error {
	red, err := checkReduceArgs(what, send, recv, dt, op, true)
	if err != nil {
		return err
	}
	if exclusive {
		scanSched(s, c.rank, c.size, send, nil, recv[:len(send)], red, c.e.oversub)
	} else {
		scanSched(s, c.rank, c.size, send, recv[:len(send)], nil, red, c.e.oversub)
	}
	return nil
}

// Scan is the inclusive prefix reduction over ranks 0..Rank().
func (c *Comm) Scan(send, recv []byte, dt Datatype, op Op) error {
	key := keyOf(memoScan, send, recv, dt, op, 0)
	if ok, err := c.runMemo("Scan", &key, nil, -1); ok {
		return err
	}
	return c.blockingBuild("Scan", key, nil, func(s *schedule) error { return c.scanBuild(s, "Scan", send, recv, dt, op, false) })
}

// Exscan is the exclusive prefix reduction; rank 0's recv is unchanged.
func (c *Comm) Exscan(send, recv []byte, dt Datatype, op Op) error {
	key := keyOf(memoExscan, send, recv, dt, op, 0)
	if ok, err := c.runMemo("Exscan", &key, nil, -1); ok {
		return err
	}
	return c.blockingBuild("Exscan", key, nil, func(s *schedule) error { return c.scanBuild(s, "Exscan", send, recv, dt, op, true) })
}

func (c *Comm) reduceScatterBlockBuild(s *schedule, what string, send, recv []byte, dt Datatype, op Op) error {
	n := c.size
	inPlace := sameBuf(send, recv)
	var m int
	if inPlace {
		if len(recv)%n != 0 {
			return newErr(ErrCount, what, "in place: %d bytes do not split into %d blocks", len(recv), n)
		}
		m = len(recv) / n
	} else {
		m = len(recv)
		if len(send) != n*m {
			return newErr(ErrCount, what, "send has %d bytes, want %d ranks × %d", len(send), n, m)
		}
	}
	counts, _ := s.uniform(n, m)
	return c.reduceScatterOf(s, what, send, recv, counts, dt, op, inPlace)
}

// ReduceScatterBlock reduces Size()*len(recv) bytes and leaves block i on
// rank i. send and recv may be the same slice (in place: recv holds the
// whole input and gets block i at its start).
func (c *Comm) ReduceScatterBlock(send, recv []byte, dt Datatype, op Op) error {
	if c.IsInter() {
		return c.interColl(interArgs{Kind: interReduceScatterBlock, Send: send, Recv: recv, Datatype: dt, Op: op})
	}
	key := keyOf(memoReduceScatterBlock, send, recv, dt, op, 0)
	if ok, err := c.runMemo("ReduceScatterBlock", &key, nil, -1); ok {
		return err
	}
	return c.blockingBuild("ReduceScatterBlock", key, nil, func(s *schedule) error {
		return c.reduceScatterBlockBuild(s, "ReduceScatterBlock", send, recv, dt, op)
	})
}

func (c *Comm) reduceScatterBuild(s *schedule, what string, send, recv []byte, counts []int, dt Datatype, op Op) error {
	if len(counts) != c.size {
		return newErr(ErrCount, what, "%d counts for %d ranks", len(counts), c.size)
	}
	total := 0
	for i, k := range counts {
		if k < 0 {
			return newErr(ErrCount, what, "count %d of rank %d is negative", k, i)
		}
		total += k
	}
	inPlace := sameBuf(send, recv)
	switch {
	case inPlace && len(recv) < total:
		return newErr(ErrBuffer, what, "in place: buffer of %d bytes for %d", len(recv), total)
	case !inPlace && len(send) < total:
		return newErr(ErrBuffer, what, "send buffer of %d bytes for %d", len(send), total)
	case !inPlace && len(recv) < counts[c.rank]:
		return newErr(ErrBuffer, what, "receive buffer of %d bytes for %d", len(recv), counts[c.rank])
	}
	return c.reduceScatterOf(s, what, send, recv, counts, dt, op, inPlace)
}

// ReduceScatter reduces sum(counts) bytes and leaves counts[i] bytes
// (starting after the blocks of lower ranks) on rank i. Counts are bytes.
// send and recv may be the same slice (in place).
func (c *Comm) ReduceScatter(send, recv []byte, counts []int, dt Datatype, op Op) error {
	if c.IsInter() {
		return c.interColl(interArgs{Kind: interReduceScatter, Send: send, Recv: recv, RecvCounts: counts, Datatype: dt, Op: op})
	}
	v := countsKey{a: [4][]int{counts}}
	return c.blockingKeyed("ReduceScatter", vkey(keyOf(memoReduceScatter, send, recv, dt, op, 0), &v), &v, func(s *schedule) error {
		return c.reduceScatterBuild(s, "ReduceScatter", send, recv, counts, dt, op)
	})
}

func (c *Comm) reduceScatterOf(s *schedule, what string, send, recv []byte, counts []int, dt Datatype, op Op, inPlace bool) error {
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
		return err
	}
	for i, k := range counts {
		if k%red.elem != 0 {
			return newErr(ErrCount, what, "count %d of rank %d is not a whole number of %v elements", k, i, dt)
		}
	}
	if total > 0 && c.useGate(s, total) {
		at := 0
		for _, k := range counts[:c.rank] {
			at += k
		}
		s.red = red
		s.gateReduceScatter(in, recv[:counts[c.rank]], at, counts[c.rank])
		return nil
	}
	reduceScatterSched(s, c.rank, c.size, in, recv, counts, red, c.e.oversub)
	return nil
}

func (c *Comm) gatherBuild(s *schedule, what string, send, recv []byte, root int) error {
	if err := c.checkRoot(what, root); err != nil {
		return err
	}
	if c.rank == root && len(recv) < c.size*len(send) {
		return newErr(ErrBuffer, what, "receive buffer of %d bytes for %d ranks × %d", len(recv), c.size, len(send))
	}
	counts, displs := s.uniform(c.size, len(send))
	gathervSched(s, c.rank, root, c.size, send, recv, counts, displs)
	s.markReads(c.e.oversub, oversubReadMin)
	s.fitsSlot(len(send))
	return nil
}

// Gather collects len(send) bytes from each rank into root's recv, in rank order.
func (c *Comm) Gather(send, recv []byte, root int) error {
	if c.IsInter() {
		return c.interColl(interArgs{Kind: interGather, Root: root, Send: send, Recv: recv})
	}
	key := keyOf(memoGather, send, recv, 0, 0, root)
	if ok, err := c.runMemo("Gather", &key, nil, -1); ok {
		return err
	}
	return c.blockingBuild("Gather", key, nil, func(s *schedule) error { return c.gatherBuild(s, "Gather", send, recv, root) })
}

func (c *Comm) gathervBuild(s *schedule, what string, send, recv []byte, counts, displs []int, root int) error {
	if err := c.checkRoot(what, root); err != nil {
		return err
	}
	if c.rank == root {
		if err := checkBlocks(what, "receive", counts, displs, c.size, len(recv)); err != nil {
			return err
		}
		if counts[root] != len(send) {
			return newErr(ErrCount, what, "root sends %d bytes, its count is %d", len(send), counts[root])
		}
	}
	gathervSched(s, c.rank, root, c.size, send, recv, counts, displs)
	s.markReads(c.e.oversub, oversubReadMin)
	s.onePerPair()
	return nil
}

// Gatherv: rank i's send lands at recv[displs[i]:displs[i]+counts[i]] on root (bytes).
func (c *Comm) Gatherv(send, recv []byte, counts, displs []int, root int) error {
	if c.IsInter() {
		return c.interColl(interArgs{Kind: interGatherv, Root: root, Send: send, Recv: recv, RecvCounts: counts, RecvDispls: displs})
	}
	v := c.rootCounts(root, &countsKey{a: [4][]int{counts, displs}})
	key := keyOf(memoGatherv, send, recv, 0, 0, root)
	if ok, err := c.runMemo("Gatherv", &key, v, -1); ok {
		return err
	}
	return c.blockingBuild("Gatherv", vkeyOf(key, v), v, func(s *schedule) error { return c.gathervBuild(s, "Gatherv", send, recv, counts, displs, root) })
}

func (c *Comm) scatterBuild(s *schedule, what string, send, recv []byte, root int) error {
	if err := c.checkRoot(what, root); err != nil {
		return err
	}
	if c.rank == root && len(send) < c.size*len(recv) {
		return newErr(ErrBuffer, what, "send buffer of %d bytes for %d ranks × %d", len(send), c.size, len(recv))
	}
	counts, displs := s.uniform(c.size, len(recv))
	scattervSched(s, c.rank, root, c.size, send, counts, displs, recv, ownOverlaps(len(recv), c.e.oversub))
	s.markReads(c.e.oversub, rootReadMin)
	s.fitsSlot(len(recv))
	return nil
}

// Scatter sends block i of root's send (len(recv) bytes each) to rank i.
func (c *Comm) Scatter(send, recv []byte, root int) error {
	if c.IsInter() {
		return c.interColl(interArgs{Kind: interScatter, Root: root, Send: send, Recv: recv})
	}
	key := keyOf(memoScatter, send, recv, 0, 0, root)
	if ok, err := c.runMemo("Scatter", &key, nil, -1); ok {
		return err
	}
	return c.blockingBuild("Scatter", key, nil, func(s *schedule) error { return c.scatterBuild(s, "Scatter", send, recv, root) })
}

func (c *Comm) scattervBuild(s *schedule, what string, send []byte, counts, displs []int, recv []byte, root int) error {
	if err := c.checkRoot(what, root); err != nil {
		return err
	}
	if c.rank == root {
		if err := checkBlocks(what, "send", counts, displs, c.size, len(send)); err != nil {
			return err
		}
		if counts[root] > len(recv) {
			return newErr(ErrBuffer, what, "root's block of %d bytes, receive buffer of %d", counts[root], len(recv))
		}
		recv = recv[:counts[root]]
	}
	scattervSched(s, c.rank, root, c.size, send, counts, displs, recv, ownOverlaps(len(recv), c.e.oversub))
	s.markReads(c.e.oversub, rootReadMin)
	s.onePerPair()
	return nil
}

// Scatterv: rank i receives send[displs[i]:displs[i]+counts[i]] from root (bytes).
func (c *Comm) Scatterv(send []byte, counts, displs []int, recv []byte, root int) error {
	if c.IsInter() {
		return c.interColl(interArgs{Kind: interScatterv, Root: root, Send: send, Recv: recv, SendCounts: counts, SendDispls: displs})
	}
	v := c.rootCounts(root, &countsKey{a: [4][]int{counts, displs}})
	key := keyOf(memoScatterv, send, recv, 0, 0, root)
	if ok, err := c.runMemo("Scatterv", &key, v, -1); ok {
		return err
	}
	return c.blockingBuild("Scatterv", vkeyOf(key, v), v, func(s *schedule) error { return c.scattervBuild(s, "Scatterv", send, counts, displs, recv, root) })
}

func (c *Comm) allgatherBuild(s *schedule, what string, send, recv []byte) error {
	m := len(send)
	if len(recv) < c.size*m {
		return newErr(ErrBuffer, what, "receive buffer of %d bytes for %d ranks × %d", len(recv), c.size, m)
	}
	if m > 0 && c.useGate(s, m) {
		s.gateExchange(send, recv[:c.size*m], 0, m)
		return nil
	}
	counts, displs := s.uniform(c.size, m)
	allgathervSched(s, c.rank, c.size, send, recv, counts, displs, m <= allgatherDirectMax || c.e.oversub)
	s.markReads(c.e.oversub, oversubReadMin)
	s.fitsSlot(m)
	s.ownAfter = m >= allgatherOverlapMin && !c.e.oversub
	return nil
}

// Allgather is Gather with the result on every rank. send may be recv's
// own block (in place).
func (c *Comm) Allgather(send, recv []byte) error {
	if c.IsInter() {
		return c.interColl(interArgs{Kind: interAllgather, Send: send, Recv: recv})
	}
	key := keyOf(memoAllgather, send, recv, 0, 0, 0)
	if ok, err := c.runMemo("Allgather", &key, nil, -1); ok {
		return err
	}
	return c.blockingBuild("Allgather", key, nil, func(s *schedule) error { return c.allgatherBuild(s, "Allgather", send, recv) })
}

func (c *Comm) allgathervBuild(s *schedule, what string, send, recv []byte, counts, displs []int) error {
	if err := checkBlocks(what, "receive", counts, displs, c.size, len(recv)); err != nil {
		return err
	}
	if counts[c.rank] != len(send) {
		return newErr(ErrCount, what, "rank %d sends %d bytes, its count is %d", c.rank, len(send), counts[c.rank])
	}
	// Every rank has the same counts, so every rank picks alike.
	largest := 0
	equal := true // every block as long: the gate's exchange
	for _, k := range counts {
		largest = max(largest, k)
		equal = equal && k == counts[0]
	}
	// Counts only: they are the same on every rank, where the
	// displacements are each rank's own (so the gate places the blocks
	// at them).
	if equal && largest > 0 && c.useGate(s, largest) {
		s.gateExchange(send, recv, 0, largest)
		s.gateDispls = append(s.ints(c.size)[:0], displs...)
		return nil
	}
	allgathervSched(s, c.rank, c.size, send, recv, counts, displs, largest <= allgatherDirectMax || c.e.oversub)
	s.markReads(c.e.oversub, oversubReadMin)
	s.fitsSlot(largest)
	s.ownAfter = len(send) >= allgatherOverlapMin && !c.e.oversub
	return nil
}

// Allgatherv is Gatherv with the result on every rank.
func (c *Comm) Allgatherv(send, recv []byte, counts, displs []int) error {
	if c.IsInter() {
		return c.interColl(interArgs{Kind: interAllgatherv, Send: send, Recv: recv, RecvCounts: counts, RecvDispls: displs})
	}
	v := countsKey{a: [4][]int{counts, displs}}
	key := keyOf(memoAllgatherv, send, recv, 0, 0, 0)
	if ok, err := c.runMemo("Allgatherv", &key, &v, -1); ok {
		return err
	}
	return c.blockingBuild("Allgatherv", vkey(key, &v), &v, func(s *schedule) error { return c.allgathervBuild(s, "Allgatherv", send, recv, counts, displs) })
}

// inPlaceCopy is send for an in-place all-to-all: a copy of the buffer,
// taken at every start before any block arrives over the original.
func inPlaceCopy(s *schedule, send []byte) []byte {
	cp := s.scratch(len(send))
	s.nextLocal()
	s.copyStep(cp, send)
	return cp
}

func (c *Comm) alltoallBuild(s *schedule, what string, send, recv []byte) error {
	n := c.size
	if len(send)%n != 0 {
		return newErr(ErrCount, what, "send buffer of %d bytes does not split into %d blocks", len(send), n)
	}
	if len(recv) < len(send) {
		return newErr(ErrBuffer, what, "receive buffer of %d bytes for %d", len(recv), len(send))
	}
	m := len(send) / n
	if m > 0 && c.useGate(s, len(send)) {
		s.gateExchange(send, recv[:len(send)], c.rank*m, m)
		return nil
	}
	inPlace := sameBuf(send, recv)
	if inPlace {
		send = inPlaceCopy(s, send)
	}
	counts, displs := s.uniform(n, m)
	alltoallvSched(s, c.rank, n, send, counts, displs, recv, counts, displs)
	s.markReads(c.e.oversub, oversubReadMin)
	if inPlace {
		// The own block is in place already, and the copy it would be
		// made from is taken only once the rounds start.
		s.own = [2][]byte{}
	}
	s.fitsSlot(m)
	s.ownAfter = m >= alltoallOverlapMin && !c.e.oversub
	return nil
}

// Alltoall sends block j of send to rank j; block i of recv comes from rank i.
// send and recv may be the same slice (in place).
func (c *Comm) Alltoall(send, recv []byte) error {
	if c.IsInter() {
		return c.interColl(interArgs{Kind: interAlltoall, Send: send, Recv: recv})
	}
	key := keyOf(memoAlltoall, send, recv, 0, 0, 0)
	if ok, err := c.runMemo("Alltoall", &key, nil, -1); ok {
		return err
	}
	return c.blockingBuild("Alltoall", key, nil, func(s *schedule) error { return c.alltoallBuild(s, "Alltoall", send, recv) })
}

func (c *Comm) alltoallvBuild(s *schedule, what string, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) error {
	if err := checkBlocks(what, "send", scounts, sdispls, c.size, len(send)); err != nil {
		return err
	}
	if err := checkBlocks(what, "receive", rcounts, rdispls, c.size, len(recv)); err != nil {
		return err
	}
	if scounts[c.rank] != rcounts[c.rank] {
		return newErr(ErrCount, what, "rank %d sends itself %d bytes but expects %d", c.rank, scounts[c.rank], rcounts[c.rank])
	}
	inPlace := sameBuf(send, recv)
	if inPlace {
		send = inPlaceCopy(s, send)
	}
	alltoallvSched(s, c.rank, c.size, send, scounts, sdispls, recv, rcounts, rdispls)
	s.markReads(c.e.oversub, oversubReadMin)
	s.onePerPair()
	// As Alltoall's (alltoallOverlapMin): the own block, whose size is
	// this rank's alone to know, is copied while the peers read.
	s.ownAfter = scounts[c.rank] >= alltoallOverlapMin && !c.e.oversub
	if inPlace {
		// The own block comes from the copy, once the rounds start.
		s.own = [2][]byte{}
		s.nextLocal()
		s.copyStep(block(recv, rcounts, rdispls, c.rank), block(send, scounts, sdispls, c.rank))
	}
	return nil
}

// Alltoallv is Alltoall with per-peer byte counts and displacements.
func (c *Comm) Alltoallv(send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) error {
	if c.IsInter() {
		return c.interColl(interArgs{Kind: interAlltoallv, Send: send, Recv: recv, SendCounts: scounts, SendDispls: sdispls, RecvCounts: rcounts, RecvDispls: rdispls})
	}
	v := countsKey{a: [4][]int{scounts, sdispls, rcounts, rdispls}}
	key := keyOf(memoAlltoallv, send, recv, 0, 0, 0)
	if ok, err := c.runMemo("Alltoallv", &key, &v, -1); ok {
		return err
	}
	return c.blockingBuild("Alltoallv", vkey(key, &v), &v, func(s *schedule) error {
		return c.alltoallvBuild(s, "Alltoallv", send, scounts, sdispls, recv, rcounts, rdispls)
	})
}
