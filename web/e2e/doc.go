// Package e2e holds the browser app's end-to-end tests: headless Chromium
// (chromedp) driving the built site (build/web, rebuilt when stale) served
// on loopback, checked against the same sim.wasm run by the wazero host.
// Screenshots go to build/test-artifacts/web/.
//
// Without Chromium the tests skip, unless CI=true: then they fail.
package e2e
