// Package abilist reads the C ABI's function list and finds which of its
// functions the library implements by hand. The generator of mpi.h and
// the stubs (gen/) and the argument attack (ctests/) share it, so both
// agree on what "implemented" means: a PMPI_X defined in a hand-written .c
// file of the library.
package abilist

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Proto is one function of the ABI.
type Proto struct {
	Ret, Name, Params string // Name without the MPI_ prefix
}

var protoRE = regexp.MustCompile(`^(.*?)\bMPI_(\w+)\((.*)\);$`)

// implRE finds a hand-written definition: a line that starts with the
// return type and PMPI_Name( and is not a declaration (ending in ");").
var implRE = regexp.MustCompile(`(?m)^[A-Za-z_][\w \*]*\bPMPI_(\w+)\(.*$`)

// convRE finds the handle conversions core.c defines by macro.
var convRE = regexp.MustCompile(`(?m)^HC_INTCONV\(\w+, (\w+)\)`)

// ReadProtos reads gen/functions.txt: one C prototype a line.
func ReadProtos(path string) ([]Proto, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var ps []Proto
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		m := protoRE.FindStringSubmatch(line)
		if m == nil {
			return nil, fmt.Errorf("%s:%d: not a prototype: %s", path, n, line)
		}
		ps = append(ps, Proto{Ret: m[1], Name: m[2], Params: m[3]})
	}
	return ps, sc.Err()
}

// Implemented returns the functions defined in the hand-written .c files
// of dir (not *_gen.c), and the same names by file (base name without .c),
// in the order they appear.
func Implemented(dir string) (map[string]bool, map[string][]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.c"))
	if err != nil {
		return nil, nil, err
	}
	impl := map[string]bool{}
	byFile := map[string][]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_gen.c") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, nil, err
		}
		base := strings.TrimSuffix(filepath.Base(f), ".c")
		add := func(n string) {
			if !impl[n] {
				impl[n] = true
				byFile[base] = append(byFile[base], n)
			}
		}
		for _, m := range implRE.FindAllSubmatch(b, -1) {
			if !bytes.HasSuffix(bytes.TrimSpace(m[0]), []byte(");")) {
				add(string(m[1]))
			}
		}
		for _, m := range convRE.FindAllSubmatch(b, -1) {
			add(string(m[1]) + "_toint")
			add(string(m[1]) + "_fromint")
		}
	}
	return impl, byFile, nil
}
