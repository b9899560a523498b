// Command hympirun starts an MPI job of N ranks on this machine and watches
// it until every rank is gone.
//
//	hympirun -n 4 ./ring
//	hympirun -np 8 --tag-output --timeout 2m -x HYMPI_DIRECT=off ./bench -size 1M
//	hympirun -n 1 ./master : -n 3 ./worker
//	hympirun --oversubscribe -np 4 --bind-to socket --report-bindings ./app
//	hympirun --map-by l3cache --bind-to core --report-bindings -n 16 ./app
//	hympirun --do-not-launch --report-bindings --map-by numa -n 64 ./app
//
// It takes the options of Open MPI's mpirun and MPICH's mpiexec with their
// meaning (flags.go, hosts.go), so that scripts written for either run here.
//
// hympirun owns the life of a job: it creates the job's shared region
// (already unlinked, handed to every rank as descriptor 3), starts the ranks
// with the environment that tells each its place in the job, binds each to a
// CPU or a domain, forwards their output (optionally tagged by rank),
// forwards SIGINT/SIGTERM/SIGHUP, and watches them. When a rank fails — a
// non-zero exit, a death by signal, or an exit after Init without Finalize —
// it prints one line naming the rank and the cause, stops the other ranks
// within about a second and exits non-zero. A non-zero exit after a clean
// Finalize fails the job silently, as with MPICH. It exits 0 only if every
// rank exited 0, having finalized if it initialized.
//
// Exit status: 0 on success; the failing rank's exit status (or its Abort
// code); 128+signo when a rank died by a signal or hympirun itself was
// signalled; 124 when --timeout or MPIEXEC_TIMEOUT expired; 2 for a usage
// error, in which case nothing was started; 1 for anything else.
//
// The files are split by mechanism: flags.go parses the command line,
// hosts.go reads host lists and hostfiles, launch.go creates the region and
// starts the ranks, bind.go maps and binds them to CPUs, output.go forwards,
// tags and saves output, watch.go watches the ranks and stops the job.
package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"golang.org/x/sys/unix"
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
	switch {
	case errors.Is(err, errHelp):
		fmt.Fprint(stdout, usage)
		return exitOK
	case errors.Is(err, errVersion):
		fmt.Fprint(stdout, versionText())
		return exitOK
	case err != nil:
		fmt.Fprintf(stderr, "hympirun: %v\n%s", err, usageLine)
		return exitUsage
	}
	// Checked before anything is created, so a typo starts nothing.
	if err := checkJob(opts); err != nil {
		fmt.Fprintf(stderr, "hympirun: %v\n", err)
		return exitUsage
	}
	return launch(opts, stdin, stdout, stderr)
}

// checkJob resolves every program and checks what parseArgs could not
// without looking at the machine.
func checkJob(opts *options) error {
	if opts.wdir != "" {
		if fi, err := os.Stat(opts.wdir); err != nil || !fi.IsDir() {
			return fmt.Errorf("-wdir %s: not a directory", opts.wdir)
		}
	}
	for i := range opts.apps {
		a := &opts.apps[i]
		path, err := resolveProgram(a.program, opts.wdir)
		if err != nil {
			return err
		}
		a.path = path
	}
	slots, what := opts.slots, "slots given by -H or --hostfile"
	if slots == 0 {
		slots, what = runtime.NumCPU(), "CPUs hympirun may use"
	}
	if !opts.oversubscribe && opts.n > slots {
		// Open MPI's words, shortened to a line.
		return fmt.Errorf("there are not enough slots available in the system to satisfy the %d slots that were requested by the application (%d %s); request fewer ranks, or allow more ranks than slots with --oversubscribe", opts.n, slots, what)
	}
	return nil
}

// resolveProgram finds the file a program name starts, as a shell would,
// and says in plain words why it cannot be run.
func resolveProgram(prog, wdir string) (string, error) {
	if !strings.Contains(prog, "/") {
		path, err := exec.LookPath(prog)
		if err != nil {
			if errors.Is(err, exec.ErrDot) {
				return "", fmt.Errorf("%s: program not found in PATH (write ./%s to run the one in this directory)", prog, prog)
			}
			// A shell would have said why the file it found is no use.
			for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
				if fi, err := os.Stat(filepath.Join(dir, prog)); err == nil && dir != "" {
					if fi.IsDir() {
						return "", fmt.Errorf("%s: %s is a directory", prog, filepath.Join(dir, prog))
					}
					return "", fmt.Errorf("%s: %s is not executable", prog, filepath.Join(dir, prog))
				}
			}
			return "", fmt.Errorf("%s: program not found in PATH", prog)
		}
		return filepath.Abs(path)
	}
	path := prog
	if wdir != "" && !filepath.IsAbs(path) {
		// Ranks start in wdir, and so does a relative program name.
		path = filepath.Join(wdir, path)
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("%s: program not found", prog)
	case err != nil:
		return "", fmt.Errorf("%s: %v", prog, unwrapPath(err))
	case fi.IsDir():
		return "", fmt.Errorf("%s: is a directory", prog)
	case fi.Mode()&0o111 == 0 || unix.Access(path, unix.X_OK) != nil:
		return "", fmt.Errorf("%s: not executable", prog)
	}
	return filepath.Abs(path)
}

// unwrapPath drops os's operation and path, which would repeat the program
// name already in our message.
func unwrapPath(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}
