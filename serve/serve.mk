# serve/serve.mk — the server's part of the Makefile (included by the top
# Makefile). `make serve` starts the site; `make bench-serve` runs the
# server's load benchmarks alone (`make bench` runs them too): submissions,
# the leaderboard, refusals, and a session step's p50/p95 with 1, 10 and
# 100 sessions (BenchmarkSessionStep).

.PHONY: serve bench-serve serve-deps

SERVE_BENCH_N ?= 300
SERVE_SUDO    := $(shell [ "$$(id -u)" = 0 ] || command -v sudo)

serve: build ## start the NormGym site on http://127.0.0.1:8080 with ./normgym.db
	./$(BIN) serve

bench-serve: wasm ## the server's benchmarks: verified submissions per second, leaderboard at 100k runs, refusals, session steps
	$(GO) test -run '^$$' -bench . -benchtime $(SERVE_BENCH_N)x ./serve/server/

# The Python client's test (serve/examples) needs Debian's python3 (the
# standard library only: the client carries its own WebSocket client).
serve-deps: ## install what the server's tests need: Debian's python3 (the Python client example)
	@command -v python3 >/dev/null 2>&1 || ($(SERVE_SUDO) apt-get update && $(SERVE_SUDO) apt-get install -y python3)

TEST_DEPS += serve-deps
