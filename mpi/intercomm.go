//go:build !ompi && !mpich

package mpi

import (
	"encoding/binary"
	"math"
	"sort"
	"sync"
)

// Intercommunicators: two disjoint groups, each rank's point-to-point
// partners being the ranks of the other group. An intercommunicator's Comm
// describes the local group (rank, size, world) as an intracommunicator
// would, and inter holds the remote group. Point-to-point calls name ranks
// of the remote group (peerWorld, peerRank). The collectives' entry points
// refuse intercommunicators (check); their intercommunicator forms are
// InterColl and friends (coll_inter.go), which run on ctx+1 too, over the
// union of both groups.
//
// Contexts. An intercommunicator takes four context ids: ctx for the
// application's point-to-point traffic, ctx+1 for the engine's own messages
// between the two groups (the leaders' exchanges of Dup and Merge), and
// ctx+2 (with ctx+3 for its collectives) for local, an intracommunicator
// of the local group that the constructors run their local agreements on.
// Both groups use the same ctx+2 for their local communicators: the groups
// are disjoint, so their traffic never meets.
//
// A new context is agreed as for intracommunicators (commops.go), over the
// union of both groups: each group takes the maximum of nextCtx locally,
// the leaders swap their maxima, and each leader broadcasts the larger to
// its group.

type interPart struct {
	remote []int // remote group rank → world rank
	local  *Comm // the local group as an intracommunicator
	bridge *Comm // view of the intercommunicator on ctx+1
	// The view over both groups its collectives run on (coll_inter.go),
	// made on first use; lbase and rbase are where the local and the
	// remote group start in it.
	unionOnce    sync.Once
	unionComm    *Comm
	lbase, rbase int
}

// Internal tags of the leaders' exchanges on the bridge context.
const (
	tagInterAgree = 1
	tagInterSplit = 2
)

// IsInter reports whether c is an intercommunicator.
func (c *Comm) IsInter() bool { return c != nil && c.inter != nil }

// RemoteSize is the size of c's remote group (0 for an intracommunicator).
func (c *Comm) RemoteSize() int {
	if !c.IsInter() {
		return 0
	}
	return len(c.inter.remote)
}

// RemoteGroup is c's remote group (nil for an intracommunicator).
func (c *Comm) RemoteGroup() *Group {
	if !c.IsInter() || c.freed {
		return nil
	}
	return &Group{world: append([]int(nil), c.inter.remote...), me: Undefined}
}

// peers is how many ranks point-to-point calls on c may name.
func (c *Comm) peers() int {
	if c.inter != nil {
		return len(c.inter.remote)
	}
	return c.size
}

// peerWorld maps a point-to-point partner's rank to its world rank.
func (c *Comm) peerWorld(r int) int {
	if c.inter != nil {
		return c.inter.remote[r]
	}
	return c.worldOf(r)
}

// peerRank maps a world rank back to a partner's rank in c.
func (c *Comm) peerRank(w int) int {
	if c != nil && c.inter != nil {
		for i, x := range c.inter.remote {
			if x == w {
				return i
			}
		}
		return Undefined
	}
	return c.rankOf(w)
}

// newInter builds this process's intercommunicator on ctx.
func (e *engine) newInter(ctx uint32, local *Comm, remote []int, private bool) *Comm {
	e.mu.Lock()
	e.nextCtx = max(e.nextCtx, uint64(ctx)+4)
	e.mu.Unlock()
	world := local.Group().world
	lc := &Comm{e: e, ctx: ctx + 2, rank: local.rank, size: local.size, world: world, private: private}
	ic := &Comm{e: e, ctx: ctx, rank: local.rank, size: local.size, world: world, private: private}
	br := &Comm{e: e, ctx: ctx + 1, rank: local.rank, size: local.size, world: world, private: private}
	ic.inter = &interPart{remote: remote, local: lc, bridge: br}
	br.inter = &interPart{remote: remote}
	return ic
}

// words packs int64s for the leaders' exchanges.
func words(v ...int64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
	}
	return b
}

func word(b []byte, i int) int64 { return int64(binary.LittleEndian.Uint64(b[8*i:])) }

// IntercommCreate makes the intercommunicator between the group of local
// (this process's side) and the group whose leader is remoteLeader in peer
// (MPI_Intercomm_create). Every member of local calls it with the same
// localLeader; only the two leaders use peer, exchanging with tag.
func (local *Comm) IntercommCreate(localLeader int, peer *Comm, remoteLeader, tag int) (*Comm, error) {
	const op = "IntercommCreate"
	if err := local.check(op); err != nil {
		return nil, err
	}
	if localLeader < 0 || localLeader >= local.size {
		return nil, newErr(ErrRank, op, "local leader %d not in communicator of size %d", localLeader, local.size)
	}
	ctx, err := local.agreeContext(op)
	if err != nil {
		return nil, err
	}
	e := local.e
	// The leader swaps (context, group) with the remote leader, then tells
	// its group: [context, remote size, remote world ranks...].
	info := make([]byte, 8*(2+e.size))
	if local.rank == localLeader {
		if err := peer.checkDest(op, remoteLeader, tag); err != nil {
			return nil, err
		}
		if remoteLeader == ProcNull {
			return nil, newErr(ErrRank, op, "remote leader is ProcNull")
		}
		mine := []int64{int64(ctx), int64(local.size)}
		for _, w := range local.Group().world {
			mine = append(mine, int64(w))
		}
		st, err := peer.Sendrecv(words(mine...), remoteLeader, tag, info, remoteLeader, tag)
		if err != nil {
			return nil, err
		}
		n := int(word(info, 1))
		if st.Count < 16 || n < 1 || n > e.size || st.Count != 8*(2+n) {
			return nil, newErr(ErrArg, op, "bad reply from the remote leader (%d bytes)", st.Count)
		}
		binary.LittleEndian.PutUint64(info, uint64(max(uint64(ctx), uint64(word(info, 0)))))
	}
	if err := local.Bcast(info, localLeader); err != nil {
		return nil, wrapCollErr(op, err)
	}
	agreed := uint64(word(info, 0))
	if agreed > math.MaxUint32-4 {
		return nil, newErr(ErrIntern, op, "context ids exhausted")
	}
	n := int(word(info, 1))
	remote := make([]int, n)
	for i := range remote {
		remote[i] = int(word(info, 2+i))
		if remote[i] < 0 || remote[i] >= e.size || local.indexInWorld(remote[i]) {
			return nil, newErr(ErrArg, op, "the remote group overlaps the local group")
		}
	}
	return e.newInter(uint32(agreed), local, remote, local.private), nil
}

// indexInWorld reports whether world rank w is in c's (local) group.
func (c *Comm) indexInWorld(w int) bool {
	for i := range c.size {
		if c.worldOf(i) == w {
			return true
		}
	}
	return false
}

// interAgree runs the context agreement over both groups of c and swaps
// one value between them: it returns the agreed context and the remote
// group's value.
func (c *Comm) interAgree(op string, value int64) (uint32, int64, error) {
	in := c.inter
	ctx, err := in.local.agreeContext(op)
	if err != nil {
		return 0, 0, err
	}
	info := make([]byte, 16)
	// Each group's rank 0 leads: both sides know where the other's is.
	if c.rank == 0 {
		st, err := in.bridge.Sendrecv(words(int64(ctx), value), 0, tagInterAgree, info, 0, tagInterAgree)
		if err != nil {
			return 0, 0, err
		}
		if st.Count != 16 {
			return 0, 0, newErr(ErrIntern, op, "bad reply from the remote leader")
		}
		binary.LittleEndian.PutUint64(info, uint64(max(uint64(ctx), uint64(word(info, 0)))))
	}
	if err := in.local.Bcast(info, 0); err != nil {
		return 0, 0, wrapCollErr(op, err)
	}
	agreed := uint64(word(info, 0))
	if agreed > math.MaxUint32-4 {
		return 0, 0, newErr(ErrIntern, op, "context ids exhausted")
	}
	return uint32(agreed), word(info, 1), nil
}

// InterDup duplicates the intercommunicator c (MPI_Comm_dup on an
// intercommunicator): same groups, new contexts.
func (c *Comm) InterDup() (*Comm, error) {
	const op = "Dup"
	if err := c.checkLive(op); err != nil {
		return nil, err
	}
	if c.inter == nil {
		return c.Dup()
	}
	ctx, _, err := c.interAgree(op, 0)
	if err != nil {
		return nil, err
	}
	d := c.e.newInter(ctx, c.inter.local, append([]int(nil), c.inter.remote...), c.private)
	return d, nil
}

// Merge is the intracommunicator of both groups of the intercommunicator c
// (MPI_Intercomm_merge): the group whose members pass high false comes
// first; when both pass the same, the group holding the lower world rank
// comes first (MPICH orders by its own group ids; any fixed rule will do).
func (c *Comm) Merge(high bool) (*Comm, error) {
	const op = "Merge"
	if err := c.checkLive(op); err != nil {
		return nil, err
	}
	if c.inter == nil {
		return nil, newErr(ErrComm, op, "not an intercommunicator")
	}
	h := int64(0)
	if high {
		h = 1
	}
	ctx, rh, err := c.interAgree(op, h)
	if err != nil {
		return nil, err
	}
	local := c.inter.local.Group().world
	remote := c.inter.remote
	localFirst := h < rh
	if h == rh {
		localFirst = minOf(local) < minOf(remote)
	}
	var world []int
	if localFirst {
		world = append(append(world, local...), remote...)
	} else {
		world = append(append(world, remote...), local...)
	}
	me := c.rank
	if !localFirst {
		me += len(remote)
	}
	return c.inter.local.claim(ctx, me, world), nil
}

func minOf(v []int) int {
	m := math.MaxInt
	for _, x := range v {
		m = min(m, x)
	}
	return m
}

// freeInter releases an intercommunicator: like Free, no synchronisation,
// and its matching state goes unless a receive is still posted on it.
func (c *Comm) freeInter() error {
	e := c.e
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.laneN != 0 {
		e.laneFlush() // its receives are posted ones, which keep the queues
	}
	for ctx := c.ctx; ctx < c.ctx+4; ctx++ {
		if q := e.ctxs[ctx]; q != nil && !q.HasPosted() {
			e.live[1] -= int64(q.Unexpected()) // dropped with the queues
			delete(e.ctxs, ctx)
		}
	}
	e.lastQ, e.lastCtx = nil, 0
	c.freed = true
	return nil
}

// IntercommFromGroups makes the intercommunicator between the group local,
// which this process belongs to, and the disjoint group remote, with no
// communicator to start from (MPI_Intercomm_create_from_groups): the local
// group's communicator is made from World's group creation, and the leaders
// meet on World's collective context, on tags no collective uses. Both
// groups pass the same tag.
func IntercommFromGroups(local *Group, localLeader int, remote *Group, remoteLeader, tag int) (*Comm, error) {
	const op = "IntercommFromGroups"
	w := world
	if w == nil {
		return nil, newErr(ErrNotInitialized, op, "MPI is not initialized")
	}
	if err := checkGroup(op, local, remote); err != nil {
		return nil, err
	}
	if remoteLeader < 0 || remoteLeader >= remote.Size() {
		return nil, newErr(ErrRank, op, "remote leader %d not in a group of %d", remoteLeader, remote.Size())
	}
	lc, err := w.CreateGroup(local, tag&TagUB)
	if err != nil {
		return nil, err
	}
	if lc == nil {
		return nil, newErr(ErrGroup, op, "this process is not in the local group")
	}
	defer lc.Free()
	peer := &Comm{e: w.e, ctx: w.ctx + 1, rank: w.rank, size: w.size, private: w.private}
	return lc.IntercommCreate(localLeader, peer, remote.world[remoteLeader], 1<<29|tag&(1<<collGroupSeqBits-1))
}

// interSplit is Split on an intercommunicator: the members of each color
// form an intercommunicator between their local and remote parts, ordered
// by key then old rank; a color the other group lacks gives nil, like
// Undefined.
func (c *Comm) interSplit(color, key int) (*Comm, error) {
	const op = "Split"
	if err := c.checkLive(op); err != nil {
		return nil, err
	}
	if color < 0 && color != Undefined {
		return nil, newErr(ErrArg, op, "color %d (must be non-negative or Undefined)", color)
	}
	in := c.inter
	mine := make([]byte, 16*c.size)
	if err := in.local.Allgather(words(int64(color), int64(key)), mine); err != nil {
		return nil, wrapCollErr(op, err)
	}
	theirs := make([]byte, 16*len(in.remote))
	if c.rank == 0 {
		st, err := in.bridge.Sendrecv(mine, 0, tagInterSplit, theirs, 0, tagInterSplit)
		if err != nil {
			return nil, err
		}
		if st.Count != len(theirs) {
			return nil, newErr(ErrIntern, op, "bad reply from the remote leader")
		}
	}
	if err := in.local.Bcast(theirs, 0); err != nil {
		return nil, wrapCollErr(op, err)
	}
	ctx, _, err := c.interAgree(op, 0)
	if err != nil {
		return nil, err
	}
	if color == Undefined {
		return nil, nil
	}
	pick := func(list []byte, world func(int) int) []int {
		type member struct{ key, rank int }
		var ms []member
		for r := range len(list) / 16 {
			if int(word(list, 2*r)) == color {
				ms = append(ms, member{key: int(word(list, 2*r+1)), rank: r})
			}
		}
		sort.SliceStable(ms, func(i, j int) bool { return ms[i].key < ms[j].key })
		out := make([]int, len(ms))
		for i, m := range ms {
			out[i] = world(m.rank)
		}
		return out
	}
	lw := pick(mine, c.worldOf)
	rw := pick(theirs, func(r int) int { return in.remote[r] })
	if len(rw) == 0 {
		return nil, nil
	}
	me := 0
	for i, w := range lw {
		if w == c.worldOf(c.rank) {
			me = i
		}
	}
	part := &Comm{e: c.e, rank: me, size: len(lw), world: lw, private: c.private}
	return c.e.newInter(ctx, part, rw, c.private), nil
}
