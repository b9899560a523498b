//go:build !ompi && !mpich

package mpi

import (
	"math"
	"time"

	"github.com/hympi/hympi/directcopy"
	"github.com/hympi/hympi/mpi/internal/peer"
	"github.com/hympi/hympi/shm"
	"github.com/hympi/hympi/skew"
)

// Skew feedback. A rendezvous send cannot complete before its receive is
// posted, so a receiver that falls behind stalls its senders. The receiver
// judges, for every message above the pair's base threshold as it is
// matched, whether the message waited for the application (it was already
// here when the receive was posted, and the application had been away
// computing for longer than the copy itself would take) or the receive
// waited for it. It publishes, per sender, in the channel's feedback words
// (stores, no message, no syscall) the current streak of messages that
// waited and running counts of both kinds. Before choosing the protocol of a
// message above the base threshold, the sender looks at what changed since
// it last looked. Nothing new: it keeps its threshold (a burst of sends
// posted before the receiver could react says nothing). Otherwise it feeds
// the controller for that peer (package skew) the streak: four messages in
// a row that waited raise the threshold so sends go eager and complete at
// once; a run of messages whose receives were waiting lowers it again.
//
// "Away for longer than the copy": a receiver that is busy receiving — a
// stream of messages it drains back to back — leaves messages waiting too,
// but there a rendezvous costs the sender nothing it would save by copying
// eagerly (the single copy is the cheaper one). What the eager protocol buys
// back is the receiver's absence, so only a gap between one receive's
// completion and the next receive's post longer than half the direct copy
// of the message counts.

// directCopyNsPerByte estimates process_vm_readv's cost per byte and
// directCopyFixedNs its per-message cost (RTS, FIN, the call) on current
// hardware; the gap rule above compares the application's absence with
// half of their sum.
const (
	directCopyNsPerByte = 0.05
	directCopyFixedNs   = 1000
)

// skewCeilingShare: the controller never raises a peer's threshold above
// this fraction of the channel's cell pool, so several raised messages still
// fit in flight and eager sends do not turn into waits for cells.
const skewCeilingShare = 4

// skewState is the engine's skew switch; the per-peer state lives in each
// endpoint (endpoint.go).
type skewState struct {
	on bool
	// small: no message of at most this many bytes is one skewCounts
	// counts (the least base over the peers; 0 until setupSkew). The
	// small-message path tests it inline instead of calling into the skew
	// code three times per message (~60 instructions per 8-byte round trip).
	small int
	// readsSlow: a direct read costs more here than the eager stream
	// (directcopy.SlowReads); 0 until first needed, then +1 or -1.
	readsSlow int8
}

// slowReadsPatience multiplies the quiet observations a lowering step
// needs where reads are slow. There the eager stream is what lets a busy
// receiver keep up: its receives then come before the data, the quiet
// streak lowers the threshold, the next messages go direct and pile up
// again. With the default patience a stream of 16 × 64 KiB windows went
// round that loop 12–15 times in 22 windows, a third of its messages
// direct; four times the patience makes each round four times rarer, and
// a receiver that really waits for its sender still brings the threshold
// down within a few hundred messages.
const slowReadsPatience = 4

// slowReads says whether reads are slow here (measured by setupSkew; a
// job whose skew feedback is off, or that has no peer to read, has none).
func (s *skewState) slowReads() bool {
	if s.readsSlow == 0 {
		slow, ok := directcopy.SlowReadsKnown()
		if !ok {
			return false
		}
		s.readsSlow = -1
		if slow {
			s.readsSlow = 1
		}
	}
	return s.readsSlow > 0
}

// setupSkew prepares the controllers once thresholds are known: those of
// the endpoints made so far now, later ones as they are made.
func (e *engine) setupSkew() {
	s := &e.skew
	s.on = knobs.Skew
	e.skewReady = true
	if s.on && e.mode == directAuto && e.anyDirectPeer() {
		// Here, not where a verdict first needs it: there, in the middle
		// of a transfer, the first touch of the measurement's buffers
		// alone cost a broadcast 5–20 ms on a loaded machine, and on a
		// goroutine of its own it waited behind the rank's spinning.
		directcopy.ReadCost()
	}
	// initSkew lowers small to each endpoint's base as endpoints are made.
	s.small = math.MaxInt
	for _, x := range e.eps {
		if x != nil && x.Peer != e.rank {
			e.initSkew(x)
		}
	}
}

// skewThreshold observes peer's feedback before an n-byte send and returns
// the threshold to use for it, counting moves. A raise goes just far enough
// for n to travel eagerly, so one observation adapts a stream of such
// messages.
func (e *engine) skewThreshold(peer, n int) int {
	x := e.ep(peer)
	s := &x.Sk
	streak, waited, onTime := s.FbIn.Load()
	du, dx := waited-s.SeenU, onTime-s.SeenX
	if du == 0 && dx == 0 {
		return s.Ctrl.Threshold()
	}
	s.SeenU, s.SeenX = waited, onTime
	load := streak
	if du > dx {
		// Most messages since the last look waited for their receive: the
		// receiver is not waiting for us, whatever the streak says now, so
		// this look is no step toward lowering. (A minority that waited is
		// noise — a descheduled receiver, a page fault — not skew.)
		load = max(load, s.Ctrl.Config().LowerAt+1)
	}
	// Each message judged since the last look is one observation: a
	// sender that looks once per window of n sends still sees n verdicts,
	// so recovery takes as many messages whether they come one by one or
	// in bursts.
	looks := 1
	if load <= s.Ctrl.Config().LowerAt {
		looks = int(min(dx, maxLooksPerSend))
	}
	c := &x.Counters
	for range looks {
		thr, move := s.Ctrl.ObserveSize(load, n)
		c.Threshold = thr
		switch move {
		case skew.Raised:
			c.SkewRaises++
		case skew.Lowered:
			c.SkewLowers++
		}
	}
	return c.Threshold
}

// backlogEager says whether an n-byte message the threshold would send
// direct to peer goes eager instead because the peer has not yet finished
// reading the rendezvous sends already out to it, and reads are slow here.
//
// The receiver's verdicts only reach the sender after the receiver has
// matched messages, so a burst of sends posted before that (the first
// window of a stream, or every window after a lowering) all went direct:
// at 1 MiB on the AMD EPYC VM of issue 17 that first window took 1.3 ms
// against 0.6 ms eagerly. The sender needs no verdict to see this backlog:
// RaiseAt rendezvous sends to one peer still unread mean the peer is that
// many slow reads behind, and each further one would queue behind them,
// where eagerly its copy overlaps with them on the other core. The
// threshold does not move (one look, one message; the verdicts still steer
// it), and where reads are cheap nothing changes: there a queue of reads is
// still the cheaper way.
//
// Where no core is spare (noSpareCore) the overlap the eager stream counts
// on is gone: each core then copies every byte twice (its sends in, its
// receives out) where a read moves it once. That still wins while the
// stream stays in cache (osu_bibw at 64 KiB, a 4 MiB window each way: 32
// GB/s eager against Open MPI's 21 GB/s of reads, quiet AMD EPYC VM), and
// loses once the cells cycle through memory (256 KiB, 16 MiB each way:
// 0.53–0.63× Open MPI eager; osu_mbw_mr's two pairs on two CPUs, 0.66–0.79×
// at 2–4 MiB). So there a backlog sends at most a ceiling's worth of bytes
// eager (BothEager) until the peer has read every rendezvous send out to
// it; the rest of a larger window is read.
func (e *engine) backlogEager(peer, n int) bool {
	s := &e.eps[peer].Sk
	cfg := s.Ctrl.Config()
	if s.Unread < cfg.RaiseAt || n > cfg.Ceiling || !e.skew.slowReads() {
		return false
	}
	if !e.noSpareCore(s) {
		return true
	}
	if s.BothEager+n > cfg.Ceiling {
		return false
	}
	s.BothEager += n
	return true
}

// noSpareCore says whether the eager stream toward the peer of s would find
// no core idle to overlap with: the peer sends as many large messages back
// (peer.TwoWay), so each core has receives of its own to do, or the job has
// more ranks than CPUs, so every core has another rank to run.
func (e *engine) noSpareCore(s *peer.Skew) bool { return e.oversub || s.Dir.Both() }

// bothWaysEagerMax is the largest message that may still go eager,
// through a raised threshold or a backlog, while large messages flow both
// ways with its peer (peer.TwoWay); larger ones are always read.
//
// Both ways, each core has the peer's messages to copy in as well as its
// own to hand over, so an eager message costs each core two copies (into
// the cells, and the peer's out of them) where a read costs one. The eager
// stream only wins while a read's fixed costs (RTS, FIN, the call, pinning
// the pages) weigh on it: osu_bibw at 64 KiB ran at 1.46× Open MPI from Go
// with its windows mostly eager, 128 KiB at 1.15× with half eager. From
// 256 KiB the same share of eager bytes cost more than it saved: a quarter
// of each window eager (the backlog's ceiling) ran at 15 GB/s against
// 19–22 GB/s all read (bench/protomix, AMD EPYC VM), and under load a
// rank descheduled between two windows looks absent to the gap rule, whose
// raises sent up to half of a 1 MiB stream eager. The threshold still
// observes the feedback, so a stream that turns one-way again finds it
// where the verdicts left it.
const bothWaysEagerMax = 128 << 10

// readBothWays says whether an n-byte message above its pair's base goes
// direct because large messages flow both ways and it is too large for the
// eager stream to win there (bothWaysEagerMax).
func readBothWays(s *peer.Skew, n int) bool { return n > bothWaysEagerMax && s.Dir.Both() }

// readDone notes that peer finished (or no longer needs) one of our
// rendezvous sends: once none is unread, the backlog is over.
func (e *engine) readDone(peer int) {
	s := &e.ep(peer).Sk
	s.Unread--
	if s.Unread == 0 {
		s.BothEager = 0
	}
}

// maxLooksPerSend bounds the work of one look at the feedback.
const maxLooksPerSend = 256

// fileUnexpected adds u to q's unexpected lists. Whether it waited is
// decided when a receive takes it.
func (e *engine) fileUnexpected(q *queues, u *unexpected) {
	q.AddUnexpected(&u.Arrived, u)
}

// takeUnexpected removes u from q for a receive being posted: u waited for
// it, and counts as such if the application was away long enough.
func (e *engine) takeUnexpected(q *queues, u *unexpected) {
	q.RemoveUnexpected(&u.Arrived)
	if e.skewCounts(u.Src, u.length) {
		e.judged(u.Src, e.postVerdict(u.Src, u.length, true))
	}
}

// skewCounts says whether an n-byte message from src is one the feedback
// is about: above the pair's base threshold, whose protocol it steers. The
// small traffic around (barriers, acknowledgements, headers) says nothing
// about whether a rendezvous would have waited.
func (e *engine) skewCounts(src, n int) bool {
	if src == e.rank || src < 0 || src >= len(e.eps) {
		return false
	}
	x := e.eps[src]
	return x != nil && x.Sk.Ready && n > x.Sk.Base
}

// judged publishes one large message's verdict: it waited for the
// application, or its receive was waiting.
func (e *engine) judged(src int, waited bool) {
	s := &e.eps[src].Sk
	if waited {
		s.Streak++
	} else {
		s.Streak = 0
	}
	s.FbOut.SetStreak(s.Streak)
	s.FbOut.Judged(waited)
}

// postVerdict is called as the application posts a receive for an n-byte
// message from src, here telling whether that message is already waiting;
// it says whether the message counts as having waited for the application.
//
// The gap that counts is the one before a burst of posts: the time from the
// last large completion from src to the first receive posted after it. A
// receiver that posts a window of receives back to back (osu_bw) finds the
// later messages of the window already here only because posting takes
// time, not because it was away; they share the verdict of the window's
// first post. A consumer that computes between windows finds the whole
// window waiting after a long gap, and all of it counts.
//
// Time the rank spent blocked in MPI calls since that completion is not
// absence: a rank that was waiting for src to read its own rendezvous
// send (ping-pong), or in the barrier between two broadcasts, finds src's
// next message here without having kept it waiting for anything the
// application did. Counted as away, such gaps raised the threshold of
// 1 MiB ping-pong and broadcast loops and sent their messages eager at
// twice the cost of a read.
//
// Where a read costs more than the eager stream (directcopy.SlowReads), a message
// found waiting counts whatever the gap: the receiver is busy with the
// sender's backlog, and a rendezvous makes the sender wait for each of
// those slow reads in turn, where eagerly it would be done after its own
// copies while the receiver copies out on the other core. A producer
// posting windows of 16 × 1 MiB Isends to a consumer receiving back to back
// took 1.3 ms per window that way against 0.6 ms eager (AMD EPYC VM, reads
// 11 GB/s, copies 26 GB/s), and auto never raised: no gap was long enough.
// Not where no core is spare (we send src as many large messages as it
// sends us, or ranks outnumber CPUs): there the gap rule alone decides.
// A receive posted before its message arrives still counts as on time, so
// the threshold comes back down once the receiver waits for the sender.
func (e *engine) postVerdict(src, n int, here bool) bool {
	s := &e.eps[src].Sk
	t := time.Now()
	now := t.Sub(epoch)
	if s.LastPost == 0 || s.LastPost <= s.LastDone {
		half := time.Duration((directCopyFixedNs + directCopyNsPerByte*float64(n)) / 2)
		away := now - s.LastDone - (e.blockedSoFar(t) - s.BlockDone)
		s.BurstAway = here && (s.LastDone == 0 || away > half || e.skew.slowReads() && !e.noSpareCore(s))
	}
	s.LastPost = now
	return here && s.BurstAway
}

// largeDone notes the completion of an n-byte receive from src.
func (e *engine) largeDone(src, n int) {
	if e.skewCounts(src, n) {
		t := time.Now()
		s := &e.eps[src].Sk
		s.Dir.Received()
		s.LastDone = t.Sub(epoch)
		s.BlockDone = e.blockedSoFar(t)
	}
}

// messageWaiting tells, as r is posted, whether the message it will match
// has probably waited for it: r names one source whose channel holds an
// unread envelope, and the application was away long enough. The engine
// drains channels only inside MPI calls and a bounded amount per pass, so a
// receiver busy computing leaves the messages it is late for in the
// channel, not in the unexpected queue; at their arrival the receive has
// since been posted. Only the head of the channel is looked at (a message
// this receive would match, large enough to steer the protocol), and only
// for receives of such messages.
func (e *engine) messageWaiting(r *Request) bool {
	if !e.skew.on || !e.skewCounts(r.m.Src, len(r.buf)) {
		return false
	}
	n, here := e.headWaiting(r)
	if !here {
		n = len(r.buf)
	}
	return e.postVerdict(r.m.Src, n, here)
}

// headWaiting says whether the head of r's source channel is the envelope
// of a large message r would match, and its length.
func (e *engine) headWaiting(r *Request) (int, bool) {
	ic := e.eps[r.m.Src].In
	if ic == nil || ic.Cur != nil {
		return 0, false
	}
	slot, err := ic.Cons.Peek()
	if slot == nil || err != nil {
		return 0, false // an error is the drain's to report
	}
	d, err := shm.DecodeDesc(slot, ic.Lim)
	if err != nil || d.Ctx != r.ctx || (r.m.Tag != AnyTag && int(d.Tag) != r.m.Tag) ||
		!e.skewCounts(r.m.Src, int(d.MsgLen)) {
		return 0, false
	}
	switch d.Kind {
	case shm.KindInline, shm.KindSpan, shm.KindFirst, shm.KindRTS:
		return int(d.MsgLen), true
	}
	return 0, false
}
