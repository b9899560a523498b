//go:build ompi || mpich

package mpi

// Neighbourhood collectives of the system-MPI backend. MPI's own need a
// topology communicator; the API takes a Neighbors list on any
// communicator instead, so the exchange is point-to-point: the receives
// posted in block order, then the sends in send order, all joined into one
// request. They travel on a duplicate of the communicator, made at its
// first neighbourhood collective (every rank of it calls one, it is a
// collective), so they never match the user's own messages.

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
// past the edge of a non-periodic dimension. The upward block is sent
// first so that, where both neighbours are one rank (a periodic dimension
// of one or two), it pairs with the receive from below posted first.
func CartNeighbors(dims []int, periods []bool, rank int) *Neighbors {
	nd := len(dims)
	coords := make([]int, nd)
	for d, r := nd-1, rank; d >= 0; d-- {
		coords[d] = r % dims[d]
		r /= dims[d]
	}
	shifted := func(d, by int) int {
		r := 0
		for k := range nd {
			x := coords[k]
			if k == d {
				x += by
				if x < 0 || x >= dims[k] {
					if !periods[k] {
						return ProcNull
					}
					x = (x%dims[k] + dims[k]) % dims[k]
				}
			}
			r = r*dims[k] + x
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

// neighborTag marks the exchange's messages on the duplicate.
const neighborTag = 0

func (c *Comm) neighborOp(m collMode, what string, nb *Neighbors, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) (*Request, error) {
	if err := c.check(what); err != nil {
		return nil, err
	}
	if err := c.checkNeighbors(what, nb); err != nil {
		return nil, err
	}
	if _, _, err := checkBlocks(what, "send", scounts, sdispls, len(nb.Destinations), len(send)); err != nil {
		return nil, err
	}
	if _, _, err := checkBlocks(what, "receive", rcounts, rdispls, len(nb.Sources), len(recv)); err != nil {
		return nil, err
	}
	if m == collCheck {
		return nil, nil
	}
	if c.nbr == nil {
		d, err := c.Dup()
		if err != nil {
			return nil, err
		}
		c.nbr = d
	}
	j := NewJoin()
	fail := func(err error) (*Request, error) {
		// What was posted is matched by the peers' half of the exchange;
		// wait for it rather than leave MPI writing into recv.
		j.Release()
		j.Wait()
		return nil, err
	}
	for k, p := range nb.Sources {
		if p == ProcNull {
			continue
		}
		r, err := c.nbr.Irecv(recv[rdispls[k]:rdispls[k]+rcounts[k]], p, neighborTag)
		if err != nil {
			return fail(err)
		}
		j.Follow(r)
	}
	for i := range nb.Destinations {
		k := i
		if nb.SendOrder != nil {
			k = nb.SendOrder[i]
		}
		p := nb.Destinations[k]
		if p == ProcNull {
			continue
		}
		r, err := c.nbr.Isend(send[sdispls[k]:sdispls[k]+scounts[k]], p, neighborTag)
		if err != nil {
			return fail(err)
		}
		j.Follow(r)
	}
	j.Release()
	if m == collBlock {
		_, err := j.Wait()
		return nil, err
	}
	return j, nil
}

// NeighborAlltoallv sends block k of send (scounts[k] bytes at sdispls[k])
// to nb.Destinations[k] and receives block k of recv from nb.Sources[k].
func (c *Comm) NeighborAlltoallv(nb *Neighbors, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) error {
	_, err := c.neighborOp(collBlock, "NeighborAlltoallv", nb, send, scounts, sdispls, recv, rcounts, rdispls)
	return err
}

// IneighborAlltoallv starts a NeighborAlltoallv.
func (c *Comm) IneighborAlltoallv(nb *Neighbors, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) (*Request, error) {
	return c.neighborOp(collStart, "IneighborAlltoallv", nb, send, scounts, sdispls, recv, rcounts, rdispls)
}

// NeighborAlltoallvInit binds a persistent NeighborAlltoallv.
func (c *Comm) NeighborAlltoallvInit(nb *Neighbors, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) (*Persistent, error) {
	scounts, sdispls, rcounts, rdispls = clone(scounts), clone(sdispls), clone(rcounts), clone(rdispls)
	return bind("NeighborAlltoallvInit", func(m collMode) (*Request, error) {
		return c.neighborOp(m, "NeighborAlltoallvInit", nb, send, scounts, sdispls, recv, rcounts, rdispls)
	})
}
