// Command hympirun starts an MPI job of N ranks on this machine and watches
// it until every rank is gone.
//
//	hympirun -n 4 ./ring
//	hympirun -np 8 --tag-output --timeout 2m -x HYMPI_DIRECT=off ./bench -size 1M
//
// hympirun owns the life of a job: it creates the job's shared region
// (already unlinked, handed to every rank as descriptor 3), starts the ranks
// with the environment that tells each its place in the job, binds each to a
// CPU, forwards their output (optionally tagged by rank), forwards
// SIGINT/SIGTERM/SIGHUP, and watches them. When a rank fails — a non-zero
// exit, a death by signal, or an exit after mpi.Init without mpi.Finalize —
// it prints one line naming the rank and the cause, stops the other ranks
// within about a second and exits non-zero. It exits 0 only if every rank
// exited 0, having finalized if it initialized.
//
// Exit status: 0 on success; the failing rank's exit status (or its Abort
// code); 128+signo when a rank died by a signal or hympirun itself was
// signalled; 124 when --timeout expired; 2 for a usage error, in which case
// nothing was started; 1 for anything else.
//
// The files are split by mechanism: flags.go parses the command line,
// launch.go creates the region and starts the ranks, bind.go chooses and
// applies CPU binding, output.go forwards and tags output, watch.go watches
// the ranks and stops the job.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
)

func init() {
	// A child's Pdeathsig fires when the thread that forked it exits, not
	// the process. Every rank is started from the main goroutine, so keeping
	// it on the main thread (which lives as long as hympirun) makes the
	// ranks die with hympirun and with nothing else. It also lets bind.go
	// set this one thread's CPU affinity for the children to inherit.
	runtime.LockOSThread()
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Exit statuses of hympirun itself, besides those it passes on from ranks.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
	exitTimeout = 124 // as timeout(1)
)

// run is the whole command; it returns the exit status. stdout and stderr
// are where the ranks' output goes too: when they are *os.File and output is
// not tagged, ranks write to them directly.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	opts, err := parseArgs(args)
	if errors.Is(err, errHelp) {
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "hympirun: %v\n%s", err, usageLine)
		return exitUsage
	}
	// Resolve before anything is created, so a typo starts nothing.
	path, err := exec.LookPath(opts.program)
	if err != nil {
		fmt.Fprintf(stderr, "hympirun: %s: program not found: %v\n", opts.program, unwrapExec(err))
		return exitUsage
	}
	return launch(opts, path, stdin, stdout, stderr)
}

// unwrapExec drops exec's own "exec: \"name\": " prefix, which would repeat
// the program name already in our message.
func unwrapExec(err error) error {
	if e, ok := err.(*exec.Error); ok {
		return e.Err
	}
	return err
}
