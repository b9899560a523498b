package main

import (
	"testing"

	"github.com/hympi/hympi/topology"
)

// TestReport: --report-bindings lines in Open MPI's form, on a two-socket
// machine with two hardware threads per core (cpus n and n+8 share a core).
func TestReport(t *testing.T) {
	m, err := topology.Read("../../topology/testdata/twosocket-smt-numa")
	if err != nil {
		t.Fatal(err)
	}
	all := m.IDs()
	for _, tc := range []struct {
		name string
		sets [][]int
		want string
	}{
		{"unbound", nil, "MCW rank 0 is not bound (or bound to all available processors)"},
		{"bound to everything", [][]int{all}, "MCW rank 0 is not bound (or bound to all available processors)"},
		{"one thread", [][]int{{1}}, "MCW rank 0 bound to socket 0[core 1[hwt 0]]: [../B./../..][../../../..]"},
		{"second thread of a core on socket 1", [][]int{{13}}, "MCW rank 0 bound to socket 1[core 1[hwt 1]]: [../../../..][../.B/../..]"},
		{"two cores", [][]int{{0, 1, 9}}, "MCW rank 0 bound to socket 0[core 0[hwt 0]], socket 0[core 1[hwt 0-1]]: [B./BB/../..][../../../..]"},
		{"a CPU the tree does not know", [][]int{{3, 40}}, "MCW rank 0 bound to socket 0[core 3[hwt 0]], cpu 40: [../../../B.][../../../..]"},
		{"a core", [][]int{{4, 12}}, "MCW rank 0 bound to socket 1[core 0[hwt 0-1]]: [../../../..][BB/../../..]"},
	} {
		b := &binder{allowed: all, machine: m, sets: tc.sets}
		if got := b.report(0); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
