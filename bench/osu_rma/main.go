// Command osu_rma is bench/c/osu_rma.c for hympi's Go API: one-sided
// latency and bandwidth between rank 0 (origin) and rank 1 (target) on a
// window from WinAllocate, with the same tests and output lines
// ("test size value": µs, or MB/s for the _bw tests), so
// bench/compare_rma.sh puts it beside the C library and the other MPIs.
//
// Usage: hympirun -n 2 bin/osu_rma [-i ITERS] [TEST]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/hympi/hympi/mpi"
)

const (
	maxSize = 4 << 20
	window  = 64
	warmup  = 200
)

var iters = flag.Int("i", 2000, "iterations of the latency loops")

func itersFor(size int) int {
	n := *iters
	if size > 65536 {
		n /= 10
	}
	return max(n, 20)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "osu_rma:", err)
		os.Exit(1)
	}
}

func main() {
	flag.Parse()
	which := flag.Arg(0)
	want := func(name string) bool { return which == "" || which == "all" || which == name }
	check(mpi.Init())
	c := mpi.World()
	rank := c.Rank()
	w, err := c.WinAllocate(maxSize, 1)
	check(err)
	buf := make([]byte, maxSize)
	report := func(name string, size int, v float64) {
		if rank == 0 {
			fmt.Printf("%s %d %.3f\n", name, size, v)
		}
		check(c.Barrier())
	}
	lat := func(name string, size int, get, fence bool) {
		n := itersFor(size)
		var t0 float64
		if fence {
			check(w.Fence(0))
		} else {
			check(w.LockAll(0))
		}
		for i := range n + warmup {
			if i == warmup {
				t0 = mpi.Wtime()
			}
			if rank == 0 {
				if get {
					check(w.Get(buf[:size], 1, 0))
				} else {
					check(w.Put(buf[:size], 1, 0))
				}
				if !fence {
					check(w.Flush(1))
				}
			}
			if fence {
				check(w.Fence(0))
			}
		}
		t := mpi.Wtime() - t0
		if !fence {
			check(w.UnlockAll())
		}
		report(name, size, t*1e6/float64(n))
	}
	for _, size := range []int{8, 64, 1024, 8192, 65536} {
		for _, tc := range []struct {
			name       string
			get, fence bool
		}{{"put_lat", false, false}, {"get_lat", true, false}, {"put_fence", false, true}, {"get_fence", true, true}} {
			if want(tc.name) {
				lat(tc.name, size, tc.get, tc.fence)
			}
		}
	}
	check(w.Fence(mpi.ModeNoSucceed))
	for _, size := range []int{65536, 1 << 20, 4 << 20} {
		for _, get := range []bool{false, true} {
			name := map[bool]string{false: "put_bw", true: "get_bw"}[get]
			if !want(name) {
				continue
			}
			n := itersFor(size)/window + 5
			var t0 float64
			check(w.LockAll(0))
			for i := range n + 2 {
				if i == 2 {
					t0 = mpi.Wtime()
				}
				if rank == 0 {
					for range window {
						if get {
							check(w.Get(buf[:size], 1, 0))
						} else {
							check(w.Put(buf[:size], 1, 0))
						}
					}
					check(w.Flush(1))
				}
			}
			t := mpi.Wtime() - t0
			check(w.UnlockAll())
			report(name, size, float64(size*window*n)/t/1e6)
		}
	}
	atomic := func(name string, size int, op func() error) {
		if !want(name) {
			return
		}
		n := itersFor(size)
		var t0 float64
		check(w.LockAll(0))
		for i := range n + warmup {
			if i == warmup {
				t0 = mpi.Wtime()
			}
			if rank == 0 {
				check(op())
				check(w.Flush(1))
			}
		}
		t := mpi.Wtime() - t0
		check(w.UnlockAll())
		report(name, size, t*1e6/float64(n))
	}
	d8, d8k := make([]float64, 1), make([]float64, 1024)
	r8 := make([]float64, 1)
	atomic("acc_lat", 8, func() error { return mpi.Accumulate(w, d8, mpi.Sum, 1, 0) })
	atomic("acc_lat", 8192, func() error { return mpi.Accumulate(w, d8k, mpi.Sum, 1, 0) })
	atomic("gacc_lat", 8, func() error { return mpi.GetAccumulate(w, d8, r8, mpi.Sum, 1, 0) })
	atomic("fop_lat", 8, func() error { _, err := mpi.FetchAndOp(w, int64(1), mpi.Sum, 1, 0); return err })
	atomic("cas_lat", 8, func() error { _, err := mpi.CompareAndSwap(w, int64(1), 0, 1, 0); return err })
	check(w.Free())
	check(mpi.Finalize())
}
