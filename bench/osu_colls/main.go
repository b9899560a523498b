// Command osu_colls times every collective of package mpi — blocking,
// nonblocking waited at once and persistent — and OSU's overlap of
// Iallreduce, Ibcast and Ialltoall, in one run; the Go twin of
// bench/c/osu_colls.c, with the same options and output lines (see
// bench/internal/colls).
//
// Usage:
//
//	hympirun -n N bin/osu_colls [-c all|COLL,...] [-forms b,nb,p,ov] [-m SIZE,...] [-i ITERS] [-x WARMUP] [-t TESTS,...]
package main

import (
	"os"

	"github.com/hympi/hympi/bench/internal/colls"
)

func main() { os.Exit(colls.Main(os.Stdout, os.Stderr, os.Args[1:])) }
