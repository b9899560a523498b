package shm

import (
	"sync/atomic"
	"time"
)

// Doorbell is how a rank sleeps until a peer gives it something to do, and
// how a peer wakes it without a syscall when it is awake.
//
// Words (in the owner's rank block, one cache line):
//
//	seq:      futex word. Incremented by any rank that finds sleepers > 0
//	          after publishing work; waited on by the owner.
//	sleepers: number of the owner's threads between Arm and Disarm; written
//	          by the owner, read by every peer after it publishes.
//
// Sleep protocol (owner): s := Arm(); re-check all work; Wait(s); Disarm().
// Wake protocol (peer): publish the work; Ring().
// Both sides use sequentially consistent atomics, so either the owner's
// re-check sees the work or the peer sees sleepers > 0 and bumps seq, which
// makes the futex wait return at once if it has not started yet.
type Doorbell struct {
	seq, sleepers *atomic.Uint32
}

// Doorbell returns rank's doorbell.
func (r *Region) Doorbell(rank int) Doorbell {
	b := r.rankBlock(rank)
	return Doorbell{seq: r.u32At(b + rbBellSeq), sleepers: r.u32At(b + rbSleepers)}
}

// Arm announces an intention to sleep and returns the value to Wait on.
func (d Doorbell) Arm() uint32 {
	s := d.seq.Load()
	d.sleepers.Add(1)
	return s
}

// Disarm ends an Arm, whether or not Wait was called.
func (d Doorbell) Disarm() { d.sleepers.Add(^uint32(0)) }

// Wait sleeps until the doorbell rings after Arm returned seq, or timeout
// passes, or a signal interrupts; spurious returns are allowed.
func (d Doorbell) Wait(seq uint32, timeout time.Duration) {
	futexWait(d.seq, seq, timeout)
}

// Asleep reports whether any of the owner's threads is between Arm and
// Disarm.
func (d Doorbell) Asleep() bool { return d.sleepers.Load() != 0 }

// Ring wakes the owner if it is (about to be) asleep. Costs one load when
// it is awake, and inlines into the send paths, which ring once a message.
func (d Doorbell) Ring() {
	if d.sleepers.Load() != 0 {
		d.wake()
	}
}

// wake is kept out of line so that Ring stays small enough to inline.
//
//go:noinline
func (d Doorbell) wake() {
	d.seq.Add(1)
	futexWake(d.seq)
}

// Summary is the receiver's set of incoming channels that may hold
// descriptors: bit s of word s/64 is set by sender s after it publishes and
// found clear, and cleared by the receiver only when it has found the channel
// empty (it re-checks the channel after clearing, so a publish racing with
// the clear is never lost). Senders thus pay an atomic OR only when the
// receiver has gone idle on them, and a receiver's progress pass costs
// O(active senders).
type Summary struct {
	words []atomic.Uint64
}

// Summary returns rank's incoming-channel summary.
func (r *Region) Summary(rank int) Summary {
	return Summary{words: r.u64sAt(r.rankBlock(rank)+rbSummary, r.L.SummaryWords)}
}

// Mark sets sender src's bit if it is not already set.
func (s Summary) Mark(src int) {
	w := &s.words[src>>6]
	bit := uint64(1) << (src & 63)
	if w.Load()&bit == 0 {
		w.Or(bit)
	}
}

// Has reports whether src's bit is set.
func (s Summary) Has(src int) bool { return s.words[src>>6].Load()&(uint64(1)<<(src&63)) != 0 }

// Clear removes sender src's bit.
func (s Summary) Clear(src int) { s.words[src>>6].And(^(uint64(1) << (src & 63))) }

// Word returns word i of the set (senders 64i..64i+63).
func (s Summary) Word(i int) uint64 { return s.words[i].Load() }

// Words is the number of words in the set.
func (s Summary) Words() int { return len(s.words) }
