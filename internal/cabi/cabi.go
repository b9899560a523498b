// Package cabi is the engine's support for the C ABI (cmd/libmpi_abi) and
// the tuner (hympi-info --tune): operations MPI has and package mpi's Go
// API leaves out on purpose. It is internal so that only this module's
// commands and tests can call them.
package cabi

import (
	"fmt"

	"github.com/hympi/hympi/internal/calib"
	"github.com/hympi/hympi/internal/enginehook"
	"github.com/hympi/hympi/mpi"
)

// typed gives a hook its signature. Package mpi's init has run before this
// package's (it is imported), so a missing or mistyped hook is a build
// mistake and panics at start-up rather than on first use.
func typed[F any](name string, v any) F {
	f, ok := v.(F)
	if !ok {
		panic(fmt.Sprintf("cabi: enginehook.%s is %T, not %T", name, v, f))
	}
	return f
}

type xfer = func(*mpi.Comm, *mpi.Request, []byte, int, int) (*mpi.Request, error)

var (
	peek          = typed[func(*mpi.Request) (mpi.Status, bool, error)]("Peek", enginehook.Peek)
	cancelRecv    = typed[func(*mpi.Request) bool]("CancelRecv", enginehook.CancelRecv)
	cancelSend    = typed[func(*mpi.Request) bool]("CancelSend", enginehook.CancelSend)
	waitallInto   = typed[func([]*mpi.Request, []mpi.Status, []error) error]("WaitallInto", enginehook.WaitallInto)
	testallInto   = typed[func([]*mpi.Request, []mpi.Status) (bool, error)]("TestallInto", enginehook.TestallInto)
	isendIn       = typed[xfer]("IsendIn", enginehook.IsendIn)
	issendIn      = typed[xfer]("IssendIn", enginehook.IssendIn)
	irecvIn       = typed[xfer]("IrecvIn", enginehook.IrecvIn)
	mrecvIn       = typed[func(*mpi.Message, *mpi.Request, []byte) (*mpi.Request, error)]("MrecvIn", enginehook.MrecvIn)
	newJoin       = typed[func() *mpi.Request]("NewJoin", enginehook.NewJoin)
	follow        = typed[func(*mpi.Request, *mpi.Request)]("Follow", enginehook.Follow)
	release       = typed[func(*mpi.Request)]("Release", enginehook.Release)
	interColl     = typed[func(*mpi.Comm, mpi.InterArgs) error]("InterColl", enginehook.InterColl)
	iinterColl    = typed[func(*mpi.Comm, mpi.InterArgs) (*mpi.Request, error)]("IinterColl", enginehook.IinterColl)
	interCollInit = typed[func(*mpi.Comm, mpi.InterArgs) (*mpi.Persistent, error)]("InterCollInit", enginehook.InterCollInit)
)

// Peek reports whether r has completed, and its status, without spending it
// (MPI_Request_get_status). It makes one progress pass when r is pending.
func Peek(r *mpi.Request) (mpi.Status, bool, error) { return peek(r) }

// CancelRecv cancels a receive not yet matched (MPI_Cancel on a receive)
// and reports whether it did; the request then completes with a cancelled
// status.
func CancelRecv(r *mpi.Request) bool { return cancelRecv(r) }

// CancelSend cancels a send whose message no receive has matched yet
// (MPI_Cancel on a send) and reports whether it did.
func CancelSend(r *mpi.Request) bool { return cancelSend(r) }

// WaitallInto is Waitall with one wait for the whole batch and no
// allocation: statuses and errors go to sts[i] and errs[i] (at least
// len(reqs) long); nil entries are skipped. A non-nil result is a failure
// of the wait itself, and then no request has been collected.
func WaitallInto(reqs []*mpi.Request, sts []mpi.Status, errs []error) error {
	return waitallInto(reqs, sts, errs)
}

// TestallInto is Testall writing the statuses into sts (at least len(reqs)
// long): MPI_Testall is often polled in a loop.
func TestallInto(reqs []*mpi.Request, sts []mpi.Status) (bool, error) {
	return testallInto(reqs, sts)
}

// IsendIn, IssendIn and IrecvIn are Isend, Issend and Irecv that may reuse
// old, the request of an operation the caller has completed and collected:
// a C program streaming messages then allocates nothing. old may be nil or
// any request; one that is not safe to reuse is left alone.
func IsendIn(c *mpi.Comm, old *mpi.Request, buf []byte, dest, tag int) (*mpi.Request, error) {
	return isendIn(c, old, buf, dest, tag)
}

func IssendIn(c *mpi.Comm, old *mpi.Request, buf []byte, dest, tag int) (*mpi.Request, error) {
	return issendIn(c, old, buf, dest, tag)
}

func IrecvIn(c *mpi.Comm, old *mpi.Request, buf []byte, source, tag int) (*mpi.Request, error) {
	return irecvIn(c, old, buf, source, tag)
}

// MrecvIn is Message.Irecv reusing old the way IrecvIn does (MPI_Imrecv).
func MrecvIn(m *mpi.Message, old *mpi.Request, buf []byte) (*mpi.Request, error) {
	return mrecvIn(m, old, buf)
}

// NewJoin returns a request that completes when every request it follows
// has, and Release has been called: MPI operations built from several
// engine requests (generalized and partitioned requests, neighbourhood
// exchanges) hand one of these to the user.
func NewJoin() *mpi.Request { return newJoin() }

// Follow makes join wait for child as well.
func Follow(join, child *mpi.Request) { follow(join, child) }

// Release says join will follow no more children.
func Release(join *mpi.Request) { release(join) }

// InterColl, IinterColl and InterCollInit run one collective on an
// intercommunicator, blocking, non-blocking or persistent, as a describes.
func InterColl(c *mpi.Comm, a mpi.InterArgs) error { return interColl(c, a) }

func IinterColl(c *mpi.Comm, a mpi.InterArgs) (*mpi.Request, error) { return iinterColl(c, a) }

func InterCollInit(c *mpi.Comm, a mpi.InterArgs) (*mpi.Persistent, error) {
	return interCollInit(c, a)
}

// Calibrate measures, for each size, the median one-way latency of the
// eager and the direct protocol between two ranks pinned to cpuA and cpuB,
// inside this process (hympi-info --tune). It needs no Init.
func Calibrate(cpuA, cpuB int, sizes []int) ([]calib.Point, error) {
	return enginehook.Calibrate(cpuA, cpuB, sizes)
}
