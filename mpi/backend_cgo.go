//go:build ompi || mpich

package mpi

/*
#include "backend_cgo.h"
// No function is marked noescape or nocallback: any MPI call may progress
// a pending reduction whose user operator calls back into Go, and the
// callback may move the goroutine's stack, so no buffer MPI sees may live
// there.
*/
import "C"

import (
	"math"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/hympi/hympi/internal/calib"
)

// The system-MPI backend: package mpi's API over Open MPI (-tags ompi) or
// MPICH (-tags mpich) through cgo. The job is started by that MPI's own
// launcher; HYMPI_* settings do not apply. Arguments are checked in Go the
// way the engine checks them, so a bad call gives the same class on every
// build and reaches MPI only when it is valid.

// Special ranks, tags and values (public names, as in MPI).
const (
	AnySource = -1
	AnyTag    = -1
	ProcNull  = -2
	Undefined = -32766
	// TagUB is the largest valid tag.
	TagUB = math.MaxInt32
)

// Group comparison results (MPI_IDENT, MPI_SIMILAR, MPI_UNEQUAL).
const (
	Ident   = 0
	Similar = 2
	Unequal = 3
)

// BsendOverhead is the attached-buffer space each buffered message costs
// on top of its payload, as MPI_BSEND_OVERHEAD: size attached buffers as
// Σ(len(msg) + BsendOverhead).
const BsendOverhead = 64

// Status describes a received (or probed) message.
type Status struct {
	Source int // rank in the communicator the message was received on
	Tag    int
	Count  int // bytes received (or, from Probe, bytes of the pending message)
	// Cancelled is set when the operation was cancelled (MPI_Cancel, through
	// the C ABI) instead of completing (MPI_Test_cancelled).
	Cancelled bool
}

// Comm is a communicator: a group of ranks and a context that keeps its
// traffic apart from every other communicator's.
type Comm struct {
	h     C.hy_h
	rank  int
	size  int
	freed bool
	world bool // World and Self cannot be freed
	// inter is set on an intercommunicator, whose point-to-point partners
	// are the remote ranks (remote of them); collectives on it are refused,
	// as on the engine.
	inter  bool
	remote int
	// nbr is a duplicate of c made at its first neighbourhood collective,
	// whose messages then cannot match the user's receives on c.
	nbr *Comm
}

// Group is an ordered set of processes (world ranks).
type Group struct {
	h    C.hy_h
	rank int
	size int
}

// Request is a pending nonblocking operation. Once Wait or a successful Test
// has returned its status, the request is spent: using it again is an
// ErrRequest error, like MPI_REQUEST_NULL after MPI_Wait.
type Request struct {
	h     C.hy_h
	pin   *runtime.Pinner // the Go buffers MPI holds until completion (pooled)
	done  bool            // completed (h is null) but not yet collected
	spent bool
	st    Status
	err   error
	op    string
	n     int   // buffer length, which bounds a receive's count
	join  *join // set on a join request (newJoin), which has no MPI handle
}

// PeerCounters is what the transport did toward one peer since Init.
type PeerCounters struct {
	Peer                    int
	Relation                string // "self", or how the two ranks share the machine
	Threshold               int    // bytes; current eager→direct switch point toward this peer
	EagerMsgs, DirectMsgs   uint64 // messages sent to this peer by each protocol
	EagerBytes, DirectBytes uint64
	SkewRaises, SkewLowers  uint64 // threshold moves caused by skew feedback
}

var (
	dtHandles  [11]C.hy_h
	opHandles  [10]C.hy_h
	hWorld     C.hy_h
	hSelf      C.hy_h
	hCommNull  C.hy_h
	hGroupNull C.hy_h
	hReqNull   C.hy_h
	bsendOvh   int
	world      *Comm
	self       *Comm
	initMu     sync.Mutex
	// finalized mirrors MPI_Finalized for the argument checks, which
	// must not cost a second cgo call.
	finalized atomic.Bool
	attached  []byte
)

// mpiErr turns an MPI error code into an *Error of the matching class.
func mpiErr(op string, code C.int) error {
	if code == 0 {
		return nil
	}
	var buf [256]C.char
	C.hy_errstr(code, &buf[0], C.int(len(buf)))
	return &Error{Class: ErrorClass(C.hy_class(code)), Op: op, Msg: C.GoString(&buf[0])}
}

// Init joins the job the MPI launcher started (a singleton when started
// directly), with MPI_THREAD_MULTIPLE so goroutines may call MPI.
func Init() error {
	initMu.Lock()
	defer initMu.Unlock()
	if world != nil {
		return newErr(ErrOther, "Init", "already initialized")
	}
	if C.hy_finalized() != 0 {
		return newErr(ErrOther, "Init", "MPI was finalized")
	}
	if err := mpiErr("Init", C.hy_init()); err != nil {
		return err
	}
	var misc [6]C.hy_h
	C.hy_predefined(&dtHandles[0], &opHandles[0], &misc[0])
	hWorld, hSelf, hCommNull, hGroupNull, hReqNull = misc[0], misc[1], misc[2], misc[3], misc[4]
	bsendOvh = int(misc[5])
	var err error
	if world, err = wrapComm("Init", hWorld); err != nil {
		return err
	}
	if self, err = wrapComm("Init", hSelf); err != nil {
		return err
	}
	world.world, self.world = true, true
	return nil
}

func wrapComm(op string, h C.hy_h) (*Comm, error) {
	var rank, size, remote C.int
	if err := mpiErr(op, C.hy_comm_info(h, &rank, &size, &remote)); err != nil {
		return nil, err
	}
	return &Comm{h: h, rank: int(rank), size: int(size), inter: remote > 0, remote: int(remote)}, nil
}

// Finalize leaves the job. No MPI call is valid afterwards.
func Finalize() error {
	initMu.Lock()
	defer initMu.Unlock()
	if world == nil || C.hy_finalized() != 0 {
		return newErr(ErrNotInitialized, "Finalize", "not initialized")
	}
	// Opaque types die with the job; MPICH reports them as leaks otherwise.
	// (They stay valid Datatype values: Size still answers.)
	regMu.Lock()
	for _, h := range opaqueH {
		C.hy_type_free(h)
	}
	regMu.Unlock()
	finalized.Store(true)
	err := mpiErr("Finalize", C.hy_finalize())
	world.freed, self.freed = true, true
	return err
}

// Initialized reports whether Init has succeeded.
func Initialized() bool { return C.hy_initialized() != 0 }

// Finalized reports whether Finalize has completed.
func Finalized() bool { return C.hy_finalized() != 0 }

// Abort terminates the whole job through MPI_Abort.
func Abort(c *Comm, code int) {
	h := hWorld
	if c != nil && !c.freed {
		h = c.h
	}
	if Initialized() && !Finalized() {
		C.hy_abort(h, C.int(code))
	}
	os.Exit(code)
}

// Wtime is MPI_Wtime.
func Wtime() float64 { return float64(C.MPI_Wtime()) }

// Wtick is the resolution of Wtime in seconds.
func Wtick() float64 { return float64(C.MPI_Wtick()) }

// World is the communicator of every rank in the job (nil before Init).
func World() *Comm { return world }

// Self is the communicator holding only this rank (nil before Init).
func Self() *Comm { return self }

// AppNum is MPI_APPNUM: which program of an MPMD job this rank runs (0
// before Init or when the launcher does not say).
func AppNum() int {
	if !Initialized() || Finalized() {
		return 0
	}
	return int(C.hy_appnum())
}

// Counters has no transport to report on a system MPI: every count is
// zero and the relation is "unknown".
func Counters(peer int) PeerCounters {
	if world == nil || peer < 0 || peer >= world.size {
		return PeerCounters{Peer: peer}
	}
	return PeerCounters{Peer: peer, Relation: "unknown"}
}

// Calibrate measures hympi's own protocols, which a system MPI does not
// have: it is unsupported on this backend.
func calibrate(cpuA, cpuB int, sizes []int) ([]calib.Point, error) {
	return nil, newErr(ErrOther, "Calibrate", "unsupported on the system-MPI backend")
}

// check validates an intracommunicator: the engine supports collectives
// and communicator construction on intercommunicators only where it says
// so, and the backend refuses the same calls.
func (c *Comm) check(op string) error {
	if err := c.checkLive(op); err != nil {
		return err
	}
	if c.inter {
		return newErr(ErrComm, op, "not supported on an intercommunicator")
	}
	return nil
}

// checkLive validates a communicator of either kind.
func (c *Comm) checkLive(op string) error {
	if c == nil || c.freed {
		return newErr(ErrComm, op, "nil or freed communicator")
	}
	if finalized.Load() {
		return newErr(ErrNotInitialized, op, "MPI was finalized")
	}
	return nil
}

// Rank is this process's rank in c (-1 for a nil communicator).
func (c *Comm) Rank() int {
	if c == nil {
		return -1
	}
	return c.rank
}

// Size is the number of ranks in c (0 for a nil communicator).
func (c *Comm) Size() int {
	if c == nil {
		return 0
	}
	return c.size
}

func (c *Comm) checkPeer(op string, r int, any bool) error {
	if err := c.checkLive(op); err != nil {
		return err
	}
	n := c.size
	if c.inter {
		n = c.remote
	}
	if r == ProcNull || (any && r == AnySource) || (r >= 0 && r < n) {
		return nil
	}
	return newErr(ErrRank, op, "rank %d not in communicator of size %d", r, n)
}

func checkTag(op string, tag int, any bool) error {
	if (tag >= 0 && tag <= TagUB) || (any && tag == AnyTag) {
		return nil
	}
	return newErr(ErrTag, op, "invalid tag %d", tag)
}

func (c *Comm) checkSend(op string, dest, tag int) error {
	if err := c.checkPeer(op, dest, false); err != nil {
		return err
	}
	return checkTag(op, tag, false)
}

func (c *Comm) checkRecv(op string, src, tag int) error {
	if err := c.checkPeer(op, src, true); err != nil {
		return err
	}
	return checkTag(op, tag, true)
}

// ptr is the address MPI gets for b; never nil, since some MPIs reject a
// null buffer even for zero bytes.
func ptr(b []byte) unsafe.Pointer {
	if cap(b) == 0 {
		return unsafe.Pointer(&zeroByte)
	}
	return unsafe.Pointer(unsafe.SliceData(b))
}

var zeroByte byte

// stIn is the status of a receive into n bytes: after truncation the count
// is what landed in the buffer, as in the engine, not the message's length.
func stIn(s C.hy_st, n int) Status {
	r := st(s)
	r.Count = min(r.Count, n)
	if s.err != 0 && C.hy_class(s.err) == C.int(ErrTruncate) {
		r.Count = n // MPICH reports 0
	}
	return r
}

func st(s C.hy_st) Status {
	return Status{Source: int(s.source), Tag: int(s.tag), Count: int(s.count), Cancelled: s.cancelled != 0}
}

func (c *Comm) send(op string, kind C.int, buf []byte, dest, tag int) error {
	if err := c.checkSend(op, dest, tag); err != nil {
		return err
	}
	return mpiErr(op, C.hy_send(kind, ptr(buf), C.longlong(len(buf)), C.int(dest), C.int(tag), c.h))
}

// Send sends buf to rank dest of c with tag.
func (c *Comm) Send(buf []byte, dest, tag int) error { return c.send("Send", 0, buf, dest, tag) }

// Ssend is a synchronous send: it completes only after the receiver has
// matched the message with a receive.
func (c *Comm) Ssend(buf []byte, dest, tag int) error { return c.send("Ssend", 1, buf, dest, tag) }

// Rsend is a ready-mode send.
func (c *Comm) Rsend(buf []byte, dest, tag int) error { return c.send("Rsend", 2, buf, dest, tag) }

// Bsend copies buf into the attached buffer and returns. It fails with
// ErrBuffer when the attached buffer lacks room.
func (c *Comm) Bsend(buf []byte, dest, tag int) error {
	// MPI's own buffer is larger than the caller's (see BufferAttach), so
	// what the caller's could never hold is refused here.
	initMu.Lock()
	none, room := attached == nil, len(attached)
	initMu.Unlock()
	if dest != ProcNull && (none || len(buf)+BsendOverhead > room) {
		if err := c.checkSend("Bsend", dest, tag); err != nil {
			return err
		}
		return newErr(ErrBuffer, "Bsend", "%d bytes do not fit the attached buffer of %d", len(buf), room)
	}
	return c.send("Bsend", 3, buf, dest, tag)
}

// BufferAttach gives MPI a buffer for Bsend to copy messages into. Only one
// buffer may be attached at a time. MPI gets a C buffer sized for the
// messages buf could hold under hympi's BsendOverhead, with this MPI's own
// overhead, so Go memory is never held by MPI.
func BufferAttach(buf []byte) error {
	if !Initialized() || Finalized() {
		return newErr(ErrNotInitialized, "BufferAttach", "call Init first")
	}
	initMu.Lock()
	defer initMu.Unlock()
	if attached != nil {
		return newErr(ErrBuffer, "BufferAttach", "a buffer is already attached")
	}
	n := len(buf) + (len(buf)/BsendOverhead+1)*max(bsendOvh, BsendOverhead)
	var p unsafe.Pointer
	if err := mpiErr("BufferAttach", C.hy_buffer_attach(C.longlong(n), &p)); err != nil {
		return err
	}
	if buf == nil {
		buf = []byte{}
	}
	attached = buf
	return nil
}

// BufferDetach waits until every buffered message has left the attached
// buffer, then detaches and returns it.
func BufferDetach() ([]byte, error) {
	initMu.Lock()
	defer initMu.Unlock()
	if attached == nil {
		return nil, newErr(ErrBuffer, "BufferDetach", "no buffer attached")
	}
	if err := mpiErr("BufferDetach", C.hy_buffer_detach()); err != nil {
		return nil, err
	}
	b := attached
	attached = nil
	return b, nil
}

// Recv receives a message from source (or AnySource) with tag (or AnyTag)
// into buf. A message longer than buf returns ErrTruncate.
func (c *Comm) Recv(buf []byte, source, tag int) (Status, error) {
	if err := c.checkRecv("Recv", source, tag); err != nil {
		return Status{}, err
	}
	s := C.hy_recv(ptr(buf), C.longlong(len(buf)), C.int(source), C.int(tag), c.h)
	return stIn(s, len(buf)), mpiErr("Recv", s.err)
}

// Sendrecv sends sendbuf to dest and receives into recvbuf from source, as
// if both ran at once.
func (c *Comm) Sendrecv(sendbuf []byte, dest, sendtag int, recvbuf []byte, source, recvtag int) (Status, error) {
	if err := c.checkSend("Sendrecv", dest, sendtag); err != nil {
		return Status{}, err
	}
	if err := c.checkRecv("Sendrecv", source, recvtag); err != nil {
		return Status{}, err
	}
	s := C.hy_sendrecv(ptr(sendbuf), C.longlong(len(sendbuf)), C.int(dest), C.int(sendtag),
		ptr(recvbuf), C.longlong(len(recvbuf)), C.int(source), C.int(recvtag), c.h)
	return stIn(s, len(recvbuf)), mpiErr("Sendrecv", s.err)
}

// Probe blocks until a message from source with tag is waiting, and returns
// its envelope; the message stays to be received.
func (c *Comm) Probe(source, tag int) (Status, error) {
	if err := c.checkRecv("Probe", source, tag); err != nil {
		return Status{}, err
	}
	s := C.hy_probe(1, C.int(source), C.int(tag), c.h)
	return st(s), mpiErr("Probe", s.err)
}

// Iprobe reports whether a message from source with tag is waiting to be
// received, and its envelope, without receiving it.
func (c *Comm) Iprobe(source, tag int) (Status, bool, error) {
	if err := c.checkRecv("Iprobe", source, tag); err != nil {
		return Status{}, false, err
	}
	s := C.hy_probe(0, C.int(source), C.int(tag), c.h)
	return st(s), s.flag != 0, mpiErr("Iprobe", s.err)
}

// fastLaneState is the engine's hook for hympi's own C ABI; a backend has
// no fast lane.
func (c *Comm) fastLaneState() (state uintptr, ctx uint32, world []int, ok bool) {
	return 0, 0, nil, false
}

// No C plans either (the engine's coll_cplan.go).
func (c *Comm) cplanArea() uintptr { return 0 }

func (c *Comm) cplanRun(plan, tag, cur int, skip uint64, nb bool) (*Request, error) {
	return nil, newErr(ErrIntern, "collective", "no C plans under a cgo backend")
}

func (p *Persistent) cplanCompile(dst unsafe.Pointer) (uint32, int, bool) { return 0, 0, false }

func (p *Persistent) startAt(cur int, skip uint64) (*Request, error) {
	return nil, newErr(ErrIntern, "collective", "no C plans under a cgo backend")
}
