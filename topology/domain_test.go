package topology

import (
	"slices"
	"testing"
)

func TestDomain(t *testing.T) {
	for _, tc := range []struct {
		fixture string
		cpu     int
		kind    string
		want    []int
	}{
		{"twosocket-smt-numa", 1, DomainCore, []int{1, 9}},
		{"twosocket-smt-numa", 9, DomainL3, []int{0, 1, 2, 3, 8, 9, 10, 11}},
		{"twosocket-smt-numa", 5, DomainNUMA, []int{4, 5, 6, 7, 12, 13, 14, 15}},
		{"twosocket-smt-numa", 12, DomainSocket, []int{4, 5, 6, 7, 12, 13, 14, 15}},
		{"onesocket-l3", 2, DomainCore, []int{2}},
		{"onesocket-l3", 2, DomainL3, []int{0, 1, 2, 3}},
		// No L3 and no NUMA directory: the package stands in.
		{"clovertown", 2, DomainL3, []int{0, 2, 4, 6}},
		{"clovertown", 3, DomainNUMA, []int{0, 1, 2, 3, 4, 5, 6, 7}},
		{"clovertown", 3, DomainSocket, []int{1, 3, 5, 7}},
		{"clovertown", 99, DomainSocket, []int{99}},
		{"clovertown", 3, "bogus", []int{3}},
	} {
		m := readFixture(t, tc.fixture)
		if got := m.Domain(tc.cpu, tc.kind); !slices.Equal(got, tc.want) {
			t.Errorf("%s: Domain(%d, %s) = %v, want %v", tc.fixture, tc.cpu, tc.kind, got, tc.want)
		}
	}
}

func TestMapRanks(t *testing.T) {
	for _, tc := range []struct {
		fixture string
		allowed []int
		n       int
		kind    string
		want    []int
	}{
		{"twosocket-smt-numa", nil, 4, DomainCore, []int{0, 1, 2, 3}},
		{"twosocket-smt-numa", nil, 4, "slot", []int{0, 1, 2, 3}},
		// Round-robin over the sockets, each filling its cores first.
		{"twosocket-smt-numa", nil, 4, DomainSocket, []int{0, 4, 1, 5}},
		{"twosocket-smt-numa", nil, 4, DomainNUMA, []int{0, 4, 1, 5}},
		{"twosocket-smt-numa", nil, 4, DomainL3, []int{0, 4, 1, 5}},
		{"twosocket-smt-numa", nil, 18, DomainSocket, []int{0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15, 0, 4}},
		// A full domain is skipped.
		{"twosocket-smt-numa", []int{0, 4, 5, 6}, 4, DomainSocket, []int{0, 4, 5, 6}},
		{"clovertown", nil, 3, DomainSocket, []int{0, 1, 2}},
		{"onesocket-l3", nil, 3, DomainL3, []int{0, 1, 2}},
		{"onesocket-l3", nil, 0, DomainL3, nil},
	} {
		m := readFixture(t, tc.fixture)
		if got := MapRanks(m, tc.allowed, tc.n, tc.kind); !slices.Equal(got, tc.want) {
			t.Errorf("%s: MapRanks(%v, %d, %s) = %v, want %v", tc.fixture, tc.allowed, tc.n, tc.kind, got, tc.want)
		}
	}
}
