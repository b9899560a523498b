package main

import (
	"fmt"
	"os"
	"runtime/metrics"
	"time"
	"unsafe"

	"github.com/hympi/hympi/directcopy"
	"github.com/hympi/hympi/mpi"
	"golang.org/x/sys/unix"
)

// runBcast is the -bcast mode, run under hympirun -n 2: n broadcasts of
// size bytes from rank 0, each after a barrier, in a fresh job. Rank 1 (the
// rank that reads) prints per broadcast its time, its minor faults and how
// the message travelled (direct or eager, from rank 0's counters as seen
// by rank 1's receive: the receiver's own counters toward rank 0).
//
// warm is done by every rank after Init, before the first broadcast: "" for
// nothing, "spin" for 20 ms of busy work (a core and its clock brought up
// to speed), "read" for 200 process_vm_readv calls of size bytes from its
// own memory (the kernel path brought up to speed as well).
func runBcast(n, size int, warm string) error {
	if err := mpi.Init(); err != nil {
		return err
	}
	defer mpi.Finalize()
	w := mpi.World()
	buf := make([]byte, size)
	for i := range buf { // written, as OSU's buffers: no first-touch fault in the loop
		buf[i] = byte(i)
	}
	type rec struct {
		d      time.Duration
		faults int64
		gcs    uint64
	}
	gc := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	switch warm {
	case "spin":
		for t := time.Now(); time.Since(t) < 20*time.Millisecond; {
		}
	case "read":
		dst := make([]byte, size)
		copy(dst, buf)
		for range 200 {
			if err := directcopy.ReadFrom(os.Getpid(), dst, uintptr(unsafe.Pointer(&buf[0]))); err != nil {
				return err
			}
		}
	case "cost":
		directcopy.ReadCost()
	case "":
	default:
		return fmt.Errorf("-warm %q: want spin or read", warm)
	}
	recs := make([]rec, n)
	var ru unix.Rusage
	for i := range n {
		if err := w.Barrier(); err != nil {
			return err
		}
		_ = unix.Getrusage(unix.RUSAGE_SELF, &ru)
		f0 := ru.Minflt
		metrics.Read(gc)
		g0 := gc[0].Value.Uint64()
		t := time.Now()
		if err := w.Bcast(buf, 0); err != nil {
			return err
		}
		d := time.Since(t)
		_ = unix.Getrusage(unix.RUSAGE_SELF, &ru)
		metrics.Read(gc)
		recs[i] = rec{d, ru.Minflt - f0, gc[0].Value.Uint64() - g0}
	}
	if w.Rank() == 1 {
		for _, r := range recs {
			fmt.Printf("%.2f %d %d\n", float64(r.d)/1e3, r.faults, r.gcs)
		}
		pc := mpi.Counters(0)
		fmt.Fprintf(os.Stderr, "rank 1 from rank 0: %+v\n", pc)
	}
	return nil
}
