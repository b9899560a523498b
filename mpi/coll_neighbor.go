//go:build !ompi && !mpich

package mpi

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
	return c.blocking("NeighborAlltoallv", func(s *schedule) error {
		return c.neighborBuild(s, "NeighborAlltoallv", nb, send, scounts, sdispls, recv, rcounts, rdispls)
	})
}

// IneighborAlltoallv starts a NeighborAlltoallv.
func (c *Comm) IneighborAlltoallv(nb *Neighbors, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) (*Request, error) {
	return c.nonblocking("IneighborAlltoallv", func(s *schedule) error {
		return c.neighborBuild(s, "IneighborAlltoallv", nb, send, scounts, sdispls, recv, rcounts, rdispls)
	})
}

// NeighborAlltoallvInit binds a persistent NeighborAlltoallv.
func (c *Comm) NeighborAlltoallvInit(nb *Neighbors, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) (*Persistent, error) {
	return c.persist("NeighborAlltoallvInit", func(s *schedule) error {
		return c.neighborBuild(s, "NeighborAlltoallvInit", nb, send, scounts, sdispls, recv, rcounts, rdispls)
	})
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
