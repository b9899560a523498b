//go:build !ompi && !mpich

package mpi

import (
	"bytes"
	"fmt"
	"testing"
)

// Bad arguments to Alltoallw and the neighbourhood collectives fail on
// every rank with the right class in every form, before anything is sent
// and without touching the buffers; a correct exchange right after shows
// nothing was left in flight.
func TestWFormsBadArgs(t *testing.T) {
	const n, m = 2, 8
	type args struct {
		send, recv     []byte
		sc, sd, rc, rd []int
		st, rt         []Datatype
		nb             *Neighbors
	}
	good := func(c *Comm) args {
		a := args{send: make([]byte, n*m), recv: make([]byte, n*m),
			sc: []int{m, m}, sd: []int{0, m}, rc: []int{m, m}, rd: []int{0, m},
			st: []Datatype{Byte, Byte}, rt: []Datatype{Byte, Byte},
			nb: CartNeighbors([]int{n}, []bool{true}, c.Rank())}
		fill(a.send, c.Rank())
		return a
	}
	// Each case breaks a correct argument list, for one collective.
	type coll int
	const (
		alltoallw coll = iota
		nbrAllgather
		nbrAllgatherv
		nbrAlltoall
		nbrAlltoallw
	)
	cases := []struct {
		name  string
		coll  coll
		spoil func(a *args)
		class ErrorClass
	}{
		{"alltoallw: one datatype short", alltoallw, func(a *args) { a.st = a.st[:1] }, ErrCount},
		{"alltoallw: invalid receive datatype", alltoallw, func(a *args) { a.rt = []Datatype{Byte, Datatype(-3)} }, ErrType},
		{"alltoallw: negative count", alltoallw, func(a *args) { a.sc = []int{m, -1} }, ErrCount},
		{"alltoallw: count overflows", alltoallw, func(a *args) { a.sc, a.st = []int{m, 1 << 62}, []Datatype{Byte, Int64} }, ErrCount},
		{"alltoallw: block past the buffer", alltoallw, func(a *args) { a.st = []Datatype{Byte, Int16} }, ErrBuffer},
		{"alltoallw: own block disagrees", alltoallw, func(a *args) { a.rc = []int{m / 2, m / 2} }, ErrCount},
		{"neighbor allgather: no neighbourhood", nbrAllgather, func(a *args) { a.nb = nil }, ErrArg},
		{"neighbor allgather: receive buffer short", nbrAllgather, func(a *args) { a.recv = a.recv[:m] }, ErrBuffer},
		{"neighbor allgather: neighbour out of range", nbrAllgather, func(a *args) { a.nb = &Neighbors{Sources: []int{n}, Destinations: []int{0}} }, ErrRank},
		{"neighbor allgatherv: counts for one source", nbrAllgatherv, func(a *args) { a.rc, a.rd = a.rc[:1], a.rd[:1] }, ErrCount},
		{"neighbor alltoall: uneven blocks", nbrAlltoall, func(a *args) { a.send = a.send[:n*m-1] }, ErrCount},
		{"neighbor alltoall: receive buffer short", nbrAlltoall, func(a *args) { a.recv = a.recv[:m] }, ErrBuffer},
		{"neighbor alltoallw: invalid send datatype", nbrAlltoallw, func(a *args) { a.st = []Datatype{Byte, datatypeCount} }, ErrType},
		{"neighbor alltoallw: block past the buffer", nbrAlltoallw, func(a *args) { a.rd = []int{0, 2 * m} }, ErrBuffer},
		{"neighbor alltoallw: no neighbourhood", nbrAlltoallw, func(a *args) { a.nb = nil }, ErrArg},
	}
	call := func(c *Comm, k coll, form string, a args) error {
		var req *Request
		var per *Persistent
		var err error
		switch {
		case k == alltoallw && form == "blocking":
			return c.Alltoallw(a.send, a.sc, a.sd, a.st, a.recv, a.rc, a.rd, a.rt)
		case k == alltoallw && form == "nonblocking":
			req, err = c.Ialltoallw(a.send, a.sc, a.sd, a.st, a.recv, a.rc, a.rd, a.rt)
		case k == alltoallw:
			per, err = c.AlltoallwInit(a.send, a.sc, a.sd, a.st, a.recv, a.rc, a.rd, a.rt)
		case k == nbrAllgather && form == "blocking":
			return c.NeighborAllgather(a.nb, a.send[:m], a.recv)
		case k == nbrAllgather && form == "nonblocking":
			req, err = c.IneighborAllgather(a.nb, a.send[:m], a.recv)
		case k == nbrAllgather:
			per, err = c.NeighborAllgatherInit(a.nb, a.send[:m], a.recv)
		case k == nbrAllgatherv && form == "blocking":
			return c.NeighborAllgatherv(a.nb, a.send[:m], a.recv, a.rc, a.rd)
		case k == nbrAllgatherv && form == "nonblocking":
			req, err = c.IneighborAllgatherv(a.nb, a.send[:m], a.recv, a.rc, a.rd)
		case k == nbrAllgatherv:
			per, err = c.NeighborAllgathervInit(a.nb, a.send[:m], a.recv, a.rc, a.rd)
		case k == nbrAlltoall && form == "blocking":
			return c.NeighborAlltoall(a.nb, a.send, a.recv)
		case k == nbrAlltoall && form == "nonblocking":
			req, err = c.IneighborAlltoall(a.nb, a.send, a.recv)
		case k == nbrAlltoall:
			per, err = c.NeighborAlltoallInit(a.nb, a.send, a.recv)
		case form == "blocking":
			return c.NeighborAlltoallw(a.nb, a.send, a.sc, a.sd, a.st, a.recv, a.rc, a.rd, a.rt)
		case form == "nonblocking":
			req, err = c.IneighborAlltoallw(a.nb, a.send, a.sc, a.sd, a.st, a.recv, a.rc, a.rd, a.rt)
		default:
			per, err = c.NeighborAlltoallwInit(a.nb, a.send, a.sc, a.sd, a.st, a.recv, a.rc, a.rd, a.rt)
		}
		if err == nil && req != nil {
			_, err = req.Wait()
		}
		if err == nil && per != nil {
			if _, err = per.Start(); err == nil {
				_, err = per.Wait()
			}
			if ferr := per.Free(); err == nil {
				err = ferr
			}
		}
		return err
	}
	comms := inProcessJob(t, n)
	for _, tc := range cases {
		for _, form := range []string{"blocking", "nonblocking", "persistent"} {
			t.Run(fmt.Sprintf("%s/%s", tc.name, form), func(t *testing.T) {
				runRanks(t, comms, func(c *Comm) error {
					a := good(c)
					tc.spoil(&a)
					send := bytes.Clone(a.send)
					if err := call(c, tc.coll, form, a); ClassOf(err) != tc.class {
						return fmt.Errorf("got %v (class %v), want class %v", err, ClassOf(err), tc.class)
					}
					if !bytes.Equal(a.send, send) || bytes.Count(a.recv, []byte{0}) != len(a.recv) {
						return fmt.Errorf("buffers touched by a refused call")
					}
					// The same collective, correct, right after.
					b := good(c)
					if err := call(c, tc.coll, form, b); err != nil {
						return fmt.Errorf("correct call after the refused one: %v", err)
					}
					return nil
				})
			})
		}
	}
}

// neighborBlock: the block size from the send side, or from the receive
// side at a rank that sends to no one; uneven or short buffers refused.
func TestNeighborBlock(t *testing.T) {
	two := []int{0, 1}
	cases := []struct {
		name       string
		nb         *Neighbors
		send, recv int
		want       int
		class      ErrorClass
	}{
		{"even", &Neighbors{Sources: two, Destinations: two}, 16, 16, 8, Success},
		{"more sources than destinations", &Neighbors{Sources: []int{0, 1, 1}, Destinations: two}, 8, 12, 4, Success},
		{"receive only", &Neighbors{Sources: two}, 0, 10, 5, Success},
		{"send only", &Neighbors{Destinations: two}, 6, 0, 3, Success},
		{"no neighbours", &Neighbors{}, 0, 0, 0, Success},
		{"uneven send", &Neighbors{Sources: two, Destinations: two}, 15, 16, 0, ErrCount},
		{"short receive", &Neighbors{Sources: two, Destinations: two}, 16, 15, 0, ErrBuffer},
		{"nil", nil, 8, 8, 0, ErrArg},
	}
	for _, tc := range cases {
		m, err := neighborBlock("test", tc.nb, make([]byte, tc.send), make([]byte, tc.recv))
		if ClassOf(err) != tc.class || (err == nil && m != tc.want) {
			t.Errorf("%s: %d, %v; want %d, class %v", tc.name, m, err, tc.want, tc.class)
		}
	}
}
