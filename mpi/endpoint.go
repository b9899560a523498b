//go:build !ompi && !mpich

package mpi

import (
	"github.com/hympi/hympi/mpi/internal/peer"
	"github.com/hympi/hympi/skew"
)

// endpoint is everything this rank keeps about one peer: the channels to
// and from it, the protocol verdicts and thresholds toward it, its skew
// feedback and its counters. It is made the first time the engine deals
// with the peer (a send, a message from it, a question about it), so a rank
// that talks to a few peers of a large job holds a few endpoints; its
// channels are made later still, by the first message each way
// (shm/arena.go).
type endpoint struct {
	peer     int
	out      *outChan // nil for this rank itself; its channel opens on the first send
	in       *inChan  // nil until the peer's channel to us is found
	counters PeerCounters
	directOK bool // the peer can read our memory
	sk       peer.Skew
}

// ep returns the endpoint of world rank p, making it on first use.
func (e *engine) ep(p int) *endpoint {
	if x := e.eps[p]; x != nil {
		return x
	}
	x := &endpoint{peer: p, counters: PeerCounters{Peer: p, Relation: "shm", Threshold: directNever}}
	if p == e.rank {
		x.counters.Relation = "self"
	} else if e.region != nil {
		x.out = &outChan{peer: p, summary: e.region.Summary(p), bell: e.region.Doorbell(p)}
	}
	e.eps[p] = x
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
func (e *engine) outTo(p int) *outChan { return e.ep(p).out }

// openOut makes oc's channel, the first time anything is sent to its peer.
// A region that cannot hold it (shm.ErrNoSpace, shm.ErrArenaFull) fails
// the engine with an error that names the remedy: the job cannot go on
// without the pair, and waiting would hang.
func (e *engine) openOut(oc *outChan) bool {
	if oc.prod != nil {
		return true
	}
	if e.fatal != nil {
		return false
	}
	ch, err := e.region.OpenChannel(e.rank, oc.peer)
	if err != nil {
		e.fatal = &Error{Class: ErrIntern, Op: "send", Msg: "shared region: " + err.Error()}
		e.flStop()
		return false
	}
	oc.ch, oc.prod, oc.pool, oc.collProd = ch, ch.Producer(), ch.Pool(), ch.CollProducer()
	e.flBindOut(oc)
	if x := e.eps[oc.peer]; x.sk.Ready {
		x.sk.FbIn = ch.Feedback()
	}
	return true
}

// inFrom is the receiving end from world rank p, or nil while p has not
// made its channel to us. The table entry p wrote is checked (bounds, the
// channel's own record of its pair) before it is used.
func (e *engine) inFrom(p int) *inChan {
	if x := e.eps[p]; x != nil && x.in != nil {
		return x.in
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
	x.in = &inChan{
		peer: p, ch: ch, cons: ch.Consumer(), returns: ch.Returns(),
		lim: ch.Limits(), bell: e.region.Doorbell(p), coll: ch.CollConsumer(),
	}
	if x.sk.Ready {
		x.sk.FbOut = ch.Feedback()
	}
	e.flBindIn(x.in)
	return x.in
}

// learnPeer fills in what Init learned about the peer: whether it can read
// our memory (its direct-copy bitmap) and the threshold toward it.
func (e *engine) learnPeer(x *endpoint) {
	p := x.peer
	x.directOK = e.region.DirectBits(p).Has(e.rank)
	rel, thr := e.th.ForPeer(e.region.RankCPU(e.rank), e.region.RankCPU(p))
	x.counters.Relation = rel
	x.counters.Threshold = thr
}

// initSkew sets up the skew controller toward the peer from its current
// threshold.
func (e *engine) initSkew(x *endpoint) {
	ceiling := int(e.region.L.PoolBytes() / skewCeilingShare)
	s := &x.sk
	s.Ready = true
	s.Base = x.counters.Threshold
	e.skew.small = min(e.skew.small, s.Base)
	e.flRefresh()
	cfg := skew.DefaultConfig(s.Base, max(s.Base, ceiling))
	if e.skew.slowReads() {
		cfg.Patience *= slowReadsPatience
	}
	s.Ctrl = skew.New(cfg)
	if x.out != nil && x.out.prod != nil {
		s.FbIn = x.out.ch.Feedback()
	}
	if x.in != nil {
		s.FbOut = x.in.ch.Feedback()
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
