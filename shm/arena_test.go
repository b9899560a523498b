package shm

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestArenaOnFirstUse: a fresh region has no channel; opening one hands out
// exactly one arena slot, which the receiver then finds, and opening it
// again (or finding it again) hands out nothing more.
func TestArenaOnFirstUse(t *testing.T) {
	r := newAnon(t, 4, tinyConfig)
	if r.ChannelsUsed() != 0 || r.UsedBytes() != r.L.ChannelOff {
		t.Fatalf("fresh region: %d channels, %d bytes used", r.ChannelsUsed(), r.UsedBytes())
	}
	for src := range 4 {
		for dst := range 4 {
			if src == dst {
				continue
			}
			if _, ok, err := r.IncomingChannel(src, dst); ok || err != nil {
				t.Fatalf("%d→%d before anyone sent: %v %v", src, dst, ok, err)
			}
		}
	}
	pairs := [][2]int{{0, 1}, {1, 0}, {3, 2}, {0, 3}}
	for i, p := range pairs {
		c, err := r.OpenChannel(p[0], p[1])
		if err != nil {
			t.Fatal(err)
		}
		if c.base != r.L.channelBase(i) || r.ChannelsUsed() != i+1 || r.UsedBytes() != r.L.channelBase(i+1) {
			t.Errorf("channel %v at %d (%d used), want slot %d", p, c.base, r.ChannelsUsed(), i)
		}
		again, err := r.OpenChannel(p[0], p[1])
		in, ok, err2 := r.IncomingChannel(p[0], p[1])
		if err != nil || err2 != nil || !ok || again != c || in != c || r.ChannelsUsed() != i+1 {
			t.Errorf("channel %v opened again: %v %v %v; found %v, %d used", p, again == c, err, err2, in == c, r.ChannelsUsed())
		}
	}
	if _, ok, _ := r.IncomingChannel(2, 3); ok {
		t.Errorf("channel 2→3 exists though only 3→2 was opened")
	}
}

// TestArenaRefusals: what a receiver does with table entries and idents it
// did not expect, and what a sender does when the arena is full.
func TestArenaRefusals(t *testing.T) {
	for _, c := range []struct {
		name  string
		spoil func(r *Region)
		want  error
	}{
		{"entry past the arena", func(r *Region) { r.table(1)[0].Store(uint32(r.L.ArenaChannels) + 1) }, ErrCorrupt},
		{"entry past the slots handed out", func(r *Region) { r.table(1)[0].Store(2) }, ErrCorrupt},
		{"entry for another pair's channel", func(r *Region) {
			r.Channel(2, 1)
			r.table(1)[0].Store(1)
		}, ErrCorrupt},
		{"ident overwritten", func(r *Region) {
			c := r.Channel(0, 1)
			r.u64At(c.base + r.L.IdentOff).Store(identOf(1, 0))
		}, ErrCorrupt},
		{"slot count wrapped", func(r *Region) {
			r.Channel(0, 1)
			r.u64At(hdrArena).Store(0)
		}, ErrCorrupt},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newAnon(t, 3, tinyConfig)
			c.spoil(r)
			if _, ok, err := r.IncomingChannel(0, 1); ok || !errors.Is(err, c.want) {
				t.Errorf("IncomingChannel: %v %v, want %v", ok, err, c.want)
			}
			if _, err := r.OpenChannel(0, 1); !errors.Is(err, c.want) {
				t.Errorf("OpenChannel: %v, want %v", err, c.want)
			}
		})
	}
	t.Run("arena full", func(t *testing.T) {
		r := newAnon(t, 3, tinyConfig)
		r.u64At(hdrArena).Store(uint64(r.L.ArenaChannels))
		_, err := r.OpenChannel(0, 1)
		if !errors.Is(err, ErrArenaFull) || !strings.Contains(err.Error(), "HYMPI_SHM_BUDGET") {
			t.Errorf("OpenChannel on a full arena: %v; want ErrArenaFull naming HYMPI_SHM_BUDGET", err)
		}
		if _, ok, err := r.IncomingChannel(0, 1); ok || err != nil {
			t.Errorf("a refused channel was published: %v %v", ok, err)
		}
	})
}

// FuzzIncomingChannel: whatever a table entry, a channel's ident and the
// header's slot count hold, IncomingChannel never panics and returns a
// channel only inside the slots handed out, for the pair asked about.
func FuzzIncomingChannel(f *testing.F) {
	f.Add(uint32(1), uint64(identOf(0, 1)), uint64(1), uint8(0), uint8(1))
	f.Add(uint32(0), uint64(0), uint64(0), uint8(2), uint8(1))
	f.Add(uint32(7), uint64(identOf(2, 3)), uint64(9), uint8(2), uint8(3))
	f.Add(^uint32(0), ^uint64(0), ^uint64(0), uint8(3), uint8(0))
	r, err := CreateAnonymous(4, tinyConfig)
	if err != nil {
		f.Fatal(err)
	}
	defer r.Close()
	f.Fuzz(func(t *testing.T, entry uint32, ident, used uint64, src, dst uint8) {
		s, d := int(src%4), int(dst%4)
		if s == d {
			return
		}
		clear(r.mem[:r.L.channelBase(min(r.L.ArenaChannels, 8))])
		r.writeHeader()
		r.table(d)[s].Store(entry)
		r.u64At(hdrArena).Store(used)
		if k := int64(entry) - 1; k >= 0 && k < int64(r.L.ArenaChannels) {
			r.u64At(r.L.channelBase(int(k)) + r.L.IdentOff).Store(ident)
		}
		c, ok, err := r.IncomingChannel(s, d)
		switch {
		case entry == 0:
			if ok || err != nil {
				t.Fatalf("empty entry: %v %v", ok, err)
			}
		case ok:
			if err != nil || c.Src != s || c.Dst != d || c.base < r.L.ChannelOff || c.base >= r.UsedBytes() ||
				(c.base-r.L.ChannelOff)%r.L.ChannelStride != 0 || r.u64At(c.base+r.L.IdentOff).Load() != identOf(s, d) {
				t.Fatalf("accepted entry %d (ident %#x, %d used): channel at %d for %d→%d", entry, ident, used, c.base, c.Src, c.Dst)
			}
			_ = c.Consumer().Ready()
			_ = c.Cell(uint32(r.L.CellsPerChannel - 1))
		case !errors.Is(err, ErrCorrupt):
			t.Fatalf("refusal %v is not ErrCorrupt", err)
		}
	})
}

// TestWaitAttached: a rank waiting for the others is woken by the last one
// to attach, not by its timeout (an hour here), and returns at once when
// everyone is in.
func TestWaitAttached(t *testing.T) {
	r := newAnon(t, 3, tinyConfig)
	done := make(chan struct{})
	go func() {
		for r.Attached() < 3 {
			r.WaitAttached(time.Hour)
		}
		close(done)
	}()
	r.MarkAttached(0, 100)
	r.MarkAttached(1, 101)
	select {
	case <-done:
		t.Fatal("woke before every rank attached")
	case <-time.After(20 * time.Millisecond):
	}
	r.MarkAttached(2, 102)
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the last attach did not wake the waiter")
	}
	r.WaitAttached(time.Hour) // everyone is in: must not sleep
}
