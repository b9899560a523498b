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
	if err := nb.check(what, c.size); err != nil {
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
