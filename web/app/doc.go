// Command app is NormGym's browser UI, built with GOOS=js GOARCH=wasm and
// loaded by the page's boot.js with Go's wasm_exec.js. It draws what
// sim.wasm (run beside it by browser_wasi_shim, reached through the
// synchronous bridge globalThis.normgymSim.call) observes and sends the
// newcomer's actions; all game logic stays in the module. The screens
// themselves are rendered by web/internal/ui, which is tested natively.
//
// Build it with `make web` (see web/web.mk), not on its own.
package main
