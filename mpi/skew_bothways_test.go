//go:build !ompi && !mpich

package mpi

import (
	"testing"

	"github.com/hympi/hympi/mpi/internal/peer"
)

// readBothWays pins where the eager protocol stops both ways: a message
// above bothWaysEagerMax to a peer that sends as many large messages back
// is read; one way, or at the limit, the skew rules decide as before.
func TestReadBothWays(t *testing.T) {
	for _, tc := range []struct {
		name            string
		sent, got, more int // large messages sent, then received, then sent
		n               int
		want            bool
	}{
		{"one way, large", 64, 0, 0, 4 << 20, false},
		{"one way with a reply, large", 64, 1, 2, 1 << 20, false},
		{"both ways, at the limit", 64, 64, 0, bothWaysEagerMax, false},
		{"both ways, just above", 64, 64, 0, bothWaysEagerMax + 1, true},
		{"both ways, 4 MiB", 64, 64, 0, 4 << 20, true},
		{"both ways, a window on", 64, 64, 64, 1 << 20, true},
		{"only received, large", 0, 64, 0, 1 << 20, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s peer.Skew
			for range tc.sent {
				s.Dir.Sent()
			}
			for range tc.got {
				s.Dir.Received()
			}
			for range tc.more {
				s.Dir.Sent()
			}
			if got := readBothWays(&s, tc.n); got != tc.want {
				t.Errorf("readBothWays(%d B) after %d sent, %d received, %d sent = %v, want %v", tc.n, tc.sent, tc.got, tc.more, got, tc.want)
			}
		})
	}
}
