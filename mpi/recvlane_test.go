//go:build !ompi && !mpich

package mpi

import (
	"bytes"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/hympi/hympi/mpi/internal/progress"
	"github.com/hympi/hympi/shm"
)

// The receive lane (recvlane.go), driven from one goroutine over an
// in-process job: rank 0's small sends are in rank 1's channel when Send
// returns, so every case runs in one order, and each one checks which
// message every receive got. The cases mix lane receives with what must
// flush them into the queues (a wildcard receive, a probe, a blocking
// receive, a cancel, a message the lane does not take); a flush that lost
// the posting order gives some receive the wrong message.

// laneMsg is message k of a case: its bytes say which it is.
func laneMsg(k, size int) []byte {
	b := make([]byte, size)
	for i := range b {
		b[i] = byte(k*37 + i + 1)
	}
	return b
}

type laneRig struct {
	t    *testing.T
	s, r *Comm // sender (rank 0) and receiver (rank 1)
	// grow is added to every message and buffer size of a case: 0 for
	// inline messages, InlineMax for the same case with spans
	// (shm/span.go), which the lane takes too.
	grow int
}

func (g laneRig) send(k, size, tag int) {
	g.t.Helper()
	if err := g.s.Send(laneMsg(k, size+g.grow), 1, tag); err != nil {
		g.t.Fatalf("Send %d: %v", k, err)
	}
}

func TestRecvLane(t *testing.T) {
	type rig = laneRig
	grow := 0 // the running variant's laneRig.grow
	// check receives into bufs kept by the case.
	check := func(t *testing.T, what string, buf []byte, st Status, k, size, tag int) {
		t.Helper()
		size += grow
		if st.Source != 0 || st.Tag != tag || st.Count != size || !bytes.Equal(buf[:st.Count], laneMsg(k, size)) {
			t.Fatalf("%s: status %+v, bytes %x; want message %d (%d bytes, tag %d, source 0) %x",
				what, st, buf[:min(st.Count, len(buf))], k, size, tag, laneMsg(k, size))
		}
	}
	recv := func(g rig, src, tag, size int) ([]byte, *Request) {
		g.t.Helper()
		buf := make([]byte, size+g.grow)
		rq, err := g.r.Irecv(buf, src, tag)
		if err != nil {
			g.t.Fatalf("Irecv: %v", err)
		}
		return buf, rq
	}
	wait := func(t *testing.T, rq *Request) Status {
		t.Helper()
		st, err := rq.Wait()
		if err != nil {
			t.Fatalf("Wait: %v", err)
		}
		return st
	}
	cases := []struct {
		name string
		run  func(t *testing.T, g rig)
	}{
		{"waitall in order", func(t *testing.T, g rig) {
			var bufs [][]byte
			var rqs []*Request
			for range 5 {
				b, rq := recv(g, 0, 1, 64)
				if !rq.lane {
					t.Fatal("a receive naming its source, with nothing posted, was not queued in the lane")
				}
				bufs, rqs = append(bufs, b), append(rqs, rq)
			}
			for k := range 5 {
				g.send(k, 8+k, 1)
			}
			sts, err := Waitall(rqs)
			if err != nil {
				t.Fatal(err)
			}
			for k := range 5 {
				check(t, fmt.Sprint("receive ", k), bufs[k], sts[k], k, 8+k, 1)
			}
			if g.r.e.laneN != 0 || g.r.e.live[0] != 0 {
				t.Fatalf("lane %d, posted %d after the window", g.r.e.laneN, g.r.e.live[0])
			}
		}},
		{"wildcard posted after lane receives", func(t *testing.T, g rig) {
			b1, a := recv(g, 0, 1, 16)
			b2, b := recv(g, 0, 1, 16)
			b3, c := recv(g, AnySource, AnyTag, 16)
			if g.r.e.laneN != 0 {
				t.Fatal("a wildcard receive left the lane queued")
			}
			g.send(1, 5, 1)
			g.send(2, 6, 1)
			g.send(3, 7, 1)
			// The wildcard, waited for first, must get the third message.
			check(t, "wildcard", b3, wait(t, c), 3, 7, 1)
			check(t, "second", b2, wait(t, b), 2, 6, 1)
			check(t, "first", b1, wait(t, a), 1, 5, 1)
		}},
		{"wildcard tag lane receive", func(t *testing.T, g rig) {
			b1, a := recv(g, 0, AnyTag, 16)
			b2, b := recv(g, 0, 4, 16)
			g.send(1, 3, 9)
			g.send(2, 4, 4)
			check(t, "any tag", b1, wait(t, a), 1, 3, 9)
			check(t, "tag 4", b2, wait(t, b), 2, 4, 4)
		}},
		{"mixed tags", func(t *testing.T, g rig) {
			b1, a := recv(g, 0, 1, 16)
			b2, b := recv(g, 0, 2, 16)
			b3, c := recv(g, 0, 1, 16)
			g.send(1, 4, 2) // matches b, not the oldest lane receive
			g.send(2, 5, 1)
			g.send(3, 6, 1)
			sts, err := Waitall([]*Request{a, b, c})
			if err != nil {
				t.Fatal(err)
			}
			check(t, "tag 1 first", b1, sts[0], 2, 5, 1)
			check(t, "tag 2", b2, sts[1], 1, 4, 2)
			check(t, "tag 1 second", b3, sts[2], 3, 6, 1)
		}},
		{"waited in reverse order", func(t *testing.T, g rig) {
			b1, a := recv(g, 0, 1, 16)
			b2, b := recv(g, 0, 1, 16)
			g.send(1, 9, 1)
			g.send(2, 10, 1)
			check(t, "second", b2, wait(t, b), 2, 10, 1)
			check(t, "first", b1, wait(t, a), 1, 9, 1)
		}},
		{"blocking receive behind lane receives", func(t *testing.T, g rig) {
			b1, a := recv(g, 0, 1, 16)
			g.send(1, 3, 1)
			g.send(2, 4, 1)
			buf := make([]byte, 16+g.grow)
			st, err := g.r.Recv(buf, 0, 1)
			if err != nil {
				t.Fatal(err)
			}
			check(t, "Recv", buf, st, 2, 4, 1)
			check(t, "lane", b1, wait(t, a), 1, 3, 1)
		}},
		{"probe", func(t *testing.T, g rig) {
			b1, a := recv(g, 0, 1, 16)
			g.send(1, 3, 1)
			g.send(2, 11, 1)
			st, ok, err := g.r.Iprobe(0, 1)
			if err != nil || !ok || st.Count != 11+g.grow {
				t.Fatalf("Iprobe: %+v %v %v; want the second message (11 bytes), the first being the lane receive's", st, ok, err)
			}
			st, err = g.r.Probe(0, 1)
			if err != nil || st.Count != 11+g.grow {
				t.Fatalf("Probe: %+v %v", st, err)
			}
			buf := make([]byte, 16+g.grow)
			st, err = g.r.Recv(buf, 0, 1)
			if err != nil {
				t.Fatal(err)
			}
			check(t, "Recv", buf, st, 2, 11, 1)
			check(t, "lane", b1, wait(t, a), 1, 3, 1)
		}},
		{"cancel", func(t *testing.T, g rig) {
			_, a := recv(g, 0, 1, 16)
			b2, b := recv(g, 0, 1, 16)
			if !a.cancelRecv() {
				t.Fatal("cancel of a queued lane receive failed")
			}
			g.send(1, 5, 1)
			st := wait(t, a)
			if !st.Cancelled {
				t.Fatalf("cancelled receive: status %+v", st)
			}
			check(t, "after the cancelled one", b2, wait(t, b), 1, 5, 1)
		}},
		{"truncation", func(t *testing.T, g rig) {
			_, a := recv(g, 0, 1, 4)
			b2, b := recv(g, 0, 1, 16)
			g.send(1, 9, 1)
			g.send(2, 3, 1)
			if _, err := a.Wait(); ClassOf(err) != ErrTruncate {
				t.Fatalf("9 bytes into 4: %v, want ErrTruncate", err)
			}
			check(t, "next", b2, wait(t, b), 2, 3, 1)
		}},
		{"test", func(t *testing.T, g rig) {
			b1, a := recv(g, 0, 1, 16)
			if _, done, err := a.Test(); done || err != nil {
				t.Fatalf("Test before the send: %v %v", done, err)
			}
			if !a.lane {
				t.Fatal("an empty Test took the receive out of the lane")
			}
			g.send(1, 7, 1)
			st, done, err := a.Test()
			if !done || err != nil {
				t.Fatalf("Test after the send: %v %v", done, err)
			}
			check(t, "Test", b1, st, 1, 7, 1)
			if _, _, err := a.Test(); ClassOf(err) != ErrRequest {
				t.Fatalf("Test of a spent request: %v", err)
			}
		}},
		{"waitany with a send", func(t *testing.T, g rig) {
			b1, a := recv(g, 0, 1, 16)
			b2, b := recv(g, 0, 1, 16)
			s, err := g.r.Isend(laneMsg(9, 3), 0, 5)
			if err != nil {
				t.Fatal(err)
			}
			g.send(1, 4, 1)
			g.send(2, 5, 1)
			reqs := []*Request{b, s, a}
			seen := map[int]Status{}
			for range 3 {
				i, st, err := Waitany(reqs)
				if err != nil || i < 0 {
					t.Fatalf("Waitany: %d %v", i, err)
				}
				seen[i], reqs[i] = st, nil
			}
			check(t, "first", b1, seen[2], 1, 4, 1)
			check(t, "second", b2, seen[0], 2, 5, 1)
			if _, err := g.s.Recv(make([]byte, 3), 1, 5); err != nil {
				t.Fatal(err)
			}
		}},
		{"testall", func(t *testing.T, g rig) {
			b1, a := recv(g, 0, 1, 16)
			b2, b := recv(g, 0, 1, 16)
			g.send(1, 4, 1)
			sts, done, err := Testall([]*Request{b, a})
			if done || err != nil {
				t.Fatalf("Testall with one message of two sent: %v %v", done, err)
			}
			g.send(2, 5, 1)
			for !done {
				var err error
				if sts, done, err = Testall([]*Request{b, a}); err != nil {
					t.Fatal(err)
				}
			}
			check(t, "first", b1, sts[1], 1, 4, 1)
			check(t, "second", b2, sts[0], 2, 5, 1)
		}},
		{"a message too long for the lane", func(t *testing.T, g rig) {
			b1, a := recv(g, 0, 1, 8192)
			b2, b := recv(g, 0, 1, 16)
			g.send(1, 6000, 1)
			g.send(2, 3, 1)
			sts, err := Waitall([]*Request{a, b})
			if err != nil {
				t.Fatal(err)
			}
			check(t, "long", b1, sts[0], 1, 6000, 1)
			check(t, "short", b2, sts[1], 2, 3, 1)
		}},
		{"ssend", func(t *testing.T, g rig) {
			b1, a := recv(g, 0, 1, 16)
			s, err := g.s.Issend(laneMsg(1, 5+g.grow), 1, 1)
			if err != nil {
				t.Fatal(err)
			}
			check(t, "synchronous", b1, wait(t, a), 1, 5, 1)
			if _, err := s.Wait(); err != nil {
				t.Fatal(err)
			}
		}},
		// Waitall's one pass (waitquick.go) settles the leading requests
		// that need no wait and leaves the rest to the general wait; the
		// next cases stop it at every kind of request it must leave.
		{"waitall one pass over receives, sends and nil", func(t *testing.T, g rig) {
			b1, a := recv(g, 0, 1, 16)
			b2, b := recv(g, 0, 1, 16)
			s, err := g.r.Isend(laneMsg(9, 3), 0, 5)
			if err != nil {
				t.Fatal(err)
			}
			b3, c := recv(g, 0, 1, 16)
			g.send(1, 4, 1)
			g.send(2, 5, 1)
			g.send(3, 6, 1)
			reqs := []*Request{a, nil, b, s, c}
			sts, err := Waitall(reqs)
			if err != nil {
				t.Fatal(err)
			}
			check(t, "first", b1, sts[0], 1, 4, 1)
			check(t, "second", b2, sts[2], 2, 5, 1)
			check(t, "third", b3, sts[4], 3, 6, 1)
			if sts[1] != (Status{}) || sts[3] != (Status{}) {
				t.Fatalf("nil and send statuses %+v %+v, want empty", sts[1], sts[3])
			}
			for i, r := range reqs {
				if r == nil {
					continue
				}
				if _, err := r.Wait(); ClassOf(err) != ErrRequest {
					t.Fatalf("request %d after Waitall: %v, want ErrRequest", i, err)
				}
			}
			if _, err := g.s.Recv(make([]byte, 3), 1, 5); err != nil {
				t.Fatal(err)
			}
		}},
		{"waitall stops at another tag", func(t *testing.T, g rig) {
			b1, a := recv(g, 0, 1, 16)
			b2, b := recv(g, 0, 1, 16)
			b3, c := recv(g, 0, 1, 16)
			g.send(1, 4, 1)
			g.send(2, 5, 7) // at the head when b is next: not b's
			g.send(3, 6, 1)
			g.send(4, 7, 1)
			sts, err := Waitall([]*Request{a, b, c})
			if err != nil {
				t.Fatal(err)
			}
			check(t, "first", b1, sts[0], 1, 4, 1)
			check(t, "second", b2, sts[1], 3, 6, 1)
			check(t, "third", b3, sts[2], 4, 7, 1)
			buf := make([]byte, 16+g.grow)
			st, err := g.r.Recv(buf, 0, 7)
			if err != nil {
				t.Fatal(err)
			}
			check(t, "tag 7", buf, st, 2, 5, 7)
		}},
		{"waitall stops at a truncation", func(t *testing.T, g rig) {
			b1, a := recv(g, 0, 1, 16)
			_, b := recv(g, 0, 1, 2)
			b3, c := recv(g, 0, 1, 16)
			g.send(1, 4, 1)
			g.send(2, 9, 1)
			g.send(3, 6, 1)
			sts, err := Waitall([]*Request{a, b, c})
			if ClassOf(err) != ErrTruncate {
				t.Fatalf("Waitall with 9 bytes into 2: %v, want ErrTruncate", err)
			}
			check(t, "first", b1, sts[0], 1, 4, 1)
			if sts[1].Count != 2+g.grow || sts[1].Tag != 1 {
				t.Fatalf("truncated receive: status %+v", sts[1])
			}
			check(t, "third", b3, sts[2], 3, 6, 1)
		}},
		{"waitall over a receive completed with an error", func(t *testing.T, g rig) {
			_, a := recv(g, 0, 1, 2)
			g.send(1, 9, 1)
			// The probe flushes the lane and its progress pass
			// completes a, truncated, through the queues.
			if _, ok, err := g.r.Iprobe(0, 5); ok || err != nil {
				t.Fatalf("Iprobe: %v %v", ok, err)
			}
			if !a.done || a.err == nil {
				t.Fatal("the probe's progress pass did not complete the truncated receive")
			}
			b2, b := recv(g, 0, 1, 16)
			g.send(2, 6, 1)
			sts, err := Waitall([]*Request{a, b})
			if ClassOf(err) != ErrTruncate {
				t.Fatalf("Waitall: %v, want the first receive's ErrTruncate", err)
			}
			if sts[0].Count != 2+g.grow {
				t.Fatalf("truncated receive: status %+v", sts[0])
			}
			check(t, "second", b2, sts[1], 2, 6, 1)
		}},
		{"waitall stops at a send in progress", func(t *testing.T, g rig) {
			// A synchronous send from the receiving rank stays in
			// progress until rank 0 has matched it, so Waitall's
			// first pass stops there, after a, and the lane still
			// takes c behind it.
			got := make([]byte, 8)
			r0, err := g.s.Irecv(got, 1, 3)
			if err != nil {
				t.Fatal(err)
			}
			b1, a := recv(g, 0, 1, 16)
			s, err := g.r.Issend(laneMsg(8, 5), 0, 3)
			if err != nil {
				t.Fatal(err)
			}
			b3, c := recv(g, 0, 1, 16)
			g.send(1, 4, 1)
			g.send(2, 6, 1)
			if _, err := r0.Wait(); err != nil { // rank 0 matches: the ack is on its way
				t.Fatal(err)
			}
			sts, err := Waitall([]*Request{a, s, c})
			if err != nil {
				t.Fatal(err)
			}
			check(t, "before the send", b1, sts[0], 1, 4, 1)
			check(t, "after the send", b3, sts[2], 2, 6, 1)
			if sts[1] != (Status{}) || !bytes.Equal(got[:5], laneMsg(8, 5)) {
				t.Fatalf("synchronous send: status %+v, rank 0 got %x", sts[1], got)
			}
		}},
		{"waitall stops at a cancelled receive", func(t *testing.T, g rig) {
			_, a := recv(g, 0, 1, 16)
			b2, b := recv(g, 0, 1, 16)
			if !a.cancelRecv() {
				t.Fatal("cancel of a queued lane receive failed")
			}
			g.send(1, 5, 1)
			sts, err := Waitall([]*Request{a, b})
			if err != nil {
				t.Fatal(err)
			}
			if !sts[0].Cancelled {
				t.Fatalf("cancelled receive: status %+v", sts[0])
			}
			check(t, "after the cancelled one", b2, sts[1], 1, 5, 1)
		}},
		{"another tag at the head", func(t *testing.T, g rig) {
			b1, a := recv(g, 0, 1, 16)
			g.send(1, 2, 7)
			g.send(2, 3, 1)
			check(t, "tag 1", b1, wait(t, a), 2, 3, 1)
			buf := make([]byte, 16+g.grow)
			st, err := g.r.Recv(buf, 0, 7)
			if err != nil {
				t.Fatal(err)
			}
			check(t, "tag 7", buf, st, 1, 2, 7)
		}},
	}
	for _, variant := range []struct {
		name string
		grow int
	}{{"inline", 0}, {"spans", shm.InlineMax}} {
		for _, tc := range cases {
			t.Run(variant.name+"/"+tc.name, func(t *testing.T) {
				comms := inProcessJob(t, 2)
				g := rig{t: t, s: comms[0], r: comms[1], grow: variant.grow}
				grow = variant.grow
				// What Init's setupSkew sets with no peers yet; an
				// in-process engine skips it, and the lane takes no
				// buffer above it.
				g.r.e.skew.small = math.MaxInt
				if g.grow > 0 && (g.s.e.outTo(1) == nil || !g.s.e.spanOK(1, 16+g.grow)) {
					t.Fatal("the in-process sender would not send these messages as spans")
				}
				tc.run(t, g)
				e := g.r.e
				if e.laneN != 0 || e.live[0] != 0 || e.live[1] != 0 {
					t.Fatalf("left behind: lane %d, posted %d, unexpected %d", e.laneN, e.live[0], e.live[1])
				}
			})
		}
	}
}

// TestWaitallWindowArrivesLate is osu_bw's loop with a sender that pauses
// inside its window, so that the receiver's Waitall runs out of spins and
// takes the rest during its wait (Waitall's condition settles lane
// receives first, progress passes take what it leaves). Each window
// ends with two receives whose messages come in the other order (tags
// 2 then 1, sent 1 then 2), which the lane must leave to the queues.
// Every receive must get its own message, whichever path took it.
func TestWaitallWindowArrivesLate(t *testing.T) {
	for _, oversub := range []bool{false, true} {
		t.Run(fmt.Sprint("oversubscribed=", oversub), func(t *testing.T) {
			windowArrivesLate(t, oversub)
		})
	}
}

// windowArrivesLate runs TestWaitallWindowArrivesLate's loop; oversub
// gives the receiver the wait of a rank without a CPU of its own (no
// spin, a yield after a few passes), after which the condition's lane
// takes find the window's rest in before any progress pass.
func windowArrivesLate(t *testing.T, oversub bool) {
	const window, rounds, size = 64, 20, 12
	comms := inProcessJob(t, 2)
	r := comms[1].e
	r.skew.small = math.MaxInt // as Init's setupSkew leaves it
	if oversub {
		r.oversub, r.wait = true, progress.NewPolicy(2, 1)
	}
	// want is the message receive k of a window gets, and its tag.
	want := func(k int) (msg, tag int) {
		switch k {
		case window - 2:
			return window - 1, 2
		case window - 1:
			return window - 2, 1
		}
		return k, 1
	}
	runRanks(t, comms, func(c *Comm) error {
		ack := make([]byte, 1)
		// A wrong message is reported after the last round: the
		// sender waits for every acknowledgement.
		var wrong error
		for round := range rounds {
			if c.Rank() == 0 {
				for k := range window {
					if k == 2 || k == window/2 {
						time.Sleep(200 * time.Microsecond)
					}
					tag := 1
					if k == window-1 {
						tag = 2
					}
					if _, err := c.Isend(laneMsg(round*window+k, size), 1, tag); err != nil {
						return err
					}
				}
				if _, err := c.Recv(ack, 1, 9); err != nil {
					return err
				}
				continue
			}
			bufs := make([][]byte, window)
			reqs := make([]*Request, window)
			for k := range reqs {
				_, tag := want(k)
				bufs[k] = make([]byte, size)
				var err error
				if reqs[k], err = c.Irecv(bufs[k], 0, tag); err != nil {
					return err
				}
			}
			sts, err := Waitall(reqs)
			if err != nil {
				return err
			}
			for k := range reqs {
				msg, tag := want(k)
				if st := sts[k]; wrong == nil && (st.Source != 0 || st.Tag != tag || st.Count != size ||
					!bytes.Equal(bufs[k], laneMsg(round*window+msg, size))) {
					wrong = fmt.Errorf("round %d, receive %d: status %+v, bytes %x; want message %d, tag %d",
						round, k, st, bufs[k], msg, tag)
				}
			}
			if err := c.Send(ack, 0, 9); err != nil {
				return err
			}
		}
		return wrong
	})
}
