package shm

import (
	"fmt"
	"math"
	"sync/atomic"
)

// Channel is one ordered pair src→dst: the descriptor ring, the sender's
// cell pool and the return ring through which the receiver gives cells back.
//
// Return ring of a channel (receiver → sender):
//
//	entries: uint32 cell indices, written by the receiver (atomic stores)
//	         before it publishes the tail that covers them;
//	tail:    uint64 count of entries ever written; written by the receiver
//	         (release), read by the sender (acquire). The sender's head is
//	         private. The ring has one entry per cell and the sender never
//	         has more than all its cells outstanding, so it cannot overflow.
type Channel struct {
	r        *Region
	Src, Dst int
	base     int64
}

// Limits are the bounds a receiver validates this channel's descriptors with.
func (c Channel) Limits() Limits {
	return Limits{Cells: uint32(c.r.L.CellsPerChannel), CellSize: uint32(c.r.L.CellSize)}
}

func (c Channel) slots() []byte {
	return c.r.bytesAt(c.base+c.r.L.SlotsOff, int64(c.r.L.Slots)*SlotSize)
}

// Producer returns the sending end. Exactly one per channel may exist in the
// job (in the sender's process).
func (c Channel) Producer() *Producer {
	n := uint64(c.r.L.Slots)
	return newProducer(c.slots(), n, SlotSize)
}

// Consumer returns the receiving end. Exactly one per channel may exist.
func (c Channel) Consumer() *Consumer {
	n := uint64(c.r.L.Slots)
	return newConsumer(c.slots(), n, SlotSize)
}

// Cell is the payload area of cell i. Callers pass indices that came from
// their own pool (sender) or through DecodeDesc (receiver), both < the pool.
func (c Channel) Cell(i uint32) []byte {
	cs := int64(c.r.L.CellSize)
	return c.r.bytesAt(c.base+c.r.L.CellsOff+int64(i)*cs, cs)
}

// CellPool is the sender's private view of its cells. Returned cells are
// reused in the order they came back (a FIFO), and cells never used yet are
// taken only when no returned cell is free. So the pool's working set is the
// number of cells actually in flight: a ping-pong keeps reusing one cell,
// while a stream rotates through just enough cells that the receiver's copy
// of each has gone cold by the time the sender overwrites it (rewriting a
// cell the receiver has only just read costs an invalidation per line, which
// measured ~35% slower on streams). The pool also remembers which cells are
// out, so a duplicated or forged return is caught instead of handing one cell
// out twice.
type CellPool struct {
	ring   []atomic.Uint32
	tail   *atomic.Uint64
	head   uint64   // return-ring entries consumed
	queue  []uint32 // returned cells, FIFO: queue[qhead:qhead+qlen] mod len
	qhead  int
	qlen   int
	unused uint32 // cells unused..limit-1 were never handed out
	out    []bool
	limit  uint32
	ch     Channel // whose cells are reserved as they are first handed out
}

// Pool returns the sender's pool for this channel, all cells free.
func (c Channel) Pool() *CellPool {
	n := c.r.L.CellsPerChannel
	return &CellPool{
		ring:  c.r.u32sAt(c.base+c.r.L.RetRingOff, n),
		tail:  c.r.u64At(c.base + c.r.L.RetTailOff),
		queue: make([]uint32, n),
		out:   make([]bool, n),
		limit: uint32(n),
		ch:    c,
	}
}

// Get takes a free cell, collecting returns first.
func (p *CellPool) Get() (uint32, bool, error) {
	if err := p.Collect(); err != nil {
		return 0, false, err
	}
	var i uint32
	switch {
	case p.qlen > 0:
		i = p.queue[p.qhead]
		p.qhead = (p.qhead + 1) % len(p.queue)
		p.qlen--
	case p.unused < p.limit:
		// A cell never used before: reserve its pages first (arena.go),
		// so a full file system is an error here, not a SIGBUS on the copy.
		i = p.unused
		cs := int64(p.ch.r.L.CellSize)
		if err := p.ch.r.reserveRange(p.ch.base+p.ch.r.L.CellsOff+int64(i)*cs, cs); err != nil {
			return 0, false, err
		}
		p.unused++
	default:
		return 0, false, nil
	}
	p.out[i] = true
	return i, true, nil
}

// Collect moves returned cells from the return ring to the free queue.
func (p *CellPool) Collect() error {
	tail := p.tail.Load() // acquire: pairs with ReturnRing.Publish
	if tail-p.head > uint64(p.limit) {
		return fmt.Errorf("%w: return ring claims %d entries", ErrCorrupt, tail-p.head)
	}
	for ; p.head != tail; p.head++ {
		i := p.ring[p.head%uint64(p.limit)].Load()
		if i >= p.limit || !p.out[i] {
			return fmt.Errorf("%w: returned cell %d was not outstanding", ErrCorrupt, i)
		}
		p.out[i] = false
		p.queue[(p.qhead+p.qlen)%len(p.queue)] = i
		p.qlen++
	}
	return nil
}

// Free is the number of cells Get can hand out without new returns.
func (p *CellPool) Free() int { return p.qlen + int(p.limit-p.unused) }

// Untouched is the number of cells never handed out yet: a Get that lowers
// it handed out a cell whose pages are written for the first time.
func (p *CellPool) Untouched() int { return int(p.limit - p.unused) }

// Size is the pool's cell count.
func (p *CellPool) Size() int { return int(p.limit) }

// ReturnRing is the receiver's end of the return ring.
type ReturnRing struct {
	ring      []atomic.Uint32
	tail      *atomic.Uint64
	pending   uint64 // entries written so far
	published uint64 // the tail value last stored
	limit     uint64
}

// Returns gives the receiver's end of this channel's return ring.
func (c Channel) Returns() *ReturnRing {
	n := c.r.L.CellsPerChannel
	rr := &ReturnRing{
		ring:  c.r.u32sAt(c.base+c.r.L.RetRingOff, n),
		tail:  c.r.u64At(c.base + c.r.L.RetTailOff),
		limit: uint64(n),
	}
	rr.pending = rr.tail.Load()
	rr.published = rr.pending
	return rr
}

// Put queues cell i for return; the sender sees it after Publish.
func (rr *ReturnRing) Put(i uint32) {
	rr.ring[rr.pending%rr.limit].Store(i)
	rr.pending++
}

// Publish makes every Put so far visible to the sender. Returns whether
// anything new was published.
func (rr *ReturnRing) Publish() bool {
	if rr.published == rr.pending {
		return false
	}
	rr.published = rr.pending
	rr.tail.Store(rr.pending) // release: the entry stores happen before
	return true
}

// PrefaultIncoming maps in the first slots of the channel's descriptor ring
// and its collective ring, for the receiver that has just found it: their
// sender has reserved and touched them, so a read fault would only map them
// one page at a time during the first messages.
func (c Channel) PrefaultIncoming() {
	r := c.r
	r.populate(c.base+r.L.SlotsOff, min(c.base+r.L.CollOff, c.base+r.L.SlotsOff+prefaultBytes))
	r.populate(c.base+r.L.CollOff, c.base+r.L.CollOff+CollSlots*CollSlotSize)
}

// Feedback is a receiver's report to one sender about that sender's large
// messages: the current streak of messages that waited for the receiving
// application (it was away when they came), and two running counts of
// verdicts, messages that waited and messages whose receive was waiting.
// The counts let a sender tell "nothing new" from "the receiver kept up",
// so it only reacts to fresh information. The words live in the channel's
// control line, next to the return-ring tail, which has the same writer and
// reader.
//
//	writer: the receiver (plain atomic stores, as verdicts come);
//	reader: the sender, when it picks a protocol for a large message.
//
// It is a hint that steers a threshold, not a synchronisation: a stale value
// only delays the sender's reaction by a message.
type Feedback struct{ streak, waited, onTime *atomic.Uint32 }

// Feedback returns the channel's feedback words.
func (c Channel) Feedback() Feedback {
	b := c.base + c.r.L.FeedbackOff
	return Feedback{c.r.u32At(b), c.r.u32At(b + chWaited - chFeedback), c.r.u32At(b + chOnTime - chFeedback)}
}

// SetStreak publishes the current streak of messages that waited.
func (f Feedback) SetStreak(n int) {
	if f.streak == nil {
		return // no channel yet (the zero Feedback)
	}
	v := uint32(min(max(n, 0), math.MaxUint32))
	if f.streak.Load() != v {
		f.streak.Store(v)
	}
}

// Judged counts one verdict: the message waited for the application, or
// its receive was waiting for it.
func (f Feedback) Judged(waited bool) {
	if f.streak == nil {
		return
	}
	if waited {
		f.waited.Store(f.waited.Load() + 1) // single writer
	} else {
		f.onTime.Store(f.onTime.Load() + 1)
	}
}

// Load reads the streak and both verdict counts (which wrap); all zero for
// the zero Feedback, which stands for a channel not made yet.
func (f Feedback) Load() (streak int, waited, onTime uint32) {
	if f.streak == nil {
		return 0, 0, 0
	}
	return int(f.streak.Load()), f.waited.Load(), f.onTime.Load()
}
