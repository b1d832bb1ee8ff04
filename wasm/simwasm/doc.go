// Package simwasm embeds sim.wasm, NormGym's simulation core compiled to a
// WASI reactor (wasm/module, ABI in wasm/ABI.md), so that a Go program can
// serve or run it without a file beside it.
//
// sim.wasm is generated, not committed: `make wasm` builds it with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o wasm/simwasm/module/sim.wasm ./wasm/module
//
// Run it again after any change to sim, norms or wasm/module; results
// record SHA256() so that each one names the module that produced it.
//
// The package embeds the whole module/ folder, whose README.txt is
// committed, so that it compiles on a fresh clone (`go build ./...`,
// `go vet ./...`, `go install`) before anything is built: Built then
// reports false and Err says what to run. Programs that need the module
// check Err before using Bytes.
package simwasm
