//go:build ompi || mpich

package mpi

// Neighbourhood collectives of the system-MPI backend. MPI's own need a
// topology communicator; the API takes a Neighbors list on any
// communicator instead, so the exchange is point-to-point: the receives
// posted in block order, then the sends in send order, all joined into one
// request. They travel on a duplicate of the communicator, made at its
// first neighbourhood collective (every rank of it calls one, it is a
// collective), so they never match the user's own messages.

// neighborTag marks the exchange's messages on the duplicate.
const neighborTag = 0

func (c *Comm) neighborOp(m collMode, what string, nb *Neighbors, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) (*Request, error) {
	if err := c.check(what); err != nil {
		return nil, err
	}
	if err := nb.check(what, c.size); err != nil {
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
	j := newJoin()
	fail := func(err error) (*Request, error) {
		// What was posted is matched by the peers' half of the exchange;
		// wait for it rather than leave MPI writing into recv.
		j.release()
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
		j.follow(r)
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
		j.follow(r)
	}
	j.release()
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
