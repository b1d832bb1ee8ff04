package simwasm

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"sync"
)

//go:embed sim.wasm
var wasmBytes []byte

// Bytes returns a copy of sim.wasm.
func Bytes() []byte { return append([]byte(nil), wasmBytes...) }

var sum = sync.OnceValue(func() string {
	h := sha256.Sum256(wasmBytes)
	return hex.EncodeToString(h[:])
})

// SHA256 returns the hex SHA-256 of sim.wasm, the value results carry in
// their sim_sha256 field.
func SHA256() string { return sum() }
