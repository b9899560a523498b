package main

import (
	"fmt"
	"io"
	"time"

	"github.com/hympi/hympi/mpi"
)

// Adaptation run (-adapt): how many messages the producer needs before the
// skew controller moves its sends to the eager protocol when the consumer
// falls behind, and how many before they return to direct copy once it has
// caught up. Three phases of -adapt windows each, all of size S = the first
// of -S: calm (c2 = 0), skewed (c2 = the first of -c2), calm again. The
// producer records, for each of its sends, the protocol it took (from
// mpi.Counters) and when; a phase's figure is the first message from which
// every later send of the phase took the protocol the phase calls for.

// phaseResult is one phase of the adaptation run, as seen by the producer.
type phaseResult struct {
	name   string
	want   string // "eager" or "direct"
	msgs   int    // sends in the phase
	settle int    // 1-based index of the first send from which all took want; 0 if never
	after  time.Duration
	eager  int
}

func adapt(c *mpi.Comm, o options, windows int, stdout io.Writer) error {
	size := o.sizes[0]
	buf := touched(max(size, 1), byte('a'+c.Rank()))
	c1d, skewed := micros(o.c1), micros(o.c2[0])
	phases := []struct {
		name string
		c2   time.Duration
		want string
	}{{"calm", 0, "direct"}, {"skewed", skewed, "eager"}, {"recovered", 0, "direct"}}
	reqs := make([]*mpi.Request, o.window)
	var results []phaseResult
	for _, ph := range phases {
		res := phaseResult{name: ph.name, want: ph.want}
		var eagerAt []bool
		var startedAt []time.Duration
		var t0 time.Time
		for w := range windows {
			check(c, size, c.Barrier())
			if w == 0 {
				// The phase starts once both ranks are in it: the
				// consumer has worked off the previous phase.
				t0 = time.Now()
			}
			if c.Rank() != 0 {
				for range o.window {
					_, err := c.Recv(buf, 0, tagData)
					check(c, size, err)
					spin(ph.c2)
				}
				continue
			}
			for j := range reqs {
				spin(c1d)
				before := mpi.Counters(1).EagerMsgs
				at := time.Since(t0)
				r, err := c.Isend(buf, 1, tagData)
				check(c, size, err)
				reqs[j] = r
				eagerAt = append(eagerAt, mpi.Counters(1).EagerMsgs > before)
				startedAt = append(startedAt, at)
			}
			_, err := mpi.Waitall(reqs)
			check(c, size, err)
		}
		if c.Rank() != 0 {
			continue
		}
		res.msgs = len(eagerAt)
		res.settle = res.msgs + 1
		for i := res.msgs - 1; i >= 0; i-- {
			if eagerAt[i] != (ph.want == "eager") {
				break
			}
			res.settle = i + 1
		}
		if res.settle > res.msgs {
			res.settle = 0
		} else {
			res.after = startedAt[res.settle-1]
		}
		for _, e := range eagerAt {
			if e {
				res.eager++
			}
		}
		results = append(results, res)
	}
	if c.Rank() != 0 {
		return nil
	}
	fmt.Fprintf(stdout, "# hympi osu_skew -adapt: S=%d, window n=%d, c1=%g us, skewed phase c2=%g us, %d windows per phase\n",
		size, o.window, o.c1, o.c2[0], windows)
	fmt.Fprintf(stdout, "# settled: first send from which every later send of the phase took the wanted protocol\n")
	fmt.Fprintf(stdout, "# %-10s %-7s %6s %6s %8s %12s\n", "phase", "wants", "sends", "eager", "settled", "after_us")
	for _, r := range results {
		settled := "never"
		after := "-"
		if r.settle > 0 {
			settled = fmt.Sprint(r.settle)
			after = fmt.Sprintf("%.1f", us(r.after))
		}
		if _, err := fmt.Fprintf(stdout, "  %-10s %-7s %6d %6d %8s %12s\n", r.name, r.want, r.msgs, r.eager, settled, after); err != nil {
			return err
		}
	}
	return nil
}
