//go:build !ompi && !mpich

package mpi

// The neighbourhood collectives other than NeighborAlltoallv, each that
// one exchange (coll_neighbor.go) with its block lists written into the
// schedule's scratch: an allgather sends its one buffer to every
// destination, an alltoall splits the buffers into equal blocks, an
// alltoallw counts elements of a datatype per neighbour and places blocks
// at byte displacements. Each form's blocking and nonblocking calls are
// memoised under a kind of their own (coll_memo.go), with the
// neighbourhood's lists (and Alltoallw's counts and datatypes) in the key:
// unkeyed, every call checked and built its schedule again (at 4 ranks
// 3,300 instructions a NeighborAlltoall of 8 B, memoised 1,400).

func (c *Comm) neighborAllgathervBuild(s *schedule, what string, nb *Neighbors, send, recv []byte, rcounts, rdispls []int) error {
	if nb == nil {
		return newErr(ErrArg, what, "no neighbourhood")
	}
	sc, sd := s.ints(len(nb.Destinations)), s.ints(len(nb.Destinations))
	fillBlocks(sc, sd, len(send), 0)
	return c.neighborBuild(s, what, nb, send, sc, sd, recv, rcounts, rdispls)
}

func (c *Comm) neighborAllgatherBuild(s *schedule, what string, nb *Neighbors, send, recv []byte) error {
	if nb == nil {
		return newErr(ErrArg, what, "no neighbourhood")
	}
	m := len(send)
	if len(recv) < len(nb.Sources)*m {
		return newErr(ErrBuffer, what, "receive buffer of %d bytes for %d sources × %d", len(recv), len(nb.Sources), m)
	}
	rc, rd := s.ints(len(nb.Sources)), s.ints(len(nb.Sources))
	fillBlocks(rc, rd, m, m)
	return c.neighborAllgathervBuild(s, what, nb, send, recv, rc, rd)
}

func (c *Comm) neighborAlltoallBuild(s *schedule, what string, nb *Neighbors, send, recv []byte) error {
	m, err := neighborBlock(what, nb, send, recv)
	if err != nil {
		return err
	}
	sc, sd := s.ints(len(nb.Destinations)), s.ints(len(nb.Destinations))
	rc, rd := s.ints(len(nb.Sources)), s.ints(len(nb.Sources))
	fillBlocks(sc, sd, m, m)
	fillBlocks(rc, rd, m, m)
	return c.neighborBuild(s, what, nb, send, sc, sd, recv, rc, rd)
}

func (c *Comm) neighborAlltoallwBuild(s *schedule, what string, nb *Neighbors, send []byte, scounts, sdispls []int, stypes []Datatype, recv []byte, rcounts, rdispls []int, rtypes []Datatype) error {
	if nb == nil {
		return newErr(ErrArg, what, "no neighbourhood")
	}
	sb, rb := s.ints(len(nb.Destinations)), s.ints(len(nb.Sources))
	if err := typedBytes(what, "send", scounts, stypes, sb); err != nil {
		return err
	}
	if err := typedBytes(what, "receive", rcounts, rtypes, rb); err != nil {
		return err
	}
	return c.neighborBuild(s, what, nb, send, sb, sdispls, recv, rb, rdispls)
}

// NeighborAllgather sends send to every destination of nb and receives
// block k of recv (len(send) bytes each) from nb.Sources[k].
func (c *Comm) NeighborAllgather(nb *Neighbors, send, recv []byte) error {
	v := countsKey{a: nbrListsA(nb)}
	return c.blockingKeyed("NeighborAllgather", nbrKindKey(memoNeighborAllgather, nb, send, recv, &v), &v, func(s *schedule) error {
		return c.neighborAllgatherBuild(s, "NeighborAllgather", nb, send, recv)
	})
}

// IneighborAllgather starts a NeighborAllgather.
func (c *Comm) IneighborAllgather(nb *Neighbors, send, recv []byte) (*Request, error) {
	v := countsKey{a: nbrListsA(nb)}
	return c.nonblockingKeyed("IneighborAllgather", nbrKindKey(memoNeighborAllgather, nb, send, recv, &v), &v, func(s *schedule) error {
		return c.neighborAllgatherBuild(s, "IneighborAllgather", nb, send, recv)
	})
}

// NeighborAllgatherInit binds a persistent NeighborAllgather.
func (c *Comm) NeighborAllgatherInit(nb *Neighbors, send, recv []byte) (*Persistent, error) {
	return c.persist("NeighborAllgatherInit", func(s *schedule) error {
		return c.neighborAllgatherBuild(s, "NeighborAllgatherInit", nb, send, recv)
	})
}

// NeighborAllgatherv sends send to every destination of nb and receives
// block k of recv (rcounts[k] bytes at rdispls[k]) from nb.Sources[k].
func (c *Comm) NeighborAllgatherv(nb *Neighbors, send, recv []byte, rcounts, rdispls []int) error {
	more := nbrLists(nb)
	v := countsKey{a: [4][]int{rcounts, rdispls}, more: &more}
	return c.blockingKeyed("NeighborAllgatherv", nbrKindKey(memoNeighborAllgatherv, nb, send, recv, &v), &v, func(s *schedule) error {
		return c.neighborAllgathervBuild(s, "NeighborAllgatherv", nb, send, recv, rcounts, rdispls)
	})
}

// IneighborAllgatherv starts a NeighborAllgatherv.
func (c *Comm) IneighborAllgatherv(nb *Neighbors, send, recv []byte, rcounts, rdispls []int) (*Request, error) {
	more := nbrLists(nb)
	v := countsKey{a: [4][]int{rcounts, rdispls}, more: &more}
	return c.nonblockingKeyed("IneighborAllgatherv", nbrKindKey(memoNeighborAllgatherv, nb, send, recv, &v), &v, func(s *schedule) error {
		return c.neighborAllgathervBuild(s, "IneighborAllgatherv", nb, send, recv, rcounts, rdispls)
	})
}

// NeighborAllgathervInit binds a persistent NeighborAllgatherv.
func (c *Comm) NeighborAllgathervInit(nb *Neighbors, send, recv []byte, rcounts, rdispls []int) (*Persistent, error) {
	return c.persist("NeighborAllgathervInit", func(s *schedule) error {
		return c.neighborAllgathervBuild(s, "NeighborAllgathervInit", nb, send, recv, rcounts, rdispls)
	})
}

// NeighborAlltoall sends block k of send to nb.Destinations[k] and
// receives block k of recv from nb.Sources[k]; the blocks are
// len(send)/len(nb.Destinations) bytes.
func (c *Comm) NeighborAlltoall(nb *Neighbors, send, recv []byte) error {
	v := countsKey{a: nbrListsA(nb)}
	return c.blockingKeyed("NeighborAlltoall", nbrKindKey(memoNeighborAlltoall, nb, send, recv, &v), &v, func(s *schedule) error {
		return c.neighborAlltoallBuild(s, "NeighborAlltoall", nb, send, recv)
	})
}

// IneighborAlltoall starts a NeighborAlltoall.
func (c *Comm) IneighborAlltoall(nb *Neighbors, send, recv []byte) (*Request, error) {
	v := countsKey{a: nbrListsA(nb)}
	return c.nonblockingKeyed("IneighborAlltoall", nbrKindKey(memoNeighborAlltoall, nb, send, recv, &v), &v, func(s *schedule) error {
		return c.neighborAlltoallBuild(s, "IneighborAlltoall", nb, send, recv)
	})
}

// NeighborAlltoallInit binds a persistent NeighborAlltoall.
func (c *Comm) NeighborAlltoallInit(nb *Neighbors, send, recv []byte) (*Persistent, error) {
	return c.persist("NeighborAlltoallInit", func(s *schedule) error {
		return c.neighborAlltoallBuild(s, "NeighborAlltoallInit", nb, send, recv)
	})
}

// NeighborAlltoallw is NeighborAlltoallv with counts in elements of a
// datatype per neighbour (displacements stay in bytes).
func (c *Comm) NeighborAlltoallw(nb *Neighbors, send []byte, scounts, sdispls []int, stypes []Datatype, recv []byte, rcounts, rdispls []int, rtypes []Datatype) error {
	more := nbrLists(nb)
	more[3], more[4] = typesKey(stypes), typesKey(rtypes)
	v := countsKey{a: [4][]int{scounts, sdispls, rcounts, rdispls}, more: &more}
	return c.blockingKeyed("NeighborAlltoallw", nbrWKey(nb, send, stypes, recv, rtypes, &v), &v, func(s *schedule) error {
		return c.neighborAlltoallwBuild(s, "NeighborAlltoallw", nb, send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes)
	})
}

// IneighborAlltoallw starts a NeighborAlltoallw.
func (c *Comm) IneighborAlltoallw(nb *Neighbors, send []byte, scounts, sdispls []int, stypes []Datatype, recv []byte, rcounts, rdispls []int, rtypes []Datatype) (*Request, error) {
	more := nbrLists(nb)
	more[3], more[4] = typesKey(stypes), typesKey(rtypes)
	v := countsKey{a: [4][]int{scounts, sdispls, rcounts, rdispls}, more: &more}
	return c.nonblockingKeyed("IneighborAlltoallw", nbrWKey(nb, send, stypes, recv, rtypes, &v), &v, func(s *schedule) error {
		return c.neighborAlltoallwBuild(s, "IneighborAlltoallw", nb, send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes)
	})
}

// NeighborAlltoallwInit binds a persistent NeighborAlltoallw.
func (c *Comm) NeighborAlltoallwInit(nb *Neighbors, send []byte, scounts, sdispls []int, stypes []Datatype, recv []byte, rcounts, rdispls []int, rtypes []Datatype) (*Persistent, error) {
	return c.persist("NeighborAlltoallwInit", func(s *schedule) error {
		return c.neighborAlltoallwBuild(s, "NeighborAlltoallwInit", nb, send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes)
	})
}

// nbrWKey is a NeighborAlltoallw call's memo key: none when a datatype is
// not predefined (typesKey), as for Alltoallw (wkey).
func nbrWKey(nb *Neighbors, send []byte, stypes []Datatype, recv []byte, rtypes []Datatype, v *countsKey) collKey {
	if (v.more[3] == nil && stypes != nil) || (v.more[4] == nil && rtypes != nil) {
		return collKey{}
	}
	return nbrKindKey(memoNeighborAlltoallw, nb, send, recv, v)
}

// nbrListsA is nb's lists as countsKey.a, for the forms whose schedule
// reads no other array (NeighborAllgather, NeighborAlltoall): four arrays
// to compare on a memo hit instead of nine (≈80 instructions).
func nbrListsA(nb *Neighbors) [4][]int {
	if nb == nil {
		return [4][]int{}
	}
	return [4][]int{nb.Sources, nb.Destinations, nb.SendOrder}
}
