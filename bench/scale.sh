#!/usr/bin/env bash
# The memory and start-up table of issue 15: for each rank count, the
# region the launcher lays out (hympi-info), the bytes the job's pairs make
# the file system hold after hello+barrier+allreduce (bench/scale), the
# slowest rank's Init, rank 0's Finalize and the launcher's wall time.
# Usage: bench/scale.sh [BINDIR] [N...]   (BINDIR defaults to bin)
# PATTERNS picks what the ranks do (default "hello barrier allreduce"); the
# all-pairs benchmark is PATTERNS=allpairs bench/scale.sh bin 256 (every
# ordered pair gets a channel: about 5.6 GiB of /dev/shm at 256 ranks).
set -eu
bin=${1:-bin}
shift || true
ns=${*:-2 8 16 64 128 256}
patterns=${PATTERNS:-hello barrier allreduce}
printf '| ranks | region (MiB) | used after %s (MiB) | channels | Init max (ms) | Finalize (ms) | wall (s) |\n' "${patterns// /+}"
printf '|---|---|---|---|---|---|---|\n'
for n in $ns; do
	region=$("$bin/hympi-info" --json -n "$n" | sed -n 's/.*"region_bytes": *\([0-9]*\).*/\1/p' | head -1)
	start=$(date +%s.%N)
	# shellcheck disable=SC2086
	line=$("$bin/hympirun" --oversubscribe -n "$n" "$bin/scale" $patterns 2>&1 | grep '^scale' || true)
	end=$(date +%s.%N)
	used=$(sed -n 's/.*region_used=\([0-9-]*\).*/\1/p' <<<"$line")
	init=$(sed -n 's/.*init_ms=\([0-9.]*\).*/\1/p' <<<"$line")
	fin=$(sed -n 's/.*finalize_ms=\([0-9.]*\).*/\1/p' <<<"$line")
	chans=$(sed -n 's/.*channels=\([0-9-]*\).*/\1/p' <<<"$line")
	awk -v n="$n" -v r="${region:-0}" -v u="${used:-0}" -v c="${chans:--}" -v i="$init" -v f="$fin" -v s="$start" -v e="$end" \
		'BEGIN { printf "| %d | %.1f | %.1f | %s | %s | %s | %.2f |\n", n, r/1048576, u/1048576, c, i, f, e-s }'
done
