// Command module is the floor kernels (package floor) as a WASI reactor,
// for BenchmarkRatio in wasm/host. Build it with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o floor.wasm ./wasm/internal/floor/module
//
// It exports search(n) and mix(n), each running its kernel n times.
package main

func main() {}
