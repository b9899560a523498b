package progress

import "time"

// The cadence of a wait's side duties, and how long it spins for reads.
const (
	// ReadSpinRate is the read speed, in bytes per microsecond, that a
	// wait for FINs assumes when it sizes its spin (ReadSpin): about the
	// cold-buffer rate of one process_vm_readv here (README: ~4 GB/s), so
	// a warm read finishes well inside the spin.
	ReadSpinRate = 4000
	// ReadSpinMax caps that spin: a receiver that has not posted its
	// receive yet may keep us waiting for any time, and beyond this we
	// yield and sleep as any other wait does.
	ReadSpinMax = 2 * time.Millisecond
	// BlockedAfter is the idle passes a wait makes before it starts
	// counting as time blocked in MPI (the skew verdicts subtract it):
	// shorter waits (small-message round trips) never read the clock,
	// whose two reads (~50-100 ns here) were measurable in osu_latency at
	// 128 B-1 KiB with 16. What a wait leaves out is about a microsecond,
	// under half a direct copy of any message above the thresholds in use.
	BlockedAfter = 64
	// SweepEvery bounds the time between sweeps (a look at every incoming
	// channel and at the region's header) of a wait that does not sleep.
	SweepEvery = 5 * time.Millisecond
	// SweepPasses is how many passes of a wait go by between looks at the
	// clock for SweepEvery.
	SweepPasses = 1024
)

// ReadSpin is how long a wait keeps spinning, past its pass budget, while
// peers still have pending bytes of ours to read: the time their reads
// should take, at most ReadSpinMax. Without it the sender of a large
// message (a 2 MiB read takes 150-300 µs) ran out of its pass budget,
// yielded and went to futex sleep in the middle of the read, and the FIN
// then paid the wake-up; in ping-pong both ranks do so every round trip.
// Measured on the 2-core VM (osu_latency, 2 ranks bound): 2 MiB 330 µs
// with the sleep, 186 µs spinning through the read, Open MPI 179 µs (its
// CMA path polls without ever sleeping).
func ReadSpin(pending int) time.Duration {
	return min(time.Duration(pending/ReadSpinRate)*time.Microsecond, ReadSpinMax)
}
