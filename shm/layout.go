package shm

import (
	"errors"
	"fmt"
	"math"

	"github.com/hympi/hympi/internal/config"
)

// Fixed geometry. These are part of the layout version: changing one changes
// what a region means, so LayoutVersion must move with it.
const (
	LayoutVersion = 6
	magic         = 0x31677270_6d796811 // arbitrary, checked on attach

	CacheLine = 64
	pageSize  = 4096

	// SlotSize is the size of one descriptor slot: a DescHeaderSize header
	// followed by up to InlineMax bytes of inline payload. A message touches
	// only the lines it fills (a tiny one, one line), and inline delivery
	// beats the cell path (descriptor + cell + return ring) up to about 1 KiB.
	SlotSize = 1024 + CacheLine // a 1 KiB payload still fits inline
	// InlineMax is the largest payload that travels inside its descriptor.
	InlineMax = SlotSize - DescHeaderSize - descExtSize

	// CollSlots and CollSlotSize shape each channel's collective
	// microchannel (coll.go): a ring of its own beside the descriptor ring,
	// so collective traffic never waits behind a point-to-point stream.
	// Four lines hold a 232-byte payload: a barrier's empty message, small
	// broadcasts and reductions, and the 128-byte context bitmap of
	// communicator creation. A message of up to CollMsgMax (8 KiB) spans
	// consecutive slots (coll.go: up to CollSpanMaxSlots = 34 of the 64),
	// so the ring stays 16 KiB a channel and a small message still
	// touches only the lines it fills. Spans changed no byte of the
	// region's layout, only what a collective head's length may say.
	CollSlots    = 64
	CollSlotSize = 4 * CacheLine

	// maxRanks bounds the rank count a header may claim: it keeps every
	// offset computation far from overflow.
	maxRanks = 1 << 14
	// maxSlots caps how far the descriptor ring grows with the pool.
	maxSlots = 1024
	// prefaultBytes is how much of a ring its receiver maps in when it
	// first finds the channel: the slots the first messages use. The
	// sender maps its rings in whole when it creates the channel.
	prefaultBytes = 64 * SlotSize
	// maxArenaBytes caps the arena's address space (arena.go): the file is
	// sparse and every rank maps all of it, so it costs address space, not
	// memory, but 4 TiB keeps a few hundred ranks' mappings far from the
	// 128 TiB a process can address.
	maxArenaBytes = 1 << 42
)

// Config sizes a region. Each field documents its default and the variable
// that overrides it; ConfigFrom applies those variables (package config
// parses them).
type Config struct {
	// BudgetBytes is the memory the job's cell pools are sized by
	// (HYMPI_SHM_BUDGET, bytes; default 256 MiB). It is divided among the
	// pairs expected to talk (expectedPairs: all of them in small jobs,
	// O(n log n) in large ones), so pools shrink as ranks grow. Channels
	// are made when a pair first talks and their cells reserved when first
	// used (arena.go), so the budget is a sizing rule, not memory the job
	// holds from its start.
	BudgetBytes int64
	// MaxPoolBytes caps one channel's pool (default 16 MiB: a window of
	// 16 × 1 MiB fits in flight between a pair in jobs of up to 4 ranks).
	MaxPoolBytes int64
	// MinCells is the floor on cells per channel however many ranks there are
	// (default 8), so every pair can still pipeline.
	MinCells int
	// CellSize is the size of one payload cell (HYMPI_CELL_SIZE, bytes, a
	// multiple of 64; default 32 KiB: big enough to amortise the descriptor,
	// small enough to pipeline the copy-in with the copy-out and to stay in
	// L2).
	CellSize int
	// Slots is the least number of descriptor slots per channel, a power
	// of two (default 64). The ring grows to one slot per cell, up to
	// maxSlots, so that the whole pool can be in flight: a sender ahead of
	// its receiver completes as many eager sends as the cells hold (a window
	// of 16 × 1 MiB with the default 16 MiB pool), not just a ring's worth
	// of fragments.
	Slots int
}

// DefaultConfig returns the defaults, with no environment applied.
func DefaultConfig() Config { return ConfigFrom(config.Defaults()) }

// ConfigFrom sizes a region by the job's knobs (HYMPI_SHM_BUDGET and
// HYMPI_CELL_SIZE, already validated by package config).
func ConfigFrom(k config.Knobs) Config {
	return Config{
		BudgetBytes:  k.ShmBudget,
		MaxPoolBytes: 16 << 20,
		MinCells:     8,
		CellSize:     k.CellSize,
		Slots:        64,
	}
}

// Layout is where everything lives in a region. It is computed
// deterministically from (ranks, slots, cell size, cells per channel), so
// the creator and every attacher derive the same offsets; the header stores
// those four and attach recomputes the rest.
type Layout struct {
	Ranks           int
	Slots           int // descriptor slots per channel (power of two)
	CellSize        int
	CellsPerChannel int

	RankBlockOff  int64 // first rank block
	RankBlockSize int64 // stride between rank blocks
	SummaryWords  int   // uint64 words of the non-empty-channel summary
	DirectOff     int64 // direct-copy bitmap inside a rank block (SummaryWords words)
	TableOff      int64 // incoming-channel table inside a rank block (Ranks uint32 entries, arena.go)
	GateTableOff  int64 // gate table inside a rank block (GateEntries uint64 entries, gate.go)

	ChannelOff    int64 // the arena: first channel slot, also the size of the fixed part
	ChannelStride int64
	ArenaChannels int   // channels the arena can hold
	GateOff       int64 // first gate block (gate.go), after the channel arena
	GateStride    int64 // size of one gate block
	GateBlocks    int   // gate blocks the region can hold
	// Offsets inside one channel.
	RetTailOff  int64 // return-ring tail (own cache line, shared with the feedback word)
	FeedbackOff int64 // receiver's skew verdicts for the sender (Feedback)
	IdentOff    int64 // who the channel is for (arena.go), written once by its sender
	RetRingOff  int64 // return-ring entries, uint32 each
	SlotsOff    int64
	CollOff     int64 // collective microchannel: CollSlots slots of CollSlotSize
	CellsOff    int64

	Size int64 // whole region
}

// NewLayout sizes a region for nranks under cfg.
func NewLayout(nranks int, cfg Config) (Layout, error) {
	if nranks < 1 || nranks > maxRanks {
		return Layout{}, fmt.Errorf("%w: %d ranks (want 1..%d)", ErrConfig, nranks, maxRanks)
	}
	if cfg.CellSize < CacheLine || cfg.CellSize%CacheLine != 0 || cfg.CellSize > 1<<24 {
		return Layout{}, fmt.Errorf("%w: cell size %d", ErrConfig, cfg.CellSize)
	}
	if cfg.Slots < 2 || cfg.Slots&(cfg.Slots-1) != 0 || cfg.Slots > 1<<16 {
		return Layout{}, fmt.Errorf("%w: %d slots (want a power of two)", ErrConfig, cfg.Slots)
	}
	cells := int64(cfg.MinCells)
	if nranks > 1 {
		per := cfg.BudgetBytes / int64(expectedPairs(nranks))
		per = min(per, cfg.MaxPoolBytes)
		cells = max(per/int64(cfg.CellSize), int64(cfg.MinCells))
	}
	if cells < 1 || cells > 1<<20 {
		return Layout{}, fmt.Errorf("%w: %d cells per channel", ErrConfig, cells)
	}
	slots := cfg.Slots
	for slots < int(cells) && slots < maxSlots {
		slots *= 2
	}
	l, err := layoutFor(nranks, slots, cfg.CellSize, int(cells))
	if errors.Is(err, ErrLayout) {
		return Layout{}, fmt.Errorf("%w: %d ranks × %d cells of %d bytes is too large", ErrConfig, nranks, cells, cfg.CellSize)
	}
	return l, err
}

// expectedPairs is how many ordered pairs a job of n ranks is expected to
// make talk, by which the budget is divided among channels: every pair in a
// small job; in a large one, what the collectives' trees, rings and
// recursive-doubling partners use (about 2·log2 n peers per rank each way)
// and a couple of neighbours more.
func expectedPairs(n int) int {
	if n < 1 {
		return 1
	}
	all := n * (n - 1)
	lg := 0
	for 1<<lg < n {
		lg++
	}
	return max(1, min(all, n*(2*lg+2)))
}

// ExpectedPairs is the number of ordered pairs a job of n ranks is expected
// to make talk (what the budget is divided among): all of them up to 8
// ranks, about 2·n·log2 n beyond.
func ExpectedPairs(n int) int { return expectedPairs(n) }

// layoutFor computes every offset from the four values the header stores.
func layoutFor(nranks, slots, cellSize, cells int) (Layout, error) {
	if nranks < 1 || nranks > maxRanks || slots < 2 || slots&(slots-1) != 0 || slots > 1<<16 ||
		cellSize < CacheLine || cellSize%CacheLine != 0 || cellSize > 1<<24 || cells < 1 || cells > 1<<20 {
		return Layout{}, ErrLayout
	}
	l := Layout{Ranks: nranks, Slots: slots, CellSize: cellSize, CellsPerChannel: cells}
	l.SummaryWords = (nranks + 63) / 64
	l.RankBlockOff = headerSize
	// The summary is written by every sender all the time; the direct-copy
	// bitmap is written once at Init and read on every send: separate lines.
	l.DirectOff = rankBlockFixed + alignUp(int64(8*l.SummaryWords), CacheLine)
	// The table is written once per sender and read when a channel is
	// first found: it may share lines with nothing busier than itself.
	l.TableOff = l.DirectOff + alignUp(int64(8*l.SummaryWords), CacheLine)
	l.GateTableOff = l.TableOff + alignUp(int64(4*nranks), CacheLine)
	l.RankBlockSize = l.GateTableOff + 8*GateEntries
	l.ChannelOff = alignUp(l.RankBlockOff+int64(nranks)*l.RankBlockSize, pageSize)

	l.RetTailOff = chRetTail
	l.FeedbackOff = chFeedback
	l.IdentOff = chIdent
	l.RetRingOff = chHeadSize
	l.SlotsOff = alignUp(l.RetRingOff+4*int64(cells), CacheLine)
	l.CollOff = alignUp(l.SlotsOff+int64(slots)*SlotSize, CacheLine)
	l.CellsOff = alignUp(l.CollOff+CollSlots*CollSlotSize, pageSize)
	l.ChannelStride = alignUp(l.CellsOff+int64(cells)*int64(cellSize), pageSize)

	// The arena has room for every ordered pair (a rank's messages to
	// itself never touch the region) unless that passes maxArenaBytes.
	// The bounds on the fields keep these products far from overflow.
	l.ArenaChannels = int(min(int64(l.pairCount()), maxArenaBytes/l.ChannelStride))
	if l.ArenaChannels < l.pairCount() && l.ArenaChannels < 2*nranks {
		return Layout{}, ErrLayout
	}
	if l.ChannelStride > (math.MaxInt64-l.ChannelOff)/int64(max(l.ArenaChannels, 1)) {
		return Layout{}, ErrLayout
	}
	l.GateOff = l.ChannelOff + int64(l.ArenaChannels)*l.ChannelStride
	l.GateStride = alignUp(gateSize(nranks), pageSize)
	l.GateBlocks = gateBlocksFor(nranks)
	l.Size = l.GateOff + int64(l.GateBlocks)*l.GateStride
	return l, nil
}

// pairCount is the number of ordered pairs of distinct ranks.
func (l Layout) pairCount() int { return l.Ranks * (l.Ranks - 1) }

// channelBase is where arena channel k starts.
func (l Layout) channelBase(k int) int64 { return l.ChannelOff + int64(k)*l.ChannelStride }

// RingBytes is the part of a channel reserved when it is made: everything
// but the cells, which are reserved one by one as the sender first uses
// them.
func (l Layout) RingBytes() int64 { return l.CellsOff }

// PoolBytes is the cell capacity of one channel: how much payload can be in
// flight from one rank to another before the sender must wait for returns.
func (l Layout) PoolBytes() int64 { return int64(l.CellsPerChannel) * int64(l.CellSize) }

func alignUp(v, a int64) int64 { return (v + a - 1) / a * a }
