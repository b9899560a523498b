//go:build !ompi && !mpich

package mpi

import (
	"fmt"
	"testing"
)

// TestGateAllocs: Barrier and small Allreduce through the gate allocate
// nothing in steady state, blocking or nonblocking, and do take the gate
// (12 in-process ranks made oversubscribed on 2 CPUs).
func TestGateAllocs(t *testing.T) {
	const n = 12
	comms := inProcessJob(t, n)
	for _, c := range comms {
		c.e.setCPUs(2)
	}
	var gateCases []allocCase
	for _, tc := range allocCases {
		if tc.name == "Barrier" || tc.name == "Allreduce" {
			gateCases = append(gateCases, tc)
		}
	}
	if len(gateCases) != 2 {
		t.Fatalf("found %d of the Barrier and Allreduce alloc cases", len(gateCases))
	}
	for _, tc := range gateCases {
		for _, form := range []string{"blocking", "nonblocking"} {
			t.Run(fmt.Sprintf("%s/%s", tc.name, form), func(t *testing.T) {
				if allocs := measureAllocs(t, comms, 8, 20, tc, form); allocs != 0 {
					t.Errorf("%v allocations per call, want 0", allocs)
				}
			})
		}
	}
	for _, c := range comms {
		if c.gate.state != gateOn || c.gate.done == 0 || c.gate.done != c.gate.next {
			t.Errorf("rank %d: gate state %d, %d of %d gate collectives done", c.rank, c.gate.state, c.gate.done, c.gate.next)
		}
	}
}
