package shm

import "unsafe"

// The fixed structures of a region as Go types. Nothing is ever read or
// written through these types (the region is reached through offsets and
// atomics, unsafe.go); they exist so that every offset below comes from
// unsafe.Offsetof and the alignment test can walk every field by reflection
// (layout_test.go) instead of a hand-kept list. Sizes are whole cache lines;
// a field's comment names its writer and readers.

// header is the region's first two cache lines.
type header struct {
	// Line 0: written once by Create, immutable after; checksummed.
	Magic    uint64
	Version  uint64
	Ranks    uint64
	Slots    uint64
	CellSize uint64
	Cells    uint64
	Size     uint64
	Checksum uint64 // FNV-1a of the fields before it
	// Line 1: the counters every rank updates, apart from the fields they
	// would otherwise invalidate on every read.
	Attached uint32 // atomic: ranks that attached so far; futex word of WaitAttached
	_        uint32
	Arena    uint64 // atomic: arena channel slots handed out so far (arena.go)
	Gates    uint64 // atomic: gate blocks handed out so far (gate.go)
	_        [CacheLine - 24]byte
}

// rankHead is the fixed start of a rank block: the state line and the
// doorbell line. The summary, the direct-copy bitmap and the channel table,
// whose sizes depend on the rank count, follow (Layout).
type rankHead struct {
	PID       uint32 // written by the rank at attach; read by the launcher
	State     uint32 // RankState, written by the rank; read by the launcher and peers
	AbortCode uint32 // written by the rank before StateAborted
	CPU       int32  // CPU the rank is bound to (-1: unbound), written at attach
	Probe     uint64 // address of a word peers may read to probe direct copy
	_         [CacheLine - 24]byte
	BellSeq   uint32 // futex word: bumped by senders that saw a sleeper
	Sleepers  uint32 // number of the rank's threads armed to sleep
	_         [CacheLine - 8]byte
}

// chanHead is a channel's control line: the words its receiver writes for
// its sender, and the pair's ident, which the sender writes once before it
// publishes the channel (arena.go). The return ring follows on the next
// line.
type chanHead struct {
	RetTail uint64 // return-ring tail: receiver writes (release), sender reads
	Streak  uint32 // Feedback: receiver writes, sender reads
	Waited  uint32
	OnTime  uint32
	_       uint32
	Ident   uint64
	_       [CacheLine - 32]byte
}

const (
	hdrMagic    = int64(unsafe.Offsetof(header{}.Magic))
	hdrVersion  = int64(unsafe.Offsetof(header{}.Version))
	hdrRanks    = int64(unsafe.Offsetof(header{}.Ranks))
	hdrSlots    = int64(unsafe.Offsetof(header{}.Slots))
	hdrCellSize = int64(unsafe.Offsetof(header{}.CellSize))
	hdrCells    = int64(unsafe.Offsetof(header{}.Cells))
	hdrSize     = int64(unsafe.Offsetof(header{}.Size))
	hdrChecksum = int64(unsafe.Offsetof(header{}.Checksum))
	hdrAttached = int64(unsafe.Offsetof(header{}.Attached))
	hdrArena    = int64(unsafe.Offsetof(header{}.Arena))
	hdrGates    = int64(unsafe.Offsetof(header{}.Gates))
	headerSize  = int64(unsafe.Sizeof(header{}))

	rbPID          = int64(unsafe.Offsetof(rankHead{}.PID))
	rbState        = int64(unsafe.Offsetof(rankHead{}.State))
	rbAbortCode    = int64(unsafe.Offsetof(rankHead{}.AbortCode))
	rbCPU          = int64(unsafe.Offsetof(rankHead{}.CPU))
	rbProbe        = int64(unsafe.Offsetof(rankHead{}.Probe))
	rbBellSeq      = int64(unsafe.Offsetof(rankHead{}.BellSeq))
	rbSleepers     = int64(unsafe.Offsetof(rankHead{}.Sleepers))
	rankBlockFixed = int64(unsafe.Sizeof(rankHead{}))
	rbSummary      = rankBlockFixed // uint64 words: bit s set by sender s
	rbDoorbellLen  = rbSleepers + 4 - rbBellSeq

	chRetTail  = int64(unsafe.Offsetof(chanHead{}.RetTail))
	chFeedback = int64(unsafe.Offsetof(chanHead{}.Streak))
	chWaited   = int64(unsafe.Offsetof(chanHead{}.Waited))
	chOnTime   = int64(unsafe.Offsetof(chanHead{}.OnTime))
	// The feedback words, Streak to OnTime, as one area (areas.go).
	chFeedbackLen = chOnTime + 4 - chFeedback
	chIdent       = int64(unsafe.Offsetof(chanHead{}.Ident))
	chHeadSize    = int64(unsafe.Sizeof(chanHead{}))
)
