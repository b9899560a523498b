//go:build !ompi && !mpich

package mpi

import "github.com/hympi/hympi/shm"

// A collective's schedule as data. Every collective algorithm is one
// builder (coll_tree.go, coll_allreduce.go, coll_gather.go) that writes
// this rank's rounds into a schedule: each round a list of transfers (the
// receives and sends the engine posts together) and a list of steps (local
// work — a reduction or a copy — run once the round's messages are done).
// Nothing in it is a closure and every list is a slice of arrays the
// schedule keeps, so building one again into the same schedule allocates
// nothing once the arrays have grown to the collective's size. Blocking,
// nonblocking and persistent forms run the same schedule (coll.go); the
// model test (coll_sched_test.go) replays all ranks' schedules without an
// engine.

// collXfer is one message of a round: the peer (a rank of the
// communicator), the buffer sent from or received into, and which. read
// marks a send its receiver reads straight out of buf even when ranks
// outnumber CPUs (coll_readers.go).
type collXfer struct {
	peer int
	buf  []byte
	send bool
	read bool
}

// stepKind is what a collStep does.
type stepKind uint8

const (
	stepReduce stepKind = iota // dst = src op dst
	stepCopy                   // dst = src
)

// collStep is local work, as data.
type collStep struct {
	kind     stepKind
	src, dst []byte
}

// schedRound is one step of a schedule: the transfers xfers[x0:x1] and,
// after they complete, the steps steps[s0:s1] of its schedule. Indices
// rather than slices, so the arrays may grow while later rounds are built.
type schedRound struct {
	x0, x1, s0, s1 int32
	gate           bool // a gate round (coll_gate.go): no transfers
}

// schedule is one rank's part of one collective.
type schedule struct {
	rounds []schedRound
	xfers  []collXfer
	steps  []collStep
	red    reducer // the operator reduce steps apply
	// small: every message fits a collective slot, so all travel the
	// collective ring (coll_ring.go). Set from sizes every rank agrees
	// on, so that all the messages of the collective take one ring.
	small bool
	// own, when set, is a copy (own[1] into own[0]) independent of every
	// message, made at the start: by a blocking call with the engine
	// unlocked, after starting the messages when ownAfter (so it overlaps
	// the peers' reads) and before them otherwise.
	own      [2][]byte
	ownAfter bool
	// gateIn and gateOut are a gate round's contribution and result;
	// noGate keeps a build off the gate (persistent collectives).
	gateIn, gateOut []byte
	noGate          bool
	// gateKind is what a gate round does with the contributions: combine
	// them all (gateCombineAll, the zero value), or take gateBlk bytes at
	// gateAt from each (coll_gate.go).
	gateKind        gateKind
	gateBlk, gateAt int
	// gateDispls, when set, places an exchange's block p at
	// gateOut[gateDispls[p]:] instead of at p×gateBlk (Allgatherv).
	gateDispls []int
	// Scratch memory: arena for bytes, ints for peer lists and block
	// bounds. A build that outgrows one draws fresh memory and records
	// how much it needed, and the next reset grows the arena to that.
	arena     []byte
	arenaUsed int
	intArena  []int
	intUsed   int
}

// scheduleScratchMax bounds the scratch a schedule keeps between
// collectives: above it a collective allocates its own, which a
// collective that large amortises, and an occasional huge one does not pin
// its memory for the communicator's lifetime.
const scheduleScratchMax = 8 << 20

// reset empties s for a new build, keeping its arrays.
func (s *schedule) reset() {
	s.rounds, s.xfers, s.steps = s.rounds[:0], s.xfers[:0], s.steps[:0]
	s.red, s.small, s.own, s.ownAfter = reducer{}, false, [2][]byte{}, false
	s.gateIn, s.gateOut, s.noGate = nil, nil, false
	s.gateKind, s.gateBlk, s.gateAt, s.gateDispls = gateCombineAll, 0, 0, nil
	if s.arenaUsed > len(s.arena) && s.arenaUsed <= scheduleScratchMax {
		s.arena = make([]byte, s.arenaUsed)
	}
	if s.intUsed > len(s.intArena) {
		s.intArena = make([]int, s.intUsed)
	}
	s.arenaUsed, s.intUsed = 0, 0
}

// release drops the references to the caller's buffers s holds.
func (s *schedule) release() {
	clear(s.xfers)
	clear(s.steps)
	s.red, s.own = reducer{}, [2][]byte{}
	s.gateIn, s.gateOut = nil, nil
	if len(s.arena) > scheduleScratchMax {
		s.arena = nil
	}
}

// fitsSlot marks s for the collective ring (and so the direct run and C's
// plans) when its largest message has size bytes: up to shm.CollMsgMax,
// one slot or a span of them. Algorithm choices that depend on a message
// fitting one slot test shm.CollInlineMax themselves.
func (s *schedule) fitsSlot(size int) { s.small = size <= shm.CollMsgMax }

// next opens a new round; the transfers and steps added after it belong to
// it.
func (s *schedule) next() {
	x, st := int32(len(s.xfers)), int32(len(s.steps))
	s.rounds = append(s.rounds, schedRound{x0: x, x1: x, s0: st, s1: st})
}

func (s *schedule) last() *schedRound { return &s.rounds[len(s.rounds)-1] }

// recv and send add a transfer to the current round.
func (s *schedule) recv(peer int, buf []byte) {
	s.xfers = append(s.xfers, collXfer{peer: peer, buf: buf})
	s.last().x1++
}

func (s *schedule) send(peer int, buf []byte) {
	s.xfers = append(s.xfers, collXfer{peer: peer, buf: buf, send: true})
	s.last().x1++
}

// exchange is a round that sends sbuf to one peer and receives rbuf from
// another.
func (s *schedule) exchange(to int, sbuf []byte, from int, rbuf []byte) {
	s.next()
	s.send(to, sbuf)
	s.recv(from, rbuf)
}

// reduce adds the step dst = src op dst to the current round.
func (s *schedule) reduce(src, dst []byte) {
	s.steps = append(s.steps, collStep{kind: stepReduce, src: src, dst: dst})
	s.last().s1++
}

// copyStep adds the step dst = src to the current round.
func (s *schedule) copyStep(dst, src []byte) {
	s.steps = append(s.steps, collStep{kind: stepCopy, src: src, dst: dst})
	s.last().s1++
}

// nextLocal opens a round without messages for the steps added after it.
func (s *schedule) nextLocal() { s.next() }

// scratch returns n bytes of scratch memory for this build.
func (s *schedule) scratch(n int) []byte {
	lo := s.arenaUsed
	s.arenaUsed += n
	if s.arenaUsed <= len(s.arena) {
		return s.arena[lo:s.arenaUsed:s.arenaUsed]
	}
	return make([]byte, n)
}

// ints returns n ints of scratch, emptied.
func (s *schedule) ints(n int) []int {
	lo := s.intUsed
	s.intUsed += n
	if s.intUsed <= len(s.intArena) {
		v := s.intArena[lo:s.intUsed:s.intUsed]
		clear(v)
		return v
	}
	return make([]int, n)
}

// uniform is the counts and displacements of n blocks of m bytes in rank
// order.
func (s *schedule) uniform(n, m int) (counts, displs []int) {
	counts, displs = s.ints(n), s.ints(n)
	for i := range n {
		counts[i], displs[i] = m, i*m
	}
	return counts, displs
}

// runSteps runs the steps of rd.
func (s *schedule) runSteps(rd *schedRound) {
	for i := rd.s0; i < rd.s1; i++ {
		st := &s.steps[i]
		switch st.kind {
		case stepReduce:
			if !applySmall(s.red.small, st.src, st.dst) {
				s.red.apply(st.src, st.dst)
			}
		default:
			copy(st.dst, st.src)
		}
	}
}
