//go:build js && wasm

// Command worker is NormGym's server (serve/server) as a Cloudflare
// Worker: the same handler, with Cloudflare D1 as the store and the
// native simulation core as the verifier. See worker.mk and RATIONALE.md.
package main

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"syscall/js"

	"github.com/syumai/workers"
	"github.com/syumai/workers/cloudflare"

	"github.com/normgym/normgym/serve/server"
	"github.com/normgym/normgym/serve/store/d1"
)

// simSHA256 is the hash of the sim.wasm built from this source, set at
// link time (-ldflags "-X main.simSHA256=…", see worker.mk): the worker
// verifies with the native core and does not carry sim.wasm.
var simSHA256 string

func main() {
	workers.Serve(handler())
}

// handler returns the server, or a handler that answers every request
// with the reason it could not be made.
func handler() http.Handler {
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if len(simSHA256) != 64 {
		return unavailable("the worker was built without its sim.wasm hash: build it with make worker")
	}
	st, err := d1.Open(context.Background(), "DB")
	if err != nil {
		log.Error("opening D1", "err", err)
		return unavailable("the database is unavailable")
	}
	srv, err := server.New(server.Options{Store: st, Verifier: server.Native(simSHA256), Logger: log,
		AdminToken: secret(adminTokenVar), AdminTokenEnv: adminTokenVar})
	if err != nil {
		log.Error("starting the server", "err", err)
		return unavailable("the server could not start")
	}
	return srv
}

// adminTokenVar names the Worker secret (or variable) holding the admin
// token of GET /api/export: `wrangler secret put NORMGYM_ADMIN_TOKEN`.
// Unset, the export is disabled.
const adminTokenVar = "NORMGYM_ADMIN_TOKEN"

// secret returns a string binding of the Worker's environment ("" if
// there is none).
func secret(name string) string {
	if v := cloudflare.GetBinding(name); v.Type() == js.TypeString {
		return v.String()
	}
	return ""
}

// unavailable answers every request with 503 and msg.
func unavailable(msg string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(`{"code":"unavailable","error":"worker: ` + msg + `"}` + "\n"))
	})
}
