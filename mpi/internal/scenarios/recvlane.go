package main

import (
	"bytes"

	"github.com/hympi/hympi/mpi"
)

func init() {
	// Nonblocking receives naming their source, which the engine's receive
	// lane (mpi/recvlane.go) may complete straight off the channel,
	// mixed with what must turn them into ordinary posted receives first:
	// a wildcard receive posted after them, tags out of order, a probe, a
	// truncation, a message too long for a slot, waits in another order
	// than the posting one. Every message says which it is, so a receive
	// that gets another than MPI's matching order gives it fails; whether
	// the lane or the queues served it depends on timing and must not
	// matter. Then every rank exchanges windows with every other at once.
	register("recvlane", func(w *mpi.Comm) {
		me, n := w.Rank(), w.Size()
		msg := func(size, round, k int) []byte {
			b := make([]byte, size)
			for i := range b {
				b[i] = byte(round*53 + k*11 + i + 1)
			}
			return b
		}
		type want struct {
			rq         *mpi.Request
			buf        []byte
			size, k    int
			tag, round int
		}
		check := func(what string, x want, st mpi.Status, src int) {
			if st.Source != src || st.Tag != x.tag || st.Count != x.size || !bytes.Equal(x.buf[:st.Count], msg(x.size, x.round, x.k)) {
				fail("%s: round %d: status %+v, want message %d (%d bytes, tag %d) from %d", what, x.round, st, x.k, x.size, x.tag, src)
			}
		}
		post := func(src, tag, capacity, size, k, round int) want {
			buf := make([]byte, capacity)
			rq, err := w.Irecv(buf, src, tag)
			must(err, "Irecv")
			return want{rq, buf, size, k, tag, round}
		}
		waitOne := func(what string, x want, src int) {
			st, err := x.rq.Wait()
			must(err, "%s: Wait", what)
			check(what, x, st, src)
		}
		if partner := me ^ 1; partner < n {
			for round := range 300 {
				s, r := min(me, partner), max(me, partner)
				if round%2 == 1 {
					s, r = r, s
				}
				type out struct{ size, tag, k int }
				var sends []out
				switch round % 6 {
				case 0: // a window
					for k := range 16 {
						sends = append(sends, out{1 + k%9, 1, k})
					}
				case 1, 2, 3, 4:
					sends = []out{{5, 2, 0}, {6, 1, 1}, {7, 1, 2}, {8, 1, 3}}
				case 5: // a long message and a truncated one
					sends = []out{{3000, 1, 0}, {9, 1, 1}, {3, 1, 2}}
				}
				if me == s {
					var rqs []*mpi.Request
					for _, o := range sends {
						rq, err := w.Isend(msg(o.size, round, o.k), r, o.tag)
						must(err, "Isend")
						rqs = append(rqs, rq)
					}
					_, err := mpi.Waitall(rqs)
					must(err, "Waitall of the sends")
					continue
				}
				switch round % 6 {
				case 0:
					var xs []want
					var rqs []*mpi.Request
					for _, o := range sends {
						x := post(s, 1, 16, o.size, o.k, round)
						xs, rqs = append(xs, x), append(rqs, x.rq)
					}
					sts, err := mpi.Waitall(rqs)
					must(err, "Waitall")
					for i, x := range xs {
						check("window", x, sts[i], s)
					}
				case 1: // a wildcard posted after lane receives, waited first
					a := post(s, 1, 16, 6, 1, round)
					b := post(s, 1, 16, 7, 2, round)
					c := post(mpi.AnySource, mpi.AnyTag, 16, 5, 0, round)
					d := post(s, mpi.AnyTag, 16, 8, 3, round)
					c.tag, d.tag = 2, 1 // the messages' tags
					waitOne("wildcard", c, s)
					waitOne("fourth", d, s)
					waitOne("second", b, s)
					waitOne("first", a, s)
				case 2: // tags out of order, one Waitall
					a := post(s, 1, 16, 6, 1, round)
					b := post(s, 2, 16, 5, 0, round)
					c := post(s, 1, 16, 7, 2, round)
					d := post(s, 1, 16, 8, 3, round)
					sts, err := mpi.Waitall([]*mpi.Request{d.rq, c.rq, b.rq, a.rq})
					must(err, "Waitall")
					check("tag 1, last", d, sts[0], s)
					check("tag 1, second", c, sts[1], s)
					check("tag 2", b, sts[2], s)
					check("tag 1, first", a, sts[3], s)
				case 3: // a probe behind lane receives
					a := post(s, 2, 16, 5, 0, round)
					b := post(s, 1, 16, 6, 1, round)
					st, err := w.Probe(s, 1)
					must(err, "Probe")
					if st.Count != 7 {
						fail("round %d: Probe found %+v, want the 7-byte message (the lane receives are older)", round, st)
					}
					m, st, err := w.Mprobe(s, 1)
					must(err, "Mprobe")
					x := want{nil, make([]byte, 16), 7, 2, 1, round}
					st, err = m.Recv(x.buf)
					must(err, "Mrecv")
					check("matched probe", x, st, s)
					y := post(s, 1, 16, 8, 3, round)
					waitOne("after the probe", y, s)
					waitOne("tag 1", b, s)
					waitOne("tag 2", a, s)
				case 4: // Waitany and Test
					xs := []want{post(s, 2, 16, 5, 0, round), post(s, 1, 16, 6, 1, round), post(s, 1, 16, 7, 2, round), post(s, 1, 16, 8, 3, round)}
					rqs := []*mpi.Request{xs[3].rq, xs[1].rq, xs[2].rq, xs[0].rq}
					order := []int{3, 1, 2, 0}
					for range 2 {
						i, st, err := mpi.Waitany(rqs)
						must(err, "Waitany")
						check("Waitany", xs[order[i]], st, s)
						rqs[i] = nil
					}
					for i, rq := range rqs {
						if rq == nil {
							continue
						}
						for {
							st, done, err := rq.Test()
							must(err, "Test")
							if done {
								check("Test", xs[order[i]], st, s)
								break
							}
						}
					}
				case 5:
					long := post(s, 1, 4096, 3000, 0, round)
					short, err := w.Irecv(make([]byte, 4), s, 1)
					must(err, "Irecv")
					last := post(s, 1, 16, 3, 2, round)
					waitOne("long", long, s)
					if _, err := short.Wait(); mpi.ClassOf(err) != mpi.ErrTruncate {
						fail("round %d: 9 bytes into 4: %v, want a truncation", round, err)
					}
					waitOne("after the truncation", last, s)
				}
			}
		}
		must(w.Barrier(), "Barrier")
		// Everyone with everyone: windows from several sources at once.
		for round := range 50 {
			var xs []want
			var rqs []*mpi.Request
			for p := range n {
				if p == me {
					continue
				}
				for k := range 4 {
					x := post(p, 3, 32, 1+(p+k+round)%24, k, round*n+p)
					xs, rqs = append(xs, x), append(rqs, x.rq)
				}
			}
			for p := range n {
				if p == me {
					continue
				}
				for k := range 4 {
					rq, err := w.Isend(msg(1+(me+k+round)%24, round*n+me, k), p, 3)
					must(err, "Isend")
					rqs = append(rqs, rq)
				}
			}
			sts, err := mpi.Waitall(rqs)
			must(err, "Waitall")
			for i, x := range xs {
				check("all pairs", x, sts[i], (i/4)+btoi(i/4 >= me))
			}
		}
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
