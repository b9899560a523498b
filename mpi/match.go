//go:build !ompi && !mpich

package mpi

// The matching engine: per communicator context, the receives posted and not
// yet matched, and the messages that arrived before any receive wanted them.
//
// Posted receives sit in one queue per source plus one for ANY_SOURCE, each
// entry stamped with a post sequence number. An arriving message looks at the
// first matching entry of its source's queue and of the ANY_SOURCE queue and
// takes the older one, so matching costs a walk over receives from that
// source only, never over all posted receives.
//
// Unexpected messages sit on two lists at once: per source (for receives
// naming a source) and in global arrival order (for ANY_SOURCE receives, which
// then take the oldest matching message from any sender). Either walk stops
// at the first match, so both cases cost what MPI ordering makes necessary.
// Non-overtaking follows from channels delivering in send order and every
// walk taking the first match.

type matchQueues struct {
	posted    []reqList // by source world rank
	postedAny reqList
	unexp     []unexList // by source world rank
	unexpAll  unexList   // arrival order
	nunexp    int
	// live counts posted receives and unexpected messages over all of
	// the engine's contexts, for the fast lane's rule (fastlane.go).
	live *[2]int64
}

func newMatchQueues(worldSize int, live *[2]int64) *matchQueues {
	return &matchQueues{posted: make([]reqList, worldSize), unexp: make([]unexList, worldSize), live: live}
}

func tagMatches(want int, got int32) bool { return want == AnyTag || int32(want) == got }

// takePosted removes and returns the receive an arrival (src, tag) matches,
// or nil.
func (q *matchQueues) takePosted(src int, tag int32) *Request {
	var a, b *Request
	for r := q.posted[src].head; r != nil; r = r.next {
		if tagMatches(r.tag, tag) {
			a = r
			break
		}
	}
	for r := q.postedAny.head; r != nil; r = r.next {
		if a != nil && r.postSeq > a.postSeq {
			break
		}
		if tagMatches(r.tag, tag) {
			b = r
			break
		}
	}
	switch {
	case b != nil && (a == nil || b.postSeq < a.postSeq):
		q.postedAny.remove(b)
		q.live[0]--
		return b
	case a != nil:
		q.posted[src].remove(a)
		q.live[0]--
		return a
	}
	return nil
}

// post appends a receive that matched nothing unexpected.
func (q *matchQueues) post(r *Request) {
	q.live[0]++
	if r.src == AnySource {
		q.postedAny.pushBack(r)
	} else {
		q.posted[r.src].pushBack(r)
	}
}

// hasPosted reports whether any receive is still posted.
func (q *matchQueues) hasPosted() bool {
	if q.postedAny.head != nil {
		return true
	}
	for i := range q.posted {
		if q.posted[i].head != nil {
			return true
		}
	}
	return false
}

// unpost removes a posted receive (cancellation on error paths).
func (q *matchQueues) unpost(r *Request) {
	l := &q.postedAny
	if r.src != AnySource {
		l = &q.posted[r.src]
	}
	if r.prev == nil && l.head != r {
		return // not posted (matched already): nothing to take off
	}
	l.remove(r)
	q.live[0]--
}

// findUnexpected returns the oldest unexpected message a receive for
// (src, tag) matches, without removing it.
func (q *matchQueues) findUnexpected(src, tag int) *unexpected {
	if q.nunexp == 0 {
		return nil
	}
	if src == AnySource {
		for u := q.unexpAll.head; u != nil; u = u.allNext {
			if tagMatches(tag, u.tag) {
				return u
			}
		}
		return nil
	}
	for u := q.unexp[src].head; u != nil; u = u.srcNext {
		if tagMatches(tag, u.tag) {
			return u
		}
	}
	return nil
}

func (q *matchQueues) addUnexpected(u *unexpected) {
	q.unexp[u.src].pushBack(u)
	q.unexpAll.pushBackAll(u)
	q.nunexp++
	q.live[1]++
}

func (q *matchQueues) removeUnexpected(u *unexpected) {
	q.unexp[u.src].remove(u)
	q.unexpAll.removeAll(u)
	q.nunexp--
	q.live[1]--
}

// unexpected is a message that arrived before its receive. Its payload is
// copied out of the channel into data (so cells go back to the sender at
// once); a message still streaming in has flight set.
type unexpected struct {
	ctx     uint32
	src     int // world rank
	tag     int32
	length  int
	data    []byte // len == length; filled up to flight progress
	flight  *inflight
	arrival uint64

	// A rendezvous message: the payload is at rtsAddr in the sender, whose
	// request rtsID waits for our FIN.
	rtsAddr uint64
	rtsID   uint64

	// Synchronous-send bookkeeping: who to tell when this is matched.
	syncID     uint64   // remote sender's request id (0: none)
	selfSender *Request // local sender (self-send), completed on match

	srcPrev, srcNext *unexpected
	allPrev, allNext *unexpected
}

type reqList struct{ head, tail *Request }

func (l *reqList) pushBack(r *Request) {
	r.prev, r.next = l.tail, nil
	if l.tail != nil {
		l.tail.next = r
	} else {
		l.head = r
	}
	l.tail = r
}

func (l *reqList) remove(r *Request) {
	if r.prev != nil {
		r.prev.next = r.next
	} else {
		l.head = r.next
	}
	if r.next != nil {
		r.next.prev = r.prev
	} else {
		l.tail = r.prev
	}
	r.prev, r.next = nil, nil
}

type unexList struct{ head, tail *unexpected }

func (l *unexList) pushBack(u *unexpected) {
	u.srcPrev, u.srcNext = l.tail, nil
	if l.tail != nil {
		l.tail.srcNext = u
	} else {
		l.head = u
	}
	l.tail = u
}

func (l *unexList) remove(u *unexpected) {
	if u.srcPrev != nil {
		u.srcPrev.srcNext = u.srcNext
	} else {
		l.head = u.srcNext
	}
	if u.srcNext != nil {
		u.srcNext.srcPrev = u.srcPrev
	} else {
		l.tail = u.srcPrev
	}
	u.srcPrev, u.srcNext = nil, nil
}

func (l *unexList) pushBackAll(u *unexpected) {
	u.allPrev, u.allNext = l.tail, nil
	if l.tail != nil {
		l.tail.allNext = u
	} else {
		l.head = u
	}
	l.tail = u
}

func (l *unexList) removeAll(u *unexpected) {
	if u.allPrev != nil {
		u.allPrev.allNext = u.allNext
	} else {
		l.head = u.allNext
	}
	if u.allNext != nil {
		u.allNext.allPrev = u.allPrev
	} else {
		l.tail = u.allPrev
	}
	u.allPrev, u.allNext = nil, nil
}
