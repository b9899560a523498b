package main

import (
	"encoding/binary"

	"github.com/hympi/hympi/mpi"
)

func init() {
	// Two groups (even and odd world ranks) joined by IntercommCreate:
	// point-to-point names remote ranks, Dup keeps the groups, Merge orders
	// them by the high flag, collectives are refused.
	register("intercomm", func(w *mpi.Comm) {
		r, n := w.Rank(), w.Size()
		if n < 2 {
			return
		}
		color := r % 2
		local, err := w.Split(color, r)
		must(err, "Split")
		ic, err := local.IntercommCreate(0, w, 1-color, 7)
		must(err, "IntercommCreate")
		if !ic.IsInter() || ic.Size() != local.Size() || ic.Rank() != local.Rank() {
			fail("intercomm: inter %v size %d rank %d", ic.IsInter(), ic.Size(), ic.Rank())
		}
		rsize := n/2 + n%2
		if color == 0 {
			rsize = n / 2
		}
		if ic.RemoteSize() != rsize || ic.RemoteGroup().Size() != rsize {
			fail("remote size %d, want %d", ic.RemoteSize(), rsize)
		}
		exchange := func(c *mpi.Comm, what string) {
			// Every rank sends its world rank to every remote rank.
			var reqs []*mpi.Request
			for p := range c.RemoteSize() {
				rq, err := c.Isend([]byte{byte(r)}, p, 3)
				must(err, "%s: Isend to remote %d", what, p)
				reqs = append(reqs, rq)
			}
			for range c.RemoteSize() {
				b := make([]byte, 1)
				st, err := c.Recv(b, mpi.AnySource, 3)
				must(err, "%s: Recv", what)
				// Remote rank k of the other parity is world rank 2k+(1-color).
				if int(b[0]) != 2*st.Source+(1-color) {
					fail("%s: status source %d carried world rank %d", what, st.Source, b[0])
				}
			}
			_, err := mpi.Waitall(reqs)
			must(err, "%s: Waitall", what)
		}
		exchange(ic, "intercomm")
		// Collectives run across the groups (intercoll.go covers them).
		must(ic.Barrier(), "Barrier on an intercommunicator")
		if err := ic.Send(nil, rsize, 0); mpi.ClassOf(err) != mpi.ErrRank {
			fail("Send to remote rank %d: %v", rsize, err)
		}
		d, err := ic.Dup()
		must(err, "Dup")
		exchange(d, "dup")
		must(d.Free(), "Free dup")
		// Merge: the odd group asks to go first.
		m, err := ic.Merge(color == 0)
		must(err, "Merge")
		want := r/2 + (n / 2)
		if color == 1 {
			want = r / 2
		}
		if m.Size() != n || m.Rank() != want {
			fail("Merge: rank %d of %d, want %d of %d", m.Rank(), m.Size(), want, n)
		}
		sum := make([]byte, 8)
		must(m.Allreduce(words(int64(r)), sum, mpi.Int64, mpi.Sum), "Allreduce on the merged communicator")
		if word(sum, 0) != int64(n*(n-1)/2) {
			fail("Allreduce on the merged communicator: %d", word(sum, 0))
		}
		must(m.Free(), "Free merged")
		// Same high on both sides: a fixed order, the same on every rank.
		m, err = ic.Merge(false)
		must(err, "Merge(false)")
		if m.Size() != n {
			fail("Merge(false): size %d", m.Size())
		}
		must(m.Free(), "Free merged")
		// Split by local rank parity, keys reversed: world rank w is
		// local rank w/2 of its group.
		sc := (r / 2) % 2
		s, err := ic.Split(sc, -r)
		must(err, "Split")
		peersOf := func(parity int) (k int) {
			for x := range n {
				if x%2 == parity && (x/2)%2 == sc {
					k++
				}
			}
			return k
		}
		if peersOf(1-color) == 0 {
			if s != nil {
				fail("Split: a color without remote members gave a communicator")
			}
		} else {
			if s == nil || !s.IsInter() || s.Size() != peersOf(color) || s.RemoteSize() != peersOf(1-color) {
				fail("Split: sizes %d/%d, want %d/%d", s.Size(), s.RemoteSize(), peersOf(color), peersOf(1-color))
			}
			higher := 0 // same-color local members with a larger world rank come first
			for x := r + 2; x < n; x += 2 {
				if (x/2)%2 == sc {
					higher++
				}
			}
			if s.Rank() != higher {
				fail("Split: rank %d, want %d", s.Rank(), higher)
			}
			rq, err := s.Isend([]byte{byte(r)}, 0, 5)
			must(err, "Isend on the split")
			if s.Rank() == 0 {
				for range s.RemoteSize() {
					b := make([]byte, 1)
					_, err := s.Recv(b, mpi.AnySource, 5)
					must(err, "Recv on the split")
					if int(b[0])%2 == color || (int(b[0])/2)%2 != sc {
						fail("Split: message from world rank %d", b[0])
					}
				}
			}
			_, err = rq.Wait()
			must(err, "Wait")
			must(s.Free(), "Free split")
		}
		must(ic.Free(), "Free intercomm")
		// From groups, with no communicator to start from.
		wg := w.Group()
		var mine, theirs []int
		for i := range n {
			if i%2 == color {
				mine = append(mine, i)
			} else {
				theirs = append(theirs, i)
			}
		}
		lg, err := wg.Incl(mine)
		must(err, "Incl")
		rg, err := wg.Incl(theirs)
		must(err, "Incl")
		ic, err = mpi.IntercommFromGroups(lg, 0, rg, 0, 12345)
		if hasFromGroups {
			must(err, "IntercommFromGroups")
			exchange(ic, "from groups")
			must(ic.Free(), "Free")
		} else if mpi.ClassOf(err) != mpi.ErrOther || ic != nil {
			fail("IntercommFromGroups on an MPI without it: %v, want ErrOther", err)
		}
		must(local.Free(), "Free local")
	})
}

func words(v ...int64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
	}
	return b
}

func word(b []byte, i int) int64 { return int64(binary.LittleEndian.Uint64(b[8*i:])) }
