package main

/*
#include "cabi.h"
*/
import "C"

import (
	"github.com/hympi/hympi/mpi"
)

var groups table[mpi.Group]

// publish stores a new communicator at index ni (allocated by C) and
// reports its rank and size; a nil communicator (not a member) has size 0.
func publish(c *mpi.Comm, err error, ni C.int, rank, size *C.int) C.int {
	if err != nil {
		return errCode(err)
	}
	*rank, *size = C.int(mpi.Undefined), 0
	if c == nil {
		return 0
	}
	comms.at(int(ni)).Store(c)
	*rank, *size = C.int(c.Rank()), C.int(c.Size())
	return 0
}

//export hympi_go_comm_dup
func hympi_go_comm_dup(ci, ni C.int, rank, size *C.int) C.int {
	c, rc := commAt(ci)
	if rc != 0 {
		return rc
	}
	d, err := c.Dup()
	return publish(d, err, ni, rank, size)
}

//export hympi_go_comm_split
func hympi_go_comm_split(ci, color, key, ni C.int, rank, size *C.int) C.int {
	c, rc := commAt(ci)
	if rc != 0 {
		return rc
	}
	d, err := c.Split(int(color), int(key))
	return publish(d, err, ni, rank, size)
}

//export hympi_go_comm_create
func hympi_go_comm_create(ci C.int, g C.intptr_t, tag, useTag, ni C.int, rank, size *C.int) C.int {
	c, rc := commAt(ci)
	if rc != 0 {
		return rc
	}
	grp, rc := groupOf(g)
	if rc != 0 {
		return rc
	}
	var d *mpi.Comm
	var err error
	if useTag != 0 {
		d, err = c.CreateGroup(grp, int(tag))
	} else {
		d, err = c.Create(grp)
	}
	return publish(d, err, ni, rank, size)
}

//export hympi_go_comm_free
func hympi_go_comm_free(ci C.int) C.int {
	c, rc := commAt(ci)
	if rc != 0 {
		return rc
	}
	if err := c.Free(); err != nil {
		return errCode(err)
	}
	comms.at(int(ci)).Store(nil)
	return 0
}

//export hympi_go_comm_group
func hympi_go_comm_group(ci C.int, g *C.intptr_t) C.int {
	c, rc := commAt(ci)
	if rc != 0 {
		return rc
	}
	grp := c.Group()
	if grp == nil {
		return errCode(newPending("Comm_group"))
	}
	*g = newGroup(grp)
	return 0
}

func newPending(op string) error {
	return &mpi.Error{Class: mpi.ErrOther, Op: op, Msg: "not implemented yet"}
}

var compareOut = map[int]C.int{mpi.Ident: C.MPI_IDENT, mpi.Similar: C.MPI_SIMILAR, mpi.Unequal: C.MPI_UNEQUAL}

//export hympi_go_comm_compare
func hympi_go_comm_compare(ci, cj C.int, result *C.int) C.int {
	a, rc := commAt(ci)
	if rc != 0 {
		return rc
	}
	b, rc := commAt(cj)
	if rc != 0 {
		return rc
	}
	if a == b {
		*result = C.MPI_IDENT
		return 0
	}
	ga, gb := a.Group(), b.Group()
	if ga == nil || gb == nil {
		return errCode(newPending("Comm_compare"))
	}
	if a.IsInter() != b.IsInter() {
		*result = C.MPI_UNEQUAL
		return 0
	}
	cmp := ga.Compare(gb)
	if a.IsInter() {
		// Both groups count: the weaker of the two answers.
		cmp = max(cmp, a.RemoteGroup().Compare(b.RemoteGroup()))
	}
	switch cmp {
	case mpi.Ident:
		*result = C.MPI_CONGRUENT
	case mpi.Similar:
		*result = C.MPI_SIMILAR
	default:
		*result = C.MPI_UNEQUAL
	}
	return 0
}

// Groups.

func newGroup(g *mpi.Group) C.intptr_t {
	return C.intptr_t(makeHandle(kindGroup, groups.put(g)))
}

var emptyGroup struct {
	g *mpi.Group
}

func groupOf(h C.intptr_t) (*mpi.Group, C.int) {
	switch uintptr(h) {
	case hGroupEmpty:
		redMu.Lock()
		defer redMu.Unlock()
		if emptyGroup.g == nil {
			w := mpi.World()
			if w == nil {
				return nil, C.MPI_ERR_GROUP
			}
			g := w.Group()
			if g == nil {
				return nil, errCode(newPending("Group"))
			}
			e, err := g.Incl(nil)
			if err != nil {
				return nil, errCode(err)
			}
			emptyGroup.g = e
		}
		return emptyGroup.g, 0
	case hGroupNull:
		return nil, C.MPI_ERR_GROUP
	}
	g := groups.get(handleIndex(uintptr(h), kindGroup))
	if g == nil {
		return nil, C.MPI_ERR_GROUP
	}
	return g, 0
}

//export hympi_go_group_size
func hympi_go_group_size(h C.intptr_t, n, rank *C.int) C.int {
	g, rc := groupOf(h)
	if rc != 0 {
		return rc
	}
	*n, *rank = C.int(g.Size()), C.int(g.Rank())
	return 0
}

func intList(p *C.int, n C.int) []int {
	v := intsAt(p, int(n))
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}

// Group set operations (hympi_go_group_op).
const (
	gIncl = iota
	gExcl
	gRangeIncl
	gRangeExcl
	gUnion
	gIntersection
	gDifference
)

//export hympi_go_group_op
func hympi_go_group_op(kind C.int, h C.intptr_t, n C.int, ranks *C.int, h2 C.intptr_t, out *C.intptr_t) C.int {
	g, rc := groupOf(h)
	if rc != 0 {
		return rc
	}
	var r *mpi.Group
	var err error
	switch kind {
	case gIncl:
		r, err = g.Incl(intList(ranks, n))
	case gExcl:
		r, err = g.Excl(intList(ranks, n))
	case gRangeIncl, gRangeExcl:
		list, rc := expandRanges(intList(ranks, 3*n))
		if rc != 0 {
			return rc
		}
		if kind == gRangeIncl {
			r, err = g.Incl(list)
		} else {
			r, err = g.Excl(list)
		}
	default:
		g2, rc := groupOf(h2)
		if rc != 0 {
			return rc
		}
		switch kind {
		case gUnion:
			r, err = g.Union(g2)
		case gIntersection:
			r, err = g.Intersection(g2)
		default:
			r, err = g.Difference(g2)
		}
	}
	if err != nil {
		return errCode(err)
	}
	if r.Size() == 0 {
		// Every empty result is the predefined empty group (as in MPICH
		// and Open MPI), which programs compare against.
		*out = hGroupEmpty
		return 0
	}
	*out = newGroup(r)
	return 0
}

// expandRanges turns MPI's (first, last, stride) triplets into ranks.
func expandRanges(t []int) ([]int, C.int) {
	var out []int
	for i := 0; i+2 < len(t); i += 3 {
		first, last, stride := t[i], t[i+1], t[i+2]
		if stride == 0 {
			return nil, C.MPI_ERR_ARG
		}
		for r := first; (stride > 0 && r <= last) || (stride < 0 && r >= last); r += stride {
			out = append(out, r)
		}
	}
	return out, 0
}

//export hympi_go_group_compare
func hympi_go_group_compare(h1, h2 C.intptr_t, result *C.int) C.int {
	a, rc := groupOf(h1)
	if rc != 0 {
		return rc
	}
	b, rc := groupOf(h2)
	if rc != 0 {
		return rc
	}
	*result = compareOut[a.Compare(b)]
	return 0
}

//export hympi_go_group_translate
func hympi_go_group_translate(h1 C.intptr_t, n C.int, ranks *C.int, h2 C.intptr_t, out *C.int) C.int {
	a, rc := groupOf(h1)
	if rc != 0 {
		return rc
	}
	b, rc := groupOf(h2)
	if rc != 0 {
		return rc
	}
	in := intList(ranks, n)
	res := intsAt(out, int(n))
	// MPI_PROC_NULL translates to itself; the engine does not know it.
	var ask []int
	var at []int
	for i, r := range in {
		if r == C.MPI_PROC_NULL {
			res[i] = C.MPI_PROC_NULL
			continue
		}
		ask = append(ask, r)
		at = append(at, i)
	}
	got, err := a.TranslateRanks(ask, b)
	if err != nil {
		return errCode(err)
	}
	for k, i := range at {
		res[i] = C.int(got[k])
	}
	return 0
}

//export hympi_go_group_free
func hympi_go_group_free(h C.intptr_t) C.int {
	i := handleIndex(uintptr(h), kindGroup)
	if groups.get(i) == nil {
		return C.MPI_ERR_GROUP
	}
	groups.del(i)
	return 0
}
