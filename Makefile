# hympi — build, test, demo and compare.
#
#   make               build everything into bin/ (C ABI: bin/hympicc, bin/lib, bin/include)
#   make fortran       Fortran bindings: bin/include/{mpif.h,mpi.mod,mpi_f08.mod,mpi_abi_fort.h}, bin/lib/libmpi_abi_fort.so
#   make install       install into PREFIX (default /usr/local; DESTDIR honoured); make uninstall
#   make test          vet, unit and multi-process tests, race detector on the engine,
#                      make install and the build systems that find it (cmake, meson: make test-tools)
#   make demo          2-rank latency and bandwidth demo
#   make compare-ompi  side-by-side point-to-point table against Open MPI (installs it)
#   make compare-rma   one-sided (put/get latency and bandwidth, accumulate, fetch-and-op, CAS) against Open MPI and MPICH (REPS)
#   make compare-coll  every collective (blocking, nonblocking, persistent, overlap), hympi-C and -Go against
#                      Open MPI and MPICH, 2/4/8 ranks (REPS, default 3; QUICK=1: about 2 minutes)
#   make compare       hympi-C, hympi-Go, Open MPI, MPICH: pt2pt and collectives, one table + SVG in bench/results/ (REPS)
#   make test-backends  package mpi's scenarios on the Open MPI and MPICH backends (-tags ompi/mpich)
#   make fuzz          run each fuzz target for FUZZTIME (default 30s; a count such as 100000x also works)
#   make bench-compare REF=main   benchstat: a git ref against the working tree
#   make bench-skew    process-skew benchmark, off/auto/always, table + skew.svg (REPS)
#   make bench-cabi    C ABI call costs and C-path latency
#   make bench-callgrind  instructions per small-message round trip, Go API and C ABI (valgrind)
#   make bench-callgrind-coll  instructions per small collective call, Go and C, blocking and nb+wait
#   make bench-callgrind-msgrate  instructions per message of osu_bw's window (valgrind)
#   make bench-callgrind-nbc      instructions of C nonblocking/persistent collective phases (valgrind)
#   make bench-modes   HYMPI_DIRECT=off/auto/always tables, reuse and fresh buffers (REPS, WITH_OMPI=1)
#   make soak          8 ranks of random, fully checked traffic in every HYMPI_DIRECT mode, async progress
#                      and HYMPI_CHECKSUM, DURATION each (default 1m; SEED=N replays a plan)
#   make mpich-testsuite  MPICH's own test suite (test/mpi of Debian's mpich source, fetched with
#                      apt-get source; needs the network), built with hympicc, run with hympirun:
#                      a pass table per directory (MPICH_TESTS=dir to use an unpacked test/mpi)
#   make chaos         the soak's traffic with faults and hostile writes injected (RUNS, SEED)

GO       ?= go
BIN      := bin
FUZZTIME ?= 30s
REPS     ?= 5
COUNT    ?= 10
CMDS     := hympirun hympi-info hympicc hympicxx hympifort
PREFIX   ?= /usr/local
DESTDIR  ?=
# The version is internal/version/VERSION; the commit is stamped here.
VERSION  := $(shell cat internal/version/VERSION)
COMMIT   := $(shell git describe --tags --always --dirty 2>/dev/null)
XVERSION := $(if $(COMMIT),-X github.com/hympi/hympi/internal/version.commit=$(COMMIT))
BENCHES  := osu_latency osu_bw osu_bibw osu_mbw_mr osu_skew \
            osu_barrier osu_ibarrier osu_bcast osu_reduce osu_allreduce \
            osu_gather osu_scatter osu_allgather osu_alltoall osu_rma osu_colls scale firstcopy
WITH_OMPI ?= 0

.PHONY: all build cmds install uninstall test-tools test-backends cabi fortran generate bench-cabi test test-big bench-scale bench-scale-coll vet race fuzz demo compare-ompi compare-coll compare-rma compare bench-compare bench-callgrind bench-callgrind-coll bench-modes bench-skew soak chaos mpich-testsuite clean bench-callgrind-msgrate bench-callgrind-nbc

all: build

# The Fortran bindings are part of the build where gfortran is installed.
ifeq ($(origin FC),default)
FC       := gfortran
endif
HAVE_FC  := $(shell command -v $(FC) 2>/dev/null)

build: cabi cmds $(if $(HAVE_FC),fortran)
	$(GO) build -o $(BIN)/ $(addprefix ./bench/,$(BENCHES)) ./bench/cmd/osutable ./bench/cmd/colltable ./bench/plot/cmd/skewplot

# The commands, with hympic++ as hympicxx's other name.
cmds:
	@mkdir -p $(BIN)
	$(GO) build -ldflags='$(XVERSION)' -o $(BIN)/ $(addprefix ./cmd/,$(CMDS))
	@ln -sf hympicxx $(BIN)/hympic++

# The C ABI: bin/lib/libmpi_abi.so.1 (+ libmpi_abi.so), bin/include/mpi.h,
# bin/lib/pkgconfig/hympi.pc. C programs build with bin/hympicc.
cabi:
	@mkdir -p $(BIN)/lib/pkgconfig $(BIN)/include
	$(GO) build -buildmode=c-shared -ldflags='$(XVERSION) -extldflags=-Wl,-soname,libmpi_abi.so.1' -o $(BIN)/lib/libmpi_abi.so.1 ./cmd/libmpi_abi
	@rm -f $(BIN)/lib/libmpi_abi.so.h
	@ln -sf libmpi_abi.so.1 $(BIN)/lib/libmpi_abi.so
	@cp cmd/libmpi_abi/include/mpi.h $(BIN)/include/mpi.h
	@$(call pcfiles,$(BIN)/lib/pkgconfig)

# pcfiles writes hympi.pc and the names build files ask pkg-config for into
# $(1): mpi*.pc, and Open MPI's ompi*.pc, the only ones Meson's
# dependency('mpi') tries. prefix is found from the file's own place
# (pcfiledir), so the same files serve bin/ and any installed or moved prefix.
PCS    := hympi mpi mpi-c mpi-cxx mpi-fort ompi ompi-c ompi-cxx ompi-fort
pcfiles = for pc in $(PCS); do \
	libs='-lmpi_abi'; case $$pc in *-fort) libs='-lmpi_abi_fort -lmpi_abi';; esac; \
	printf '%s\n' 'prefix=$${pcfiledir}/../..' 'libdir=$${prefix}/lib' 'includedir=$${prefix}/include' '' \
		"Name: $$pc" 'Description: hympi MPI library (MPI 5.0 standard ABI)' 'Version: $(VERSION)' \
		'Cflags: -I$${includedir}' "Libs: -L\$${libdir} -Wl,-rpath,\$${libdir} $$libs" > $(1)/$$pc.pc; done

# make install [PREFIX=/usr/local] [DESTDIR=]: the commands, with the names
# other MPIs use (mpicc, mpirun, ...) so putting PREFIX/bin first on PATH
# switches a project to hympi; the header, library, pkg-config files and man
# pages; and the Fortran bindings when `make fortran` has built them
# (HAVE_FC, set where gfortran is, makes install build them). The
# wrappers find include/ and lib/ beside their own bin/, so the tree can be
# moved after installing.
IDIR   = $(DESTDIR)$(PREFIX)
LINKS  := mpicc:hympicc mpicxx:hympicxx mpic++:hympicxx mpiCC:hympicxx hympic++:hympicxx \
          mpifort:hympifort mpif90:hympifort mpif77:hympifort mpirun:hympirun mpiexec:hympirun
MANS   := $(wildcard docs/man/*.1)
# man pages under the other MPIs' names, so `man mpicc` after switching PATH
# shows hympi's page (man looks beside each PATH entry's bin/).
MANLINKS := mpicc:hympicc mpicxx:hympicc mpic++:hympicc mpifort:hympicc mpif90:hympicc mpif77:hympicc \
            mpirun:hympirun mpiexec:hympirun
install: cabi cmds $(if $(HAVE_FC),fortran)
	install -d $(IDIR)/bin $(IDIR)/include $(IDIR)/lib/pkgconfig $(IDIR)/share/man/man1
	install -m 755 $(addprefix $(BIN)/,$(CMDS)) $(IDIR)/bin/
	@for l in $(LINKS); do ln -sfn $${l#*:} $(IDIR)/bin/$${l%%:*}; done
	install -m 644 $(BIN)/include/mpi.h $(IDIR)/include/
	@for f in $(BIN)/include/mpif.h $(BIN)/include/*.mod; do \
		if [ -f "$$f" ]; then install -m 644 "$$f" $(IDIR)/include/ || exit 1; fi; done
	install -m 755 $(BIN)/lib/libmpi_abi.so.1 $(IDIR)/lib/
	ln -sfn libmpi_abi.so.1 $(IDIR)/lib/libmpi_abi.so
	ln -sfn libmpi_abi.so.1 $(IDIR)/lib/libmpi.so
	@if [ -f $(BIN)/lib/libmpi_abi_fort.so.1 ]; then \
		install -m 755 $(BIN)/lib/libmpi_abi_fort.so.1 $(IDIR)/lib/ && \
		ln -sfn libmpi_abi_fort.so.1 $(IDIR)/lib/libmpi_abi_fort.so; fi
	@$(call pcfiles,$(IDIR)/lib/pkgconfig)
	install -m 644 $(MANS) $(IDIR)/share/man/man1/
	@for l in $(MANLINKS); do echo ".so man1/$${l#*:}.1" > $(IDIR)/share/man/man1/$${l%%:*}.1; done
	@echo "installed hympi $(VERSION) into $(IDIR); put $(PREFIX)/bin first on PATH to use it"

uninstall:
	rm -f $(addprefix $(IDIR)/bin/,$(CMDS)) $(foreach l,$(LINKS),$(IDIR)/bin/$(firstword $(subst :, ,$(l))))
	rm -f $(IDIR)/include/mpi.h $(IDIR)/include/mpif.h $(wildcard $(IDIR)/include/mpi*.mod)
	rm -f $(addprefix $(IDIR)/lib/,libmpi_abi.so.1 libmpi_abi.so libmpi.so libmpi_abi_fort.so.1 libmpi_abi_fort.so)
	rm -f $(addprefix $(IDIR)/lib/pkgconfig/,$(addsuffix .pc,$(PCS)))
	rm -f $(addprefix $(IDIR)/share/man/man1/,$(notdir $(MANS)) $(foreach l,$(MANLINKS),$(firstword $(subst :, ,$(l))).1))

# The Fortran bindings (cmd/libmpi_abi_fort): C wrappers, generated from
# the C ABI's function list, plus the mpi and mpi_f08 modules, in
# libmpi_abi_fort.so.1 on top of libmpi_abi.so.1. Programs link with
# -lmpi_abi_fort -lmpi_abi. Installs gfortran if it is missing.
FORT_SRC := cmd/libmpi_abi_fort/src
FORT_OBJ := $(BIN)/obj/fort
fortran: cabi
	@command -v $(FC) >/dev/null 2>&1 || { echo "installing gfortran"; apt-get install -y gfortran >/dev/null || \
		{ apt-get update >/dev/null && apt-get install -y gfortran >/dev/null; } || \
		{ echo "$(FC) is missing and apt-get install gfortran failed"; exit 1; }; }
	@mkdir -p $(FORT_OBJ) $(BIN)/include $(BIN)/lib
	cp $(FORT_SRC)/mpif.h $(FORT_SRC)/mpi_abi_fort.h $(BIN)/include/
	for f in fort callbacks legacy wrappers_gen; do \
		cc -O2 -fPIC -Wall -Wextra -I cmd/libmpi_abi/include -c $(FORT_SRC)/$$f.c -o $(FORT_OBJ)/$$f.o || exit 1; \
	done
	$(FC) -O1 -fPIC -J $(FORT_OBJ) -I $(FORT_SRC) -c $(FORT_SRC)/mpi.f90 -o $(FORT_OBJ)/mpi.o
	$(FC) -O1 -fPIC -J $(FORT_OBJ) -I $(FORT_SRC) -c $(FORT_SRC)/mpi_f08.f90 -o $(FORT_OBJ)/mpi_f08.o
	$(FC) -shared -Wl,-soname,libmpi_abi_fort.so.1 -o $(BIN)/lib/libmpi_abi_fort.so.1 \
		$(addprefix $(FORT_OBJ)/,fort.o callbacks.o legacy.o wrappers_gen.o mpi.o mpi_f08.o) \
		-L$(BIN)/lib -lmpi_abi -Wl,-rpath,'$$ORIGIN'
	@ln -sf libmpi_abi_fort.so.1 $(BIN)/lib/libmpi_abi_fort.so
	cp $(FORT_OBJ)/mpi.mod $(FORT_OBJ)/mpi_f08.mod $(BIN)/include/

# Regenerate mpi.h and the stubs after editing cmd/libmpi_abi/gen or a .c file.
generate:
	$(GO) generate ./cmd/libmpi_abi
	$(GO) generate ./cmd/libmpi_abi_fort

vet:
	@unformatted=$$(gofmt -l $$(find . -name '*.go' -not -path './bin/*')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...

# The race detector watches the engine in-process (several goroutines per
# rank over one region) and the packages below it; the multi-process tests
# then run the normal build.
race:
	$(GO) test -race -count=1 ./shm/ ./topology/ ./directcopy/ ./skew/
	$(GO) test -race -count=1 -run 'InProcess' ./mpi/

# The build-system tests (cmd/internal/installtest) use these; each test
# skips with a message when its tool is missing, so a machine where they
# cannot be installed still runs the rest.
TEST_TOOLS := cmake:cmake ctest:cmake pkg-config:pkg-config c++:g++ meson:meson ninja:ninja-build
test-tools:
	@pkgs=; for t in $(TEST_TOOLS); do command -v $${t%%:*} >/dev/null || pkgs="$$pkgs $${t#*:}"; done; \
	if [ -n "$$pkgs" ]; then echo "installing$$pkgs for the build-system tests"; \
		{ apt-get install -y -qq $$pkgs || { apt-get update -qq && apt-get install -y -qq $$pkgs; }; } >/dev/null 2>&1 || \
		echo "could not install$$pkgs: the tests that need them will skip"; fi

test: build vet race test-tools
	$(GO) test -count=1 -timeout 10m ./...

# The many-rank jobs alone and verbose (make test runs them too), and the
# region/Init table of issue 15 (bench/scale.sh) for 2 ... 256 ranks.
test-big:
	$(GO) test -count=1 -timeout 20m -v -run 'ManyRanks|PairsCost' ./bench/scale/

bench-scale: build
	bash bench/scale.sh $(BIN)

# Barrier and Allreduce 8 B at 16, 64 and 256 ranks against Open MPI
# --oversubscribe (needs mpicc.openmpi; REPS, ITERS).
bench-scale-coll: build
	bash bench/scale_coll.sh

# The system-MPI backends of package mpi (-tags ompi, -tags mpich) run the
# multi-process scenarios with 4 ranks under mpirun.openmpi and
# mpiexec.mpich; the Debian packages are installed when missing.
BACKEND_PKGS := mpirun.openmpi:openmpi-bin mpicc.openmpi:libopenmpi-dev mpiexec.mpich:mpich mpicc.mpich:libmpich-dev pkg-config:pkg-config
test-backends:
	@pkgs=; for t in $(BACKEND_PKGS); do command -v $${t%%:*} >/dev/null || pkgs="$$pkgs $${t#*:}"; done; \
	if [ -n "$$pkgs" ]; then echo "installing$$pkgs for the backend tests"; \
		{ apt-get install -y -qq $$pkgs || { apt-get update -qq && apt-get install -y -qq $$pkgs; }; } >/dev/null; fi
	GO=$(GO) bash mpi/internal/scenarios/backends.sh

fuzz:
	$(GO) test ./shm/ -run '^$$' -fuzz '^FuzzDecodeDesc$$' -fuzztime $(FUZZTIME)
	$(GO) test ./shm/ -run '^$$' -fuzz '^FuzzDecodeHeader$$' -fuzztime $(FUZZTIME)
	$(GO) test ./shm/ -run '^$$' -fuzz '^FuzzDecodeColl$$' -fuzztime $(FUZZTIME)
	$(GO) test ./shm/ -run '^$$' -fuzz '^FuzzIncomingChannel$$' -fuzztime $(FUZZTIME)
	$(GO) test ./shm/ -run '^$$' -fuzz '^FuzzGate$$' -fuzztime $(FUZZTIME)
	$(GO) test ./shm/ -run '^$$' -fuzz '^FuzzPeekSpan$$' -fuzztime $(FUZZTIME)
	$(GO) test ./shm/ -run '^$$' -fuzz '^FuzzCollSpan$$' -fuzztime $(FUZZTIME)
	$(GO) test ./cmd/libmpi_abi/ -run '^$$' -fuzz '^FuzzFastLaneSlot$$' -fuzztime $(FUZZTIME)
	$(GO) test ./bench/internal/osu/ -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME)
	$(GO) test ./skew/ -run '^$$' -fuzz '^FuzzObserve$$' -fuzztime $(FUZZTIME)
	$(GO) test ./topology/ -run '^$$' -fuzz '^FuzzParseCPUList$$' -fuzztime $(FUZZTIME)
	$(GO) test ./internal/config/ -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME)
	$(GO) test ./mpi/ -run '^$$' -fuzz '^FuzzVectorKernels$$' -fuzztime $(FUZZTIME)

# Not part of make test: it downloads the MPICH source. dpkg-dev provides
# apt-get source; the source list is private to the script (no deb-src
# line is needed on the machine).
MPICH_TESTS ?=
mpich-testsuite: build
	@command -v dpkg-source >/dev/null || { apt-get install -y -qq dpkg-dev || { apt-get update -qq && apt-get install -y -qq dpkg-dev; }; } >/dev/null
	BIN=$(BIN) bash bench/thirdparty/mpich_testsuite.sh $(MPICH_TESTS)

demo: build
	$(BIN)/hympirun -n 2 $(BIN)/osu_latency -m 0:65536
	$(BIN)/hympirun -n 2 $(BIN)/osu_bw -m 1024:4194304

compare-ompi: build
	REPS=$(REPS) bash bench/compare_ompi.sh

# Every collective in three forms at 3 job sizes: 3 repetitions keep it under
# 15 minutes on 2 CPUs unless REPS is given.
QUICK ?= 0
compare-coll: build
	$(if $(filter command line environment,$(origin REPS)),REPS=$(REPS)) QUICK=$(QUICK) bash bench/compare_coll.sh

compare-rma: build
	REPS=$(REPS) bash bench/compare_rma.sh

compare: build
	REPS=$(REPS) bash bench/compare.sh

bench-modes: build
	REPS=$(REPS) WITH_OMPI=$(WITH_OMPI) bash bench/modes.sh

bench-skew: build
	REPS=$(REPS) bash bench/skew.sh

# The attack suites (issue 11). make test runs a short slice of each
# (bench/soak, bench/chaos tests).
DURATION ?= 1m
SEED     ?= 0
RUNS     ?= 40
soak: build
	$(GO) build -o $(BIN)/soak ./bench/soak
	$(BIN)/soak -modes -hympirun $(BIN)/hympirun -n 8 -duration $(DURATION) -seed $(SEED)

chaos: build
	$(GO) build -o $(BIN)/soak ./bench/soak
	$(GO) build -o $(BIN)/chaos ./bench/chaos
	$(BIN)/chaos -hympirun $(BIN)/hympirun -soak $(BIN)/soak -runs $(RUNS) -seed $(SEED)

# C ABI costs: ns per call (C-only, bare C->Go, one Go entry) and the 1-byte
# ping-pong latency through libmpi_abi, beside the Go osu_latency.
bench-cabi: build
	$(BIN)/hympicc -O2 -o $(BIN)/cabi_callcost bench/c/cabi_callcost.c
	$(BIN)/hympirun -n 2 $(BIN)/cabi_callcost
	$(BIN)/hympirun -n 2 $(BIN)/osu_latency -m 0:8

bench-compare:
	@test -n "$(REF)" || { echo "usage: make bench-compare REF=<git ref> [COUNT=10]"; exit 2; }
	bash bench/compare_refs.sh $(REF) $(COUNT)

# Instruction counts (docs/bench/callgrind.md); needs valgrind.
bench-callgrind: build
	bash bench/callgrind.sh

# The same for small collectives (docs/bench/coll-callgrind.md).
bench-callgrind-coll: build
	bash bench/callgrind_coll.sh
# Instructions per message of osu_bw's window (docs/bench/msgrate.md).
bench-callgrind-msgrate: build
	bash bench/callgrind_msgrate.sh
# Start, test and wait of C nonblocking and persistent collectives apart.
bench-callgrind-nbc: build
	bash bench/callgrind_nbc.sh

clean:
	rm -rf $(BIN)
