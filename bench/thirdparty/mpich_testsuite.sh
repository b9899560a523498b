#!/bin/bash
# mpich_testsuite.sh — MPICH's own test suite (test/mpi of the Debian mpich
# source), unmodified, built with hympicc and run by its runtests script
# with hympirun as mpiexec. Prints one line per directory: programs run,
# passed, failed.
#
#   bench/thirdparty/mpich_testsuite.sh [TESTMPI]
#
# TESTMPI is an unpacked test/mpi directory; without it the source comes
# from Debian (`apt-get source --download-only mpich`, through a private
# sources list: the machine need not have deb-src lines). It is copied, so
# it can stay read-only. Environment:
#   BIN=bin           hympi's bin/ (hympicc, hympirun, lib/)
#   WORK=/tmp/hympi-mpich-suite  scratch directory (build tree, logs)
#   DIRS="pt2pt coll comm group errhan attr init topo datatype info"
#   MPITEST_TIMEOUT=60  per-program limit in seconds (runtests' variable)
#   JOBS=2            parallel make jobs
set -euo pipefail

BIN=$(cd "${BIN:-bin}" && pwd)
WORK=${WORK:-/tmp/hympi-mpich-suite}
DIRS=${DIRS:-pt2pt coll comm group errhan attr init topo datatype info}
JOBS=${JOBS:-2}
export MPITEST_TIMEOUT=${MPITEST_TIMEOUT:-60}
mkdir -p "$WORK"

src=${1:-}
if [ -z "$src" ]; then
	# Fetch the Debian source of mpich. apt reads a sources list of our
	# own and keeps its lists under $WORK, so the system's apt state is
	# untouched.
	d=$WORK/apt
	mkdir -p "$d/lists/partial" "$d/src"
	echo 'deb-src http://deb.debian.org/debian bookworm main' >"$d/src.list"
	apt_opts=(-o "Dir::Etc::SourceList=$d/src.list" -o Dir::Etc::SourceParts=/dev/null -o "Dir::State::Lists=$d/lists")
	if ! ls "$d"/src/mpich_*.orig.tar.* >/dev/null 2>&1; then
		apt-get "${apt_opts[@]}" update >"$WORK/apt.log" 2>&1
		(cd "$d/src" && apt-get "${apt_opts[@]}" source --download-only mpich >>"$WORK/apt.log" 2>&1)
	fi
	orig=$(ls "$d"/src/mpich_*.orig.tar.* | head -n1)
	rm -rf "$d/unpacked" && mkdir -p "$d/unpacked"
	tar -xf "$orig" -C "$d/unpacked" --wildcards '*/test/mpi/*'
	src=$(ls -d "$d"/unpacked/*/test/mpi)
fi

# A fresh copy keeps timestamps (-a): otherwise make would want to rerun
# automake on the generated files.
build=$WORK/build
rm -rf "$build"
cp -a "$src" "$build"
chmod -R u+w "$build"
cd "$build"
echo "configuring $src with $BIN/hympicc (log: $WORK/configure.log)"
./configure CC="$BIN/hympicc" MPICC="$BIN/hympicc" \
	--disable-fortran --disable-cxx --disable-spawn --disable-ft-tests --disable-romio \
	--disable-rma --disable-part --disable-dtpools --disable-perftest --enable-threads=single \
	>"$WORK/configure.log" 2>&1
make -C util >"$WORK/build-util.log" 2>&1

printf '%-10s %6s %6s %6s %8s\n' dir run passed failed unbuilt
tr=0 tp=0
for dir in $DIRS; do
	# -k: a program that does not compile (a name the standard ABI
	# removed, such as MPI_Fint) fails alone, as a run of it would.
	make -k -j"$JOBS" -C "$dir" >"$WORK/build-$dir.log" 2>&1 || true
	unbuilt=$(awk '!/^#/ && NF {print $1}' "$dir/testlist" | sort -u | while read -r p; do
		[ -x "$dir/$p" ] || echo "$p"; done | wc -l)
	(cd "$dir" && ../runtests -srcdir=. -tests=testlist -mpiexec="$BIN/hympirun" \
		-xmlfile="$WORK/summary-$dir.xml" >"$WORK/run-$dir.log" 2>&1) || true
	run=$(grep -c '<MPITEST>' "$WORK/summary-$dir.xml" || true)
	failed=$(grep -c '<STATUS>fail</STATUS>' "$WORK/summary-$dir.xml" || true)
	printf '%-10s %6d %6d %6d %8d\n' "$dir" "$run" $((run - failed)) "$failed" "$unbuilt"
	tr=$((tr + run)) tp=$((tp + run - failed))
done
printf '%-10s %6d %6d %6d\n' total "$tr" "$tp" $((tr - tp))
echo "failures: grep -B1 -A12 '<STATUS>fail' $WORK/summary-*.xml"
