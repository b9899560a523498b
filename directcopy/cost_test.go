package directcopy

import (
	"math"
	"testing"
)

// ReadCost is a ratio of two measured times: positive and finite whatever
// the machine, 1 exactly when the read cannot be measured, and SlowReads
// agrees with it.
func TestReadCost(t *testing.T) {
	for _, n := range []int{4 << 10, 64 << 10, 1 << 20} {
		r := measureCost(n, 2)
		if !(r > 0) || math.IsInf(r, 0) {
			t.Errorf("measureCost(%d) = %v, want a positive finite ratio", n, r)
		}
		if SelfProbe() != nil && r != 1 {
			t.Errorf("measureCost(%d) = %v without process_vm_readv, want 1", n, r)
		}
	}
	if got, want := SlowReads(), ReadCost() > SlowReadRatio; got != want {
		t.Errorf("SlowReads() = %v with ReadCost() = %v", got, ReadCost())
	}
	t.Logf("read/copy cost ratio here: %.2f", ReadCost())
}
