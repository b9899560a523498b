//go:build ompi || mpich

package mpi

// #include "backend_cgo.h"
import "C"

// Matched probes (MPI_Mprobe, MPI_Improbe, MPI_Mrecv, MPI_Imrecv) and send
// cancellation of the system-MPI backend. A Message holds MPI's message
// handle; a probe of ProcNull is answered here without calling MPI, as the
// engine answers it, so the "no process" message needs no MPI handle.

// Message is a message taken by Mprobe or Improbe, to be received with
// Recv or Irecv exactly once. The message of a probe of ProcNull is a
// "no process" message whose receive completes at once, empty.
type Message struct {
	comm   *Comm
	h      C.hy_h
	status Status
	noProc bool
	used   bool
}

// Status is the envelope of the probed message.
func (m *Message) Status() Status { return m.status }

// NoProc reports whether m is the message of a probe of ProcNull.
func (m *Message) NoProc() bool { return m != nil && m.noProc }

var noProcStatus = Status{Source: ProcNull, Tag: AnyTag}

func (c *Comm) mprobe(op string, blocking C.int, source, tag int) (*Message, bool, error) {
	if err := c.checkRecv(op, source, tag); err != nil {
		return nil, false, err
	}
	if source == ProcNull {
		return &Message{comm: c, status: noProcStatus, noProc: true}, true, nil
	}
	var h C.hy_h
	s := C.hy_mprobe(blocking, C.int(source), C.int(tag), c.h, &h)
	if s.err != 0 {
		return nil, false, mpiErr(op, s.err)
	}
	if s.flag == 0 {
		return nil, false, nil
	}
	return &Message{comm: c, h: h, status: st(s)}, true, nil
}

// Improbe is Iprobe that also takes the message: ok false means nothing
// matched (and m is nil).
func (c *Comm) Improbe(source, tag int) (*Message, Status, bool, error) {
	m, ok, err := c.mprobe("Improbe", 0, source, tag)
	if !ok {
		return nil, Status{}, false, err
	}
	return m, m.status, true, nil
}

// Mprobe blocks until a message from source with tag is waiting and takes
// it.
func (c *Comm) Mprobe(source, tag int) (*Message, Status, error) {
	m, ok, err := c.mprobe("Mprobe", 1, source, tag)
	if !ok {
		return nil, Status{}, err
	}
	return m, m.status, nil
}

func (m *Message) take() error {
	if m == nil || m.used {
		return newErr(ErrRequest, "Mrecv", "message is null or already received")
	}
	if !m.noProc {
		if err := m.comm.checkLive("Mrecv"); err != nil {
			return err
		}
	}
	m.used = true
	return nil
}

// Recv receives m into buf (MPI_Mrecv).
func (m *Message) Recv(buf []byte) (Status, error) {
	if err := m.take(); err != nil {
		return Status{}, err
	}
	if m.noProc {
		return noProcStatus, nil
	}
	s := C.hy_mrecv(ptr(buf), C.longlong(len(buf)), &m.h)
	return stIn(s, len(buf)), mpiErr("Mrecv", s.err)
}

// Irecv starts the receive of m into buf (MPI_Imrecv).
func (m *Message) Irecv(buf []byte) (*Request, error) {
	return m.irecvIn(nil, buf)
}

// irecvIn is Irecv recycling old when it is a spent request.
func (m *Message) irecvIn(old *Request, buf []byte) (*Request, error) {
	if err := m.take(); err != nil {
		return nil, err
	}
	r := start(old, "Mrecv", buf)
	if m.noProc {
		r.unpin()
		r.h, r.done, r.st = hReqNull, true, noProcStatus
		return r, nil
	}
	return r.started(C.hy_imrecv(ptr(buf), C.longlong(len(buf)), &m.h))
}

// cancelSend asks to cancel the send r (MPI_Cancel). It reports whether r
// is cancelled at once; otherwise r completes later, with Status.Cancelled
// set if the cancel won. Many MPIs cannot take back a send that has left
// (Open MPI never does): the send then completes normally.
func (r *Request) cancelSend() bool {
	if r == nil || r.spent || r.done || r.join != nil || (r.op != "Isend" && r.op != "Issend") {
		return false
	}
	s := C.hy_cancel_send(&r.h)
	if s.err != 0 || s.flag == 0 {
		return false
	}
	r.finish(s)
	return r.st.Cancelled
}
