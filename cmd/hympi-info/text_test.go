package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hympi/hympi/topology"
)

// TestText checks the key lines of the human report, not its every byte:
// each pattern must match a whole line.
func TestText(t *testing.T) {
	for _, tc := range []struct {
		fixture string
		env     map[string]string
		args    []string
		lines   []string // regular expressions, each matching one line
	}{
		{
			fixture: "clovertown",
			lines: []string{
				`topology \(.*testdata/clovertown, fixture tree\):`,
				`8 CPUs online \(0-7\): 2 packages, 8 cores, 1 thread per core, 1 NUMA node`,
				`  L2 Unified +4 MiB +x4 +shared by 0,2 \| 1,3 \| 4,6 \| 5,7`,
				`binding of 8 ranks \(hympirun --map-by core --bind-to core, allowed cpus 0-7\):`,
				`  rank 0 → cpu 0`,
				`  rank 4 → cpu 1`,
				`  rank 7 → cpu 7`,
				`rank pairs \(28\):`,
				`  rank a +rank b +cpu a +cpu b +relation +threshold`,
				`  0 +1 +0 +2 +shared-cache +32 KiB`,
				`  0 +2 +0 +4 +intra-socket +2 KiB`,
				`  0 +4 +0 +1 +inter-socket +1 KiB`,
				`  shared-cache +32 KiB +default +32 KiB`,
				`  intra-socket +2 KiB +default +2 KiB`,
				`  inter-socket +1 KiB +default +1 KiB`,
				`threshold source: default`,
				`profile: .*/profile\.json: none yet \(hympi-info --tune writes it there\)`,
				`direct copy \(process_vm_readv\): .+`,
				`HYMPI_DIRECT: auto \(default: .*\)`,
				`shared memory for 8 ranks:`,
				`  channels: up to 56 \(one per ordered rank pair\), each made when its pair first talks`,
				`  per channel: \d+ descriptor slots, \d+ cells × [\d.]+ [KM]iB = [\d.]+ [KMG]iB pool; [\d.]+ [KM]iB of rings reserved when made, cells as first used`,
				`  region: [\d.]+ [KMG]iB reserved in /dev/shm at start, [\d.]+ [KMGT]iB of address space; about [\d.]+ [KMG]iB once the 56 pairs pools are sized for talk \(pool budget [\d.]+ [KMG]iB, HYMPI_SHM_BUDGET\)`,
			},
		},
		{
			fixture: "twosocket-smt-numa",
			env:     map[string]string{topology.EnvThreshold: "4096", envDirect: "off"},
			args:    []string{"-n", "3"},
			lines: []string{
				`binding of 3 ranks \(hympirun --map-by core --bind-to core, allowed cpus 0-15\):`,
				`rank pairs \(3\):`,
				`  0 +1 +0 +1 +shared-cache +4 KiB`,
				`  smt +4 KiB +environment +32 KiB`,
				`  inter-socket +4 KiB +environment +1 KiB`,
				`threshold source: environment \(HYMPI_THRESHOLD=4096, for every pair\)`,
				`HYMPI_DIRECT: off \(shared memory for every size; thresholds unused\)`,
				`  channels: up to 6 \(one per ordered rank pair\), each made when its pair first talks`,
			},
		},
		{
			fixture: "onesocket-l3",
			env:     map[string]string{"HYMPI_CELL_SIZE": "128", topology.EnvThreshold: " 8K\n"},
			args:    []string{"-n", "2"},
			lines: []string{
				`threshold source: environment \(HYMPI_THRESHOLD=8K, for every pair\)`,
				`shared memory for 2 ranks:`,
				`  per channel: .* cells × 128 B = 16 MiB pool; .*`,
			},
		},
		{
			fixture: "onesocket-l3",
			env:     map[string]string{"HYMPI_SHM_BUDGET": "1000000"},
			args:    []string{"-n", "1"},
			lines: []string{
				`  rank 0 → cpu 0`,
				`  shared-cache +32 KiB +default +32 KiB`,
				`  channels: up to 0 \(one per ordered rank pair\), each made when its pair first talks`,
			},
		},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			hermetic(t, fixture(t, tc.fixture))
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			code, out, errs := runIn(t, tc.args...)
			if code != exitOK || errs != "" {
				t.Fatalf("exit %d, stderr %q", code, errs)
			}
			lines := strings.Split(out, "\n")
			for _, pat := range tc.lines {
				re := regexp.MustCompile("^" + pat + "$")
				found := false
				for _, l := range lines {
					if re.MatchString(l) {
						found = true
						break
					}
				}
				if !found {
					t.Errorf("no line matches %q in:\n%s", pat, out)
				}
			}
			for i, l := range lines {
				if strings.TrimRight(l, " ") != l {
					t.Errorf("line %d has trailing spaces: %q", i+1, l)
				}
			}
		})
	}
}

func TestFmtBytes(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{
		{0, "0 B"},
		{1, "1 B"},
		{1000, "1000 B"},
		{1024, "1 KiB"},
		{1536, "1536 B"},
		{32 << 10, "32 KiB"},
		{1<<20 - 1024, "1023 KiB"},
		{1 << 20, "1 MiB"},
		{1<<20 + 1<<19, "1.5 MiB"},
		{33705984, "32.1 MiB"},
		{256 << 20, "256 MiB"},
		{1 << 30, "1 GiB"},
		{3 << 29, "1.5 GiB"},
	} {
		if got := fmtBytes(tc.n); got != tc.want {
			t.Errorf("fmtBytes(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
