//go:build ompi || mpich

package mpi

// #include "backend_cgo.h"
import "C"

import "runtime"

// Communicators and groups of the system-MPI backend. A Group owns its MPI
// handle and frees it when the Go value is collected; a Comm is freed by
// Free, as in MPI.

func (c *Comm) newComm(op string, q C.hy_rq) (*Comm, error) {
	if q.err != 0 {
		return nil, mpiErr(op, q.err)
	}
	if q.req == hCommNull {
		return nil, nil
	}
	return wrapComm(op, q.req)
}

// Dup is a new communicator with c's group and a new context.
func (c *Comm) Dup() (*Comm, error) {
	if err := c.checkLive("Dup"); err != nil {
		return nil, err
	}
	return c.newComm("Dup", C.hy_comm_new(0, c.h, 0, 0, 0))
}

// Idup starts a Dup (MPI_Comm_idup). The backend duplicates at once, a
// blocking MPI_Comm_dup, and hands back a complete request: programs that
// start idups in different orders on different processes (which the
// engine's Idup supports) need the system MPI's own MPI_Comm_idup here.
func (c *Comm) Idup() (*Comm, *Request, error) {
	d, err := c.Dup()
	if err != nil {
		return nil, nil, err
	}
	r := newJoin()
	r.release()
	return d, r, nil
}

// Split partitions c by color, ordering each part by key (ties by rank in
// c). Color Undefined returns (nil, nil).
func (c *Comm) Split(color, key int) (*Comm, error) {
	if err := c.checkLive("Split"); err != nil {
		return nil, err
	}
	if color < 0 && color != Undefined {
		return nil, newErr(ErrArg, "Split", "color %d (must be non-negative or Undefined)", color)
	}
	return c.newComm("Split", C.hy_comm_new(1, c.h, C.int(color), C.int(key), 0))
}

// Create is the communicator of the members of g (collective over c);
// non-members get (nil, nil).
func (c *Comm) Create(g *Group) (*Comm, error) {
	if err := c.check("Create"); err != nil {
		return nil, err
	}
	if err := checkGroup("Create", g); err != nil {
		return nil, err
	}
	return c.newComm("Create", C.hy_comm_new(2, c.h, 0, 0, g.h))
}

// CreateGroup is Create called by the members of g only
// (MPI_Comm_create_group); tag keeps concurrent calls apart. A non-member
// gets (nil, nil) at once.
func (c *Comm) CreateGroup(g *Group, tag int) (*Comm, error) {
	if err := c.check("CreateGroup"); err != nil {
		return nil, err
	}
	if tag < 0 || tag > TagUB {
		return nil, newErr(ErrTag, "CreateGroup", "tag %d (valid: 0..%d)", tag, TagUB)
	}
	if err := checkGroup("CreateGroup", g); err != nil {
		return nil, err
	}
	if g.rank == Undefined {
		return nil, nil
	}
	return c.newComm("CreateGroup", C.hy_comm_new(3, c.h, C.int(tag), 0, g.h))
}

// Free releases c (MPI_Comm_free). World and Self cannot be freed.
func (c *Comm) Free() error {
	if err := c.checkLive("Free"); err != nil {
		return err
	}
	if c.world {
		return newErr(ErrComm, "Free", "World and Self cannot be freed")
	}
	if err := mpiErr("Free", C.hy_comm_free(c.h)); err != nil {
		return err
	}
	c.freed = true
	if c.nbr != nil {
		c.nbr.Free()
		c.nbr = nil
	}
	return nil
}

// Group is the group of c (nil for a nil or freed communicator).
func (c *Comm) Group() *Group {
	if c == nil || c.freed || Finalized() {
		return nil
	}
	g, _ := wrapGroup("Group", C.hy_comm_group(c.h))
	return g
}

func wrapGroup(op string, q C.hy_rq) (*Group, error) {
	if q.err != 0 {
		return nil, mpiErr(op, q.err)
	}
	var rank, size C.int
	if err := mpiErr(op, C.hy_group_info(q.req, &rank, &size)); err != nil {
		C.hy_group_free(q.req)
		return nil, err
	}
	g := &Group{h: q.req, rank: int(rank), size: int(size)}
	runtime.AddCleanup(g, func(h C.hy_h) {
		if Initialized() && !Finalized() {
			C.hy_group_free(h)
		}
	}, g.h)
	return g, nil
}

func checkGroup(op string, gs ...*Group) error {
	for _, g := range gs {
		if g == nil {
			return newErr(ErrGroup, op, "nil group")
		}
	}
	if Finalized() {
		return newErr(ErrNotInitialized, op, "MPI was finalized")
	}
	return nil
}

// Size is the number of processes in g.
func (g *Group) Size() int {
	if g == nil {
		return 0
	}
	return g.size
}

// Rank is this process's rank in g, Undefined if it is not a member.
func (g *Group) Rank() int {
	if g == nil {
		return Undefined
	}
	return g.rank
}

func (g *Group) ranks(op string, ranks []int) ([]C.int, error) {
	out := make([]C.int, len(ranks)+1)
	seen := make(map[int]bool, len(ranks))
	for i, r := range ranks {
		if r < 0 || r >= g.size {
			return nil, newErr(ErrRank, op, "rank %d not in group of size %d", r, g.size)
		}
		if seen[r] {
			return nil, newErr(ErrRank, op, "rank %d listed twice", r)
		}
		seen[r] = true
		out[i] = C.int(r)
	}
	return out, nil
}

func (g *Group) derive(op string, what C.int, h *Group, ranks []int) (*Group, error) {
	if err := checkGroup(op, g); err != nil {
		return nil, err
	}
	var hh C.hy_h
	if what >= 2 {
		if err := checkGroup(op, h); err != nil {
			return nil, err
		}
		hh = h.h
	}
	rs, err := g.ranks(op, ranks)
	if err != nil {
		return nil, err
	}
	gr, err := wrapGroup(op, C.hy_group_new(what, g.h, hh, C.int(len(ranks)), &rs[0]))
	runtime.KeepAlive(g)
	runtime.KeepAlive(h)
	return gr, err
}

// Incl is the group of g's ranks listed, in that order.
func (g *Group) Incl(ranks []int) (*Group, error) { return g.derive("Group.Incl", 0, nil, ranks) }

// Excl is g without the ranks listed.
func (g *Group) Excl(ranks []int) (*Group, error) { return g.derive("Group.Excl", 1, nil, ranks) }

// Union is g's members followed by h's members not in g.
func (g *Group) Union(h *Group) (*Group, error) { return g.derive("Group.Union", 2, h, nil) }

// Intersection is g's members that are also in h, in g's order.
func (g *Group) Intersection(h *Group) (*Group, error) {
	return g.derive("Group.Intersection", 3, h, nil)
}

// Difference is g's members not in h, in g's order.
func (g *Group) Difference(h *Group) (*Group, error) {
	return g.derive("Group.Difference", 4, h, nil)
}

// Compare says whether g and h have the same members in the same order
// (Ident), the same members in another order (Similar), or not (Unequal).
func (g *Group) Compare(h *Group) int {
	if g == nil || h == nil || Finalized() {
		return Unequal
	}
	r := int(C.hy_group_compare(g.h, h.h))
	runtime.KeepAlive(g)
	runtime.KeepAlive(h)
	return r
}

// TranslateRanks maps ranks of g to ranks of other (Undefined when absent).
func (g *Group) TranslateRanks(ranks []int, other *Group) ([]int, error) {
	if err := checkGroup("Group.TranslateRanks", g, other); err != nil {
		return nil, err
	}
	in := make([]C.int, len(ranks)+1)
	for i, r := range ranks {
		if r == ProcNull {
			in[i] = C.int(C.MPI_PROC_NULL)
			continue
		}
		if r < 0 || r >= g.size {
			return nil, newErr(ErrRank, "Group.TranslateRanks", "rank %d not in group of size %d", r, g.size)
		}
		in[i] = C.int(r)
	}
	out := make([]C.int, len(ranks)+1)
	err := mpiErr("Group.TranslateRanks", C.hy_group_translate(g.h, C.int(len(ranks)), &in[0], other.h, &out[0]))
	runtime.KeepAlive(g)
	runtime.KeepAlive(other)
	if err != nil {
		return nil, err
	}
	res := make([]int, len(ranks))
	for i := range res {
		res[i] = int(out[i])
		if ranks[i] == ProcNull {
			res[i] = ProcNull
		}
	}
	return res, nil
}
