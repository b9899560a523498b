package shm

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"unsafe"

	"github.com/hympi/hympi/internal/config"
)

// layoutConfigs are the geometries the layout tests sweep. "odd" has an odd
// cell count and a cell size that is not a power of two, so the return ring
// ends mid-line and the slot array must be realigned after it.
func layoutConfigs(t *testing.T) []struct {
	name string
	cfg  Config
} {
	return []struct {
		name string
		cfg  Config
	}{
		{"default", DefaultConfig()},
		{"small", Config{BudgetBytes: 1 << 20, MaxPoolBytes: 64 << 10, MinCells: 2, CellSize: 256, Slots: 8}},
		{"tiny", tinyConfig},
		{"odd", Config{BudgetBytes: 3<<20 + 7, MaxPoolBytes: 1 << 20, MinCells: 3, CellSize: 4096 + CacheLine, Slots: 16}},
	}
}

// layoutProblems checks every invariant the rest of the package relies on and
// returns what is wrong (nil when nothing is). Offsets are region-relative;
// the mapping starts page-aligned, so region-relative alignment is address
// alignment.
func layoutProblems(l Layout) []string {
	var p []string
	bad := func(format string, args ...any) {
		if len(p) < 20 {
			p = append(p, fmt.Sprintf(format, args...))
		}
	}
	aligned := func(what string, off, a int64) {
		if off%a != 0 {
			bad("%s at %d is not %d-byte aligned", what, off, a)
		}
	}
	line := func(off int64) int64 { return off / CacheLine }

	// Header.
	aligned("header attach counter", hdrAttached, 4)
	if line(hdrAttached) == line(hdrChecksum) || line(hdrAttached) == line(hdrMagic) {
		bad("attach counter shares a cache line with the immutable header fields")
	}
	if hdrAttached+4 > l.RankBlockOff {
		bad("attach counter (%d) runs into the first rank block (%d)", hdrAttached, l.RankBlockOff)
	}

	// Rank blocks.
	if want := (l.Ranks + 63) / 64; l.SummaryWords != want {
		bad("SummaryWords = %d for %d ranks, want %d", l.SummaryWords, l.Ranks, want)
	}
	aligned("rank block size", l.RankBlockSize, CacheLine)
	if rbSummary+8*int64(l.SummaryWords) > l.RankBlockSize {
		bad("summary (%d words at %d) overruns the rank block (%d)", l.SummaryWords, rbSummary, l.RankBlockSize)
	}
	for r := range int64(l.Ranks) {
		b := l.RankBlockOff + r*l.RankBlockSize
		aligned("rank block", b, CacheLine)
		aligned("rank pid", b+rbPID, 4)
		aligned("rank state", b+rbState, 4)
		aligned("rank abort code", b+rbAbortCode, 4)
		aligned("doorbell seq", b+rbBellSeq, 4)
		aligned("doorbell sleepers", b+rbSleepers, 4)
		if line(b+rbPID) != line(b+rbState) || line(b+rbAbortCode) != line(b+rbState) {
			bad("rank %d: pid/state/abort code are not on one line", r)
		}
		if line(b+rbBellSeq)-line(b+rbState) != 1 || line(b+rbSleepers) != line(b+rbBellSeq) {
			bad("rank %d: doorbell line is not the line after the state line", r)
		}
		for w := range int64(l.SummaryWords) {
			off := b + rbSummary + 8*w
			aligned("summary word", off, 8)
			if line(off) <= line(b+rbBellSeq) {
				bad("rank %d: summary word %d shares the doorbell line", r, w)
			}
		}
	}
	blocksEnd := l.RankBlockOff + int64(l.Ranks)*l.RankBlockSize
	if l.RankBlockOff < headerSize || l.ChannelOff < blocksEnd {
		bad("rank blocks [%d,%d) overlap the header or the channels (%d)", l.RankBlockOff, blocksEnd, l.ChannelOff)
	}

	// Inside one channel.
	aligned("first channel", l.ChannelOff, pageSize)
	aligned("channel stride", l.ChannelStride, pageSize)
	aligned("return-ring tail", l.RetTailOff, 8)
	aligned("return ring", l.RetRingOff, 4)
	if line(l.RetTailOff) == line(l.RetRingOff) {
		bad("return-ring tail shares a line with its entries")
	}
	if l.RetTailOff+8 > l.RetRingOff || l.RetRingOff+4*int64(l.CellsPerChannel) > l.SlotsOff ||
		l.SlotsOff+int64(l.Slots)*SlotSize > l.CollOff ||
		l.CollOff+CollSlots*CollSlotSize > l.CellsOff ||
		l.CellsOff+int64(l.CellsPerChannel)*int64(l.CellSize) > l.ChannelStride {
		bad("channel parts overlap: tail %d ring %d(+%d) slots %d(+%d) cells %d(+%d) stride %d",
			l.RetTailOff, l.RetRingOff, 4*l.CellsPerChannel, l.SlotsOff, l.Slots*SlotSize,
			l.CellsOff, l.CellsPerChannel*l.CellSize, l.ChannelStride)
	}
	aligned("slot array", l.SlotsOff, CacheLine)
	aligned("collective slot array", l.CollOff, CacheLine)
	aligned("collective slot size", CollSlotSize, CacheLine)
	aligned("cell array", l.CellsOff, CacheLine)
	aligned("cell size", int64(l.CellSize), CacheLine)

	// The table, after the direct bits and inside the block.
	aligned("channel table", l.TableOff, 4)
	if l.TableOff < l.DirectOff+8*int64(l.SummaryWords) || l.TableOff+4*int64(l.Ranks) > l.RankBlockSize {
		bad("channel table [%d,+%d) overlaps the direct bits or leaves the block (%d)", l.TableOff, 4*l.Ranks, l.RankBlockSize)
	}
	aligned("channel ident", l.IdentOff, 8)
	if l.IdentOff < l.FeedbackOff+12 || l.IdentOff+8 > l.RetRingOff {
		bad("channel ident at %d overlaps the feedback words or the return ring", l.IdentOff)
	}

	// The arena: every slot, by absolute offset (slots are equal, so a
	// few at each end stand for all of them).
	if want := min(l.Ranks*(l.Ranks-1), int(maxArenaBytes/l.ChannelStride)); l.ArenaChannels != want {
		bad("ArenaChannels = %d, want %d", l.ArenaChannels, want)
	}
	type span struct{ lo, hi int64 }
	var spans []span
	for k := range l.ArenaChannels {
		if k >= 4 && k < l.ArenaChannels-4 {
			continue
		}
		base := l.channelBase(k)
		spans = append(spans, span{base, base + l.ChannelStride})
		aligned("channel", base, pageSize)
		aligned("return-ring tail", base+l.RetTailOff, 8)
		aligned("channel ident", base+l.IdentOff, 8)
		aligned("first return-ring entry", base+l.RetRingOff, 4)
		aligned("last return-ring entry", base+l.RetRingOff+4*int64(l.CellsPerChannel-1), 4)
		for s := range int64(l.Slots) {
			aligned("slot publish word", base+l.SlotsOff+s*SlotSize, 8)
		}
		for s := range int64(CollSlots) {
			aligned("collective slot publish word", base+l.CollOff+s*CollSlotSize, 8)
		}
	}
	for k, s := range spans {
		if k == 0 && s.lo < blocksEnd {
			bad("first channel at %d overlaps the rank blocks (end %d)", s.lo, blocksEnd)
		}
		if k > 0 && s.lo < spans[k-1].hi {
			bad("channels [%d,%d) and [%d,%d) overlap", spans[k-1].lo, spans[k-1].hi, s.lo, s.hi)
		}
		if s.hi > l.Size {
			bad("channel [%d,%d) runs past the region (%d)", s.lo, s.hi, l.Size)
		}
	}
	// The gate table, after the channel table and inside the block; the
	// gate blocks, after the last channel.
	aligned("gate table", l.GateTableOff, 8)
	if l.GateTableOff < l.TableOff+4*int64(l.Ranks) || l.GateTableOff+8*GateEntries > l.RankBlockSize {
		bad("gate table [%d,+%d) overlaps the channel table or leaves the block (%d)", l.GateTableOff, 8*GateEntries, l.RankBlockSize)
	}
	aligned("gate blocks", l.GateOff, pageSize)
	aligned("gate stride", l.GateStride, pageSize)
	if l.GateOff != l.ChannelOff+int64(l.ArenaChannels)*l.ChannelStride || l.GateStride < gateSize(l.Ranks) || l.GateBlocks < 1 {
		bad("gate blocks at %d, stride %d for %d ranks, %d blocks", l.GateOff, l.GateStride, l.Ranks, l.GateBlocks)
	}
	for _, w := range []int64{gArrivals, gGen, gRefs, gIdent, gResults, gSlots} {
		aligned("gate word", w, 4)
	}
	if line(gArrivals) == line(gGen) || gIdent+8 > gResults || gResults+2*GateSlotSize > gSlots {
		bad("gate words overlap or share the arrival counter's line")
	}
	if want := l.GateOff + int64(l.GateBlocks)*l.GateStride; l.Size != want || l.Size < l.ChannelOff {
		bad("Size = %d, want %d", l.Size, want)
	}
	if l.RingBytes() != l.CellsOff || l.RingBytes() > l.ChannelStride {
		bad("RingBytes = %d, want the cells' offset %d", l.RingBytes(), l.CellsOff)
	}
	aligned("region size", l.Size, pageSize)
	return p
}

func TestLayoutInvariants(t *testing.T) {
	for _, c := range layoutConfigs(t) {
		t.Run(c.name, func(t *testing.T) {
			for n := 1; n <= 64; n++ {
				l, err := NewLayout(n, c.cfg)
				if err != nil {
					t.Fatalf("NewLayout(%d): %v", n, err)
				}
				if l.Ranks != n || l.CellSize != c.cfg.CellSize {
					t.Errorf("NewLayout(%d) = %+v: does not echo its inputs", n, l)
				}
				// The ring has at least the configured slots and grows to
				// one per cell (capped), so the whole pool can be in flight.
				if l.Slots < c.cfg.Slots || l.Slots&(l.Slots-1) != 0 ||
					(l.Slots < l.CellsPerChannel && l.Slots < maxSlots) || (l.Slots > c.cfg.Slots && l.Slots/2 >= l.CellsPerChannel) {
					t.Errorf("NewLayout(%d): %d slots for %d cells (configured %d)", n, l.Slots, l.CellsPerChannel, c.cfg.Slots)
				}
				if l2, _ := NewLayout(n, c.cfg); l2 != l {
					t.Errorf("NewLayout(%d) is not deterministic: %+v vs %+v", n, l, l2)
				}
				if l3, err := layoutFor(l.Ranks, l.Slots, l.CellSize, l.CellsPerChannel); err != nil || l3 != l {
					t.Errorf("layoutFor from the header fields gives %+v, %v; want %+v", l3, err, l)
				}
				for _, p := range layoutProblems(l) {
					t.Errorf("%d ranks: %s", n, p)
				}
			}
		})
	}
}

// TestLayoutAddresses checks the alignment of the words the package really
// hands out, by address, in mapped regions.
func TestLayoutAddresses(t *testing.T) {
	cfgs := layoutConfigs(t)
	for _, c := range cfgs[1:] { // default is large; its offsets are covered above
		for _, n := range []int{1, 2, 3, 5, 64} {
			if n == 64 && c.name != "tiny" {
				continue
			}
			r := newAnon(t, n, c.cfg)
			if a := uintptr(unsafe.Pointer(&r.mem[0])); a%pageSize != 0 {
				t.Fatalf("%s/%d: mapping at %#x is not page-aligned", c.name, n, a)
			}
			if int64(len(r.mem)) != r.L.Size {
				t.Fatalf("%s/%d: mapping is %d bytes, layout %d", c.name, n, len(r.mem), r.L.Size)
			}
			check := func(what string, p unsafe.Pointer, a uintptr) {
				t.Helper()
				if uintptr(p)%a != 0 {
					t.Errorf("%s/%d ranks: %s at %p is not %d-byte aligned", c.name, n, what, p, a)
				}
			}
			check("attach counter", unsafe.Pointer(r.u32At(hdrAttached)), 4)
			for rank := range n {
				d := r.Doorbell(rank)
				check("doorbell seq", unsafe.Pointer(d.seq), 4)
				check("doorbell sleepers", unsafe.Pointer(d.sleepers), 4)
				s := r.Summary(rank)
				if s.Words() != r.L.SummaryWords {
					t.Errorf("Summary(%d).Words() = %d, want %d", rank, s.Words(), r.L.SummaryWords)
				}
				for w := range s.words {
					check("summary word", unsafe.Pointer(&s.words[w]), 8)
				}
				for dst := range n {
					if dst == rank {
						continue
					}
					ch := r.Channel(rank, dst)
					pool, rr := ch.Pool(), ch.Returns()
					check("return-ring tail (sender)", unsafe.Pointer(pool.tail), 8)
					check("return-ring tail (receiver)", unsafe.Pointer(rr.tail), 8)
					if pool.tail != rr.tail || &pool.ring[0] != &rr.ring[0] {
						t.Errorf("%d→%d: pool and return ring see different words", rank, dst)
					}
					for i := range rr.ring {
						check("return-ring entry", unsafe.Pointer(&rr.ring[i]), 4)
					}
					p := ch.Producer()
					for s := range r.L.Slots {
						check("slot publish word", unsafe.Pointer(seqOf(p.slot(uint64(s)))), 8)
					}
					for i := range r.L.CellsPerChannel {
						check("cell", unsafe.Pointer(&ch.Cell(uint32(i))[0]), CacheLine)
					}
				}
			}
		}
	}
}

// TestChannelPlacement checks that Channel(src, dst) lands where the layout
// says, that its views have exactly the layout's extent, and that writing the
// whole of one channel leaves every other channel and every rank block
// untouched.
func TestChannelPlacement(t *testing.T) {
	const n = 4
	r := newAnon(t, n, Config{MinCells: 3, CellSize: 128, Slots: 4})
	l := r.L
	for src := range n {
		for dst := range n {
			if src == dst {
				continue
			}
			k := r.ChannelsUsed()
			ch := r.Channel(src, dst)
			want := l.channelBase(k)
			if ch.base != want || ch.Src != src || ch.Dst != dst || r.ChannelsUsed() != k+1 {
				t.Fatalf("Channel(%d,%d) = base %d src %d dst %d, want base %d", src, dst, ch.base, ch.Src, ch.Dst, want)
			}
			if s := ch.slots(); len(s) != l.Slots*SlotSize || cap(s) != len(s) {
				t.Errorf("%d→%d: slot view len %d cap %d, want %d", src, dst, len(s), cap(s), l.Slots*SlotSize)
			}
			for i := range uint32(l.CellsPerChannel) {
				if c := ch.Cell(i); len(c) != l.CellSize || cap(c) != l.CellSize {
					t.Errorf("%d→%d: cell %d len %d cap %d, want %d", src, dst, i, len(c), cap(c), l.CellSize)
				}
			}
			if lim := ch.Limits(); lim.Cells != uint32(l.CellsPerChannel) || lim.CellSize != uint32(l.CellSize) {
				t.Errorf("%d→%d: Limits = %+v", src, dst, lim)
			}
		}
	}

	// Fill one channel through every view it offers and check nothing else
	// changed.
	ch := r.Channel(2, 1)
	before := bytes.Clone(r.mem)
	for i := range uint32(l.CellsPerChannel) {
		fillBytes(ch.Cell(i), 0xA5)
	}
	fillBytes(ch.slots(), 0x5A)
	pool, rr := ch.Pool(), ch.Returns()
	for range l.CellsPerChannel {
		i, _, _ := pool.Get()
		rr.Put(i)
	}
	rr.Publish()
	lo, hi := ch.base, ch.base+l.ChannelStride
	for off, b := range r.mem {
		if b != before[off] && (int64(off) < lo || int64(off) >= hi) {
			t.Fatalf("writing channel 2→1 [%d,%d) changed byte %d", lo, hi, off)
		}
	}
}

func fillBytes(b []byte, v byte) {
	for i := range b {
		b[i] = v
	}
}

func TestChannelBadPairPanics(t *testing.T) {
	r := newAnon(t, 3, tinyConfig)
	for _, c := range [][2]int{{0, 0}, {2, 2}, {-1, 0}, {0, -1}, {3, 0}, {0, 3}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Channel(%d,%d) did not panic", c[0], c[1])
				}
			}()
			r.Channel(c[0], c[1])
		}()
	}
	for _, rank := range []int{-1, 3} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Doorbell(%d) did not panic", rank)
				}
			}()
			r.Doorbell(rank)
		}()
	}
}

// TestPoolBudget checks the documented sizing rule of DefaultConfig.
func TestPoolBudget(t *testing.T) {
	cfg := DefaultConfig()
	want := Config{BudgetBytes: 256 << 20, MaxPoolBytes: 16 << 20, MinCells: 8, CellSize: 32 << 10, Slots: 64}
	if cfg != want {
		t.Fatalf("DefaultConfig() = %+v, want %+v", cfg, want)
	}
	pool := map[int]int64{}
	for n := 1; n <= 64; n++ {
		l, err := NewLayout(n, cfg)
		if err != nil {
			t.Fatal(err)
		}
		pool[n] = l.PoolBytes()
		if l.PoolBytes() != int64(l.CellsPerChannel)*int64(l.CellSize) {
			t.Errorf("%d ranks: PoolBytes %d != cells × cell size", n, l.PoolBytes())
		}
		if l.CellsPerChannel < cfg.MinCells {
			t.Errorf("%d ranks: %d cells per channel, below MinCells %d", n, l.CellsPerChannel, cfg.MinCells)
		}
		if l.PoolBytes() > cfg.MaxPoolBytes {
			t.Errorf("%d ranks: pool %d above MaxPoolBytes", n, l.PoolBytes())
		}
		if n > 1 && l.CellsPerChannel > cfg.MinCells && l.PoolBytes()*int64(expectedPairs(n)) > cfg.BudgetBytes {
			t.Errorf("%d ranks: %d channels × %d bytes exceed the budget %d", n, expectedPairs(n), l.PoolBytes(), cfg.BudgetBytes)
		}
		if n > 2 && pool[n] > pool[n-1] {
			t.Errorf("pool grows from %d to %d bytes going from %d to %d ranks", pool[n-1], pool[n], n-1, n)
		}
	}
	if pool[1] != int64(cfg.MinCells)*int64(cfg.CellSize) {
		t.Errorf("1 rank: pool %d, want MinCells × CellSize (no channel to spend budget on)", pool[1])
	}
	for _, n := range []int{2, 3, 4} {
		if pool[n] < 16<<20 {
			t.Errorf("%d ranks: pool %d < 16 MiB", n, pool[n])
		}
	}
	if !(pool[8] < pool[4] && pool[16] < pool[8]) {
		t.Errorf("pools do not shrink: 4 ranks %d, 8 ranks %d, 16 ranks %d", pool[4], pool[8], pool[16])
	}
	if l, err := NewLayout(256, cfg); err != nil || l.PoolBytes() != int64(cfg.MinCells)*int64(cfg.CellSize) {
		t.Errorf("256 ranks: pool %d (%v), want the MinCells floor %d", l.PoolBytes(), err, cfg.MinCells*cfg.CellSize)
	}
}

// TestExpectedPairs: small jobs divide the budget among all pairs, as they
// all talk; large ones among the O(n log n) the collectives use.
func TestExpectedPairs(t *testing.T) {
	for _, c := range []struct{ n, want int }{
		{1, 1}, {2, 2}, {3, 6}, {8, 56}, {9, 72}, {16, 160}, {64, 896}, {256, 4608}, {1000, 22000},
	} {
		if got := expectedPairs(c.n); got != c.want {
			t.Errorf("expectedPairs(%d) = %d, want %d", c.n, got, c.want)
		}
	}
}

// TestConfigFrom checks that the knobs that size a region reach it, and
// that the environment does not: only hympirun's validated knobs may size a
// region.
func TestConfigFrom(t *testing.T) {
	t.Setenv("HYMPI_SHM_BUDGET", "1048576")
	t.Setenv("HYMPI_CELL_SIZE", "128")
	if got := DefaultConfig(); got.BudgetBytes != 256<<20 || got.CellSize != 32<<10 {
		t.Errorf("DefaultConfig() read the environment: %+v", got)
	}
	for _, c := range []struct {
		budget int64
		cell   int
	}{{1 << 20, 8192}, {256 << 20, 32 << 10}, {64 << 10, 64}} {
		k := config.Defaults()
		k.ShmBudget, k.CellSize = c.budget, c.cell
		got := ConfigFrom(k)
		if got.BudgetBytes != c.budget || got.CellSize != c.cell {
			t.Errorf("ConfigFrom(budget %d, cell %d) = %+v", c.budget, c.cell, got)
		}
		if _, err := NewLayout(4, got); err != nil {
			t.Errorf("ConfigFrom(budget %d, cell %d): NewLayout: %v", c.budget, c.cell, err)
		}
	}
}

func TestNewLayoutRejects(t *testing.T) {
	ok := Config{BudgetBytes: 1 << 20, MaxPoolBytes: 1 << 16, MinCells: 2, CellSize: 256, Slots: 8}
	with := func(f func(*Config)) Config { c := ok; f(&c); return c }
	for _, c := range []struct {
		name  string
		ranks int
		cfg   Config
	}{
		{"zero ranks", 0, ok},
		{"negative ranks", -1, ok},
		{"too many ranks", maxRanks + 1, ok},
		{"cell size 0", 2, with(func(c *Config) { c.CellSize = 0 })},
		{"cell size below a line", 2, with(func(c *Config) { c.CellSize = CacheLine / 2 })},
		{"cell size not a line multiple", 2, with(func(c *Config) { c.CellSize = 100 })},
		{"cell size too big", 2, with(func(c *Config) { c.CellSize = 1<<24 + CacheLine })},
		{"zero slots", 2, with(func(c *Config) { c.Slots = 0 })},
		{"one slot", 2, with(func(c *Config) { c.Slots = 1 })},
		{"slots not a power of two", 2, with(func(c *Config) { c.Slots = 12 })},
		{"too many slots", 2, with(func(c *Config) { c.Slots = 1 << 17 })},
		{"negative slots", 2, with(func(c *Config) { c.Slots = -8 })},
		{"no cells, one rank", 1, with(func(c *Config) { c.MinCells = 0 })},
		{"no cells, no budget", 2, with(func(c *Config) { c.MinCells = 0; c.BudgetBytes = 0 })},
		{"negative cells and budget", 3, with(func(c *Config) { c.MinCells = -1; c.BudgetBytes = -1 })},
		{"MinCells too big", 2, with(func(c *Config) { c.MinCells = 1<<20 + 1 })},
		{"budget gives too many cells", 2, with(func(c *Config) { c.BudgetBytes = 1 << 40; c.MaxPoolBytes = 1 << 40; c.CellSize = CacheLine })},
	} {
		l, err := NewLayout(c.ranks, c.cfg)
		if !errors.Is(err, ErrConfig) {
			t.Errorf("%s: NewLayout(%d, %+v) = %+v, %v; want ErrConfig", c.name, c.ranks, c.cfg, l, err)
		}
		if r, err := CreateAnonymous(c.ranks, c.cfg); !errors.Is(err, ErrConfig) {
			r.Close()
			t.Errorf("%s: CreateAnonymous err = %v, want ErrConfig", c.name, err)
		}
	}
	// The edges that are still legal.
	for _, c := range []struct {
		ranks int
		cfg   Config
	}{
		{1, with(func(c *Config) { c.MinCells = 1 })},
		{maxRanks, tinyConfig},
		{2, with(func(c *Config) { c.CellSize = 1 << 24 })},
		{2, with(func(c *Config) { c.Slots = 2 })},
		{2, with(func(c *Config) { c.Slots = 1 << 16 })},
		{2, with(func(c *Config) { c.MinCells = 1 << 20 })},
		{2, with(func(c *Config) { c.MinCells = 0 })}, // the budget still gives cells
	} {
		if _, err := NewLayout(c.ranks, c.cfg); err != nil {
			t.Errorf("NewLayout(%d, %+v) = %v, want success", c.ranks, c.cfg, err)
		}
	}
}

// TestLayoutSizeOverflow: a layout whose size does not fit in an int64 must
// be refused. decodeHeader rebuilds the layout from peer-written fields that
// only have to be individually in range, and a wrapped (negative) Size passes
// its "file at least Size bytes" check; every offset past the mapping is then
// reachable (unsafe.Slice in u64sAt/u32sAt is only bounds-checked at its
// start).
func TestLayoutSizeOverflow(t *testing.T) {
	const ranks, slots, cellSize, cells = maxRanks, 2, 1 << 24, 1 << 20
	if l, err := layoutFor(ranks, slots, cellSize, cells); err == nil {
		t.Errorf("layoutFor(%d, %d, %d, %d) = Size %d, nil; want ErrLayout (the true size is ~2^72 bytes)",
			ranks, slots, cellSize, cells, l.Size)
	}
	cfg := Config{BudgetBytes: 1 << 62, MaxPoolBytes: 1 << 62, MinCells: cells, CellSize: cellSize, Slots: slots}
	if l, err := NewLayout(ranks, cfg); err == nil {
		t.Errorf("NewLayout(%d, %+v) = Size %d, nil; want an error", ranks, cfg, l.Size)
	}

	// The attach path: a header with a valid checksum naming that layout, in
	// a one-page file.
	mem := make([]byte, pageSize)
	putHeader(mem, ranks, slots, cellSize, cells, 0)
	if l, err := layoutFor(ranks, slots, cellSize, cells); err == nil {
		putHeader(mem, ranks, slots, cellSize, cells, uint64(l.Size))
	}
	if l, err := decodeHeader(mem); err == nil {
		t.Errorf("decodeHeader accepted a %d-byte file describing %d ranks × %d cells of %d bytes (Size %d)",
			len(mem), ranks, cells, cellSize, l.Size)
	}
}

// putHeader writes a complete header with a valid checksum.
func putHeader(mem []byte, ranks, slots, cellSize, cells int, size uint64) {
	le := binary.LittleEndian
	le.PutUint64(mem[hdrMagic:], magic)
	le.PutUint64(mem[hdrVersion:], LayoutVersion)
	le.PutUint64(mem[hdrRanks:], uint64(ranks))
	le.PutUint64(mem[hdrSlots:], uint64(slots))
	le.PutUint64(mem[hdrCellSize:], uint64(cellSize))
	le.PutUint64(mem[hdrCells:], uint64(cells))
	le.PutUint64(mem[hdrSize:], size)
	le.PutUint64(mem[hdrChecksum:], headerChecksum(mem))
}

func TestHeaderRoundTrip(t *testing.T) {
	for _, c := range layoutConfigs(t)[1:] {
		for _, n := range []int{1, 2, 3, 7} {
			r := newAnon(t, n, c.cfg)
			l, err := decodeHeader(r.mem)
			if err != nil || l != r.L {
				t.Errorf("%s/%d: decodeHeader = %+v, %v; want %+v", c.name, n, l, err, r.L)
			}
		}
	}
}

func TestHeaderCorruption(t *testing.T) {
	r := newAnon(t, 3, Config{MinCells: 3, CellSize: 256, Slots: 8})
	le := binary.LittleEndian
	set := func(off int64, v uint64) func([]byte) {
		return func(h []byte) { le.PutUint64(h[off:], v) }
	}
	bigger, err := layoutFor(4, r.L.Slots, r.L.CellSize, r.L.CellsPerChannel)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		mutate func([]byte)
		resum  bool  // recompute the checksum after mutating
		keep   int64 // bytes of the region to present (0: all)
		want   error
	}{
		{"magic flipped", func(h []byte) { h[hdrMagic] ^= 1 }, true, 0, ErrBadMagic},
		{"magic zero (fresh file)", set(hdrMagic, 0), false, 0, ErrBadMagic},
		{"magic byte-swapped", set(hdrMagic, bits.ReverseBytes64(magic)), true, 0, ErrBadMagic},
		{"version 0", set(hdrVersion, 0), true, 0, ErrVersion},
		{"version +1", set(hdrVersion, LayoutVersion+1), true, 0, ErrVersion},
		{"checksum flipped", func(h []byte) { h[hdrChecksum+7] ^= 0x80 }, false, 0, ErrChecksum},
		{"ranks changed, checksum stale", set(hdrRanks, 4), false, 0, ErrChecksum},
		{"size changed, checksum stale", func(h []byte) { h[hdrSize] ^= 1 }, false, 0, ErrChecksum},
		{"ranks 0", set(hdrRanks, 0), true, 0, ErrLayout},
		{"ranks over maxRanks", set(hdrRanks, maxRanks+1), true, 0, ErrLayout},
		{"ranks 2^40", set(hdrRanks, 1<<40), true, 0, ErrLayout},
		{"ranks 2^64-1", set(hdrRanks, ^uint64(0)), true, 0, ErrLayout},
		{"ranks 4, size stale", set(hdrRanks, 4), true, 0, ErrLayout},
		{"slots 3", set(hdrSlots, 3), true, 0, ErrLayout},
		{"slots 1", set(hdrSlots, 1), true, 0, ErrLayout},
		{"slots 2^17", set(hdrSlots, 1<<17), true, 0, ErrLayout},
		{"slots 16, size stale", set(hdrSlots, 16), true, 0, ErrLayout},
		{"cell size 0", set(hdrCellSize, 0), true, 0, ErrLayout},
		{"cell size 100", set(hdrCellSize, 100), true, 0, ErrLayout},
		{"cell size 2^25", set(hdrCellSize, 1<<25), true, 0, ErrLayout},
		{"cells 0", set(hdrCells, 0), true, 0, ErrLayout},
		{"cells 2^20+1", set(hdrCells, 1<<20+1), true, 0, ErrLayout},
		{"cells 40, size stale", set(hdrCells, 40), true, 0, ErrLayout},
		{"size + a page", set(hdrSize, uint64(r.L.Size+pageSize)), true, 0, ErrLayout},
		{"size 0", set(hdrSize, 0), true, 0, ErrLayout},
		{"size 2^64-1", set(hdrSize, ^uint64(0)), true, 0, ErrLayout},
		{"consistent, larger than the file", func(h []byte) {
			le.PutUint64(h[hdrRanks:], 4)
			le.PutUint64(h[hdrSize:], uint64(bigger.Size))
		}, true, 0, ErrTooSmall},
		{"file one byte short", nil, false, r.L.Size - 1, ErrTooSmall},
		{"file one page short", nil, false, r.L.Size - pageSize, ErrTooSmall},
		{"only the header", nil, false, headerSize, ErrTooSmall},
		{"header cut short", nil, false, headerSize - 1, ErrTooSmall},
		{"header fields only", nil, false, hdrChecksum + 8, ErrTooSmall},
		{"empty", nil, false, -1, ErrTooSmall},
		// Not covered by the checksum: changes at run time.
		{"attach counter", set(hdrAttached, 0x0000_0007_0000_0003), false, 0, nil},
		// Padding after the checksum is not covered either.
		{"reserved header bytes", func(h []byte) { fillBytes(h[hdrChecksum+8:CacheLine], 0xFF) }, false, 0, nil},
	} {
		mem := slices.Clone(r.mem)
		if c.mutate != nil {
			c.mutate(mem)
		}
		if c.resum {
			le.PutUint64(mem[hdrChecksum:], headerChecksum(mem))
		}
		switch {
		case c.keep < 0:
			mem = mem[:0]
		case c.keep > 0:
			mem = mem[:c.keep]
		}
		l, err := decodeHeader(mem)
		if c.want == nil {
			if err != nil || l != r.L {
				t.Errorf("%s: decodeHeader = %+v, %v; want the region's layout", c.name, l, err)
			}
			continue
		}
		if !errors.Is(err, c.want) {
			t.Errorf("%s: decodeHeader err = %v, want %v", c.name, err, c.want)
		}
		for _, other := range []error{ErrBadMagic, ErrVersion, ErrChecksum, ErrLayout, ErrTooSmall} {
			if other != c.want && errors.Is(err, other) {
				t.Errorf("%s: err %v also matches %v", c.name, err, other)
			}
		}
		if l != (Layout{}) {
			t.Errorf("%s: a failed decode returned a layout: %+v", c.name, l)
		}
	}
}

// TestCreateAttach goes through a real file: Create leaves no name behind,
// Attach sees the same layout, and the two mappings share memory.
func TestCreateAttach(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{MinCells: 2, CellSize: 128, Slots: 4}
	r, f, err := Create(dir, 3, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	defer r.Close()
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("Create left %v in %s", ents, dir)
	}
	if st, err := f.Stat(); err != nil || st.Size() != r.L.Size || st.Mode().Perm() != 0o600 {
		t.Errorf("region file: %v, %v; want %d bytes, mode 0600", st, err, r.L.Size)
	}
	r2, err := Attach(f)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if r2.L != r.L || r2.Ranks() != 3 {
		t.Fatalf("Attach layout %+v, want %+v", r2.L, r.L)
	}

	for rank := range 3 {
		if s := r2.RankState(rank); s != StateNone || r2.RankPID(rank) != 0 {
			t.Errorf("fresh rank %d: state %v pid %d", rank, s, r2.RankPID(rank))
		}
	}
	r.MarkAttached(1, 4242)
	r.MarkAttached(2, 77)
	r.SetState(2, StateFinalized)
	r.MarkAborted(0, -3)
	if got := r2.Attached(); got != 2 {
		t.Errorf("Attached() = %d, want 2", got)
	}
	for _, c := range []struct {
		rank  int
		state RankState
		pid   int
	}{{0, StateAborted, 0}, {1, StateAttached, 4242}, {2, StateFinalized, 77}} {
		if s, p := r2.RankState(c.rank), r2.RankPID(c.rank); s != c.state || p != c.pid {
			t.Errorf("rank %d: state %v pid %d, want %v %d", c.rank, s, p, c.state, c.pid)
		}
	}
	if code := r2.AbortCode(0); code != -3 {
		t.Errorf("AbortCode(0) = %d, want -3", code)
	}
	if s := RankState(9).String(); s != "RankState(9)" {
		t.Errorf("RankState(9).String() = %q", s)
	}

	// Descriptors published in one mapping are visible through the other.
	slot := r.Channel(0, 2).Producer().Reserve()
	EncodeDesc(slot, &Desc{Kind: KindAck, ReqID: 99})
	r.Channel(0, 2).Producer().Publish(slot)
	got, err := r2.Channel(0, 2).Consumer().Peek()
	if err != nil || got == nil {
		t.Fatalf("Peek through the second mapping = %v, %v", got, err)
	}
	if d, err := DecodeDesc(got, r2.Channel(0, 2).Limits()); err != nil || d.ReqID != 99 {
		t.Errorf("DecodeDesc = %+v, %v", d, err)
	}

	if err := r.Close(); err != nil || r.Close() != nil {
		t.Errorf("Close twice: %v", err)
	}
	var nilRegion *Region
	if err := nilRegion.Close(); err != nil {
		t.Errorf("(*Region)(nil).Close() = %v", err)
	}
}

func TestAttachRejects(t *testing.T) {
	dir := t.TempDir()
	good, err := CreateAnonymous(2, tinyConfig)
	if err != nil {
		t.Fatal(err)
	}
	defer good.Close()
	for _, c := range []struct {
		name    string
		content []byte
		want    error
	}{
		{"empty file", nil, ErrTooSmall},
		{"shorter than a header", make([]byte, headerSize-1), ErrTooSmall},
		{"zero-filled", make([]byte, pageSize), ErrBadMagic},
		{"truncated region", good.mem[:len(good.mem)-pageSize], ErrTooSmall},
	} {
		name := filepath.Join(dir, "f")
		if err := os.WriteFile(name, c.content, 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(name) // read-only: mapping it read-write must fail cleanly, not panic
		if err != nil {
			t.Fatal(err)
		}
		if r, err := Attach(f); err == nil {
			r.Close()
			t.Errorf("%s: Attach on a read-only descriptor succeeded", c.name)
		}
		f.Close()
		f, err = os.OpenFile(name, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Attach(f)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: Attach err = %v, want %v", c.name, err, c.want)
		}
		if err == nil {
			r.Close()
		}
		f.Close()
	}
}

func TestCreateRejects(t *testing.T) {
	dir := t.TempDir()
	if r, f, err := Create(dir, 0, tinyConfig); !errors.Is(err, ErrConfig) {
		r.Close()
		f.Close()
		t.Errorf("Create with 0 ranks: %v, want ErrConfig", err)
	}
	if _, _, err := Create(filepath.Join(dir, "missing"), 2, tinyConfig); err == nil {
		t.Errorf("Create in a missing directory succeeded")
	}
	if err := checkFreeSpace(dir, 1<<62); !errors.Is(err, ErrNoSpace) {
		t.Errorf("checkFreeSpace(4 EiB) = %v, want ErrNoSpace", err)
	}
	if err := checkFreeSpace(dir, pageSize); err != nil {
		t.Errorf("checkFreeSpace(one page) = %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("failed Creates left %v", ents)
	}
}

// TestStructAlignment walks every field of the region's fixed structures
// (structs.go) by reflection: each cross-process word is aligned to its size
// (the atomics need it), each structure is whole cache lines, and words
// with different writers sit on the lines the design puts them on. A field
// added to a structure is checked without touching this test.
func TestStructAlignment(t *testing.T) {
	type lineRule struct {
		field string
		line  int64
	}
	for _, c := range []struct {
		name  string
		typ   reflect.Type
		lines []lineRule
	}{
		{"header", reflect.TypeOf(header{}), []lineRule{
			{"Magic", 0}, {"Checksum", 0}, {"Attached", 1}, {"Arena", 1},
		}},
		{"rank block", reflect.TypeOf(rankHead{}), []lineRule{
			{"PID", 0}, {"State", 0}, {"AbortCode", 0}, {"CPU", 0}, {"Probe", 0}, {"BellSeq", 1}, {"Sleepers", 1},
		}},
		{"channel control", reflect.TypeOf(chanHead{}), []lineRule{
			{"RetTail", 0}, {"Streak", 0}, {"Waited", 0}, {"OnTime", 0}, {"Ident", 0},
		}},
	} {
		if c.typ.Size()%CacheLine != 0 || c.typ.Size() == 0 {
			t.Errorf("%s: %d bytes, not whole cache lines", c.name, c.typ.Size())
		}
		words := 0
		for i := range c.typ.NumField() {
			f := c.typ.Field(i)
			switch f.Type.Kind() {
			case reflect.Uint32, reflect.Int32, reflect.Uint64, reflect.Int64:
				words++
				if f.Offset%f.Type.Size() != 0 {
					t.Errorf("%s.%s at %d is not %d-byte aligned", c.name, f.Name, f.Offset, f.Type.Size())
				}
			case reflect.Array:
				if f.Name != "_" {
					t.Errorf("%s.%s: arrays are padding only", c.name, f.Name)
				}
			default:
				t.Errorf("%s.%s: unexpected kind %v", c.name, f.Name, f.Type.Kind())
			}
		}
		if words < len(c.lines) {
			t.Errorf("%s: %d words, fewer than the %d placed", c.name, words, len(c.lines))
		}
		for _, l := range c.lines {
			f, ok := c.typ.FieldByName(l.field)
			if !ok {
				t.Errorf("%s has no field %s", c.name, l.field)
				continue
			}
			if got := int64(f.Offset) / CacheLine; got != l.line {
				t.Errorf("%s.%s on line %d, want %d", c.name, l.field, got, l.line)
			}
		}
	}
	// The constants the code uses are those offsets.
	for _, c := range []struct {
		typ   reflect.Type
		field string
		off   int64
	}{
		{reflect.TypeOf(header{}), "Attached", hdrAttached}, {reflect.TypeOf(header{}), "Arena", hdrArena},
		{reflect.TypeOf(header{}), "Checksum", hdrChecksum}, {reflect.TypeOf(rankHead{}), "CPU", rbCPU},
		{reflect.TypeOf(rankHead{}), "Probe", rbProbe}, {reflect.TypeOf(rankHead{}), "BellSeq", rbBellSeq},
		{reflect.TypeOf(chanHead{}), "Streak", chFeedback}, {reflect.TypeOf(chanHead{}), "Ident", chIdent},
	} {
		if f, _ := c.typ.FieldByName(c.field); int64(f.Offset) != c.off {
			t.Errorf("%v.%s at %d, constant says %d", c.typ, c.field, f.Offset, c.off)
		}
	}
}
