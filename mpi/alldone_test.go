//go:build !ompi && !mpich

package mpi

import "testing"

// allDoneFrom must agree with allDone on every list, and leave from at the
// first request it has not seen done, so a later call resumes there.
func TestAllDoneFrom(t *testing.T) {
	done, open := &Request{&reqBody{done: true}}, &Request{&reqBody{}}
	for _, tc := range []struct {
		name     string
		reqs     []*Request
		from     int
		want     bool
		wantFrom int
	}{
		{"empty", nil, 0, true, 0},
		{"all done", []*Request{done, nil, done}, 0, true, 3},
		{"stops at the first open", []*Request{done, nil, open, done}, 0, false, 2},
		{"resumes at from", []*Request{open, done, done}, 1, true, 3},
		{"open at from", []*Request{done, open}, 1, false, 1},
		{"only nils", []*Request{nil, nil}, 0, true, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			from := tc.from
			if got := allDoneFrom(tc.reqs, &from); got != tc.want || from != tc.wantFrom {
				t.Errorf("allDoneFrom = %v, from %d; want %v, from %d", got, from, tc.want, tc.wantFrom)
			}
			if tc.from == 0 && allDone(tc.reqs) != tc.want {
				t.Errorf("allDone disagrees: %v", !tc.want)
			}
		})
	}
}
