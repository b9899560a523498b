package directcopy

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// Sentinels. Every failure of a transfer is an *Error wrapping one of them (or
// the raw unix.Errno for errnos not listed here); test with errors.Is. They
// are allocated once, here, so returning them costs nothing.
var (
	// ErrNotPermitted: the kernel refused access to the peer's memory
	// (EPERM): ptrace rules (Yama, different user or user namespace, a
	// non-dumpable peer) or a seccomp filter.
	ErrNotPermitted = errors.New("directcopy: not permitted to access the peer's memory (EPERM)")
	// ErrPeerGone: no such process, or it has exited (ESRCH).
	ErrPeerGone = errors.New("directcopy: peer process does not exist (ESRCH)")
	// ErrBadAddress: part of the local or remote range is not mapped
	// (EFAULT).
	ErrBadAddress = errors.New("directcopy: address range not mapped (EFAULT)")
	// ErrNotSupported: direct copy is unavailable (ENOSYS from a transfer, or
	// a conclusive "no" from a probe, which then also carries an
	// *UnsupportedError).
	ErrNotSupported = errors.New("directcopy: not supported")
	// ErrNoProgress: a call returned 0 bytes without an error; the transfer
	// stops rather than loop forever.
	ErrNoProgress = errors.New("directcopy: transfer made no progress")
)

// Error describes a failed transfer.
type Error struct {
	Op   string  // "process_vm_readv" or "process_vm_writev"
	Pid  int     // the peer
	Addr uintptr // remote address at which the failing call started
	Len  int     // bytes the failing call asked for
	Done int     // bytes transferred by earlier calls of the same transfer
	Err  error   // a sentinel above, or the raw unix.Errno
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s pid=%d addr=%#x len=%d done=%d: %v", e.Op, e.Pid, e.Addr, e.Len, e.Done, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// UnsupportedError is the detail of a conclusive "no" from a probe. It
// matches ErrNotSupported under errors.Is, and unwraps to the failure that
// proved it (an *Error, or nil when a pre-check alone decided).
type UnsupportedError struct {
	Feature string // what is unavailable, e.g. "process_vm_readv"
	Reason  string // why, in words a user can act on
	Err     error  // the underlying failure, if any
}

func (e *UnsupportedError) Error() string {
	return "directcopy: " + e.Feature + " not supported: " + e.Reason
}

// Is makes errors.Is(err, ErrNotSupported) true for every *UnsupportedError.
func (e *UnsupportedError) Is(target error) bool { return target == ErrNotSupported }

func (e *UnsupportedError) Unwrap() error { return e.Err }

// sentinelFor maps a raw errno to the sentinel callers test for.
func sentinelFor(err error) error {
	if errno, ok := err.(unix.Errno); ok {
		switch errno {
		case unix.EPERM:
			return ErrNotPermitted
		case unix.ESRCH:
			return ErrPeerGone
		case unix.EFAULT:
			return ErrBadAddress
		case unix.ENOSYS:
			return ErrNotSupported
		}
	}
	return err
}

// transferError builds the *Error of a failed transfer. It is the only place
// the transfer path allocates, and is kept out of line so the success path
// stays small.
//
//go:noinline
func transferError(o op, pid int, addr uintptr, n, done int, err error) error {
	return &Error{Op: o.String(), Pid: pid, Addr: addr, Len: n, Done: done, Err: sentinelFor(err)}
}
