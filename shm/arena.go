package shm

import (
	"fmt"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// Channels on first use. A region holds no channel when it is created: the
// part after the rank blocks is an arena of ArenaChannels channel slots of
// ChannelStride bytes, sparse in the file, and a channel src→dst is carved
// from it by src the first time src sends to dst. So a job's memory grows
// with the pairs that talk (O(n log n) for the collectives' patterns), not
// with n², and a rank's Init touches nothing per peer.
//
// Words (all little-endian, atomic):
//
//	header hdrArena: uint64 count of channel slots handed out. Any sender
//	        takes the next one with an atomic add; a count past
//	        ArenaChannels means the arena is full (the slot is not used).
//	table:  in each rank block, Ranks uint32 entries; entry s of dst's
//	        table is 0 while s has no channel to dst, else 1 + the arena
//	        slot of channel s→dst. Written once, by s, with a CAS from 0
//	        (a non-zero entry it did not write is corruption); read by dst
//	        when s's summary bit shows traffic from s (and by dst's sweep).
//	ident:  in the channel's control line, (src+1) | (dst+1)<<32, stored by
//	        the sender before the table entry, so a receiver that finds the
//	        entry also finds the ident and refuses an entry that points at
//	        another pair's channel.
//
// The sender creates the channel, so the ring pages are reserved
// (fallocate) and first touched by it: on a NUMA machine they would come
// from the sender's node, unless the engine knows the receiver's node and
// the channel is placed there first (numa.go). The cells, which only the sender writes, are reserved one
// by one as the pool first hands each out (CellPool.Get). Nothing a channel
// holds is ever freed before the job ends.
//
// When the file system cannot hold a new channel or cell, the operation
// fails with ErrNoSpace, naming HYMPI_SHM_BUDGET (which sizes the pools);
// when the arena has no slot left (only possible beyond thousands of ranks,
// see maxArenaBytes), with ErrArenaFull. Neither waits.

// ChannelsUsed is how many channel slots of the arena have been handed out.
func (r *Region) ChannelsUsed() int {
	return int(min(r.u64At(hdrArena).Load(), uint64(r.L.ArenaChannels)))
}

// UsedBytes is the extent of the region in use: the fixed part and the
// channels handed out so far (whose cells may still be sparse).
func (r *Region) UsedBytes() int64 { return r.L.channelBase(r.ChannelsUsed()) }

// table is rank's incoming-channel table.
func (r *Region) table(rank int) []atomic.Uint32 {
	return r.u32sAt(r.rankBlock(rank)+r.L.TableOff, r.L.Ranks)
}

func identOf(src, dst int) uint64 { return uint64(src+1) | uint64(dst+1)<<32 }

func (r *Region) checkPair(src, dst int) {
	if src == dst || src < 0 || dst < 0 || src >= r.L.Ranks || dst >= r.L.Ranks {
		panic(fmt.Sprintf("shm: no channel %d→%d in a %d-rank region", src, dst, r.L.Ranks))
	}
}

// OpenChannel returns channel src→dst, creating it when it does not exist
// yet. Only src may create it, and only once per job: the engine calls it
// the first time it sends to dst, and keeps the result.
func (r *Region) OpenChannel(src, dst int) (Channel, error) {
	r.checkPair(src, dst)
	if c, ok, err := r.IncomingChannel(src, dst); ok || err != nil {
		return c, err
	}
	k := r.u64At(hdrArena).Add(1) - 1
	if k >= uint64(r.L.ArenaChannels) {
		return Channel{}, fmt.Errorf("%w: all %d channels of the region are in use (rank %d → %d); lower HYMPI_SHM_BUDGET for smaller channels or run fewer ranks",
			ErrArenaFull, r.L.ArenaChannels, src, dst)
	}
	base := r.L.channelBase(int(k))
	// Before anything reserves or touches a page of it (numa.go).
	r.placeChannel(base, r.L.ChannelStride, dst)
	if err := r.reserveRange(base, r.L.RingBytes()); err != nil {
		return Channel{}, fmt.Errorf("channel %d→%d: %w", src, dst, err)
	}
	// The sender writes every slot of its rings in turn: map them in now
	// rather than fault a page every few messages of the first round.
	r.populate(base, base+r.L.RingBytes())
	r.u64At(base + r.L.IdentOff).Store(identOf(src, dst))
	if !r.table(dst)[src].CompareAndSwap(0, uint32(k)+1) {
		return Channel{}, fmt.Errorf("%w: rank %d's channel table entry for rank %d was written by someone else", ErrCorrupt, dst, src)
	}
	return Channel{r: r, Src: src, Dst: dst, base: base}, nil
}

// IncomingChannel returns channel src→dst if src has created it; ok is false
// while it has not. The table entry and the channel's ident come from the
// region, so both are checked: an entry outside the arena, or one pointing
// at a channel made for another pair, is ErrCorrupt.
func (r *Region) IncomingChannel(src, dst int) (c Channel, ok bool, err error) {
	r.checkPair(src, dst)
	e := r.table(dst)[src].Load()
	if e == 0 {
		return Channel{}, false, nil
	}
	k, err := r.L.checkEntry(e, r.ChannelsUsed())
	if err != nil {
		return Channel{}, false, fmt.Errorf("rank %d's table entry for rank %d: %w", dst, src, err)
	}
	base := r.L.channelBase(k)
	if id := r.u64At(base + r.L.IdentOff).Load(); id != identOf(src, dst) {
		return Channel{}, false, fmt.Errorf("%w: channel %d→%d names pair %d→%d", ErrCorrupt, src, dst,
			int64(id&0xffffffff)-1, int64(id>>32)-1)
	}
	return Channel{r: r, Src: src, Dst: dst, base: base}, true, nil
}

// checkEntry validates a non-zero table entry against the arena and the
// number of slots handed out, returning the arena slot it names.
func (l Layout) checkEntry(e uint32, used int) (int, error) {
	k := int64(e) - 1
	if k < 0 || k >= int64(l.ArenaChannels) || k >= int64(used) {
		return 0, fmt.Errorf("%w: channel slot %d outside the %d handed out (arena of %d)", ErrCorrupt, k, used, l.ArenaChannels)
	}
	return int(k), nil
}

// Channel returns channel src→dst, creating it if need be, and panics when
// it cannot: for tests and tools, which know the region has room.
func (r *Region) Channel(src, dst int) Channel {
	c, err := r.OpenChannel(src, dst)
	if err != nil {
		panic(err)
	}
	return c
}

// reserveRange reserves [off, off+n) in the region's file (nothing for an
// anonymous region).
func (r *Region) reserveRange(off, n int64) error {
	if r.f == nil {
		return nil
	}
	return reserve(int(r.f.Fd()), "", off, n)
}

// populate maps in, writable, the pages holding [start, end) of the region.
// It writes nothing (MADV_POPULATE_WRITE), so it is safe while a peer uses
// them; kernels without it just fault lazily.
func (r *Region) populate(start, end int64) {
	_ = unix.Madvise(r.mem[start&^(pageSize-1):end], unix.MADV_POPULATE_WRITE)
}
