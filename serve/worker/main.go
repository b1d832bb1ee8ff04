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

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/server"
	"github.com/normgym/normgym/serve/session"
	"github.com/normgym/normgym/serve/store/d1"
)

// simSHA256 is the hash of the sim.wasm built from this source, set at
// link time (-ldflags "-X main.simSHA256=…", see worker.mk): the worker
// verifies with the native core and does not carry sim.wasm.
var simSHA256 string

func main() {
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
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if len(simSHA256) != 64 {
		return unavailable("the worker was built without its sim.wasm hash: build it with make worker")
	}
	st, err := d1.Open(context.Background(), "DB")
	if err != nil {
		log.Error("opening D1", "err", err)
		return unavailable("the database is unavailable")
	}
	// Sessions are stepped by the native core, rebuilt for every request
	// from their stored actions (RATIONALE.md: Sessions).
	opts := server.Options{Store: st, Verifier: server.Native(simSHA256), Engine: session.Native(simSHA256), Logger: log,
		AdminToken: secret(adminTokenVar), AdminTokenEnv: adminTokenVar,
		Limiter: newBindingLimiter(log), ClientHeader: clientHeader, OpenRooms: secret(openRoomsVar) == "true"}
	if keys := secret(teacherKeysVar); keys != "" {
		ks, err := server.ParseTeacherKeys(strings.ReplaceAll(keys, ",", "\n"))
		if err != nil {
			log.Error("teacher keys", "err", err)
			return unavailable("the teacher keys (" + teacherKeysVar + ") are malformed")
		}
		opts.TeacherKeys = ks
	}
	if keys := secret(submitterKeysVar); keys != "" {
		ks, err := server.ParseTeacherKeys(strings.ReplaceAll(keys, ",", "\n"))
		if err != nil {
			log.Error("submitter keys", "err", err)
			return unavailable("the submitter keys (" + submitterKeysVar + ") are malformed")
		}
		opts.SubmitterKeys = ks
	}
	if keys := secret(studyKeysVar); keys != "" {
		ks, err := server.ParseTeacherKeys(strings.ReplaceAll(keys, ",", "\n"))
		if err != nil {
			log.Error("study keys", "err", err)
			return unavailable("the study keys (" + studyKeysVar + ") are malformed")
		}
		opts.StudyKeys = ks
	}
	if v := secret(sessionTTLVar); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return unavailable(sessionTTLVar + " must be a positive duration such as 2h")
		}
		opts.SessionTTL = d
	}
	if v := secret(roomTTLVar); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return unavailable(roomTTLVar + " must be a positive duration such as 720h")
		}
		opts.RoomTTL = d
	}
	srv, err := server.New(opts)
	if err != nil {
		log.Error("starting the server", "err", err)
		return unavailable("the server could not start")
	}
	return srv
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
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		server.SetSecurityHeaders(w.Header())
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(api.CodeUnavailable.Status())
		b, _ := json.Marshal(api.ErrorDetail{Code: api.CodeUnavailable, Message: "worker: " + msg})
		w.Write(append(b, '\n'))
	})
}
