//go:build !ompi && !mpich

package mpi

// Alltoallw: Alltoallv with a datatype per peer. Counts are in elements of
// the peer's datatype and displacements in bytes, as MPI_Alltoallw has
// them; the elements travel as bytes, so the collective is Alltoallv over
// the counts translated to bytes (in the schedule's scratch, so a steady
// state allocates nothing). On an intercommunicator the translated counts
// go to the intercommunicator Alltoallv.

func (c *Comm) alltoallwBuild(s *schedule, what string, send []byte, scounts, sdispls []int, stypes []Datatype, recv []byte, rcounts, rdispls []int, rtypes []Datatype) error {
	rb := s.ints(c.size)
	if err := typedBytes(what, "receive", rcounts, rtypes, rb); err != nil {
		return err
	}
	sb, sd := rb, rdispls
	if !sameBuf(send, recv) {
		sb, sd = s.ints(c.size), sdispls
		if err := typedBytes(what, "send", scounts, stypes, sb); err != nil {
			return err
		}
	}
	return c.alltoallvBuild(s, what, send, sb, sd, recv, rb, rdispls)
}

// wkey is an Alltoallw call's memo key, its arrays v (more: the
// datatypes as typesKey has them, built in the caller's frame so that the
// key allocates nothing): none when a datatype is not predefined.
func wkey(send []byte, stypes []Datatype, recv []byte, rtypes []Datatype, v *countsKey) collKey {
	if (v.more[0] == nil && stypes != nil) || (v.more[1] == nil && rtypes != nil) {
		return collKey{}
	}
	return vkey(keyOf(memoAlltoallw, send, recv, 0, 0, 0), v)
}

// interW translates an intercommunicator Alltoallw's counts to bytes.
func interW(what string, scounts []int, stypes []Datatype, rcounts []int, rtypes []Datatype) (sb, rb []int, err error) {
	rb = make([]int, len(rcounts))
	if err := typedBytes(what, "receive", rcounts, rtypes, rb); err != nil {
		return nil, nil, err
	}
	sb = make([]int, len(scounts))
	if err := typedBytes(what, "send", scounts, stypes, sb); err != nil {
		return nil, nil, err
	}
	return sb, rb, nil
}

// Alltoallw sends scounts[j] elements of stypes[j] at byte sdispls[j] of
// send to rank j and receives rcounts[i] elements of rtypes[i] at byte
// rdispls[i] of recv from rank i. send and recv may be the same slice (in
// place: the receive counts, displacements and datatypes describe both).
func (c *Comm) Alltoallw(send []byte, scounts, sdispls []int, stypes []Datatype, recv []byte, rcounts, rdispls []int, rtypes []Datatype) error {
	if c.IsInter() {
		sb, rb, err := interW("Alltoallw", scounts, stypes, rcounts, rtypes)
		if err != nil {
			return err
		}
		return c.Alltoallv(send, sb, sdispls, recv, rb, rdispls)
	}
	more := [moreKeys][]int{typesKey(stypes), typesKey(rtypes)}
	v := countsKey{a: [4][]int{scounts, sdispls, rcounts, rdispls}, more: &more}
	return c.blockingKeyed("Alltoallw", wkey(send, stypes, recv, rtypes, &v), &v, func(s *schedule) error {
		return c.alltoallwBuild(s, "Alltoallw", send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes)
	})
}

// Ialltoallw starts an Alltoallw.
func (c *Comm) Ialltoallw(send []byte, scounts, sdispls []int, stypes []Datatype, recv []byte, rcounts, rdispls []int, rtypes []Datatype) (*Request, error) {
	if c.IsInter() {
		sb, rb, err := interW("Ialltoallw", scounts, stypes, rcounts, rtypes)
		if err != nil {
			return nil, err
		}
		return c.Ialltoallv(send, sb, sdispls, recv, rb, rdispls)
	}
	more := [moreKeys][]int{typesKey(stypes), typesKey(rtypes)}
	v := countsKey{a: [4][]int{scounts, sdispls, rcounts, rdispls}, more: &more}
	return c.nonblockingKeyed("Ialltoallw", wkey(send, stypes, recv, rtypes, &v), &v, func(s *schedule) error {
		return c.alltoallwBuild(s, "Ialltoallw", send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes)
	})
}

// AlltoallwInit binds a persistent Alltoallw.
func (c *Comm) AlltoallwInit(send []byte, scounts, sdispls []int, stypes []Datatype, recv []byte, rcounts, rdispls []int, rtypes []Datatype) (*Persistent, error) {
	if c.IsInter() {
		sb, rb, err := interW("AlltoallwInit", scounts, stypes, rcounts, rtypes)
		if err != nil {
			return nil, err
		}
		return c.AlltoallvInit(send, sb, sdispls, recv, rb, rdispls)
	}
	return c.persist("AlltoallwInit", func(s *schedule) error {
		return c.alltoallwBuild(s, "AlltoallwInit", send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes)
	})
}
