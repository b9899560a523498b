//go:build ompi || mpich

package mpi

// #include "backend_cgo.h"
import "C"

import (
	"runtime"
	"sync"
	"time"
)

// Join requests of the system-MPI backend: a request that completes once
// its hold is released and every request it follows has completed, in pure
// Go over the followed MPI requests. It has no MPI handle of its own, so
// waits that hand MPI a list of handles treat it apart.

type join struct {
	mu       sync.Mutex
	kids     []*Request
	released chan struct{} // closed by Release
	held     bool
}

// newJoin returns a join request, held: it cannot complete before
// release. nil when MPI is not initialized.
func newJoin() *Request {
	if world == nil || finalized.Load() {
		return nil
	}
	return &Request{h: hReqNull, op: "Join", join: &join{released: make(chan struct{}), held: true}}
}

// follow makes r wait for child as well. child must be a request that
// nothing else follows.
func (r *Request) follow(child *Request) {
	if r == nil || r.join == nil || child == nil {
		return
	}
	r.join.mu.Lock()
	r.join.kids = append(r.join.kids, child)
	r.join.mu.Unlock()
}

// release drops the hold NewJoin placed; r completes when what it follows
// has.
func (r *Request) release() {
	if r == nil || r.join == nil {
		return
	}
	j := r.join
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.held {
		j.held = false
		close(j.released)
	}
}

func (j *join) children() []*Request {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]*Request(nil), j.kids...)
}

// block completes r (without collecting it), waiting as long as needed.
func (r *Request) block() {
	if r.done {
		return
	}
	if r.join == nil {
		r.finish(C.hy_wait(&r.h))
		return
	}
	for _, k := range r.join.children() {
		if !k.spent {
			k.block()
		}
	}
	<-r.join.released
	r.joinDone()
}

// pollJoin is poll for a join request.
func (r *Request) pollJoin() bool {
	for _, k := range r.join.children() {
		if !k.spent && !k.poll() {
			return false
		}
	}
	select {
	case <-r.join.released:
	default:
		return false
	}
	r.joinDone()
	return true
}

// joinDone takes the status of the receive followed (if any) and the
// first error, as the engine does.
func (r *Request) joinDone() {
	r.done, r.st, r.err = true, Status{}, nil
	for _, k := range r.join.children() {
		switch k.op {
		case "Irecv", "Mrecv", "Isendrecv":
			r.st = k.st
		}
		if k.err != nil && r.err == nil {
			r.err = k.err
		}
	}
}

// Isendrecv starts a send to dest and a receive from source at once; the
// request completes when both have, with the receive's status. It is an
// Irecv and an Isend joined, on every MPI: Open MPI 4.1 lacks MPI 4.0's
// MPI_Isendrecv, and MPICH 4.0's completes without filling the status
// (source 0, tag 0, count 0 in C too).
func (c *Comm) Isendrecv(sendbuf []byte, dest, sendtag int, recvbuf []byte, source, recvtag int) (*Request, error) {
	const op = "Isendrecv"
	if err := c.checkSend(op, dest, sendtag); err != nil {
		return nil, err
	}
	if err := c.checkRecv(op, source, recvtag); err != nil {
		return nil, err
	}
	rr, err := c.Irecv(recvbuf, source, recvtag)
	if err != nil {
		return nil, err
	}
	sr, err := c.Isend(sendbuf, dest, sendtag)
	if err != nil {
		if !rr.cancelRecv() {
			rr.Wait()
		}
		return nil, err
	}
	j := newJoin()
	j.follow(rr)
	j.follow(sr)
	j.release()
	return j, nil
}

// waitanyPolling is Waitany over a list holding join requests, which MPI
// cannot wait for: it tests each in turn, backing off to short sleeps.
func waitanyPolling(reqs []*Request) (int, Status, error) {
	for spin := 0; ; spin++ {
		active := false
		for i, r := range reqs {
			if r == nil {
				continue
			}
			active = true
			if r.poll() {
				s, err := r.collect()
				return i, s, err
			}
		}
		if !active {
			return Undefined, Status{}, nil
		}
		if spin < 100 {
			runtime.Gosched()
		} else {
			time.Sleep(50 * time.Microsecond)
		}
	}
}
