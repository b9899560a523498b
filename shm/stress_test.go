package shm

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The two-process stress test: this test binary is the producer (rank 0) and
// re-executes itself as the consumer (rank 1, TestStressChild), which inherits
// the region as descriptor RegionFD the way ranks do. The geometry is tiny so
// the descriptor ring wraps and both kinds of flow control (no slot, no cell)
// engage all the time. Both sides derive the message plan (sizes, kinds,
// flags) from the same seed; payloads are a seeded pattern keyed by the
// sequence number, and the envelope carries the sequence number and a CRC, so
// the child detects loss, duplication, reordering, truncation and corruption.
const (
	stressChildEnv = "HYMPI_SHM_STRESS_CHILD" // set in the child
	stressSeedEnv  = "HYMPI_TEST_SEED"        // uint64; random when unset
	stressMsgsEnv  = "HYMPI_STRESS_MSGS"      // messages to send; default below
	stressMarker   = "stress child: ok"
)

var stressConfig = Config{MinCells: 4, CellSize: 256, Slots: 8}

// stressTimeout bounds the whole exchange; the child is killed past it.
const stressTimeout = 25 * time.Second

func stressMsgCount(t *testing.T) int {
	if v := os.Getenv(stressMsgsEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			t.Fatalf("%s=%q: want a count", stressMsgsEnv, v)
		}
		return n
	}
	switch {
	case testing.Short():
		return 10_000
	case raceEnabled:
		return 100_000
	}
	return 200_000
}

// stressPlan yields the same message sequence on both sides.
type stressPlan struct {
	rng   *rand.Rand
	max   int
	edges []int
}

func newStressPlan(seed uint64) *stressPlan {
	cs := stressConfig.CellSize
	return &stressPlan{
		rng: rand.New(rand.NewPCG(seed, 0x5eed)),
		max: InlineMax + 2*cs,
		edges: []int{0, 1, 7, 8, cs - 1, cs, cs + 1, 2*cs - 1, 2 * cs, 2*cs + 1, 3 * cs, 4 * cs,
			InlineMax - 1, InlineMax, InlineMax + 1, InlineMax + 2*cs},
	}
}

// next returns the size, the first descriptor's kind and the flags of the
// next message. Sizes run past InlineMax; below it a message goes inline
// or through cells at random, so both paths see every size.
func (p *stressPlan) next() (size int, kind Kind, flags uint8) {
	if p.rng.IntN(8) == 0 {
		size = p.edges[p.rng.IntN(len(p.edges))]
	} else {
		size = p.rng.IntN(p.max + 1)
	}
	switch {
	case size > InlineMax || size > 0 && p.rng.IntN(2) == 0:
		kind = KindFirst
	case p.rng.IntN(16) == 0:
		kind = KindControl
	default:
		kind = KindInline
	}
	if p.rng.IntN(8) == 0 {
		flags = FlagSync
	}
	return size, kind, flags
}

// stressPayload fills b with message k's pattern.
func stressPayload(b []byte, seed, k uint64) {
	x := seed ^ (k+1)*0x9E3779B97F4A7C15
	var w [8]byte
	for i := 0; i < len(b); i += 8 {
		x += 0x9E3779B97F4A7C15 // splitmix64
		z := x
		z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
		z = (z ^ z>>27) * 0x94D049BB133111EB
		binary.LittleEndian.PutUint64(w[:], z^z>>31)
		copy(b[i:], w[:])
	}
}

func stressSeed(t *testing.T) uint64 {
	if v := os.Getenv(stressSeedEnv); v != "" {
		s, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q: want an unsigned integer", stressSeedEnv, v)
		}
		return s
	}
	return rand.Uint64()
}

func TestStressTwoProcesses(t *testing.T) {
	if os.Getenv(stressChildEnv) != "" {
		t.Skip("this is the child")
	}
	seed, n := stressSeed(t), stressMsgCount(t)
	t.Logf("seed %d, %d messages (rerun with %s=%d %s=%d)", seed, n, stressSeedEnv, seed, stressMsgsEnv, n)

	dir := shmDir
	if unix.Access(dir, unix.W_OK) != nil {
		dir = t.TempDir()
	}
	before, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	r, f, err := Create(dir, 2, stressConfig)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	defer f.Close() // closed early below, once the child has it
	after, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range after {
		if strings.HasPrefix(e.Name(), "hympi-") && !slicesContainsEntry(before, e.Name()) {
			t.Errorf("Create left %s in %s", e.Name(), dir)
		}
	}
	r.MarkAttached(0, os.Getpid())
	// The sender makes the channel, before the receiver looks for it.
	ch, err := r.OpenChannel(0, 1)
	if err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(os.Args[0], "-test.run=^TestStressChild$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(),
		stressChildEnv+"=1",
		fmt.Sprintf("%s=%d", stressSeedEnv, seed),
		fmt.Sprintf("%s=%d", stressMsgsEnv, n))
	cmd.ExtraFiles = []*os.File{f} // descriptor 3 == RegionFD
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	done := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		select {
		case <-done:
		default:
			cmd.Process.Kill() // by pid: the child we started
			<-done
		}
	})
	deadline := time.Now().Add(stressTimeout)
	var s *stressSender
	childFailed := func(why string) {
		t.Helper()
		select {
		case <-done:
		default:
			cmd.Process.Kill()
			<-done
		}
		t.Fatalf("%s (seed %d); child: %v\n%s\nproducer: %s", why, seed, waitErr, out.String(), s.state())
	}

	s = &stressSender{r: r, ch: ch, seed: seed}
	s.prod, s.pool = s.ch.Producer(), s.ch.Pool()
	// await returns once ready() reports true. ready may take a resource
	// (a slot, a cell), so it is never called again after it did.
	s.await = func(ready func() bool) {
		bell := r.Doorbell(0)
		for spins := 0; ; spins++ {
			if ready() {
				return
			}
			if spins < 50 {
				Yield()
				continue
			}
			seq := bell.Arm()
			ok := ready() // re-check after arming: a Ring may have come first
			if !ok {
				t0 := time.Now()
				bell.Wait(seq, 20*time.Millisecond)
				if time.Since(t0) > 15*time.Millisecond {
					s.fullSleeps++
				}
				s.sleeps++
			}
			bell.Disarm()
			if ok {
				return
			}
			spins = 0
			select {
			case <-done:
				childFailed("the child exited while the producer waited for it")
			default:
			}
			if time.Now().After(deadline) {
				childFailed(fmt.Sprintf("timed out after %v with %d of %d messages sent", stressTimeout, s.sent, n))
			}
		}
	}
	start := time.Now()
	s.run(t, n)
	sendTime := time.Since(start)

	select {
	case <-done:
	case <-time.After(time.Until(deadline)):
		childFailed(fmt.Sprintf("the child did not finish within %v", stressTimeout))
	}
	if waitErr != nil || !strings.Contains(out.String(), fmt.Sprintf("%s: %d messages", stressMarker, n)) {
		childFailed("the child did not confirm every message")
	}
	t.Logf("sent %d messages (%d fragments) in %v; producer slept %d times (%d to the timeout), blocked on slots %d, on cells %d",
		n, s.frags, sendTime.Round(time.Millisecond), s.sleeps, s.fullSleeps, s.noSlot, s.noCell)
	for l := range strings.SplitSeq(out.String(), "\n") {
		if strings.HasPrefix(l, stressMarker) {
			t.Log(l)
		}
	}

	// Everything came back: every cell, every slot.
	if err := s.pool.Collect(); err != nil {
		t.Fatal(err)
	}
	if s.pool.Outstanding() != 0 || s.pool.Free() != s.pool.Size() {
		t.Errorf("after the child finished: %d cells outstanding, %d of %d free",
			s.pool.Outstanding(), s.pool.Free(), s.pool.Size())
	}
	for range r.L.Slots {
		slot := s.prod.Reserve()
		if slot == nil {
			t.Fatalf("after the child finished, a slot is still held")
		}
		EncodeDesc(slot, &Desc{Kind: KindAck})
		s.prod.Publish(slot)
	}
	if st, pid := r.RankState(1), r.RankPID(1); st != StateFinalized || pid != cmd.Process.Pid {
		t.Errorf("child's rank block: state %v pid %d, want %v %d", st, pid, StateFinalized, cmd.Process.Pid)
	}
	if a := r.Attached(); a != 2 {
		t.Errorf("Attached() = %d, want 2", a)
	}
}

func slicesContainsEntry(ents []os.DirEntry, name string) bool {
	for _, e := range ents {
		if e.Name() == name {
			return true
		}
	}
	return false
}

// stressSender is rank 0's end of channel 0→1.
type stressSender struct {
	r     *Region
	ch    Channel
	prod  *Producer
	pool  *CellPool
	seed  uint64
	await func(ready func() bool) // returns once ready() is true

	sent, frags, sleeps, fullSleeps, noSlot, noCell int
}

// state describes the channel for a failure report.
func (s *stressSender) state() string {
	var words []uint64
	for i := range uint64(s.r.L.Slots) {
		words = append(words, seqOf(s.prod.slot(i)).Load())
	}
	return fmt.Sprintf("message %d, ring position %d, slot words %v; pool: free %v, out %v, return tail %d head %d",
		s.sent, *s.prod.pos, words, poolFree(s.pool), s.pool.out, s.pool.tail.Load(), s.pool.head)
}

func (s *stressSender) reserve() []byte {
	slot := s.prod.Reserve()
	if slot == nil {
		s.noSlot++
		s.await(func() bool { slot = s.prod.Reserve(); return slot != nil })
	}
	return slot
}

func (s *stressSender) cell(t *testing.T) uint32 {
	get := func() (uint32, bool) {
		i, ok, err := s.pool.Get()
		if err != nil {
			t.Fatalf("message %d: %v", s.sent, err)
		}
		return i, ok
	}
	i, ok := get()
	if !ok {
		s.noCell++
		s.await(func() bool { i, ok = get(); return ok })
	}
	if o := s.pool.Outstanding(); o < 1 || o > s.pool.Size() {
		t.Fatalf("message %d: pool reports %d cells outstanding", s.sent, o)
	}
	return i
}

func (s *stressSender) publish(slot []byte) {
	s.prod.Publish(slot)
	s.frags++
	s.r.Summary(1).Mark(0)
	s.r.Doorbell(1).Ring()
}

func (s *stressSender) run(t *testing.T, n int) {
	plan := newStressPlan(s.seed)
	cs := s.r.L.CellSize
	buf := make([]byte, plan.max)
	for ; s.sent < n; s.sent++ {
		k := uint64(s.sent)
		size, kind, flags := plan.next()
		msg := buf[:size]
		stressPayload(msg, s.seed, k)
		d := Desc{Kind: kind, Flags: flags, Ctx: crc32.ChecksumIEEE(msg), Tag: int32(uint32(k)), MsgLen: uint64(size), ReqID: k}
		if kind != KindFirst {
			slot := s.reserve()
			d.FragLen = uint32(size)
			EncodeDesc(slot, &d)
			copy(InlineArea(slot), msg)
			s.publish(slot)
			continue
		}
		for off := 0; off < size; {
			frag := min(size-off, cs)
			c := s.cell(t)
			copy(s.ch.Cell(c), msg[off:off+frag])
			slot := s.reserve()
			d.Cell, d.FragLen = c, uint32(frag)
			EncodeDesc(slot, &d)
			s.publish(slot)
			d.Kind = KindNext
			off += frag
		}
	}
}

// TestStressChild is the consumer half of TestStressTwoProcesses; run on its
// own it skips.
func TestStressChild(t *testing.T) {
	if os.Getenv(stressChildEnv) == "" {
		t.Skip("helper process of TestStressTwoProcesses")
	}
	seed, err := strconv.ParseUint(os.Getenv(stressSeedEnv), 10, 64)
	if err != nil {
		t.Fatalf("%s: %v", stressSeedEnv, err)
	}
	n := stressMsgCount(t)
	f := os.NewFile(RegionFD, "region")
	defer f.Close()
	r, err := Attach(f)
	if err != nil {
		t.Fatalf("Attach: %v", err)
	}
	defer r.Close()
	if want, _ := NewLayout(2, stressConfig); r.L != want {
		t.Fatalf("attached layout %+v, want %+v", r.L, want)
	}
	r.MarkAttached(1, os.Getpid())

	ch, ok, err := r.IncomingChannel(0, 1)
	if !ok || err != nil {
		t.Fatalf("the sender's channel is not there: %v %v", ok, err)
	}
	cons, rets, lim := ch.Consumer(), ch.Returns(), ch.Limits()
	myBell, peerBell, sum := r.Doorbell(1), r.Doorbell(0), r.Summary(1)
	plan := newStressPlan(seed)
	cs := r.L.CellSize
	got := make([]byte, plan.max)
	want := make([]byte, plan.max)
	rng := rand.New(rand.NewPCG(seed, 7))
	deadline := time.Now().Add(stressTimeout + 5*time.Second)

	var (
		k              uint64 // next message expected
		size, have     int    // message in progress: its size, bytes so far
		kind           Kind
		flags          uint8
		streaming      bool
		frags, sleeps  int
		fullSleeps     int
		unpublished    int
		batch          = 1
		idle           int
		maxHeldReturns int
		unreturned     = make(map[uint32]bool) // cells received since the last published return
	)
	publish := func() {
		if rets.Publish() {
			clear(unreturned)
			peerBell.Ring()
		}
		unpublished = 0
	}
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("message %d (seed %d): %s", k, seed, fmt.Sprintf(format, args...))
	}
	for k < uint64(n) {
		slot, err := cons.Peek()
		if err != nil {
			fail("%v", err)
		}
		if slot == nil {
			// Idle: hand back what we hold, then spin, then sleep.
			publish()
			if idle++; idle < 50 {
				Yield()
				continue
			}
			sum.Clear(0)
			if !cons.Ready() {
				seq := myBell.Arm()
				if !cons.Ready() {
					t0 := time.Now()
					myBell.Wait(seq, 20*time.Millisecond)
					if time.Since(t0) > 15*time.Millisecond {
						fullSleeps++
					}
					sleeps++
				}
				myBell.Disarm()
			}
			idle = 0
			if time.Now().After(deadline) {
				fail("timed out with %d of %d messages received", k, n)
			}
			continue
		}
		idle = 0
		d, err := DecodeDesc(slot, lim)
		if err != nil {
			fail("%v", err)
		}
		frags++
		if d.Tag != int32(uint32(k)) {
			fail("descriptor carries message %d: lost, duplicated or reordered", d.Tag)
		}
		if carried := d.Kind == KindFirst || d.Kind == KindNext || d.Flags&FlagSync != 0; carried && d.ReqID != k || !carried && d.ReqID != 0 {
			fail("request id %d", d.ReqID)
		}
		if d.Kind == KindNext {
			if !streaming {
				fail("KindNext with no message in progress")
			}
		} else {
			if streaming {
				fail("%v descriptor while message is %d/%d bytes in", d.Kind, have, size)
			}
			size, kind, flags = plan.next()
			have = 0
			stressPayload(want[:size], seed, k)
			if d.Kind != kind || d.Flags != flags {
				fail("kind %d flags %#x, want kind %d flags %#x", d.Kind, d.Flags, kind, flags)
			}
		}
		if d.MsgLen != uint64(size) || d.Ctx != crc32.ChecksumIEEE(want[:size]) {
			fail("length %d crc %#x, want %d %#x", d.MsgLen, d.Ctx, size, crc32.ChecksumIEEE(want[:size]))
		}
		switch d.Kind {
		case KindInline, KindControl:
			copy(got, InlinePayload(slot, &d))
			have = int(d.FragLen)
		case KindFirst, KindNext:
			if exp := min(size-have, cs); int(d.FragLen) != exp {
				fail("fragment of %d bytes at offset %d, want %d", d.FragLen, have, exp)
			}
			if unreturned[d.Cell] {
				fail("cell %d sent again before it was returned", d.Cell)
			}
			copy(got[have:], ch.Cell(d.Cell)[:d.FragLen])
			have += int(d.FragLen)
			rets.Put(d.Cell)
			unreturned[d.Cell] = true
			unpublished++
			maxHeldReturns = max(maxHeldReturns, unpublished)
		default:
			fail("unexpected kind %d", d.Kind)
		}
		cons.Release()
		// Now and then stall, so the producer fills the ring, runs out of
		// cells and goes to sleep on its doorbell.
		if rng.IntN(4096) == 0 {
			time.Sleep(time.Millisecond)
		}
		// Hand cells back in random batches, so the return ring carries
		// several entries at once and the producer runs dry of cells.
		if unpublished >= batch {
			publish()
			batch = 1 + rng.IntN(int(lim.Cells))
		}
		peerBell.Ring() // a slot (and maybe cells) came free
		streaming = have < size
		if !streaming {
			if !bytes.Equal(got[:size], want[:size]) {
				fail("payload of %d bytes differs from the pattern", size)
			}
			k++
		}
	}
	// The producer sends nothing beyond n.
	if slot, err := cons.Peek(); slot != nil || err != nil {
		t.Fatalf("after %d messages the ring holds more: %v", n, err)
	}
	publish()
	r.SetState(1, StateFinalized)
	fmt.Printf("%s: %d messages, %d descriptors, %d sleeps (%d to the timeout), up to %d returns per publish\n",
		stressMarker, n, frags, sleeps, fullSleeps, maxHeldReturns)
}
