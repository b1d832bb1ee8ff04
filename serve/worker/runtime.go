//go:build js && wasm

package main

import (
	"context"
	"syscall/js"

	"github.com/normgym/normgym/serve/store"
	"github.com/normgym/normgym/serve/store/d1"
)

// entry.mjs starts this program with a runtime context (the global
// "context" of its Go instance): env, ctx and binding, as syumai/workers'
// own shim passes them, and two more fields:
//
//   - isolate: one object shared by every Go runtime of the isolate (the
//     Worker's per-request runtimes and the Durable Objects' runtimes):
//     "schema" is set once the D1 schema is up to date;
//   - durable: true in a Session Durable Object (durable.go), whose Go
//     runtime serves many requests; absent in a Worker request's runtime,
//     which serves one (workers.Serve).
func runtimeContext() js.Value { return js.Global().Get("context") }

// durableRuntime reports whether this runtime is a Durable Object's.
func durableRuntime() bool { return runtimeContext().Get("durable").Truthy() }

// openStore opens the store on the D1 binding "DB": the first runtime of
// an isolate brings the schema up to date (d1.Open: a few queries), the
// next ones attach to it without a query.
func openStore(ctx context.Context) (*store.Store, error) {
	iso := runtimeContext().Get("isolate")
	if iso.Type() == js.TypeObject && iso.Get("schema").Truthy() {
		return d1.Attach("DB")
	}
	st, err := d1.Open(ctx, "DB")
	if err != nil {
		return nil, err
	}
	if iso.Type() == js.TypeObject {
		iso.Set("schema", true)
	}
	return st, nil
}
