package main

import (
	"bytes"
	"time"

	"github.com/hympi/hympi/mpi"
	"github.com/hympi/hympi/shm"
)

func init() {
	// Messages of every protocol interleaved on one pair: inline, spans
	// over consecutive slots (shm/span.go) at their boundary sizes, cells
	// (a span at the ring's end, a synchronous send, more than SpanMax)
	// and direct copies, received by every path a span can take: the
	// blocking fast lane, the receive lane of a window, the matching
	// queues behind wildcards, a probe, and the unexpected queue. Each
	// message has a size and payload of its own and every receive expects
	// one, so a message delivered out of order fails the check. 200 rounds
	// wrap the ring many times at varying offsets; one round in six sends
	// a burst that fills it, one is a ping-pong (whose sends are spans:
	// streams go by cells, mpi's trySendSpan).
	register("spans", func(w *mpi.Comm) {
		me, n := w.Rank(), w.Size()
		partner := me ^ 1
		if partner >= n {
			return
		}
		sizes := []int{8, shm.InlineMax, shm.InlineMax + 1, shm.SpanHeadMax, shm.SpanHeadMax + 1, 2048,
			shm.SpanHeadMax + shm.SpanNextMax + 1, 3000, shm.SpanMax, shm.SpanMax + 1, 70000, 1}
		const token, ack = 99, 98
		type msg struct{ size, tag, seed int }
		plan := func(round int) []msg {
			reps := 1
			if round%6 == 4 {
				// A burst longer than the ring: sends queue behind
				// a full ring, and spans must stay behind them.
				reps = 30
			}
			ms := make([]msg, reps*len(sizes))
			for k := range ms {
				ms[k] = msg{size: sizes[(k*5+round)%len(sizes)], tag: 1 + k%3/2, seed: round*1000 + k}
			}
			return ms
		}
		check := func(what string, round, k int, m msg, st mpi.Status, buf []byte) {
			want := make([]byte, m.size)
			pattern(want, m.seed)
			if st.Source != partner || st.Tag != m.tag || st.Count != m.size || !bytes.Equal(buf[:min(st.Count, len(buf))], want) {
				fail("%s: round %d message %d: status %+v, want %d bytes tag %d from %d (or another payload)",
					what, round, k, st, m.size, m.tag, partner)
			}
		}
		for round := range 200 {
			ms := plan(round)
			s := min(me, partner)
			if round%2 == 1 {
				s = max(me, partner)
			}
			mode := round % 6
			if me == s && mode == 5 {
				// Ping-pong: every reply makes the next 1-4 KiB
				// send a span (the sender's rule), and the receiver
				// takes it at the head of its channel.
				for _, m := range ms {
					b := make([]byte, m.size)
					pattern(b, m.seed)
					must(w.Send(b, partner, m.tag), "Send")
					_, err := w.Recv(make([]byte, 1), partner, ack)
					must(err, "Recv ack")
				}
				continue
			}
			if me == s {
				var rqs []*mpi.Request
				for k, m := range ms {
					b := make([]byte, m.size)
					pattern(b, m.seed)
					switch {
					case k%4 == 3:
						// Synchronous: never a span (it carries no
						// request id), queued behind spans.
						rq, err := w.Issend(b, partner, m.tag)
						must(err, "Issend")
						rqs = append(rqs, rq)
					case k%2 == 0 && mode != 4:
						must(w.Send(b, partner, m.tag), "Send")
					default:
						rq, err := w.Isend(b, partner, m.tag)
						must(err, "Isend")
						rqs = append(rqs, rq)
					}
					if mode == 4 && k == len(ms)-5*len(sizes) {
						// The rest of the burst after the
						// receiver woke: it frees the ring while
						// sends are still queued here, and a
						// span that took the free slots would
						// overtake those.
						time.Sleep(20 * time.Millisecond)
					}
				}
				if mode == 4 {
					must(w.Send(nil, partner, token), "Send token")
				}
				_, err := mpi.Waitall(rqs)
				must(err, "Waitall of the sends")
				continue
			}
			switch mode {
			case 0: // blocking receives, in order
				for k, m := range ms {
					buf := make([]byte, m.size)
					st, err := w.Recv(buf, partner, m.tag)
					must(err, "Recv")
					check("Recv", round, k, m, st, buf)
				}
			case 1, 2: // a window, waited in reverse; in 2 every third receive a wildcard
				bufs := make([][]byte, len(ms))
				rqs := make([]*mpi.Request, len(ms))
				for k, m := range ms {
					bufs[k] = make([]byte, m.size)
					src, tag := partner, m.tag
					if mode == 2 && k%3 == 1 {
						src, tag = mpi.AnySource, mpi.AnyTag
					}
					var err error
					rqs[k], err = w.Irecv(bufs[k], src, tag)
					must(err, "Irecv")
				}
				for k := len(ms) - 1; k >= 0; k-- {
					st, err := rqs[k].Wait()
					must(err, "Wait")
					check("window", round, k, ms[k], st, bufs[k])
				}
			case 3: // probe, then receive what the probe saw
				for k, m := range ms {
					st, err := w.Probe(partner, mpi.AnyTag)
					must(err, "Probe")
					if st.Count != m.size || st.Tag != m.tag {
						fail("Probe: round %d message %d: %+v, want %d bytes tag %d", round, k, st, m.size, m.tag)
					}
					buf := make([]byte, st.Count)
					st, err = w.Recv(buf, partner, st.Tag)
					must(err, "Recv after Probe")
					check("probed", round, k, m, st, buf)
				}
			case 5:
				for k, m := range ms {
					buf := make([]byte, m.size)
					st, err := w.Recv(buf, partner, m.tag)
					must(err, "Recv")
					check("ping-pong", round, k, m, st, buf)
					must(w.Send([]byte{1}, partner, ack), "Send ack")
				}
			case 4: // everything arrived first: the unexpected queue
				time.Sleep(10 * time.Millisecond) // the sender fills the ring
				_, err := w.Recv(nil, partner, token)
				must(err, "Recv token")
				for k, m := range ms {
					buf := make([]byte, 80000)
					st, err := w.Recv(buf, partner, mpi.AnyTag)
					must(err, "Recv")
					check("unexpected", round, k, m, st, buf)
				}
			}
		}
	})
}
