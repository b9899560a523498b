package main

import (
	"errors"

	"github.com/hympi/hympi/mpi"
)

func init() {
	// Invalid arguments give the right error class, change nothing, and the
	// job carries on.
	register("errors", func(c *mpi.Comm) {
		n := c.Size()
		var nilComm *mpi.Comm
		buf := make([]byte, 4)
		cases := []struct {
			what string
			err  error
			want mpi.ErrorClass
		}{
			{"Send to rank Size", c.Send(buf, n, 0), mpi.ErrRank},
			{"Send to rank -5", c.Send(buf, -5, 0), mpi.ErrRank},
			{"Send with tag -1", c.Send(buf, 0, -1), mpi.ErrTag},
			{"Send with AnySource as destination", c.Send(buf, mpi.AnySource, 0), mpi.ErrRank},
			{"Ssend to rank Size", c.Ssend(buf, n, 0), mpi.ErrRank},
			{"Send on nil comm", nilComm.Send(buf, 0, 0), mpi.ErrComm},
			{"Recv on nil comm", second(nilComm.Recv(buf, 0, 0)), mpi.ErrComm},
			{"Recv from rank Size+1", second(c.Recv(buf, n+1, 0)), mpi.ErrRank},
			{"Recv with tag -7", second(c.Recv(buf, 0, -7)), mpi.ErrTag},
			{"Irecv from rank -3", second(c.Irecv(buf, -3, 0)), mpi.ErrRank},
			{"Isend with tag -2", second(c.Isend(buf, 0, -2)), mpi.ErrTag},
			{"Probe from rank Size", second(c.Probe(n, 0)), mpi.ErrRank},
			{"Iprobe with tag -9", third(c.Iprobe(0, -9)), mpi.ErrTag},
			{"Barrier on nil comm", nilComm.Barrier(), mpi.ErrComm},
			{"Sendrecv to bad rank", second(c.Sendrecv(buf, n, 0, buf, 0, 0)), mpi.ErrRank},
		}
		for _, tc := range cases {
			if tc.err == nil {
				fail("%s: no error, want %v", tc.what, tc.want)
			}
			if !errors.Is(tc.err, tc.want) {
				fail("%s: %v (class %d), want class %d", tc.what, tc.err, mpi.ClassOf(tc.err), tc.want)
			}
			var me *mpi.Error
			if !errors.As(tc.err, &me) || me.Op == "" {
				fail("%s: %v is not an *mpi.Error naming its operation", tc.what, tc.err)
			}
		}
		// Nothing was sent by the failed calls: the next message on tag 0
		// from the left neighbour is the real one.
		pingRing(c)
		if n > 1 {
			if _, found, err := c.Iprobe(mpi.AnySource, mpi.AnyTag); err != nil || found {
				fail("a failed call left a message behind (found=%v err=%v)", found, err)
			}
		}
	})
}

func second[T any](_ T, err error) error        { return err }
func third[A, B any](_ A, _ B, err error) error { return err }
