# serve/serve.mk — the server's part of the Makefile (included by the top
# Makefile). `make serve` starts the site; `make bench-serve` runs the
# server's load benchmarks alone (`make bench` runs them too).

.PHONY: serve bench-serve

SERVE_BENCH_N ?= 300

serve: build ## start the NormGym site on http://127.0.0.1:8080 with ./normgym.db
	./$(BIN) serve

bench-serve: wasm ## the server's benchmarks: verified submissions per second, leaderboard latency at 100k runs, refusals
	$(GO) test -run '^$$' -bench . -benchtime $(SERVE_BENCH_N)x ./serve/server/
