package main

import (
	"encoding/binary"
	"testing"

	"github.com/hympi/hympi/shm"
)

// TestFastLaneLayout holds fastlane.h to the layout shm/fastlane.go
// documents and the Go engine writes.
func TestFastLaneLayout(t *testing.T) {
	c := flLayout()
	for name, want := range shm.FastLaneLayout() {
		if got, ok := c[name]; !ok || got != want {
			t.Errorf("fastlane.h %s = %d (present %v), shm says %d", name, got, ok, want)
		}
	}
	if len(c) != len(shm.FastLaneLayout()) {
		t.Errorf("fastlane.h names %d constants, shm %d", len(c), len(shm.FastLaneLayout()))
	}
}

// goTakes is the Go engine's receive rule for a published slot
// (mpi/fastlane.go): the whole descriptor validated by shm.DecodeDesc, then
// an inline message without flags of this context and tag that fits.
func goTakes(slot []byte, ctx uint32, tag int, capacity, small int64) (uint32, bool) {
	d, err := shm.DecodeDesc(slot, shm.Limits{Cells: 16, CellSize: 4096})
	if err != nil || d.Kind != shm.KindInline && d.Kind != shm.KindSpan || d.Flags != 0 || d.Ctx != ctx {
		return 0, false
	}
	if tag != -2 && d.Tag != int32(tag) { // -2: MPI_ANY_TAG in the standard ABI
		return 0, false
	}
	if int64(d.FragLen) > capacity || int64(d.FragLen) > small {
		return 0, false
	}
	return d.FragLen, true
}

func slotOf(kind, flags byte, ctx uint32, tag int32, n uint32) []byte {
	s := make([]byte, shm.SlotSize)
	s[8], s[9] = kind, flags
	le := binary.LittleEndian
	le.PutUint32(s[12:], ctx)
	le.PutUint32(s[16:], uint32(tag))
	le.PutUint32(s[20:], n)
	return s
}

// FuzzFastLaneSlot checks that C's look at a slot a peer wrote takes
// exactly what the Go engine's rule would take, whatever the peer wrote.
func FuzzFastLaneSlot(f *testing.F) {
	for _, s := range []struct {
		kind, flags byte
		ctx         uint32
		tag         int32
		n           uint32
		want        uint32
		wtag        int32
		capacity    int64
	}{
		{1, 0, 4, 7, 8, 4, 7, 8},                   // takes
		{1, 0, 4, 7, 8, 4, -2, 8},                  // any tag
		{1, 0, 4, 7, 0, 4, 7, 0},                   // empty
		{1, 0, 4, 7, shm.InlineMax, 4, 7, 1 << 20}, // largest
		{1, 0, 4, 7, shm.InlineMax + 1, 4, 7, 1 << 20},
		{1, 0, 4, 7, 1 << 31, 4, 7, 1 << 40},
		{1, 0, 4, 7, 9, 4, 7, 8}, // truncation
		{1, 1, 4, 7, 8, 4, 7, 8}, // synchronous
		{1, 4, 4, 7, 8, 4, 7, 8}, // unknown flag
		{2, 0, 4, 7, 8, 4, 7, 8}, // a stream
		{0, 0, 4, 7, 8, 4, 7, 8},
		{200, 0, 4, 7, 8, 4, 7, 8},
		{1, 0, 5, 7, 8, 4, 7, 8},                        // other context
		{1, 0, 4, 6, 8, 4, 7, 8},                        // other tag
		{1, 0, 4, -5, 8, 4, -2, 8},                      // a negative tag a peer wrote
		{11, 0, 4, 7, shm.InlineMax + 1, 4, 7, 1 << 20}, // the smallest span
		{11, 0, 4, 7, shm.SpanMax, 4, 7, 1 << 20},       // the largest
		{11, 0, 4, 7, shm.SpanMax + 1, 4, 7, 1 << 20},
		{11, 0, 4, 7, shm.InlineMax, 4, 7, 1 << 20}, // a span that would fit inline
		{11, 1, 4, 7, 2048, 4, 7, 1 << 20},          // a synchronous span
		{11, 0, 4, 7, 2048, 4, 7, 2047},             // truncation
	} {
		f.Add(s.kind, s.flags, s.ctx, s.tag, s.n, s.want, s.wtag, s.capacity, int64(shm.SpanMax))
	}
	f.Fuzz(func(t *testing.T, kind, flags byte, ctx uint32, tag int32, n, wctx uint32, wtag int32, capacity, small int64) {
		if capacity < 0 {
			capacity = -capacity
		}
		slot := slotOf(kind, flags, ctx, tag, n)
		gn, gok := goTakes(slot, wctx, int(wtag), capacity, small)
		cn, cok := flCheckSlot(slot, wctx, int(wtag), capacity, small)
		if gok != cok || gok && gn != cn {
			t.Fatalf("slot kind %d flags %#x ctx %d tag %d len %d; receive ctx %d tag %d cap %d small %d: Go (%d, %v), C (%d, %v)",
				kind, flags, ctx, tag, n, wctx, wtag, capacity, small, gn, gok, cn, cok)
		}
	})
}
