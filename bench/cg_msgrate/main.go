// Command cg_msgrate is osu_bw's window for counting instructions, not for
// timing: bench/callgrind_msgrate.sh runs it under valgrind
// --tool=callgrind in each of two ranks. Rank 0 starts a window of Isends
// and waits for them; rank 1 posts a window of Irecvs and waits for them,
// then acknowledges with a 4-byte Send. As in cg_pingpong, every wait that
// depends on the peer happens outside hympi, in awaitPeer, on counters in
// a shared file: rank 1 calls Waitall only once rank 0's whole window is
// published, and rank 0 calls Recv only once the acknowledgement is, so no
// count includes polling, whose amount depends on scheduling.
//
// Usage:
//
//	hympirun -n 2 cg_msgrate -flags FILE [-i ITERS] [-m SIZE] [-w WINDOW] [-in]
//
// -in uses the recycling entry points the C ABI uses (IsendIn, IrecvIn,
// WaitallInto) instead of Isend, Irecv and Waitall.
package main

import (
	"flag"
	"fmt"
	"os"
	"sync/atomic"

	"github.com/hympi/hympi/bench/internal/sidechan"
	"github.com/hympi/hympi/internal/cabi"
	"github.com/hympi/hympi/mpi"
)

func main() {
	iters := flag.Int("i", 50, "windows")
	size := flag.Int("m", 8, "message size in bytes")
	window := flag.Int("w", 64, "messages per window")
	in := flag.Bool("in", false, "use IsendIn, IrecvIn and WaitallInto")
	path := flag.String("flags", "", "file shared by the two ranks for the side channel")
	flag.Parse()
	if err := run(*iters, *size, *window, *in, *path); err != nil {
		fmt.Fprintln(os.Stderr, "cg_msgrate:", err)
		os.Exit(1)
	}
}

// awaitPeer spins until the peer's counter reaches n; the script leaves it
// out of the count by name. Its loop stays away from its first instruction
// (see cg_pingpong).
//
//go:noinline
func awaitPeer(c *atomic.Uint64, n uint64) {
	if c.Load() >= n {
		return
	}
	for c.Load() < n {
		spins++
	}
}

var spins uint64

// ops is one window's calls, through either set of entry points; the
// script counts these functions by name.
type ops struct {
	c    *mpi.Comm
	in   bool
	reqs []*mpi.Request
	sts  []mpi.Status
	errs []error
}

func (o *ops) sendWindow(bufs [][]byte) error {
	for j := range o.reqs {
		var err error
		if o.in {
			o.reqs[j], err = cabi.IsendIn(o.c, o.reqs[j], bufs[j], 1, 1)
		} else {
			o.reqs[j], err = o.c.Isend(bufs[j], 1, 1)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (o *ops) postWindow(bufs [][]byte) error {
	for j := range o.reqs {
		var err error
		if o.in {
			o.reqs[j], err = cabi.IrecvIn(o.c, o.reqs[j], bufs[j], 0, 1)
		} else {
			o.reqs[j], err = o.c.Irecv(bufs[j], 0, 1)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (o *ops) wait() error {
	if o.in {
		if err := cabi.WaitallInto(o.reqs, o.sts, o.errs); err != nil {
			return err
		}
		for _, err := range o.errs {
			if err != nil {
				return err
			}
		}
		return nil
	}
	_, err := mpi.Waitall(o.reqs)
	return err
}

func run(iters, size, window int, in bool, path string) error {
	if path == "" || window < 1 {
		return fmt.Errorf("-flags FILE is required, and -w must be positive")
	}
	if err := mpi.Init(); err != nil {
		return err
	}
	c := mpi.World()
	if c.Size() != 2 {
		return fmt.Errorf("needs 2 ranks, got %d", c.Size())
	}
	cnt, err := sidechan.Counters(path, 2)
	if err != nil {
		return err
	}
	if err := c.Barrier(); err != nil {
		return err
	}
	me := c.Rank()
	bufs := make([][]byte, window)
	for j := range bufs {
		bufs[j] = make([]byte, size)
	}
	ack := make([]byte, 4)
	o := &ops{c: c, in: in, reqs: make([]*mpi.Request, window), sts: make([]mpi.Status, window), errs: make([]error, window)}
	for i := uint64(1); i <= uint64(iters); i++ {
		if me == 0 {
			if err := o.sendWindow(bufs); err != nil {
				return err
			}
			if err := o.wait(); err != nil {
				return err
			}
			cnt[0].Add(1)
			awaitPeer(cnt[1], i)
			if _, err := c.Recv(ack, 1, 2); err != nil {
				return err
			}
			continue
		}
		if err := o.postWindow(bufs); err != nil {
			return err
		}
		awaitPeer(cnt[0], i)
		if err := o.wait(); err != nil {
			return err
		}
		if err := c.Send(ack, 0, 2); err != nil {
			return err
		}
		cnt[1].Add(1)
	}
	return mpi.Finalize()
}
