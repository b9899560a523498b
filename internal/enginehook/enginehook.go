// Package enginehook carries the operations the C ABI (cmd/libmpi_abi) and
// the tuner (hympi-info --tune) need from package mpi's engine but a Go
// program should not see: request peeking and cancelling, allocation-free
// request batches, join requests, the intercommunicator collectives (and
// their argument type) and calibration.
//
// Package mpi (the engine, or a cgo backend under the ompi/mpich tags)
// stores its functions here from an init function; package internal/cabi
// gives them their real types. The variables are typed any because their
// signatures name package mpi's types, and this package cannot import mpi
// (mpi imports it). Nothing but those two packages should touch them.
package enginehook

import "github.com/hympi/hympi/internal/calib"

// Each variable holds a function whose signature internal/cabi states; a
// mismatch panics when internal/cabi initialises, so every test that
// imports it catches it.
var (
	Peek          any // func(*mpi.Request) (mpi.Status, bool, error)
	TakeDone      any // func(*mpi.Request) bool
	CancelRecv    any // func(*mpi.Request) bool
	CancelSend    any // func(*mpi.Request) bool
	TestallInto   any // func([]*mpi.Request, []mpi.Status) (bool, error)
	FastLaneState any // func(*mpi.Comm) (uintptr, uint32, []int, bool)
	CollPlanArea  any // func(*mpi.Comm) uintptr
	CollPlanRun   any // func(*mpi.Comm, int, int, int, uint64, bool) (*mpi.Request, error)
	SendNow       any // func(*mpi.Comm, []byte, int, int) (bool, error)
	IsendIn       any // func(*mpi.Comm, *mpi.Request, []byte, int, int) (*mpi.Request, error)
	IssendIn      any // same as IsendIn
	IrecvIn       any // same as IsendIn
	MrecvIn       any // func(*mpi.Message, *mpi.Request, []byte) (*mpi.Request, error)
	NewJoin       any // func() *mpi.Request
	Follow        any // func(join, child *mpi.Request)
	Release       any // func(join *mpi.Request)
	InterColl     any // func(*mpi.Comm, InterArgs[mpi.Datatype, mpi.Op]) error
	IinterColl    any // func(*mpi.Comm, InterArgs[mpi.Datatype, mpi.Op]) (*mpi.Request, error)
	InterCollInit any // func(*mpi.Comm, InterArgs[mpi.Datatype, mpi.Op]) (*mpi.Persistent, error)

	// One-sided support: the C library keeps epochs and allocated
	// windows' memory mirrored in C arrays and does some operations there.
	WinDetachAddr        any // func(*mpi.Win, uintptr) error
	WinSharedBase        any // func(*mpi.Win, int) unsafe.Pointer
	WinAccWordAddr       any // func(*mpi.Win, int) unsafe.Pointer
	WinAccessMask        any // func(*mpi.Win, []byte)
	WinDoneRequest       any // func(*mpi.Win) *mpi.Request
	WinRing              any // func(*mpi.Win)
	WinPutSegs           any // func(*mpi.Win, []byte, int, int, []Seg) error
	WinGetSegs           any // same as WinPutSegs
	WinGetAccumulateSegs any // func(*mpi.Win, []byte, []byte, mpi.Datatype, mpi.Op, int, int, []Seg) error

	// Buffered sends attached to a session (MPI_Session_attach_buffer).
	SessionBufferIflush any // func(key int) (*mpi.Request, error)

	// A persistent collective in the C collective lane
	// (mpi/coll_cpersist.go).
	PersistPlan    any // func(*mpi.Persistent, unsafe.Pointer) (uint32, int, bool)
	PersistStartAt any // func(*mpi.Persistent, int, uint64) (*mpi.Request, error)
)

// Functions whose signatures name no mpi type need no assertion.
var (
	SessionBufferAttach func(key int, buf []byte, auto bool) error
	SessionBufferDetach func(key int) ([]byte, bool, error)
	SessionBufferForget func(key int)
)

// Seg is one block of a target datatype: Len bytes at Off from the target
// displacement. Operations on a non-contiguous target take the blocks in
// type-map order; the origin bytes fill them in that order.
type Seg struct{ Off, Len int64 }

// GateStats reports, for the engine only (nil under a cgo backend), how
// many communicators this process has agreed to give a gate, how many
// freed gate blocks it took again, and how many blocks the region has
// handed out (mpi/coll_gate.go, shm/gate.go): tests read it to see gates
// being reused.
var GateStats func() (gated, reused uint64, handedOut int)

// Calibrate measures both protocols between two CPUs (hympi-info --tune).
// Its signature names no mpi type, so it needs no assertion.
var Calibrate func(cpuA, cpuB int, sizes []int) ([]calib.Point, error)

// InterKind names a collective on an intercommunicator.
type InterKind int

// The collectives an intercommunicator has (MPI 4.1 §6.2.2). Scan and
// Exscan have no intercommunicator form.
const (
	InterBarrier InterKind = iota
	InterBcast
	InterGather
	InterGatherv
	InterScatter
	InterScatterv
	InterAllgather
	InterAllgatherv
	InterAlltoall
	InterAlltoallv
	InterReduce
	InterAllreduce
	InterReduceScatterBlock
	InterReduceScatter
)

// InterArgs are the arguments of one collective on an intercommunicator,
// D and O being package mpi's Datatype and Op (this package cannot name
// them). Data moves between the groups: each rank's blocks are indexed by
// the ranks of the remote group, and a reduction combines the remote
// group's contributions in their rank order.
//
//   - Bcast: Send at the root, Recv in the other group.
//   - Gather, Scatter, Allgather, Alltoall: the side that holds one block
//     per remote rank splits its buffer into RemoteSize equal blocks.
//   - The v kinds: byte counts and displacements per remote rank,
//     RecvCounts/RecvDispls (Gatherv at the root, Allgatherv, Alltoallv)
//     and SendCounts/SendDispls (Scatterv at the root, Alltoallv).
//   - Reduce, Allreduce: Send reduced with Datatype and Op into Recv.
//   - ReduceScatterBlock: Send holds Size() blocks of len(Recv) bytes; the
//     reduction of the remote group's Send is scattered over this group.
//   - ReduceScatter: as ReduceScatterBlock with RecvCounts (bytes, one per
//     local rank) giving the blocks; Send holds their sum.
//
// Root is the root argument: mpi.Root at the root itself, mpi.ProcNull at
// the other members of its group, the root's rank in the remote group at
// the members of the other group.
type InterArgs[D, O any] struct {
	Kind                                           InterKind
	Root                                           int
	Send, Recv                                     []byte
	SendCounts, SendDispls, RecvCounts, RecvDispls []int
	Datatype                                       D
	Op                                             O
}
