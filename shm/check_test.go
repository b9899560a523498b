package shm

import (
	"errors"
	"testing"
)

// TestCheckRegion: the re-validation a blocked wait runs finds each kind of
// damage to the header and the rank blocks, and nothing in a sound region.
func TestCheckRegion(t *testing.T) {
	cases := []struct {
		name   string
		ranks  int
		damage func(r *Region)
		bad    bool
	}{
		{"sound", 3, func(r *Region) {}, false},
		{"sound, 64 ranks (no spare bits)", 64, func(r *Region) { r.Summary(0).Mark(63) }, false},
		{"header ranks", 3, func(r *Region) { r.mem[hdrRanks] = 4 }, true},
		{"header checksum", 3, func(r *Region) { r.mem[hdrChecksum] ^= 1 }, true},
		{"header magic", 3, func(r *Region) { r.mem[hdrMagic] ^= 0x80 }, true},
		{"state out of range", 3, func(r *Region) { r.SetState(2, StateAborted+1) }, true},
		{"summary bit past the ranks", 3, func(r *Region) { r.Summary(1).Mark(3) }, true},
		{"direct bit past the ranks", 70, func(r *Region) { r.DirectBits(0).Mark(127) }, true},
		{"summary bits inside the ranks", 3, func(r *Region) { r.Summary(1).Mark(2) }, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.BudgetBytes, cfg.MinCells, cfg.CellSize = 1<<20, 1, 4096
			r, err := CreateAnonymous(tc.ranks, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			tc.damage(r)
			err = r.CheckHeader()
			for p := 0; p < tc.ranks && err == nil; p++ {
				err = r.CheckRankBlock(p)
			}
			if tc.bad != (err != nil) {
				t.Fatalf("check: %v, want failure %v", err, tc.bad)
			}
			if err != nil && !errors.Is(err, ErrCorrupt) {
				t.Fatalf("check: %v, want ErrCorrupt", err)
			}
		})
	}
}

// TestAreas: the named areas lie inside the region, do not overlap, and
// cover every kind of structure an attacker may aim at.
func TestAreas(t *testing.T) {
	for _, n := range []int{1, 2, 5, 9} {
		r := newAnon(t, n, Config{BudgetBytes: 1 << 20, MaxPoolBytes: 64 << 10, MinCells: 2, CellSize: 256, Slots: 8})
		l := r.L
		for src := range n {
			for dst := range n {
				if src != dst {
					r.Channel(src, dst)
				}
			}
		}
		areas := r.Areas()
		kinds := map[string]bool{}
		for i, a := range areas {
			kinds[a.Name] = true
			if a.Off < 0 || a.Len <= 0 || a.Off+a.Len > l.Size {
				t.Fatalf("%d ranks: %s at %d+%d outside the region (%d)", n, a.Name, a.Off, a.Len, l.Size)
			}
			for _, b := range areas[i+1:] {
				if a.Off < b.Off+b.Len && b.Off < a.Off+a.Len {
					t.Fatalf("%d ranks: %s at %d+%d overlaps %s at %d+%d", n, a.Name, a.Off, a.Len, b.Name, b.Off, b.Len)
				}
			}
		}
		want := 7
		if n > 1 {
			want = 14
		}
		if len(kinds) != want {
			t.Errorf("%d ranks: %d kinds of area %v, want %d", n, len(kinds), kinds, want)
		}
	}
}
