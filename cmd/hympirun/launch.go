package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/hympi/hympi/internal/config"
	"github.com/hympi/hympi/shm"
	"github.com/hympi/hympi/topology"
	"golang.org/x/sys/unix"
)

// regionDir is where the job's region file is created (and at once
// unlinked, so nothing is left there whatever happens to hympirun).
const regionDir = "/dev/shm"

// rank is one started process of the job.
type rank struct {
	id  int
	cpu int // -1 when unbound
	pid int
	cmd *exec.Cmd
	app *app // the program it runs

	// exited is set, under job.mu, once the process has terminated but
	// before it is reaped. Until it is reaped its pid cannot be reused, so
	// signalling a rank whose exited is false reaches that rank and no
	// stranger.
	exited bool
}

type job struct {
	opts   *options
	region *shm.Region
	out    *output
	bind   *binder

	mu    sync.Mutex // guards rank.exited
	ranks []*rank    // the started ranks; appended only by start
	exits chan *rank // each rank once, after it is reaped
}

// launch runs the job and returns hympirun's exit status.
func launch(opts *options, stdin io.Reader, stdout, stderr io.Writer) int {
	out := newOutput(stdout, stderr, opts)
	// The knobs as every rank will read them (-x included), checked before
	// anything exists: a bad value is a usage error, not N dying ranks.
	knobs, err := config.FromEnviron(append(os.Environ(), opts.env...))
	if err != nil {
		out.printf("%v", err)
		return exitUsage
	}
	bind, err := newBinder(opts.bind, opts.mapBy, opts.n, opts.doNotLaunch)
	if err != nil {
		out.printf("%v", err)
		return exitFailure
	}
	if opts.reportBindings {
		host, _ := os.Hostname()
		for i := range opts.n {
			out.println(fmt.Sprintf("[%s:%d] %s", host, os.Getpid(), bind.report(i)))
		}
	}
	if opts.doNotLaunch {
		return exitOK
	}
	region, regionFile, err := shm.Create(regionDir, opts.n, shm.ConfigFrom(knobs))
	if err != nil {
		out.printf("creating the shared region: %v", err)
		return exitFailure
	}
	defer regionFile.Close()
	defer region.Close()

	// Caught before the first rank exists: a signal during startup must be
	// forwarded to the ranks already running, not kill hympirun alone.
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)

	j := &job{
		opts:   opts,
		region: region,
		out:    out,
		bind:   bind,
		exits:  make(chan *rank, opts.n),
	}
	startErr := j.start(regionFile, stdin)
	status := j.watch(sigs, startErr)
	out.drain(drainLimit)
	return status
}

// start starts every rank, or stops at the first that cannot be started and
// returns why. It must run on the locked main thread (see init in main.go).
func (j *job) start(regionFile *os.File, stdin io.Reader) error {
	env := j.env()
	defer j.bind.restore()
	// Timer slack is per thread, inherited by fork and kept across exec:
	// set on this locked thread, it reaches every thread of every rank.
	if slack := j.bind.timerSlack(j.opts.n); slack > 0 {
		if old, err := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0); err == nil &&
			unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(slack.Nanoseconds()), 0, 0, 0) == nil {
			defer unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(old), 0, 0, 0)
		}
	}
	i := 0
	for appnum := range j.opts.apps {
		a := &j.opts.apps[appnum]
		for range a.n {
			if err := j.startRank(i, appnum, a, env, regionFile, stdin); err != nil {
				return err
			}
			i++
		}
	}
	return nil
}

// startRank starts rank i, of program appnum.
func (j *job) startRank(i, appnum int, a *app, env []string, regionFile *os.File, stdin io.Reader) error {
	r := &rank{id: i, cpu: j.bind.cpuFor(i), app: a}
	cmd := &exec.Cmd{
		Path: a.path,
		// argv[0] as the user typed it, as a shell would pass it.
		Args:       append([]string{a.program}, a.args...),
		Env:        append(env[:len(env):len(env)], j.rankEnv(i, appnum, r.cpu)...),
		Dir:        j.opts.wdir,
		ExtraFiles: []*os.File{regionFile}, // becomes shm.RegionFD
		SysProcAttr: &syscall.SysProcAttr{
			// Its own process group: a terminal's Ctrl-C reaches only
			// hympirun, which forwards it, and a stop signal sent to
			// the group takes a rank's own children with it.
			Setpgid: true,
			// Dies if hympirun's main thread does, SIGKILL included.
			Pdeathsig: syscall.SIGKILL,
		},
	}
	var closers []*os.File
	var err error
	cmd.Stdout, cmd.Stderr, closers, err = j.out.streams(i)
	if err != nil {
		return fmt.Errorf("rank %d: %w", i, err)
	}
	if i == 0 && stdin != nil {
		in, err := stdinPipe(stdin)
		if err != nil {
			closeAll(closers)
			return fmt.Errorf("rank %d: %w", i, err)
		}
		cmd.Stdin = in
		closers = append(closers, in)
	}
	if err := j.bind.pin(i); err != nil {
		closeAll(closers)
		return fmt.Errorf("rank %d: %w", i, err)
	}
	err = cmd.Start()
	closeAll(closers)
	if err != nil {
		// Drop os's "fork/exec" operation name: the user ran no fork.
		if pe, ok := err.(*os.PathError); ok {
			err = fmt.Errorf("%s: %w", pe.Path, pe.Err)
		}
		return fmt.Errorf("starting rank %d: %w", i, err)
	}
	r.cmd, r.pid = cmd, cmd.Process.Pid
	j.ranks = append(j.ranks, r)
	go j.reap(r)
	return nil
}

// env is the environment every rank shares: hympirun's own, then the -x
// variables. exec keeps the last value of a repeated name, so later entries
// win.
func (j *job) env() []string {
	env := append(os.Environ(), j.opts.env...)
	jobID := fmt.Sprintf("%d-%08x", os.Getpid(), rand.Uint32())
	return append(env,
		shm.EnvSize+"="+strconv.Itoa(j.opts.n),
		shm.EnvRegionFD+"="+strconv.Itoa(shm.RegionFD),
		shm.EnvJobID+"="+jobID,
		topology.EnvBind+"="+string(j.bind.policy),
	)
}

// rankEnv is what tells a rank its place: hympi's own variables, and those
// of Open MPI, MPICH (PMI) and PMIx under which scripts and libraries look
// for the same facts. Every rank is on the one node, so local rank and node
// rank are the world rank. GOMAXPROCS comes last unless the user set it.
func (j *job) rankEnv(rank, appnum, cpu int) []string {
	r, n := strconv.Itoa(rank), strconv.Itoa(j.opts.n)
	env := []string{
		shm.EnvRank + "=" + r,
		shm.EnvCPU + "=" + strconv.Itoa(cpu),
		envAppNum + "=" + strconv.Itoa(appnum),
		"OMPI_COMM_WORLD_RANK=" + r,
		"OMPI_COMM_WORLD_SIZE=" + n,
		"OMPI_COMM_WORLD_LOCAL_RANK=" + r,
		"OMPI_COMM_WORLD_LOCAL_SIZE=" + n,
		"OMPI_COMM_WORLD_NODE_RANK=" + r,
		"OMPI_UNIVERSE_SIZE=" + n,
		"PMI_RANK=" + r,
		"PMI_SIZE=" + n,
		"PMIX_RANK=" + r,
		"MPI_LOCALRANKID=" + r,
		"MPI_LOCALNRANKS=" + n,
	}
	if !userSetGOMAXPROCS(j.opts.env) {
		env = append(env, "GOMAXPROCS="+strconv.Itoa(j.bind.gomaxprocs(rank)))
	}
	return env
}

// envAppNum tells a rank which program of an MPMD job it runs, counting
// from 0 (MPI_APPNUM); read by mpi.AppNum and the C library.
const envAppNum = "HYMPI_APPNUM"

func userSetGOMAXPROCS(xenv []string) bool {
	if _, ok := os.LookupEnv("GOMAXPROCS"); ok {
		return true
	}
	for _, kv := range xenv {
		if strings.HasPrefix(kv, "GOMAXPROCS=") {
			return true
		}
	}
	return false
}

// stdinPipe feeds hympirun's stdin to rank 0 through a pipe rather than
// handing over the descriptor: rank 0 is in its own process group, and a
// background group reading the terminal would be stopped by SIGTTIN. The
// copier ends when stdin does or when rank 0 stops reading (its end closed).
func stdinPipe(stdin io.Reader) (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("creating stdin pipe: %w", err)
	}
	go func() {
		io.Copy(w, stdin)
		w.Close()
	}()
	return r, nil
}

func closeAll(files []*os.File) {
	for _, f := range files {
		f.Close()
	}
}
