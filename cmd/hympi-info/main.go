// Command hympi-info shows what hympi sees on this machine and what it will
// do with it: the CPU topology (its L3 and NUMA domains, CPU pairs by
// relation), where hympirun puts each of N ranks (--map-by, --bind-to; a
// core each by default), the relation and eager→direct threshold of every rank pair, where
// the thresholds come from (HYMPI_THRESHOLD, a tuned profile, or the
// defaults), whether direct copy (process_vm_readv) works here, the
// HYMPI_DIRECT mode, and the shared-memory budget of a job of N ranks.
//
//	hympi-info
//	hympi-info -n 4
//	hympi-info --json -n 8
//	hympi-info -n 16 --map-by l3cache --bind-to core
//	hympi-info --tune
//	hympi-info --tune -sizes 4K,16K,64K,256K,1M
//	hympi-info --version
//	HYMPI_SYSFS=topology/testdata/clovertown hympi-info -n 8
//
// With --json it prints one JSON object instead of the text report; its
// field names are stable (see report in report.go): map_by, bind_to,
// binding, bound_to, pairs (a, b, cpu_a, cpu_b, relation, threshold),
// pair_relations, threshold_source, thresholds,
// relations_present, profile, direct_copy (available, reason), direct_mode,
// machine (with l3_domains, nodes, cpu_pairs) and shm.
//
// With --tune it measures, for each relation present among the CPUs it may
// run on, the one-way latency of the eager and the direct protocol over a
// range of message sizes (cabi.Calibrate), takes the crossover of each as that
// relation's threshold, and saves them as the profile every later job on
// this machine loads ($HYMPI_PROFILE, else ~/.cache/hympi/profile.json).
// Measurements must be real, so --tune refuses to run when HYMPI_SYSFS points
// at a fixture tree, and saves nothing when direct copy is unavailable.
//
// Exit status: 0 on success; 2 for a usage error; 1 for anything else
// (an invalid HYMPI_THRESHOLD or HYMPI_DIRECT, an unreadable topology, a
// failed or impossible --tune).
//
// The files are split by job: flags.go parses the command line, report.go
// gathers the facts (and is the JSON schema), text.go writes the text
// report, tune.go measures and saves a profile.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/hympi/hympi/internal/version"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// Exit statuses.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// run is the whole command; it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	opts, err := parseArgs(args)
	if errors.Is(err, errHelp) {
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	if errors.Is(err, errVersion) {
		fmt.Fprintln(stdout, "hympi-info:", version.String())
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "hympi-info: %v\n%s", err, usageLine)
		return exitUsage
	}
	if opts.tune {
		return tune(opts, stdout, stderr)
	}
	rep, err := gather(opts.n, opts.mapBy, opts.bindTo)
	if err != nil {
		fmt.Fprintf(stderr, "hympi-info: %v\n", err)
		return exitFailure
	}
	if opts.json {
		err = writeJSON(stdout, rep)
	} else {
		err = writeText(stdout, rep)
	}
	if err != nil {
		fmt.Fprintf(stderr, "hympi-info: %v\n", err)
		return exitFailure
	}
	return exitOK
}
