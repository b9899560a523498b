package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// laneExempt are the calls into Go that need not hand the receive lane's
// queue over first (golane.h says why).
var laneExempt = map[string]bool{"hympi_go_lane_flush": true, "hympi_go_fl_comm": true, "hympi_go_cn_adopt": true}

// TestGoCallsSyncTheLane holds golane.h to the library's calls into Go:
// every exported Go function but the exempt ones is wrapped, and every C
// file that can call Go includes golane.h right after _cgo_export.h, so no
// call reaches Go with lane receives still queued in C.
func TestGoCallsSyncTheLane(t *testing.T) {
	h, err := os.ReadFile("golane.h")
	if err != nil {
		t.Fatal(err)
	}
	wrapped := map[string]bool{}
	def := regexp.MustCompile(`(?m)^#define (hympi_go_\w+)\(\.\.\.\) \(HC_LANE_SYNC\(\), (hympi_go_\w+)\(__VA_ARGS__\)\)$`)
	for _, m := range def.FindAllStringSubmatch(string(h), -1) {
		if m[1] != m[2] {
			t.Errorf("golane.h: %s wraps %s", m[1], m[2])
		}
		wrapped[m[1]] = true
	}
	gos, _ := filepath.Glob("*.go")
	export := regexp.MustCompile(`(?m)^//export (\w+)$`)
	n := 0
	for _, f := range gos {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range export.FindAllStringSubmatch(string(src), -1) {
			n++
			name := m[1]
			if laneExempt[name] == wrapped[name] {
				t.Errorf("%s: //export %s: wrapped in golane.h %v, exempt %v (want exactly one)", f, name, wrapped[name], laneExempt[name])
			}
			delete(wrapped, name)
		}
	}
	for name := range wrapped {
		t.Errorf("golane.h wraps %s, which Go does not export", name)
	}
	if n < 50 {
		t.Fatalf("found only %d //export functions", n)
	}
	cs, _ := filepath.Glob("*.c")
	hs, _ := filepath.Glob("*.h")
	for _, f := range append(cs, hs...) {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s := string(src)
		if !strings.Contains(s, "hympi_go_") || f == "golane.h" {
			continue
		}
		const exp, lane = "#include \"_cgo_export.h\"\n", "#include \"golane.h\"\n"
		i := strings.Index(s, exp)
		if i < 0 {
			if strings.HasSuffix(f, ".c") && regexp.MustCompile(`hympi_go_\w+\(`).MatchString(stripComments(s)) {
				t.Errorf("%s calls Go without _cgo_export.h", f)
			}
			continue
		}
		if !strings.HasPrefix(s[i+len(exp):], lane) {
			t.Errorf("%s: #include \"golane.h\" must follow #include \"_cgo_export.h\"", f)
		}
	}
}

var cComment = regexp.MustCompile(`(?s)/\*.*?\*/|//[^\n]*`)

func stripComments(s string) string { return cComment.ReplaceAllString(s, "") }

// TestLaneSlots checks the Go request table's side of the receive lane:
// it never hands out the lane's indexes itself, it finds a lane slot only
// once Go has taken it over (hympi_go_lane_flush), and freeing one returns
// the index to C rather than to its own free list.
func TestLaneSlots(t *testing.T) {
	if laneBase+laneCap != hReqDone&indexMask {
		t.Fatalf("lane range [%d, %d) does not end at hReqDone's index %d", laneBase, laneBase+laneCap, hReqDone&indexMask)
	}
	var tb reqTable
	tb.free = -1
	tb.n.Store(laneBase - 1)
	if i := tb.take(); i != laneBase-1 {
		t.Fatalf("take = %d, want the last index below the lane, %d", i, laneBase-1)
	}
	if i := tb.take(); i != -1 {
		t.Fatalf("take = %d past the last ordinary index, want -1", i)
	}
	for _, i := range []int{laneBase, laneBase + laneCap - 1, laneBase + laneCap, -1} {
		if q := tb.get(i); q != nil {
			t.Errorf("get(%d) on an untouched table = %p, want nil", i, q)
		}
	}
	i := laneBase + 7
	q := tb.laneSlot(i)
	if tb.get(i) != nil {
		t.Errorf("get(%d) found a lane slot Go has not taken over", i)
	}
	q.used = true
	if tb.get(i) != q {
		t.Fatalf("get(%d) does not find the lane slot Go took over", i)
	}
	before := laneStateOf(7)
	tb.delSlot(q, i, nil)
	if tb.get(i) != nil || tb.free != -1 {
		t.Errorf("after delSlot: get = %p, free list head %d; want nil and an empty Go free list", tb.get(i), tb.free)
	}
	if after := laneStateOf(7); after != before {
		t.Errorf("giving back index 7, never handed to Go, changed its C state %d -> %d", before, after)
	}
}
