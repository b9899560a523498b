package plot

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strings"
)

// Where names the machine a plot's numbers come from, for its subtitle:
// the CPU model from /proc/cpuinfo and the CPU count, e.g.
// "Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz, 2 CPUs". A benchmark plotted
// on another machine should pass its own description instead.
func Where() string {
	return where("/proc/cpuinfo", runtime.NumCPU())
}

func where(cpuinfo string, cpus int) string {
	model := "unknown CPU"
	if f, err := os.Open(cpuinfo); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			k, v, ok := strings.Cut(sc.Text(), ":")
			if ok && strings.TrimSpace(k) == "model name" {
				model = strings.Join(strings.Fields(v), " ")
				break
			}
		}
	}
	return fmt.Sprintf("%s, %d CPUs", model, cpus)
}

// Runs says how many repetitions stand behind a plot's medians.
func Runs(lo, hi int) string {
	switch {
	case lo != hi:
		return fmt.Sprintf("median of %d–%d runs", lo, hi)
	case hi == 1:
		return "1 run"
	}
	return fmt.Sprintf("median of %d runs", hi)
}
