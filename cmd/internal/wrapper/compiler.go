package wrapper

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// A wrapper must never end up running itself: `CC=hympicc cmake ..`,
// `./configure CC=mpicc` and `make CC=mpicc` all leave CC naming a wrapper
// in the environment the wrapper then reads, and a wrapper that obeyed it
// would start itself until memory ran out. So every candidate compiler is
// resolved (PATH, symlinks) and refused when it is this executable, carries
// an MPI wrapper's name, or is a file that is one of ours or a script that
// calls one; and the environment of the compiler we do start carries
// guardVar, so a loop through something we could not recognise (a script
// calling a script calling hympicc) stops at the second wrapper.

// guardVar is set in the compiler's environment; a wrapper that finds it set
// was started, directly or not, by the compiler another wrapper ran.
const guardVar = "HYMPICC_DEPTH"

// marker is a byte string every wrapper binary contains (this package is
// linked into each), so a wrapper copied or renamed is still recognised.
const marker = "hympi-compiler-wrapper:6f1c2a"

// wrapperName matches the names MPI implementations give their compiler
// wrappers, with Debian's .openmpi/.mpich suffixes and version suffixes.
var wrapperName = regexp.MustCompile(`^(hympi(cc|cxx|c\+\+|fort|f77|f90)|opal_wrapper|mpi(cc|cxx|c\+\+|CC|fort|f77|f90|f95|fc|icc|icpc|icx|icpx|ifort|ifx|gcc|g\+\+|gxx|gfortran|clang|clang\+\+)|mpcc|mpCC|mpc\+\+)([._-][A-Za-z0-9._+-]*)?$`)

// scriptCalls matches a script body that runs an MPI wrapper.
var scriptCalls = regexp.MustCompile(`(^|[^A-Za-z0-9_.-])(hympi(cc|cxx|c\+\+|fort)|opal_wrapper|mpi(cc|cxx|c\+\+|CC|fort|f77|f90))([^A-Za-z0-9_]|$)`)

// choice is the compiler a wrapper runs.
type choice struct {
	argv []string // the compiler as named, plus any words that came with it ("ccache gcc")
	path string   // argv[0] resolved on PATH
	from string   // the variable it came from, or "default"
}

// skipped records a candidate that was passed over, and why.
type skipped struct{ from, value, why string }

// chooseCompiler returns the first usable candidate among the variables
// vars (in order) and then the defaults. An explicit variable naming a
// missing compiler is an error, as it would be for make; a variable naming
// a wrapper is skipped, since that is the everyday idiom, not a mistake.
func chooseCompiler(self string, vars, defaults []string) (choice, []skipped, error) {
	var skips []skipped
	for _, v := range vars {
		val := strings.TrimSpace(os.Getenv(v))
		if val == "" {
			continue
		}
		argv := strings.Fields(val)
		path, err := exec.LookPath(argv[0])
		if err != nil {
			return choice{}, skips, fmt.Errorf("compiler %q from $%s: %v", val, v, err)
		}
		if why := refuse(self, argv, path); why != "" {
			skips = append(skips, skipped{v, val, why})
			continue
		}
		return choice{argv: argv, path: path, from: v}, skips, nil
	}
	for _, d := range defaults {
		path, err := exec.LookPath(d)
		if err != nil {
			continue
		}
		if why := refuse(self, []string{d}, path); why != "" {
			skips = append(skips, skipped{"default", d, why})
			continue
		}
		return choice{argv: []string{d}, path: path, from: "default"}, skips, nil
	}
	return choice{}, skips, fmt.Errorf("no compiler found (tried $%s, then %s)",
		strings.Join(vars, ", $"), strings.Join(defaults, ", "))
}

// refuse says why argv (whose first word resolves to path) must not be run,
// or "" when it may. Every word that names a program is checked, so
// "ccache mpicc" is caught as well as "mpicc".
func refuse(self string, argv []string, path string) string {
	for i, w := range argv {
		if strings.HasPrefix(w, "-") {
			continue
		}
		p := path
		if i > 0 {
			var err error
			if p, err = exec.LookPath(w); err != nil {
				continue // an argument, not a program
			}
		}
		if why := isWrapper(self, p); why != "" {
			return fmt.Sprintf("%s %s", w, why)
		}
	}
	return ""
}

// isWrapper says why the program at path is an MPI wrapper, or "".
func isWrapper(self, path string) string {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		real = path
	}
	if abs, err := filepath.Abs(real); err == nil {
		real = abs
	}
	switch {
	case self != "" && real == self:
		return "is this wrapper itself"
	case wrapperName.MatchString(filepath.Base(path)):
		return "is an MPI compiler wrapper"
	case wrapperName.MatchString(filepath.Base(real)):
		return "is an MPI compiler wrapper (" + real + ")"
	}
	return byContent(real)
}

// byContent recognises a wrapper that has been renamed: one of our
// binaries (by marker) or a script that runs an MPI wrapper.
func byContent(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return ""
	}
	head := make([]byte, 2)
	if _, err := io.ReadFull(f, head); err != nil {
		return ""
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return ""
	}
	if string(head) == "#!" {
		body, _ := io.ReadAll(io.LimitReader(f, 1<<20))
		if m := scriptCalls.Find(body); m != nil {
			return "is a script that runs an MPI wrapper (" + strings.TrimSpace(string(m)) + ")"
		}
		return ""
	}
	// Real compilers are larger than our wrappers but are not read: only a
	// file small enough to be one of ours is searched for the marker.
	if st.Size() > 64<<20 {
		return ""
	}
	body, err := io.ReadAll(f)
	if err == nil && bytes.Contains(body, []byte(marker)) {
		return "is a hympi compiler wrapper"
	}
	return ""
}
