// Command write writes the generated sysfs fixture trees, one directory
// per machine, under DIR, for pointing HYMPI_SYSFS at:
//
//	go run ./internal/sysfsfixture/write /tmp/fixtures
//	HYMPI_SYSFS=/tmp/fixtures/epyc-2s-128c-smt hympi-info -n 16
package main

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/hympi/hympi/internal/sysfsfixture"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: write DIR")
		os.Exit(2)
	}
	all := sysfsfixture.All()
	for _, name := range slices.Sorted(maps.Keys(all)) {
		dir, err := all[name].Write(filepath.Join(os.Args[1], name))
		if err != nil {
			fmt.Fprintln(os.Stderr, "write:", err)
			os.Exit(1)
		}
		fmt.Println(dir)
	}
}
