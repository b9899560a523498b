//go:build !ompi && !mpich

package mpi

import "slices"

// BsendOverhead is the attached-buffer space each buffered message costs on
// top of its payload, as MPI_BSEND_OVERHEAD: size attached buffers as
// Σ(len(msg) + BsendOverhead).
const BsendOverhead = 64

// bsendState is the buffer the user attached for Bsend and the blocks of it
// still held by messages not yet handed to their channel.
type bsendState struct {
	buf  []byte
	used []*bsendBlock // sorted by offset
}

type bsendBlock struct {
	off, n int
}

// BufferAttach gives MPI a buffer for Bsend to copy messages into. Only one
// buffer may be attached at a time.
func BufferAttach(buf []byte) error {
	e := theEngine
	if e == nil || !Initialized() || Finalized() {
		return newErr(ErrNotInitialized, "BufferAttach", "MPI is not initialized")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.bsend.buf != nil {
		return newErr(ErrBuffer, "BufferAttach", "a buffer is already attached")
	}
	if len(buf) == 0 {
		return newErr(ErrBuffer, "BufferAttach", "empty buffer")
	}
	e.bsend.buf = buf
	return nil
}

// BufferDetach waits until every buffered message has left the attached
// buffer, then detaches and returns it.
func BufferDetach() ([]byte, error) {
	e := theEngine
	if e == nil || !Initialized() || Finalized() {
		return nil, newErr(ErrNotInitialized, "BufferDetach", "MPI is not initialized")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.bsend.buf == nil {
		return nil, newErr(ErrBuffer, "BufferDetach", "no buffer attached")
	}
	if err := e.waitUntil(func() bool { return len(e.bsend.used) == 0 }); err != nil {
		return nil, err
	}
	b := e.bsend.buf
	e.bsend.buf = nil
	return b, nil
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
	blk := e.bsendAlloc(len(buf) + BsendOverhead)
	if blk == nil {
		attached := len(e.bsend.buf)
		return newErr(ErrBuffer, "Bsend", "no room for %d+%d bytes in the attached buffer (%d bytes attached)", len(buf), BsendOverhead, attached)
	}
	w := c.peerWorld(dest)
	if w != e.rank && e.trySendInline(e.out[w], c.ctx, tag, buf) {
		e.bsendRelease(blk)
		return nil
	}
	data := e.bsend.buf[blk.off : blk.off+len(buf)]
	copy(data, buf)
	r := e.newReq(reqSend)
	r.bsend = blk
	e.startSend(r, c, c.ctx, w, data, tag, false)
	return nil
}

// bsendAlloc finds the first gap of n bytes in the attached buffer.
func (e *engine) bsendAlloc(n int) *bsendBlock {
	s := &e.bsend
	if s.buf == nil {
		return nil
	}
	off := 0
	for i, b := range s.used {
		if b.off-off >= n {
			blk := &bsendBlock{off: off, n: n}
			s.used = slices.Insert(s.used, i, blk)
			return blk
		}
		off = b.off + b.n
	}
	if len(s.buf)-off < n {
		return nil
	}
	blk := &bsendBlock{off: off, n: n}
	s.used = append(s.used, blk)
	return blk
}

func (e *engine) bsendRelease(blk *bsendBlock) {
	if i := slices.Index(e.bsend.used, blk); i >= 0 {
		e.bsend.used = slices.Delete(e.bsend.used, i, i+1)
	}
}
