// Command soak is hympi's random traffic generator with a history
// validator, run under hympirun (make soak):
//
//	hympirun -n 8 bin/soak [-duration 30s] [-seed N] [-maxsize BYTES]
//
// Every round, all ranks derive the same random plan from (seed, round):
// point-to-point streams between every pair on three communicators (World,
// a Dup and a Split), with sizes from empty to -maxsize, mixed tags, mixed
// send modes (Send, Ssend, Isend, Issend) and receives by tag or by
// AnyTag; then collectives on each communicator; and every few rounds an
// AnySource fan-in. Each payload carries its source, its communicator, its
// tag, its sequence number in its (source, destination, communicator, tag)
// stream and a CRC-32C of its body, and is checked on arrival: the right
// message in the right order (MPI's non-overtaking rule), the right length
// and bytes, and a canary past every receive buffer that must stay intact.
// Rank 0 prints one line: rounds, messages and bytes checked.
//
// soak -modes [-n 8] [-hympirun bin/hympirun] runs the job once per
// configuration (every HYMPI_DIRECT mode, async progress, checksums) for
// -duration each and prints one line per run (modes.go).
//
// Rank-side faults for make chaos: -fault panic|exit|nofinalize|hang and
// -fault-rank R -fault-round N make rank R misbehave at the start of round N.
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"time"

	"github.com/hympi/hympi/mpi"
)

const (
	hdrSize = 32
	magic   = 0x534f414b // "SOAK"
	canary  = 64
	canByte = 0xcc
	// anyEvery is how often (in rounds) an AnySource fan-in runs.
	anyEvery = 3
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

type soak struct {
	seed    uint64
	maxSize int
	rank    int
	size    int
	comms   [3]*mpi.Comm // World, Dup, Split
	// toComm[ci][w] is world rank w's rank in comms[ci], -1 when w is not
	// in this rank's instance of it; fromComm is the inverse.
	toComm   [3][]int
	fromComm [3][]int
	// seq counts messages per stream (source, destination, comm, tag),
	// identically on both ends: both derive it from the plans.
	seq map[[4]int]uint64

	msgs, bytes, colls int64
}

// msg is one planned point-to-point message.
type msg struct {
	src, dst int // world ranks
	ci       int
	tag      int
	size     int
	mode     int  // 0 Isend, 1 Issend, 2 Send, 3 Ssend
	anyTag   bool // the receive uses AnyTag
	extra    int  // receive buffer bytes beyond the message
}

func main() {
	dur := flag.Duration("duration", 30*time.Second, "how long to generate traffic")
	seed := flag.Uint64("seed", 0, "plan seed (0: from the clock; printed either way)")
	maxSize := flag.Int("maxsize", 1<<20, "largest point-to-point message, bytes")
	fault := flag.String("fault", "", "chaos: panic, exit, nofinalize or hang")
	faultRank := flag.Int("fault-rank", 0, "chaos: the rank that misbehaves")
	faultRound := flag.Int("fault-round", 0, "chaos: the round at which it does")
	modes := flag.Bool("modes", false, "driver: run the job under -hympirun in every configuration")
	hympirun := flag.String("hympirun", "bin/hympirun", "driver: the launcher")
	ranks := flag.Int("n", 8, "driver: ranks per job")
	flag.Parse()

	if *modes {
		var args []string
		if *seed != 0 {
			args = append(args, "-seed", fmt.Sprint(*seed))
		}
		args = append(args, "-maxsize", fmt.Sprint(*maxSize))
		if !runModes(*hympirun, *ranks, *dur, args, os.Stdout) {
			os.Exit(1)
		}
		return
	}

	if err := mpi.Init(); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(2)
	}
	w := mpi.World()
	s := &soak{maxSize: max(*maxSize, hdrSize), rank: w.Rank(), size: w.Size(), seq: map[[4]int]uint64{}}
	seedBuf := make([]byte, 8)
	if s.rank == 0 {
		sd := *seed
		if sd == 0 {
			sd = uint64(time.Now().UnixNano())
		}
		binary.LittleEndian.PutUint64(seedBuf, sd)
	}
	s.must("Bcast seed", w.Bcast(seedBuf, 0))
	s.seed = binary.LittleEndian.Uint64(seedBuf)
	s.setupComms()

	start := time.Now()
	round := 0
	for {
		more := []byte{0}
		if s.rank == 0 && time.Since(start) < *dur {
			more[0] = 1
		}
		s.must("Bcast round flag", w.Bcast(more, 0))
		if more[0] == 0 {
			break
		}
		if *fault != "" && s.rank == *faultRank && round == *faultRound {
			if injectFault(*fault) {
				return // nofinalize: leave without Finalize
			}
		}
		s.p2pRound(round)
		s.collRound(round)
		if round%anyEvery == anyEvery-1 {
			s.anySourceRound(round)
		}
		round++
	}
	tot := []int64{s.msgs, s.bytes, s.colls}
	sum := make([]int64, 3)
	s.must("Allreduce totals", mpi.AllreduceSlice(w, tot, sum, mpi.Sum))
	if s.rank == 0 {
		fmt.Printf("soak: ok: %d ranks, %d rounds, %d messages and %d bytes (%.1f MiB) checked, %d collective results, %.1fs, seed %d\n",
			s.size, round, sum[0], sum[1], float64(sum[1])/(1<<20), sum[2], time.Since(start).Seconds(), s.seed)
	}
	s.must("Finalize", mpi.Finalize())
}

// injectFault misbehaves as asked; it reports true for "leave without
// Finalize" and does not return for the others.
func injectFault(kind string) bool {
	switch kind {
	case "panic":
		panic("soak: injected panic")
	case "exit":
		os.Exit(3)
	case "nofinalize":
		return true
	case "hang":
		for {
			time.Sleep(time.Hour) // select{} would be reported as a deadlock
		}
	}
	fmt.Fprintln(os.Stderr, "soak: unknown fault", kind)
	os.Exit(2)
	return false
}

func (s *soak) must(what string, err error) {
	if err != nil {
		fmt.Fprintf(os.Stderr, "soak: rank %d: %s: %v\n", s.rank, what, err)
		os.Exit(4)
	}
}

// fail reports a validation failure and stops the job.
func (s *soak) fail(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "soak: rank %d: FAIL (seed %d): %s\n", s.rank, s.seed, fmt.Sprintf(format, a...))
	mpi.Abort(mpi.World(), 1)
}

// setupComms makes the Dup and the Split (even and odd world ranks, in
// reverse order) and learns every rank's place in them.
func (s *soak) setupComms() {
	w := mpi.World()
	dup, err := w.Dup()
	s.must("Dup", err)
	split, err := w.Split(s.rank%2, -s.rank)
	s.must("Split", err)
	s.comms = [3]*mpi.Comm{w, dup, split}
	for ci, c := range s.comms {
		// Ranks of the other color are in another Split instance.
		mine := make([]byte, 8)
		binary.LittleEndian.PutUint64(mine, uint64(c.Rank())|uint64(s.rank%2)<<32)
		raw := make([]byte, 8*s.size)
		s.must("Allgather ranks", w.Allgather(mine, raw))
		all := make([]uint64, s.size)
		for i := range all {
			all[i] = binary.LittleEndian.Uint64(raw[8*i:])
			if ci != 2 {
				all[i] &= 0xffffffff
			}
		}
		s.toComm[ci] = make([]int, s.size)
		s.fromComm[ci] = make([]int, c.Size())
		for wr, v := range all {
			s.toComm[ci][wr] = -1
			if int(v>>32) == s.rank%2 || ci != 2 {
				s.toComm[ci][wr] = int(v & 0xffffffff)
				s.fromComm[ci][int(v&0xffffffff)] = wr
			}
		}
	}
}

// rng is the plan's generator for a round and a phase: the same on every
// rank.
func (s *soak) rng(round, phase int) *rand.Rand {
	return rand.New(rand.NewPCG(s.seed, uint64(round)<<8|uint64(phase)))
}

// size draws a message size: mostly small, sometimes at the protocol
// boundaries (inline limit, cell size), sometimes large.
func (s *soak) drawSize(r *rand.Rand) int {
	var n int
	switch k := r.IntN(20); {
	case k < 2:
		n = 0
	case k < 8:
		n = hdrSize + r.IntN(200)
	case k < 11:
		n = 1000 + r.IntN(80) // around the inline limit (1040)
	case k < 15:
		n = 2000 + r.IntN(60_000) // a few cells
	case k < 17:
		n = 32768 + r.IntN(3) - 1 // one cell, exactly and either side
	default:
		n = 64<<10 + r.IntN(s.maxSize)
	}
	if n > 0 && n < hdrSize {
		n = hdrSize
	}
	return min(n, s.maxSize)
}

// plan is the round's point-to-point traffic, every message of the job.
func (s *soak) plan(round int) []msg {
	r := s.rng(round, 1)
	var out []msg
	for ci := range s.comms {
		for src := 0; src < s.size; src++ {
			for dst := 0; dst < s.size; dst++ {
				if ci == 2 && src%2 != dst%2 {
					continue // different Split instances
				}
				k := r.IntN(4)
				for i := 0; i < k; i++ {
					out = append(out, msg{
						src: src, dst: dst, ci: ci,
						tag:    []int{0, 1, 2, 7, 32000}[r.IntN(5)],
						size:   s.drawSize(r),
						mode:   r.IntN(4),
						anyTag: r.IntN(3) == 0,
						extra:  []int{0, 0, 1, 100}[r.IntN(4)],
					})
				}
			}
		}
	}
	return out
}

// fillPayload writes the message's header and a body derived from it.
func (s *soak) fillPayload(b []byte, src, ci, tag int, seq uint64) {
	if len(b) < hdrSize {
		return // empty messages carry nothing; their length is checked
	}
	x := s.seed ^ uint64(src)<<48 ^ uint64(ci)<<40 ^ uint64(tag)<<20 ^ seq*0x9e3779b97f4a7c15 | 1
	body := b[hdrSize:]
	i := 0
	for ; i+8 <= len(body); i += 8 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		binary.LittleEndian.PutUint64(body[i:], x)
	}
	for ; i < len(body); i++ {
		body[i] = byte(x >> (i & 7 * 8))
	}
	le := binary.LittleEndian
	le.PutUint32(b[0:], magic)
	le.PutUint32(b[4:], uint32(src))
	le.PutUint32(b[8:], uint32(ci))
	le.PutUint32(b[12:], uint32(tag))
	le.PutUint64(b[16:], seq)
	le.PutUint32(b[24:], uint32(len(b)))
	le.PutUint32(b[28:], crc32.Checksum(body, castagnoli))
}

// checkPayload validates a received message against what was expected.
func (s *soak) checkPayload(what string, b []byte, src, ci, tag int, seq uint64) {
	if len(b) < hdrSize {
		return
	}
	le := binary.LittleEndian
	got := [6]uint64{uint64(le.Uint32(b[0:])), uint64(le.Uint32(b[4:])), uint64(le.Uint32(b[8:])),
		uint64(le.Uint32(b[12:])), le.Uint64(b[16:]), uint64(le.Uint32(b[24:]))}
	want := [6]uint64{magic, uint64(src), uint64(ci), uint64(tag), seq, uint64(len(b))}
	if got != want {
		s.fail("%s: header (magic, source, comm, tag, seq, len) = %v, want %v (overtaken or misdelivered)", what, got, want)
	}
	if c := crc32.Checksum(b[hdrSize:], castagnoli); c != le.Uint32(b[28:]) {
		s.fail("%s from %d seq %d: body checksum %08x, carried %08x: corrupted payload", what, src, seq, c, le.Uint32(b[28:]))
	}
}

// recvBuf is a receive buffer of n bytes followed by a canary; the slice
// handed to MPI has its capacity cut at n.
func recvBuf(n int) []byte {
	b := make([]byte, n+canary)
	for i := range b {
		b[i] = canByte
	}
	return b
}

func (s *soak) checkCanary(what string, b []byte, from int) {
	for i := from; i < len(b); i++ {
		if b[i] != canByte {
			s.fail("%s: byte %d past the %d received was written", what, i-from, from)
		}
	}
}

func (s *soak) p2pRound(round int) {
	plan := s.plan(round)
	type posted struct {
		m   *msg
		seq uint64
		buf []byte
	}
	var recvs []posted
	var reqs []*mpi.Request
	// Receives first, in plan order, so that each stream's receives are
	// posted in the order its messages are sent.
	for i := range plan {
		m := &plan[i]
		if m.dst != s.rank {
			continue
		}
		key := [4]int{m.src, m.dst, m.ci, m.tag}
		seq := s.seq[key]
		s.seq[key] = seq + 1
		n := m.size + m.extra
		buf := recvBuf(n)
		tag := m.tag
		if m.anyTag {
			tag = mpi.AnyTag
		}
		c := s.comms[m.ci]
		rq, err := c.Irecv(buf[:n:n], s.toComm[m.ci][m.src], tag)
		s.must("Irecv", err)
		reqs = append(reqs, rq)
		recvs = append(recvs, posted{m, seq, buf})
	}
	var blocking []error
	for i := range plan {
		m := &plan[i]
		if m.src != s.rank {
			continue
		}
		key := [4]int{m.src, m.dst, m.ci, m.tag}
		seq := s.seq[key]
		if m.src != m.dst {
			s.seq[key] = seq + 1
		} else {
			seq = s.seq[key] - s.countSelf(plan, i) // receive side already counted it
		}
		buf := make([]byte, m.size)
		s.fillPayload(buf, m.src, m.ci, m.tag, seq)
		c := s.comms[m.ci]
		dst := s.toComm[m.ci][m.dst]
		// A blocking send to ourselves would wait for a receive that is
		// already posted, so every mode is safe.
		switch m.mode {
		case 0:
			rq, err := c.Isend(buf, dst, m.tag)
			s.must("Isend", err)
			reqs = append(reqs, rq)
		case 1:
			rq, err := c.Issend(buf, dst, m.tag)
			s.must("Issend", err)
			reqs = append(reqs, rq)
		case 2:
			blocking = append(blocking, c.Send(buf, dst, m.tag))
		case 3:
			blocking = append(blocking, c.Ssend(buf, dst, m.tag))
		}
	}
	for _, err := range blocking {
		s.must("Send", err)
	}
	sts, err := mpi.Waitall(reqs)
	s.must("Waitall", err)
	for i, p := range recvs {
		st := sts[i]
		what := fmt.Sprintf("round %d: recv from %d on comm %d tag %d", round, p.m.src, p.m.ci, p.m.tag)
		if st.Count != p.m.size || st.Tag != p.m.tag || st.Source != s.toComm[p.m.ci][p.m.src] {
			s.fail("%s: status (source %d, tag %d, count %d), want (%d, %d, %d)", what,
				st.Source, st.Tag, st.Count, s.toComm[p.m.ci][p.m.src], p.m.tag, p.m.size)
		}
		s.checkPayload(what, p.buf[:p.m.size], p.m.src, p.m.ci, p.m.tag, p.seq)
		s.checkCanary(what, p.buf, p.m.size)
		s.msgs++
		s.bytes += int64(p.m.size)
	}
}

// countSelf is, for a message to ourselves at plan index i, how many later
// messages of its stream the receive loop already counted: the sender's
// sequence number is the receive side's count minus those and itself.
func (s *soak) countSelf(plan []msg, i int) uint64 {
	m := plan[i]
	n := uint64(1)
	for j := i + 1; j < len(plan); j++ {
		o := plan[j]
		if o.src == m.src && o.dst == m.dst && o.ci == m.ci && o.tag == m.tag {
			n++
		}
	}
	return n
}

// pattern is the byte a collective's contribution holds at position i.
func pattern(round, ci, who, i int) byte { return byte(round*7 + ci*13 + who*31 + i*5 + i>>8) }

func (s *soak) collRound(round int) {
	r := s.rng(round, 2)
	for ci, c := range s.comms {
		me, n := c.Rank(), c.Size()
		for k := 0; k < 3; k++ {
			// Draws depend only on (round, ci, k), not on the instance,
			// so both Split halves agree within themselves.
			op, root, size := r.IntN(6), r.IntN(n), []int{1, 8, 200, 4000, 70_000}[r.IntN(5)]
			what := fmt.Sprintf("round %d comm %d collective %d", round, ci, op)
			switch op {
			case 0:
				s.must(what, c.Barrier())
			case 1: // Bcast
				buf := recvBuf(size)
				if me == root {
					for i := 0; i < size; i++ {
						buf[i] = pattern(round, ci, root, i)
					}
				}
				s.must(what, c.Bcast(buf[:size:size], root))
				for i := 0; i < size; i++ {
					if buf[i] != pattern(round, ci, root, i) {
						s.fail("%s: bcast byte %d differs", what, i)
					}
				}
				s.checkCanary(what, buf, size)
				s.bytes += int64(size)
			case 2, 3: // Allreduce, Reduce: int64 sums
				cnt := size/8 + 1
				send := make([]int64, cnt)
				for i := range send {
					send[i] = int64(me*1000003 + i*7 + round)
				}
				recv := make([]int64, cnt)
				if op == 2 {
					s.must(what, mpi.AllreduceSlice(c, send, recv, mpi.Sum))
				} else {
					s.must(what, mpi.ReduceSlice(c, send, recv, mpi.Sum, root))
				}
				if op == 2 || me == root {
					for i, v := range recv {
						want := int64(n*(n-1)/2*1000003 + n*(i*7+round))
						if v != want {
							s.fail("%s: element %d is %d, want %d", what, i, v, want)
						}
					}
				}
				s.bytes += int64(8 * cnt)
			case 4: // Allgather
				blk := size
				send := make([]byte, blk)
				for i := range send {
					send[i] = pattern(round, ci, me, i)
				}
				buf := recvBuf(blk * n)
				s.must(what, c.Allgather(send, buf[:blk*n:blk*n]))
				for who := 0; who < n; who++ {
					for i := 0; i < blk; i++ {
						if buf[who*blk+i] != pattern(round, ci, who, i) {
							s.fail("%s: block of %d byte %d differs", what, who, i)
						}
					}
				}
				s.checkCanary(what, buf, blk*n)
				s.bytes += int64(blk * n)
			case 5: // Alltoall
				blk := min(size, 4000)
				send := make([]byte, blk*n)
				for to := 0; to < n; to++ {
					for i := 0; i < blk; i++ {
						send[to*blk+i] = pattern(round, ci, me*64+to, i)
					}
				}
				buf := recvBuf(blk * n)
				s.must(what, c.Alltoall(send, buf[:blk*n:blk*n]))
				for from := 0; from < n; from++ {
					for i := 0; i < blk; i++ {
						if buf[from*blk+i] != pattern(round, ci, from*64+me, i) {
							s.fail("%s: block from %d byte %d differs", what, from, i)
						}
					}
				}
				s.checkCanary(what, buf, blk*n)
				s.bytes += int64(blk * n)
			}
			s.colls++
		}
	}
}

// anySourceRound: one rank receives from every other with AnySource and
// AnyTag; per source, messages must come in the order they were sent.
func (s *soak) anySourceRound(round int) {
	r := s.rng(round, 3)
	c := s.comms[1]
	root := r.IntN(s.size)
	counts := make([]int, s.size)
	sizes := make([][]int, s.size)
	total, biggest := 0, 0
	for src := 0; src < s.size; src++ {
		if src == root {
			continue
		}
		counts[src] = 1 + r.IntN(3)
		for i := 0; i < counts[src]; i++ {
			n := s.drawSize(r)
			sizes[src] = append(sizes[src], n)
			biggest = max(biggest, n)
		}
		total += counts[src]
	}
	const tag = 5
	if s.rank != root {
		var reqs []*mpi.Request
		for i, n := range sizes[s.rank] {
			buf := make([]byte, n)
			s.fillPayload(buf, s.rank, 1, 100+round, uint64(i))
			rq, err := c.Isend(buf, root, tag)
			s.must("Isend", err)
			reqs = append(reqs, rq)
		}
		_, err := mpi.Waitall(reqs)
		s.must("Waitall", err)
		// Nobody sends again on this communicator before the root has
		// matched the whole fan-in: a later message would match its
		// AnySource, AnyTag receives.
		s.must("Barrier", c.Barrier())
		return
	}
	bufs := make([][]byte, total)
	reqs := make([]*mpi.Request, total)
	for i := range bufs {
		bufs[i] = recvBuf(biggest)
		var err error
		reqs[i], err = c.Irecv(bufs[i][:biggest:biggest], mpi.AnySource, mpi.AnyTag)
		s.must("Irecv", err)
	}
	sts, err := mpi.Waitall(reqs)
	s.must("Waitall", err)
	next := make([]int, s.size)
	for i, st := range sts {
		what := fmt.Sprintf("round %d: AnySource receive %d", round, i)
		src := st.Source // Dup: same ranks as World
		if src < 0 || src >= s.size || src == root || next[src] >= counts[src] {
			s.fail("%s: from %d, which had nothing (more) to send", what, src)
		}
		k := next[src]
		next[src]++
		if st.Count != sizes[src][k] || st.Tag != tag {
			s.fail("%s from %d: count %d tag %d, want message %d: count %d tag %d (overtaken?)",
				what, src, st.Count, st.Tag, k, sizes[src][k], tag)
		}
		s.checkPayload(what, bufs[i][:st.Count], src, 1, 100+round, uint64(k))
		s.checkCanary(what, bufs[i], st.Count)
		s.msgs++
		s.bytes += int64(st.Count)
	}
	s.must("Barrier", c.Barrier())
}
