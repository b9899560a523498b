// Command colltable turns the outputs of bench/compare_coll.sh (runs of
// bench/c/osu_colls.c and bench/osu_colls) into Markdown tables: per job
// size, every collective and size as a ratio to Open MPI's median time, the
// nonblocking/blocking and persistent/blocking ratios of hympi, and OSU's
// overlap percentages beside Open MPI's.
//
// Usage:
//
//	colltable [-cpus N] [-summary] DIR
//
// DIR holds files n<RANKS>.<IMPL>.<REP>.txt, IMPL one of hympi-C, hympi-Go,
// ompi, mpich; each cell is the median over the REPs. Job sizes above
// -cpus are marked oversubscribed. -summary writes the README's short form
// instead: one row per collective, hympi's ratios only.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/hympi/hympi/bench/internal/colls"
)

func main() {
	cpus := flag.Int("cpus", 0, "CPUs of the machine: larger jobs are marked oversubscribed (0: none marked)")
	summary := flag.Bool("summary", false, "the short form: one row per collective, hympi's ratios to Open MPI")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: colltable [-cpus N] [-summary] DIR")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(os.Stdout, flag.Arg(0), *cpus, *summary); err != nil {
		fmt.Fprintln(os.Stderr, "colltable:", err)
		os.Exit(1)
	}
}

func run(w io.Writer, dir string, cpus int, summary bool) error {
	res, err := colls.LoadResults(dir)
	if err != nil {
		return err
	}
	if summary {
		return res.WriteSummary(w, cpus)
	}
	return res.WriteMarkdown(w, cpus)
}
