// Package simwasm embeds sim.wasm, NormGym's simulation core compiled to a
// WASI reactor (wasm/module, ABI in wasm/ABI.md), so that a Go program can
// serve or run it without a file beside it.
//
// sim.wasm is generated, not committed: `make wasm` builds it with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o wasm/simwasm/sim.wasm ./wasm/module
//
// and this package does not compile until it exists. Run it again after
// any change to sim, norms or wasm/module; results record SHA256() so that
// each one names the module that produced it.
package simwasm
