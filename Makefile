# hympi — build, test, demo and compare.
#
#   make               build everything into bin/ (C ABI: bin/hympicc, bin/lib, bin/include)
#   make test          vet, unit and multi-process tests, race detector on the engine
#   make demo          2-rank latency and bandwidth demo
#   make compare-ompi  side-by-side point-to-point table against Open MPI (installs it)
#   make compare-rma   one-sided (put/get latency and bandwidth, accumulate, fetch-and-op, CAS) against Open MPI and MPICH (REPS)
#   make compare-coll  collectives (barrier, bcast, allreduce; 2 and 4 ranks), hympi-Go against Open MPI (REPS)
#   make compare       hympi-C, hympi-Go, Open MPI, MPICH: pt2pt and collectives, one table + SVG in bench/results/ (REPS)
#   make fuzz          run each fuzz target for FUZZTIME (default 30s)
#   make bench-compare REF=main   benchstat: a git ref against the working tree
#   make bench-skew    process-skew benchmark, off/auto/always, table + skew.svg (REPS)
#   make bench-cabi    C ABI call costs and C-path latency
#   make bench-modes   HYMPI_DIRECT=off/auto/always tables, reuse and fresh buffers (REPS, WITH_OMPI=1)

GO       ?= go
BIN      := bin
FUZZTIME ?= 30s
REPS     ?= 5
COUNT    ?= 10
CMDS     := hympirun hympi-info hympicc
BENCHES  := osu_latency osu_bw osu_bibw osu_mbw_mr osu_skew \
            osu_barrier osu_ibarrier osu_bcast osu_reduce osu_allreduce \
            osu_gather osu_scatter osu_allgather osu_alltoall osu_rma
WITH_OMPI ?= 0

.PHONY: all build cabi generate bench-cabi test vet race fuzz demo compare-ompi compare-coll compare-rma compare bench-compare bench-modes bench-skew clean

all: build

build: cabi
	@mkdir -p $(BIN)
	$(GO) build -o $(BIN)/ $(addprefix ./cmd/,$(CMDS)) $(addprefix ./bench/,$(BENCHES)) ./bench/cmd/osutable ./bench/plot/cmd/skewplot

# The C ABI: bin/lib/libmpi_abi.so.1 (+ libmpi_abi.so), bin/include/mpi.h,
# bin/lib/pkgconfig/hympi.pc. C programs build with bin/hympicc.
cabi:
	@mkdir -p $(BIN)/lib/pkgconfig $(BIN)/include
	$(GO) build -buildmode=c-shared -ldflags=-extldflags=-Wl,-soname,libmpi_abi.so.1 -o $(BIN)/lib/libmpi_abi.so.1 ./cmd/libmpi_abi
	@rm -f $(BIN)/lib/libmpi_abi.so.h
	@ln -sf libmpi_abi.so.1 $(BIN)/lib/libmpi_abi.so
	@cp cmd/libmpi_abi/include/mpi.h $(BIN)/include/mpi.h
	@prefix=$$(cd $(BIN) && pwd); printf '%s\n' "prefix=$$prefix" 'libdir=$${prefix}/lib' 'includedir=$${prefix}/include' '' \
		'Name: hympi' 'Description: hympi MPI library (MPI 5.0 standard ABI)' 'Version: 5.0' \
		'Cflags: -I$${includedir}' 'Libs: -L$${libdir} -Wl,-rpath,$${libdir} -lmpi_abi' > $(BIN)/lib/pkgconfig/hympi.pc

# Regenerate mpi.h and the stubs after editing cmd/libmpi_abi/gen or a .c file.
generate:
	$(GO) generate ./cmd/libmpi_abi

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

test: build vet race
	$(GO) test -count=1 -timeout 10m ./...

fuzz:
	$(GO) test ./shm/ -run '^$$' -fuzz '^FuzzDecodeDesc$$' -fuzztime $(FUZZTIME)
	$(GO) test ./shm/ -run '^$$' -fuzz '^FuzzDecodeHeader$$' -fuzztime $(FUZZTIME)
	$(GO) test ./shm/ -run '^$$' -fuzz '^FuzzDecodeColl$$' -fuzztime $(FUZZTIME)
	$(GO) test ./bench/internal/osu/ -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME)
	$(GO) test ./skew/ -run '^$$' -fuzz '^FuzzObserve$$' -fuzztime $(FUZZTIME)

demo: build
	$(BIN)/hympirun -n 2 $(BIN)/osu_latency -m 0:65536
	$(BIN)/hympirun -n 2 $(BIN)/osu_bw -m 1024:4194304

compare-ompi: build
	REPS=$(REPS) bash bench/compare_ompi.sh

compare-coll: build
	REPS=$(REPS) bash bench/compare_coll.sh

compare-rma: build
	REPS=$(REPS) bash bench/compare_rma.sh

compare: build
	REPS=$(REPS) bash bench/compare.sh

bench-modes: build
	REPS=$(REPS) WITH_OMPI=$(WITH_OMPI) bash bench/modes.sh

bench-skew: build
	REPS=$(REPS) bash bench/skew.sh

# C ABI costs: ns per call (C-only, bare C->Go, one Go entry) and the 1-byte
# ping-pong latency through libmpi_abi, beside the Go osu_latency.
bench-cabi: build
	$(BIN)/hympicc -O2 -o $(BIN)/cabi_callcost bench/c/cabi_callcost.c
	$(BIN)/hympirun -n 2 $(BIN)/cabi_callcost
	$(BIN)/hympirun -n 2 $(BIN)/osu_latency -m 0:8

bench-compare:
	@test -n "$(REF)" || { echo "usage: make bench-compare REF=<git ref> [COUNT=10]"; exit 2; }
	bash bench/compare_refs.sh $(REF) $(COUNT)

clean:
	rm -rf $(BIN)
