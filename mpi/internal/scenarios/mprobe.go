package main

import (
	"github.com/hympi/hympi/mpi"
)

func init() {
	// Matched probe around a ring, every message size: the message Mprobe
	// took cannot be received by a later Recv of the same envelope, and
	// arrives whole through Message.Recv or Message.Irecv.
	register("mprobe", func(c *mpi.Comm) {
		r, n := c.Rank(), c.Size()
		right, left := (r+1)%n, (r+n-1)%n
		for k, sz := range sizes {
			first, second := make([]byte, sz), make([]byte, sz+1)
			pattern(first, 2*k+left)
			pattern(second, 2*k+1+left)
			out1, out2 := make([]byte, sz), make([]byte, sz+1)
			pattern(out1, 2*k+r)
			pattern(out2, 2*k+1+r)
			s1, err := c.Isend(out1, right, 9)
			must(err, "Isend")
			s2, err := c.Isend(out2, right, 9)
			must(err, "Isend")
			var m *mpi.Message
			var st mpi.Status
			if k%2 == 0 {
				m, st, err = c.Mprobe(left, 9)
				must(err, "Mprobe")
			} else {
				ok := false
				for !ok {
					m, st, ok, err = c.Improbe(mpi.AnySource, 9)
					must(err, "Improbe")
				}
			}
			if st.Source != left || st.Tag != 9 || st.Count != sz {
				fail("probe of the %d-byte message: status %+v", sz, st)
			}
			got2 := make([]byte, sz+1)
			st, err = c.Recv(got2, left, 9)
			must(err, "Recv after Mprobe")
			if st.Count != sz+1 {
				fail("Recv after Mprobe took the probed message: %+v", st)
			}
			checkPattern(got2, 2*k+1+left, "second message")
			got1 := make([]byte, sz)
			if k%3 == 0 {
				rq, err := m.Irecv(got1)
				must(err, "Message.Irecv")
				st, err = rq.Wait()
			} else {
				st, err = m.Recv(got1)
			}
			must(err, "Message.Recv")
			if st.Source != left || st.Count != sz {
				fail("Message.Recv status %+v", st)
			}
			checkPattern(got1, 2*k+left, "probed message")
			if _, err := m.Recv(got1); mpi.ClassOf(err) != mpi.ErrRequest {
				fail("a message received twice: %v", err)
			}
			_, err = mpi.Waitall([]*mpi.Request{s1, s2})
			must(err, "Waitall")
		}
		// ProcNull's message is empty and received at once.
		m, st, err := c.Mprobe(mpi.ProcNull, 0)
		must(err, "Mprobe(ProcNull)")
		if !m.NoProc() || st.Source != mpi.ProcNull {
			fail("Mprobe(ProcNull): %+v", st)
		}
		st, err = m.Recv(nil)
		must(err, "Recv of the ProcNull message")
		if st.Source != mpi.ProcNull || st.Count != 0 {
			fail("Recv of the ProcNull message: %+v", st)
		}
		// Isendrecv around the ring.
		for _, sz := range sizes {
			out, in := make([]byte, sz), make([]byte, sz)
			pattern(out, sz+r)
			rq, err := c.Isendrecv(out, right, 4, in, left, 4)
			must(err, "Isendrecv")
			st, err := rq.Wait()
			must(err, "Isendrecv wait")
			if st.Source != left || st.Count != sz || st.Tag != 4 {
				fail("Isendrecv status %+v", st)
			}
			checkPattern(in, sz+left, "Isendrecv")
		}
		if _, err := c.Isendrecv(nil, n, 0, nil, left, 0); mpi.ClassOf(err) != mpi.ErrRank {
			fail("Isendrecv to rank %d: %v", n, err)
		}
	})
}
