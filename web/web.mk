# The browser app (web/): a static site in build/web. Included by the top
# Makefile. Serve it with: cd build/web && python3 -m http.server
WEB_OUT  := build/web
WEB_SHIM := web/node_modules/@bjorn3/browser_wasi_shim/dist/index.js
SUDO     := $(shell [ "$$(id -u)" = 0 ] || command -v sudo)

.PHONY: web web-deps web-bench

web: $(SIM_WASM) $(WEB_SHIM) ## build the static web app into build/web and web/dist (embedded by make build)
	$(GO) run ./web/cmd/webbuild -out $(WEB_OUT)
	find web/dist/files -mindepth 1 ! -name README.txt -exec rm -rf {} +
	cp -R $(WEB_OUT)/. web/dist/files/

# browser_wasi_shim, pinned in web/package-lock.json.
$(WEB_SHIM): web/package.json web/package-lock.json
	cd web && npm ci --no-audit --no-fund
	@touch $@

web-deps: ## install what the web build and tests need: npm packages, Debian's chromium
	cd web && npm ci --no-audit --no-fund
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
		($(SUDO) apt-get update && $(SUDO) apt-get install -y chromium)

web-bench: web ## first-visit sizes (raw, gzip, brotli) and time to interactive in headless chromium
	$(GO) run ./web/cmd/webbench -dir $(WEB_OUT)

TEST_DEPS += web-deps web
BUILD_DEPS += web
