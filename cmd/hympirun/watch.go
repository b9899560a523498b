package main

import (
	"debug/buildinfo"
	"fmt"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hympi/hympi/shm"
)

// Stop timing. The API promises the remaining ranks are gone within about a
// second of a failure.
const (
	// failureGrace is how long ranks get between SIGTERM and SIGKILL when
	// hympirun stops the job itself (a rank failed, the timeout expired).
	failureGrace = 500 * time.Millisecond
	// signalGrace is the same for a signal forwarded from the user, which a
	// program may handle to shut down cleanly.
	signalGrace = 1 * time.Second
	// drainLimit bounds the wait for the last output once every rank is
	// gone (see output.drain).
	drainLimit = 1 * time.Second
)

// reap waits for one rank to terminate and hands it to watch. It runs on its
// own goroutine, one per rank.
func (j *job) reap(r *rank) {
	// First wait without reaping: the zombie keeps the pid reserved while
	// exited is published, so signalAll never races with pid reuse.
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, r.pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			break
		}
	}
	j.mu.Lock()
	r.exited = true
	j.mu.Unlock()
	// The rank's stdio are plain files, so Wait only reaps: it cannot block
	// on output a descendant still holds open. Its error repeats what
	// ProcessState says.
	_ = r.cmd.Wait()
	j.exits <- r
}

// watch runs the job to its end: it judges every rank's exit, stops the job
// on the first failure, timeout or signal, and returns once every started
// rank is reaped. startErr, if not nil, is why not every rank could start;
// the ones that did are stopped.
func (j *job) watch(sigs <-chan os.Signal, startErr error) int {
	status := exitOK
	stopping := false
	var kill <-chan time.Time
	stop := func(sig syscall.Signal, grace time.Duration) {
		stopping = true
		j.signalAll(sig)
		kill = time.After(grace)
	}

	var timeout <-chan time.Time
	if startErr != nil {
		j.out.printf("%v", startErr)
		status = exitFailure
		stop(syscall.SIGTERM, failureGrace)
	} else if j.opts.timeout > 0 {
		t := time.NewTimer(j.opts.timeout)
		defer t.Stop()
		timeout = t.C
	}

	for live := len(j.ranks); live > 0; {
		select {
		case r := <-j.exits:
			live--
			// Once stopping, deaths are hympirun's own doing, or
			// consequences of the failure already reported.
			if stopping {
				continue
			}
			f := j.judge(r)
			switch {
			case f == nil:
			case f.msg == "":
				// Failed after a clean Finalize: the job's result, but
				// the others are not stopped (they are past Finalize
				// or on their way) and nothing is printed, as MPICH's
				// launcher does.
				if status == exitOK {
					status = f.status
				}
			default:
				j.out.printf("%s", f.msg)
				status = f.status
				stop(syscall.SIGTERM, failureGrace)
			}
		case s := <-sigs:
			sig := s.(syscall.Signal)
			if stopping {
				// A second signal while stopping: the user does not
				// want to wait for the grace period.
				j.signalAll(syscall.SIGKILL)
				continue
			}
			j.out.printf("received %s, stopping the job", unix.SignalName(sig))
			status = 128 + int(sig)
			stop(sig, signalGrace)
		case <-timeout:
			j.out.printf("job timed out after %v", j.opts.timeout)
			status = exitTimeout
			stop(syscall.SIGTERM, failureGrace)
		case <-kill:
			kill = nil
			j.signalAll(syscall.SIGKILL)
		}
	}
	return status
}

// signalAll sends sig to every rank not yet terminated, and to its process
// group so that a rank's own children go with it.
func (j *job) signalAll(sig syscall.Signal) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, r := range j.ranks {
		if r.exited {
			continue
		}
		if err := unix.Kill(-r.pid, sig); err != nil {
			// The rank moved itself to another group.
			_ = unix.Kill(r.pid, sig)
		}
	}
}

// failure is why the job failed: the one line hympirun prints and the
// status it exits with.
type failure struct {
	msg    string
	status int
}

// judge decides whether a rank's exit fails the job. A rank that never
// called mpi.Init and exits 0 is fine: `hympirun -n 2 hostname` works.
func (j *job) judge(r *rank) *failure {
	ps := r.cmd.ProcessState
	if ps == nil {
		return &failure{fmt.Sprintf("rank %d (pid %d) vanished: its exit status is unknown", r.id, r.pid), exitFailure}
	}
	ws := ps.Sys().(syscall.WaitStatus)
	state := j.region.RankState(r.id)
	var f *failure
	switch {
	case state == shm.StateAborted:
		f = abortFailure(r, j.region.AbortCode(r.id))
	case ws.Signaled():
		sig := ws.Signal()
		f = &failure{fmt.Sprintf("rank %d (pid %d) killed by signal %s (%v)%s", r.id, r.pid, unix.SignalName(sig), sig, faultHint(ws, regionDir)), 128 + int(sig)}
	case ws.ExitStatus() != 0 && state == shm.StateFinalized:
		return &failure{"", ws.ExitStatus()}
	case ws.ExitStatus() != 0:
		f = &failure{fmt.Sprintf("rank %d (pid %d) exited with status %d%s", r.id, r.pid, ws.ExitStatus(), faultHint(ws, regionDir)), ws.ExitStatus()}
	case state == shm.StateAttached:
		f = &failure{fmt.Sprintf("rank %d (pid %d) exited without calling %s", r.id, r.pid, finalizeName(r.app.path)), exitFailure}
	default:
		return nil
	}
	// An Abort is the cause of whatever else goes wrong: the aborting rank
	// may take others down before its own exit reaches us, so name it
	// rather than the first casualty.
	for _, o := range j.ranks {
		if state != shm.StateAborted && j.region.RankState(o.id) == shm.StateAborted {
			return abortFailure(o, j.region.AbortCode(o.id))
		}
	}
	return f
}

// finalizeName is Finalize as the rank's program spells it: a Go program
// reaches hympi through package mpi, anything else (C, C++, Fortran, a
// Python binding) through the C library's MPI_Finalize. A Go binary is told
// by the build information the Go linker writes into every one.
func finalizeName(path string) string {
	if _, err := buildinfo.ReadFile(path); err == nil {
		return "mpi.Finalize"
	}
	return "MPI_Finalize"
}

// faultHint names the likely cause when a rank died the way a fault on
// shared memory kills it: SIGBUS in C, or the Go runtime's fatal "unexpected
// fault address" (exit status 2) when the region's file system is also
// full. The region is reserved at creation, so this is the rare case of
// another mapping of /dev/shm; still the user deserves the cause, not a
// bare status.
func faultHint(ws syscall.WaitStatus, dir string) string {
	sigbus := ws.Signaled() && ws.Signal() == syscall.SIGBUS
	goFatal := ws.Exited() && ws.ExitStatus() == 2
	if !sigbus && !goFatal {
		return ""
	}
	var st unix.Statfs_t
	if unix.Statfs(dir, &st) != nil {
		return ""
	}
	free := int64(st.Bavail) * int64(st.Bsize)
	switch {
	case free < lowShmFree:
		return fmt.Sprintf(": a fault on shared memory? %s is full (%d KiB free)", dir, free>>10)
	case sigbus:
		return fmt.Sprintf(": a fault on mapped memory (is %s full? it has %d MiB free now)", dir, free>>20)
	}
	return ""
}

// lowShmFree is "full" for faultHint: less than a few cells' worth.
const lowShmFree = 1 << 20

func abortFailure(r *rank, code int) *failure {
	// An exit status has 8 bits; an Abort must not come out as success.
	status := code & 0xff
	if status == 0 {
		status = exitFailure
	}
	return &failure{fmt.Sprintf("rank %d (pid %d) called Abort with code %d", r.id, r.pid, code), status}
}
