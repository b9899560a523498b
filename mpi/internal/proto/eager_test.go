package proto

import (
	"errors"
	"testing"

	"github.com/hympi/hympi/shm"
)

// TestFrameSend checks how a send is framed at each step: which kind the
// next descriptor has, which flags it keeps, and what it names.
func TestFrameSend(t *testing.T) {
	tests := []struct {
		name      string
		n         int
		sync      bool
		step      func(d *shm.Desc) bool // false: not applicable
		kind      shm.Kind
		flags     uint8
		frag      uint32
		id, addr  uint64
		cell      uint32
		wantApply bool
	}{
		{"inline", 8, false, func(d *shm.Desc) bool { return Inline(d, false, 8) }, shm.KindInline, 0, 8, 7, 0, 0, true},
		{"inline sync", shm.InlineMax, true, func(d *shm.Desc) bool { return Inline(d, false, shm.InlineMax) }, shm.KindInline, shm.FlagSync, uint32(shm.InlineMax), 7, 0, 0, true},
		{"too big to inline", shm.InlineMax + 1, false, func(d *shm.Desc) bool { return Inline(d, false, shm.InlineMax+1) }, 0, 0, 0, 7, 0, 0, false},
		{"started is never inline", 8, false, func(d *shm.Desc) bool { return Inline(d, true, 8) }, 0, 0, 0, 7, 0, 0, false},
		{"first fragment keeps sync", 1 << 20, true, func(d *shm.Desc) bool { Fragment(d, true, 3, 4096); return true }, shm.KindFirst, shm.FlagSync, 4096, 7, 0, 3, true},
		{"next fragment drops flags", 1 << 20, true, func(d *shm.Desc) bool { Fragment(d, false, 4, 100); return true }, shm.KindNext, 0, 100, 7, 0, 4, true},
		{"rts drops sync", 1 << 20, true, func(d *shm.Desc) bool { RTS(d, 0xbeef); return true }, shm.KindRTS, 0, 0, 7, 0xbeef, 0, true},
		{"resend first", 1 << 20, true, func(d *shm.Desc) bool { Resend(d, 99); Fragment(d, true, 1, 10); return true }, shm.KindFirst, shm.FlagResend, 10, 99, 0, 1, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := Envelope(5, -3, tc.n, 7, tc.sync)
			if got := tc.step(&d); got != tc.wantApply {
				t.Fatalf("applies = %v, want %v", got, tc.wantApply)
			}
			if !tc.wantApply {
				if d.Kind != 0 || d.FragLen != 0 {
					t.Fatalf("a step that does not apply changed d: %+v", d)
				}
				return
			}
			want := shm.Desc{Kind: tc.kind, Flags: tc.flags, Ctx: 5, Tag: -3, Cell: tc.cell, Addr: tc.addr, MsgLen: uint64(tc.n), FragLen: tc.frag, ReqID: tc.id}
			if d != want {
				t.Fatalf("got %+v, want %+v", d, want)
			}
		})
	}
}

// TestFlight checks reassembly: a fragment continues a flight only with its
// length and within what is left, and the flight is over when every byte
// is in.
func TestFlight(t *testing.T) {
	type R struct{}
	type U struct{}
	first := shm.Desc{Kind: shm.KindFirst, Ctx: 2, Tag: 9, MsgLen: 250, FragLen: 100}
	f := Start[R, U](&first)
	if f.Total != 250 || f.Ctx != 2 || f.Tag != 9 || f.Got != 0 {
		t.Fatalf("Start = %+v", f)
	}
	if f.Advance(100) {
		t.Fatal("over after 100 of 250 bytes")
	}
	tests := []struct {
		name string
		f    *Flight[R, U]
		d    shm.Desc
		want error
	}{
		{"continues", f, shm.Desc{Kind: shm.KindNext, MsgLen: 250, FragLen: 100}, nil},
		{"exactly the rest", f, shm.Desc{Kind: shm.KindNext, MsgLen: 250, FragLen: 150}, nil},
		{"nothing streaming", nil, shm.Desc{Kind: shm.KindNext, MsgLen: 250, FragLen: 1}, ErrStray},
		{"other length", f, shm.Desc{Kind: shm.KindNext, MsgLen: 251, FragLen: 1}, ErrStray},
		{"past the end", f, shm.Desc{Kind: shm.KindNext, MsgLen: 250, FragLen: 151}, ErrStray},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.f.Follows(&tc.d)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("Follows = %v, want %v", err, tc.want)
			}
			if err != nil && !errors.Is(err, shm.ErrBadDesc) {
				t.Fatalf("%v is not shm.ErrBadDesc", err)
			}
		})
	}
	if f.Advance(100) || !f.Advance(50) {
		t.Fatalf("not over exactly at 250 bytes: got %d", f.Got)
	}
}
