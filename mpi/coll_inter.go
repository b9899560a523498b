//go:build !ompi && !mpich

package mpi

// Collectives on intercommunicators (MPI 4.1 §6.2.2). Each is a schedule
// of the offload engine (coll.go) run over the union of both groups: a
// view of the intercommunicator whose ranks are the members of both groups
// (the group holding the lower world rank first, so both sides number the
// union alike) and whose collective context is the intercommunicator's
// ctx+1. The union's tags carry collGroupTagBit, which keeps them apart
// from the leaders' point-to-point exchanges on that context (intercomm.go,
// small tags). The algorithms are direct: every message goes between the
// two ranks that own the data, or through a group's leader (rank 0) where
// a reduction needs one place to combine; the groups of one machine are
// small, so the number of rounds matters more than fan-out.

// union is c's view over both groups, made once per intercommunicator so
// its collective sequence numbers advance alike on every member.
func (c *Comm) union() *Comm {
	in := c.inter
	in.unionOnce.Do(func() {
		local := make([]int, c.size)
		for i := range local {
			local[i] = c.worldOf(i)
		}
		u := &Comm{e: c.e, ctx: c.ctx, private: c.private, tagBase: collGroupTagBit}
		if minOf(local) < minOf(in.remote) {
			u.world = append(append(u.world, local...), in.remote...)
			in.lbase, in.rbase = 0, len(local)
		} else {
			u.world = append(append(u.world, in.remote...), local...)
			in.lbase, in.rbase = len(in.remote), 0
		}
		u.size, u.rank = len(u.world), in.lbase+c.rank
		in.unionComm = u
	})
	return in.unionComm
}

// interColl runs the collective a describes on the intercommunicator c.
func (c *Comm) interColl(a interArgs) error {
	what := interName(a.Kind, "")
	if err := c.checkInter(what); err != nil {
		return err
	}
	return c.union().blocking(what, func(s *schedule) error { return c.interBuild(s, what, &a) })
}

// iinterColl starts the collective a describes on the intercommunicator c.
func (c *Comm) iinterColl(a interArgs) (*Request, error) {
	what := interName(a.Kind, "I")
	if err := c.checkInter(what); err != nil {
		return nil, err
	}
	return c.union().nonblocking(what, func(s *schedule) error { return c.interBuild(s, what, &a) })
}

// interCollInit binds a persistent collective on the intercommunicator c;
// each Start runs it again over the same buffers. The schedule is built
// here, so a's count lists are read only now.
func (c *Comm) interCollInit(a interArgs) (*Persistent, error) {
	what := interName(a.Kind, "") + "Init"
	if err := c.checkInter(what); err != nil {
		return nil, err
	}
	return c.union().persist(what, func(s *schedule) error { return c.interBuild(s, what, &a) })
}

func (c *Comm) checkInter(what string) error {
	if err := c.checkLive(what); err != nil {
		return err
	}
	if !c.IsInter() {
		return newErr(ErrComm, what, "not an intercommunicator")
	}
	return nil
}

// interBuild checks a and writes this rank's schedule of it into s. Peers
// in the schedule are union ranks.
func (c *Comm) interBuild(s *schedule, what string, a *interArgs) error {
	in := c.inter
	nl, nr, me := c.size, len(in.remote), c.rank
	lu := func(i int) int { return in.lbase + i }
	ru := func(j int) int { return in.rbase + j }
	rooted := a.Kind == interBcast || a.Kind == interGather || a.Kind == interGatherv ||
		a.Kind == interScatter || a.Kind == interScatterv || a.Kind == interReduce
	if rooted && a.Root != Root && a.Root != ProcNull && (a.Root < 0 || a.Root >= nr) {
		return newErr(ErrRoot, what, "root %d: not Root, ProcNull or a rank of the remote group of %d", a.Root, nr)
	}
	if rooted && a.Root == ProcNull {
		return nil // nothing to do in the root's group but the root
	}
	// equal splits buf into nr equal blocks.
	equal := func(side string, buf []byte) ([]int, []int, error) {
		if len(buf)%nr != 0 {
			return nil, nil, newErr(ErrCount, what, "%s buffer of %d bytes is not %d equal blocks", side, len(buf), nr)
		}
		c, d := s.uniform(nr, len(buf)/nr)
		return c, d, nil
	}
	switch a.Kind {
	case interBarrier:
		// Through the leaders: a group's leader hears from its members,
		// meets the other leader, then releases its members.
		if me == 0 {
			s.next()
			for i := 1; i < nl; i++ {
				s.recv(lu(i), nil)
			}
			s.exchange(ru(0), nil, ru(0), nil)
			s.next()
			for i := 1; i < nl; i++ {
				s.send(lu(i), nil)
			}
		} else {
			s.next()
			s.send(lu(0), nil)
			s.next()
			s.recv(lu(0), nil)
		}
	case interBcast:
		s.next()
		if a.Root == Root {
			for j := range nr {
				s.send(ru(j), a.Send)
			}
		} else {
			s.recv(ru(a.Root), a.Recv)
		}
	case interGather, interGatherv, interScatter, interScatterv:
		gather := a.Kind == interGather || a.Kind == interGatherv
		if a.Root != Root {
			s.next()
			if gather {
				s.send(ru(a.Root), a.Send)
			} else {
				s.recv(ru(a.Root), a.Recv)
			}
			break
		}
		buf, counts, displs, side := a.Recv, a.RecvCounts, a.RecvDispls, "receive"
		if !gather {
			buf, counts, displs, side = a.Send, a.SendCounts, a.SendDispls, "send"
		}
		var err error
		if a.Kind == interGather || a.Kind == interScatter {
			counts, displs, err = equal(side, buf)
		} else {
			err = checkBlocks(what, side, counts, displs, nr, len(buf))
		}
		if err != nil {
			return err
		}
		s.next()
		for j := range nr {
			if gather {
				s.recv(ru(j), block(buf, counts, displs, j))
			} else {
				s.send(ru(j), block(buf, counts, displs, j))
			}
		}
	case interAllgather, interAllgatherv, interAlltoall, interAlltoallv:
		var sc, sd, rc, rdp []int
		var err error
		switch a.Kind {
		case interAllgather, interAllgatherv:
			sc, sd = s.ints(nr), s.ints(nr)
			for j := range sc {
				sc[j] = len(a.Send)
			}
		case interAlltoall:
			sc, sd, err = equal("send", a.Send)
		default:
			sc, sd = a.SendCounts, a.SendDispls
			err = checkBlocks(what, "send", sc, sd, nr, len(a.Send))
		}
		if err != nil {
			return err
		}
		if a.Kind == interAllgather || a.Kind == interAlltoall {
			rc, rdp, err = equal("receive", a.Recv)
		} else {
			rc, rdp = a.RecvCounts, a.RecvDispls
			err = checkBlocks(what, "receive", rc, rdp, nr, len(a.Recv))
		}
		if err != nil {
			return err
		}
		s.next()
		for j := range nr {
			s.recv(ru(j), block(a.Recv, rc, rdp, j))
		}
		for j := range nr {
			s.send(ru(j), block(a.Send, sc, sd, j))
		}
	case interReduce:
		if a.Root != Root {
			if _, err := checkReduceArgs(what, a.Send, nil, a.Datatype, a.Op, false); err != nil {
				return err
			}
			s.next()
			s.send(ru(a.Root), a.Send)
			break
		}
		red, err := checkReduceArgs(what, a.Recv, a.Recv, a.Datatype, a.Op, true)
		if err != nil {
			return err
		}
		s.red = red
		s.next()
		interCombine(s, nr, ru, a.Recv)
	case interAllreduce, interReduceScatterBlock, interReduceScatter:
		// Every rank sends its data to the remote leader; the leader
		// combines what its remote group sent and hands the result (or
		// each member's part of it) to its members.
		red, err := resolveOp(what, a.Datatype, a.Op)
		if err != nil {
			return err
		}
		// counts and displs: each local member's part of the result.
		var counts, displs []int
		switch a.Kind {
		case interAllreduce:
			if len(a.Recv) < len(a.Send) {
				return newErr(ErrBuffer, what, "receive buffer of %d bytes for %d to reduce", len(a.Recv), len(a.Send))
			}
			counts, displs = s.ints(nl), s.ints(nl)
			for i := range counts {
				counts[i] = len(a.Send)
			}
		case interReduceScatterBlock:
			counts, displs = s.uniform(nl, len(a.Recv))
		default:
			if len(a.RecvCounts) != nl {
				return newErr(ErrCount, what, "%d receive counts for %d ranks", len(a.RecvCounts), nl)
			}
			counts, displs = a.RecvCounts, s.ints(nl)
			off := 0
			for i, k := range counts {
				if k < 0 {
					return newErr(ErrCount, what, "count %d of rank %d is negative", k, i)
				}
				displs[i] = off
				off += k
			}
			if len(a.Recv) < counts[me] {
				return newErr(ErrBuffer, what, "receive buffer of %d bytes for a block of %d", len(a.Recv), counts[me])
			}
		}
		total := displs[nl-1] + counts[nl-1]
		if a.Kind == interAllreduce {
			total = len(a.Send)
		}
		if len(a.Send) != total || total%red.elem != 0 {
			return newErr(ErrCount, what, "send buffer of %d bytes for %d bytes of %v elements", len(a.Send), total, a.Datatype)
		}
		if me != 0 {
			s.next()
			s.send(ru(0), a.Send)
			s.next()
			s.recv(lu(0), a.Recv[:counts[me]])
			break
		}
		// The leader: the remote vectors are the local total long.
		s.red = red
		var res []byte
		if a.Kind == interAllreduce {
			res = a.Recv[:total]
		} else {
			res = s.scratch(total)
		}
		s.next()
		s.send(ru(0), a.Send)
		interCombine(s, nr, ru, res)
		s.next()
		for i := 1; i < nl; i++ {
			s.send(lu(i), res[displs[i]:displs[i]+counts[i]])
		}
		if a.Kind != interAllreduce {
			s.copyStep(a.Recv[:counts[0]], res[:counts[0]])
		}
	default:
		return newErr(ErrArg, what, "unknown intercommunicator collective %d", int(a.Kind))
	}
	return nil
}

// interCombine adds to the current round the receives of one vector of
// len(res) bytes from each of the nr remote ranks and the steps that
// reduce them into res with s.red, in remote rank order.
func interCombine(s *schedule, nr int, ru func(int) int, res []byte) {
	n := len(res)
	scratch := s.scratch(n * nr)
	for j := range nr {
		s.recv(ru(j), scratch[j*n:(j+1)*n])
	}
	// MPI's order: v0 op v1 op ... op v(nr-1); a reduce step is dst = src
	// op dst, so fold from the right.
	s.copyStep(res, scratch[(nr-1)*n:])
	for j := nr - 2; j >= 0; j-- {
		s.reduce(scratch[j*n:(j+1)*n], res)
	}
}
