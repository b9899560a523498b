package shm

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestDoorbellRingWithoutSleeper(t *testing.T) {
	r := newAnon(t, 2, tinyConfig)
	d := r.Doorbell(1)
	for range 10 {
		d.Ring()
	}
	if s := d.seq.Load(); s != 0 {
		t.Fatalf("Ring with nobody armed bumped seq to %d", s)
	}
	s := d.Arm()
	if d.sleepers.Load() != 1 {
		t.Fatalf("sleepers = %d after Arm", d.sleepers.Load())
	}
	d.Ring()
	if got := d.seq.Load(); got != s+1 {
		t.Fatalf("Ring with a sleeper: seq %d, want %d", got, s+1)
	}
	// The bell has rung since Arm: Wait must not sleep.
	start := time.Now()
	d.Wait(s, 10*time.Second)
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("Wait on a stale seq slept %v", el)
	}
	d.Disarm()
	if d.sleepers.Load() != 0 {
		t.Fatalf("sleepers = %d after Disarm", d.sleepers.Load())
	}
	d.Ring()
	if got := d.seq.Load(); got != s+1 {
		t.Fatalf("Ring after Disarm bumped seq to %d", got)
	}
	// The other rank's bell is a different word.
	if o := r.Doorbell(0); o.seq.Load() != 0 || o.sleepers.Load() != 0 {
		t.Fatalf("ringing rank 1 touched rank 0's doorbell")
	}
}

func TestDoorbellWaitTimeout(t *testing.T) {
	r := newAnon(t, 1, tinyConfig)
	d := r.Doorbell(0)
	for _, timeout := range []time.Duration{0, -time.Second, time.Millisecond, 30 * time.Millisecond} {
		s := d.Arm()
		start := time.Now()
		d.Wait(s, timeout)
		d.Disarm()
		if el := time.Since(start); el > timeout+2*time.Second {
			t.Errorf("Wait(%v) with nobody ringing returned after %v", timeout, el)
		}
	}
}

// TestDoorbellWakes: a waiter asleep with a long timeout is woken promptly by
// Ring from another goroutine, many times in a row, using the documented
// protocol on both sides (so no wakeup may be lost).
func TestDoorbellWakes(t *testing.T) {
	r := newAnon(t, 2, tinyConfig)
	bell := r.Doorbell(1)
	var work atomic.Int64 // "published work": the ringer's count
	const rounds = 300
	const long = 20 * time.Second

	done := make(chan time.Duration)
	go func() {
		var worst time.Duration
		for want := int64(1); want <= rounds; want++ {
			start := time.Now()
			for work.Load() < want {
				s := bell.Arm()
				if work.Load() < want { // re-check after arming
					bell.Wait(s, long)
				}
				bell.Disarm()
			}
			worst = max(worst, time.Since(start))
		}
		done <- worst
	}()
	for range rounds {
		// Give the waiter time to fall asleep now and then.
		if work.Load()%10 == 0 {
			time.Sleep(time.Millisecond)
		}
		work.Add(1)
		bell.Ring()
	}
	select {
	case worst := <-done:
		if worst > 5*time.Second {
			t.Errorf("a wakeup took %v", worst)
		}
	case <-time.After(long / 2):
		t.Fatalf("waiter still asleep after %v: a Ring was lost", long/2)
	}
}

// TestDoorbellSleeps: a waiter that nobody rings really sleeps (Wait does
// not return at once, over and over), and a later Ring ends the sleep.
func TestDoorbellSleeps(t *testing.T) {
	r := newAnon(t, 2, tinyConfig)
	bell := r.Doorbell(0)
	var returns atomic.Int64 // times Wait returned
	done := make(chan struct{})
	armed := make(chan struct{})
	go func() {
		defer close(done)
		s := bell.Arm()
		close(armed)
		for bell.seq.Load() == s {
			bell.Wait(s, 10*time.Second) // spurious returns are allowed, but rare
			returns.Add(1)
		}
		bell.Disarm()
	}()
	<-armed
	time.Sleep(100 * time.Millisecond)
	if n := returns.Load(); n > 20 {
		t.Errorf("Wait returned %d times in 100ms with nobody ringing: it does not sleep", n)
	}
	start := time.Now()
	bell.Ring()
	select {
	case <-done:
		if el := time.Since(start); el > 2*time.Second {
			t.Errorf("Ring took %v to wake the sleeper", el)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("Ring did not wake the sleeper")
	}
}

func TestSummary(t *testing.T) {
	const n = 130 // three words, the last one partial
	r := newAnon(t, n, tinyConfig)
	if r.L.SummaryWords != 3 {
		t.Fatalf("SummaryWords = %d for %d ranks", r.L.SummaryWords, n)
	}
	s := r.Summary(7)
	if s.Words() != 3 {
		t.Fatalf("Words() = %d", s.Words())
	}
	words := func() [3]uint64 { return [3]uint64{s.Word(0), s.Word(1), s.Word(2)} }
	for _, c := range []struct {
		src  int
		word int
		bit  uint64
	}{
		{0, 0, 1}, {1, 0, 2}, {63, 0, 1 << 63}, {64, 1, 1}, {65, 1, 2},
		{127, 1, 1 << 63}, {128, 2, 1}, {129, 2, 2},
	} {
		s.Mark(c.src)
		want := [3]uint64{}
		want[c.word] = c.bit
		if got := words(); got != want {
			t.Errorf("Mark(%d): words %#x, want %#x", c.src, got, want)
		}
		s.Mark(c.src) // idempotent
		if got := words(); got != want {
			t.Errorf("Mark(%d) twice: words %#x", c.src, got)
		}
		s.Clear(c.src)
		if got := words(); got != ([3]uint64{}) {
			t.Errorf("Clear(%d): words %#x", c.src, got)
		}
	}
	// Clear leaves the neighbours alone.
	for _, src := range []int{62, 63, 64, 65, 129} {
		s.Mark(src)
	}
	s.Clear(64)
	if got := words(); got != [3]uint64{3 << 62, 2, 2} {
		t.Errorf("after Clear(64): %#x", got)
	}
	s.Clear(129)
	s.Clear(0) // not set: no effect
	if got := words(); got != [3]uint64{3 << 62, 2, 0} {
		t.Errorf("after Clear(129), Clear(0): %#x", got)
	}

	// Every rank's summary is its own, and no summary touches a doorbell.
	for rank := range n {
		if rank != 7 {
			if w := r.Summary(rank); w.Word(0)|w.Word(1)|w.Word(2) != 0 {
				t.Fatalf("rank %d's summary changed through rank 7's", rank)
			}
		}
		if d := r.Doorbell(rank); d.seq.Load() != 0 || d.sleepers.Load() != 0 {
			t.Fatalf("rank %d's doorbell changed", rank)
		}
	}
}

// TestSummaryConcurrentMarks: every sender marks at once; no bit is lost.
func TestSummaryConcurrentMarks(t *testing.T) {
	const n = 130
	r := newAnon(t, n, tinyConfig)
	s := r.Summary(n - 1)
	for round := range 20 {
		var wg sync.WaitGroup
		for src := range n {
			wg.Go(func() { s.Mark(src) })
		}
		wg.Wait()
		if got := [3]uint64{s.Word(0), s.Word(1), s.Word(2)}; got != [3]uint64{^uint64(0), ^uint64(0), 3} {
			t.Fatalf("round %d: after %d concurrent Marks: %#x", round, n, got)
		}
		for src := range n {
			wg.Go(func() { s.Clear(src) })
		}
		wg.Wait()
		if got := s.Word(0) | s.Word(1) | s.Word(2); got != 0 {
			t.Fatalf("round %d: after concurrent Clears: %#x", round, got)
		}
	}
}
