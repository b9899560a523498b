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

// InterColl runs the collective a describes on the intercommunicator c.
func (c *Comm) InterColl(a InterArgs) error {
	what := interName(a.Kind, "")
	s, err := c.interSched(what, &a)
	if err != nil {
		return err
	}
	return c.union().runColl(what, s)
}

// IinterColl starts the collective a describes on the intercommunicator c.
func (c *Comm) IinterColl(a InterArgs) (*Request, error) {
	what := interName(a.Kind, "I")
	s, err := c.interSched(what, &a)
	if err != nil {
		return nil, err
	}
	return c.union().startNonblocking(s)
}

// InterCollInit binds a persistent collective on the intercommunicator c;
// each Start runs it again over the same buffers.
func (c *Comm) InterCollInit(a InterArgs) (*Persistent, error) {
	what := interName(a.Kind, "") + "Init"
	a.SendCounts, a.SendDispls = clone(a.SendCounts), clone(a.SendDispls)
	a.RecvCounts, a.RecvDispls = clone(a.RecvCounts), clone(a.RecvDispls)
	if err := c.checkLive(what); err != nil {
		return nil, err
	}
	if !c.IsInter() {
		return nil, newErr(ErrComm, what, "not an intercommunicator")
	}
	return c.union().persistent(what, func(w string) (*schedule, error) { return c.interSched(w, &a) })
}

// interSched checks a and builds this rank's schedule of it. Peers in the
// schedule are union ranks.
func (c *Comm) interSched(what string, a *InterArgs) (*schedule, error) {
	if err := c.checkLive(what); err != nil {
		return nil, err
	}
	if !c.IsInter() {
		return nil, newErr(ErrComm, what, "not an intercommunicator")
	}
	c.union() // numbers the groups in the union
	in := c.inter
	nl, nr, me := c.size, len(in.remote), c.rank
	lu := func(i int) int { return in.lbase + i }
	ru := func(j int) int { return in.rbase + j }
	s := &schedule{}
	rooted := a.Kind == InterBcast || a.Kind == InterGather || a.Kind == InterGatherv ||
		a.Kind == InterScatter || a.Kind == InterScatterv || a.Kind == InterReduce
	if rooted && a.Root != Root && a.Root != ProcNull && (a.Root < 0 || a.Root >= nr) {
		return nil, newErr(ErrRoot, what, "root %d: not Root, ProcNull or a rank of the remote group of %d", a.Root, nr)
	}
	if rooted && a.Root == ProcNull {
		return s, nil // nothing to do in the root's group but the root
	}
	// equal splits buf into nr equal blocks.
	equal := func(side string, buf []byte) ([]int, []int, error) {
		if len(buf)%nr != 0 {
			return nil, nil, newErr(ErrCount, what, "%s buffer of %d bytes is not %d equal blocks", side, len(buf), nr)
		}
		return equalBlocks(len(buf)/nr, nr)
	}
	switch a.Kind {
	case InterBarrier:
		// Through the leaders: a group's leader hears from its members,
		// meets the other leader, then releases its members.
		if me == 0 {
			rd := collRound{sends: []collXfer{{peer: ru(0)}}, recvs: []collXfer{{peer: ru(0)}}}
			var gather, release collRound
			for i := 1; i < nl; i++ {
				gather.recvs = append(gather.recvs, collXfer{peer: lu(i)})
				release.sends = append(release.sends, collXfer{peer: lu(i)})
			}
			s.round(gather)
			s.round(rd)
			s.round(release)
		} else {
			s.round(collRound{sends: []collXfer{{peer: lu(0)}}})
			s.round(collRound{recvs: []collXfer{{peer: lu(0)}}})
		}
	case InterBcast:
		var rd collRound
		if a.Root == Root {
			for j := range nr {
				rd.sends = append(rd.sends, collXfer{peer: ru(j), buf: a.Send})
			}
		} else {
			rd.recvs = []collXfer{{peer: ru(a.Root), buf: a.Recv}}
		}
		s.round(rd)
	case InterGather, InterGatherv, InterScatter, InterScatterv:
		gather := a.Kind == InterGather || a.Kind == InterGatherv
		if a.Root != Root {
			x := collXfer{peer: ru(a.Root)}
			if gather {
				x.buf = a.Send
				s.round(collRound{sends: []collXfer{x}})
			} else {
				x.buf = a.Recv
				s.round(collRound{recvs: []collXfer{x}})
			}
			break
		}
		buf, counts, displs := a.Recv, a.RecvCounts, a.RecvDispls
		if !gather {
			buf, counts, displs = a.Send, a.SendCounts, a.SendDispls
		}
		var err error
		if a.Kind == InterGather || a.Kind == InterScatter {
			counts, displs, err = equal(map[bool]string{true: "receive", false: "send"}[gather], buf)
		} else {
			err = checkBlocks(what, map[bool]string{true: "receive", false: "send"}[gather], counts, displs, nr, len(buf))
		}
		if err != nil {
			return nil, err
		}
		var rd collRound
		for j := range nr {
			x := collXfer{peer: ru(j), buf: block(buf, counts, displs, j)}
			if gather {
				rd.recvs = append(rd.recvs, x)
			} else {
				rd.sends = append(rd.sends, x)
			}
		}
		s.round(rd)
	case InterAllgather, InterAllgatherv, InterAlltoall, InterAlltoallv:
		var sc, sd, rc, rdp []int
		var err error
		switch a.Kind {
		case InterAllgather, InterAllgatherv:
			sc, sd = make([]int, nr), make([]int, nr)
			for j := range sc {
				sc[j] = len(a.Send)
			}
		case InterAlltoall:
			sc, sd, err = equal("send", a.Send)
		default:
			sc, sd = a.SendCounts, a.SendDispls
			err = checkBlocks(what, "send", sc, sd, nr, len(a.Send))
		}
		if err != nil {
			return nil, err
		}
		if a.Kind == InterAllgather || a.Kind == InterAlltoall {
			rc, rdp, err = equal("receive", a.Recv)
		} else {
			rc, rdp = a.RecvCounts, a.RecvDispls
			err = checkBlocks(what, "receive", rc, rdp, nr, len(a.Recv))
		}
		if err != nil {
			return nil, err
		}
		var rd collRound
		for j := range nr {
			rd.recvs = append(rd.recvs, collXfer{peer: ru(j), buf: block(a.Recv, rc, rdp, j)})
			rd.sends = append(rd.sends, collXfer{peer: ru(j), buf: block(a.Send, sc, sd, j)})
		}
		s.round(rd)
	case InterReduce:
		if a.Root != Root {
			if _, err := checkReduceArgs(what, a.Send, nil, a.Datatype, a.Op, false); err != nil {
				return nil, err
			}
			s.round(collRound{sends: []collXfer{{peer: ru(a.Root), buf: a.Send}}})
			break
		}
		red, err := checkReduceArgs(what, a.Recv, a.Recv, a.Datatype, a.Op, true)
		if err != nil {
			return nil, err
		}
		interCombine(s, &red, nr, ru, a.Recv, collRound{})
	case InterAllreduce, InterReduceScatterBlock, InterReduceScatter:
		// Every rank sends its data to the remote leader; the leader
		// combines what its remote group sent and hands the result (or
		// each member's part of it) to its members.
		red, err := resolveOp(what, a.Datatype, a.Op)
		if err != nil {
			return nil, err
		}
		// counts and displs: each local member's part of the result.
		var counts, displs []int
		switch a.Kind {
		case InterAllreduce:
			if len(a.Recv) < len(a.Send) {
				return nil, newErr(ErrBuffer, what, "receive buffer of %d bytes for %d to reduce", len(a.Recv), len(a.Send))
			}
			counts, displs = make([]int, nl), make([]int, nl)
			for i := range counts {
				counts[i] = len(a.Send)
			}
		case InterReduceScatterBlock:
			counts, displs, _ = equalBlocks(len(a.Recv), nl)
		default:
			if len(a.RecvCounts) != nl {
				return nil, newErr(ErrCount, what, "%d receive counts for %d ranks", len(a.RecvCounts), nl)
			}
			counts, displs = a.RecvCounts, make([]int, nl)
			off := 0
			for i, k := range counts {
				if k < 0 {
					return nil, newErr(ErrCount, what, "count %d of rank %d is negative", k, i)
				}
				displs[i] = off
				off += k
			}
			if len(a.Recv) < counts[me] {
				return nil, newErr(ErrBuffer, what, "receive buffer of %d bytes for a block of %d", len(a.Recv), counts[me])
			}
		}
		total := displs[nl-1] + counts[nl-1]
		if a.Kind == InterAllreduce {
			total = len(a.Send)
		}
		if len(a.Send) != total || total%red.elem != 0 {
			return nil, newErr(ErrCount, what, "send buffer of %d bytes for %d bytes of %v elements", len(a.Send), total, a.Datatype)
		}
		toLeader := collXfer{peer: ru(0), buf: a.Send}
		if me != 0 {
			s.round(collRound{sends: []collXfer{toLeader}})
			s.round(collRound{recvs: []collXfer{{peer: lu(0), buf: a.Recv[:counts[me]]}}})
			break
		}
		// The leader: the remote vectors are the local total long.
		out := a.Recv[:counts[0]]
		var res []byte
		if a.Kind == InterAllreduce {
			res = a.Recv[:total]
		} else {
			res = make([]byte, total)
		}
		interCombine(s, &red, nr, ru, res, collRound{sends: []collXfer{toLeader}})
		var rel collRound
		for i := 1; i < nl; i++ {
			rel.sends = append(rel.sends, collXfer{peer: lu(i), buf: res[displs[i] : displs[i]+counts[i]]})
		}
		s.round(rel)
		if a.Kind != InterAllreduce {
			s.local(func() { copy(out, res[:counts[0]]) })
		}
	default:
		return nil, newErr(ErrArg, what, "unknown intercommunicator collective %d", int(a.Kind))
	}
	return s, nil
}

// interCombine adds the rounds that receive one vector of len(res) bytes
// from each of the nr remote ranks (with extra's messages alongside) and
// reduce them into res in remote rank order.
func interCombine(s *schedule, red *reducer, nr int, ru func(int) int, res []byte, extra collRound) {
	n := len(res)
	scratch := make([]byte, n*nr)
	rd := extra
	for j := range nr {
		rd.recvs = append(rd.recvs, collXfer{peer: ru(j), buf: scratch[j*n : (j+1)*n]})
	}
	rd.after = func() {
		// MPI's order: v0 op v1 op ... op v(nr-1); apply is inout = in op
		// inout, so fold from the right.
		copy(res, scratch[(nr-1)*n:])
		for j := nr - 2; j >= 0; j-- {
			red.apply(scratch[j*n:(j+1)*n], res)
		}
	}
	s.round(rd)
}

// equalBlocks is n blocks of size bytes, one after the other.
func equalBlocks(size, n int) ([]int, []int, error) {
	counts, displs := make([]int, n), make([]int, n)
	for i := range counts {
		counts[i], displs[i] = size, i*size
	}
	return counts, displs, nil
}
