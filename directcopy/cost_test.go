package directcopy

import (
	"math"
	"testing"
	"time"
)

// ReadCost is a ratio of two measured times: positive and finite whatever
// the machine, 1 exactly when the read cannot be measured (and then no
// read time), and SlowReads agrees with it; ReadTimeKnown scales the read
// time with the size once ReadCost has run.
func TestReadCost(t *testing.T) {
	for _, n := range []int{4 << 10, 64 << 10, 1 << 20} {
		r, read := measureCost(n, 2)
		if !(r > 0) || math.IsInf(r, 0) {
			t.Errorf("measureCost(%d) = %v, want a positive finite ratio", n, r)
		}
		if SelfProbe() != nil && (r != 1 || read != 0) {
			t.Errorf("measureCost(%d) = %v, %v without process_vm_readv, want 1, 0", n, r, read)
		}
		if SelfProbe() == nil && read <= 0 {
			t.Errorf("measureCost(%d) read time %v, want positive", n, read)
		}
	}
	if got, want := SlowReads(), ReadCost() > SlowReadRatio; got != want {
		t.Errorf("SlowReads() = %v with ReadCost() = %v", got, ReadCost())
	}
	if SelfProbe() == nil {
		one, ok1 := ReadTimeKnown(1 << 20)
		two, ok2 := ReadTimeKnown(2 << 20)
		if !ok1 || !ok2 || one <= 0 || two < 2*one-1 || two > 2*one+1 {
			t.Errorf("ReadTimeKnown: 1 MiB %v (%v), 2 MiB %v (%v), want positive and proportional", one, ok1, two, ok2)
		}
	}
	t.Logf("read/copy cost ratio here: %.2f", ReadCost())
}

// A burst of interference as long as one side's rounds, wherever it falls
// in the measurement, must not change the ratio: some rounds of both sides
// stay clean. (All reads then all copies, as before, let such a burst over
// the copies alone cut the ratio by its factor.)
func TestLeastOfAlternatingBurst(t *testing.T) {
	const rounds, burst = costRounds, costRounds + 1
	const read, cp = 100 * time.Microsecond, 40 * time.Microsecond
	total := 2 * (rounds + 1)
	for start := -burst; start < total; start++ {
		at := 0
		clock := func(d time.Duration) func() (time.Duration, bool) {
			return func() (time.Duration, bool) {
				i := at
				at++
				if i >= start && i < start+burst {
					return 10 * d, true
				}
				return d, true
			}
		}
		ta, tb, ok := leastOfAlternating(rounds, clock(read), clock(cp))
		if !ok || ta != read || tb != cp {
			t.Errorf("burst at timing %d: got read %v, copy %v (ok %v), want %v and %v", start, ta, tb, ok, read, cp)
		}
		if at != total {
			t.Errorf("burst at timing %d: %d timings, want %d", start, at, total)
		}
	}
	fail := func() (time.Duration, bool) { return time.Microsecond, false }
	if _, _, ok := leastOfAlternating(rounds, clock0, fail); ok {
		t.Error("a failing side still gave a result")
	}
}

func clock0() (time.Duration, bool) { return time.Microsecond, true }
