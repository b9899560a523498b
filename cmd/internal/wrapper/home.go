package wrapper

import (
	"fmt"
	"os"
	"path/filepath"
)

// install is where hympi's headers and libraries are: home/include and
// home/lib, where home is $HYMPI_HOME, else the directory of the wrapper's
// executable when it holds include/mpi.h (the build tree, bin/), else that
// directory's parent (an installed tree, PREFIX/bin/../include).
type install struct{ home, include, lib string }

// locate finds the installation from the wrapper's own resolved executable
// path self, so a copied or moved tree keeps working without configuration.
func locate(self string) (install, error) {
	if home := os.Getenv("HYMPI_HOME"); home != "" {
		in := at(home)
		if !in.hasHeader() {
			return in, fmt.Errorf("HYMPI_HOME=%s has no include/mpi.h", home)
		}
		return in, nil
	}
	bin := filepath.Dir(self)
	for _, home := range []string{bin, filepath.Dir(bin)} {
		if in := at(home); in.hasHeader() {
			return in, nil
		}
	}
	return install{}, fmt.Errorf("no include/mpi.h in %s or %s (run make, or set HYMPI_HOME to the directory holding include/ and lib/)",
		bin, filepath.Dir(bin))
}

func at(home string) install {
	return install{home: home, include: filepath.Join(home, "include"), lib: filepath.Join(home, "lib")}
}

func (in install) hasHeader() bool {
	_, err := os.Stat(filepath.Join(in.include, "mpi.h"))
	return err == nil
}
