// Package sidechan is the callgrind counting programs' way to wait for a
// peer outside MPI (bench/cg_pingpong, cg_msgrate, cg_coll): a file shared
// by the ranks holding one counter per rank, each on its own cache line,
// which a rank bumps after it has done its part so that the measured rank
// finds the message already there and counts no polling.
package sidechan

import (
	"os"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// lineSize keeps each rank's counter on a cache line of its own.
const lineSize = 64

// Counters maps path (created if need be) and returns n counters in it.
// The mapping lives as long as the process.
func Counters(path string, n int) ([]*atomic.Uint64, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := max(lineSize*n, os.Getpagesize())
	if err := f.Truncate(int64(size)); err != nil {
		return nil, err
	}
	m, err := unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	c := make([]*atomic.Uint64, n)
	for i := range c {
		c[i] = (*atomic.Uint64)(unsafe.Pointer(&m[lineSize*i]))
	}
	return c, nil
}
