//go:build ompi || mpich

package mpi

// The MPI 4.1 buffer calls (a communicator's or a session's own Bsend
// buffer, MPI_BUFFER_AUTOMATIC, flushing) have no counterpart in the
// system MPIs this backend builds against (Open MPI 4.1, MPICH 4.0): each
// returns an *Error of class ErrOther saying so, and changes nothing. The
// process-wide BufferAttach/BufferDetach work as on hympi.

func notInThisMPI(op string) error {
	return newErr(ErrOther, op, "not supported by this MPI (an MPI 4.1 buffer call)")
}

// BufferAttachAutomatic would attach MPI_BUFFER_AUTOMATIC (MPI 4.1).
func BufferAttachAutomatic() error { return notInThisMPI("BufferAttachAutomatic") }

// BufferDetachAuto is BufferDetach; a system MPI's buffer is never automatic.
func BufferDetachAuto() ([]byte, bool, error) {
	b, err := BufferDetach()
	return b, false, err
}

// BufferIflush would flush the process's buffer without blocking (MPI 4.1).
func BufferIflush() (*Request, error) { return nil, notInThisMPI("BufferIflush") }

// AttachBuffer would give c a Bsend buffer of its own (MPI 4.1).
func (c *Comm) AttachBuffer(buf []byte, auto bool) error { return notInThisMPI("Comm.AttachBuffer") }

// DetachBuffer would detach c's own buffer (MPI 4.1).
func (c *Comm) DetachBuffer() ([]byte, bool, error) {
	return nil, false, notInThisMPI("Comm.DetachBuffer")
}

// IflushBuffer would flush c's own buffer (MPI 4.1).
func (c *Comm) IflushBuffer() (*Request, error) { return nil, notInThisMPI("Comm.IflushBuffer") }

// sessionBufferAttach serves hympi's C library only.
func sessionBufferAttach(key int, buf []byte, auto bool) error {
	return notInThisMPI("SessionBufferAttach")
}

// sessionBufferDetach serves hympi's C library only.
func sessionBufferDetach(key int) ([]byte, bool, error) {
	return nil, false, notInThisMPI("SessionBufferDetach")
}

// sessionBufferIflush serves hympi's C library only.
func sessionBufferIflush(key int) (*Request, error) { return nil, notInThisMPI("SessionBufferIflush") }

// sessionBufferForget serves hympi's C library only; there is nothing to forget.
func sessionBufferForget(key int) {}
