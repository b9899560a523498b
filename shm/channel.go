package shm

import (
	"fmt"
	"math"
	"sync/atomic"

	"golang.org/x/sys/unix"
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

// Channel returns the channel carrying src→dst traffic (src != dst).
func (r *Region) Channel(src, dst int) Channel {
	if src == dst || src < 0 || dst < 0 || src >= r.L.Ranks || dst >= r.L.Ranks {
		panic(fmt.Sprintf("shm: no channel %d→%d in a %d-rank region", src, dst, r.L.Ranks))
	}
	base := r.L.ChannelOff + int64(r.L.channelIndex(src, dst))*r.L.ChannelStride
	return Channel{r: r, Src: src, Dst: dst, base: base}
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
	return &Producer{slots: c.slots(), mask: n - 1, n: n, size: SlotSize}
}

// Consumer returns the receiving end. Exactly one per channel may exist.
func (c Channel) Consumer() *Consumer {
	n := uint64(c.r.L.Slots)
	return &Consumer{slots: c.slots(), mask: n - 1, n: n, size: SlotSize}
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
		i = p.unused
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

// Outstanding is the number of cells the receiver still holds.
func (p *CellPool) Outstanding() int { return int(p.limit) - p.Free() - int(p.tail.Load()-p.head) }

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

// Prefault maps in, writable, the pages of the descriptor rings rank sends
// and receives on, so that first-touch page faults happen here and not in
// the messages of a job's first iterations. The rings rank sends on are
// mapped in whole: a sender writes every slot in turn, so a ring larger
// than prefaultBytes would otherwise fault a page every few messages until
// it has wrapped once, and a write fault on a shared page that nobody has
// touched also allocates and zeroes it. Of the rings rank receives on, whose
// sender maps them in whole, the first prefaultBytes are enough: the pages
// exist by then, and a read fault maps the neighbouring ones with it. It
// writes nothing (MADV_POPULATE_WRITE), so it is safe while peers already
// use the rings; kernels without it just fault lazily.
func (r *Region) Prefault(rank int) {
	for p := 0; p < r.L.Ranks; p++ {
		if p == rank {
			continue
		}
		send, recv := r.Channel(rank, p), r.Channel(p, rank)
		r.populate(send.base+r.L.SlotsOff, send.base+r.L.CollOff)
		r.populate(recv.base+r.L.SlotsOff, min(recv.base+r.L.CollOff, recv.base+r.L.SlotsOff+prefaultBytes))
		for _, c := range []Channel{send, recv} {
			r.populate(c.base+r.L.CollOff, c.base+r.L.CollOff+CollSlots*CollSlotSize)
		}
	}
}

// populate maps in, writable, the pages holding [start, end) of the region.
func (r *Region) populate(start, end int64) {
	_ = unix.Madvise(r.mem[start&^(pageSize-1):end], unix.MADV_POPULATE_WRITE)
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
	return Feedback{c.r.u32At(b), c.r.u32At(b + 4), c.r.u32At(b + 8)}
}

// SetStreak publishes the current streak of messages that waited.
func (f Feedback) SetStreak(n int) {
	v := uint32(min(max(n, 0), math.MaxUint32))
	if f.streak.Load() != v {
		f.streak.Store(v)
	}
}

// Judged counts one verdict: the message waited for the application, or
// its receive was waiting for it.
func (f Feedback) Judged(waited bool) {
	if waited {
		f.waited.Store(f.waited.Load() + 1) // single writer
	} else {
		f.onTime.Store(f.onTime.Load() + 1)
	}
}

// Load reads the streak and both verdict counts (which wrap).
func (f Feedback) Load() (streak int, waited, onTime uint32) {
	return int(f.streak.Load()), f.waited.Load(), f.onTime.Load()
}
