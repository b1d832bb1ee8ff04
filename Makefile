# NormGym — make targets read like a menu. `make help` lists them.
GO        ?= go
SIM_WASM  := wasm/simwasm/module/sim.wasm
BIN       := bin/normgym
GOFILES    = $(shell find sim norms wasm serve web -name '*.go' -not -path '*/node_modules/*' 2>/dev/null) go.mod

.PHONY: help run test bench bench-docs check wasm build deps clean fuzz fuzz-short bench-short figures
.SECONDEXPANSION:

# Each part may add to these from its own fragment (web/web.mk, serve/serve.mk):
# TEST_DEPS are targets `make test` needs first (apt/npm installs, builds);
# BUILD_DEPS are targets the normgym binary needs (embedded assets).
TEST_DEPS  :=
BUILD_DEPS :=
-include web/web.mk serve/serve.mk serve/worker/worker.mk

help: ## list the targets
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

run: build web ## print the baselines' table on the mini suite, then start the site on http://localhost:8080
	./$(BIN) run --suite mini --agent all
	./$(BIN) serve --addr 127.0.0.1:8080 --db normgym.db

test: deps wasm $$(TEST_DEPS) ## install what the tests need, build sim.wasm, run every test, a short fuzz and a one-sample bench
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet ./web/...
	GOOS=wasip1 GOARCH=wasm $(GO) vet ./wasm/module ./wasm/internal/floor/...
	$(GO) test -count=1 -timeout 30m ./...
	$(MAKE) --no-print-directory fuzz-short bench-short

# Benchmarks print figures (per step, per visit, per suite, bytes per visit,
# wasm/native ratios): BENCH_COUNT samples of each, then benchstat's summary
# (median and spread) of all of them. The raw output is in build/bench.txt.
BENCH_COUNT ?= 5
BENCHSTAT   := golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da
bench: deps wasm worker ## benchmarks that print figures: BENCH_COUNT samples each, summarised by benchstat
	@mkdir -p build
	$(GO) test -run '^$$' -bench . -benchtime 1x -count $(BENCH_COUNT) -benchmem ./sim/... ./wasm/... ./sim/prompt/ > build/bench.txt
	$(GO) test -run '^$$' -bench Eval -benchtime 1x -count $(BENCH_COUNT) ./serve/cli/ >> build/bench.txt
	$(GO) test -run '^$$' -bench . -benchtime $(SERVE_BENCH_N)x -count $(BENCH_COUNT) ./serve/server/ >> build/bench.txt
	$(GO) test -run '^$$' -bench . -benchtime 1x -count $(BENCH_COUNT) ./serve/worker/ >> build/bench.txt
	$(GO) run $(BENCHSTAT) build/bench.txt
	$(GO) run ./serve/cmd/doccheck figures build/bench.txt

bench-docs: ## copy the medians of the last make bench (build/bench.txt) into the documents' marked figures
	@test -f build/bench.txt || (echo "no build/bench.txt: run make bench first"; exit 1)
	$(GO) run ./serve/cmd/doccheck write build/bench.txt

# The report the README's figures come from: every baseline over standard,
# transfer and hard (the native core: the same records as sim.wasm, in
# seconds), then normgym report into sim/report/figures/.
FIGURES_DIR := sim/report/figures
figures: wasm ## run every baseline over standard, transfer and hard and write the report the README's figures come from (sim/report/figures/)
	@mkdir -p build/figures
	$(GO) build -trimpath -o build/figures/normgym ./serve/cmd/normgym
	@for s in standard transfer hard; do echo "run --suite $$s"; \
	  build/figures/normgym run --native --suite $$s --agent all --out build/figures/$$s.jsonl > /dev/null || exit 1; done
	build/figures/normgym report build/figures/standard.jsonl build/figures/transfer.jsonl build/figures/hard.jsonl --out $(FIGURES_DIR)

bench-short: wasm ## one sample of every benchmark, as a smoke test (part of make test)
	$(GO) test -run '^$$' -bench . -benchtime 1x -count 1 ./sim/... ./wasm/... ./serve/cli/ ./sim/prompt/ > /dev/null

# Every fuzz target, at its package: TARGET:PACKAGE.
FUZZ_TARGETS := FuzzParse:./norms/ FuzzParseID:./norms/ FuzzParseAction:./sim/ FuzzParseVisitID:./sim/ FuzzStep:./sim/ \
  FuzzExtractAction:./sim/prompt/ FuzzABI:./wasm/host/ FuzzParseRoute:./web/internal/ui/ FuzzCheck:./serve/strictjson/ \
  FuzzSubmit:./serve/server/
FUZZ_TIME ?= 20s
fuzz: wasm ## run every fuzz target for FUZZ_TIME (20s, or a count like 5000x) each; a failure stops with the input to re-run
	@set -e; for t in $(FUZZ_TARGETS); do name=$${t%%:*}; pkg=$${t#*:}; echo "fuzz $$name ($$pkg, $(FUZZ_TIME))"; \
	  $(GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZ_TIME) $$pkg > build/fuzz-$$name.log 2>&1 || { tail -20 build/fuzz-$$name.log; exit 1; }; done

# The short run counts inputs instead of timing itself: Go 1.26's fuzz
# coordinator can fail a target with "context deadline exceeded" when a time
# budget ends while a worker is busy (seen on a loaded CI machine; fixed in
# Go 1.27), and a count has no deadline to race.
FUZZ_SHORT ?= 300x
fuzz-short: ## every fuzz target for FUZZ_SHORT (300x) inputs (part of make test)
	@mkdir -p build
	@$(MAKE) --no-print-directory fuzz FUZZ_TIME=$(FUZZ_SHORT)

check: wasm ## gofmt, vet (native, js, wasip1), go mod tidy; fails on a dirty tree
	@test -z "$$(gofmt -l sim norms wasm serve web 2>/dev/null)" || (gofmt -l sim norms wasm serve web; echo "gofmt needed"; exit 1)
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet ./web/...
	GOOS=js GOARCH=wasm $(GO) vet ./serve/worker/
	GOOS=wasip1 GOARCH=wasm $(GO) vet ./wasm/module ./wasm/internal/floor/...
	$(GO) mod tidy && git diff --exit-code go.mod go.sum
	@test -z "$$(git status --porcelain)" || (git status --short; echo "dirty tree"; exit 1)

deps: ## download Go modules
	$(GO) mod download

wasm: $(SIM_WASM) ## build the sim module (GOOS=wasip1 reactor)

# The catalog is embedded in sim.wasm and the binary: a norm file added,
# changed or removed rebuilds both (the folder's own time changes when a
# file is added or removed; a removed file is no prerequisite any more).
CATALOG    = $(wildcard norms/catalog/*.json) norms/catalog

$(SIM_WASM): $(GOFILES) $(CATALOG)
	GOOS=wasip1 GOARCH=wasm $(GO) build -buildmode=c-shared -trimpath -o $@ ./wasm/module

build: $(BIN) ## build ./bin/normgym with sim.wasm and the web app embedded (runs from any folder)

$(BIN): $(SIM_WASM) $(GOFILES) $(CATALOG) $$(BUILD_DEPS)
	$(GO) build -trimpath -o $@ ./serve/cmd/normgym

clean: ## remove build outputs
	rm -rf bin build $(SIM_WASM)
	find web/dist/files -mindepth 1 ! -name README.txt -exec rm -rf {} +
