package shm

import (
	"math"
	"testing"
)

// TestEncodeInline: the two-store encoder writes exactly what EncodeDesc
// writes for an inline descriptor without flags, in every byte the kind
// owns, and DecodeDesc's inline shortcut returns what the general decoder
// would (the same Desc as a re-encode through EncodeDesc).
func TestEncodeInline(t *testing.T) {
	tests := []struct {
		ctx uint32
		tag int32
		n   uint32
	}{
		{0, 0, 0},
		{1, 5, 8},
		{7, math.MaxInt32, InlineMax},
		{math.MaxUint32, -1, 1},
		{0x01020304, 0x05060708, 40},
	}
	for _, tc := range tests {
		want := make([]byte, SlotSize)
		d := Desc{Kind: KindInline, Ctx: tc.ctx, Tag: tc.tag, MsgLen: uint64(tc.n), FragLen: tc.n}
		EncodeDesc(want, &d)
		got := make([]byte, SlotSize)
		for i := range got {
			got[i] = 0xAA // bytes the kind does not own may hold anything
		}
		EncodeInline(got, tc.ctx, tc.tag, tc.n)
		for i, owned := range descOwned(KindInline, 0) {
			if owned && got[i] != want[i] {
				t.Errorf("%+v: byte %d is %#x, EncodeDesc writes %#x", tc, i, got[i], want[i])
			}
		}
		dec, err := DecodeDesc(got, Limits{})
		if err != nil || dec != d {
			t.Errorf("%+v: decodes to %+v, %v; want %+v", tc, dec, err, d)
		}
	}
	// A length beyond InlineMax is refused by the shortcut's one check.
	slot := make([]byte, SlotSize)
	EncodeInline(slot, 1, 1, InlineMax+1)
	if _, err := DecodeDesc(slot, Limits{}); err == nil {
		t.Errorf("an inline length of %d was accepted", InlineMax+1)
	}
}
