#!/usr/bin/env bash
# compare_rma.sh: hympi's one-sided communication against Open MPI's and
# MPICH's, on this machine: bench/c/osu_rma.c built with hympicc,
# mpicc.openmpi and mpicc.mpich, and its Go twin bin/osu_rma, run on 2
# ranks by each launcher, REPS times alternating; the table gives the
# median per test and size (latency in µs, bandwidth in MB/s) and
# hympi-C / Open MPI.
#
# Usage: bench/compare_rma.sh [REPS]     (or make compare-rma [REPS=N])
# RMA_ITERS sets the iterations of the latency loops (default 2000).
set -euo pipefail

cd "$(dirname "$0")/.."
REPS=${1:-${REPS:-3}}
OUT=${OUT:-bench/results/compare-rma-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$OUT"
for tool in mpicc.openmpi mpirun.openmpi mpicc.mpich mpiexec.mpich; do
	command -v "$tool" >/dev/null || { echo "compare_rma: $tool is missing (apt-get install openmpi-bin libopenmpi-dev mpich libmpich-dev)" >&2; exit 1; }
done
bin/hympicc -O2 -o "$OUT/osu_rma.hympi" bench/c/osu_rma.c
mpicc.openmpi -O2 -o "$OUT/osu_rma.ompi" bench/c/osu_rma.c
mpicc.mpich -O2 -o "$OUT/osu_rma.mpich" bench/c/osu_rma.c

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for rep in $(seq 1 "$REPS"); do
	timeout 300 bin/hympirun -n 2 "$OUT/osu_rma.hympi" >"$OUT/hympi.$rep" 2>&1 || echo "hympi run $rep failed" >&2
	timeout 300 bin/hympirun -n 2 bin/osu_rma -i "${RMA_ITERS:-2000}" >"$OUT/hympigo.$rep" 2>&1 || echo "hympi-Go run $rep failed" >&2
	timeout 300 mpirun.openmpi --oversubscribe -n 2 "$OUT/osu_rma.ompi" >"$OUT/ompi.$rep" 2>&1 || echo "Open MPI run $rep failed" >&2
	timeout 300 mpiexec.mpich -n 2 "$OUT/osu_rma.mpich" >"$OUT/mpich.$rep" 2>&1 || echo "MPICH run $rep failed" >&2
done

# Median per (test, size) and implementation, then the table.
python3 - "$OUT" "$REPS" <<'PY' | tee "$OUT/table.md"
import statistics, sys, re
out, reps = sys.argv[1], int(sys.argv[2])
data = {}
order = []
for impl in ("hympi", "hympigo", "ompi", "mpich"):
    for rep in range(1, reps + 1):
        try:
            lines = open(f"{out}/{impl}.{rep}").read().splitlines()
        except OSError:
            continue
        for l in lines:
            m = re.match(r"^(\w+) (\d+) ([\d.]+)$", l)
            if not m:
                continue
            key = (m.group(1), int(m.group(2)))
            if key not in order:
                order.append(key)
            data.setdefault((impl,) + key, []).append(float(m.group(3)))
def med(impl, key):
    v = data.get((impl,) + key)
    return statistics.median(v) if v else None
print("| test | size (B) | hympi-C | hympi-Go | Open MPI | MPICH | hympi-C / Open MPI |")
print("|---|---:|---:|---:|---:|---:|---:|")
for key in order:
    h, g, o, m = med("hympi", key), med("hympigo", key), med("ompi", key), med("mpich", key)
    f = lambda x: "n/a" if x is None else (f"{x:.0f}" if key[0].endswith("_bw") else f"{x:.3f}")
    r = "n/a" if not h or not o else f"{h / o:.2f}"
    print(f"| {key[0]} | {key[1]} | {f(h)} | {f(g)} | {f(o)} | {f(m)} | {r} |")
print()
print("Latency in µs (lower is better), _bw in MB/s (higher is better); medians of", reps, "runs.")
PY
