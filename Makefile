# NormGym — make targets read like a menu. `make help` lists them.
GO        ?= go
SIM_WASM  := wasm/simwasm/module/sim.wasm
BIN       := bin/normgym
GOFILES    = $(shell find sim norms wasm serve web -name '*.go' -not -path '*/node_modules/*' 2>/dev/null) go.mod

.PHONY: help run test bench check wasm build deps clean fuzz
.SECONDEXPANSION:

# Each part may add to these from its own fragment (web/web.mk, serve/serve.mk):
# TEST_DEPS are targets `make test` needs first (apt/npm installs, builds);
# BUILD_DEPS are targets the normgym binary needs (embedded assets).
TEST_DEPS  :=
BUILD_DEPS :=
-include web/web.mk serve/serve.mk serve/worker/worker.mk

help: ## list the targets
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-6s %s\n", $$1, $$2}'

run: build web ## print the baselines' table on the mini suite, then start the site on http://localhost:8080
	./$(BIN) run --suite mini --agent all
	./$(BIN) serve --addr 127.0.0.1:8080 --db normgym.db

test: deps wasm $$(TEST_DEPS) ## install what the tests need, build sim.wasm, run every test
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 20m ./...

bench: deps wasm ## benchmarks that print figures (per step, per visit, per suite)
	$(GO) test -run '^$$' -bench . -benchtime 1x -benchmem ./sim/... ./wasm/...
	$(GO) test -run '^$$' -bench Eval -benchtime 1x ./serve/cli/

fuzz: ## run each fuzz target briefly
	$(GO) test -run '^$$' -fuzz FuzzParse$$ -fuzztime 20s ./norms/
	$(GO) test -run '^$$' -fuzz FuzzParseAction -fuzztime 20s ./sim/
	$(GO) test -run '^$$' -fuzz FuzzParseVisitID -fuzztime 20s ./sim/
	$(GO) test -run '^$$' -fuzz FuzzExtractAction -fuzztime 20s ./sim/prompt/
	$(GO) test -run '^$$' -fuzz FuzzABI -fuzztime 20s ./wasm/host/

check: wasm ## gofmt, vet, tidy and cross-builds; fails on a dirty tree
	@test -z "$$(gofmt -l sim norms wasm serve web 2>/dev/null)" || (gofmt -l sim norms wasm serve web; echo "gofmt needed"; exit 1)
	$(GO) vet ./...
	GOOS=wasip1 GOARCH=wasm $(GO) vet ./wasm/module
	$(GO) mod tidy && git diff --exit-code go.mod go.sum
	@test -z "$$(git status --porcelain)" || (git status --short; echo "dirty tree"; exit 1)

deps: ## download Go modules
	$(GO) mod download

wasm: $(SIM_WASM) ## build the sim module (GOOS=wasip1 reactor)

$(SIM_WASM): $(GOFILES)
	GOOS=wasip1 GOARCH=wasm $(GO) build -buildmode=c-shared -trimpath -o $@ ./wasm/module

build: $(BIN) ## build ./bin/normgym with sim.wasm embedded

$(BIN): $(SIM_WASM) $(GOFILES) $$(BUILD_DEPS)
	$(GO) build -trimpath -o $@ ./serve/cmd/normgym

clean: ## remove build outputs
	rm -rf bin build $(SIM_WASM)
