// Command firstcopy times the first direct copies of a fresh process, one
// by one, to find why they run slower than later ones (issue 17: a 1 MiB
// broadcast is 1.25–1.69× Open MPI after 10 warm-ups, 1.03× after 1000).
//
// Usage: firstcopy [-n ITERS] [-size BYTES] [-runs R]
//
// Each case runs in a fresh child process (the program re-executes itself),
// so the process, its heap and its page tables are as new as a benchmark's.
// The child reads -size bytes from one of its own buffers into another with
// process_vm_readv (the kernel path of a direct copy; reading its own pid
// keeps a second process out of the timing) -n times and prints, per
// iteration, the time and the minor page faults (getrusage) it took. The
// parent prints the median over -runs children of each iteration, per case:
//
//	fresh      destination and source straight from the Go heap (untouched)
//	prefault   both written once before the first copy
//	hugepage   fresh, but MADV_HUGEPAGE on both before the first copy
//	memcpy     fresh, a plain copy instead of process_vm_readv (the control)
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/hympi/hympi/directcopy"
	"golang.org/x/sys/unix"
)

var cases = []string{"fresh", "prefault", "hugepage", "memcpy"}

func main() {
	n := flag.Int("n", 50, "copies per process")
	size := flag.Int("size", 1<<20, "bytes per copy")
	runs := flag.Int("runs", 7, "fresh processes per case")
	child := flag.String("child", "", "internal: run one case in this process")
	bcast := flag.Bool("bcast", false, "under hympirun -n 2: time the first -n broadcasts of -size bytes instead")
	warm := flag.String("warm", "", "with -bcast: spin or read before the first broadcast")
	flag.Parse()
	if *bcast {
		if err := runBcast(*n, *size, *warm); err != nil {
			fmt.Fprintln(os.Stderr, "firstcopy:", err)
			os.Exit(1)
		}
		return
	}
	if *child != "" {
		if err := runChild(*child, *n, *size); err != nil {
			fmt.Fprintln(os.Stderr, "firstcopy:", err)
			os.Exit(1)
		}
		return
	}
	if err := directcopy.SelfProbe(); err != nil {
		fmt.Fprintln(os.Stderr, "firstcopy: process_vm_readv unavailable:", err)
		os.Exit(1)
	}
	fmt.Printf("# firstcopy: %d B per copy, median of %d fresh processes per case; us / minor faults per copy\n", *size, *runs)
	res := map[string][][2]float64{} // case#us, case#pf: (copy index, value) of every run
	for r := 0; r < *runs; r++ {
		for _, c := range cases { // interleaved: no case always runs on a warmer machine
			out, err := exec.Command(os.Args[0], "-child", c, "-n", strconv.Itoa(*n), "-size", strconv.Itoa(*size)).Output()
			if err != nil {
				fmt.Fprintln(os.Stderr, "firstcopy:", c, err)
				os.Exit(1)
			}
			for i, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				var us, faults float64
				fmt.Sscan(line, &us, &faults)
				res[c+"#us"] = append(res[c+"#us"], [2]float64{float64(i), us})
				res[c+"#pf"] = append(res[c+"#pf"], [2]float64{float64(i), faults})
			}
		}
	}
	fmt.Printf("%4s", "iter")
	for _, c := range cases {
		fmt.Printf(" %10s %6s", c, "pf")
	}
	fmt.Println()
	for i := 0; i < *n; i++ {
		fmt.Printf("%4d", i)
		for _, c := range cases {
			fmt.Printf(" %10.1f %6.0f", med(res[c+"#us"], i), med(res[c+"#pf"], i))
		}
		fmt.Println()
	}
}

// med is the median of the values recorded for iteration i.
func med(v [][2]float64, i int) float64 {
	var xs []float64
	for _, p := range v {
		if int(p[0]) == i {
			xs = append(xs, p[1])
		}
	}
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	return xs[len(xs)/2]
}

func runChild(c string, n, size int) error {
	src, dst := make([]byte, size), make([]byte, size)
	switch c {
	case "prefault":
		for i := range src {
			src[i], dst[i] = byte(i), byte(i)
		}
	case "hugepage":
		for _, b := range [][]byte{src, dst} {
			if err := unix.Madvise(b, unix.MADV_HUGEPAGE); err != nil {
				return err
			}
		}
	}
	pid, addr := os.Getpid(), uintptr(unsafe.Pointer(&src[0]))
	var out strings.Builder
	var ru unix.Rusage
	for range n {
		_ = unix.Getrusage(unix.RUSAGE_SELF, &ru)
		f0 := ru.Minflt
		t := time.Now()
		if c == "memcpy" {
			copy(dst, src)
		} else if err := directcopy.ReadFrom(pid, dst, addr); err != nil {
			return err
		}
		d := time.Since(t)
		_ = unix.Getrusage(unix.RUSAGE_SELF, &ru)
		fmt.Fprintf(&out, "%.2f %d\n", float64(d)/1e3, ru.Minflt-f0)
	}
	_, err := os.Stdout.WriteString(out.String())
	return err
}
