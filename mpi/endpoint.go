//go:build !ompi && !mpich

package mpi

import (
	"github.com/hympi/hympi/mpi/internal/peer"
	"github.com/hympi/hympi/skew"
)

// endpoint is everything this rank keeps about one peer (peer.Endpoint):
// channel ends, direct-copy verdict, skew feedback, counters. It is made
// on first use (ep), so a rank that talks to a few peers of a large job
// holds a few endpoints; its channels are made later still, by the first
// message each way (shm/arena.go).
type endpoint = peer.Endpoint[Request, unexpected, PeerCounters]

// endpoints is the engine's table of them by world rank.
type endpoints = peer.Table[Request, unexpected, PeerCounters]

// ep returns the endpoint of world rank p, making it on first use.
func (e *engine) ep(p int) *endpoint {
	if x := e.eps[p]; x != nil {
		return x
	}
	return e.newEp(p)
}

// newEp makes world rank p's endpoint on first use: apart from ep, so
// that ep inlines into every send (its call was ~15 instructions of an
// Isend).
func (e *engine) newEp(p int) *endpoint {
	c := PeerCounters{Peer: p, Relation: "shm", Threshold: directNever}
	var out *outChan
	if p == e.rank {
		c.Relation = "self"
	} else if e.region != nil {
		out = &outChan{Peer: p, Summary: e.region.Summary(p), Bell: e.region.Doorbell(p)}
	}
	x := e.eps.Add(p, c, out)
	if p != e.rank {
		if e.th != nil {
			e.learnPeer(x)
		}
		if e.skewReady {
			e.initSkew(x)
		}
	}
	return x
}

// outTo is the sending end toward world rank p (p != e.rank).
func (e *engine) outTo(p int) *outChan { return e.ep(p).Out }

// openOut makes oc's channel, the first time anything is sent to its peer.
// A region that cannot hold it (shm.ErrNoSpace, shm.ErrArenaFull) fails
// the engine with an error that names the remedy: the job cannot go on
// without the pair, and waiting would hang.
func (e *engine) openOut(oc *outChan) bool {
	if oc.Prod != nil {
		return true
	}
	if e.fatal != nil {
		return false
	}
	ch, err := e.region.OpenChannel(e.rank, oc.Peer)
	if err != nil {
		e.fatal = &Error{Class: ErrIntern, Op: "send", Msg: "shared region: " + err.Error()}
		e.flStop()
		return false
	}
	oc.Ch, oc.Prod, oc.Pool, oc.CollProd = ch, ch.Producer(), ch.Pool(), ch.CollProducer()
	e.flBindOut(oc)
	if x := e.eps[oc.Peer]; x.Sk.Ready {
		x.Sk.FbIn = ch.Feedback()
	}
	return true
}

// inFrom is the receiving end from world rank p, or nil while p has not
// made its channel to us. The table entry p wrote is checked (bounds, the
// channel's own record of its pair) before it is used.
func (e *engine) inFrom(p int) *inChan {
	if x := e.eps[p]; x != nil && x.In != nil {
		return x.In
	}
	ch, ok, err := e.region.IncomingChannel(p, e.rank)
	if err != nil {
		e.corrupt(err)
		return nil
	}
	if !ok {
		return nil
	}
	ch.PrefaultIncoming()
	x := e.ep(p)
	x.In = &inChan{
		Peer: p, Ch: ch, Cons: ch.Consumer(), Returns: ch.Returns(),
		Lim: ch.Limits(), Bell: e.region.Doorbell(p), Coll: ch.CollConsumer(),
	}
	if x.Sk.Ready {
		x.Sk.FbOut = ch.Feedback()
	}
	e.flBindIn(x.In)
	return x.In
}

// learnPeer fills in what Init learned about the peer: whether it can read
// our memory (its direct-copy bitmap) and the threshold toward it.
func (e *engine) learnPeer(x *endpoint) {
	p := x.Peer
	x.DirectOK = e.region.DirectBits(p).Has(e.rank)
	rel, thr := e.th.ForPeer(e.region.RankCPU(e.rank), e.region.RankCPU(p))
	x.Counters.Relation = rel
	x.Counters.Threshold = thr
	e.flSpan(x)
}

// initSkew sets up the skew controller toward the peer from its current
// threshold.
func (e *engine) initSkew(x *endpoint) {
	ceiling := int(e.region.L.PoolBytes() / skewCeilingShare)
	s := &x.Sk
	s.Ready = true
	s.Base = x.Counters.Threshold
	e.skew.small = min(e.skew.small, s.Base)
	e.flRefresh()
	e.flSpan(x)
	cfg := skew.DefaultConfig(s.Base, max(s.Base, ceiling))
	if e.skew.slowReads() {
		cfg.Patience *= slowReadsPatience
	}
	s.Ctrl = skew.New(cfg)
	if x.Out != nil && x.Out.Prod != nil {
		s.FbIn = x.Out.Ch.Feedback()
	}
	if x.In != nil {
		s.FbOut = x.In.Ch.Feedback()
	}
}

// anyDirectPeer says whether some peer can read this rank's memory, from
// the direct-copy bitmaps Init published (no endpoint is made for it).
func (e *engine) anyDirectPeer() bool {
	for p := 0; p < e.size; p++ {
		if p != e.rank && e.region.DirectBits(p).Has(e.rank) {
			return true
		}
	}
	return false
}
