//go:build !ompi && !mpich

package mpi

// Sends their receivers read. When ranks outnumber CPUs a collective's
// messages up to oversubCollEagerMax go eager (direct.go): the sender
// copies the payload into the pair's cells and is done with it, which
// suits a round whose sender has more rounds to run. A flat broadcast's
// root has nothing else to run: eager, it copies the message once per
// receiver, one after the other on its one CPU, and each receiver copies
// it out again; read by direct copy, the root only publishes where the
// message is, and the receivers read it, each one copy, on whichever CPU
// the scheduler gives them. At 8 ranks on 2 cores (osu_colls from Go,
// alternating runs on a loaded machine) a 1 MiB Bcast read this way took
// about 150-170 µs against 250 eager down the binary tree.

// startReadSend queues r, a collective send of buf to world rank w that
// goes by direct copy whenever the pair allows it and the message is above
// the pair's eager threshold, oversubscribed or not; otherwise as any
// other send.
func (e *engine) startReadSend(r *Request, c *Comm, w int, buf []byte, tag int) {
	r.comm, r.peer, r.sbuf, r.ctx, r.m.Tag, r.sync = c, w, buf, c.ctx+1, tag, false
	oc := e.outTo(w)
	if x := e.ep(w); e.mode == directAuto && x.DirectOK && len(buf) > x.Sk.Base {
		e.startDirectSend(r)
		e.enqueue(oc, r)
		return
	}
	e.enqueueSend(oc, r)
}
