//go:build !ompi && !mpich

package mpi

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/hympi/hympi/shm"
	"golang.org/x/sys/unix"
)

// TestInitBadRegionFD: HYMPI_REGION_FD naming something that is not the
// region is refused with the descriptor left open — above all stderr, or the
// refusal could never be seen.
func TestInitBadRegionFD(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for _, fd := range []int{2, int(r.Fd()), 0} {
		t.Run(strconv.Itoa(fd), func(t *testing.T) {
			t.Setenv(shm.EnvRank, "0")
			t.Setenv(shm.EnvSize, "1")
			t.Setenv(shm.EnvRegionFD, strconv.Itoa(fd))
			_, before := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
			err := Init()
			if err == nil {
				Finalize()
				t.Fatal("Init accepted it")
			}
			if !errors.Is(err, ErrIntern) || !strings.Contains(err.Error(), shm.EnvRegionFD) {
				t.Errorf("Init: %v; want ErrIntern naming %s", err, shm.EnvRegionFD)
			}
			if _, after := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); (before == nil) != (after == nil) {
				t.Errorf("descriptor %d: F_GETFD %v before Init, %v after", fd, before, after)
			}
			if Initialized() {
				t.Error("Initialized after a refused Init")
			}
		})
	}
}
