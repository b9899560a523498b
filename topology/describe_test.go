package topology

import (
	"errors"
	"strings"
	"testing"
)

func TestDescribe(t *testing.T) {
	for _, tc := range []struct {
		fixture, model, want string
	}{
		{"clovertown", "", `8 CPUs online (0-7): 2 packages, 8 cores, 1 thread per core, 1 NUMA node
package 0: 4 cores, cpus 0,2,4,6
package 1: 4 cores, cpus 1,3,5,7
caches:
  L1 Data         32 KiB  x8  private to each core
  L1 Instruction  32 KiB  x8  private to each core
  L2 Unified      4 MiB   x4  shared by 0,2 | 1,3 | 4,6 | 5,7
NUMA node 0: cpus 0-7
`},
		{"twosocket-smt-numa", "Test CPU @ 3GHz", `16 CPUs online (0-15): 2 packages, 8 cores, 2 threads per core, 2 NUMA nodes
model: Test CPU @ 3GHz
package 0: 4 cores, cpus 0-3,8-11
package 1: 4 cores, cpus 4-7,12-15
caches:
  L1 Data         48 KiB  x8  private to each core
  L1 Instruction  32 KiB  x8  private to each core
  L2 Unified      2 MiB   x8  private to each core
  L3 Unified      30 MiB  x2  shared by 0-3,8-11 | 4-7,12-15
NUMA node 0: cpus 0-3,8-11
NUMA node 1: cpus 4-7,12-15
`},
		{"onesocket-l3", "", `4 CPUs online (0-3): 1 package, 4 cores, 1 thread per core, 1 NUMA node
package 0: 4 cores, cpus 0-3
caches:
  L1 Data         32 KiB  x4  private to each core
  L1 Instruction  32 KiB  x4  private to each core
  L2 Unified      1 MiB   x4  private to each core
  L3 Unified      8 MiB   x1  shared by all CPUs
NUMA node 0: cpus 0-3
`},
	} {
		m := readFixture(t, tc.fixture)
		m.Model = tc.model
		var b strings.Builder
		if err := m.Describe(&b); err != nil {
			t.Fatal(err)
		}
		if b.String() != tc.want {
			t.Errorf("%s: Describe wrote\n%s\nwant\n%s", tc.fixture, b.String(), tc.want)
		}
	}
}

func TestDescribeDegraded(t *testing.T) {
	fsys := with(memTree(twoSocketSMTNUMA()), "devices/system/cpu/online", "0-8\n")
	m, err := read(without(fsys, "/cache/"), "mem")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := m.Describe(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"9 CPUs online (0-8)", "1-2 threads per core", "caches: none listed"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("Describe lacks %q:\n%s", want, b.String())
		}
	}
	if err := m.Describe(failingWriter{}); err == nil {
		t.Error("Describe hid the writer's error")
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestFormatSize(t *testing.T) {
	for n, want := range map[int]string{0: "0 B", 100: "100 B", 1536: "1536 B", 32 * KiB: "32 KiB", 4 << 20: "4 MiB", 480 << 20: "480 MiB", 2 << 30: "2 GiB"} {
		if got := formatSize(n); got != want {
			t.Errorf("formatSize(%d) = %q, want %q", n, got, want)
		}
	}
}
