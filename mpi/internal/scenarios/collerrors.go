package main

import (
	"errors"

	"github.com/hympi/hympi/mpi"
)

func init() {
	// Bad roots, counts, buffers, datatypes and operators give the right
	// error class before anything is sent, and a correct collective runs
	// afterwards.
	register("collerrors", func(c *mpi.Comm) {
		n := c.Size()
		b8 := make([]byte, 8)
		b7 := make([]byte, 7)
		opaque, err := mpi.OpaqueType(16)
		must(err, "OpaqueType")
		user, err := mpi.NewOp(func(in, inout []byte, dt mpi.Datatype) {}, true)
		must(err, "NewOp")
		must(user.Free(), "Op.Free")
		var nilComm *mpi.Comm
		counts := make([]int, n)
		displs := make([]int, n)
		neg := make([]int, n)
		neg[0] = -1
		far := make([]int, n)
		far[n-1] = 100
		cases := []struct {
			what string
			err  error
			want mpi.ErrorClass
		}{
			{"Bcast root -1", c.Bcast(b8, -1), mpi.ErrRoot},
			{"Bcast root n", c.Bcast(b8, n), mpi.ErrRoot},
			{"Ibcast root n", second(c.Ibcast(b8, n)), mpi.ErrRoot},
			{"Reduce root n", c.Reduce(b8, b8, mpi.Int64, mpi.Sum, n), mpi.ErrRoot},
			{"Gather root -2", c.Gather(b8, b8, -2), mpi.ErrRoot},
			{"Scatterv root n", c.Scatterv(b8, counts, displs, b8, n), mpi.ErrRoot},
			{"Allreduce 7 bytes of Int64", c.Allreduce(b7, b7, mpi.Int64, mpi.Sum), mpi.ErrCount},
			{"Allreduce short recv", c.Allreduce(b8, b7, mpi.Uint8, mpi.Sum), mpi.ErrBuffer},
			{"Allreduce bad datatype", c.Allreduce(b8, b8, mpi.Datatype(99), mpi.Sum), mpi.ErrType},
			{"Allreduce bad op", c.Allreduce(b8, b8, mpi.Int64, mpi.Op(99)), mpi.ErrOp},
			{"Allreduce Band on Float64", c.Allreduce(b8, b8, mpi.Float64, mpi.Band), mpi.ErrOp},
			{"Allreduce Lor on Float32", c.Allreduce(b8, b8, mpi.Float32, mpi.Lor), mpi.ErrOp},
			{"Allreduce Sum on Byte", c.Allreduce(b8, b8, mpi.Byte, mpi.Sum), mpi.ErrOp},
			{"Allreduce Sum on opaque", c.Allreduce(make([]byte, 16), make([]byte, 16), opaque, mpi.Sum), mpi.ErrOp},
			{"Allreduce freed user op", c.Allreduce(b8, b8, mpi.Int64, user), mpi.ErrOp},
			{"Iallreduce bad op", second(c.Iallreduce(b8, b8, mpi.Int64, mpi.Op(-1))), mpi.ErrOp},
			{"Scan bad type", c.Scan(b8, b8, mpi.Datatype(-3), mpi.Sum), mpi.ErrType},
			{"Exscan 7 bytes of Int32", c.Exscan(b7, b8, mpi.Int32, mpi.Sum), mpi.ErrCount},
			{"ReduceScatterBlock send size", c.ReduceScatterBlock(make([]byte, 8*n+1), b8, mpi.Int64, mpi.Sum), mpi.ErrCount},
			{"ReduceScatter counts length", c.ReduceScatter(b8, b8, []int{8, 8, 8, 8, 8, 8, 8, 8, 8}, mpi.Int64, mpi.Sum), mpi.ErrCount},
			{"ReduceScatter negative count", c.ReduceScatter(b8, b8, neg, mpi.Int64, mpi.Sum), mpi.ErrCount},
			{"Gatherv negative count", c.Gatherv(nil, b8, neg, displs, c.Rank()), mpi.ErrCount},
			{"Allgatherv block outside", c.Allgatherv(nil, b8, counts, far), mpi.ErrBuffer},
			{"Allgatherv counts length", c.Allgatherv(nil, b8, counts[1:], displs), mpi.ErrCount},
			{"Alltoall not divisible", c.Alltoall(make([]byte, n+1), make([]byte, n+1)), alltoallClass(n)},
			{"Allgather short recv", c.Allgather(b8, b7), mpi.ErrBuffer},
			{"Barrier on nil comm", nilComm.Barrier(), mpi.ErrComm},
			{"Allreduce on nil comm", nilComm.Allreduce(b8, b8, mpi.Int64, mpi.Sum), mpi.ErrComm},
			{"Split negative color", second(c.Split(-5, 0)), mpi.ErrArg},
			{"Create nil group", second(c.Create(nil)), mpi.ErrGroup},
			{"CreateGroup negative tag", second(c.CreateGroup(c.Group(), -1)), mpi.ErrTag},
			{"Free predefined op", mpi.Sum.Free(), mpi.ErrOp},
			{"Free freed op", user.Free(), mpi.ErrOp},
			{"OpaqueType size 0", second(mpi.OpaqueType(0)), mpi.ErrType},
			{"ReduceLocal Band on Float64", mpi.ReduceLocal(b8, b8, mpi.Float64, mpi.Band), mpi.ErrOp},
			{"ReduceLocal lengths", mpi.ReduceLocal(b8, b7, mpi.Uint8, mpi.Sum), mpi.ErrCount},
		}
		for _, tc := range cases {
			if tc.want == mpi.Success {
				continue
			}
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
		// Nothing was sent: the next collectives and messages are intact.
		out := make([]int64, 1)
		must(mpi.AllreduceSlice(c, []int64{2}, out, mpi.Sum), "Allreduce after errors")
		if out[0] != int64(2*n) {
			fail("Allreduce after errors: %d", out[0])
		}
		buf := make([]byte, 100)
		if c.Rank() == n-1 {
			pattern(buf, 3)
		}
		must(c.Bcast(buf, n-1), "Bcast after errors")
		checkPattern(buf, 3, "Bcast after errors")
		pingRing(c)
	})
}

// With one rank every length splits into one block.
func alltoallClass(n int) mpi.ErrorClass {
	if n == 1 {
		return mpi.Success
	}
	return mpi.ErrCount
}
