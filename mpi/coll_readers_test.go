//go:build !ompi && !mpich

package mpi

import (
	"bytes"
	"fmt"
	"testing"
)

// TestBcastShape checks, as data, which broadcast a size and job get:
// flat (one round, the root sending to every rank) or the tree, and
// whether the flat one's messages are marked for their receivers to read
// (coll_readers.go); then replays every rank's schedule in the model and
// checks the data arrived. The table pins the measured choices; the sweep
// checks every job size against the rule.
func TestBcastShape(t *testing.T) {
	cases := []struct {
		n, size          int
		oversub          bool
		wantFlat, wantRd bool
	}{
		{4, 64 << 10, false, true, false},
		{4, 1 << 20, false, true, false},
		{5, 1 << 20, false, false, false},
		{8, 4 << 20, false, false, false},
		{4, 60 << 10, true, false, false},
		{4, 64 << 10, true, true, true},
		{8, 64 << 10, true, true, true},
		{8, 1 << 20, true, true, true},
		{8, 4 << 20, true, true, true},
		{9, 4 << 20, true, false, false},
		{8, 60 << 10, true, false, false},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("oversub=%v/n=%d/size=%d", tc.oversub, tc.n, tc.size), func(t *testing.T) {
			for _, root := range []int{0, tc.n - 1} {
				checkBcastShape(t, tc.n, root, tc.size, tc.oversub, tc.wantFlat, tc.wantRd)
			}
		})
	}
	sizes := []int{8, bcastFlatMin - 8, bcastFlatMin, rootReadMin - 8, rootReadMin}
	for _, oversub := range []bool{false, true} {
		for n := 1; n <= 17; n++ {
			for _, size := range sizes {
				t.Run(fmt.Sprintf("sweep/oversub=%v/n=%d/size=%d", oversub, n, size), func(t *testing.T) {
					large := size >= bcastFlatMin
					wantFlat := large && (n <= bcastFlatRanks || oversub && n <= bcastFlatOversubRanks)
					wantRead := wantFlat && oversub && size >= rootReadMin
					for root := range n {
						checkBcastShape(t, n, root, size, oversub, wantFlat, wantRead)
					}
				})
			}
		}
	}
}

func checkBcastShape(t *testing.T, n, root, size int, oversub, wantFlat, wantRead bool) {
	t.Helper()
	s := new(schedule)
	s.reset()
	if err := modelComm(root, n, oversub).bcastBuild(s, "Bcast", make([]byte, size), root); err != nil {
		t.Fatal(err)
	}
	sends, reads := 0, 0
	for _, x := range s.xfers {
		if x.send {
			sends++
		}
		if x.read {
			reads++
			if !x.send {
				t.Fatalf("root %d: a receive marked read", root)
			}
		}
	}
	if n > 1 && s.small {
		// The small flat broadcast of an oversubscribed job: not this
		// test's.
		return
	}
	// The binary tree's root sends to two ranks in one round too: the
	// shapes differ from 4 ranks on.
	flat := len(s.rounds) == 1 && sends == n-1
	if n > 3 && flat != wantFlat {
		t.Fatalf("root %d: flat %v (rounds %d, sends %d), want %v", root, flat, len(s.rounds), sends, wantFlat)
	}
	wantReads := 0
	if wantRead {
		wantReads = n - 1
	}
	if reads != wantReads {
		t.Fatalf("root %d: %d sends read, want %d", root, reads, wantReads)
	}
	if root != 0 && root != n/2 {
		return // the data: two roots are enough
	}
	want := input(root+1, size/8, 8)
	bufs := make([][]byte, n)
	for r := range bufs {
		bufs[r] = make([]byte, size)
	}
	copy(bufs[root], want)
	if err := replay(n, oversub, func(c *Comm, s *schedule) error {
		return c.bcastBuild(s, "Bcast", bufs[c.rank], root)
	}); err != nil {
		t.Fatalf("root %d: %v", root, err)
	}
	for r := range bufs {
		if !bytes.Equal(bufs[r], want) {
			t.Fatalf("root %d: rank %d got other bytes", root, r)
		}
	}
}

// TestMarkReads: an oversubscribed job's one-round collectives mark their
// large sends for the receivers to read, and nothing else does; the
// oversubscribed Allgather of large blocks is the one round, not the ring.
func TestMarkReads(t *testing.T) {
	const n = 4
	nb := CartNeighbors([]int{n}, []bool{true}, 1)
	builds := []struct {
		name    string
		readMin int
		build   func(c *Comm, s *schedule, m int) error
	}{
		{"Gather", oversubReadMin, func(c *Comm, s *schedule, m int) error {
			return c.gatherBuild(s, "Gather", make([]byte, m), make([]byte, n*m), 0)
		}},
		{"Scatter", rootReadMin, func(c *Comm, s *schedule, m int) error {
			return c.scatterBuild(s, "Scatter", make([]byte, n*m), make([]byte, m), 1)
		}},
		{"Allgather", oversubReadMin, func(c *Comm, s *schedule, m int) error {
			return c.allgatherBuild(s, "Allgather", make([]byte, m), make([]byte, n*m))
		}},
		{"Alltoall", oversubReadMin, func(c *Comm, s *schedule, m int) error {
			return c.alltoallBuild(s, "Alltoall", make([]byte, n*m), make([]byte, n*m))
		}},
		{"Alltoallv", oversubReadMin, func(c *Comm, s *schedule, m int) error {
			k, d := s.uniform(n, m)
			return c.alltoallvBuild(s, "Alltoallv", make([]byte, n*m), k, d, make([]byte, n*m), k, d)
		}},
		{"NeighborAlltoall", oversubReadMin, func(c *Comm, s *schedule, m int) error {
			return c.neighborAlltoallBuild(s, "NeighborAlltoall", nb, make([]byte, 2*m), make([]byte, 2*m))
		}},
		{"NeighborAllgather", oversubReadMin, func(c *Comm, s *schedule, m int) error {
			return c.neighborAllgatherBuild(s, "NeighborAllgather", nb, make([]byte, m), make([]byte, 2*m))
		}},
	}
	for _, b := range builds {
		for _, oversub := range []bool{false, true} {
			for _, m := range []int{rootReadMin - 8, rootReadMin, oversubReadMin - 8, oversubReadMin, 1 << 20} {
				t.Run(fmt.Sprintf("%s/oversub=%v/m=%d", b.name, oversub, m), func(t *testing.T) {
					total := 0
					for rank := range n {
						s := new(schedule)
						s.reset()
						if err := b.build(modelComm(rank, n, oversub), s, m); err != nil {
							t.Fatal(err)
						}
						sends, reads := 0, 0
						for _, x := range s.xfers {
							if x.send && len(x.buf) > 0 {
								sends++
							}
							if x.read {
								reads++
							}
						}
						want := 0
						if oversub && m >= b.readMin {
							want = sends
						}
						total += sends
						if reads != want {
							t.Fatalf("rank %d: %d of %d sends read, want %d", rank, reads, sends, want)
						}
						if b.name == "Allgather" && oversub {
							if msgRounds := countMsgRounds(s); msgRounds != 1 {
								t.Fatalf("rank %d: %d rounds with messages, want the one round", rank, msgRounds)
							}
						}
					}
					if total == 0 {
						t.Fatal("no rank sends")
					}
				})
			}
		}
	}
}

func countMsgRounds(s *schedule) int {
	k := 0
	for _, rd := range s.rounds {
		if rd.x1 > rd.x0 {
			k++
		}
	}
	return k
}
