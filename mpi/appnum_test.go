//go:build !ompi && !mpich

package mpi

import "testing"

func TestAppNum(t *testing.T) {
	for _, tc := range []struct {
		env  string
		want int
	}{
		{"", 0},
		{"0", 0},
		{"2", 2},
		{"17", 17},
		{"-1", 0},
		{"x", 0},
	} {
		t.Setenv(envAppNum, tc.env)
		if got := AppNum(); got != tc.want {
			t.Errorf("%s=%q: AppNum() = %d, want %d", envAppNum, tc.env, got, tc.want)
		}
	}
}
