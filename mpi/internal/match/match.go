// Package match owns the engine's matching: per communicator context, the
// receives posted and not yet matched, and the messages that arrived before
// any receive wanted them, and the rule that pairs the two (source, tag,
// MPI's non-overtaking order).
//
// The queues are intrusive and generic over the engine's own types: a
// receive request embeds a Posted[R] and an unexpected message an Arrived[U],
// each pointing back at its owner, so posting, matching and filing never
// allocate and this package needs nothing of the engine.
//
// Posted receives sit in one queue per source plus one for AnySource, each
// entry stamped with a post sequence number. An arriving message looks at the
// first matching entry of its source's queue and of the AnySource queue and
// takes the older one, so matching costs a walk over receives from that
// source only, never over all posted receives.
//
// Unexpected messages sit on two lists at once: per source (for receives
// naming a source) and in global arrival order (for AnySource receives, which
// then take the oldest matching message from any sender). Either walk stops
// at the first match, so both cases cost what MPI ordering makes necessary.
// Non-overtaking follows from channels delivering in send order and every
// walk taking the first match.
package match

import "iter"

// AnySource and AnyTag are the wildcards, with the values of the public
// mpi.AnySource and mpi.AnyTag (package mpi checks they agree).
const (
	AnySource = -1
	AnyTag    = -1
)

// TagMatches reports whether a receive for tag want takes a message with
// tag got.
func TagMatches(want int, got int32) bool { return want == AnyTag || int32(want) == got }

// Posted is a receive's key and its place in the posted queues.
type Posted[R any] struct {
	Src int    // world rank or AnySource
	Tag int    // or AnyTag
	Seq uint64 // post order, across all sources of the context

	owner      *R
	prev, next *Posted[R]
}

// Arrived is an unexpected message's envelope and its place on the
// unexpected lists.
type Arrived[U any] struct {
	Src int // world rank
	Tag int32

	owner            *U
	srcPrev, srcNext *Arrived[U]
	allPrev, allNext *Arrived[U]
}

// Queues are one context's posted receives and unexpected messages.
type Queues[R, U any] struct {
	posted    []postList[R] // by source world rank
	postedAny postList[R]
	unexp     []arrList[U] // by source world rank
	unexpAll  arrList[U]   // arrival order
	nunexp    int
	// live counts posted receives and unexpected messages over all of
	// the engine's contexts; the C fast lane reads them (shm.FastLane).
	live *[2]int64
}

// New returns empty queues for a world of worldSize ranks, counting into
// live (posted, unexpected).
func New[R, U any](worldSize int, live *[2]int64) *Queues[R, U] {
	return &Queues[R, U]{posted: make([]postList[R], worldSize), unexp: make([]arrList[U], worldSize), live: live}
}

// SetLive moves the counting to live, which holds the counts already.
func (q *Queues[R, U]) SetLive(live *[2]int64) { q.live = live }

// TakePosted removes and returns the receive an arrival (src, tag)
// matches, or nil.
func (q *Queues[R, U]) TakePosted(src int, tag int32) *R {
	var a, b *Posted[R]
	for p := q.posted[src].head; p != nil; p = p.next {
		if TagMatches(p.Tag, tag) {
			a = p
			break
		}
	}
	for p := q.postedAny.head; p != nil; p = p.next {
		if a != nil && p.Seq > a.Seq {
			break
		}
		if TagMatches(p.Tag, tag) {
			b = p
			break
		}
	}
	switch {
	case b != nil && (a == nil || b.Seq < a.Seq):
		q.postedAny.remove(b)
		q.live[0]--
		return b.owner
	case a != nil:
		q.posted[src].remove(a)
		q.live[0]--
		return a.owner
	}
	return nil
}

// Post appends p, the key of receive owner, which matched nothing
// unexpected. Its Src, Tag and Seq are set.
func (q *Queues[R, U]) Post(p *Posted[R], owner *R) {
	q.live[0]++
	p.owner = owner
	if p.Src == AnySource {
		q.postedAny.pushBack(p)
	} else {
		q.posted[p.Src].pushBack(p)
	}
}

// HasPosted reports whether any receive is still posted.
func (q *Queues[R, U]) HasPosted() bool {
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

// Unpost removes a posted receive (cancellation, error paths); a receive
// matched already is left alone.
func (q *Queues[R, U]) Unpost(p *Posted[R]) {
	l := &q.postedAny
	if p.Src != AnySource {
		l = &q.posted[p.Src]
	}
	if p.prev == nil && l.head != p {
		return
	}
	l.remove(p)
	q.live[0]--
}

// FindUnexpected returns the oldest unexpected message a receive for
// (src, tag) matches, without removing it.
func (q *Queues[R, U]) FindUnexpected(src, tag int) *U {
	if q.nunexp == 0 {
		return nil
	}
	if src == AnySource {
		for a := q.unexpAll.head; a != nil; a = a.allNext {
			if TagMatches(tag, a.Tag) {
				return a.owner
			}
		}
		return nil
	}
	for a := q.unexp[src].head; a != nil; a = a.srcNext {
		if TagMatches(tag, a.Tag) {
			return a.owner
		}
	}
	return nil
}

// AddUnexpected files a, the envelope of message owner, its Src and Tag
// set, behind every message that arrived before it.
func (q *Queues[R, U]) AddUnexpected(a *Arrived[U], owner *U) {
	a.owner = owner
	q.unexp[a.Src].pushBack(a)
	q.unexpAll.pushBackAll(a)
	q.nunexp++
	q.live[1]++
}

// RemoveUnexpected takes a filed message off both lists.
func (q *Queues[R, U]) RemoveUnexpected(a *Arrived[U]) {
	q.unexp[a.Src].remove(a)
	q.unexpAll.removeAll(a)
	q.nunexp--
	q.live[1]--
}

// Unexpected is the number of unexpected messages in q.
func (q *Queues[R, U]) Unexpected() int { return q.nunexp }

// From yields the unexpected messages from src in arrival order. The
// caller may remove the message it is given and then stop.
func (q *Queues[R, U]) From(src int) iter.Seq[*U] {
	return func(yield func(*U) bool) {
		for a := q.unexp[src].head; a != nil; {
			next := a.srcNext
			if !yield(a.owner) {
				return
			}
			a = next
		}
	}
}

type postList[R any] struct{ head, tail *Posted[R] }

func (l *postList[R]) pushBack(p *Posted[R]) {
	p.prev, p.next = l.tail, nil
	if l.tail != nil {
		l.tail.next = p
	} else {
		l.head = p
	}
	l.tail = p
}

func (l *postList[R]) remove(p *Posted[R]) {
	if p.prev != nil {
		p.prev.next = p.next
	} else {
		l.head = p.next
	}
	if p.next != nil {
		p.next.prev = p.prev
	} else {
		l.tail = p.prev
	}
	p.prev, p.next = nil, nil
}

type arrList[U any] struct{ head, tail *Arrived[U] }

func (l *arrList[U]) pushBack(a *Arrived[U]) {
	a.srcPrev, a.srcNext = l.tail, nil
	if l.tail != nil {
		l.tail.srcNext = a
	} else {
		l.head = a
	}
	l.tail = a
}

func (l *arrList[U]) remove(a *Arrived[U]) {
	if a.srcPrev != nil {
		a.srcPrev.srcNext = a.srcNext
	} else {
		l.head = a.srcNext
	}
	if a.srcNext != nil {
		a.srcNext.srcPrev = a.srcPrev
	} else {
		l.tail = a.srcPrev
	}
	a.srcPrev, a.srcNext = nil, nil
}

func (l *arrList[U]) pushBackAll(a *Arrived[U]) {
	a.allPrev, a.allNext = l.tail, nil
	if l.tail != nil {
		l.tail.allNext = a
	} else {
		l.head = a
	}
	l.tail = a
}

func (l *arrList[U]) removeAll(a *Arrived[U]) {
	if a.allPrev != nil {
		a.allPrev.allNext = a.allNext
	} else {
		l.head = a.allNext
	}
	if a.allNext != nil {
		a.allNext.allPrev = a.allPrev
	} else {
		l.tail = a.allPrev
	}
	a.allPrev, a.allNext = nil, nil
}
