//go:build !ompi && !mpich

package mpi

import "github.com/hympi/hympi/shm"

// Neighbourhood collectives: each rank exchanges blocks with the ranks its
// topology names instead of with every rank. The topology itself is the
// caller's (the C library keeps Cartesian and graph topologies); the
// engine sees only a Neighbors list, so any topology plugs in by producing
// one. Allgather, allgatherv and alltoall are all this one exchange with
// particular counts and displacements (an allgather sends the same bytes to
// every destination).

// NeighborAlltoallv sends block k of send (scounts[k] bytes at sdispls[k])
// to nb.Destinations[k] and receives block k of recv from nb.Sources[k].
func (c *Comm) NeighborAlltoallv(nb *Neighbors, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) error {
	more := nbrLists(nb)
	v := countsKey{a: [4][]int{scounts, sdispls, rcounts, rdispls}, more: &more}
	return c.blockingKeyed("NeighborAlltoallv", nbrKey(nb, send, recv, &v), &v, func(s *schedule) error {
		return c.neighborBuild(s, "NeighborAlltoallv", nb, send, scounts, sdispls, recv, rcounts, rdispls)
	})
}

// IneighborAlltoallv starts a NeighborAlltoallv.
func (c *Comm) IneighborAlltoallv(nb *Neighbors, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) (*Request, error) {
	more := nbrLists(nb)
	v := countsKey{a: [4][]int{scounts, sdispls, rcounts, rdispls}, more: &more}
	return c.nonblockingKeyed("IneighborAlltoallv", nbrKey(nb, send, recv, &v), &v, func(s *schedule) error {
		return c.neighborBuild(s, "IneighborAlltoallv", nb, send, scounts, sdispls, recv, rcounts, rdispls)
	})
}

// NeighborAlltoallvInit binds a persistent NeighborAlltoallv.
func (c *Comm) NeighborAlltoallvInit(nb *Neighbors, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) (*Persistent, error) {
	return c.persist("NeighborAlltoallvInit", func(s *schedule) error {
		return c.neighborBuild(s, "NeighborAlltoallvInit", nb, send, scounts, sdispls, recv, rcounts, rdispls)
	})
}

// nbrKey is a neighbourhood exchange's memo key, its arrays v (the
// counts and displacements, and more: the neighbourhood's lists, which
// are the caller's and may change between calls as counts may). Built
// in the caller's frame, so that the key allocates nothing.
func nbrKey(nb *Neighbors, send, recv []byte, v *countsKey) collKey {
	return nbrKindKey(memoNeighbor, nb, send, recv, v)
}

// nbrKindKey is nbrKey for the neighbourhood form kind.
func nbrKindKey(kind collKind, nb *Neighbors, send, recv []byte, v *countsKey) collKey {
	if nb == nil {
		return collKey{}
	}
	return vkey(keyOf(kind, send, recv, 0, 0, 0), v)
}

// nbrLists is nb's lists for countsKey.more.
func nbrLists(nb *Neighbors) [moreKeys][]int {
	if nb == nil {
		return [moreKeys][]int{}
	}
	return [moreKeys][]int{nb.Sources, nb.Destinations, nb.SendOrder}
}

func (c *Comm) neighborBuild(s *schedule, what string, nb *Neighbors, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) error {
	if err := nb.check(what, c.size); err != nil {
		return err
	}
	if err := checkBlocks(what, "send", scounts, sdispls, len(nb.Destinations), len(send)); err != nil {
		return err
	}
	if err := checkBlocks(what, "receive", rcounts, rdispls, len(nb.Sources), len(recv)); err != nil {
		return err
	}
	s.small = neighborSmall(nb.Destinations, scounts)
	s.next()
	for k, p := range nb.Sources {
		if p != ProcNull {
			s.recv(p, block(recv, rcounts, rdispls, k))
		}
	}
	for i := range nb.Destinations {
		k := i
		if nb.SendOrder != nil {
			k = nb.SendOrder[i]
		}
		if p := nb.Destinations[k]; p != ProcNull {
			s.send(p, block(send, scounts, sdispls, k))
		}
	}
	s.markReads(c.e.oversub, oversubReadMin)
	return nil
}

// neighborSmall reports whether a neighbourhood exchange may put its small
// messages on the collective ring (and so take the direct run). What
// forbids it is the ring rule (onePerPair): two messages of one collective
// to the same peer must take one ring, or the second could overtake the
// first. That cannot happen when every block this rank sends fits a slot
// (all go on the ring) or no destination repeats (one message a pair, each
// on the ring its own size picks). The choice is this rank's alone: it
// orders only its own sends, and a receiver takes a message from either
// ring. Before this every neighbourhood message took the descriptor ring
// and the general run loop, a neighbour exchange of 8 B on a periodic ring
// costing 1.3-2× Open MPI's time at 4 and 8 ranks on 2 CPUs.
//
// "Fits" is CollMsgMax, the largest message the ring carries (spanning
// slots), as the run loop's ring choice has it (issue): tested against one
// slot's payload, a 2-rank periodic ring's exchange of 1 KiB (left and
// right the same peer) took the descriptor ring and the run loop, 5,400
// instructions a call against 1,700 on the ring.
func neighborSmall(dests []int, counts []int) bool {
	fits := true
	for _, k := range counts {
		if k > shm.CollMsgMax {
			fits = false
			break
		}
	}
	if fits {
		return true
	}
	if len(dests) > neighborRepeatScan {
		return false // too many to compare pairwise; the descriptor ring is always right
	}
	for i, p := range dests {
		if p == ProcNull {
			continue
		}
		for _, q := range dests[:i] {
			if p == q {
				return false
			}
		}
	}
	return true
}

// neighborRepeatScan bounds the destinations neighborSmall compares
// pairwise (a quadratic scan; degrees above it are rare and large
// neighbourhoods are not latency-bound by one message).
const neighborRepeatScan = 32
