package mpi

import (
	"os"

	"github.com/hympi/hympi/shm"
	"github.com/hympi/hympi/skew"
)

// Skew feedback. A rendezvous send cannot complete before its receive is
// posted, so a receiver that falls behind stalls its senders. Each receiver
// publishes, per sender, in the channel's feedback words (no message, no
// syscall: a store when something changes) how many of that sender's
// messages wait in its unexpected queue, and how many arrived before their
// receive (unexpected) or after (expected) so far. Before choosing the
// protocol of a message above the topology threshold, the sender looks at
// what changed since it last looked. Nothing new: it keeps its threshold (a
// burst of sends posted before the receiver could react says nothing). New
// arrivals: it feeds the controller for that peer (package skew) the larger
// of the queue length and the number of new unexpected arrivals — so a
// receiver that took a whole window unexpected is seen as behind even if it
// has drained its queue by now. The controller raises the threshold while
// the receiver is behind, so sends go eager and complete at once, and lets it
// decay back once arrivals find their receives posted.

// skewCeilingShare: the controller never raises a peer's threshold above
// this fraction of the channel's cell pool, so several raised messages still
// fit in flight and eager sends do not turn into waits for cells.
const skewCeilingShare = 4

type skewState struct {
	on        bool
	ctrl      []skew.Controller // by world rank (as sender)
	fbIn      []shm.Feedback    // channel me→peer: written by peer, read by us
	fbOut     []shm.Feedback    // channel peer→me: written by us
	unexpFrom []int             // our unexpected messages, by sender
	base      []int             // topology threshold, by peer
	seenU     []uint32          // peer's unexpected-arrival count at our last look
	seenX     []uint32          // peer's expected-arrival count at our last look
}

// setupSkew prepares the controllers once thresholds are known.
func (e *engine) setupSkew() {
	s := &e.skew
	s.on = os.Getenv("HYMPI_SKEW") != "off"
	s.ctrl = make([]skew.Controller, e.size)
	s.fbIn = make([]shm.Feedback, e.size)
	s.fbOut = make([]shm.Feedback, e.size)
	s.unexpFrom = make([]int, e.size)
	s.base = make([]int, e.size)
	s.seenU = make([]uint32, e.size)
	s.seenX = make([]uint32, e.size)
	ceiling := int(e.region.L.PoolBytes() / skewCeilingShare)
	for p := 0; p < e.size; p++ {
		if p == e.rank {
			continue
		}
		base := e.counters[p].Threshold
		s.base[p] = base
		s.ctrl[p] = skew.New(skew.DefaultConfig(base, max(base, ceiling)))
		s.fbIn[p] = e.region.Channel(e.rank, p).Feedback()
		s.fbOut[p] = e.region.Channel(p, e.rank).Feedback()
	}
}

// skewThreshold observes peer's feedback before an n-byte send and returns
// the threshold to use for it, counting moves. A raise goes just far enough
// for n to travel eagerly, so one observation adapts a stream of such
// messages.
func (e *engine) skewThreshold(peer, n int) int {
	s := &e.skew
	q, u, x := s.fbIn[peer].Load()
	du, dx := u-s.seenU[peer], x-s.seenX[peer]
	if du == 0 && dx == 0 {
		return s.ctrl[peer].Threshold()
	}
	s.seenU[peer], s.seenX[peer] = u, x
	thr, move := s.ctrl[peer].ObserveSize(max(q, int(min(du, 1<<20))), n)
	c := &e.counters[peer]
	c.Threshold = thr
	switch move {
	case skew.Raised:
		c.SkewRaises++
	case skew.Lowered:
		c.SkewLowers++
	}
	return thr
}

// fileUnexpected adds u to q's unexpected lists and reports the sender's new
// backlog.
func (e *engine) fileUnexpected(q *matchQueues, u *unexpected) {
	q.addUnexpected(u)
	e.unexpChanged(u.src, +1)
}

// takeUnexpected removes u from q and reports the sender's new backlog.
func (e *engine) takeUnexpected(q *matchQueues, u *unexpected) {
	q.removeUnexpected(u)
	e.unexpChanged(u.src, -1)
}

func (e *engine) unexpChanged(src, delta int) {
	s := &e.skew
	if s.unexpFrom == nil || src == e.rank {
		return
	}
	s.unexpFrom[src] += delta
	s.fbOut[src].SetQueue(s.unexpFrom[src])
}

// arrivalFrom counts a message from src that found (or did not find) its
// receive already posted.
func (e *engine) arrivalFrom(src int, matched bool) {
	if s := &e.skew; s.fbOut != nil && src != e.rank {
		s.fbOut[src].Arrived(!matched)
	}
}
