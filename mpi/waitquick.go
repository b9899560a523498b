//go:build !ompi && !mpich

package mpi

import (
	"github.com/hympi/hympi/mpi/internal/match"
	"github.com/hympi/hympi/shm"
)

// waitQuick is Waitall's one pass over a window that needs no wait: it
// settles, in order, the leading requests of reqs that are complete
// already or that the receive lane can take now, and collects each at
// once into sts. osu_bw's sender waits on 64 sends published in their
// Isend (the engine's doneSend), its receiver on 64 lane receives; they
// made three passes over the window before (the lane's takes, the "all
// done?" look and collectAll), each reloading every request and its
// state, ~50 instructions of each message on both sides.
//
// It stops at the first request it cannot settle that way (one still in
// progress outside the lane, a lane receive whose message is not there or
// not for it, a completed request that is not quick) and reports how many
// it settled, k: reqs[:k] are spent and sts[:k] filled, and the caller
// waits for reqs[k:] as before. stuck says it stopped at a lane receive
// the lane could not take after spinning, so that the caller goes
// straight to the general wait instead of asking the lane again; spins
// is how long a take may spin at an empty channel (laneTakeFrom). Quick
// requests have no error, so nothing settled here changes Waitall's
// error. Nothing is settled once the engine has failed (the wait then
// reports the failure with no request collected, as before). sts must be
// all empty statuses on entry, as Waitall's new slice is (a published
// send's status is the empty one, and is not written). Called under
// e.mu.
func (e *engine) waitQuick(reqs []*Request, sts []Status, spins int) (k int, stuck bool) {
	if e.fatal != nil {
		return 0, false
	}
	var t laneTaker
	for ; k < len(reqs); k++ {
		r := reqs[k]
		if r == nil {
			continue
		}
		b := r.reqBody
		if b == &e.doneSend {
			// Its status is the empty one sts[k] holds already.
			r.reqBody = &e.spentBody
			continue
		}
		if !b.done {
			// laneWaitall's take, with its doorbell rule (laneTaker).
			if !b.lane {
				break
			}
			w := b.m.Src
			if e.laneSrc[w].head != r {
				break
			}
			if !t.at(e, w) {
				stuck = true
				break
			}
			if n := e.laneRun(t.ic, w, reqs[k:], sts[k:]); n > 0 {
				t.took = true
				k += n - 1
				continue
			}
			if e.laneTakeFrom(t.ic, r, 0) != 1 && !t.takeSpinning(e, r, spins) {
				stuck = true
				break
			}
			t.took = true
		}
		if !b.quick {
			break // collected by the caller's general pass
		}
		sts[k] = b.status
		e.spendQuick(r, b)
	}
	t.ring()
	return k, stuck
}

// laneRun is the take of waitQuick's commonest case, a run of a window's
// receives from one source whose messages are all in: it settles reqs[0:]
// while each is the next queued receive of world rank w (reqs[0] is the
// head of w's list) and the head of w's channel, ic, holds an inline
// message for it, by laneTakeFrom's rule (its context, a tag it takes,
// no flags, no stream in progress, a length that fits). Each goes
// straight from the slot into sts and its state back to the free list,
// and the run leaves the lane once, at its end: laneTakeFrom's unlink,
// completion and status, and spendQuick's clearing, were ~40 instructions
// of each message. nil entries inside the run are passed over. It
// returns how many entries of reqs it settled or passed over; nothing
// else changes. It stops, for laneTakeFrom and the general wait to
// decide, at anything else: an empty channel, another kind of message,
// a receive not next in the list, one that is not pooled, or one a join
// follows. Called under e.mu, with e.fatal nil.
func (e *engine) laneRun(ic *inChan, w int, reqs []*Request, sts []Status) int {
	if ic.Cur != nil {
		return 0
	}
	l := &e.laneSrc[w]
	cur := l.head
	i, taken := 0, 0
	for ; i < len(reqs); i++ {
		r := reqs[i]
		if r == nil {
			continue
		}
		if r != cur {
			break
		}
		b := r.reqBody
		if !b.pool || b.parent != nil {
			break
		}
		slot := ic.Cons.Head()
		if slot == nil {
			break
		}
		ctx, tag, n, ok := shm.DecodeInline(slot)
		if !ok || ctx != b.ctx || !match.TagMatches(b.m.Tag, tag) || int(n) > len(b.buf) {
			break
		}
		shm.CopySmall(b.buf, slot[shm.DescHeaderSize:shm.DescHeaderSize+n])
		ic.Cons.ReleaseHead(slot)
		sts[i] = Status{Source: b.peer, Tag: int(tag), Count: int(n)}
		cur = b.sendNext
		taken++
		// The state goes back as spendQuick leaves one: the fields
		// initRecv and laneQueue set are cleared, and done, quick and
		// status were never set.
		r.reqBody = &e.spentBody
		if len(e.bodyFree) < bodyFreeMax {
			b.buf, b.comm, b.sendNext = nil, nil, nil
			b.m.Src, b.m.Tag, b.m.Seq, b.ctx, b.peer, b.lane = 0, 0, 0, 0, 0, false
			e.bodyFree = append(e.bodyFree, b)
		} else {
			b.spent = true
		}
	}
	if taken == 0 {
		return 0
	}
	// laneUnlink, once for the run.
	if l.head = cur; cur == nil {
		l.tail = nil
	}
	ic.Idle = 0
	e.live[0] -= int64(taken)
	if e.laneN -= taken; e.laneN == 0 {
		for _, x := range e.laneSrcs {
			e.laneSrc[x].listed = false
		}
		e.laneSrcs = e.laneSrcs[:0]
	}
	// A nil entry after the last taken is left to the caller: the run
	// ends at the last request it settled.
	for i > 0 && reqs[i-1] == nil {
		i--
	}
	return i
}
