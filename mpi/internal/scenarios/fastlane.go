package main

import (
	"bytes"

	"github.com/hympi/hympi/mpi"
)

func init() {
	// Blocking receives the engine's fast lane serves (a small message at
	// the head of its channel, nothing posted, nothing unexpected)
	// interleaved with ones it must leave to the matching engine: a posted
	// Irecv, tags out of order, another communicator's message at the
	// head, ANY_SOURCE, Ssend, truncation, a message too long to be
	// inline. Every message carries its round and role, so a wrong order
	// or match fails; then every rank exchanges with every other at once.
	register("fastlane", func(w *mpi.Comm) {
		me, n := w.Rank(), w.Size()
		dup, err := w.Dup()
		must(err, "Dup")
		msg := func(size, round, part int) []byte {
			b := make([]byte, size)
			for i := range b {
				b[i] = byte(round*131 + part*7 + i)
			}
			return b
		}
		recv := func(c *mpi.Comm, buf []byte, src, tag int, want []byte, what string) {
			st, err := c.Recv(buf, src, tag)
			must(err, "%s: Recv", what)
			if st.Count != len(want) || !bytes.Equal(buf[:st.Count], want) {
				fail("%s: got %d bytes %x, want %x", what, st.Count, buf[:min(st.Count, 16)], want[:min(len(want), 16)])
			}
		}
		buf := make([]byte, 4096)
		if partner := me ^ 1; partner < n {
			lo := min(me, partner)
			for i := range 2000 {
				s, r := lo, lo+1
				if (i/6)%2 == 1 {
					s, r = r, s
				}
				size := (i * 37) % 1025
				a, b := msg(size, i, 1), msg(5, i, 2)
				switch i % 6 {
				case 0:
					if me == s {
						must(w.Send(a, r, 1), "Send")
					} else {
						recv(w, buf, s, 1, a, "plain")
					}
				case 1: // a posted Irecv
					if me == s {
						must(w.Send(a, r, 2), "Send")
						must(w.Send(b, r, 3), "Send")
					} else {
						q, err := w.Irecv(make([]byte, 5), s, 3)
						must(err, "Irecv")
						recv(w, buf, s, mpi.AnyTag, a, "behind a posted Irecv")
						_, err = q.Wait()
						must(err, "Wait")
					}
				case 2: // tags out of order
					if me == s {
						must(w.Send(a, r, 5), "Send")
						must(w.Send(b, r, 6), "Send")
						must(w.Send(b, r, 5), "Send")
					} else {
						recv(w, buf, s, 6, b, "tag 6 first")
						recv(w, buf, s, 5, a, "first tag 5")
						recv(w, buf, s, 5, b, "second tag 5")
					}
				case 3: // ANY_SOURCE, and a message longer than a slot
					long := msg(3000, i, 3)
					if me == s {
						must(w.Send(long, r, 7), "Send")
						must(w.Send(b, r, 7), "Send")
					} else {
						recv(w, buf, mpi.AnySource, 7, long, "ANY_SOURCE")
						recv(w, buf, s, 7, b, "after the long one")
					}
				case 4: // Ssend, then truncation
					if me == s {
						must(w.Ssend(a, r, 9), "Ssend")
						must(w.Send(msg(16, i, 4), r, 10), "Send")
					} else {
						recv(w, buf, s, 9, a, "Ssend")
						_, err := w.Recv(buf[:8], s, 10)
						if mpi.ClassOf(err) != mpi.ErrTruncate {
							fail("truncation: %v", err)
						}
					}
				case 5: // another communicator's message at the head
					if me == s {
						must(w.Send(a, r, 11), "Send")
						must(dup.Send(b, r, 11), "Send")
					} else {
						recv(dup, buf, s, 11, b, "dup first")
						recv(w, buf, s, 11, a, "world after")
					}
				}
			}
		}
		must(w.Barrier(), "Barrier")
		for k := range 500 {
			size, tag := (k*53)%1100, k%3
			for d := 1; d < n; d++ {
				must(w.Send(msg(size, k, me), (me+d)%n, tag), "stress Send")
			}
			for d := 1; d < n; d++ {
				src := (me - d + n) % n
				if k%2 == 1 {
					src = mpi.AnySource
				}
				st, err := w.Recv(buf, src, tag)
				must(err, "stress Recv")
				if want := msg(size, k, st.Source); st.Count != size || !bytes.Equal(buf[:size], want) {
					fail("stress round %d: from %d got %d bytes", k, st.Source, st.Count)
				}
			}
		}
		must(dup.Free(), "Free")
	})
}
