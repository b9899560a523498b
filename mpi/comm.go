//go:build !ompi && !mpich

package mpi

import "math"

// Special ranks, tags and values (public names, as in MPI).
const (
	AnySource = -1
	AnyTag    = -1
	ProcNull  = -2
	Undefined = -32766
	// TagUB is the largest valid tag.
	TagUB = math.MaxInt32
)

// Status describes a received (or probed) message.
type Status struct {
	Source int // rank in the communicator the message was received on
	Tag    int
	Count  int // bytes received (or, from Probe, bytes of the pending message)
	// Cancelled is set when the operation was cancelled (MPI_Cancel, through
	// the C ABI) instead of completing.
	Cancelled bool
}

// Comm is a communicator: a group of ranks and a context that keeps its
// traffic apart from every other communicator's.
type Comm struct {
	e     *engine
	ctx   uint32 // point-to-point context; ctx+1 carries its collectives
	rank  int
	size  int
	world []int // communicator rank → world rank; nil means identity
	freed bool
	// Collectives (coll.go): the sequence number of the last one started,
	// guarded by e.mu, and for CreateGroup's scratch communicators the
	// tag bits that keep them apart from the parent's own collectives.
	collSeq uint32
	tagBase int
	// collFree holds finished collective control entries for reuse
	// (coll.go); guarded by e.mu.
	collFree []*collOp
	// memo holds the control entries of the last collectives of
	// different shapes, schedules built (coll_memo.go); memoClock orders
	// the slots' use, memoHits counts the calls that ran an entry again.
	// Guarded by e.mu.
	memo      [memoSlots]memoEntry
	memoHint  [memoKinds]uint8 // per kind, the slot its last entry went to
	memoClock uint64
	memoHits  uint64
	// cp is c's C plan area (coll_cplan.go), nil until the C ABI asks.
	cp *cplanState
	// directRuns counts the collectives the direct run finished
	// (coll_direct.go). Guarded by e.mu.
	directRuns uint64
	// replays counts the collectives the replay finished
	// (coll_replay.go), also counted in directRuns. Guarded by e.mu.
	replays uint64
	// nbDefer: C nonblocking starts defer their receives
	// (coll_cstart.go). Guarded by e.mu.
	nbDefer bool
	// private communicators belong to engines outside Init/Finalize
	// (calibration) and are usable regardless of the process's MPI state.
	private bool
	// inter is set on an intercommunicator (intercomm.go).
	inter *interPart
	// bsend is the buffer MPI_Comm_attach_buffer gave c (bsend.go);
	// guarded by e.mu.
	bsend *bsendState
	// gate is c's gate for small collectives (coll_gate.go); guarded by
	// e.mu.
	gate commGate
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

// worldOf maps a rank of c (already validated) to a world rank.
func (c *Comm) worldOf(r int) int {
	if c.world == nil {
		return r
	}
	return c.world[r]
}

// rankOf maps a world rank back to a rank of c (Undefined if not a member).
func (c *Comm) rankOf(w int) int {
	if c == nil || c.world == nil {
		return w
	}
	for i, x := range c.world {
		if x == w {
			return i
		}
	}
	return Undefined
}

// check validates the communicator every operation but point-to-point
// starts from: the collectives and communicator constructors, which
// intercommunicators do not support unless they say so.
func (c *Comm) check(op string) error {
	if err := c.checkLive(op); err != nil {
		return err
	}
	if c.inter != nil {
		return newErr(ErrComm, op, "not supported on an intercommunicator")
	}
	return nil
}

// checkLive validates a communicator of either kind.
func (c *Comm) checkLive(op string) error {
	if c == nil {
		return newErr(ErrComm, op, "nil communicator")
	}
	if c.freed {
		return newErr(ErrComm, op, "communicator has been freed")
	}
	if !active.Load() && !c.private {
		return newErr(ErrNotInitialized, op, "MPI is not initialized, or already finalized")
	}
	return nil
}

func (c *Comm) checkDest(op string, dest, tag int) error {
	if err := c.checkLive(op); err != nil {
		return err
	}
	if n := c.peers(); dest != ProcNull && (dest < 0 || dest >= n) {
		return newErr(ErrRank, op, "destination %d not in communicator of size %d", dest, n)
	}
	if tag < 0 || tag > TagUB {
		return newErr(ErrTag, op, "tag %d (valid: 0..%d)", tag, TagUB)
	}
	return nil
}

func (c *Comm) checkSource(op string, source, tag int) error {
	if err := c.checkLive(op); err != nil {
		return err
	}
	if n := c.peers(); source != ProcNull && source != AnySource && (source < 0 || source >= n) {
		return newErr(ErrRank, op, "source %d not in communicator of size %d", source, n)
	}
	if tag != AnyTag && (tag < 0 || tag > TagUB) {
		return newErr(ErrTag, op, "tag %d (valid: 0..%d or AnyTag)", tag, TagUB)
	}
	return nil
}
