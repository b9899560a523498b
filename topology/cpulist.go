package topology

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// MaxCPU bounds the CPU numbers ParseCPUList accepts. It is far above any
// kernel's NR_CPUS, and keeps a malformed range such as "0-4000000000" from
// turning into a huge allocation.
const MaxCPU = 1 << 16

// errCPUList is wrapped by every ParseCPUList error.
var errCPUList = errors.New("malformed cpu list")

// ParseCPUList parses a sysfs CPU list such as "0-3,8,10-11" (the format of
// devices/system/cpu/online, thread_siblings_list, shared_cpu_list and
// node*/cpulist). Surrounding whitespace, including the trailing newline
// sysfs writes, is ignored; an empty list yields an empty result. The result
// is ascending and free of duplicates. Anything else — empty elements,
// reversed or open ranges, signs, strides, numbers above MaxCPU — is an
// error.
func ParseCPUList(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return []int{}, nil
	}
	// A set rather than an append per CPU, so that repeated ranges cost
	// memory bounded by MaxCPU, not by the length of the input.
	var set []bool
	for elem := range strings.SplitSeq(s, ",") {
		lo, hi, isRange := strings.Cut(elem, "-")
		first, err := parseCPUNumber(lo)
		if err != nil {
			return nil, fmt.Errorf("%w %q: element %q: %v", errCPUList, s, elem, err)
		}
		last := first
		if isRange {
			if last, err = parseCPUNumber(hi); err != nil {
				return nil, fmt.Errorf("%w %q: element %q: %v", errCPUList, s, elem, err)
			}
			if last < first {
				return nil, fmt.Errorf("%w %q: element %q: range ends before it starts", errCPUList, s, elem)
			}
		}
		if last >= len(set) {
			set = append(set, make([]bool, last+1-len(set))...)
		}
		for c := first; c <= last; c++ {
			set[c] = true
		}
	}
	cpus := []int{}
	for c, ok := range set {
		if ok {
			cpus = append(cpus, c)
		}
	}
	return cpus, nil
}

// parseCPUNumber accepts only plain decimal digits: strconv alone would let
// "+1" and "1_000" through.
func parseCPUNumber(s string) (int, error) {
	if s == "" {
		return 0, errors.New("missing number")
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return 0, fmt.Errorf("%q is not a cpu number", s)
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n > MaxCPU {
		return 0, fmt.Errorf("cpu number %s above %d", s, MaxCPU)
	}
	return n, nil
}

// FormatCPUList is the inverse of ParseCPUList: it writes cpus (in any
// order, duplicates allowed) in the compact sysfs form, e.g. "0-3,8,10-11".
func FormatCPUList(cpus []int) string {
	sorted := slices.Compact(slices.Sorted(slices.Values(cpus)))
	var b strings.Builder
	for i := 0; i < len(sorted); {
		j := i
		for j+1 < len(sorted) && sorted[j+1] == sorted[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(sorted[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(sorted[j]))
		}
		i = j + 1
	}
	return b.String()
}
