//go:build !ompi && !mpich

package mpi

import "slices"

// BsendOverhead is the attached-buffer space each buffered message costs on
// top of its payload, as MPI_BSEND_OVERHEAD: size attached buffers as
// Σ(len(msg) + BsendOverhead).
const BsendOverhead = 64

// bsendState is one buffer attached for Bsend (the process's, a
// communicator's or a session's, MPI 4.1 §3.6) and the blocks of it still
// held by messages not yet handed to their channel. auto is
// MPI_BUFFER_AUTOMATIC: each message gets memory of its own.
type bsendState struct {
	buf  []byte
	auto bool
	used []*bsendBlock // sorted by offset when not auto
}

func (s *bsendState) attached() bool { return s.buf != nil || s.auto }

type bsendBlock struct {
	st     *bsendState
	off, n int
	data   []byte     // an automatic buffer's own memory
	flush  []*Request // flushes waiting for this block to leave
}

// BufferAttach gives MPI a buffer for Bsend to copy messages into. Only one
// buffer may be attached at a time.
func BufferAttach(buf []byte) error { return bufferAttach(nil, -1, buf, false) }

// BufferAttachAutomatic attaches MPI_BUFFER_AUTOMATIC to the process.
func BufferAttachAutomatic() error { return bufferAttach(nil, -1, nil, true) }

// BufferDetach waits until every buffered message has left the attached
// buffer, then detaches and returns it.
func BufferDetach() ([]byte, error) {
	b, _, err := bufferDetach(nil, -1)
	return b, err
}

// BufferDetachAuto is BufferDetach that also says whether the buffer was
// MPI_BUFFER_AUTOMATIC.
func BufferDetachAuto() ([]byte, bool, error) { return bufferDetach(nil, -1) }

// BufferIflush starts waiting for the messages now in the process's buffer
// to leave it; the request completes when they have.
func BufferIflush() (*Request, error) { return bufferIflush(nil, -1) }

// AttachBuffer attaches buf (or, with auto, MPI_BUFFER_AUTOMATIC) to c:
// Bsend on c uses it before the process's.
func (c *Comm) AttachBuffer(buf []byte, auto bool) error { return bufferAttach(c, -1, buf, auto) }

// DetachBuffer waits for c's buffered messages to leave and detaches c's
// buffer.
func (c *Comm) DetachBuffer() ([]byte, bool, error) { return bufferDetach(c, -1) }

// IflushBuffer is BufferIflush for c's buffer.
func (c *Comm) IflushBuffer() (*Request, error) { return bufferIflush(c, -1) }

// sessionBufferAttach attaches a buffer to the session numbered key; the
// functions below are the session forms of the ones above. hympi does not
// track which communicators come from which session, so a Bsend whose
// communicator and process have no buffer uses a session's.
func sessionBufferAttach(key int, buf []byte, auto bool) error {
	return bufferAttach(nil, key, buf, auto)
}

// sessionBufferDetach detaches the session's buffer.
func sessionBufferDetach(key int) ([]byte, bool, error) { return bufferDetach(nil, key) }

// sessionBufferIflush flushes the session's buffer.
func sessionBufferIflush(key int) (*Request, error) { return bufferIflush(nil, key) }

// bufState is the buffer slot of c, of session key (>= 0) or of the
// process. Called with e.mu held; create adds a missing session slot.
func (e *engine) bufState(c *Comm, key int, create bool) *bsendState {
	switch {
	case c != nil:
		if c.bsend == nil && create {
			c.bsend = &bsendState{}
		}
		return c.bsend
	case key >= 0:
		s := e.sessBsend[key]
		if s == nil && create {
			if e.sessBsend == nil {
				e.sessBsend = map[int]*bsendState{}
			}
			s = &bsendState{}
			e.sessBsend[key] = s
		}
		return s
	}
	return &e.bsend
}

func bufEngine(c *Comm, op string) (*engine, error) {
	if c != nil {
		if c.freed {
			return nil, newErr(ErrComm, op, "communicator freed")
		}
		return c.e, nil
	}
	e := theEngine
	if e == nil || !Initialized() || Finalized() {
		return nil, newErr(ErrNotInitialized, op, "MPI is not initialized")
	}
	return e, nil
}

func bufferAttach(c *Comm, key int, buf []byte, auto bool) error {
	e, err := bufEngine(c, "BufferAttach")
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.bufState(c, key, true)
	if s.attached() {
		return newErr(ErrBuffer, "BufferAttach", "a buffer is already attached")
	}
	if !auto && len(buf) == 0 {
		return newErr(ErrBuffer, "BufferAttach", "empty buffer")
	}
	s.buf, s.auto = buf, auto
	return nil
}

func bufferDetach(c *Comm, key int) ([]byte, bool, error) {
	e, err := bufEngine(c, "BufferDetach")
	if err != nil {
		return nil, false, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.bufState(c, key, false)
	if s == nil || !s.attached() {
		return nil, false, newErr(ErrBuffer, "BufferDetach", "no buffer attached")
	}
	if err := e.waitUntil(func() bool { return len(s.used) == 0 }); err != nil {
		return nil, false, err
	}
	b, auto := s.buf, s.auto
	s.buf, s.auto = nil, false
	return b, auto, nil
}

// bufferIflush makes a request that completes when every block now in the
// buffer has been released. A buffer that is not attached has nothing in
// it, so its flush is complete at once (as MPICH and the standard's
// "all messages buffered" reading agree).
func bufferIflush(c *Comm, key int) (*Request, error) {
	e, err := bufEngine(c, "BufferIflush")
	if err != nil {
		return nil, err
	}
	j := &Request{&reqBody{e: e, kind: reqJoin, pending: 1}}
	e.mu.Lock()
	if s := e.bufState(c, key, false); s != nil {
		for _, b := range s.used {
			b.flush = append(b.flush, j)
			j.pending++
		}
	}
	e.mu.Unlock()
	j.release()
	return j, nil
}

// Bsend copies buf into the attached buffer and returns; the message leaves
// from there. It fails with ErrBuffer when the attached buffer lacks room.
func (c *Comm) Bsend(buf []byte, dest, tag int) error {
	if err := c.checkDest("Bsend", dest, tag); err != nil {
		return err
	}
	if dest == ProcNull {
		return nil
	}
	e := c.e
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.fatal != nil {
		return e.fatal
	}
	blk := e.bsendAlloc(c, len(buf)+BsendOverhead)
	if blk == nil {
		return newErr(ErrBuffer, "Bsend", "no room for %d+%d bytes in an attached buffer", len(buf), BsendOverhead)
	}
	w := c.peerWorld(dest)
	if w != e.rank && e.trySendInline(e.outTo(w), c.ctx, tag, buf) {
		e.bsendRelease(blk)
		return nil
	}
	data := blk.data[:len(buf)]
	copy(data, buf)
	r := e.newReq(reqSend)
	r.bsend = blk
	e.startSend(r, c, c.ctx, w, data, tag, false)
	return nil
}

// bsendAlloc takes n bytes from the buffer Bsend on c uses: c's own, else
// the process's, else a session's (see SessionBufferAttach).
func (e *engine) bsendAlloc(c *Comm, n int) *bsendBlock {
	if c.bsend != nil && c.bsend.attached() {
		return c.bsend.alloc(n)
	}
	if e.bsend.attached() {
		return e.bsend.alloc(n)
	}
	for _, s := range e.sessBsend {
		if s.attached() {
			if b := s.alloc(n); b != nil {
				return b
			}
		}
	}
	return nil
}

// alloc finds the first gap of n bytes in s.
func (s *bsendState) alloc(n int) *bsendBlock {
	if s.auto {
		blk := &bsendBlock{st: s, n: n, data: make([]byte, n)}
		s.used = append(s.used, blk)
		return blk
	}
	if s.buf == nil {
		return nil
	}
	off := 0
	for i, b := range s.used {
		if b.off-off >= n {
			blk := &bsendBlock{st: s, off: off, n: n, data: s.buf[off : off+n]}
			s.used = slices.Insert(s.used, i, blk)
			return blk
		}
		off = b.off + b.n
	}
	if len(s.buf)-off < n {
		return nil
	}
	blk := &bsendBlock{st: s, off: off, n: n, data: s.buf[off : off+n]}
	s.used = append(s.used, blk)
	return blk
}

// bsendRelease gives blk's space back and completes the flushes that
// waited for it. Called with e.mu held.
func (e *engine) bsendRelease(blk *bsendBlock) {
	s := blk.st
	if i := slices.Index(s.used, blk); i >= 0 {
		s.used = slices.Delete(s.used, i, i+1)
	}
	for _, j := range blk.flush {
		j.pending--
		j.checkJoin()
	}
	blk.flush, blk.data = nil, nil
}

// sessionBufferForget drops the buffer slot of a finalized session.
func sessionBufferForget(key int) {
	if e := theEngine; e != nil {
		e.mu.Lock()
		delete(e.sessBsend, key)
		e.mu.Unlock()
	}
}
