//go:build wasip1

package main

import "github.com/normgym/normgym/wasm/internal/floor"

var searcher floor.Searcher

// search runs floor's Search n times and returns its checksum.
//
//go:wasmexport search
func search(n int32) int64 { return int64(searcher.Search(int(n))) }

// mix runs floor.Mix for n rounds and returns its result.
//
//go:wasmexport mix
func mix(n int32) int64 { return int64(floor.Mix(int(n))) }
