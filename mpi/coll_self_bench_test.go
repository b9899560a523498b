//go:build !ompi && !mpich

package mpi

import "testing"

// BenchmarkCollSelf runs collectives on a one-rank job: no peer to wait
// for, so it measures the software path of a call (argument checks,
// building the schedule, starting and finishing it) without the
// scheduling noise of a shared machine.
func BenchmarkCollSelf(b *testing.B) {
	c := inProcessJob(b, 1)[0]
	in, out := make([]byte, 8), make([]byte, 8)
	b.Run("Barrier", func(b *testing.B) {
		for range b.N {
			if err := c.Barrier(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Allreduce/8", func(b *testing.B) {
		for range b.N {
			if err := c.Allreduce(in, out, Float64, Sum); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Bcast/8", func(b *testing.B) {
		for range b.N {
			if err := c.Bcast(in, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
}
