// Package skew owns hympi's skew-aware threshold policy: the rule that turns
// what a receiver reports about one sender — how many of that sender's
// messages wait in its unexpected queue — into the sender's eager→direct
// threshold toward that receiver.
//
// The threshold is in bytes: a message of n bytes goes eager (through shared
// memory; the send completes at once) when n <= threshold, and by direct
// copy (rendezvous; the send waits for the receiver) above it. A long
// unexpected queue means the receiver is behind, so the sender would wait on
// every rendezvous: the controller raises the threshold and sends go eager.
// When the queue stays short the receiver has caught up, and the threshold
// decays back to its base, where the single copy is cheaper.
//
// The package is pure: no I/O, no clock, no goroutines, no allocation. A
// Controller is a small value holding one peer's state; the same
// observations always give the same thresholds, so behaviour is tested as
// exact traces. The package does not own where the queue length comes from
// (package mpi: the receiver publishes it in the shared region, the sender
// reads it), when to observe (mpi observes before it picks the protocol of a
// message), nor the values of the bounds: Base is the topology threshold of
// the pair and Ceiling is what the shared-memory cells of the pair can
// carry, both decided by the caller.
//
// # Policy
//
//   - Fast to react: one observation with the queue at or above RaiseAt
//     raises at once. Observe multiplies the threshold by RaiseFactor
//     (from at least MinRaise); ObserveSize raises just enough that the
//     message at hand goes eager (its size rounded up to a power of two).
//   - Stable: between LowerAt and RaiseAt (exclusive) the threshold holds.
//     Lowering needs Patience consecutive observations at or below LowerAt;
//     anything else breaks the streak. Each lowering halves the threshold
//     toward Base and starts a new streak, so a noisy queue never makes the
//     threshold flap, and a return to Base from Ceiling takes
//     Patience·⌈log2(Ceiling/Base)⌉ quiet observations.
//   - Bounded: Base <= threshold <= Ceiling always.
//   - Cheap: O(1) integer arithmetic per observation.
package skew

import (
	"math/bits"
	"strconv"
)

// Defaults of DefaultConfig and of Config fields left at zero (see
// Config.Normalize).
const (
	DefaultRaiseAt  = 4 // queue length at which the sender counts as ahead
	DefaultLowerAt  = 1 // queue length at which the receiver counts as caught up
	DefaultPatience = 8 // quiet observations per lowering step
)

// RaiseFactor is Observe's multiplicative raise, and MinRaise the least
// threshold a raise by Observe lands on (so a Base of 0 or a few bytes
// still moves at once to a useful size). Both are clamped to Ceiling.
const (
	RaiseFactor = 4
	MinRaise    = 4096
)

// Config bounds and tunes a Controller. Use DefaultConfig for the
// recommended settings; New applies Normalize to whatever it is given.
type Config struct {
	Base    int // topology threshold: the threshold never goes below it
	Ceiling int // the threshold never goes above it (tie it to the cells available per pair)
	// RaiseAt is the queue length (messages) at or above which the sender
	// is considered ahead of the receiver: the observation raises.
	RaiseAt int
	// LowerAt is the queue length at or below which the receiver is
	// considered caught up: the observation counts toward a lowering.
	LowerAt int
	// Patience is how many consecutive caught-up observations make one
	// lowering step.
	Patience int
}

// DefaultConfig returns the recommended configuration between base and
// ceiling: RaiseAt 4, LowerAt 1, Patience 8.
func DefaultConfig(base, ceiling int) Config {
	return Config{
		Base:     base,
		Ceiling:  ceiling,
		RaiseAt:  DefaultRaiseAt,
		LowerAt:  DefaultLowerAt,
		Patience: DefaultPatience,
	}
}

// Normalize returns c with every field made valid, the same way New does:
//
//   - Base < 0 becomes 0.
//   - Ceiling < Base becomes Base: a controller that cannot move (skew
//     adaptation off for that pair, e.g. when the cells hold no more than
//     Base).
//   - RaiseAt <= 0 becomes DefaultRaiseAt.
//   - Patience <= 0 becomes DefaultPatience.
//   - LowerAt < 0 becomes 0 (0 is a valid setting: only an empty queue
//     counts as caught up), and LowerAt >= RaiseAt becomes RaiseAt-1, so
//     "ahead" and "caught up" never overlap.
func (c Config) Normalize() Config {
	c.Base = max(c.Base, 0)
	c.Ceiling = max(c.Ceiling, c.Base)
	if c.RaiseAt <= 0 {
		c.RaiseAt = DefaultRaiseAt
	}
	if c.Patience <= 0 {
		c.Patience = DefaultPatience
	}
	c.LowerAt = min(max(c.LowerAt, 0), c.RaiseAt-1)
	return c
}

// Move is what an observation did to the threshold.
type Move int8

const (
	Lowered Move = -1
	Held    Move = 0
	Raised  Move = +1
)

func (m Move) String() string {
	switch m {
	case Lowered:
		return "lowered"
	case Held:
		return "held"
	case Raised:
		return "raised"
	}
	return "Move(" + strconv.Itoa(int(m)) + ")"
}

// Controller is one sender's threshold toward one receiver. Make it with
// New; it is a plain value (copy it to snapshot it) and is not safe for
// concurrent use. The zero Controller has Base = Ceiling = 0: its threshold
// is 0 and never moves.
type Controller struct {
	cfg  Config
	thr  int
	calm int // consecutive caught-up observations since the last lowering or interruption; < Patience
}

// New returns a controller at cfg.Normalize().Base.
func New(cfg Config) Controller {
	cfg = cfg.Normalize()
	return Controller{cfg: cfg, thr: cfg.Base}
}

// Config returns the controller's normalized configuration.
func (c *Controller) Config() Config { return c.cfg }

// Threshold returns the current threshold.
func (c *Controller) Threshold() int { return c.thr }

// Observe takes one report of the receiver's unexpected-queue length
// (messages from this sender; a negative value counts as 0) and returns the
// new threshold and how it moved. At or above RaiseAt it raises at once to
// RaiseFactor times the threshold (at least MinRaise), clamped to Ceiling.
func (c *Controller) Observe(queueLen int) (threshold int, m Move) {
	if queueLen >= c.cfg.RaiseAt {
		c.calm = 0
		t := c.cfg.Ceiling
		if c.thr <= c.cfg.Ceiling/RaiseFactor {
			t = min(max(c.thr*RaiseFactor, MinRaise), c.cfg.Ceiling)
		}
		return c.raiseTo(t)
	}
	return c.quiet(queueLen)
}

// ObserveSize is Observe for a sender about to send a msgSize-byte message:
// at or above RaiseAt it raises just enough for that message to go eager —
// to msgSize rounded up to a power of two, clamped to Ceiling — and not at
// all if the message is already eager (msgSize <= threshold). One
// observation then adapts a stream of same-sized messages, and the
// threshold does not climb past what the traffic needs, so it also comes
// back sooner. Below RaiseAt it is exactly Observe.
func (c *Controller) ObserveSize(queueLen, msgSize int) (threshold int, m Move) {
	if queueLen >= c.cfg.RaiseAt {
		c.calm = 0
		if msgSize <= c.thr {
			return c.thr, Held
		}
		return c.raiseTo(ceilPow2(min(msgSize, c.cfg.Ceiling), c.cfg.Ceiling))
	}
	return c.quiet(queueLen)
}

func (c *Controller) raiseTo(t int) (int, Move) {
	if t <= c.thr {
		return c.thr, Held
	}
	c.thr = t
	return t, Raised
}

// quiet handles an observation below RaiseAt: a hold in the band, one more
// step of the streak at or below LowerAt.
func (c *Controller) quiet(queueLen int) (int, Move) {
	if queueLen > c.cfg.LowerAt {
		c.calm = 0
		return c.thr, Held
	}
	c.calm++
	if c.calm < c.cfg.Patience {
		return c.thr, Held
	}
	c.calm = 0
	if c.thr <= c.cfg.Base {
		return c.thr, Held
	}
	c.thr = max(c.thr/2, c.cfg.Base)
	return c.thr, Lowered
}

// ceilPow2 is the least power of two >= n, or limit if that is larger than
// limit (n <= limit). Used with n >= 1.
func ceilPow2(n, limit int) int {
	if n <= 1 {
		return min(1, limit)
	}
	shift := bits.Len(uint(n - 1))
	if shift >= bits.UintSize-1 {
		return limit
	}
	return min(1<<shift, limit)
}
