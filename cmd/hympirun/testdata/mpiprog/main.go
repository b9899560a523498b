// Command mpiprog is a real MPI program for hympirun's end-to-end tests.
//
//	mpiprog MODE
//
// Every rank first prints "pid RANK PID", then calls mpi.Init. Modes:
//
//	ok          print "rank R of N", Barrier, Finalize
//	appnum      print "app A rank R of N" (A is mpi.AppNum), Barrier,
//	            Finalize
//	nofinalize  rank 1 exits 0 without Finalize; the others wait for it
//	abort       rank 1 calls Abort(World(), 7); the others wait for it
//	sigkill     rank 1 SIGKILLs itself; the others wait for it
//
// "Wait for it" is a receive from rank 1 that rank 1 never matches: a rank
// blocked in the library must still be stopped by hympirun. In the failing
// modes all ranks pass a Barrier first and rank 1 fails 200 ms later.
package main

import (
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/hympi/hympi/mpi"
)

func main() {
	if len(os.Args) != 2 {
		fail("usage: mpiprog MODE")
	}
	mode := os.Args[1]
	fmt.Printf("pid %s %d\n", os.Getenv("HYMPI_RANK"), os.Getpid())
	if err := mpi.Init(); err != nil {
		fail("Init: %v", err)
	}
	w := mpi.World()
	if mode == "ok" || mode == "appnum" {
		line := fmt.Sprintf("rank %d of %d\n", w.Rank(), w.Size())
		if mode == "appnum" {
			line = fmt.Sprintf("app %d %s", mpi.AppNum(), line)
		}
		fmt.Print(line) // one write: ranks share the terminal
		if err := w.Barrier(); err != nil {
			fail("Barrier: %v", err)
		}
		if err := mpi.Finalize(); err != nil {
			fail("Finalize: %v", err)
		}
		return
	}
	// Every rank is inside the library before rank 1 fails, and the others
	// are (almost certainly) blocked in their receive by the time it does.
	if err := w.Barrier(); err != nil {
		fail("Barrier: %v", err)
	}
	if w.Rank() == 1 {
		time.Sleep(200 * time.Millisecond)
		switch mode {
		case "nofinalize":
			os.Exit(0)
		case "abort":
			mpi.Abort(w, 7)
			fail("Abort returned")
		case "sigkill":
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {}
		default:
			fail("unknown mode %q", mode)
		}
	}
	buf := make([]byte, 8)
	_, err := w.Recv(buf, 1, 0)
	// Reaching here means the library noticed rank 1's end; hympirun is
	// stopping the job by then, so this exit is not reported.
	fail("Recv from rank 1 returned: %v", err)
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "mpiprog: "+format+"\n", args...)
	os.Exit(99)
}
