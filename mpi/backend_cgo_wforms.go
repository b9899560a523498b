//go:build ompi || mpich

package mpi

// Alltoallw and the neighbourhood collectives other than
// NeighborAlltoallv on the system-MPI backends: the same translation to
// byte-counted v-variants as the engine's (coll_wforms.go), into fresh
// lists, handed to this backend's Alltoallv and NeighborAlltoallv.

// wLists translates an Alltoallw's counts to bytes; in place the receive
// side describes both buffers.
func wLists(what string, n int, send []byte, scounts, sdispls []int, stypes []Datatype, recv []byte, rcounts []int, rdispls []int, rtypes []Datatype) (sb, sd, rb []int, err error) {
	rb = make([]int, n)
	if err := typedBytes(what, "receive", rcounts, rtypes, rb); err != nil {
		return nil, nil, nil, err
	}
	if sameBuf(send, recv) {
		return rb, rdispls, rb, nil
	}
	sb = make([]int, n)
	if err := typedBytes(what, "send", scounts, stypes, sb); err != nil {
		return nil, nil, nil, err
	}
	return sb, sdispls, rb, nil
}

func (c *Comm) peers() int {
	if c.IsInter() {
		return c.RemoteSize()
	}
	return c.Size()
}

// Alltoallw sends scounts[j] elements of stypes[j] at byte sdispls[j] of
// send to rank j and receives rcounts[i] elements of rtypes[i] at byte
// rdispls[i] of recv from rank i. send and recv may be the same slice (in
// place: the receive counts, displacements and datatypes describe both).
func (c *Comm) Alltoallw(send []byte, scounts, sdispls []int, stypes []Datatype, recv []byte, rcounts, rdispls []int, rtypes []Datatype) error {
	sb, sd, rb, err := wLists("Alltoallw", c.peers(), send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes)
	if err != nil {
		return err
	}
	return c.Alltoallv(send, sb, sd, recv, rb, rdispls)
}

// Ialltoallw starts an Alltoallw.
func (c *Comm) Ialltoallw(send []byte, scounts, sdispls []int, stypes []Datatype, recv []byte, rcounts, rdispls []int, rtypes []Datatype) (*Request, error) {
	sb, sd, rb, err := wLists("Ialltoallw", c.peers(), send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes)
	if err != nil {
		return nil, err
	}
	return c.Ialltoallv(send, sb, sd, recv, rb, rdispls)
}

// AlltoallwInit binds a persistent Alltoallw.
func (c *Comm) AlltoallwInit(send []byte, scounts, sdispls []int, stypes []Datatype, recv []byte, rcounts, rdispls []int, rtypes []Datatype) (*Persistent, error) {
	sb, sd, rb, err := wLists("AlltoallwInit", c.peers(), send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes)
	if err != nil {
		return nil, err
	}
	return c.AlltoallvInit(send, sb, sd, recv, rb, rdispls)
}

// allgatherLists is the byte lists of a NeighborAllgather(v): the one send
// buffer to every destination; rc nil asks for uniform receive blocks.
func allgatherLists(what string, nb *Neighbors, send, recv []byte, rc, rd []int) (sc, sd, rcOut, rdOut []int, err error) {
	if nb == nil {
		return nil, nil, nil, nil, newErr(ErrArg, what, "no neighbourhood")
	}
	sc, sd = make([]int, len(nb.Destinations)), make([]int, len(nb.Destinations))
	fillBlocks(sc, sd, len(send), 0)
	if rc == nil {
		m := len(send)
		if len(recv) < len(nb.Sources)*m {
			return nil, nil, nil, nil, newErr(ErrBuffer, what, "receive buffer of %d bytes for %d sources × %d", len(recv), len(nb.Sources), m)
		}
		rc, rd = make([]int, len(nb.Sources)), make([]int, len(nb.Sources))
		fillBlocks(rc, rd, m, m)
	}
	return sc, sd, rc, rd, nil
}

func alltoallLists(what string, nb *Neighbors, send, recv []byte) (sc, sd, rc, rd []int, err error) {
	m, err := neighborBlock(what, nb, send, recv)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	sc, sd = make([]int, len(nb.Destinations)), make([]int, len(nb.Destinations))
	rc, rd = make([]int, len(nb.Sources)), make([]int, len(nb.Sources))
	fillBlocks(sc, sd, m, m)
	fillBlocks(rc, rd, m, m)
	return sc, sd, rc, rd, nil
}

func neighborWLists(what string, nb *Neighbors, scounts []int, stypes []Datatype, rcounts []int, rtypes []Datatype) (sb, rb []int, err error) {
	if nb == nil {
		return nil, nil, newErr(ErrArg, what, "no neighbourhood")
	}
	sb, rb = make([]int, len(nb.Destinations)), make([]int, len(nb.Sources))
	if err := typedBytes(what, "send", scounts, stypes, sb); err != nil {
		return nil, nil, err
	}
	if err := typedBytes(what, "receive", rcounts, rtypes, rb); err != nil {
		return nil, nil, err
	}
	return sb, rb, nil
}

// NeighborAllgather sends send to every destination of nb and receives
// block k of recv (len(send) bytes each) from nb.Sources[k].
func (c *Comm) NeighborAllgather(nb *Neighbors, send, recv []byte) error {
	sc, sd, rc, rd, err := allgatherLists("NeighborAllgather", nb, send, recv, nil, nil)
	if err != nil {
		return err
	}
	return c.NeighborAlltoallv(nb, send, sc, sd, recv, rc, rd)
}

// IneighborAllgather starts a NeighborAllgather.
func (c *Comm) IneighborAllgather(nb *Neighbors, send, recv []byte) (*Request, error) {
	sc, sd, rc, rd, err := allgatherLists("IneighborAllgather", nb, send, recv, nil, nil)
	if err != nil {
		return nil, err
	}
	return c.IneighborAlltoallv(nb, send, sc, sd, recv, rc, rd)
}

// NeighborAllgatherInit binds a persistent NeighborAllgather.
func (c *Comm) NeighborAllgatherInit(nb *Neighbors, send, recv []byte) (*Persistent, error) {
	sc, sd, rc, rd, err := allgatherLists("NeighborAllgatherInit", nb, send, recv, nil, nil)
	if err != nil {
		return nil, err
	}
	return c.NeighborAlltoallvInit(nb, send, sc, sd, recv, rc, rd)
}

// NeighborAllgatherv sends send to every destination of nb and receives
// block k of recv (rcounts[k] bytes at rdispls[k]) from nb.Sources[k].
func (c *Comm) NeighborAllgatherv(nb *Neighbors, send, recv []byte, rcounts, rdispls []int) error {
	sc, sd, _, _, err := allgatherLists("NeighborAllgatherv", nb, send, recv, rcounts, rdispls)
	if err != nil {
		return err
	}
	return c.NeighborAlltoallv(nb, send, sc, sd, recv, rcounts, rdispls)
}

// IneighborAllgatherv starts a NeighborAllgatherv.
func (c *Comm) IneighborAllgatherv(nb *Neighbors, send, recv []byte, rcounts, rdispls []int) (*Request, error) {
	sc, sd, _, _, err := allgatherLists("IneighborAllgatherv", nb, send, recv, rcounts, rdispls)
	if err != nil {
		return nil, err
	}
	return c.IneighborAlltoallv(nb, send, sc, sd, recv, rcounts, rdispls)
}

// NeighborAllgathervInit binds a persistent NeighborAllgatherv.
func (c *Comm) NeighborAllgathervInit(nb *Neighbors, send, recv []byte, rcounts, rdispls []int) (*Persistent, error) {
	sc, sd, _, _, err := allgatherLists("NeighborAllgathervInit", nb, send, recv, rcounts, rdispls)
	if err != nil {
		return nil, err
	}
	return c.NeighborAlltoallvInit(nb, send, sc, sd, recv, rcounts, rdispls)
}

// NeighborAlltoall sends block k of send to nb.Destinations[k] and
// receives block k of recv from nb.Sources[k]; the blocks are
// len(send)/len(nb.Destinations) bytes.
func (c *Comm) NeighborAlltoall(nb *Neighbors, send, recv []byte) error {
	sc, sd, rc, rd, err := alltoallLists("NeighborAlltoall", nb, send, recv)
	if err != nil {
		return err
	}
	return c.NeighborAlltoallv(nb, send, sc, sd, recv, rc, rd)
}

// IneighborAlltoall starts a NeighborAlltoall.
func (c *Comm) IneighborAlltoall(nb *Neighbors, send, recv []byte) (*Request, error) {
	sc, sd, rc, rd, err := alltoallLists("IneighborAlltoall", nb, send, recv)
	if err != nil {
		return nil, err
	}
	return c.IneighborAlltoallv(nb, send, sc, sd, recv, rc, rd)
}

// NeighborAlltoallInit binds a persistent NeighborAlltoall.
func (c *Comm) NeighborAlltoallInit(nb *Neighbors, send, recv []byte) (*Persistent, error) {
	sc, sd, rc, rd, err := alltoallLists("NeighborAlltoallInit", nb, send, recv)
	if err != nil {
		return nil, err
	}
	return c.NeighborAlltoallvInit(nb, send, sc, sd, recv, rc, rd)
}

// NeighborAlltoallw is NeighborAlltoallv with counts in elements of a
// datatype per neighbour (displacements stay in bytes).
func (c *Comm) NeighborAlltoallw(nb *Neighbors, send []byte, scounts, sdispls []int, stypes []Datatype, recv []byte, rcounts, rdispls []int, rtypes []Datatype) error {
	sb, rb, err := neighborWLists("NeighborAlltoallw", nb, scounts, stypes, rcounts, rtypes)
	if err != nil {
		return err
	}
	return c.NeighborAlltoallv(nb, send, sb, sdispls, recv, rb, rdispls)
}

// IneighborAlltoallw starts a NeighborAlltoallw.
func (c *Comm) IneighborAlltoallw(nb *Neighbors, send []byte, scounts, sdispls []int, stypes []Datatype, recv []byte, rcounts, rdispls []int, rtypes []Datatype) (*Request, error) {
	sb, rb, err := neighborWLists("IneighborAlltoallw", nb, scounts, stypes, rcounts, rtypes)
	if err != nil {
		return nil, err
	}
	return c.IneighborAlltoallv(nb, send, sb, sdispls, recv, rb, rdispls)
}

// NeighborAlltoallwInit binds a persistent NeighborAlltoallw.
func (c *Comm) NeighborAlltoallwInit(nb *Neighbors, send []byte, scounts, sdispls []int, stypes []Datatype, recv []byte, rcounts, rdispls []int, rtypes []Datatype) (*Persistent, error) {
	sb, rb, err := neighborWLists("NeighborAlltoallwInit", nb, scounts, stypes, rcounts, rtypes)
	if err != nil {
		return nil, err
	}
	return c.NeighborAlltoallvInit(nb, send, sb, sdispls, recv, rb, rdispls)
}
