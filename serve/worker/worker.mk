# serve/worker/worker.mk — NormGym's server on Cloudflare Workers (included
# by the top Makefile). `make worker` builds it (the web app first),
# `make worker-dev` runs it locally under wrangler dev with a local D1,
# `make worker-test` runs its end-to-end test (also part of `make test`),
# `make bench` measures its session steps (BenchmarkWorkerStep). wrangler
# is pinned in serve/worker/package-lock.json; nothing here reaches
# Cloudflare (README.md, Deploying to Cloudflare, says what does).

.PHONY: worker worker-deps worker-dev worker-test

WORKER_DIR   := serve/worker
WRANGLER     := node_modules/.bin/wrangler
WORKER_STAMP := $(WORKER_DIR)/node_modules/.ci-stamp
# Offline and quiet: no metrics, no error reports, no request.cf fetch, no
# update check (the banner).
WRANGLER_ENV := WRANGLER_SEND_METRICS=false WRANGLER_SEND_ERROR_REPORTS=false CLOUDFLARE_CF_FETCH_ENABLED=false \
  WRANGLER_HIDE_BANNER=true
# The free plan's limit on the compressed worker (KiB, as wrangler counts).
WORKER_LIMIT_KIB ?= 3072
WORKER_PORT  ?= 8787
WORKER_INSPECTOR_PORT ?= 9229

# TestWorker (serve/worker/worker_test.go) needs wrangler: it fails under
# CI=true without it and is skipped elsewhere.
TEST_DEPS += worker-deps

worker-deps: $(WORKER_STAMP) ## install wrangler (pinned in serve/worker/package-lock.json)

$(WORKER_STAMP): $(WORKER_DIR)/package.json $(WORKER_DIR)/package-lock.json
	cd $(WORKER_DIR) && npm ci --no-audit --no-fund
	touch $@

worker: $(SIM_WASM) web worker-deps ## build the web app and the Cloudflare Worker (serve/worker/build) and print its size
	cd $(WORKER_DIR) && $(GO) run github.com/syumai/workers/cmd/workers-assets-gen -mode=go -o build
	cd $(WORKER_DIR) && GOOS=js GOARCH=wasm $(GO) build -trimpath \
	  -ldflags "-s -w -X main.simSHA256=$$(sha256sum $(CURDIR)/$(SIM_WASM) | cut -c1-64)" -o build/app.wasm .
	cp $(WORKER_DIR)/entry.mjs $(WORKER_DIR)/build/entry.mjs
	rm -rf $(WORKER_DIR)/build/assets && mkdir -p $(WORKER_DIR)/build/assets
	cp -R build/web/. $(WORKER_DIR)/build/assets/
	(echo; cat $(WORKER_DIR)/security_headers) >> $(WORKER_DIR)/build/assets/_headers
	@cd $(WORKER_DIR) && out=$$(mktemp -d) && \
	  $(WRANGLER_ENV) XDG_CONFIG_HOME=$$out/xdg WRANGLER_LOG_PATH=$$out/logs $(WRANGLER) deploy --dry-run --outdir $$out/bundle 2>&1 | \
	  grep 'Total Upload' | tee $$out/size; \
	  kib=$$(sed -n 's/.*gzip: \([0-9.]*\).*/\1/p' $$out/size | cut -d. -f1); rm -rf $$out; \
	  if [ -z "$$kib" ]; then echo "worker: wrangler deploy --dry-run printed no size"; exit 1; fi; \
	  if [ "$$kib" -gt $(WORKER_LIMIT_KIB) ]; then \
	    echo "worker: $$kib KiB compressed: over the free plan's $(WORKER_LIMIT_KIB) KiB, within the paid plan's 10 MiB (README: Deploying to Cloudflare)"; fi

# Run the worker locally: http://127.0.0.1:$(WORKER_PORT) (its inspector on
# $(WORKER_INSPECTOR_PORT)), data in serve/worker/.wrangler. The secrets
# (NORMGYM_ADMIN_TOKEN, NORMGYM_TEACHER_KEYS, NORMGYM_SUBMITTER_KEYS, …)
# come from serve/worker/.dev.vars (KEY="value" lines, git-ignored), as
# `wrangler secret put` sets them on Cloudflare. The Worker applies the
# schema itself on its first request.
worker-dev: worker ## run the worker locally under wrangler dev (WORKER_PORT, WORKER_INSPECTOR_PORT; secrets in serve/worker/.dev.vars)
	cd $(WORKER_DIR) && $(WRANGLER_ENV) $(WRANGLER) dev --ip 127.0.0.1 --port $(WORKER_PORT) \
	  --inspector-port $(WORKER_INSPECTOR_PORT) --test-scheduled --show-interactive-dev-session=false

worker-test: $(SIM_WASM) worker-deps ## the worker's end-to-end test under wrangler dev (also part of make test)
	$(GO) test -count=1 -v -run '^TestWorker$$' ./serve/worker/
