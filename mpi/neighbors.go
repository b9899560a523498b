package mpi

// The neighbourhood description, shared by the engine and the system-MPI
// backends: a Neighbors list is all a neighbourhood collective needs, so
// any topology plugs in by producing one.

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

// check refuses a neighbourhood that names a rank outside a communicator of
// size ranks or whose send order is not a permutation of its destinations.
func (nb *Neighbors) check(what string, size int) error {
	if nb == nil {
		return newErr(ErrArg, what, "no neighbourhood")
	}
	for _, list := range [][]int{nb.Sources, nb.Destinations} {
		for _, p := range list {
			if p != ProcNull && (p < 0 || p >= size) {
				return newErr(ErrRank, what, "neighbour %d not in communicator of size %d", p, size)
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
