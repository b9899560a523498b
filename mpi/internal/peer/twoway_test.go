package peer

import (
	"strings"
	"testing"
)

// TestTwoWay: traffic is two-way only while each side sends at least about
// half as many large messages as the other, and a one-way stream turns it
// one-way again within a bounded number of messages.
func TestTwoWay(t *testing.T) {
	tests := []struct {
		name string
		ops  string // s: a large message sent, r: one received
		want bool
	}{
		{"nothing yet", "", false},
		{"sends only", "ssssssss", false},
		{"receives only", "rrrrrrrr", false},
		{"one each", "sr", true},
		{"windows both ways", "ssssrrrrssssrrrr", true},
		{"one reply per window", "ssssssssrssssssss", false},
		{"every other reply", "ssrssrssrssr", true},
		{"stream after exchange", "srsrsrsr" + strings.Repeat("s", 8), false},
		{"long exchange, then a one-way window", strings.Repeat("sr", 200) + strings.Repeat("s", twoWayCap), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var w TwoWay
			for _, c := range tc.ops {
				if c == 's' {
					w.Sent()
				} else {
					w.Received()
				}
				if w.in < 0 || w.out < 0 || w.in > twoWayCap || w.out > twoWayCap {
					t.Fatalf("credits %d/%d out of [0, %d]", w.in, w.out, twoWayCap)
				}
			}
			if got := w.Both(); got != tc.want {
				t.Errorf("Both after %q = %v, want %v (credits in %d, out %d)", tc.ops, got, tc.want, w.in, w.out)
			}
		})
	}
}
