package ctests

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

var fastLaneLine = regexp.MustCompile(`(?m)^hympi\[debug\]: rank (\d+): fast lane: (\d+) sends, (\d+) receives without Go$`)

// TestCFastLane runs testdata/fastlane.c, whose small sends and receives
// interleave with ones the C hot path must leave to Go, in the modes where
// that path runs and where it must not: the program's checks of order,
// content and status must pass either way, and the library's debug report
// says whether the hot path served any call.
func TestCFastLane(t *testing.T) {
	exe := compile(t, "fastlane")
	cases := []struct {
		name string
		env  []string
		fast bool // the hot path must have served sends and receives
	}{
		{"default", nil, true},
		{"thread multiple", []string{"FL_MULTIPLE=1"}, false},
		{"async progress", []string{"HYMPI_ASYNC_PROGRESS=1"}, false},
		{"checksums", []string{"HYMPI_CHECKSUM=1"}, false},
	}
	const n = 2
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := runJob(t, n, exe, append([]string{"HYMPI_CABI_DEBUG=1"}, tc.env...)...)
			if got := okLine.FindAllString(out, -1); err != nil || len(got) != n {
				t.Fatalf("hympirun -n %d fastlane: %v (%d of %d ranks OK)\n%s", n, err, len(got), n, out)
			}
			reports := fastLaneLine.FindAllStringSubmatch(out, -1)
			if len(reports) != n {
				t.Fatalf("%d fast-lane reports, want %d:\n%s", len(reports), n, out)
			}
			for _, m := range reports {
				sends, _ := strconv.Atoi(m[2])
				recvs, _ := strconv.Atoi(m[3])
				if tc.fast && (sends == 0 || recvs == 0) || !tc.fast && (sends != 0 || recvs != 0) {
					t.Errorf("rank %s: %d sends and %d receives in C, want some: %v", m[1], sends, recvs, tc.fast)
				}
			}
		})
	}
}

var recvLaneLine = regexp.MustCompile(`(?m)^hympi\[debug\]: rank (\d+): receive lane: (\d+) posted, (\d+) completed in C, (\d+) handed to Go$`)

// TestCRecvLane runs testdata/recvlane.c, whose nonblocking receives the
// C receive lane queues and completes, mixed with the calls that must hand
// them to Go first, in the modes where the lane runs and where it must
// not: the program's checks of order, content, status and error class pass
// either way, and the debug report says whether the lane served receives.
func TestCRecvLane(t *testing.T) {
	exe := compile(t, "recvlane")
	cases := []struct {
		name string
		n    int
		env  []string
		lane bool // the lane must have queued and completed receives
	}{
		{"default", 2, nil, true},
		{"four ranks", 4, nil, true},
		{"thread multiple", 2, []string{"FL_MULTIPLE=1"}, false},
		{"async progress", 2, []string{"HYMPI_ASYNC_PROGRESS=1"}, false},
		{"checksums", 2, []string{"HYMPI_CHECKSUM=1"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := runJob(t, tc.n, exe, append([]string{"HYMPI_CABI_DEBUG=1"}, tc.env...)...)
			if got := okLine.FindAllString(out, -1); err != nil || len(got) != tc.n {
				t.Fatalf("hympirun -n %d recvlane: %v (%d of %d ranks OK)\n%s", tc.n, err, len(got), tc.n, out)
			}
			reports := recvLaneLine.FindAllStringSubmatch(out, -1)
			if len(reports) != tc.n {
				t.Fatalf("%d receive-lane reports, want %d:\n%s", len(reports), tc.n, out)
			}
			for _, m := range reports {
				posted, _ := strconv.Atoi(m[2])
				done, _ := strconv.Atoi(m[3])
				synced, _ := strconv.Atoi(m[4])
				if tc.lane && (posted == 0 || done == 0 || synced == 0) || !tc.lane && (posted != 0 || done != 0 || synced != 0) {
					t.Errorf("rank %s: %d posted, %d completed in C, %d handed to Go; want the lane used: %v",
						m[1], posted, done, synced, tc.lane)
				}
			}
		})
	}
}

// TestCLaneYields runs testdata/lanewindows.c (osu_bw's loop) with both
// ranks on one CPU: the receiver's MPI_Waitall finds its window not yet
// sent, because the sender waits for this CPU. It must yield the CPU and
// then complete the window in C; handing every such window to Go, as it
// did, completed almost none in C (osu_mbw_mr: 0 of 7,008) at about four
// times the instructions per receive. At least half must complete in C.
func TestCLaneYields(t *testing.T) {
	out := runPairOnOneCPU(t, "lanewindows")
	for _, m := range recvLaneLine.FindAllStringSubmatch(out, -1) {
		if m[1] != "1" {
			continue
		}
		posted, _ := strconv.Atoi(m[2])
		done, _ := strconv.Atoi(m[3])
		if posted == 0 || 2*done < posted {
			t.Errorf("receiver on a shared CPU: %d receives queued, only %d completed in C\n%s", posted, done, out)
		}
		return
	}
	t.Fatalf("no receive-lane report from rank 1:\n%s", out)
}

// firstCPU is the first CPU this process may run on, for taskset.
func firstCPU(t *testing.T) string {
	t.Helper()
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		t.Fatal(err)
	}
	for c := 0; c < len(set)*64; c++ {
		if set.IsSet(c) {
			return strconv.Itoa(c)
		}
	}
	t.Fatal("empty CPU affinity")
	return ""
}

var spanLine = regexp.MustCompile(`(?m)^hympi\[debug\]: rank (\d+): spans: (\d+) sent, (\d+) received in C$`)

// TestCSpans runs testdata/spans.c, whose messages of every size around the
// inline and span limits mix with ones the Go engine must take, in the
// modes where C sends and takes spans (shm/span.go) and where it must not
// (no fast lane, or Go would read such messages directly): the
// program's checks of order, content, status and error class pass either
// way, and the debug report says whether spans went through C.
func TestCSpans(t *testing.T) {
	exe := compile(t, "spans")
	cases := []struct {
		name string
		n    int
		env  []string
		span bool // C must have sent and received spans
	}{
		{"default", 2, nil, true},
		{"four ranks", 4, nil, true},
		{"small cells", 2, []string{"HYMPI_CELL_SIZE=2048"}, true},
		{"direct always", 2, []string{"HYMPI_DIRECT=always"}, false},
		{"direct from 1 KiB", 2, []string{"HYMPI_THRESHOLD=1024"}, false},
		{"checksums", 2, []string{"HYMPI_CHECKSUM=1"}, false},
		{"thread multiple", 2, []string{"FL_MULTIPLE=1"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := runJob(t, tc.n, exe, append([]string{"HYMPI_CABI_DEBUG=1"}, tc.env...)...)
			if got := okLine.FindAllString(out, -1); err != nil || len(got) != tc.n {
				t.Fatalf("hympirun -n %d spans: %v (%d of %d ranks OK)\n%s", tc.n, err, len(got), tc.n, out)
			}
			reports := spanLine.FindAllStringSubmatch(out, -1)
			if len(reports) != tc.n {
				t.Fatalf("%d span reports, want %d:\n%s", len(reports), tc.n, out)
			}
			// Every rank sends spans from C; whether a receive finds its
			// span already there (else Go takes it) depends on the
			// scheduling, so the job as a whole must have taken some.
			gotAll := 0
			for _, m := range reports {
				sent, _ := strconv.Atoi(m[2])
				got, _ := strconv.Atoi(m[3])
				gotAll += got
				if tc.span && sent == 0 || !tc.span && (sent != 0 || got != 0) {
					t.Errorf("rank %s: %d spans sent and %d received in C, want some: %v", m[1], sent, got, tc.span)
				}
			}
			if tc.span && gotAll == 0 {
				t.Errorf("no rank received a span in C:\n%s", out)
			}
		})
	}
}

var laneWaitallLine = regexp.MustCompile(`(?m)^hympi\[debug\]: rank (\d+): receive lane waitall: (\d+) to Go for a head it may not take, (\d+) after its spins; batched hand-backs woke (\d+) sleeping senders$`)

// TestCRingFull runs testdata/ringfull.c: a sender that filled its ring
// sleeps on its doorbell while the receiver's MPI_Waitall takes the ring
// with batched hand-backs (one fence and doorbell check per batch,
// fastlane.c's rel_flush). The messages must arrive in order and whole,
// and the receiver's batches must have woken the sleeping sender: with a
// batch that forgot its doorbell check the sender would only wake at its
// sleep's timeout, and the count would be 0. Both ranks on one CPU, so the
// sender sleeps after a short spin (the oversubscribed wait policy) well
// within the receiver's pause.
func TestCRingFull(t *testing.T) {
	out := runPairOnOneCPU(t, "ringfull")
	for _, m := range laneWaitallLine.FindAllStringSubmatch(out, -1) {
		if m[1] != "1" {
			continue
		}
		if woke, _ := strconv.Atoi(m[4]); woke == 0 {
			t.Errorf("the receiver's batched hand-backs woke no sleeping sender\n%s", out)
		}
		return
	}
	t.Fatalf("no receive-lane waitall report from rank 1:\n%s", out)
}

// TestCGoThreadSlack runs testdata/goslack.c: in a C rank the Go runtime's
// threads have a 1 ms timer slack, so that sysmon's 20 µs polling after it
// retakes the rank's P comes about once a millisecond instead of every
// ~80 µs (each wake-up preempts a spinning rank), while the program's own
// thread keeps the slack it had (slack.c).
func TestCGoThreadSlack(t *testing.T) {
	exe := compile(t, "goslack")
	out, err := runJob(t, 1, exe)
	if got := okLine.FindAllString(out, -1); err != nil || len(got) != 1 {
		t.Fatalf("hympirun -n 1 goslack: %v\n%s", err, out)
	}
}

// TestCLaneRing runs testdata/lanering.c: thousands of lane receives
// posted and completed behind one that stays queued, so that the lane's
// ring of posting positions fills with completed entries behind the old
// one. Room may be made only past completed entries (ring_trim): losing
// the old entry's place would leave its receive unposted and its wait
// hung. The debug report must show the lane completed most of them in C.
func TestCLaneRing(t *testing.T) {
	exe := compile(t, "lanering")
	out, err := runJob(t, 3, exe, "HYMPI_CABI_DEBUG=1")
	if got := okLine.FindAllString(out, -1); err != nil || len(got) != 3 {
		t.Fatalf("hympirun -n 3 lanering: %v (%d of 3 ranks OK)\n%s", err, len(got), out)
	}
	for _, m := range recvLaneLine.FindAllStringSubmatch(out, -1) {
		if m[1] != "0" {
			continue
		}
		if done, _ := strconv.Atoi(m[3]); done < 1000 {
			t.Errorf("rank 0 completed %d lane receives in C, want over 1000 (the ring full behind the old one)\n%s", done, out)
		}
		return
	}
	t.Fatalf("no receive-lane report from rank 0:\n%s", out)
}

// runPairOnOneCPU runs testdata/name.c as 2 ranks on one CPU with the C
// ABI's debug report on, and returns the output once both ranks said OK
// (skipping where taskset is missing).
func runPairOnOneCPU(t *testing.T, name string) string {
	t.Helper()
	taskset, err := exec.LookPath("taskset")
	if err != nil {
		t.Skip("taskset (util-linux) is not installed")
	}
	exe := compile(t, name)
	ctx, cancel := context.WithTimeout(context.Background(), 70*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, taskset, "-c", firstCPU(t), filepath.Join(dir, "hympirun"), "-n", "2", "--timeout", "60s", exe)
	cmd.Env = append(os.Environ(), "HYMPI_CABI_DEBUG=1")
	b, err := cmd.CombinedOutput()
	out := string(b)
	if got := okLine.FindAllString(out, -1); err != nil || len(got) != 2 {
		t.Fatalf("taskset hympirun -n 2 %s: %v (%d of 2 ranks OK)\n%s", name, err, len(got), out)
	}
	return out
}
