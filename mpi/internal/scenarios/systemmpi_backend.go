//go:build ompi || mpich

package main

import (
	"errors"
	"fmt"
	"sync"

	"github.com/hympi/hympi/internal/cabi"
	"github.com/hympi/hympi/mpi"
)

const systemMPI = true

func init() {
	// What only a system-MPI backend does: the hympi-only calls answer as
	// documented, and goroutines share MPI (MPI_THREAD_MULTIPLE) with
	// nonblocking buffers pinned while the garbage collector runs.
	register("backend", func(c *mpi.Comm) {
		r, n := c.Rank(), c.Size()
		if pc := mpi.Counters((r + 1) % n); pc.Relation != "unknown" || pc.EagerMsgs != 0 {
			fail("Counters: %+v, want zeros and relation unknown", pc)
		}
		if _, err := cabi.Calibrate(0, 1, []int{8}); !errors.Is(err, mpi.ErrOther) {
			fail("Calibrate: %v, want ErrOther", err)
		}
		if a := mpi.AppNum(); a != 0 {
			fail("AppNum %d in a one-program job", a)
		}
		const workers, rounds = 4, 200
		comms := make([]*mpi.Comm, workers)
		for w := range comms {
			d, err := c.Dup()
			must(err, "Dup")
			comms[w] = d
		}
		var wg sync.WaitGroup
		errs := make(chan error, workers)
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				d := comms[w]
				next, prev := (r+1)%n, (r-1+n)%n
				for i := range rounds {
					out := make([]byte, 1000+w)
					pattern(out, r*1000+w*100+i)
					in := make([]byte, len(out))
					rq, err := d.Irecv(in, prev, i)
					if err == nil {
						var sq *mpi.Request
						if sq, err = d.Isend(out, next, i); err == nil {
							_, err = mpi.Waitall([]*mpi.Request{rq, sq})
						}
					}
					if err != nil {
						errs <- fmt.Errorf("worker %d round %d: %w", w, i, err)
						return
					}
					want := make([]byte, len(in))
					pattern(want, prev*1000+w*100+i)
					if string(in) != string(want) {
						errs <- fmt.Errorf("worker %d round %d: wrong payload", w, i)
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			fail("%v", err)
		}
		for _, d := range comms {
			must(d.Free(), "Free")
		}
	})
}
