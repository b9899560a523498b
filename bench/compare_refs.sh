#!/usr/bin/env bash
# compare_refs.sh: hympi's point-to-point benchmarks at a git ref against
# the working tree, through benchstat.
#
# Usage: bench/compare_refs.sh REF [COUNT]     (COUNT default 10)
#
# Builds hympirun, osu_latency and osu_bw twice: at REF (in a temporary git
# worktree) and from the working tree. Each build runs with its own
# hympirun, since launcher and ranks must agree on the shared region. Runs
# alternate old/new COUNT times, each printing Go benchmark format, and
# benchstat compares the two files (medians, confidence intervals, p-values).
#
# Environment:
#   LAT_SIZES, BW_SIZES  size ranges (default 0:8192 and 1024:4194304)
#   BENCHSTAT            benchstat command (default: go run golang.org/x/perf/cmd/benchstat@latest)
#   OUT                  directory for old.txt/new.txt (default bench/results/refs-<UTC time>)
#   HYMPI_*              passed to every rank of both builds
set -euo pipefail

cd "$(dirname "$0")/.."

if (($# < 1)); then
	echo "usage: bench/compare_refs.sh REF [COUNT]" >&2
	exit 2
fi
REF=$1
COUNT=${2:-10}
LAT_SIZES=${LAT_SIZES:-0:8192}
BW_SIZES=${BW_SIZES:-1024:4194304}
BENCHSTAT=${BENCHSTAT:-go run golang.org/x/perf/cmd/benchstat@latest}
OUT=${OUT:-bench/results/refs-$(date -u +%Y%m%dT%H%M%SZ)}

if ! [[ $COUNT =~ ^[1-9][0-9]*$ ]]; then
	echo "compare_refs: COUNT must be a positive integer, got '$COUNT'" >&2
	exit 2
fi
commit=$(git rev-parse --verify "$REF^{commit}")

work=$(mktemp -d "${TMPDIR:-/tmp}/hympi-refs.XXXXXX")
cleanup() {
	git worktree remove --force "$work/src" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

pkgs=(./cmd/hympirun ./bench/osu_latency ./bench/osu_bw)
git worktree add --detach "$work/src" "$commit" >/dev/null
(cd "$work/src" && go build -o "$work/old/" "${pkgs[@]}") || {
	echo "compare_refs: $REF does not build the benchmarks (${pkgs[*]})" >&2
	exit 1
}
go build -o "$work/new/" "${pkgs[@]}"

mkdir -p "$OUT"
: >"$OUT/old.txt"
: >"$OUT/new.txt"

hympi_env=()
for v in $(compgen -e | grep '^HYMPI_' || true); do
	hympi_env+=(-x "$v")
done

run() { # build benchmark sizes
	"$work/$1/hympirun" -n 2 --timeout 300s "${hympi_env[@]}" "$work/$1/$2" -m "$3" -format gobench \
		>>"$OUT/$1.txt"
}

echo "compare_refs: $REF ($commit) vs working tree, $COUNT runs each, outputs in $OUT" >&2
for ((i = 1; i <= COUNT; i++)); do
	echo "compare_refs: run $i/$COUNT" >&2
	# Alternate the order so that neither build always runs second.
	order=(old new)
	((i % 2)) || order=(new old)
	for b in "${order[@]}"; do
		run "$b" osu_latency "$LAT_SIZES"
		run "$b" osu_bw "$BW_SIZES"
	done
done

$BENCHSTAT "$OUT/old.txt" "$OUT/new.txt" | tee "$OUT/benchstat.txt"
