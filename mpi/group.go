//go:build !ompi && !mpich

package mpi

// Group is an ordered set of processes (world ranks).
type Group struct {
	world []int // group rank → world rank
	me    int   // this process's rank in the group, or Undefined
}

// newGroup builds a group from world ranks; self is this process's world
// rank.
func newGroup(world []int, self int) *Group {
	g := &Group{world: world, me: Undefined}
	for i, w := range world {
		if w == self {
			g.me = i
			break
		}
	}
	return g
}

// selfWorld is this process's world rank, or -1 when g cannot tell (it is
// not a member).
func (g *Group) selfWorld() int {
	if g.me == Undefined {
		return -1
	}
	return g.world[g.me]
}

// Size is the number of processes in g.
func (g *Group) Size() int {
	if g == nil {
		return 0
	}
	return len(g.world)
}

// Rank is this process's rank in g, Undefined if it is not a member.
func (g *Group) Rank() int {
	if g == nil {
		return Undefined
	}
	return g.me
}

func checkGroup(op string, gs ...*Group) error {
	for _, g := range gs {
		if g == nil {
			return newErr(ErrGroup, op, "nil group")
		}
	}
	return nil
}

// Incl is the group of g's ranks listed, in that order.
func (g *Group) Incl(ranks []int) (*Group, error) {
	if err := checkGroup("Group.Incl", g); err != nil {
		return nil, err
	}
	seen := make([]bool, len(g.world))
	out := &Group{world: make([]int, len(ranks)), me: Undefined}
	for i, r := range ranks {
		if r < 0 || r >= len(g.world) {
			return nil, newErr(ErrRank, "Group.Incl", "rank %d not in group of size %d", r, len(g.world))
		}
		if seen[r] {
			return nil, newErr(ErrRank, "Group.Incl", "rank %d listed twice", r)
		}
		seen[r] = true
		out.world[i] = g.world[r]
		if r == g.me {
			out.me = i
		}
	}
	return out, nil
}

// Excl is g without the ranks listed.
func (g *Group) Excl(ranks []int) (*Group, error) {
	if err := checkGroup("Group.Excl", g); err != nil {
		return nil, err
	}
	drop := make([]bool, len(g.world))
	for _, r := range ranks {
		if r < 0 || r >= len(g.world) {
			return nil, newErr(ErrRank, "Group.Excl", "rank %d not in group of size %d", r, len(g.world))
		}
		if drop[r] {
			return nil, newErr(ErrRank, "Group.Excl", "rank %d listed twice", r)
		}
		drop[r] = true
	}
	var keep []int
	for r := range g.world {
		if !drop[r] {
			keep = append(keep, r)
		}
	}
	return g.Incl(keep)
}

// TranslateRanks maps ranks of g to ranks of other (Undefined when absent).
func (g *Group) TranslateRanks(ranks []int, other *Group) ([]int, error) {
	if err := checkGroup("Group.TranslateRanks", g, other); err != nil {
		return nil, err
	}
	out := make([]int, len(ranks))
	for i, r := range ranks {
		switch {
		case r == ProcNull:
			out[i] = ProcNull
		case r < 0 || r >= len(g.world):
			return nil, newErr(ErrRank, "Group.TranslateRanks", "rank %d not in group of size %d", r, len(g.world))
		default:
			out[i] = other.indexOf(g.world[r])
		}
	}
	return out, nil
}

// indexOf is the rank of world rank w in g, or Undefined.
func (g *Group) indexOf(w int) int {
	for i, x := range g.world {
		if x == w {
			return i
		}
	}
	return Undefined
}

// self is this process's world rank as either group knows it.
func selfOf(g, h *Group) int {
	if w := g.selfWorld(); w >= 0 {
		return w
	}
	return h.selfWorld()
}

// Union is g's members followed by h's members not in g.
func (g *Group) Union(h *Group) (*Group, error) {
	if err := checkGroup("Group.Union", g, h); err != nil {
		return nil, err
	}
	world := append([]int(nil), g.world...)
	for _, w := range h.world {
		if g.indexOf(w) == Undefined {
			world = append(world, w)
		}
	}
	return newGroup(world, selfOf(g, h)), nil
}

// Intersection is g's members that are also in h, in g's order.
func (g *Group) Intersection(h *Group) (*Group, error) {
	if err := checkGroup("Group.Intersection", g, h); err != nil {
		return nil, err
	}
	var world []int
	for _, w := range g.world {
		if h.indexOf(w) != Undefined {
			world = append(world, w)
		}
	}
	return newGroup(world, selfOf(g, h)), nil
}

// Difference is g's members not in h, in g's order.
func (g *Group) Difference(h *Group) (*Group, error) {
	if err := checkGroup("Group.Difference", g, h); err != nil {
		return nil, err
	}
	var world []int
	for _, w := range g.world {
		if h.indexOf(w) == Undefined {
			world = append(world, w)
		}
	}
	return newGroup(world, selfOf(g, h)), nil
}

// Group comparison results (MPI_IDENT, MPI_SIMILAR, MPI_UNEQUAL).
const (
	Ident   = 0
	Similar = 2
	Unequal = 3
)

// Compare says whether g and h have the same members in the same order
// (Ident), the same members in another order (Similar), or not (Unequal).
func (g *Group) Compare(h *Group) int {
	if g == nil || h == nil || len(g.world) != len(h.world) {
		return Unequal
	}
	same := true
	for i, w := range g.world {
		if h.world[i] != w {
			same = false
		}
		if h.indexOf(w) == Undefined {
			return Unequal
		}
	}
	if same {
		return Ident
	}
	return Similar
}

// Group is the group of c (nil for a nil or freed communicator).
func (c *Comm) Group() *Group {
	if c == nil || c.freed {
		return nil
	}
	world := make([]int, c.size)
	for i := range world {
		world[i] = c.worldOf(i)
	}
	return &Group{world: world, me: c.rank}
}
