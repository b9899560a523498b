#!/usr/bin/env bash
# compare_coll.sh: hympi's collectives against Open MPI's, on this machine.
#
# Runs osu_barrier, osu_bcast and osu_allreduce at 8 B, 1 KiB, 64 KiB and
# 1 MiB on 2 ranks and on 4 (oversubscribed on this 2-CPU machine): hympi's
# Go benchmarks under bin/hympirun against the same loops in C
# (bench/c/osu_coll.c, built with mpicc.openmpi) under mpirun.openmpi with
# Open MPI's own collectives (coll/tuned over the shared-memory BTL;
# --oversubscribe --bind-to none --mca mpi_yield_when_idle 1 at 4 ranks).
# The two alternate within each repetition; the table gives per benchmark
# and size the median of each over the repetitions, in microseconds, and
# hympi-Go / Open MPI (below 1: hympi is faster). A hympi collective that
# is still a placeholder reads n/a, with a note.
#
# This is bench/compare.sh restricted to two columns and three benchmarks;
# every variable of compare.sh applies (REPS, COLL_SIZES, COLL_RANKS, ITERS,
# WARMUP, OVERSUB_ITERS, OUT, RUN_TIMEOUT, HYMPI_*).
#
# Usage: bench/compare_coll.sh [REPS]     (or make compare-coll [REPS=N])
set -euo pipefail

cd "$(dirname "$0")/.."
export IMPLS="hympi-Go ompi"
export BENCHES="barrier bcast allreduce"
export TABLE=ratio
export SVG=""
export RESULT=${RESULT:-bench/results/compare-coll.md}
export OUT=${OUT:-bench/results/compare-coll-$(date -u +%Y%m%dT%H%M%SZ)}
export TITLE="Collectives, hympi-Go against Open MPI"
exec bash bench/compare.sh "$@"
