//go:build !ompi && !mpich

package mpi

import (
	"bytes"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/hympi/hympi/directcopy"
	"github.com/hympi/hympi/mpi/internal/progress"
	"golang.org/x/sys/unix"
)

// TestReadSpin: a wait with rendezvous sends outstanding spins about as
// long as their reads take, never past progress.ReadSpinMax, and not at all when
// oversubscribed (the spin would take the reader's CPU) or with nothing
// for peers to read.
func TestReadSpin(t *testing.T) {
	e := newEngine(0, 2, nil, 2)
	if d := e.readSpinFor(); d != 0 {
		t.Errorf("no rendezvous outstanding: spin %v, want 0", d)
	}
	e.pendingDirect, e.pendingDirectBytes = 1, 2<<20
	if d := e.readSpinFor(); d < 100*time.Microsecond || d > progress.ReadSpinMax {
		t.Errorf("2 MiB outstanding: spin %v, want 100µs..%v", d, progress.ReadSpinMax)
	}
	e.pendingDirect, e.pendingDirectBytes = 3, 1<<30
	if d := e.readSpinFor(); d != progress.ReadSpinMax {
		t.Errorf("1 GiB outstanding: spin %v, want the cap %v", d, progress.ReadSpinMax)
	}
	o := newEngine(0, 4, nil, 2)
	o.pendingDirect, o.pendingDirectBytes = 1, 2<<20
	if d := o.readSpinFor(); d != 0 {
		t.Errorf("oversubscribed: spin %v, want 0", d)
	}
}

// TestJobCPUs: bound ranks count the distinct CPUs they are bound to (two on
// one CPU are oversubscribed on any machine); unbound ranks count the CPUs
// they may run on.
func TestJobCPUs(t *testing.T) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cpus []int
		want int
	}{
		{[]int{0, 1, 0, 1}, 2},
		{[]int{0, 0}, 1},
		{[]int{3, 1, 2}, 3},
		{[]int{0, -1}, min(set.Count(), onlineCPUs())},
	} {
		comms := inProcessJob(t, len(tc.cpus))
		region := comms[0].e.region
		for r, cpu := range tc.cpus {
			region.Publish(r, cpu, 0)
			region.MarkAttached(r, os.Getpid())
		}
		if got := comms[0].e.jobCPUs(); got != tc.want {
			t.Errorf("ranks on CPUs %v: jobCPUs %d, want %d", tc.cpus, got, tc.want)
		}
	}
}

// TestOversubCollEager: oversubscribed, collective messages up to
// oversubCollEagerMax go eager in auto mode, and in a job of two ranks
// with a CPU each where reads are slow those from pairCollEagerMin up;
// point-to-point ones, other sizes, HYMPI_DIRECT=always, fast reads and
// larger jobs with a CPU per rank keep their protocol.
func TestOversubCollEager(t *testing.T) {
	e := inProcessJob(t, 2)[0].e
	e.ep(1).Counters.Threshold = 2048
	e.setupSkew()
	e.skew.on = false
	e.ep(1).DirectOK = true
	coll, p2p := uint32(ctxWorld+1), uint32(ctxWorld)
	check := func(what string, ctx uint32, n int, want bool) {
		t.Helper()
		if got := e.useDirect(1, ctx, n); got != want {
			t.Errorf("%s, ctx %d, %d bytes: direct %v, want %v", what, ctx, n, got, want)
		}
	}
	e.mode = directAuto
	e.skew.readsSlow = -1 // reads as cheap as the eager stream
	e.setCPUs(2)
	check("CPU per rank", coll, 64<<10, true)
	check("CPU per rank", p2p, 64<<10, true)
	check("two ranks, fast reads", coll, pairCollEagerMin, true)
	check("two ranks, fast reads", coll, 64<<20, true)
	e.skew.readsSlow = 1
	e.setCPUs(2)
	check("two ranks", coll, pairCollEagerMin-1, true)
	check("two ranks", coll, pairCollEagerMin, false)
	check("two ranks", coll, 64<<20, false)
	check("two ranks", p2p, 1<<20, true)
	check("two ranks", coll, 1024, false)
	// After a slow copy (enqueueEagerTimed) the next messages go by the
	// threshold, then eager again.
	e.pairBackoff = 2
	check("two ranks, backing off", coll, 1<<20, true)
	check("two ranks, backing off", p2p, 1<<20, true)
	check("two ranks, backing off", coll, 1<<20, true)
	check("two ranks, backed off", coll, 1<<20, false)
	e.setCPUs(1)
	check("oversubscribed", coll, 64<<10, false)
	check("oversubscribed", coll, oversubCollEagerMax, false)
	check("oversubscribed", coll, oversubCollEagerMax+1, true)
	check("oversubscribed", p2p, 64<<10, true)
	check("oversubscribed", p2p, 1024, false)
	e.mode = directAlways
	check("always, oversubscribed", coll, 64<<10, true)
	e.setCPUs(2)
	check("always, two ranks", coll, 1<<20, true)

	// Three ranks with a CPU each: the threshold alone.
	e3 := inProcessJob(t, 3)[0].e
	e3.ep(1).Counters.Threshold = 2048
	e3.setupSkew()
	e3.skew.on = false
	e3.ep(1).DirectOK = true
	e3.mode = directAuto
	e3.skew.readsSlow = 1
	e3.setCPUs(3)
	for _, n := range []int{64 << 10, pairCollEagerMin, 1 << 20} {
		if !e3.useDirect(1, coll, n) {
			t.Errorf("three ranks, a CPU each, %d bytes: eager, want direct", n)
		}
	}
}

// TestStrayBitWithoutChannel: a summary bit for a peer that has made no
// channel to us (a stray write) is dropped, not an error and not a bit
// looked at on every pass; the peer's real first message still arrives.
func TestStrayBitWithoutChannel(t *testing.T) {
	comms := inProcessJob(t, 3)
	e := comms[0].e
	e.summary.Mark(2)
	e.mu.Lock()
	e.progress()
	stuck, fatal := e.summary.Has(2), e.fatal
	e.mu.Unlock()
	if stuck || fatal != nil {
		t.Fatalf("after a pass: bit still set %v, fatal %v", stuck, fatal)
	}
	runRanks(t, comms, func(c *Comm) error {
		switch c.Rank() {
		case 2:
			return c.Send([]byte("first"), 0, 7)
		case 0:
			buf := make([]byte, 8)
			st, err := c.Recv(buf, 2, 7)
			if err == nil && string(buf[:st.Count]) != "first" {
				err = fmt.Errorf("got %q", buf[:st.Count])
			}
			return err
		}
		return nil
	})
}

// TestPairEagerBackoff: in a two-rank job, a second eager collective
// message in a row whose copy into the cells counts as slow sends the
// following ones by direct copy; the first, on cells never used, is not
// judged; copies that are never slow keep every message eager. The
// broadcasts are checked whatever their protocol.
func TestPairEagerBackoff(t *testing.T) {
	const pairBackoffRounds = 8
	if directcopy.SelfProbe() != nil {
		t.Skip("no process_vm_readv here: the pair rule needs a read to compare with")
	}
	directcopy.ReadCost() // the yardstick enqueueEagerTimed compares with
	for _, tc := range []struct {
		name       string
		slow       float64 // pairEagerSlowCopy
		wantDirect bool
	}{
		{"every copy slow", 0, true},
		{"no copy slow", 1e12, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func(v float64) { pairEagerSlowCopy = v }(pairEagerSlowCopy)
			pairEagerSlowCopy = tc.slow
			comms := inProcessDirectJob(t, 2, directAuto)
			for _, c := range comms {
				for p := range c.e.size {
					c.e.ep(p).Counters.Threshold = 32 << 10
				}
				c.e.setupSkew()
				c.e.skew.readsSlow = 1
				c.e.setCPUs(2)
			}
			n := pairCollEagerMin
			runRanks(t, comms, func(c *Comm) error {
				buf, want := make([]byte, n), make([]byte, n)
				for k := range pairBackoffRounds {
					fill(want, k)
					if c.Rank() == 0 {
						fill(buf, k)
					} else {
						clear(buf)
					}
					if err := c.Bcast(buf, 0); err != nil {
						return err
					}
					if !bytes.Equal(buf, want) {
						return fmt.Errorf("Bcast %d: wrong data", k)
					}
					// The receiver has handed every cell back before the
					// root's next copy: that copy reuses them, and is judged.
					if err := c.Barrier(); err != nil {
						return err
					}
				}
				return nil
			})
			pc := comms[0].e.ep(1).Counters
			if got := pc.DirectMsgs > 0; got != tc.wantDirect {
				t.Errorf("direct messages %d, want some: %v (%+v)", pc.DirectMsgs, tc.wantDirect, pc)
			}
			// A copy that found the receiver's cells not yet handed back
			// went into fresh ones and is not judged, so the two slow
			// copies in a row may come later than the second and third.
			if tc.wantDirect && (pc.EagerBytes < 3*uint64(n) || pc.EagerMsgs < 3) {
				t.Errorf("eager bytes %d, eager messages %d: want at least the first three broadcasts eager (%+v)",
					pc.EagerBytes, pc.EagerMsgs, pc)
			}
		})
	}
}
