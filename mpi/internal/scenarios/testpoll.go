package main

import (
	"github.com/hympi/hympi/mpi"
)

func init() {
	// Nonblocking collectives completed by Test alone, as a program that
	// computes and tests now and then does. Every rank counts the Test
	// calls each collective needs. On a job with more ranks than CPUs a
	// Test that finds nothing to do must let the peers it waits for run
	// (mpi/request.go, pollIdle); when it did not, a rank polled through
	// its whole time slice, tens of thousands of Tests, before a peer got
	// the CPU. The bound is a count, not a time: far above what a yielding
	// Test needs even on a loaded machine, far below a time slice of
	// polling.
	register("testpoll", func(w *mpi.Comm) {
		const runs, bound = 8, 5000
		n := w.Size()
		send, recv := make([]byte, 4096*n), make([]byte, 4096*n)
		most := 0
		for i := range runs {
			for j := range send {
				send[j] = byte(w.Rank() + j + i)
			}
			must(w.Barrier(), "Barrier")
			var rq *mpi.Request
			var err error
			if i%2 == 0 {
				rq, err = w.Iallreduce(send[:4096], recv[:4096], mpi.Uint8, mpi.Max)
			} else {
				rq, err = w.Ialltoall(send, recv)
			}
			must(err, "start %d", i)
			tests := 0
			for {
				tests++
				_, done, err := rq.Test()
				must(err, "Test")
				if done {
					break
				}
				if tests > 100*bound {
					_, err := rq.Wait()
					must(err, "Wait")
					break
				}
			}
			most = max(most, tests)
			if i%2 == 1 {
				for p := range n {
					if got, want := recv[p*4096+7], byte(p+w.Rank()*4096+7+i); got != want {
						fail("Ialltoall run %d: byte 7 from %d is %d, want %d", i, p, got, want)
					}
				}
			} else if want := byte(n - 1 + 7 + i); recv[7] != want && n < 200 {
				fail("Iallreduce run %d: byte 7 is %d, want %d", i, recv[7], want)
			}
		}
		if most > bound {
			fail("a collective took %d Test calls to complete (bound %d)", most, bound)
		}
	})
}
