package simwasm

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"sync"
)

//go:embed all:module
var files embed.FS

// wasmBytes is module/sim.wasm, or nil in a build made before it existed.
var wasmBytes, _ = files.ReadFile("module/sim.wasm")

// ErrNotBuilt is Err's answer for a binary built without sim.wasm.
var ErrNotBuilt = errors.New("simwasm: this program was built without sim.wasm: run `make build` (or `make wasm`, then go build again)")

// Built reports whether sim.wasm is embedded.
func Built() bool { return len(wasmBytes) > 0 }

// Err returns ErrNotBuilt when sim.wasm is not embedded, else nil.
func Err() error {
	if !Built() {
		return ErrNotBuilt
	}
	return nil
}

// Bytes returns a copy of sim.wasm, or nil when it is not embedded (Err).
func Bytes() []byte {
	if !Built() {
		return nil
	}
	return append([]byte(nil), wasmBytes...)
}

var sum = sync.OnceValue(func() string {
	if !Built() {
		return ""
	}
	h := sha256.Sum256(wasmBytes)
	return hex.EncodeToString(h[:])
})

// SHA256 returns the hex SHA-256 of sim.wasm, the value results carry in
// their sim_sha256 field ("" when it is not embedded).
func SHA256() string { return sum() }
