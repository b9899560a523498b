#!/usr/bin/env bash
# compare_refs.sh: hympi's point-to-point benchmarks at a git ref against
# the working tree, through benchstat.
#
# Usage: bench/compare_refs.sh REF [COUNT]     (COUNT default 10)
#
# Builds hympirun, osu_latency, osu_bw and the mpi package's test binary
# twice: at REF (in a temporary git worktree) and from the working tree.
# Each build runs with its own hympirun, since launcher and ranks must agree
# on the shared region. Runs alternate old/new COUNT times, each printing Go
# benchmark format: the OSU sweeps under hympirun, and the engine's
# small-message benchmarks (go test -bench GOBENCH -benchmem: ns/op and
# allocs/op of a small ping-pong and of a windowed small-message stream).
# benchstat compares the two files (medians, confidence intervals,
# p-values). A benchmark that REF does not have shows in the new column only.
#
# Environment:
#   LAT_SIZES, BW_SIZES  size ranges (default 0:8192 and 1024:4194304)
#   GOBENCH              go test -bench pattern for ./mpi (default
#                        'PingPong/size=1$|MessageRate'); empty: none
#   BENCHTIME            go test -benchtime (default 20000x)
#   OSU                  0: skip the osu_latency/osu_bw runs (default 1)
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
GOBENCH=${GOBENCH-'PingPong/size=1$|MessageRate'}
BENCHTIME=${BENCHTIME:-20000x}
OSU=${OSU:-1}
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
(cd "$work/src" && go build -o "$work/old/" "${pkgs[@]}" && go test -c -o "$work/old/mpi.test" ./mpi) || {
	echo "compare_refs: $REF does not build the benchmarks (${pkgs[*]} and ./mpi's tests)" >&2
	exit 1
}
go build -o "$work/new/" "${pkgs[@]}"
go test -c -o "$work/new/mpi.test" ./mpi

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

# gobench build: the engine's benchmarks, run from the package directory
# of that build as go test would.
gobench() {
	local dir=$PWD/mpi
	[[ $1 == old ]] && dir=$work/src/mpi
	(cd "$dir" && "$work/$1/mpi.test" -test.run '^$' -test.bench "$GOBENCH" -test.benchmem \
		-test.benchtime "$BENCHTIME" -test.count 1) >>"$OUT/$1.txt"
}

echo "compare_refs: $REF ($commit) vs working tree, $COUNT runs each, outputs in $OUT" >&2
for ((i = 1; i <= COUNT; i++)); do
	echo "compare_refs: run $i/$COUNT" >&2
	# Alternate the order so that neither build always runs second.
	order=(old new)
	((i % 2)) || order=(new old)
	for b in "${order[@]}"; do
		if [[ $OSU != 0 ]]; then
			run "$b" osu_latency "$LAT_SIZES"
			run "$b" osu_bw "$BW_SIZES"
		fi
		[[ -z $GOBENCH ]] || gobench "$b"
	done
done

$BENCHSTAT "$OUT/old.txt" "$OUT/new.txt" | tee "$OUT/benchstat.txt"
