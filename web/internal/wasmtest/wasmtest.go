//go:build !js

// Package wasmtest gives native tests of the browser app a ui.Client over
// the same sim.wasm, run by the wazero host (wasm/host) with one
// instance, so that handles stay valid across raw calls.
package wasmtest

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/normgym/normgym/wasm/host"
	"github.com/normgym/normgym/wasm/simwasm"
	"github.com/normgym/normgym/web/internal/ui"
)

var (
	once sync.Once
	rt   *host.Runtime
	err  error
)

// Runtime returns a shared wazero runtime of sim.wasm with one instance.
func Runtime(tb testing.TB) *host.Runtime {
	tb.Helper()
	once.Do(func() {
		if err = simwasm.Err(); err != nil {
			return
		}
		// A compilation cache on disk saves ~1.5 s per test binary.
		cache := filepath.Join(os.TempDir(), "normgym-web-wazero-cache")
		rt, err = host.New(context.Background(), simwasm.Bytes(), host.Options{MaxInstances: 1, CacheDir: cache})
	})
	if err != nil {
		tb.Fatalf("wasmtest: starting the wazero host: %v", err)
	}
	return rt
}

// Sim is ui.Sim over Runtime's raw calls.
func Sim(tb testing.TB) ui.Sim {
	r := Runtime(tb)
	return ui.SimFunc(func(export string, req []byte) []byte {
		out, err := r.Call(context.Background(), export, req)
		if err != nil {
			if e, ok := err.(*host.Error); ok {
				b, _ := jsonError(e.Message)
				return b
			}
			b, _ := jsonError(err.Error())
			return b
		}
		return out
	})
}

// Client returns a ui.Client of Sim.
func Client(tb testing.TB) *ui.Client {
	return ui.NewClient(Sim(tb), simwasm.SHA256())
}
