package topology

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestParseCPUList(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int
	}{
		{"", []int{}},
		{"\n", []int{}},
		{"  \t\n", []int{}},
		{"0", []int{0}},
		{"0\n", []int{0}},
		{" 7 ", []int{7}},
		{"0-3", []int{0, 1, 2, 3}},
		{"0-3,8,10-11\n", []int{0, 1, 2, 3, 8, 10, 11}},
		{"0,8", []int{0, 8}},
		{"0-3,8-11", []int{0, 1, 2, 3, 8, 9, 10, 11}},
		{"5-5", []int{5}},
		{"8,0", []int{0, 8}},           // not sysfs order, but unambiguous
		{"0-2,1-3", []int{0, 1, 2, 3}}, // overlap collapses
		{"3,3", []int{3}},
		{"007", []int{7}},
		{"65536", []int{MaxCPU}},
	} {
		got, err := ParseCPUList(tc.in)
		if err != nil || !slices.Equal(got, tc.want) || got == nil {
			t.Errorf("ParseCPUList(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestParseCPUListMalformed(t *testing.T) {
	for _, in := range []string{
		",",
		"1,",
		",1",
		"1,,2",
		"-",
		"-1",
		"1-",
		"3-1",
		"1-2-3",
		"a",
		"0x1",
		"+1",
		"1_0",
		"1 ,2",
		"1, 2",
		"0 - 3",
		"1\n2",
		"0-7:2/4", // the kernel's stride syntax is for writing, never read
		"65537",
		"0-99999999999999999999",
		"٣", // a non-ASCII digit
	} {
		got, err := ParseCPUList(in)
		if err == nil {
			t.Errorf("ParseCPUList(%q) = %v, want an error", in, got)
			continue
		}
		if !errors.Is(err, errCPUList) || !strings.Contains(err.Error(), "cpu list") {
			t.Errorf("ParseCPUList(%q) error %q does not say it is a malformed cpu list", in, err)
		}
	}
}

func TestFormatCPUList(t *testing.T) {
	for _, tc := range []struct {
		in   []int
		want string
	}{
		{nil, ""},
		{[]int{0}, "0"},
		{[]int{0, 1}, "0-1"},
		{[]int{0, 1, 2, 3, 8, 10, 11}, "0-3,8,10-11"},
		{[]int{6, 4, 2, 0}, "0,2,4,6"},
		{[]int{3, 3, 1, 2}, "1-3"},
	} {
		if got := FormatCPUList(tc.in); got != tc.want {
			t.Errorf("FormatCPUList(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func FuzzParseCPUList(f *testing.F) {
	for _, s := range []string{"", "0", "0-3,8,10-11\n", "0,8", "3-1", "1,,2", "0-65536", " 1-2 ", "+1", "0-7:2/4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cpus, err := ParseCPUList(s)
		if err != nil {
			if cpus != nil {
				t.Fatalf("ParseCPUList(%q) returned %v with error %v", s, cpus, err)
			}
			return
		}
		for i, c := range cpus {
			if c < 0 || c > MaxCPU || (i > 0 && c <= cpus[i-1]) {
				t.Fatalf("ParseCPUList(%q) = %v: not ascending within [0, MaxCPU]", s, cpus)
			}
		}
		// The compact form must parse back to the same set.
		again, err := ParseCPUList(FormatCPUList(cpus))
		if err != nil || !slices.Equal(again, cpus) {
			t.Fatalf("ParseCPUList(%q) = %v, but its formatted form %q gives %v, %v",
				s, cpus, FormatCPUList(cpus), again, err)
		}
	})
}
