package shm

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/big"
	"testing"
	"unsafe"
)

var testLimits = Limits{Cells: 8, CellSize: 4096}

// descField is one encoded field: where it lives and how wide it is.
type descField struct {
	name     string
	off, len int
	ext      bool // in the extension line at the end of the slot
}

var descFields = []descField{
	{"kind", descKind, 1, false},
	{"flags", descFlags, 1, false},
	{"ctx", descCtx, 4, false},
	{"tag", descTag, 4, false},
	{"fraglen", descFragLen, 4, false},
	{"cell", descCell, 4, true},
	{"msglen", descMsgLen, 8, true},
	{"reqid", descReqID, 8, true},
}

// carries says whether descriptors of this kind and flags encode field f.
// Inline and control descriptors imply MsgLen (== FragLen), have no cell,
// and carry a request id only when synchronous.
func (f descField) carriedBy(k Kind, flags uint8) bool {
	if !f.ext || k != KindInline && k != KindControl {
		return true
	}
	return f.name == "reqid" && flags&FlagSync != 0
}

// descOwned marks the slot bytes an encoding of kind k with flags owns.
func descOwned(k Kind, flags uint8) []bool {
	owned := make([]bool, SlotSize)
	for _, f := range descFields {
		if f.carriedBy(k, flags) {
			for i := f.off; i < f.off+f.len; i++ {
				owned[i] = true
			}
		}
	}
	return owned
}

// canonical is what a descriptor decodes to after a round trip: the fields
// its kind does not carry read as zero (MsgLen as FragLen).
func canonical(d Desc) Desc {
	if d.Kind == KindInline || d.Kind == KindControl {
		d.Cell = 0
		d.MsgLen = uint64(d.FragLen)
		if d.Flags&FlagSync == 0 {
			d.ReqID = 0
		}
	}
	return d
}

func TestDescGeometry(t *testing.T) {
	owned := make([]int, SlotSize)
	for i := range 8 {
		owned[descSeq+i]++
	}
	for _, f := range descFields {
		lo, hi := 8, DescHeaderSize
		if f.ext {
			lo, hi = DescHeaderSize+InlineMax, SlotSize
		}
		if f.off < lo || f.off+f.len > hi {
			t.Errorf("field %s at [%d,%d) is outside its area [%d,%d)", f.name, f.off, f.off+f.len, lo, hi)
		}
		if f.off%f.len != 0 {
			t.Errorf("field %s at %d is not %d-byte aligned", f.name, f.off, f.len)
		}
		for i := f.off; i < f.off+f.len; i++ {
			owned[i]++
		}
	}
	for i, n := range owned {
		if n > 1 {
			t.Errorf("slot byte %d belongs to %d fields", i, n)
		}
	}
	if DescHeaderSize%8 != 0 || DescHeaderSize > CacheLine || InlineMax <= 0 {
		t.Errorf("header %d bytes, InlineMax %d", DescHeaderSize, InlineMax)
	}
	if SlotSize%CacheLine != 0 {
		t.Errorf("SlotSize %d is not a whole number of cache lines", SlotSize)
	}
	slot := make([]byte, SlotSize)
	a := InlineArea(slot)
	if len(a) != InlineMax || cap(a) != InlineMax || &a[0] != &slot[DescHeaderSize] {
		t.Errorf("InlineArea has len %d cap %d; want InlineMax = %d from offset %d, so a copy into it cannot reach the extension line at %d",
			len(a), cap(a), InlineMax, DescHeaderSize, descExt)
	}
	// A producer that fills the whole area keeps a synchronous descriptor's
	// request id.
	d := Desc{Kind: KindInline, Flags: FlagSync, MsgLen: InlineMax, FragLen: InlineMax, ReqID: 0x0123456789abcdef}
	EncodeDesc(slot, &d)
	copy(InlineArea(slot), bytes.Repeat([]byte{0xAB}, SlotSize))
	if got, err := DecodeDesc(slot, testLimits); err != nil || got != d {
		t.Errorf("after filling InlineArea: %+v, %v; want %+v", got, err, d)
	}
}

func TestDescRoundTrip(t *testing.T) {
	for _, d := range []Desc{
		{Kind: KindInline},
		{Kind: KindInline, Ctx: 7, Tag: -1, MsgLen: 1, FragLen: 1},
		{Kind: KindInline, Flags: FlagSync, Ctx: math.MaxUint32, Tag: math.MinInt32, MsgLen: InlineMax, FragLen: InlineMax, ReqID: math.MaxUint64},
		{Kind: KindInline, MsgLen: 40, FragLen: 40, ReqID: 5, Cell: 3}, // ReqID and Cell not carried
		{Kind: KindControl, Tag: 3, MsgLen: 16, FragLen: 16},
		{Kind: KindControl, Flags: FlagSync, ReqID: 8},
		{Kind: KindFirst, Ctx: 1, Tag: math.MaxInt32, Cell: 0, MsgLen: 1 << 20, FragLen: 4096},
		{Kind: KindFirst, Flags: FlagSync, Cell: 7, MsgLen: 1, FragLen: 1, ReqID: 42},
		{Kind: KindFirst, Cell: 3, MsgLen: MaxMessage, FragLen: 4096},
		{Kind: KindNext, Cell: 7, MsgLen: 10000, FragLen: 10000 - 2*4096, ReqID: 1},
		{Kind: KindNext, Cell: 0, MsgLen: 4096, FragLen: 4096},
		{Kind: KindAck, ReqID: 1<<63 + 5},
		{Kind: KindAck, Flags: FlagSync, Ctx: 9, Tag: 9, Cell: 9, MsgLen: 9},
	} {
		slot := make([]byte, SlotSize)
		fillBytes(slot, 0xEE)
		EncodeDesc(slot, &d)
		got, err := DecodeDesc(slot, testLimits)
		if want := canonical(d); err != nil || got != want {
			t.Errorf("DecodeDesc(EncodeDesc(%+v)) = %+v, %v; want %+v", d, got, err, want)
		}
		// EncodeDesc writes exactly the bytes of the fields the kind carries:
		// not the publish word, not the inline payload.
		owned := descOwned(d.Kind, d.Flags)
		for i, b := range slot {
			if !owned[i] && b != 0xEE {
				t.Errorf("EncodeDesc(%+v) wrote byte %d, which no carried field owns", d, i)
				break
			}
		}
		// Bytes it did not write do not matter either.
		junk := make([]byte, SlotSize)
		fillBytes(junk, 0x11)
		EncodeDesc(junk, &d)
		if got2, err := DecodeDesc(junk, testLimits); err != nil || got2 != got {
			t.Errorf("%+v decodes differently over other junk: %+v, %v", d, got2, err)
		}
		if d.Kind == KindInline || d.Kind == KindControl {
			p := InlinePayload(slot, &got)
			if len(p) != int(d.FragLen) || len(p) > 0 && &p[0] != &slot[DescHeaderSize] {
				t.Errorf("InlinePayload(%+v) has len %d or starts elsewhere", d, len(p))
			}
		}
		// A longer slice (a slot at the end of a larger view) decodes the same.
		long := append(slot, 1, 2, 3)
		if got3, err := DecodeDesc(long, testLimits); err != nil || got3 != got {
			t.Errorf("DecodeDesc on a longer slice = %+v, %v", got3, err)
		}
	}
}

func TestDescRejects(t *testing.T) {
	valid := map[Kind]Desc{
		KindInline:  {Kind: KindInline, MsgLen: 5, FragLen: 5},
		KindControl: {Kind: KindControl, MsgLen: 5, FragLen: 5},
		KindFirst:   {Kind: KindFirst, Cell: 1, MsgLen: 10000, FragLen: 4096},
		KindNext:    {Kind: KindNext, Cell: 1, MsgLen: 10000, FragLen: 100},
		KindAck:     {Kind: KindAck, ReqID: 3},
	}
	with := func(k Kind, f func(*Desc)) Desc { d := valid[k]; f(&d); return d }
	type tc struct {
		name string
		d    Desc
	}
	cases := []tc{
		{"kind 0", Desc{Kind: 0}},
		{"kind past the last", with(KindAck, func(d *Desc) { d.Kind = kindMax + 1 })},
		{"kind 255", with(KindAck, func(d *Desc) { d.Kind = 255 })},
	}
	for k := range valid {
		cases = append(cases,
			tc{"unknown flag 0x4, kind " + k.name(), with(k, func(d *Desc) { d.Flags = 4 })},
			tc{"unknown flag 0x80, kind " + k.name(), with(k, func(d *Desc) { d.Flags = 0x80 | FlagSync })},
		)
		if k != KindInline && k != KindControl { // inline kinds imply MsgLen
			cases = append(cases,
				tc{"MsgLen > MaxMessage, kind " + k.name(), with(k, func(d *Desc) { d.MsgLen = MaxMessage + 1 })},
				tc{"MsgLen 2^64-1, kind " + k.name(), with(k, func(d *Desc) { d.MsgLen = math.MaxUint64 })},
			)
		}
	}
	for _, k := range []Kind{KindInline, KindControl} {
		cases = append(cases,
			tc{"inline longer than InlineMax, kind " + k.name(), with(k, func(d *Desc) { d.MsgLen, d.FragLen = InlineMax+1, InlineMax+1 })},
			tc{"inline 2^32-1, kind " + k.name(), with(k, func(d *Desc) { d.MsgLen, d.FragLen = math.MaxUint32, math.MaxUint32 })},
			tc{"inline 2^31, kind " + k.name(), with(k, func(d *Desc) { d.MsgLen, d.FragLen = 1<<31, 1<<31 })},
		)
	}
	for _, k := range []Kind{KindFirst, KindNext} {
		cases = append(cases,
			tc{"cell = Cells, kind " + k.name(), with(k, func(d *Desc) { d.Cell = testLimits.Cells })},
			tc{"cell 2^32-1, kind " + k.name(), with(k, func(d *Desc) { d.Cell = math.MaxUint32 })},
			tc{"FragLen 0, kind " + k.name(), with(k, func(d *Desc) { d.FragLen = 0 })},
			tc{"FragLen > CellSize, kind " + k.name(), with(k, func(d *Desc) { d.FragLen = testLimits.CellSize + 1 })},
			tc{"FragLen > MsgLen, kind " + k.name(), with(k, func(d *Desc) { d.MsgLen = 99; d.FragLen = 100 })},
			tc{"MsgLen 0, kind " + k.name(), with(k, func(d *Desc) { d.MsgLen = 0 })},
		)
	}
	cases = append(cases,
		tc{"ack with payload", with(KindAck, func(d *Desc) { d.FragLen = 1 })},
		tc{"ack with a cell's worth", with(KindAck, func(d *Desc) { d.FragLen = 4096 })},
	)
	for _, c := range cases {
		slot := make([]byte, SlotSize)
		EncodeDesc(slot, &c.d)
		if got, err := DecodeDesc(slot, testLimits); !errors.Is(err, ErrBadDesc) || got != (Desc{}) {
			t.Errorf("%s: DecodeDesc(%+v) = %+v, %v; want ErrBadDesc", c.name, c.d, got, err)
		}
	}
	// Every valid base case really is valid, or the rejections prove nothing.
	for k, d := range valid {
		slot := make([]byte, SlotSize)
		EncodeDesc(slot, &d)
		if _, err := DecodeDesc(slot, testLimits); err != nil {
			t.Errorf("base case for kind %s: %v", k.name(), err)
		}
		for _, n := range []int{0, 1, DescHeaderSize, SlotSize - 1} {
			if _, err := DecodeDesc(slot[:n], testLimits); !errors.Is(err, ErrBadDesc) {
				t.Errorf("kind %s, slot of %d bytes: %v, want ErrBadDesc", k.name(), n, err)
			}
		}
	}
	// No cells at all: every cell descriptor is refused.
	slot := make([]byte, SlotSize)
	d := valid[KindFirst]
	d.Cell = 0
	EncodeDesc(slot, &d)
	if _, err := DecodeDesc(slot, Limits{}); !errors.Is(err, ErrBadDesc) {
		t.Errorf("cell descriptor against an empty pool: %v", err)
	}
}

func (k Kind) name() string {
	return map[Kind]string{KindInline: "inline", KindFirst: "first", KindNext: "next", KindAck: "ack", KindControl: "control"}[k]
}

// TestDescIgnoresUnownedBytes: the publish word, the padding and, for
// inline kinds, the extension fields they do not carry (a stale cell, length
// or request id from the slot's previous use) do not change what a
// descriptor means.
func TestDescIgnoresUnownedBytes(t *testing.T) {
	for _, d := range []Desc{
		{Kind: KindFirst, Flags: FlagSync, Ctx: 1, Tag: 2, Cell: 3, MsgLen: 5000, FragLen: 4000, ReqID: 6},
		{Kind: KindInline, Ctx: 1, Tag: 2, MsgLen: 30, FragLen: 30},
		{Kind: KindInline, Flags: FlagSync, MsgLen: 30, FragLen: 30, ReqID: 9},
		{Kind: KindControl, Tag: 4},
	} {
		slot := make([]byte, SlotSize)
		EncodeDesc(slot, &d)
		owned := descOwned(d.Kind, d.Flags)
		for i := range slot {
			if !owned[i] && (i < DescHeaderSize || i >= DescHeaderSize+InlineMax) {
				slot[i] = 0xFF
			}
		}
		if got, err := DecodeDesc(slot, testLimits); err != nil || got != canonical(d) {
			t.Errorf("DecodeDesc of %+v with junk in unowned bytes = %+v, %v", d, got, err)
		}
	}
}

// FuzzDecodeDesc: DecodeDesc never panics, fails only with ErrBadDesc, and
// everything it accepts satisfies the invariants the receiver indexes memory
// with. When useChannel is set the limits are a real channel's, and an
// accepted cell descriptor is used to slice that channel's cell.
func FuzzDecodeDesc(f *testing.F) {
	r := newAnon(f, 2, Config{MinCells: 5, CellSize: 192, Slots: 2})
	ch := r.Channel(0, 1)
	for _, d := range []Desc{
		{Kind: KindInline, MsgLen: 3, FragLen: 3},
		{Kind: KindInline, MsgLen: InlineMax, FragLen: InlineMax, Flags: FlagSync, ReqID: 1},
		{Kind: KindControl, Tag: 1, MsgLen: 8, FragLen: 8},
		{Kind: KindFirst, Cell: 4, MsgLen: 1000, FragLen: 192},
		{Kind: KindNext, Cell: 2, MsgLen: 1000, FragLen: 40},
		{Kind: KindAck, ReqID: 77},
		{Kind: KindFirst, Cell: 5, MsgLen: 1000, FragLen: 192},
		{Kind: KindInline, MsgLen: InlineMax + 1, FragLen: InlineMax + 1},
		{Kind: KindSpan, MsgLen: InlineMax + 1, FragLen: InlineMax + 1},
		{Kind: KindSpan, MsgLen: SpanMax, FragLen: SpanMax},
		{Kind: KindSpan, MsgLen: SpanMax + 1, FragLen: SpanMax + 1},
		{Kind: KindSpan, MsgLen: 8, FragLen: 8},
		{Kind: KindSpan, MsgLen: 2048, FragLen: 2048, Flags: FlagSync},
		{Kind: 9},
	} {
		slot := make([]byte, SlotSize)
		EncodeDesc(slot, &d)
		f.Add(slot, uint32(0), uint32(0), true)
		f.Add(slot, uint32(1000), uint32(4096), false)
	}
	f.Add([]byte{}, uint32(1), uint32(1), false)
	f.Add(make([]byte, SlotSize-1), uint32(1), uint32(64), false)
	f.Add(bytes.Repeat([]byte{0xFF}, SlotSize), uint32(math.MaxUint32), uint32(math.MaxUint32), false)

	f.Fuzz(func(t *testing.T, slot []byte, cells, cellSize uint32, useChannel bool) {
		lim := Limits{Cells: cells, CellSize: cellSize}
		if useChannel {
			lim = ch.Limits()
		}
		d, err := DecodeDesc(slot, lim)
		if err != nil {
			if !errors.Is(err, ErrBadDesc) || d != (Desc{}) {
				t.Fatalf("DecodeDesc = %+v, %v; a failure must be ErrBadDesc with a zero Desc", d, err)
			}
			return
		}
		// The documented invariants of an accepted descriptor.
		if len(slot) < SlotSize {
			t.Fatalf("accepted a %d-byte slot", len(slot))
		}
		if d.Kind < KindInline || d.Kind > kindMax || d.Flags&^flagsKnown != 0 || d.MsgLen > MaxMessage {
			t.Fatalf("accepted %+v", d)
		}
		switch d.Kind {
		case KindSpan:
			if d.FragLen <= InlineMax || d.FragLen > SpanMax || uint64(d.FragLen) != d.MsgLen || d.Flags != 0 {
				t.Fatalf("accepted span %+v", d)
			}
		case KindInline, KindControl:
			if d.FragLen > InlineMax || uint64(d.FragLen) != d.MsgLen {
				t.Fatalf("accepted inline %+v", d)
			}
			p := InlinePayload(slot, &d) // must not panic
			if len(p) != int(d.FragLen) || !bytes.Equal(p, slot[DescHeaderSize:DescHeaderSize+len(p)]) {
				t.Fatalf("InlinePayload is %d bytes, want %d", len(p), d.FragLen)
			}
			if DescHeaderSize+len(p) > descExt {
				t.Fatalf("inline payload [%d,%d) runs into the extension line at %d", DescHeaderSize, DescHeaderSize+len(p), descExt)
			}
		case KindFirst, KindNext:
			if d.Cell >= lim.Cells || d.FragLen == 0 || d.FragLen > lim.CellSize || uint64(d.FragLen) > d.MsgLen {
				t.Fatalf("accepted %+v under %+v", d, lim)
			}
			if useChannel {
				c := ch.Cell(d.Cell)[:d.FragLen] // must not panic
				lo := uintptr(unsafe.Pointer(&c[0]))
				base := uintptr(unsafe.Pointer(&r.mem[ch.base+r.L.CellsOff]))
				if lo < base || lo+uintptr(len(c)) > base+uintptr(r.L.CellsPerChannel*r.L.CellSize) {
					t.Fatalf("cell %d's payload lies outside the channel's cell area", d.Cell)
				}
			}
		case KindAck:
			if d.FragLen != 0 {
				t.Fatalf("accepted an ack with payload: %+v", d)
			}
		}
		// Re-encoding is canonical: the same descriptor, and the same bytes
		// in every field its kind carries.
		again := make([]byte, SlotSize)
		EncodeDesc(again, &d)
		if d2, err := DecodeDesc(again, lim); err != nil || d2 != d {
			t.Fatalf("re-encoded %+v decodes to %+v, %v", d, d2, err)
		}
		for i, o := range descOwned(d.Kind, d.Flags) {
			if o && again[i] != slot[i] {
				t.Fatalf("re-encoding %+v changes byte %d: %#x, input %#x", d, i, again[i], slot[i])
			}
		}
	})
}

// FuzzDecodeHeader feeds decodeHeader arbitrary files: the header bytes,
// any of them, followed by zeros up to fileLen (the rest of a file is never
// read by decodeHeader; keeping it out of the input keeps inputs small). The
// low bits of repair optionally fix the magic, the version and the checksum,
// so the fuzzer gets past them to the layout checks. An accepted header must
// describe a layout that fits in the bytes it came from, computed without
// overflow, and every structure the layout names must be reachable inside
// them.
func FuzzDecodeHeader(f *testing.F) {
	for _, c := range []struct {
		n   int
		cfg Config
	}{{1, tinyConfig}, {2, tinyConfig}, {3, Config{MinCells: 3, CellSize: 128, Slots: 4}}, {70, tinyConfig}} {
		r, err := CreateAnonymous(c.n, c.cfg)
		if err != nil {
			f.Fatal(err)
		}
		hdr := bytes.Clone(r.mem[:headerSize])
		size := uint32(r.L.Size)
		r.Close()
		f.Add(hdr, size, uint8(0))
		f.Add(hdr, size-1, uint8(0))
		f.Add(hdr[:hdrChecksum+8], size, uint8(0))
		hdr[hdrRanks]++
		f.Add(hdr, size, uint8(4))
	}
	// Individually legal, enormous together: one mutation away from a size
	// that overflows.
	huge := make([]byte, headerSize)
	putHeader(huge, maxRanks, 2, 1<<24, 1, 0)
	f.Add(huge, uint32(pageSize), uint8(7))
	f.Add([]byte{}, uint32(0), uint8(0))
	f.Add(make([]byte, headerSize-1), uint32(0), uint8(7))
	f.Add(make([]byte, headerSize), uint32(pageSize), uint8(7))

	const maxFile = 4 << 20
	f.Fuzz(func(t *testing.T, hdr []byte, fileLen uint32, repair uint8) {
		mem := make([]byte, max(len(hdr), int(fileLen%maxFile)))
		copy(mem, hdr)
		if int64(len(mem)) >= headerSize {
			le := binary.LittleEndian
			if repair&1 != 0 {
				le.PutUint64(mem[hdrMagic:], magic)
			}
			if repair&2 != 0 {
				le.PutUint64(mem[hdrVersion:], LayoutVersion)
			}
			if repair&4 != 0 {
				le.PutUint64(mem[hdrChecksum:], headerChecksum(mem))
			}
		}
		l, err := decodeHeader(mem)
		if err != nil {
			if l != (Layout{}) {
				t.Fatalf("failed decode returned %+v", l)
			}
			for _, s := range []error{ErrBadMagic, ErrVersion, ErrChecksum, ErrLayout, ErrTooSmall} {
				if errors.Is(err, s) {
					return
				}
			}
			t.Fatalf("decodeHeader error %v wraps no sentinel", err)
		}
		// The true size, in exact arithmetic, first: a wrapped Size would
		// make the checks below walk an astronomically large layout.
		// The channels come first, then the gate blocks, which end the
		// region.
		chanEnd := new(big.Int).Mul(big.NewInt(l.ChannelStride), big.NewInt(int64(l.ArenaChannels)))
		chanEnd.Add(chanEnd, big.NewInt(l.ChannelOff))
		size := new(big.Int).Mul(big.NewInt(l.GateStride), big.NewInt(int64(l.GateBlocks)))
		size.Add(size, big.NewInt(l.GateOff))
		if chanEnd.Cmp(big.NewInt(l.GateOff)) > 0 {
			t.Fatalf("accepted %+v: channels end at %v, past the gates at %d", l, chanEnd, l.GateOff)
		}
		if l.Size <= 0 || size.Cmp(big.NewInt(l.Size)) != 0 || size.Cmp(big.NewInt(int64(len(mem)))) > 0 {
			t.Fatalf("accepted %+v: true size %v, Size %d, input %d bytes", l, size, l.Size, len(mem))
		}
		if problems := layoutProblems(l); len(problems) > 0 {
			t.Fatalf("accepted %+v: %v", l, problems)
		}
		// Touch the last of everything through the real accessors, on a
		// copy with the alignment a mapping would give.
		words := make([]uint64, (len(mem)+7)/8)
		buf := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), len(mem))
		copy(buf, mem)
		r := &Region{mem: buf, L: l}
		last := l.Ranks - 1
		r.Doorbell(last).Ring()
		s := r.Summary(last)
		s.Mark(last)
		if s.Word(s.Words()-1) == 0 {
			t.Fatalf("summary bit of rank %d did not stick", last)
		}
		if l.Ranks > 1 {
			// The fuzzed bytes past the header may claim the arena full
			// or its table taken: an error then, never a panic.
			ch, err := r.OpenChannel(last, last-1)
			if err != nil {
				return
			}
			ch.Cell(uint32(l.CellsPerChannel - 1))[l.CellSize-1] = 1
			_ = ch.Producer().Reserve()
			_ = ch.Consumer().Ready()
			ch.Returns().Put(uint32(l.CellsPerChannel - 1))
			if in, ok, err := r.IncomingChannel(last, last-1); !ok || err != nil || in != ch {
				t.Fatalf("IncomingChannel after OpenChannel: %v %v", ok, err)
			}
		}
	})
}

// The rendezvous descriptors: round trip, and the checks that keep a forged
// RTS from naming an empty or wrapping range.
func TestDescRendezvous(t *testing.T) {
	lim := Limits{Cells: 8, CellSize: 4096}
	slot := make([]byte, SlotSize)
	good := []Desc{
		{Kind: KindRTS, Ctx: 4, Tag: 5, Addr: 0x7f0000001000, MsgLen: 1 << 20, ReqID: 77},
		{Kind: KindFin, ReqID: 77},
		{Kind: KindNack, Addr: 12, ReqID: 77},
		{Kind: KindFirst, Flags: FlagResend, Cell: 2, MsgLen: 9000, FragLen: 4096, ReqID: 12},
	}
	for _, d := range good {
		clear(slot)
		EncodeDesc(slot, &d)
		got, err := DecodeDesc(slot, lim)
		if err != nil || got != d {
			t.Errorf("round trip of %+v: %+v, %v", d, got, err)
		}
	}
	bad := []struct {
		name string
		d    Desc
	}{
		{"RTS of zero bytes", Desc{Kind: KindRTS, Addr: 4096, MsgLen: 0}},
		{"RTS at address 0", Desc{Kind: KindRTS, Addr: 0, MsgLen: 10}},
		{"RTS range wraps", Desc{Kind: KindRTS, Addr: math.MaxUint64 - 4, MsgLen: 10}},
		{"RTS with payload", Desc{Kind: KindRTS, Addr: 4096, MsgLen: 10, FragLen: 10}},
		{"FIN with payload", Desc{Kind: KindFin, FragLen: 1}},
		{"resend flag on an RTS", Desc{Kind: KindRTS, Flags: FlagResend, Addr: 4096, MsgLen: 10}},
		{"resend flag on a fragment", Desc{Kind: KindNext, Flags: FlagResend, Cell: 1, MsgLen: 10, FragLen: 10}},
	}
	for _, tc := range bad {
		clear(slot)
		EncodeDesc(slot, &tc.d)
		if _, err := DecodeDesc(slot, lim); !errors.Is(err, ErrBadDesc) {
			t.Errorf("%s: err %v, want ErrBadDesc", tc.name, err)
		}
	}
}
