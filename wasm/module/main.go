// Command module is sim.wasm: NormGym's simulation core as a WASI reactor
// with a JSON-in, JSON-out ABI (see wasm/ABI.md). Build it with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o wasm/simwasm/module/sim.wasm ./wasm/module
//
// It exports _initialize (the Go runtime's start) and the ABI functions;
// main never runs. Built for any other port it is an empty program.
package main

func main() {}
