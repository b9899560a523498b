//go:build ompi || mpich

package main

import (
	"time"

	"github.com/hympi/hympi/internal/cabi"
	"github.com/hympi/hympi/mpi"
)

func init() {
	// The backend's requests without an MPI handle of their own (join
	// requests, and so Isendrecv), send cancellation through MPI_Cancel,
	// and bad input to the calls it added, around a ring.
	register("backendreq", func(c *mpi.Comm) {
		r, n := c.Rank(), c.Size()
		right, left := (r+1)%n, (r+n-1)%n

		// A join stays incomplete while held, even once its children are.
		in := make([]byte, 64)
		rq, err := c.Irecv(in, left, 20)
		must(err, "Irecv")
		sq, err := c.Isend(make([]byte, 40), right, 20)
		must(err, "Isend")
		j := cabi.NewJoin()
		cabi.Follow(j, rq)
		cabi.Follow(j, sq)
		for range 20 {
			if _, done, err := j.Test(); done || err != nil {
				fail("held join: done %v, %v", done, err)
			}
		}
		cabi.Release(j)
		i, st, err := mpi.Waitany([]*mpi.Request{nil, j})
		must(err, "Waitany on a join")
		if i != 1 || st.Source != left || st.Tag != 20 || st.Count != 40 {
			fail("Waitany on a join: index %d status %+v", i, st)
		}
		if _, _, err := j.Test(); mpi.ClassOf(err) != mpi.ErrRequest {
			fail("Test of a spent join: %v", err)
		}

		// Released by another goroutine while Wait blocks; Waitall mixes
		// it with a plain request.
		held := cabi.NewJoin()
		go func() {
			time.Sleep(20 * time.Millisecond)
			cabi.Release(held)
		}()
		rq, err = c.Irecv(in, mpi.AnySource, 21)
		must(err, "Irecv")
		sr, err := c.Isendrecv([]byte{byte(r)}, right, 21, make([]byte, 1), mpi.ProcNull, 0)
		must(err, "Isendrecv")
		sts, err := mpi.Waitall([]*mpi.Request{held, rq, sr})
		must(err, "Waitall with joins")
		if sts[1].Source != left || sts[1].Count != 1 || in[0] != byte(left) {
			fail("Waitall with joins: %+v, byte %d", sts[1], in[0])
		}
		if sts[2].Source != mpi.ProcNull {
			fail("Isendrecv from ProcNull: %+v", sts[2])
		}

		// Cancel an unmatched synchronous send. Whether the MPI takes it
		// back is its choice (Open MPI never does); either way the send
		// completes, and a cancelled send is never received.
		sq, err = c.Issend(make([]byte, 8), right, 30)
		must(err, "Issend")
		now := cabi.CancelSend(sq)
		must(c.Send(nil, right, 31), "Send marker")
		_, err = c.Recv(nil, left, 31)
		must(err, "Recv marker")
		rq, err = c.Irecv(make([]byte, 8), left, 30)
		must(err, "Irecv")
		st, err = sq.Wait()
		must(err, "Wait cancelled send")
		if now && !st.Cancelled {
			fail("CancelSend said yes, status %+v", st)
		}
		flag := []byte{0}
		if st.Cancelled {
			flag[0] = 1
		}
		must(c.Send(flag, right, 32), "Send flag")
		_, err = c.Recv(flag, left, 32)
		must(err, "Recv flag")
		if flag[0] == 1 {
			if !cabi.CancelRecv(rq) {
				fail("a cancelled send was received")
			}
		} else if st, err := rq.Wait(); err != nil || st.Count != 8 || st.Cancelled {
			fail("send not cancelled, receive: %+v %v", st, err)
		}
		if cabi.CancelSend(sq) {
			fail("CancelSend of a spent request")
		}

		// Bad input: the right class, nothing created, no MPI call.
		if _, err := c.Merge(false); mpi.ClassOf(err) != mpi.ErrComm {
			fail("Merge of an intracommunicator: %v", err)
		}
		if _, err := c.IntercommCreate(n, c, 0, 0); mpi.ClassOf(err) != mpi.ErrRank {
			fail("IntercommCreate with leader %d: %v", n, err)
		}
		if _, err := mpi.IntercommFromGroups(nil, 0, c.Group(), 0, 1); mpi.ClassOf(err) != mpi.ErrGroup {
			fail("IntercommFromGroups(nil): %v", err)
		}
		var m *mpi.Message
		if _, err := m.Recv(nil); mpi.ClassOf(err) != mpi.ErrRequest {
			fail("Recv of a nil message: %v", err)
		}
		if _, _, err := c.Mprobe(n, 0); mpi.ClassOf(err) != mpi.ErrRank {
			fail("Mprobe of rank %d: %v", n, err)
		}
		if c.IsInter() || c.RemoteSize() != 0 || c.RemoteGroup() != nil {
			fail("World looks like an intercommunicator")
		}
		cabi.Follow(j, nil)
		must(c.Barrier(), "Barrier")
	})
}
