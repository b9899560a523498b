package main

import (
	"fmt"
	"os"
	"time"

	"github.com/hympi/hympi/directcopy"
	"github.com/hympi/hympi/mpi"
	"github.com/hympi/hympi/skew"
)

func init() {
	register("window", window)
	register("skewadapt", skewAdapt)
	register("streamwindows", streamWindows)
}

// window: rank 0 completes a window of 16 Isends of 1 MiB to rank 1 while
// rank 1 is outside MPI (asleep for a second), so nothing but the shared
// region can hold them. Rank 0 then sends the wall-clock time its Waitall
// returned; rank 1 checks that it came before it woke up, then receives and
// checks all 16. Run with HYMPI_DIRECT=off: the shared-memory path alone
// must carry 16 MiB in flight, or Waitall returns only once rank 1 is back
// in MPI and the check fails. Ranks beyond 1 only take part in Init and
// Finalize.
func window(c *mpi.Comm) {
	const n, size, tagData, tagSent = 16, 1 << 20, 1, 2
	switch c.Rank() {
	case 0:
		bufs := make([][]byte, n)
		reqs := make([]*mpi.Request, n)
		for i := range reqs {
			bufs[i] = make([]byte, size)
			pattern(bufs[i], i)
			r, err := c.Isend(bufs[i], 1, tagData)
			must(err, "Isend %d", i)
			reqs[i] = r
		}
		_, err := mpi.Waitall(reqs)
		must(err, "Waitall")
		done := []int64{time.Now().UnixNano()}
		must(mpi.SendSlice(c, done, 1, tagSent), "Send completion time")
	case 1:
		time.Sleep(time.Second)
		woke := time.Now().UnixNano()
		done := make([]int64, 1)
		_, err := mpi.RecvSlice(c, done, 0, tagSent)
		must(err, "Recv completion time")
		if done[0] >= woke {
			fail("the window completed %v after the receiver woke up: shared memory did not hold it", time.Duration(done[0]-woke))
		}
		buf := make([]byte, size)
		for i := range n {
			st, err := c.Recv(buf, 0, tagData)
			must(err, "Recv %d", i)
			if st.Count != size {
				fail("message %d: %d bytes, want %d", i, st.Count, size)
			}
			checkPattern(buf, i, "window message")
		}
	}
}

// skewAdapt: rank 0 sends windows of 16 × 256 KiB to rank 1. In the skewed
// phase rank 1 receives one message at a time and computes 300 µs after
// each, so rendezvous sends would wait for it: the controller must raise
// rank 0's threshold and the later windows must go eager. In the calm phase
// rank 1 posts every receive before the window starts: the threshold must
// come back down and the sends go direct again (where reads are slow, only
// until a few are unread). Every payload is checked.
// With HYMPI_SKEW=off (argument-free: read from the environment) nothing may
// move. Needs 2 ranks with direct copy available (HYMPI_DIRECT=auto).
func skewAdapt(c *mpi.Comm) {
	const size, win, skewed, calm, tag = 256 << 10, 16, 6, 6, 3
	skewOff := os.Getenv("HYMPI_SKEW") == "off"
	bufs := make([][]byte, win)
	for i := range bufs {
		bufs[i] = make([]byte, size)
	}
	reqs := make([]*mpi.Request, win)
	var eagerInLastSkewed, directInLastCalm uint64
	for w := range skewed + calm {
		inSkew := w < skewed
		if c.Rank() == 1 && !inSkew {
			for i := range reqs {
				r, err := c.Irecv(bufs[i], 0, tag)
				must(err, "Irecv")
				reqs[i] = r
			}
		}
		must(c.Barrier(), "Barrier")
		switch c.Rank() {
		case 0:
			before := mpi.Counters(1)
			for i := range reqs {
				pattern(bufs[i], w*win+i)
				r, err := c.Isend(bufs[i], 1, tag)
				must(err, "Isend")
				reqs[i] = r
			}
			_, err := mpi.Waitall(reqs)
			must(err, "Waitall")
			after := mpi.Counters(1)
			if w == skewed-1 {
				eagerInLastSkewed = after.EagerMsgs - before.EagerMsgs
			}
			if w == skewed+calm-1 {
				directInLastCalm = after.DirectMsgs - before.DirectMsgs
			}
		case 1:
			if inSkew {
				for i := range win {
					_, err := c.Recv(bufs[i], 0, tag)
					must(err, "Recv")
					checkPattern(bufs[i], w*win+i, "skewed window")
					for start := time.Now(); time.Since(start) < 300*time.Microsecond; {
					}
				}
			} else {
				_, err := mpi.Waitall(reqs)
				must(err, "Waitall receives")
				for i := range win {
					checkPattern(bufs[i], w*win+i, "calm window")
				}
			}
		}
		must(c.Barrier(), "Barrier")
	}
	if c.Rank() != 0 {
		return
	}
	pc := mpi.Counters(1)
	if skewOff {
		if pc.SkewRaises != 0 || pc.SkewLowers != 0 || eagerInLastSkewed != 0 {
			fail("HYMPI_SKEW=off yet the threshold moved: %+v (eager sends in the last skewed window: %d)", pc, eagerInLastSkewed)
		}
		return
	}
	if pc.SkewRaises == 0 || eagerInLastSkewed != win {
		fail("no adaptation to skew: %d of %d sends of the last skewed window went eager; %+v", eagerInLastSkewed, win, pc)
	}
	// Where reads are slow only the sends up to a backlog of
	// skew.DefaultRaiseAt unread ones go direct, the rest eager
	// (mpi/skew.go, backlogEager); the threshold must still be down.
	wantDirect := uint64(win)
	if directcopy.SlowReads() {
		wantDirect = skew.DefaultRaiseAt
	}
	if pc.SkewLowers == 0 || directInLastCalm < wantDirect {
		fail("no return to direct copy: %d of %d sends of the last calm window went direct, want %d; %+v", directInLastCalm, win, wantDirect, pc)
	}
}

// streamWindows: osu_bw's pattern, the case skew feedback must leave
// alone. Rank 1 posts a window of 64 receives of 128 KiB back to back,
// waits for all and acknowledges; rank 0 sends each window as soon as the
// previous one is acknowledged. Messages reach rank 1 while it is still
// posting the window, so some find no receive yet, but rank 1 was never
// away computing: rendezvous costs rank 0 nothing here and the sends must
// stay direct. Fails when more than a quarter of them went eager. Needs 2
// ranks, HYMPI_DIRECT=auto and skew feedback on. On a machine whose direct
// reads cost more than the eager stream (directcopy.SlowReads) messages
// found waiting do count, by design, and the protocol is not checked.
func streamWindows(c *mpi.Comm) {
	const size, win, windows, tagData, tagAck = 128 << 10, 64, 30, 4, 5
	buf := make([]byte, size)
	ack := make([]byte, 4)
	reqs := make([]*mpi.Request, win)
	if c.Rank() == 0 {
		// Once: rank 0 must send the next window the moment the
		// acknowledgement arrives, as osu_bw does.
		pattern(buf, 0)
	}
	for range windows {
		switch c.Rank() {
		case 0:
			for i := range reqs {
				r, err := c.Isend(buf, 1, tagData)
				must(err, "Isend")
				reqs[i] = r
			}
			_, err := mpi.Waitall(reqs)
			must(err, "Waitall")
			_, err = c.Recv(ack, 1, tagAck)
			must(err, "Recv ack")
		case 1:
			for i := range reqs {
				r, err := c.Irecv(buf, 0, tagData)
				must(err, "Irecv")
				reqs[i] = r
			}
			_, err := mpi.Waitall(reqs)
			must(err, "Waitall receives")
			must(c.Send(ack, 0, tagAck), "Send ack")
		}
	}
	if c.Rank() != 0 {
		// Checked once, after the stream: checking every window would give
		// rank 0 time to fall behind the receives.
		checkPattern(buf, 0, "stream")
		return
	}
	pc := mpi.Counters(1)
	if directcopy.SlowReads() {
		fmt.Printf("streamwindows: direct reads are slow here (%.1f copies): protocol not checked; %+v\n", directcopy.ReadCost(), pc)
		return
	}
	if total := pc.EagerMsgs + pc.DirectMsgs; pc.DirectMsgs*4 < total*3 {
		fail("a receiver streaming windows was taken for a slow one: %d of %d sends went eager; %+v", pc.EagerMsgs, total, pc)
	}
}
