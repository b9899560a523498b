package osu

import "testing"

func TestParseBuffers(t *testing.T) {
	for _, ok := range []string{"reuse", "fresh"} {
		if got, err := ParseBuffers(ok); err != nil || got != ok {
			t.Errorf("ParseBuffers(%q) = %q, %v", ok, got, err)
		}
	}
	for _, bad := range []string{"", "Fresh", "cold", "reuse "} {
		if _, err := ParseBuffers(bad); err == nil {
			t.Errorf("ParseBuffers(%q) accepted", bad)
		}
	}
}

func TestFreshPoolSize(t *testing.T) {
	const MiB, GiB = 1 << 20, 1 << 30
	tests := []struct {
		name          string
		llc, memTotal int64
		ranks         int
		want          int64
	}{
		{"unknown machine: the floor", 0, 0, 2, 64 * MiB},
		{"small cache: the floor", 8 * MiB, 16 * GiB, 2, 64 * MiB},
		{"large cache: the cache", 480 * MiB, 24 * GiB, 2, 480 * MiB},
		{"rounded down to MiB", 100*MiB + 12345, 24 * GiB, 2, 100 * MiB},
		{"huge cache: the ceiling", 4 * GiB, 256 * GiB, 2, GiB},
		{"memory cap: every pool of the job in half the memory", 480 * MiB, 2 * GiB, 4, 128 * MiB},
		{"memory cap below the floor", 0, 1 * GiB, 8, 32 * MiB},
		{"never below 1 MiB", 0, 16 * MiB, 64, MiB},
	}
	for _, tt := range tests {
		if got := FreshPoolSize(tt.llc, tt.memTotal, tt.ranks); got != tt.want {
			t.Errorf("%s: FreshPoolSize(%d, %d, %d) = %d MiB, want %d MiB",
				tt.name, tt.llc, tt.memTotal, tt.ranks, got/MiB, tt.want/MiB)
		}
	}
}

func TestSlotStride(t *testing.T) {
	tests := []struct{ size, want int }{
		{0, 64}, {1, 64}, {64, 64}, {65, 128}, {4095, 4096}, {4096, 4096}, {4097, 8192}, {1 << 20, 1 << 20},
	}
	for _, tt := range tests {
		if got := SlotStride(tt.size, 4096); got != tt.want {
			t.Errorf("SlotStride(%d) = %d, want %d", tt.size, got, tt.want)
		}
	}
}

// TestSlotStep checks that the walk is a permutation of the slots and that
// consecutive slots are far apart.
func TestSlotStep(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 10, 16, 64, 100, 1000, 1 << 14, 7680} {
		step := SlotStep(n)
		if n == 1 {
			if step != 0 {
				t.Errorf("SlotStep(1) = %d, want 0", step)
			}
			continue
		}
		seen := make([]bool, n)
		k := 0
		for range n {
			if seen[k] {
				t.Fatalf("SlotStep(%d) = %d: slot %d visited twice", n, step, k)
			}
			seen[k] = true
			k = (k + step) % n
		}
		if k != 0 {
			t.Errorf("SlotStep(%d) = %d: walk does not return to 0", n, step)
		}
		if n >= 10 && (step < n/2 || step > n-n/4) {
			t.Errorf("SlotStep(%d) = %d: not near n/φ", n, step)
		}
	}
}
