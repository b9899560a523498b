// Command fakerank plays a rank's side of the launcher contract through
// package shm alone — attach, finalize, abort — so that hympirun's judging
// of rank life states is tested without depending on package mpi.
//
//	fakerank TARGETMODE OTHERMODE TARGET
//
// Rank TARGET does TARGETMODE, every other rank OTHERMODE. Every rank first
// prints "pid RANK PID". Modes:
//
//	noinit          exit 0 without touching the region
//	finalize        attach, finalize, exit 0
//	nofinalize      attach, exit 0
//	wait            attach, then sleep until killed
//	exit:N          attach, finalize, exit N
//	attachexit:N    attach, exit N without finalizing
//	abort:N         attach, record Abort with code N, exit N
//	abortzero:N     attach, record Abort with code N, exit 0
//	abortkill:N     attach, wait until rank 0 attached, record Abort with
//	                code N, SIGKILL rank 0, then sleep until killed
package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hympi/hympi/shm"
)

func main() {
	if len(os.Args) != 4 {
		fail("usage: fakerank TARGETMODE OTHERMODE TARGET")
	}
	rank, err := strconv.Atoi(os.Getenv(shm.EnvRank))
	if err != nil {
		fail("no rank: %v", err)
	}
	target, err := strconv.Atoi(os.Args[3])
	if err != nil {
		fail("bad target: %v", err)
	}
	mode := os.Args[2]
	if rank == target {
		mode = os.Args[1]
	}
	fmt.Printf("pid %d %d\n", rank, os.Getpid())
	if mode == "noinit" {
		return
	}

	fd, err := strconv.Atoi(os.Getenv(shm.EnvRegionFD))
	if err != nil {
		fail("no region fd: %v", err)
	}
	r, err := shm.Attach(os.NewFile(uintptr(fd), "region"))
	if err != nil {
		fail("attach: %v", err)
	}
	r.MarkAttached(rank, os.Getpid())

	name, arg, _ := strings.Cut(mode, ":")
	code, _ := strconv.Atoi(arg)
	switch name {
	case "finalize":
		r.SetState(rank, shm.StateFinalized)
	case "nofinalize":
	case "wait":
		sleepForever()
	case "exit":
		r.SetState(rank, shm.StateFinalized)
		os.Exit(code)
	case "attachexit":
		os.Exit(code)
	case "abort":
		r.MarkAborted(rank, code)
		os.Exit(code)
	case "abortzero":
		r.MarkAborted(rank, code)
	case "abortkill":
		for r.RankPID(0) == 0 {
			time.Sleep(time.Millisecond)
		}
		r.MarkAborted(rank, code)
		syscall.Kill(r.RankPID(0), syscall.SIGKILL)
		sleepForever()
	default:
		fail("unknown mode %q", mode)
	}
}

func sleepForever() {
	time.Sleep(time.Minute)
	fail("still alive after a minute")
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "fakerank: "+format+"\n", args...)
	os.Exit(99)
}
