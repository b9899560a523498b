// Command chaos runs the soak's traffic (bench/soak) under hympirun and
// injects one fault per trial at a random moment (make chaos):
//
//	chaos [-runs 40] [-seed N] [-trial K] [-only faults|hostile] [-n 4]
//	      [-hympirun bin/hympirun] [-soak bin/soak]
//
// Process faults: SIGKILL or SIGSTOP of a rank (with --timeout for STOP),
// SIGKILL, SIGINT or SIGTERM of hympirun, a rank that panics, exits early,
// returns without Finalize or hangs. Each is checked for hympirun's report
// naming the rank, the exit status, the stop within stopBound of the fault,
// no rank process left (by pid) and no region file left in /dev/shm.
//
// Hostile writes: bytes written into the live region (through hympirun's
// descriptor of it) at random, or aimed at one structure: the header, rank
// blocks, doorbells, summaries, direct-copy bitmaps, descriptor rings,
// return rings, collective rings, cells, skew feedback. Each run must end in an error or
// in correct completion (the soak validates every byte), never in a crash,
// never in wrong data the soak catches while HYMPI_CHECKSUM=1 is on, and
// never in a hang unless the write hit a ring's protocol words (a message
// erased from a ring cannot be told from one never sent; hympirun's
// --timeout bounds it).
//
// Every trial is derived from (seed, trial number); the seed is printed and
// -seed N -trial K replays one trial.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hympi/hympi/shm"
)

// stopBound is how long after a fault the job must be gone: the API
// promises about a second; the rest is for a loaded machine.
const stopBound = 6 * time.Second

// faults are the process faults, hostile the areas a write may aim at
// ("random": anywhere in the region).
var (
	faults  = []string{"kill-rank", "stop-rank", "kill-launcher", "int-launcher", "term-launcher", "panic", "exit", "nofinalize", "hang"}
	hostile = []string{"random", "header", "rank state", "doorbell", "summary", "direct bits", "ring", "return tail", "return ring", "coll ring", "cells", "feedback"}
	// mayHang are the areas where a write can erase or forge protocol
	// state that no check can tell from the real thing.
	mayHang = map[string]bool{"random": true, "ring": true, "coll ring": true, "return tail": true, "return ring": true}
	// bursts are the areas that get a burst of writes rather than a few.
	bursts = map[string]bool{"ring": true, "coll ring": true, "return ring": true, "cells": true}
)

type config struct {
	hympirun, soak string
	ranks          int
}

type result struct {
	trial   int
	what    string
	outcome string // for hostile writes: completed, error, timeout, wrong-data-unchecked
	failure string // non-empty: the trial failed
	detail  string
}

func main() {
	runs := flag.Int("runs", 40, "trials")
	seed := flag.Uint64("seed", 0, "seed (0: from the clock; printed)")
	trial := flag.Int("trial", -1, "replay only this trial")
	only := flag.String("only", "", "faults or hostile: only that kind of trial")
	ranks := flag.Int("n", 4, "ranks per job")
	hympirun := flag.String("hympirun", "bin/hympirun", "the launcher")
	soak := flag.String("soak", "bin/soak", "the soak program")
	verbose := flag.Bool("v", false, "print each trial's output")
	flag.Parse()
	if *seed == 0 {
		*seed = uint64(time.Now().UnixNano())
	}
	cfg := config{hympirun: *hympirun, soak: *soak, ranks: *ranks}
	fmt.Printf("chaos: seed %d, %d trials, %d ranks\n", *seed, *runs, *ranks)
	first, last := 0, *runs
	if *trial >= 0 {
		first, last = *trial, *trial+1
	}
	var results []result
	for t := first; t < last; t++ {
		res := runTrial(cfg, *seed, t, *only)
		results = append(results, res)
		status := "ok  "
		if res.failure != "" {
			status = "FAIL"
		}
		fmt.Printf("%s trial %3d  %-40s %-22s %s\n", status, t, res.what, res.outcome, res.failure)
		if res.failure != "" || *verbose {
			fmt.Print(indent(res.detail))
		}
	}
	if !summarize(results, *seed) {
		os.Exit(1)
	}
}

// summarize prints the counts and reports whether every trial passed.
func summarize(results []result, seed uint64) bool {
	faultsRun, faultsOK := 0, 0
	classes := map[string]int{}
	failed := 0
	for _, r := range results {
		if r.failure != "" {
			failed++
		}
		if strings.HasPrefix(r.what, "hostile") {
			classes[r.outcome]++
			continue
		}
		faultsRun++
		if r.failure == "" {
			faultsOK++
		}
	}
	var cls []string
	for k, v := range classes {
		cls = append(cls, fmt.Sprintf("%s %d", k, v))
	}
	sort.Strings(cls)
	fmt.Printf("chaos: seed %d: faults injected %d, survived %d; hostile-write trials %d (%s); failed trials %d\n",
		seed, faultsRun, faultsOK, len(results)-faultsRun, strings.Join(cls, ", "), failed)
	return failed == 0
}

func indent(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString("    | " + l + "\n")
	}
	return b.String()
}

// trialKind picks what trial t does: faults and hostile writes alternate,
// each cycling through its list so every kind comes up.
func trialKind(t int, only string) (isFault bool, kind string) {
	switch only {
	case "faults":
		return true, faults[t%len(faults)]
	case "hostile":
		return false, hostile[t%len(hostile)]
	}
	if t%2 == 0 {
		return true, faults[t/2%len(faults)]
	}
	return false, hostile[t/2%len(hostile)]
}

// job is one hympirun run of the soak.
type job struct {
	cmd   *exec.Cmd
	out   bytes.Buffer
	start time.Time
	done  chan struct{}
	err   error
}

func startJob(cfg config, timeout time.Duration, env []string, soakArgs ...string) (*job, error) {
	args := append([]string{"-n", fmt.Sprint(cfg.ranks), "--timeout", timeout.String(), cfg.soak}, soakArgs...)
	j := &job{cmd: exec.Command(cfg.hympirun, args...), done: make(chan struct{})}
	j.cmd.Env = append(os.Environ(), env...)
	j.cmd.Stdout, j.cmd.Stderr = &j.out, &j.out
	j.start = time.Now()
	if err := j.cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		j.err = j.cmd.Wait()
		close(j.done)
	}()
	return j, nil
}

// wait waits for the job to end, at most limit, and returns its exit status
// (-1: killed by a signal; -2: still running after limit, then killed).
func (j *job) wait(limit time.Duration) int {
	select {
	case <-j.done:
	case <-time.After(limit):
		j.cmd.Process.Kill()
		<-j.done
		return -2
	}
	if st, ok := j.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && st.Signaled() {
		return -1
	}
	return j.cmd.ProcessState.ExitCode()
}

// ranks returns the pids of the job's ranks, by rank, once every rank has
// started, or an error with the ones seen so far (0 for the others).
func (j *job) ranks(n int) ([]int, error) {
	pids := make([]int, n)
	found := 0
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		for _, c := range children(j.cmd.Process.Pid) {
			if r := rankOf(c); r >= 0 && r < n && pids[r] == 0 {
				pids[r] = c
				found++
			}
		}
		if found == n {
			return pids, nil
		}
		select {
		case <-j.done:
			return pids, errors.New("job ended before every rank started")
		case <-time.After(20 * time.Millisecond):
		}
	}
	return pids, errors.New("ranks did not start within 30s")
}

// children lists pid's child processes (every thread's).
func children(pid int) []int {
	var out []int
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, t := range tasks {
		b, _ := os.ReadFile(t)
		for _, f := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(f); err == nil {
				out = append(out, c)
			}
		}
	}
	sort.Ints(out)
	return out
}

// rankOf reads a rank's number from its environment (-1 if unreadable,
// such as before the exec).
func rankOf(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		return -1
	}
	for _, kv := range strings.Split(string(b), "\x00") {
		if v, ok := strings.CutPrefix(kv, shm.EnvRank+"="); ok {
			if r, err := strconv.Atoi(v); err == nil {
				return r
			}
		}
	}
	return -1
}

// alive reports whether pid is a process that is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// leftovers checks that no rank is alive and no region file of the job is
// in /dev/shm, allowing the kernel a moment to finish reaping.
func leftovers(hpid int, pids []int) string {
	deadline := time.Now().Add(stopBound)
	for {
		var live []int
		for _, p := range pids {
			if p > 0 && alive(p) {
				live = append(live, p)
			}
		}
		files, _ := filepath.Glob(fmt.Sprintf("/dev/shm/hympi-%d-%d-*", os.Getuid(), hpid))
		if len(live) == 0 && len(files) == 0 {
			return ""
		}
		if time.Now().After(deadline) {
			for _, p := range live {
				syscall.Kill(p, syscall.SIGKILL) // ours: leave nothing behind
			}
			return fmt.Sprintf("left behind: ranks %v, files %v", live, files)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func runTrial(cfg config, seed uint64, t int, only string) result {
	rng := rand.New(rand.NewPCG(seed, mix(uint64(t))))
	isFault, kind := trialKind(t, only)
	if isFault {
		return runFault(cfg, rng, t, kind)
	}
	return runHostile(cfg, rng, t, kind)
}

// mix scrambles a trial number (splitmix64's finalizer), so that nearby
// trials draw unrelated streams.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// crashed reports the signs of a rank dying of a Go runtime fault.
func crashed(out string) bool {
	for _, m := range []string{"fatal error:", "SIGSEGV", "SIGBUS", "unexpected fault address", "goroutine "} {
		if strings.Contains(out, m) {
			return true
		}
	}
	return false
}

func runFault(cfg config, rng *rand.Rand, t int, kind string) result {
	res := result{trial: t, what: "fault " + kind}
	victim := rng.IntN(cfg.ranks)
	delay := time.Duration(200+rng.IntN(1300)) * time.Millisecond
	timeout := 120 * time.Second
	soakArgs := []string{"-duration", "60s", "-maxsize", "300000", "-seed", fmt.Sprint(rng.Uint64() | 1)}
	switch kind {
	case "stop-rank", "hang":
		timeout = 4 * time.Second
	}
	switch kind {
	case "panic", "exit", "nofinalize", "hang":
		soakArgs = append(soakArgs, "-fault", kind, "-fault-rank", fmt.Sprint(victim), "-fault-round", fmt.Sprint(rng.IntN(15)))
	}
	res.what += fmt.Sprintf(" (rank %d)", victim)
	j, err := startJob(cfg, timeout, nil, soakArgs...)
	if err != nil {
		res.failure = err.Error()
		return res
	}
	hpid := j.cmd.Process.Pid
	pids, err := j.ranks(cfg.ranks)
	inside := kind == "panic" || kind == "exit" || kind == "nofinalize" || kind == "hang"
	if err != nil && !inside { // a rank's own fault may end the job early
		j.cmd.Process.Kill()
		j.wait(stopBound)
		res.failure, res.detail = err.Error(), j.out.String()
		return res
	}
	if !inside {
		time.Sleep(delay)
	}
	at := time.Now()
	switch kind {
	case "kill-rank":
		syscall.Kill(pids[victim], syscall.SIGKILL)
	case "stop-rank":
		syscall.Kill(pids[victim], syscall.SIGSTOP)
	case "kill-launcher":
		syscall.Kill(hpid, syscall.SIGKILL)
	case "int-launcher":
		syscall.Kill(hpid, syscall.SIGINT)
	case "term-launcher":
		syscall.Kill(hpid, syscall.SIGTERM)
	}
	code := j.wait(timeout + stopBound + 10*time.Second)
	took := time.Since(at)
	out := j.out.String()
	res.detail = out
	res.outcome = fmt.Sprintf("exit %d in %v", code, took.Round(10*time.Millisecond))
	var wantCode int
	var wantLine string
	bound := stopBound
	switch kind {
	case "kill-rank":
		wantCode, wantLine = 128+9, fmt.Sprintf("rank %d", victim)
	case "stop-rank", "hang":
		wantCode, wantLine = 124, "timed out"
		bound = timeout + stopBound
		took = time.Since(j.start)
	case "kill-launcher":
		wantCode = -1
	case "int-launcher":
		wantCode, wantLine = 128+2, "received sigint"
	case "term-launcher":
		wantCode, wantLine = 128+15, "received sigterm"
	case "panic":
		wantCode, wantLine = 2, fmt.Sprintf("rank %d", victim)
	case "exit":
		wantCode, wantLine = 3, fmt.Sprintf("rank %d", victim)
	case "nofinalize":
		wantCode, wantLine = 1, fmt.Sprintf("rank %d", victim)
		if code > 0 {
			wantCode = code // any failure status will do
		}
	}
	if inside {
		took = 0 // injected from inside: no outside moment to time from
		res.outcome = fmt.Sprintf("exit %d", code)
	}
	switch {
	case code == -2:
		res.failure = "job still running long after the fault"
	case code != wantCode:
		res.failure = fmt.Sprintf("exit status %d, want %d", code, wantCode)
	case took > bound:
		res.failure = fmt.Sprintf("stopped %v after the fault, bound %v", took, bound)
	case wantLine != "" && !reportNames(out, wantLine):
		res.failure = fmt.Sprintf("hympirun's report is not one line naming %q", wantLine)
	case kind != "panic" && crashed(out):
		res.failure = "a rank crashed"
	}
	if left := leftovers(hpid, pids); left != "" && res.failure == "" {
		res.failure = left
	}
	return res
}

// reportNames reports whether hympirun printed one line, and one only,
// and that line mentions s.
func reportNames(out, s string) bool {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "hympirun:") {
			lines = append(lines, l)
		}
	}
	return len(lines) == 1 && strings.Contains(strings.ToLower(lines[0]), s)
}

// regionFile opens the job's region through hympirun's descriptor of it
// (the file itself was unlinked at creation).
func regionFile(hpid int) (*os.File, error) {
	fds, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", hpid))
	for _, fd := range fds {
		target, err := os.Readlink(fd)
		if err == nil && strings.Contains(target, "/hympi-") {
			return os.OpenFile(fd, os.O_RDWR, 0)
		}
	}
	return nil, errors.New("hympirun holds no region descriptor")
}

func runHostile(cfg config, rng *rand.Rand, t int, target string) result {
	res := result{trial: t, what: "hostile " + target}
	checksum := rng.IntN(4) != 0
	mode := []string{"off", "auto", "always"}[rng.IntN(3)]
	env := []string{"HYMPI_DIRECT=" + mode}
	if checksum {
		env = append(env, "HYMPI_CHECKSUM=1")
		res.what += " +sum"
	}
	res.what += " " + mode
	const timeout = 25 * time.Second
	j, err := startJob(cfg, timeout, env, "-duration", "3s", "-maxsize", "300000", "-seed", fmt.Sprint(rng.Uint64()|1))
	if err != nil {
		res.failure = err.Error()
		return res
	}
	hpid := j.cmd.Process.Pid
	pids, err := j.ranks(cfg.ranks)
	var writes []string
	if err == nil {
		writes, err = attack(j, hpid, rng, target)
	}
	code := j.wait(timeout + stopBound + 10*time.Second)
	out := j.out.String()
	res.detail = strings.Join(writes, "\n") + "\n" + out
	if err != nil {
		res.failure = err.Error()
		return res
	}
	switch {
	case crashed(out):
		res.outcome, res.failure = "crash", "a rank crashed"
	case code == 0 && strings.Contains(out, "soak: ok:"):
		res.outcome = "completed"
	case strings.Contains(out, "FAIL (seed"):
		if checksum {
			res.outcome, res.failure = "undetected", "wrong data delivered under HYMPI_CHECKSUM=1"
		} else {
			res.outcome = "wrong-data-unchecked"
		}
	case code == 124:
		res.outcome = "timeout"
		if !mayHang[target] {
			res.failure = "a hang after a write where none may cause one"
		}
	case code == -2:
		res.outcome, res.failure = "hang", "hympirun did not stop the job"
	case code != 0:
		res.outcome = "error"
	default:
		res.outcome, res.failure = "unclear", "exit 0 without the soak's result line"
	}
	if left := leftovers(hpid, pids); left != "" && res.failure == "" {
		res.failure = left
	}
	return res
}

// attack writes into the live region once to three times, at random
// moments, and describes each write.
func attack(j *job, hpid int, rng *rand.Rand, target string) ([]string, error) {
	f, err := regionFile(hpid)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Channels are made as pairs first talk: look again until the target
	// exists (rank blocks and the header exist from the start).
	var pool []shm.Area
	var size int64
	for try := 0; ; try++ {
		r, err := shm.Attach(f)
		if err != nil {
			return nil, fmt.Errorf("attach region: %v", err)
		}
		areas := r.Areas()
		size = r.UsedBytes() // the arena beyond holds no channel yet
		r.Close()
		for _, a := range areas {
			if a.Name == target {
				pool = append(pool, a)
			}
		}
		if len(pool) > 0 || target == "random" {
			break
		}
		select {
		case <-j.done:
			return nil, nil
		case <-time.After(20 * time.Millisecond):
		}
	}
	var log []string
	n, gap := 1+rng.IntN(3), 900
	if bursts[target] {
		// Payload and ring areas are large and mostly idle at any moment:
		// a burst of writes gives live data a fair chance to be hit.
		n, gap = 10+rng.IntN(30), 60
	}
	for i := 0; i < n; i++ {
		select {
		case <-j.done:
			return log, nil
		case <-time.After(time.Duration(gap/9+rng.IntN(gap)) * time.Millisecond):
		}
		var off, span int64
		if target == "random" {
			off, span = rng.Int64N(size), 16
		} else {
			a := pool[rng.IntN(len(pool))]
			off, span = a.Off+rng.Int64N(a.Len), a.Len-(off-a.Off)
			if target == "ring" || target == "coll ring" || target == "cells" {
				// Aim at the start of the structure, where traffic is.
				lim := min(a.Len, 4*shm.SlotSize)
				off = a.Off + rng.Int64N(lim)
			}
			span = a.Off + a.Len - off
		}
		b, how := hostileBytes(f, rng, off, min(span, 8))
		if _, err := f.WriteAt(b, off); err != nil {
			return log, fmt.Errorf("write: %v", err)
		}
		log = append(log, fmt.Sprintf("write %d: %s at offset %d (%s)", i, how, off, target))
	}
	return log, nil
}

// hostileBytes picks what to write at off: a bit flip, zeros, ones or
// random bytes, up to max bytes.
func hostileBytes(f *os.File, rng *rand.Rand, off, max int64) ([]byte, string) {
	n := 1 + rng.Int64N(max)
	b := make([]byte, n)
	switch rng.IntN(4) {
	case 0:
		f.ReadAt(b[:1], off)
		b = b[:1]
		b[0] ^= 1 << rng.IntN(8)
		return b, "bit flip"
	case 1:
		return b, fmt.Sprintf("%d zero bytes", n)
	case 2:
		for i := range b {
			b[i] = 0xff
		}
		return b, fmt.Sprintf("%d 0xff bytes", n)
	}
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b, fmt.Sprintf("%d random bytes", n)
}
