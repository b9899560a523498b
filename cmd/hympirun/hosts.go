package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// Host lists and hostfiles exist so that scripts written for a cluster run
// unchanged on one machine: hympi accepts them when every host named is this
// machine, and uses only their slot counts (for --nooversubscribe).

// isLocalHost reports whether name is this machine as users write it.
func isLocalHost(name string) bool {
	switch name {
	case "localhost", "127.0.0.1", "::1", "localhost.localdomain":
		return true
	}
	h, err := os.Hostname()
	if err != nil {
		return false
	}
	short, _, _ := strings.Cut(h, ".")
	return strings.EqualFold(name, h) || strings.EqualFold(name, short)
}

func remoteHostError(name string) error {
	h, _ := os.Hostname()
	return fmt.Errorf("host %q: hympi runs on one machine (this one, %q) and cannot start ranks elsewhere", name, h)
}

// parseHostList reads -H's comma-separated HOST[:SLOTS] list and returns
// its slots. A host without a count has one slot, as with Open MPI.
func parseHostList(list string) (int, error) {
	slots := 0
	for _, entry := range strings.Split(list, ",") {
		n, err := hostSlots(strings.TrimSpace(entry), 1)
		if err != nil {
			return 0, err
		}
		slots += n
	}
	return slots, nil
}

// hostSlots reads HOST or HOST:N.
func hostSlots(entry string, dflt int) (int, error) {
	name, count, hasCount := strings.Cut(entry, ":")
	if name == "" {
		return 0, fmt.Errorf("want HOST or HOST:SLOTS, not %q", entry)
	}
	if !isLocalHost(name) {
		return 0, remoteHostError(name)
	}
	if !hasCount {
		return dflt, nil
	}
	return parseSlots(count)
}

func parseSlots(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("slots %q: want a positive number", s)
	}
	return n, nil
}

// readHostfile reads an Open MPI or MPICH hostfile: one host a line, as
// "HOST", "HOST slots=N [max_slots=M]" (Open MPI) or "HOST:N" (MPICH),
// with # comments. A host without a count has a slot per CPU, as Open MPI
// gives it.
func readHostfile(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	slots := 0
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(text)
		if len(fields) == 0 {
			continue
		}
		n, err := hostfileLine(fields)
		if err != nil {
			return 0, fmt.Errorf("line %d: %w", line, err)
		}
		slots += n
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	if slots == 0 {
		return 0, fmt.Errorf("names no host")
	}
	return slots, nil
}

func hostfileLine(fields []string) (int, error) {
	n, err := hostSlots(fields[0], runtime.NumCPU())
	if err != nil {
		return 0, err
	}
	for _, f := range fields[1:] {
		key, val, _ := strings.Cut(f, "=")
		switch key {
		case "slots", "cpu", "cpus":
			if n, err = parseSlots(val); err != nil {
				return 0, err
			}
		case "max_slots", "max-slots":
			// A limit on oversubscription that --nooversubscribe already
			// expresses; the count is still checked.
			if _, err := parseSlots(val); err != nil {
				return 0, err
			}
		default:
			return 0, fmt.Errorf("unknown field %q (want slots=N)", f)
		}
	}
	return n, nil
}
