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

// GraphNeighbors is the neighbourhood of rank in the graph that index and
// edges describe as MPI_Graph_create takes them (node i's neighbours are
// edges[index[i-1]:index[i]]): its neighbours in that order, for sources
// and destinations alike. A neighbour listed twice is two blocks, paired
// in order with the neighbour's own two entries for rank.
func GraphNeighbors(index, edges []int, rank int) (*Neighbors, error) {
	const op = "GraphNeighbors"
	n := len(index)
	if rank < 0 || rank >= n {
		return nil, newErr(ErrRank, op, "rank %d not a node of a graph of %d", rank, n)
	}
	for i := range n {
		lo := 0
		if i > 0 {
			lo = index[i-1]
		}
		if index[i] < lo || index[i] > len(edges) {
			return nil, newErr(ErrArg, op, "index[%d] = %d out of order or beyond the %d edges", i, index[i], len(edges))
		}
	}
	for k, e := range edges[:index[n-1]] {
		if e < 0 || e >= n {
			return nil, newErr(ErrArg, op, "edge %d names node %d of a graph of %d", k, e, n)
		}
	}
	lo := 0
	if rank > 0 {
		lo = index[rank-1]
	}
	list := append([]int(nil), edges[lo:index[rank]]...)
	return &Neighbors{Sources: list, Destinations: list}, nil
}

// DistGraphNeighbors is the neighbourhood of a distributed graph given by
// each rank's own lists (MPI_Dist_graph_create_adjacent): block k comes
// from sources[k] and goes to destinations[k]. Weights play no part in
// the exchange, so there are none here.
func DistGraphNeighbors(sources, destinations []int) *Neighbors {
	return &Neighbors{Sources: append([]int(nil), sources...), Destinations: append([]int(nil), destinations...)}
}

// DistGraphFromEdges is MPI_Dist_graph_create's neighbourhood: every rank
// of c describes any edges (edge k from src[k] to dst[k], ranks of c), and
// each rank gets its incoming and outgoing edges, ordered by the rank that
// described them and then by their place in its list, the same order on
// both ends, so repeated edges pair up. Collective over c.
func (c *Comm) DistGraphFromEdges(src, dst []int) (*Neighbors, error) {
	const op = "DistGraphFromEdges"
	if len(src) != len(dst) {
		return nil, newErr(ErrArg, op, "%d sources for %d destinations", len(src), len(dst))
	}
	n := c.Size()
	for k := range src {
		if src[k] < 0 || src[k] >= n || dst[k] < 0 || dst[k] >= n {
			return nil, newErr(ErrRank, op, "edge %d (%d -> %d) outside a communicator of %d", k, src[k], dst[k], n)
		}
	}
	// Every rank's edge count, then every rank's edges as pairs of
	// 32-bit little-endian ranks.
	mine := make([]byte, 4)
	putU32(mine, 0, len(src))
	counts := make([]byte, 4*n)
	if err := c.Allgather(mine, counts); err != nil {
		return nil, err
	}
	cs, ds := make([]int, n), make([]int, n)
	total := 0
	for r := range n {
		cs[r], ds[r] = 8*getU32(counts, r), total
		total += cs[r]
	}
	edges := make([]byte, 8*len(src))
	for k := range src {
		putU32(edges, 2*k, src[k])
		putU32(edges, 2*k+1, dst[k])
	}
	all := make([]byte, total)
	if err := c.Allgatherv(edges, all, cs, ds); err != nil {
		return nil, err
	}
	me := c.Rank()
	nb := &Neighbors{Sources: []int{}, Destinations: []int{}}
	for q := range total / 8 {
		s, d := getU32(all, 2*q), getU32(all, 2*q+1)
		if d == me {
			nb.Sources = append(nb.Sources, s)
		}
		if s == me {
			nb.Destinations = append(nb.Destinations, d)
		}
	}
	return nb, nil
}

func putU32(b []byte, i, v int) {
	b[4*i], b[4*i+1], b[4*i+2], b[4*i+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}

func getU32(b []byte, i int) int {
	return int(uint32(b[4*i]) | uint32(b[4*i+1])<<8 | uint32(b[4*i+2])<<16 | uint32(b[4*i+3])<<24)
}
