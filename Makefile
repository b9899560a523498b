# hympi — build, test, demo and compare.
#
#   make               build everything into bin/
#   make test          vet, unit and multi-process tests, race detector on the engine
#   make demo          2-rank latency and bandwidth demo
#   make compare-ompi  side-by-side point-to-point table against Open MPI (installs it)
#   make fuzz          run each fuzz target for FUZZTIME (default 30s)
#   make bench-compare REF=main   benchstat: a git ref against the working tree
#   make bench-skew    process-skew benchmark, off/auto/always, table + skew.svg (REPS)
#   make bench-modes   HYMPI_DIRECT=off/auto/always tables, reuse and fresh buffers (REPS, WITH_OMPI=1)

GO       ?= go
BIN      := bin
FUZZTIME ?= 30s
REPS     ?= 5
COUNT    ?= 10
CMDS     := hympirun hympi-info
BENCHES  := osu_latency osu_bw osu_bibw osu_mbw_mr osu_skew
WITH_OMPI ?= 0

.PHONY: all build test vet race fuzz demo compare-ompi bench-compare bench-modes bench-skew clean

all: build

build:
	@mkdir -p $(BIN)
	$(GO) build -o $(BIN)/ $(addprefix ./cmd/,$(CMDS)) $(addprefix ./bench/,$(BENCHES)) ./bench/cmd/osutable ./bench/plot/cmd/skewplot

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

bench-modes: build
	REPS=$(REPS) WITH_OMPI=$(WITH_OMPI) bash bench/modes.sh

bench-skew: build
	REPS=$(REPS) bash bench/skew.sh

bench-compare:
	@test -n "$(REF)" || { echo "usage: make bench-compare REF=<git ref> [COUNT=10]"; exit 2; }
	bash bench/compare_refs.sh $(REF) $(COUNT)

clean:
	rm -rf $(BIN)
