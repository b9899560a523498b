//go:build !ompi && !mpich

package mpi

import "github.com/hympi/hympi/shm"

// Cancelling sends (MPI_Cancel). A send can be cancelled while the
// receiver has not matched it:
//
//   - still queued here, nothing published: it leaves the queue;
//   - published as a synchronous or rendezvous message, which the receiver
//     files by the send's request id until a receive matches it: a
//     KindCancel asks the receiver to drop it, and the KindCancelReply says
//     whether it did. The send completes as cancelled on a yes; on a no it
//     was matched, and completes normally (the ACK or FIN is on its way);
//   - sent to this rank itself, synchronous and still unexpected.
//
// A standard eager message already in the receiver's channel cannot be
// taken back: the cancel fails and the message is delivered, which the
// standard allows (Test_cancelled is false).

// cancelSend asks to cancel the send r. It reports whether r is cancelled
// at once; when the receiver must confirm, r completes later, with
// Status.Cancelled set if the cancel won.
func (r *Request) cancelSend() bool {
	if r == nil || r.spent || r.kind != reqSend {
		return false
	}
	e := r.e
	e.mu.Lock()
	defer e.mu.Unlock()
	if r.done || r.cancelAsked || r.peer < 0 || r.peer >= e.size {
		return false
	}
	if r.peer == e.rank {
		return e.cancelSelf(r)
	}
	if !r.started && e.unqueue(e.outTo(r.peer), r) {
		if r.direct {
			e.dropDirect(r)
		}
		if r.sync || r.direct {
			e.takeSync(r.syncID)
		}
		e.cancelled(r)
		return true
	}
	if (r.sync && !r.acked) || (r.direct && r.resendID == 0) {
		r.cancelAsked = true
		e.queueCtl(r.peer, shm.Desc{Kind: shm.KindCancel, ReqID: r.syncID})
	}
	return false
}

// unqueue takes r off oc's send queue; false if it is not there.
func (e *engine) unqueue(oc *outChan, r *Request) bool {
	var prev *Request
	for x := oc.Head; x != nil; prev, x = x, x.sendNext {
		if x != r {
			continue
		}
		if prev == nil {
			oc.Head = r.sendNext
		} else {
			prev.sendNext = r.sendNext
		}
		if oc.Tail == r {
			oc.Tail = prev
		}
		r.sendNext = nil
		return true
	}
	return false
}

// dropDirect undoes startDirectSend for a rendezvous send that will not be
// read.
func (e *engine) dropDirect(r *Request) {
	r.pins.Unpin()
	r.direct = false
	e.pendingDirect--
	e.pendingDirectBytes -= len(r.sbuf)
	e.readDone(r.peer)
}

func (e *engine) cancelled(r *Request) {
	r.pushed = true
	r.complete(Status{Source: r.comm.peerRank(r.peer), Tag: r.m.Tag, Cancelled: true}, nil)
}

// cancelSelf cancels a synchronous send to this rank that no receive has
// matched yet.
func (e *engine) cancelSelf(r *Request) bool {
	if !r.sync || r.acked {
		return false
	}
	q := e.queues(r.ctx)
	for u := range q.From(e.rank) {
		if u.selfSender == r {
			q.RemoveUnexpected(&u.Arrived)
			e.freeUnexpected(u)
			e.cancelled(r)
			return true
		}
	}
	return false
}

// cancelAsked answers a peer's KindCancel: drop its message with request id
// id if no receive or matched probe has taken it and it has fully arrived.
func (e *engine) cancelAsked(src int, id uint64) {
	ok := false
	for _, q := range e.ctxs {
		for u := range q.From(src) {
			if (u.rtsID == id || u.syncID == id) && u.flight == nil {
				q.RemoveUnexpected(&u.Arrived)
				e.freeUnexpected(u)
				ok = true
				break
			}
		}
		if ok {
			break
		}
	}
	var tag int32
	if ok {
		tag = 1
	}
	e.queueCtl(src, shm.Desc{Kind: shm.KindCancelReply, ReqID: id, Tag: tag})
}

// cancelAnswered completes a send the receiver dropped; a refusal leaves it
// to complete normally.
func (e *engine) cancelAnswered(id uint64, dropped bool) {
	if !dropped {
		return
	}
	r := e.takeSync(id)
	if r == nil {
		return
	}
	if r.direct {
		e.dropDirect(r)
	}
	e.cancelled(r)
}
