// Package cabi is the engine's support for the C ABI (cmd/libmpi_abi) and
// the tuner (hympi-info --tune): operations MPI has and package mpi's Go
// API leaves out on purpose. It is internal so that only this module's
// commands and tests can call them.
package cabi

import (
	"fmt"
	"unsafe" // also for go:linkname

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
	takeDone      = typed[func(*mpi.Request) bool]("TakeDone", enginehook.TakeDone)
	cancelRecv    = typed[func(*mpi.Request) bool]("CancelRecv", enginehook.CancelRecv)
	cancelSend    = typed[func(*mpi.Request) bool]("CancelSend", enginehook.CancelSend)
	testallInto   = typed[func([]*mpi.Request, []mpi.Status) (bool, error)]("TestallInto", enginehook.TestallInto)
	fastLaneState = typed[func(*mpi.Comm) (uintptr, uint32, []int, bool)]("FastLaneState", enginehook.FastLaneState)
	collPlanArea  = typed[func(*mpi.Comm) uintptr]("CollPlanArea", enginehook.CollPlanArea)
	collPlanRun   = typed[func(*mpi.Comm, int, int, int, uint64, bool) (*mpi.Request, error)]("CollPlanRun", enginehook.CollPlanRun)
	persistPlan   = typed[func(*mpi.Persistent, unsafe.Pointer) (uint32, int, bool)]("PersistPlan", enginehook.PersistPlan)
	persistAt     = typed[func(*mpi.Persistent, int, uint64) (*mpi.Request, error)]("PersistStartAt", enginehook.PersistStartAt)
	sendNow       = typed[func(*mpi.Comm, []byte, int, int) (bool, error)]("SendNow", enginehook.SendNow)
	isendIn       = typed[xfer]("IsendIn", enginehook.IsendIn)
	issendIn      = typed[xfer]("IssendIn", enginehook.IssendIn)
	irecvIn       = typed[xfer]("IrecvIn", enginehook.IrecvIn)
	mrecvIn       = typed[func(*mpi.Message, *mpi.Request, []byte) (*mpi.Request, error)]("MrecvIn", enginehook.MrecvIn)
	newJoin       = typed[func() *mpi.Request]("NewJoin", enginehook.NewJoin)
	follow        = typed[func(*mpi.Request, *mpi.Request)]("Follow", enginehook.Follow)
	release       = typed[func(*mpi.Request)]("Release", enginehook.Release)
	interColl     = typed[func(*mpi.Comm, InterArgs) error]("InterColl", enginehook.InterColl)
	iinterColl    = typed[func(*mpi.Comm, InterArgs) (*mpi.Request, error)]("IinterColl", enginehook.IinterColl)
	interCollInit = typed[func(*mpi.Comm, InterArgs) (*mpi.Persistent, error)]("InterCollInit", enginehook.InterCollInit)

	winDetachAddr        = typed[func(*mpi.Win, uintptr) error]("WinDetachAddr", enginehook.WinDetachAddr)
	winSharedBase        = typed[func(*mpi.Win, int) unsafe.Pointer]("WinSharedBase", enginehook.WinSharedBase)
	winAccWordAddr       = typed[func(*mpi.Win, int) unsafe.Pointer]("WinAccWordAddr", enginehook.WinAccWordAddr)
	winAccessMask        = typed[func(*mpi.Win, []byte)]("WinAccessMask", enginehook.WinAccessMask)
	winDoneRequest       = typed[func(*mpi.Win) *mpi.Request]("WinDoneRequest", enginehook.WinDoneRequest)
	winRing              = typed[func(*mpi.Win)]("WinRing", enginehook.WinRing)
	winPutSegs           = typed[segXfer]("WinPutSegs", enginehook.WinPutSegs)
	winGetSegs           = typed[segXfer]("WinGetSegs", enginehook.WinGetSegs)
	winGetAccumulateSegs = typed[func(*mpi.Win, []byte, []byte, mpi.Datatype, mpi.Op, int, int, []Seg) error]("WinGetAccumulateSegs", enginehook.WinGetAccumulateSegs)

	sessionBufferIflush = typed[func(int) (*mpi.Request, error)]("SessionBufferIflush", enginehook.SessionBufferIflush)
)

type segXfer = func(*mpi.Win, []byte, int, int, []Seg) error

// Seg is one block of a non-contiguous target: Len bytes at Off from the
// target displacement.
type Seg = enginehook.Seg

// Peek reports whether r has completed, and its status, without spending it
// (MPI_Request_get_status). It makes one progress pass when r is pending.
func Peek(r *mpi.Request) (mpi.Status, bool, error) { return peek(r) }

// TakeDone spends r and reports true when it has completed without error
// (after one progress pass if it was pending); otherwise it changes nothing. A
// nonblocking collective that its start call completed then needs no
// request at all (MPI_I* returning the born-done handle).
func TakeDone(r *mpi.Request) bool { return takeDone(r) }

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

// waitallInto is bound to the engine's (or backend's) function directly,
// not through a hook: a call through a function value makes its arguments
// escape, and MPI_Waitall passes scratch arrays on its stack, which would
// then cost an allocation per call. The engine keeps none of the three
// slices past the call, which is what noescape promises (and what the
// compiler proved of the direct call before).
//
//go:linkname waitallInto github.com/hympi/hympi/mpi.waitallInto
//go:noescape
func waitallInto(reqs []*mpi.Request, sts []mpi.Status, errs []error) error

// CompleteCollStarts makes the engine's nonblocking collective starts
// complete at once when the peers' messages are there (rather than
// deferring their receives to the wait), so that TakeDone finds them
// done; the C library calls it before MPI_Init.
//
//go:linkname CompleteCollStarts github.com/hympi/hympi/mpi.completeCollStarts
func CompleteCollStarts()

// CollIdle reports whether r is a nonblocking collective that waits, with
// nothing posted, for a peer's message on a collective ring, alone in the
// engine: the C library then answers MPI_Test of it in C until a
// collective message of one of its peers arrives or is taken.
//
//go:linkname CollIdle github.com/hympi/hympi/mpi.collIdleOf
func CollIdle(r *mpi.Request) bool

// TestallInto is Testall writing the statuses into sts (at least len(reqs)
// long): MPI_Testall is often polled in a loop.
func TestallInto(reqs []*mpi.Request, sts []mpi.Status) (bool, error) {
	return testallInto(reqs, sts)
}

// FastLaneState gives the C hot path (cmd/libmpi_abi/fastlane.c) what it
// needs about c: the address of the process's fast-lane page, c's context
// and its rank-to-world table; ok is false when the fast lane cannot serve c.
func FastLaneState(c *mpi.Comm) (state uintptr, ctx uint32, world []int, ok bool) {
	return fastLaneState(c)
}

// PersistPlan compiles p's schedule into the C plan at dst (the C
// library's memory, laid out as cmd/libmpi_abi/collane.h's hc_cp_plan)
// and gives the context and tag of its messages; ok false when C cannot
// run it.
func PersistPlan(p *mpi.Persistent, dst unsafe.Pointer) (ctx uint32, tag int, ok bool) {
	return persistPlan(p, dst)
}

// PersistStartAt starts p in Go where C's run of its plan stopped: rounds
// before cur done, round cur's transfers in skip done.
func PersistStartAt(p *mpi.Persistent, cur int, skip uint64) (*mpi.Request, error) {
	return persistAt(p, cur, skip)
}

// CollPlanArea is the address of c's C plan area (mpi/coll_cplan.go), 0
// when the C ABI must run c's collectives in Go.
func CollPlanArea(c *mpi.Comm) uintptr { return collPlanArea(c) }

// CollPlanRun continues in Go a collective C started from c's plan number
// plan: tag drawn, rounds before cur done and round cur's transfers in
// skip (tag < 0: nothing done; Go runs it all). nb: return the
// collective's request rather than wait for it.
func CollPlanRun(c *mpi.Comm, plan, tag, cur int, skip uint64, nb bool) (*mpi.Request, error) {
	return collPlanRun(c, plan, tag, cur, skip, nb)
}

// SendNow is MPI_Isend's shortcut: a standard-mode message that can be
// published at once is sent, and SendNow reports true (no request needed);
// else it does nothing and reports false, and the caller starts a request
// with IsendIn, which keeps the order of messages to dest.
func SendNow(c *mpi.Comm, buf []byte, dest, tag int) (bool, error) {
	return sendNow(c, buf, dest, tag)
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

// InterArgs are the arguments of a collective on an intercommunicator
// (the fields: enginehook.InterArgs).
type InterArgs = enginehook.InterArgs[mpi.Datatype, mpi.Op]

// InterKind names a collective on an intercommunicator.
type InterKind = enginehook.InterKind

// The collectives an intercommunicator has.
const (
	InterBarrier            = enginehook.InterBarrier
	InterBcast              = enginehook.InterBcast
	InterGather             = enginehook.InterGather
	InterGatherv            = enginehook.InterGatherv
	InterScatter            = enginehook.InterScatter
	InterScatterv           = enginehook.InterScatterv
	InterAllgather          = enginehook.InterAllgather
	InterAllgatherv         = enginehook.InterAllgatherv
	InterAlltoall           = enginehook.InterAlltoall
	InterAlltoallv          = enginehook.InterAlltoallv
	InterReduce             = enginehook.InterReduce
	InterAllreduce          = enginehook.InterAllreduce
	InterReduceScatterBlock = enginehook.InterReduceScatterBlock
	InterReduceScatter      = enginehook.InterReduceScatter
)

// InterColl, IinterColl and InterCollInit run one collective on an
// intercommunicator, blocking, non-blocking or persistent, as a describes.
func InterColl(c *mpi.Comm, a InterArgs) error { return interColl(c, a) }

func IinterColl(c *mpi.Comm, a InterArgs) (*mpi.Request, error) { return iinterColl(c, a) }

func InterCollInit(c *mpi.Comm, a InterArgs) (*mpi.Persistent, error) {
	return interCollInit(c, a)
}

// Calibrate measures, for each size, the median one-way latency of the
// eager and the direct protocol between two ranks pinned to cpuA and cpuB,
// inside this process (hympi-info --tune). It needs no Init.
func Calibrate(cpuA, cpuB int, sizes []int) ([]calib.Point, error) {
	return enginehook.Calibrate(cpuA, cpuB, sizes)
}

// WinDetachAddr detaches the memory attached at addr from a dynamic window
// (MPI_Win_detach gets an address, not a slice).
func WinDetachAddr(w *mpi.Win, addr uintptr) error { return winDetachAddr(w, addr) }

// WinSharedBase is where rank r's part of an allocated window is mapped in
// this process (nil when it is not), for C to load and store directly.
func WinSharedBase(w *mpi.Win, r int) unsafe.Pointer { return winSharedBase(w, r) }

// WinAccWordAddr is the address of target t's accumulate mutex word, which
// the C library takes and releases itself.
func WinAccWordAddr(w *mpi.Win, t int) unsafe.Pointer { return winAccWordAddr(w, t) }

// WinAccessMask writes into dst, one byte per rank, which access epochs are
// open toward each target (bit 1) and whether passive (bit 2): C's mirror.
func WinAccessMask(w *mpi.Win, dst []byte) { winAccessMask(w, dst) }

// WinDoneRequest is an already completed request, for an Rput or Rget the
// C library finished itself.
func WinDoneRequest(w *mpi.Win) *mpi.Request { return winDoneRequest(w) }

// WinRing wakes the window's ranks sleeping in a wait, after the C library
// released an accumulate mutex someone waits for.
func WinRing(w *mpi.Win) { winRing(w) }

// WinPutSegs, WinGetSegs and WinGetAccumulateSegs are Put, Get and
// GetAccumulate toward a non-contiguous target: the blocks segs, in order.
func WinPutSegs(w *mpi.Win, origin []byte, t, disp int, segs []Seg) error {
	return winPutSegs(w, origin, t, disp, segs)
}

func WinGetSegs(w *mpi.Win, result []byte, t, disp int, segs []Seg) error {
	return winGetSegs(w, result, t, disp, segs)
}

func WinGetAccumulateSegs(w *mpi.Win, origin, result []byte, dt mpi.Datatype, op mpi.Op, t, disp int, segs []Seg) error {
	return winGetAccumulateSegs(w, origin, result, dt, op, t, disp, segs)
}

// SessionBufferAttach, SessionBufferDetach, SessionBufferIflush and
// SessionBufferForget manage the Bsend buffer of the session key
// (MPI_Session_attach_buffer and friends); Forget drops it when the
// session ends.
func SessionBufferAttach(key int, buf []byte, auto bool) error {
	return enginehook.SessionBufferAttach(key, buf, auto)
}

func SessionBufferDetach(key int) ([]byte, bool, error) { return enginehook.SessionBufferDetach(key) }

func SessionBufferIflush(key int) (*mpi.Request, error) { return sessionBufferIflush(key) }

func SessionBufferForget(key int) { enginehook.SessionBufferForget(key) }
