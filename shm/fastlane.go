package shm

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// FastLane is the state that the Go engine and the C ABI's hot path
// (cmd/libmpi_abi/fastlane.c) share inside one process, so that a blocking
// MPI_Send or MPI_Recv of a small message can run in C without entering Go.
// It lives in one anonymous private mapping, not on the Go heap: C keeps its
// address for the life of the job and the Go collector never moves it.
//
// Nothing here is shared with other processes. The two writers (Go under
// the engine lock, C in the application's thread) never run at the same
// time: C runs only while Run is set, and the engine clears Run whenever
// anything besides the calling thread may enter it (MPI_THREAD_MULTIPLE,
// the asynchronous progress goroutine, a fatal error, Finalize). So plain
// loads and stores suffice; the cross-process words C touches (slots,
// summary, doorbell) are the region's own and keep the region's protocol.
//
// Layout (little-endian, byte offsets; cmd/libmpi_abi/fastlane.h repeats it
// and checks flVersion and flEntrySize before trusting it):
//
// Header, one cache line:
//
//	0  u32 version    flVersion; written once at creation.
//	4  u32 run        1 while the C hot path may run; Go writes, C reads.
//	8  u32 checksum   HYMPI_CHECKSUM is on (C never takes that path then).
//	12 u32 oversub    more ranks than CPUs: C does not spin before falling back.
//	16 i32 rank       this process's world rank.
//	20 i32 size       world ranks (entries below).
//	24 i64 posted     receives posted in the engine, all contexts (match.go).
//	32 i64 unexp      unexpected messages the engine holds, all contexts.
//	40 i64 small      largest message C may take (the skew controller counts
//	                  larger ones in Go); Go writes.
//	48 u32 busy       1 while the engine has a collective in flight, sends
//	                  queued or direct reads in progress (what keeps its own
//	                  direct run of a collective off); Go writes, C reads.
//
// Then one entry of flEntrySize bytes per world rank p, at 64+p*256. Its first
// line is the sending side toward p, the second the receiving side from p,
// the third the pair's collective rings (cmd/libmpi_abi/collane.c).
// Go writes every field but the positions and C's counters; addresses point
// into the region, which stays mapped while run is set.
//
//	0   u64 outSlots   address of the slot array of our channel to p (0: not open)
//	8   u64 outN       slots in it (a power of two)
//	16  u64 outPos     the producer's next position: Go's Producer and C advance it
//	24  u64 sumWord    address of p's summary word holding our bit
//	32  u64 bellSeq    address of p's doorbell futex word
//	40  u64 bellSleep  address of p's doorbell sleeper count
//	48  u32 outOpen    1: channel open and nothing queued toward p in Go
//	52  u32 spanMax    largest message C may send to p as a span (span.go), 0: none
//	56  u64 cMsgs      eager messages C sent to p (Counters adds them in); C writes
//	64  u64 inSlots    address of the slot array of p's channel to us (0: unknown)
//	72  u64 inN        slots in it
//	80  u64 inPos      the consumer's next position: Go's Consumer and C advance it
//	88  u64 sndSeq     address of p's doorbell futex word (p may wait for slots)
//	96  u64 sndSleep   address of p's doorbell sleeper count
//	104 u32 inKnown    1: the in fields are set
//	108 u32 inStream   1: a multi-fragment message from p is in progress in Go
//	112 u64 cBytes     eager bytes C sent to p; C writes
//	128 u64 collOut    address of the slot array of our collective ring to p (0: not open)
//	136 u64 collOutPos the collective producer's next position: Go's and C's
//	144 u64 collIn     address of the slot array of p's collective ring to us (0: unknown)
//	152 u64 collInPos  the collective consumer's next position: Go's and C's
//	160 u32 collOpen   1: collective ring open and no collective message queued toward p in Go
//
// Both collective rings have shm.CollSlots slots of shm.CollSlotSize bytes.
type FastLane struct {
	mem  []byte
	size int
}

const (
	flVersion   = 2
	flHeader    = 64
	flEntrySize = 256

	flRun      = 4
	flChecksum = 8
	flOversub  = 12
	flRank     = 16
	flSize     = 20
	flPosted   = 24
	flSmall    = 40
	flBusy     = 48

	feOutSlots  = 0
	feOutN      = 8
	feOutPos    = 16
	feSumWord   = 24
	feBellSeq   = 32
	feBellSleep = 40
	feOutOpen   = 48
	feSpanMax   = 52
	feCMsgs     = 56
	feInSlots   = 64
	feInN       = 72
	feInPos     = 80
	feSndSeq    = 88
	feSndSleep  = 96
	feInKnown   = 104
	feInStream  = 108
	feCBytes    = 112
	feCollOut   = 128
	feCollOPos  = 136
	feCollIn    = 144
	feCollIPos  = 152
	feCollOpen  = 160
)

// NewFastLane maps the fast-lane state of a process that is world rank
// rank of size.
func NewFastLane(rank, size int) (*FastLane, error) {
	n := flHeader + flEntrySize*size
	mem, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, fmt.Errorf("fast lane: map %d bytes: %w", n, err)
	}
	f := &FastLane{mem: mem, size: size}
	*f.u32(flRank) = uint32(rank)
	*f.u32(flSize) = uint32(size)
	*f.i64(flSmall) = InlineMax
	*f.u32(0) = flVersion
	return f, nil
}

// Unmap releases the mapping. Only for a FastLane whose address C never
// received (Addr): C may read it until the process exits.
func (f *FastLane) Unmap() { _ = unix.Munmap(f.mem) }

// Addr is the mapping's address, for C.
func (f *FastLane) Addr() uintptr { return uintptr(unsafe.Pointer(&f.mem[0])) }

func (f *FastLane) u32(off int) *uint32 { return (*uint32)(unsafe.Pointer(&f.mem[off])) }
func (f *FastLane) u64(off int) *uint64 { return (*uint64)(unsafe.Pointer(&f.mem[off])) }
func (f *FastLane) i64(off int) *int64  { return (*int64)(unsafe.Pointer(&f.mem[off])) }

// ent is the offset of peer's entry; peer < size is the caller's invariant
// (a world rank), checked here so a bad one panics rather than writes astray.
func (f *FastLane) ent(peer int) int {
	if uint(peer) >= uint(f.size) {
		panic(fmt.Sprintf("fast lane: peer %d of %d", peer, f.size))
	}
	return flHeader + flEntrySize*peer
}

func flag(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// SetRun says whether the C hot path may run.
func (f *FastLane) SetRun(on bool) { *f.u32(flRun) = flag(on) }

// Run reports what SetRun last said.
func (f *FastLane) Run() bool { return *f.u32(flRun) != 0 }

// SetChecksum and SetOversub record the engine's modes.
func (f *FastLane) SetChecksum(on bool) { *f.u32(flChecksum) = flag(on) }
func (f *FastLane) SetOversub(on bool)  { *f.u32(flOversub) = flag(on) }

// SetSmall bounds the messages C may take.
func (f *FastLane) SetSmall(n int) { *f.i64(flSmall) = int64(min(n, SpanMax)) }

// Counts is the engine's posted and unexpected counts, which its matching
// queues keep up to date.
func (f *FastLane) Counts() *[2]int64 { return (*[2]int64)(unsafe.Pointer(&f.mem[flPosted])) }

// BindOut records our channel to peer and moves p's position into the
// entry, where C advances it too. sum and bell are peer's, self our rank.
func (f *FastLane) BindOut(peer int, p *Producer, sum Summary, self int, bell Doorbell) {
	e := f.ent(peer)
	pos := f.u64(e + feOutPos)
	*pos = *p.pos
	p.pos = pos
	*f.u64(e + feOutSlots) = uint64(uintptr(unsafe.Pointer(&p.slots[0])))
	*f.u64(e + feOutN) = p.n
	*f.u64(e + feSumWord) = uint64(uintptr(unsafe.Pointer(&sum.words[self>>6])))
	*f.u64(e + feBellSeq) = uint64(uintptr(unsafe.Pointer(bell.seq)))
	*f.u64(e + feBellSleep) = uint64(uintptr(unsafe.Pointer(bell.sleepers)))
}

// SetBusy says whether the engine holds work that keeps C's collectives off.
func (f *FastLane) SetBusy(on bool) { *f.u32(flBusy) = flag(on) }

// BindCollOut records our collective ring to peer and moves p's position
// into the entry, where C advances it too.
func (f *FastLane) BindCollOut(peer int, p *Producer) {
	e := f.ent(peer)
	pos := f.u64(e + feCollOPos)
	*pos = *p.pos
	p.pos = pos
	*f.u64(e + feCollOut) = uint64(uintptr(unsafe.Pointer(&p.slots[0])))
}

// BindCollIn records peer's collective ring to us and moves c's position
// into the entry.
func (f *FastLane) BindCollIn(peer int, c *Consumer) {
	e := f.ent(peer)
	pos := f.u64(e + feCollIPos)
	*pos = *c.pos
	c.pos = pos
	*f.u64(e + feCollIn) = uint64(uintptr(unsafe.Pointer(&c.slots[0])))
}

// SetCollOpen says whether C may publish a collective message to peer.
func (f *FastLane) SetCollOpen(peer int, open bool) { *f.u32(f.ent(peer) + feCollOpen) = flag(open) }

// SetOutOpen says whether C may publish to peer: the channel is bound and Go
// has nothing queued that a new message would overtake.
func (f *FastLane) SetOutOpen(peer int, open bool) { *f.u32(f.ent(peer) + feOutOpen) = flag(open) }

// SetSpanMax bounds the messages C may send to peer as spans (the largest
// the engine would send eager whatever the skew controller says).
func (f *FastLane) SetSpanMax(peer, n int) {
	*f.u32(f.ent(peer) + feSpanMax) = uint32(min(max(n, 0), SpanMax))
}

// BindIn records peer's channel to us and moves c's position into the
// entry. bell is peer's doorbell.
func (f *FastLane) BindIn(peer int, c *Consumer, bell Doorbell) {
	e := f.ent(peer)
	pos := f.u64(e + feInPos)
	*pos = *c.pos
	c.pos = pos
	*f.u64(e + feInSlots) = uint64(uintptr(unsafe.Pointer(&c.slots[0])))
	*f.u64(e + feInN) = c.n
	*f.u64(e + feSndSeq) = uint64(uintptr(unsafe.Pointer(bell.seq)))
	*f.u64(e + feSndSleep) = uint64(uintptr(unsafe.Pointer(bell.sleepers)))
	*f.u32(e + feInKnown) = 1
}

// SetInStream says whether a multi-fragment message from peer is in
// progress (then an inline descriptor from peer is corruption Go reports).
func (f *FastLane) SetInStream(peer int, on bool) { *f.u32(f.ent(peer) + feInStream) = flag(on) }

// CSent is what C sent to peer through the fast lane.
func (f *FastLane) CSent(peer int) (msgs, bytes uint64) {
	e := f.ent(peer)
	return *f.u64(e + feCMsgs), *f.u64(e + feCBytes)
}

// FastLaneLayout names every offset of the layout above, for the test that
// holds cmd/libmpi_abi/fastlane.h to it.
func FastLaneLayout() map[string]int {
	return map[string]int{
		"VERSION": flVersion, "HEADER": flHeader, "ENTRY": flEntrySize,
		"RUN": flRun, "OVERSUB": flOversub, "RANK": flRank, "SIZE": flSize,
		"POSTED": flPosted, "UNEXP": flPosted + 8, "SMALL": flSmall,
		"OUT_SLOTS": feOutSlots, "OUT_N": feOutN, "OUT_POS": feOutPos, "SUM_WORD": feSumWord,
		"BELL_SEQ": feBellSeq, "BELL_SLEEP": feBellSleep, "OUT_OPEN": feOutOpen, "C_MSGS": feCMsgs,
		"IN_SLOTS": feInSlots, "IN_N": feInN, "IN_POS": feInPos, "SND_SEQ": feSndSeq,
		"SND_SLEEP": feSndSleep, "IN_KNOWN": feInKnown, "IN_STREAM": feInStream, "C_BYTES": feCBytes,
		"BUSY": flBusy, "COLL_OUT": feCollOut, "COLL_OPOS": feCollOPos, "COLL_IN": feCollIn,
		"COLL_IPOS": feCollIPos, "COLL_OPEN": feCollOpen, "COLL_SLOTS": CollSlots, "COLL_SLOT_SIZE": CollSlotSize,
		"COLL_INLINE_MAX": CollInlineMax, "COLL_CTX": collCtx, "COLL_TAG": collTag, "COLL_LEN": collLen,
		"COLL_RSVD": collRsvd, "COLL_HEADER": collHeader,
		"COLL_MSG_MAX": CollMsgMax, "COLL_SPAN_MAX_SLOTS": CollSpanMaxSlots,
		"SLOT_SIZE": SlotSize, "DESC_KIND": descKind, "DESC_FLAGS": descFlags, "DESC_CTX": descCtx,
		"DESC_TAG": descTag, "DESC_FRAGLEN": descFragLen, "DESC_HEADER": DescHeaderSize,
		"INLINE_MAX": InlineMax, "KIND_INLINE": int(KindInline),
		"SPAN_MAX": SpanMax, "KIND_SPAN": int(KindSpan), "SPAN_HEAD_MAX": SpanHeadMax, "SPAN_NEXT_MAX": SpanNextMax,
		"SPAN_OUT": feSpanMax,
	}
}
