//go:build !ompi && !mpich

package mpi

import (
	"fmt"
	"math"
	"os"
	"sync"
	"time"

	"github.com/hympi/hympi/directcopy"
	"github.com/hympi/hympi/internal/config"
	"github.com/hympi/hympi/mpi/internal/peer"
	"github.com/hympi/hympi/mpi/internal/proto"
	"github.com/hympi/hympi/shm"
)

// The direct (rendezvous) protocol. Above a peer's threshold the sender
// publishes an RTS {address, length, request id} instead of the payload and
// keeps its request open. The receiver matches the RTS like any envelope —
// so ordering across protocols is the channel's order — then reads the bytes
// straight from the sender's memory into the user's buffer with
// process_vm_readv and answers FIN, which completes the send. The read is
// done in segments, one per progress pass, so a huge transfer does not stall
// other traffic. If the kernel refuses the read, the receiver answers NACK
// and the sender streams the payload through cells instead (FlagResend), to
// the receive already matched.

// directMode is HYMPI_DIRECT.
type directMode uint8

const (
	directAuto   directMode = iota // by threshold
	directOff                      // shared memory for every size
	directAlways                   // direct copy for every non-empty message
)

// directModeOf maps the parsed knob (package config) to the engine's mode.
func directModeOf(d config.Direct) directMode {
	switch d {
	case config.DirectOff:
		return directOff
	case config.DirectAlways:
		return directAlways
	}
	return directAuto
}

// directRead is a matched RTS whose payload is being read (proto.Read:
// the segments, their sizes, when the transfer is over).
type directRead = proto.Read[Request]

// oversubCollEagerMax is the largest collective message that goes eager in
// auto mode when the job is oversubscribed. A rendezvous needs its receiver
// scheduled to read and answer FIN before the sender's round can end, and
// with more ranks than CPUs that costs a scheduling round trip per message;
// an eager message is out of the sender's hands once it is in the cells, so
// the sender goes on to its next round (or yields the CPU to the receiver).
// 1 MiB fits in flight in the cell pool of jobs of up to 16 ranks (README,
// HYMPI_SHM_BUDGET), and larger messages stream through the pool anyway.
const oversubCollEagerMax = 1 << 20

// pairCollEagerMin: in a job of two ranks with a CPU each, where a direct
// read costs more than the eager stream (directcopy.SlowReads, measured at
// Init), collective messages from this size up go eager in auto mode.
// There every round of a collective sends to one peer at most, so an eager
// message costs its sender one copy into the cells, which the receiver's
// copy out follows cell by cell on the other CPU, while a direct copy is
// one process_vm_readv that pins every page: on the 2-vCPU AMD EPYC VM of
// issue 17, 2.0-2.4 times a memcpy per byte. Left to choose, the skew
// controller flipped between the two within a run (a fresh job's 110
// broadcasts of 1 MiB: eager at 32 µs on the root, direct at 94-110), so
// make compare's fresh 1 MiB cells came out bimodal. Measured at quiet
// moments (bench/collpct, medians of 6 jobs' median calls), eager took
// Bcast of 2 MiB in 77 µs against 164, Reduce of 1 MiB 55 against 92,
// Allreduce of 4 MiB 388 against 606; at 512 KiB the two tied, and below
// it direct copy won (Bcast 128 KiB: 12 against 33 µs), so direct stays
// there. Jobs of more ranks keep the threshold: a root sending one block
// to several peers would copy it once per peer where direct copy lets the
// readers work in parallel (markReads). Eager needs both ranks running at
// once, one cell after the other; on a machine whose CPUs other jobs keep
// busy it fell to about 2 GB/s, where one process_vm_readv did not
// (docs/bench/coll-large.md). A variable so tests and benchmarks can move
// it.
var pairCollEagerMin = 512 << 10

// pairEagerBackoff: a second eager collective message in a row, in a
// two-rank job, whose copy into the cells was slow (pairEagerSlowCopy;
// reads timed at the rate directcopy.ReadCost measured at Init) sends the
// next this many of
// the pair rule's messages by the threshold again (direct copy) before it
// tries eager once more. The copy runs at memory speed only while the
// machine leaves the sender's CPU and memory to it; on the shared 2-vCPU VM
// with load average 10-20 plain memmove fell from ~26 to 1.3-16 GB/s and
// the sender's copy of a 512 KiB broadcast took 225 µs where a direct read
// took 41, while a quiet machine copies it in ~15. One slow message in
// every 65 is what the rule then costs a loaded machine.
const pairEagerBackoff = 64

// pairEagerSlowCopy: a copy into the cells this many times as long as a
// direct read counts as slow. The slow copies above took 5-6 times a read;
// a quiet machine's take half of one or less, and a copy just past a read
// would still leave eager the loser by little, so 2 keeps a quiet run's
// rare slower copy from sending 64 messages the slower way. A variable so
// tests can move it.
var pairEagerSlowCopy = 2.0

// collEagerRange is the sizes of collective message that go eager
// whatever the threshold, in auto mode, in a job of size ranks: lo > hi
// when there are none.
func collEagerRange(size int, oversub, slowReads bool) (lo, hi int) {
	switch {
	case oversub:
		return 1, oversubCollEagerMax
	case size == 2 && slowReads:
		return pairCollEagerMin, math.MaxInt
	}
	return 1, 0
}

// useDirect decides the protocol of an n-byte message to peer on context
// ctx.
func (e *engine) useDirect(peer int, ctx uint32, n int) bool {
	if n == 0 || !e.ep(peer).DirectOK {
		return false
	}
	switch e.mode {
	case directAlways:
		return true
	case directAuto:
		if n >= e.collEagerLo && n <= e.collEagerHi && isCollCtx(ctx) {
			if e.pairBackoff == 0 { // only the pair rule sets it
				return false
			}
			e.pairBackoff--
		}
		// Sizes under the topology threshold are eager whatever the skew;
		// only larger ones consult (and so steer) the controller.
		s := &e.eps[peer].Sk
		if n <= s.Base {
			return false
		}
		if e.pairEager && isCollCtx(ctx) {
			// Below pairCollEagerMin (or backing off) a two-rank
			// job's collective message is read, whatever the skew:
			// blocking rounds keep the pair in step, and a receiver
			// found late is the last collective's exit order, not a
			// producer running ahead. Raised by the controller, a
			// fresh job's 64 KiB broadcasts went eager in 1 to 2 jobs
			// in 5 and took 10.3 µs (median call) against 7.8-8.4.
			return true
		}
		s.Dir.Sent()
		if e.skew.on {
			thr := e.skewThreshold(peer, n)
			if readBothWays(s, n) {
				return true
			}
			return n > thr && !e.backlogEager(peer, n)
		}
		return true
	}
	return false
}

// enqueueEagerTimed is enqueue for a two-rank job's collective message
// that the pair rule sent eager: when the whole message went into the
// cells at once, on cells used before (a first use's page faults say
// nothing about the machine), and took pairEagerSlowCopy times as long as
// a direct read of it, for the second time in a row, the next
// pairEagerBackoff such messages go by the threshold.
func (e *engine) enqueueEagerTimed(oc *outChan, r *Request) {
	if !e.openOut(oc) {
		e.enqueue(oc, r) // its push meets the same failure and reports it
		return
	}
	fresh := oc.Pool.Untouched()
	t := time.Now()
	e.enqueue(oc, r)
	d := time.Since(t)
	if r.sent != len(r.sbuf) || oc.Pool.Untouched() != fresh {
		return
	}
	read, ok := directcopy.ReadTimeKnown(len(r.sbuf))
	if !ok || float64(d) <= pairEagerSlowCopy*float64(read) {
		e.pairSlow = 0
		return
	}
	// One slow copy may be a preemption or a page of the sender's
	// buffer first touched; two in a row are the machine.
	if e.pairSlow++; e.pairSlow >= 2 {
		e.pairSlow = 0
		e.pairBackoff = pairEagerBackoff
	}
}

// startDirectSend turns r into a rendezvous send: its buffer is pinned and
// stays so until the receiver's FIN or, after a NACK, until the resend
// stream is out.
func (e *engine) startDirectSend(r *Request) {
	r.direct = true
	r.addr = uint64(r.pins.Pin(r.sbuf))
	e.registerSync(r)
	e.pendingDirect++
	e.pendingDirectBytes += len(r.sbuf)
	x := e.ep(r.peer)
	x.Sk.Unread++
	c := &x.Counters
	c.DirectMsgs++
	c.DirectBytes += uint64(len(r.sbuf))
}

// finishDirectSend completes a rendezvous send (FIN, or resend stream out).
func (e *engine) finishDirectSend(r *Request) {
	r.pins.Unpin()
	r.direct = false
	e.pendingDirect--
	e.pendingDirectBytes -= len(r.sbuf)
	e.readDone(r.peer)
	r.pushed, r.acked = true, true
	r.checkSendDone()
}

// startRead begins reading a matched RTS into r.
func (e *engine) startRead(r *Request, src int, d *shm.Desc) {
	rd := proto.NewRead(r, r.buf, src, e.region.RankPID(src), d)
	r.read = rd
	e.reads = append(e.reads, rd)
	e.flBusy()
}

// progressReads advances every pending direct read by one segment.
func (e *engine) progressReads() bool {
	did := false
	keep := e.reads[:0]
	for _, rd := range e.reads {
		did = true
		if !e.readSegment(rd) {
			keep = append(keep, rd)
		}
	}
	clear(e.reads[len(keep):])
	e.reads = keep
	e.flBusy()
	return did
}

// readSegment reads the next segment of rd, reporting whether rd is over
// (done, or handed to the fallback).
func (e *engine) readSegment(rd *directRead) bool {
	over, err := rd.Step(len(e.reads) == 1, e.readFrom)
	if err != nil {
		e.directFailed(rd, err)
		return true
	}
	if !over {
		return false
	}
	e.queueCtl(rd.Peer, shm.Desc{Kind: shm.KindFin, ReqID: rd.SenderID})
	r := rd.Req
	r.read = nil
	e.finishRecv(r, rd.Peer, rd.Tag, rd.Total)
	return true
}

// directFailed falls back for one transfer and for the peer: the sender
// resends this payload through cells, and we stop advertising that we can
// read it, so later messages go eager from the start.
func (e *engine) directFailed(rd *directRead, err error) {
	e.warnDirect.Do(func() {
		fmt.Fprintf(os.Stderr, "hympi: rank %d: direct copy from rank %d failed (%v); using shared memory for it from now on\n", e.rank, rd.Peer, err)
	})
	e.region.DirectBits(e.rank).Clear(rd.Peer)
	r := rd.Req
	r.read = nil
	id := e.registerResend(r)
	r.flight = &inflight{Total: uint64(rd.Total), Req: r, Tag: rd.Tag}
	e.queueCtl(rd.Peer, shm.Desc{Kind: shm.KindNack, ReqID: rd.SenderID, Addr: id})
}

// registerResend files a receive that waits for a resend stream and returns
// the id the stream will carry.
func (e *engine) registerResend(r *Request) uint64 {
	e.resendGen++
	id := e.resendGen
	e.resendWait[id] = r
	return id
}

// nacked re-queues a rendezvous send whose receiver could not read it: the
// payload now streams through cells, addressed to the receiver's id.
func (e *engine) nacked(d *shm.Desc) {
	r := e.takeSync(d.ReqID)
	if r == nil || !r.direct {
		return
	}
	e.ep(r.peer).DirectOK = false // the receiver cleared its bit too
	r.resendID = d.Addr
	r.started, r.sent = false, 0
	r.sendNext = nil
	e.enqueue(e.outTo(r.peer), r)
}

// resendArrived starts the stream that replaces a failed direct read.
func (e *engine) resendArrived(ic *inChan, d *shm.Desc, payload []byte) error {
	r := e.resendWait[d.ReqID]
	if r == nil || r.flight == nil || r.flight.Total != d.MsgLen {
		return fmt.Errorf("%w: resend stream for unknown receive %d", shm.ErrBadDesc, d.ReqID)
	}
	delete(e.resendWait, d.ReqID)
	ic.Cur = r.flight
	e.flStream(ic)
	e.fragment(ic, d, payload)
	return nil
}

// probePeers decides, for every peer, whether this rank can read its memory,
// and publishes the verdicts in its direct-copy bitmap. Called at Init once
// every rank has published its pid and probe address.
func (e *engine) probePeers() {
	bits := e.region.DirectBits(e.rank)
	if e.mode == directOff {
		return
	}
	if err := directcopy.Available(); err != nil {
		e.directReason = err.Error()
		return
	}
	for p := 0; p < e.size; p++ {
		if p == e.rank {
			continue
		}
		if err := directcopy.Probe(e.region.RankPID(p), uintptr(e.region.ProbeAddr(p))); err != nil {
			e.directReason = err.Error()
			continue
		}
		bits.Mark(p)
	}
}

// learnPeers is the point, after the Init barrier, from which peers'
// direct-copy verdicts and CPUs are known: the endpoints made so far learn
// which peers can read us and the threshold toward each now, later ones
// as they are made (endpoint.go).
func (e *engine) learnPeers(th *peer.Thresholds) {
	e.th = th
	for _, x := range e.eps {
		if x != nil && x.Peer != e.rank {
			e.learnPeer(x)
		}
	}
	e.setupSkew()
}

// warnOnce guards the one diagnostic line a rank prints about direct copy.
type warnOnce = sync.Once
