//go:build !ompi && !mpich

package mpi

import (
	"encoding/binary"
	"sort"
)

// Creating and freeing communicators.
//
// Context ids. A communicator owns the contexts ctx (point-to-point) and
// ctx+1 (collectives). Every process keeps e.nextCtx, above every context
// id it has ever used; a new communicator's id is the maximum of nextCtx
// over the processes that create it, agreed with an allreduce (Max) on the
// offload engine as the thesis does for MPI_Comm_create, and each member
// then moves its nextCtx past it. The maximum is above every id any member
// uses, so no two live communicators sharing a process share a context.
// Ids are never reused, not even after Free: a message left behind on a
// freed communicator (or still in a ring when it was freed) can never be
// taken for traffic of a later one. A uint32 id space of pairs lasts 2^31
// creations; running out is reported as ErrIntern.
//
// Communicators made by one call on disjoint process sets (the colors of a
// Split) get the same id: no process sees both. Communicators are created
// one at a time per process (MPI requires the calls to be collective and
// ordered); two goroutines creating communicators at once on different
// parents are not supported.

// claim builds the new communicator of this process on context ctx.
func (c *Comm) claim(ctx uint32, rank int, world []int) *Comm {
	e := c.e
	e.mu.Lock()
	e.nextCtx = max(e.nextCtx, uint64(ctx)+2)
	e.mu.Unlock()
	n := len(world)
	identity := true
	for i, w := range world {
		if w != i {
			identity = false
		}
	}
	if identity && n == e.size {
		world = nil
	}
	return &Comm{e: e, ctx: ctx, rank: rank, size: n, world: world, private: c.private}
}

// Dup is a new communicator with c's group and a new context.
func (c *Comm) Dup() (*Comm, error) {
	if c != nil && c.inter != nil {
		return c.InterDup()
	}
	if err := c.check("Dup"); err != nil {
		return nil, err
	}
	ctx, err := c.agreeContext("Dup")
	if err != nil {
		return nil, err
	}
	return c.claim(ctx, c.rank, c.Group().world), nil
}

// Split partitions c by color, ordering each part by key (ties by rank in
// c). Color Undefined returns (nil, nil).
func (c *Comm) Split(color, key int) (*Comm, error) {
	if c != nil && c.inter != nil {
		return c.interSplit(color, key)
	}
	if err := c.check("Split"); err != nil {
		return nil, err
	}
	if color < 0 && color != Undefined {
		return nil, newErr(ErrArg, "Split", "color %d (must be non-negative or Undefined)", color)
	}
	n := c.size
	mine := make([]byte, 16)
	binary.LittleEndian.PutUint64(mine, uint64(int64(color)))
	binary.LittleEndian.PutUint64(mine[8:], uint64(int64(key)))
	all := make([]byte, 16*n)
	if err := c.Allgather(mine, all); err != nil {
		return nil, wrapCollErr("Split", err)
	}
	ctx, err := c.agreeContext("Split")
	if err != nil {
		return nil, err
	}
	if color == Undefined {
		return nil, nil
	}
	type member struct{ key, rank int }
	var ms []member
	for r := range n {
		col := int(int64(binary.LittleEndian.Uint64(all[16*r:])))
		if col == color {
			ms = append(ms, member{key: int(int64(binary.LittleEndian.Uint64(all[16*r+8:]))), rank: r})
		}
	}
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].key < ms[j].key })
	world := make([]int, len(ms))
	me := 0
	for i, m := range ms {
		world[i] = c.worldOf(m.rank)
		if m.rank == c.rank {
			me = i
		}
	}
	return c.claim(ctx, me, world), nil
}

// checkSubgroup checks that every member of g is in c.
func (c *Comm) checkSubgroup(op string, g *Group) error {
	if err := checkGroup(op, g); err != nil {
		return err
	}
	for _, w := range g.world {
		if c.rankOf(w) == Undefined || (c.world == nil && (w < 0 || w >= c.size)) {
			return newErr(ErrGroup, op, "world rank %d is not in the communicator", w)
		}
	}
	return nil
}

// Create is the communicator of the members of g (collective over c);
// non-members get (nil, nil).
//
// On an intercommunicator each side passes a subgroup of its local group,
// and the members get the intercommunicator between the two subgroups,
// ranked as in g: a Split with the members' color and their rank in g as
// key. A member whose other side chose no process gets (nil, nil), as in
// MPICH.
func (c *Comm) Create(g *Group) (*Comm, error) {
	if c != nil && c.inter != nil && !c.freed {
		if err := c.inter.local.checkSubgroup("Create", g); err != nil {
			return nil, err
		}
		me := g.indexOf(c.worldOf(c.rank))
		color := 0
		if me == Undefined {
			color = Undefined
		}
		return c.interSplit(color, me)
	}
	if err := c.check("Create"); err != nil {
		return nil, err
	}
	if err := c.checkSubgroup("Create", g); err != nil {
		return nil, err
	}
	ctx, err := c.agreeContext("Create")
	if err != nil {
		return nil, err
	}
	me := g.indexOf(c.worldOf(c.rank))
	if me == Undefined {
		return nil, nil
	}
	return c.claim(ctx, me, append([]int(nil), g.world...)), nil
}

// CreateGroup is Create called by the members of g only (MPI_Comm_create_group);
// tag keeps concurrent calls apart. A non-member gets (nil, nil) at once.
//
// The members agree on a context over a scratch communicator of g that
// borrows c's collective context, its tags marked with collGroupTagBit and
// the caller's tag so they can meet neither c's own collectives nor another
// CreateGroup's.
func (c *Comm) CreateGroup(g *Group, tag int) (*Comm, error) {
	if err := c.check("CreateGroup"); err != nil {
		return nil, err
	}
	if tag < 0 || tag > TagUB {
		return nil, newErr(ErrTag, "CreateGroup", "tag %d (valid: 0..%d)", tag, TagUB)
	}
	if err := c.checkSubgroup("CreateGroup", g); err != nil {
		return nil, err
	}
	me := g.indexOf(c.worldOf(c.rank))
	if me == Undefined {
		return nil, nil
	}
	world := append([]int(nil), g.world...)
	scratch := &Comm{e: c.e, ctx: c.ctx, rank: me, size: len(world), world: world, private: c.private,
		tagBase: collGroupTagBit | (tag&(1<<(30-collGroupSeqBits)-1))<<collGroupSeqBits}
	ctx, err := scratch.agreeContext("CreateGroup")
	if err != nil {
		return nil, err
	}
	return c.claim(ctx, me, world), nil
}

// Free releases c. It is collective over c but does not synchronise (as in
// MPICH and Open MPI, a program may free c while a peer still has to send
// it a message it posted a receive for): it lets the nonblocking
// collectives started on c finish (every member started them, so they
// complete) and drops c's matching state unless a receive is still posted
// on c, which then completes normally when its message comes. Its context
// ids are not reused, so nothing sent later on c can be taken for another
// communicator's traffic.
func (c *Comm) Free() error {
	if err := c.checkLive("Free"); err != nil {
		return err
	}
	if c.inter != nil {
		return c.freeInter()
	}
	if c.ctx == ctxWorld || c.ctx == ctxSelf {
		return newErr(ErrComm, "Free", "World and Self cannot be freed")
	}
	e := c.e
	e.mu.Lock()
	err := e.waitUntil(func() bool {
		for _, op := range e.colls {
			if op.c == c {
				return false
			}
		}
		return true
	})
	e.mu.Unlock()
	if err != nil {
		return wrapCollErr("Free", err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.laneN != 0 {
		e.laneFlush() // its receives are posted ones, which keep the queues
	}
	for _, ctx := range []uint32{c.ctx, c.ctx + 1} {
		if q := e.ctxs[ctx]; q != nil && !q.HasPosted() {
			e.live[1] -= int64(q.Unexpected()) // dropped with the queues
			delete(e.ctxs, ctx)
		}
	}
	e.lastQ, e.lastCtx = nil, 0
	c.dropGate()
	c.memoDrop() // nothing of c's may keep its buffers alive
	c.cplanFree()
	c.freed = true
	return nil
}
