// Command scale is the rank program of the many-rank tests and of the
// memory/start-up table (bench/scale.sh): `hympirun -n N scale PATTERN...`
// runs each pattern in turn on every rank, checks its result, and rank 0
// prints one line of figures:
//
//	scale n=N init_ms=… finalize_ms=… region_used=… channels=… patterns=…
//
// init_ms is the slowest rank's Init, finalize_ms rank 0's Finalize,
// region_used the bytes of the job's shared region that the file system
// holds (its allocated blocks, found through the launcher's descriptor):
// the memory the job's pairs actually cost; channels is how many channels
// the region has made. Both are taken once every rank has finished the
// patterns and the allreduce after them, so the count does not depend on
// timing.
//
// Patterns: hello (nothing), barrier, allreduce (8 bytes, sum of ranks),
// ring (each rank sends to rank+1 and receives from rank-1), pairs (every
// rank exchanges with a few pseudo-random partners) and allpairs (every
// ordered pair exchanges one message).
package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/hympi/hympi/mpi"
	"github.com/hympi/hympi/shm"
)

func main() {
	t0 := time.Now()
	if err := mpi.Init(); err != nil {
		fmt.Fprintln(os.Stderr, "Init:", err)
		os.Exit(1)
	}
	initDur := time.Since(t0)
	w := mpi.World()
	rank, size := w.Rank(), w.Size()
	for _, p := range os.Args[1:] {
		run(w, p)
	}
	var worst [8]byte
	binary.LittleEndian.PutUint64(worst[:], uint64(initDur))
	var out [8]byte
	check(w.Allreduce(worst[:], out[:], mpi.Uint64, mpi.Max), "Allreduce of Init times")
	// Every rank has finished the allreduce (and so made its channels)
	// once rank 0 is out of this barrier, whose own pairs are Init's.
	check(w.Barrier(), "Barrier")
	used, chans := int64(-1), -1
	if rank == 0 {
		used, chans = regionUsed()
	}
	t1 := time.Now()
	if err := mpi.Finalize(); err != nil {
		fmt.Fprintln(os.Stderr, "Finalize:", err)
		os.Exit(1)
	}
	if rank == 0 {
		fmt.Printf("scale n=%d init_ms=%.1f finalize_ms=%.1f region_used=%d channels=%d patterns=%s\n", size,
			float64(binary.LittleEndian.Uint64(out[:]))/1e6, float64(time.Since(t1))/1e6, used, chans,
			strings.Join(os.Args[1:], ","))
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "rank %d: FAIL: %s\n", mpi.World().Rank(), fmt.Sprintf(format, args...))
	os.Exit(1)
}

func check(err error, what string) {
	if err != nil {
		fail("%s: %v", what, err)
	}
}

func run(w *mpi.Comm, pattern string) {
	rank, size := w.Rank(), w.Size()
	switch pattern {
	case "hello":
	case "barrier":
		for i := 0; i < 3; i++ {
			check(w.Barrier(), "Barrier")
		}
	case "allreduce":
		var in, out [8]byte
		binary.LittleEndian.PutUint64(in[:], uint64(rank))
		check(w.Allreduce(in[:], out[:], mpi.Uint64, mpi.Sum), "Allreduce")
		if got, want := binary.LittleEndian.Uint64(out[:]), uint64(size*(size-1)/2); got != want {
			fail("Allreduce: sum of ranks %d, want %d", got, want)
		}
	case "ring":
		exchange(w, []int{(rank + 1) % size}, []int{(rank + size - 1) % size})
	case "pairs":
		// Partner k of rank r is r+d_k for a few fixed pseudo-random
		// distances; each rank receives from r-d_k, so every send has its
		// receive.
		var dests, srcs []int
		for _, d := range []int{7, 31, 113} {
			d %= size
			if d == 0 {
				continue
			}
			dests = append(dests, (rank+d)%size)
			srcs = append(srcs, (rank+size-d)%size)
		}
		exchange(w, dests, srcs)
	case "allpairs":
		var dests []int
		for p := 0; p < size; p++ {
			if p != rank {
				dests = append(dests, p)
			}
		}
		exchange(w, dests, dests)
	default:
		fail("unknown pattern %q", pattern)
	}
}

// exchange sends one 8-byte message, the sender's rank, to each of dests and
// receives one from each of srcs, checking who it came from.
func exchange(w *mpi.Comm, dests, srcs []int) {
	if w.Size() == 1 {
		return
	}
	rank := w.Rank()
	reqs := make([]*mpi.Request, 0, len(dests)+len(srcs))
	bufs := make([][8]byte, len(srcs))
	for i, s := range srcs {
		r, err := w.Irecv(bufs[i][:], s, 5)
		check(err, "Irecv")
		reqs = append(reqs, r)
	}
	var msg [8]byte
	binary.LittleEndian.PutUint64(msg[:], uint64(rank))
	for _, d := range dests {
		r, err := w.Isend(msg[:], d, 5)
		check(err, "Isend")
		reqs = append(reqs, r)
	}
	for _, r := range reqs {
		_, err := r.Wait()
		check(err, "Wait")
	}
	for i, s := range srcs {
		if got := binary.LittleEndian.Uint64(bufs[i][:]); got != uint64(s) {
			fail("message from rank %d says %d", s, got)
		}
	}
}

// regionUsed is the allocated size of the job's region file and the
// channels made in it: the launcher (our parent) holds the file open,
// unlinked, under a name starting "hympi-".
func regionUsed() (int64, int) {
	dir := fmt.Sprintf("/proc/%d/fd", os.Getppid())
	ents, err := os.ReadDir(dir)
	if err != nil {
		return -1, -1
	}
	for _, ent := range ents {
		p := filepath.Join(dir, ent.Name())
		target, err := os.Readlink(p)
		if err != nil || !strings.HasPrefix(filepath.Base(target), "hympi-") {
			continue
		}
		var st syscall.Stat_t
		if syscall.Stat(p, &st) != nil {
			continue
		}
		chans := -1
		if f, err := os.OpenFile(p, os.O_RDWR, 0); err == nil {
			if r, err := shm.Attach(f); err == nil {
				chans = r.ChannelsUsed()
				r.Close()
			}
			f.Close()
		}
		return st.Blocks * 512, chans
	}
	return -1, -1
}
