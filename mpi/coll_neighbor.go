//go:build !ompi && !mpich

package mpi

// Neighbourhood collectives: each rank exchanges blocks with the ranks its
// topology names instead of with every rank. The topology itself is the
// caller's (the C library keeps Cartesian and graph topologies); the
// engine sees only a Neighbors list, so any topology plugs in by producing
// one. Allgather, allgatherv and alltoall are all this one exchange with
// particular counts and displacements (an allgather sends the same bytes to
// every destination).

// Neighbors is one rank's neighbourhood. Block k of the receive buffer
// comes from Sources[k] and block k of the send buffer goes to
// Destinations[k]; ProcNull entries exchange nothing. A peer that appears
// more than once pairs its messages in order: the j-th message a rank
// sends to a peer lands in the peer's j-th receive block from it. Sends
// go out in block order unless SendOrder (a permutation of the
// destination indexes) says otherwise, which lets a topology pair
// duplicate edges its own way (CartNeighbors does).
type Neighbors struct {
	Sources, Destinations []int
	SendOrder             []int
}

// CartNeighbors is the neighbourhood of rank in a row-major Cartesian grid
// (the last dimension varies fastest): for each dimension the rank one
// below, then the one above, for sources and destinations alike, ProcNull
// past the edge of a non-periodic dimension. Block 2d+1, sent up, arrives
// at the upper neighbour as its block 2d (from below), so in a periodic
// dimension of one or two ranks, where both neighbours are one rank, the
// upward block must be sent first to pair with the receive posted first.
func CartNeighbors(dims []int, periods []bool, rank int) *Neighbors {
	nd := len(dims)
	coords := make([]int, nd)
	for d, r := nd-1, rank; d >= 0; d-- {
		coords[d] = r % dims[d]
		r /= dims[d]
	}
	shifted := func(d, by int) int {
		r := 0
		for k := 0; k < nd; k++ {
			c := coords[k]
			if k == d {
				c += by
				if c < 0 || c >= dims[k] {
					if !periods[k] {
						return ProcNull
					}
					c = (c%dims[k] + dims[k]) % dims[k]
				}
			}
			r = r*dims[k] + c
		}
		return r
	}
	nb := &Neighbors{}
	for d := range nd {
		lo, hi := shifted(d, -1), shifted(d, 1)
		nb.Sources = append(nb.Sources, lo, hi)
		nb.Destinations = append(nb.Destinations, lo, hi)
		nb.SendOrder = append(nb.SendOrder, 2*d+1, 2*d)
	}
	return nb
}

func (c *Comm) checkNeighbors(what string, nb *Neighbors) error {
	if nb == nil {
		return newErr(ErrArg, what, "no neighbourhood")
	}
	for _, list := range [][]int{nb.Sources, nb.Destinations} {
		for _, p := range list {
			if p != ProcNull && (p < 0 || p >= c.size) {
				return newErr(ErrRank, what, "neighbour %d not in communicator of size %d", p, c.size)
			}
		}
	}
	if nb.SendOrder != nil {
		seen := make([]bool, len(nb.Destinations))
		if len(nb.SendOrder) != len(seen) {
			return newErr(ErrArg, what, "send order of %d entries for %d destinations", len(nb.SendOrder), len(seen))
		}
		for _, k := range nb.SendOrder {
			if k < 0 || k >= len(seen) || seen[k] {
				return newErr(ErrArg, what, "send order is not a permutation of the destinations")
			}
			seen[k] = true
		}
	}
	return nil
}

// NeighborAlltoallv sends block k of send (scounts[k] bytes at sdispls[k])
// to nb.Destinations[k] and receives block k of recv from nb.Sources[k].
func (c *Comm) NeighborAlltoallv(nb *Neighbors, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) error {
	return c.run("NeighborAlltoallv", func(w string) (*schedule, error) {
		return c.neighborSched(w, nb, send, scounts, sdispls, recv, rcounts, rdispls)
	})
}

// IneighborAlltoallv starts a NeighborAlltoallv.
func (c *Comm) IneighborAlltoallv(nb *Neighbors, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) (*Request, error) {
	return c.startSched("IneighborAlltoallv", func(w string) (*schedule, error) {
		return c.neighborSched(w, nb, send, scounts, sdispls, recv, rcounts, rdispls)
	})
}

// NeighborAlltoallvInit binds a persistent NeighborAlltoallv.
func (c *Comm) NeighborAlltoallvInit(nb *Neighbors, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) (*Persistent, error) {
	scounts, sdispls, rcounts, rdispls = clone(scounts), clone(sdispls), clone(rcounts), clone(rdispls)
	return c.persistent("NeighborAlltoallvInit", func(w string) (*schedule, error) {
		return c.neighborSched(w, nb, send, scounts, sdispls, recv, rcounts, rdispls)
	})
}

func (c *Comm) neighborSched(what string, nb *Neighbors, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) (*schedule, error) {
	if err := c.check(what); err != nil {
		return nil, err
	}
	if err := c.checkNeighbors(what, nb); err != nil {
		return nil, err
	}
	if err := checkBlocks(what, "send", scounts, sdispls, len(nb.Destinations), len(send)); err != nil {
		return nil, err
	}
	if err := checkBlocks(what, "receive", rcounts, rdispls, len(nb.Sources), len(recv)); err != nil {
		return nil, err
	}
	var rd collRound
	for k, p := range nb.Sources {
		if p != ProcNull {
			rd.recvs = append(rd.recvs, collXfer{peer: p, buf: block(recv, rcounts, rdispls, k)})
		}
	}
	for i := range nb.Destinations {
		k := i
		if nb.SendOrder != nil {
			k = nb.SendOrder[i]
		}
		if p := nb.Destinations[k]; p != ProcNull {
			rd.sends = append(rd.sends, collXfer{peer: p, buf: block(send, scounts, sdispls, k)})
		}
	}
	s := &schedule{}
	s.round(rd)
	return s, nil
}
