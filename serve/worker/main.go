//go:build js && wasm

// Command worker is NormGym's server (serve/server) as a Cloudflare
// Worker: the same handler, with Cloudflare D1 as the store, the native
// simulation core as the verifier and the Workers rate limiting binding as
// the per-client limiter. See worker.mk and RATIONALE.md.
package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"syscall/js"
	"time"

	"github.com/syumai/workers"
	"github.com/syumai/workers/cloudflare"
	"github.com/syumai/workers/cloudflare/cron"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/server"
	"github.com/normgym/normgym/serve/session"
	"github.com/normgym/normgym/serve/store"
)

// simSHA256 is the hash of the sim.wasm built from this source, set at
// link time (-ldflags "-X main.simSHA256=…", see worker.mk): the worker
// verifies with the native core and does not carry sim.wasm.
var simSHA256 string

func main() {
	if durableRuntime() {
		serveDurable()
		return
	}
	cron.ScheduleTaskNonBlock(computeBaselines)
	workers.Serve(handler())
}

// The Worker's variables and secrets (wrangler.jsonc "vars", `wrangler
// secret put NAME`, or --var for wrangler dev). Unset is the default.
const (
	// adminTokenVar holds the admin token of GET /api/export (unset:
	// export disabled).
	adminTokenVar = "NORMGYM_ADMIN_TOKEN"
	// teacherKeysVar holds the teacher keys that may create rooms: lines
	// (or comma-separated entries) "LABEL SHA256" as normgym teacher-key
	// prints them.
	teacherKeysVar = "NORMGYM_TEACHER_KEYS"
	// openRoomsVar "true" lets anyone create a room.
	openRoomsVar = "NORMGYM_OPEN_ROOMS"
	// roomTTLVar is how long a room takes students (a Go duration such as
	// "720h"; default server.DefaultRoomTTL).
	roomTTLVar = "NORMGYM_ROOM_TTL"
	// submitterKeysVar holds the submitter keys (as teacherKeysVar, from
	// normgym submitter-key): their sessions are stored under the label.
	submitterKeysVar = "NORMGYM_SUBMITTER_KEYS"
	// studyKeysVar holds the study keys (as teacherKeysVar, from normgym
	// study-key) that may create studies besides the admin token.
	studyKeysVar = "NORMGYM_STUDY_KEYS"
	// sessionTTLVar is how long a session waits for its next action (a Go
	// duration; default session.DefaultTTL).
	sessionTTLVar = "NORMGYM_SESSION_TTL"
)

// clientHeader is where Cloudflare passes the client's address; a client
// cannot set it.
const clientHeader = "CF-Connecting-IP"

// handler returns the server, or a handler that answers every request
// with the reason it could not be made.
func handler() http.Handler {
	srv, _, msg := newServer()
	if srv == nil {
		return unavailable(msg)
	}
	return noSocket(srv)
}

// noSocket answers a WebSocket upgrade of /ws that reaches a request's
// runtime with 501: entry.mjs sends every upgrade to a Session object,
// whose runtime holds the socket; a request's runtime ends with its
// request. (The server's js build would answer 101 with no socket.)
func noSocket(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/ws" && strings.Contains(strings.ToLower(r.Header.Get("Upgrade")), "websocket") {
			answer(w, api.CodeNotImplemented, "a WebSocket is held by a Session object: this request reached a runtime that cannot hold one")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// newServer makes the server on the D1 database (its schema brought up
// to date once per isolate: openStore) and returns it with its store, or
// says why it could not.
func newServer() (*server.Server, *store.Store, string) {
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if len(simSHA256) != 64 {
		return nil, nil, "the worker was built without its sim.wasm hash: build it with make worker"
	}
	st, err := openStore(context.Background())
	if err != nil {
		log.Error("opening D1", "err", err)
		return nil, nil, "the database is unavailable or its schema could not be brought up to date: " + firstLine(err.Error())
	}
	// Sessions are stepped by the native core: in a Session Durable Object
	// their visits stay live between steps (RATIONALE.md: Sessions).
	opts := server.Options{Store: st, Verifier: server.Native(simSHA256), Engine: session.Native(simSHA256), Logger: log,
		AdminToken: secret(adminTokenVar), AdminTokenEnv: adminTokenVar,
		Limiter: newBindingLimiter(log), ClientHeader: clientHeader, OpenRooms: secret(openRoomsVar) == "true"}
	var msg string
	if opts.TeacherKeys, msg = keys(log, teacherKeysVar); msg != "" {
		return nil, nil, msg
	}
	if opts.SubmitterKeys, msg = keys(log, submitterKeysVar); msg != "" {
		return nil, nil, msg
	}
	if opts.StudyKeys, msg = keys(log, studyKeysVar); msg != "" {
		return nil, nil, msg
	}
	if opts.SessionTTL, msg = duration(sessionTTLVar, "2h"); msg != "" {
		return nil, nil, msg
	}
	if opts.RoomTTL, msg = duration(roomTTLVar, "720h"); msg != "" {
		return nil, nil, msg
	}
	srv, err := server.New(opts)
	if err != nil {
		log.Error("starting the server", "err", err)
		return nil, nil, "the server could not start"
	}
	return srv, st, ""
}

// keys reads a variable of key lines ("LABEL SHA256", or comma-separated
// entries); nil when it is unset, a message when it is malformed.
func keys(log *slog.Logger, name string) (server.TeacherKeys, string) {
	v := secret(name)
	if v == "" {
		return nil, ""
	}
	ks, err := server.ParseTeacherKeys(strings.ReplaceAll(v, ",", "\n"))
	if err != nil {
		log.Error("keys", "var", name, "err", err)
		return nil, "the keys of " + name + " are malformed"
	}
	return ks, ""
}

// duration reads a variable holding a positive Go duration (0 when it is
// unset, a message when it is malformed).
func duration(name, example string) (time.Duration, string) {
	v := secret(name)
	if v == "" {
		return 0, ""
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, name + " must be a positive duration such as " + example
	}
	return d, ""
}

// firstLine is s up to its first line break.
func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

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
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { answer(w, api.CodeUnavailable, msg) })
}

// answer writes the server's JSON error for code with the security
// headers.
func answer(w http.ResponseWriter, code api.Code, msg string) {
	server.SetSecurityHeaders(w.Header())
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code.Status())
	b, _ := json.Marshal(api.ErrorDetail{Code: code, Message: "worker: " + msg})
	w.Write(append(b, '\n'))
}
