// Package server is NormGym's HTTP service: it verifies submitted runs by
// replaying them, stores only what it recomputed, assigns visits to human
// participants, serves the leaderboard, classrooms, the research export
// and the web app. It keeps its data behind domain.Storage (serve/store) and
// replays through a Verifier (the sim.wasm host, or the native core).
//
// The package never logs request bodies, query strings, tokens or client
// addresses, and stores no names, emails or IP addresses.
package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/domain"
	"github.com/normgym/normgym/serve/limit"
	"github.com/normgym/normgym/serve/session"
	"github.com/normgym/normgym/serve/strictjson"
	"github.com/normgym/normgym/sim"
)

// Options configure a Server. Store and Verifier are required.
type Options struct {
	Store    domain.Storage
	Verifier Verifier
	// Web is the built web app: the site embedded in the binary
	// (web/dist), or a directory during development (os.DirFS). Without
	// an index.html the server shows a page saying how to build it.
	Web fs.FS
	// AdminToken guards GET /api/export; empty disables the export.
	// AdminTokenEnv names where it comes from, for messages.
	AdminToken    string
	AdminTokenEnv string
	// Logger receives request logs and internal errors (default: discard).
	Logger *slog.Logger
	// Now is the clock (default time.Now).
	Now func() time.Time
	// ReplayTimeout bounds one replay (default 10 s).
	ReplayTimeout time.Duration
	// MaxReplays bounds the replays running or waiting; more submissions
	// are turned away with 503 "busy" (default 16 × GOMAXPROCS).
	MaxReplays int
	// AssignTTL is how long an assignment waits for its run before the
	// visit counts as free again (default 2 h).
	AssignTTL time.Duration
	// MaxBody bounds a request body where its route sets no bound of its
	// own (default DefaultMaxBody).
	MaxBody int64
	// Limiter keeps each client's rate limits by class (ClassRead,
	// ClassWrite, ClassLookup, ClassRooms, ClassStatic). Nil: in-memory
	// buckets with DefaultLimits; limit.None turns them off.
	Limiter limit.Limiter
	// ClientHeader names the header in which a trusted reverse proxy
	// passes the client's address (X-Forwarded-For: the last address in
	// it; CF-Connecting-IP). Empty: the connection's peer is the client.
	// Set it only when every request comes through that proxy: otherwise
	// clients choose their own key.
	ClientHeader string
	// OpenRooms lets anyone create a room. Otherwise POST /api/rooms needs
	// a key that TeacherKeys holds.
	OpenRooms   bool
	TeacherKeys TeacherKeys
	// RoomTTL is how long a room takes students after it is created
	// (default DefaultRoomTTL); its teacher can read it after that.
	RoomTTL time.Duration
	// BoardTTL is the most often a leaderboard is recomputed while runs
	// keep arriving (default 1 s; negative: on every change).
	BoardTTL time.Duration
	// Engine steps sessions (serve/session): sim.wasm under wazero
	// (session.Wasm) or the native core (session.Native). Nil: the
	// session routes answer 503.
	Engine session.Engine
	// Private is the operator's private suite (nil: none): its visits
	// are played through sessions only, by holders of submitter keys.
	Private *PrivateSuite
	// SessionTTL is how long a session waits for its next action
	// (default session.DefaultTTL).
	SessionTTL time.Duration
	// SessionsLive bounds the sessions whose environments stay in memory
	// (session.Options.MaxLive); keep it within what Engine can hold open
	// (host.Runtime.Capacity), beside the verifier's replays. SessionsIdle
	// closes an environment unused that long (session.Options.Idle);
	// Rebuilds bounds the sessions rebuilt into memory at once
	// (session.Options.MaxRebuilds).
	SessionsLive int
	SessionsIdle time.Duration
	Rebuilds     int
	// MaxRequestsPerClient bounds one client's requests in flight (behind
	// a proxy, where the listener cannot tell clients apart; default
	// DefaultPerClient, twice that per IPv6 /56). MaxWebSockets bounds the
	// WebSockets open at once (default DefaultMaxWebSockets),
	// MaxWebSocketsPerClient one client's (default
	// DefaultWebSocketsPerClient, twice that per /56); negative: no bound.
	MaxRequestsPerClient, MaxWebSockets, MaxWebSocketsPerClient int
	// WSIdle closes a WebSocket that sends no message for that long
	// (default DefaultWSIdle); WSPing is how often the server pings a
	// WebSocket idle that long (default DefaultWSPing): pings keep proxies
	// from closing it, and only messages count as activity.
	WSIdle, WSPing time.Duration
	// SubmitterKeys says which bearer keys may open sessions whose runs
	// are stored as the key's label's (a model's row of the leaderboard).
	SubmitterKeys TeacherKeys
	// StudyKeys says which bearer keys may create studies (besides the
	// admin token); nil: only the admin token.
	StudyKeys TeacherKeys
}

// Server is the HTTP service. Create it with New; it is an http.Handler.
type Server struct {
	opts    Options
	store   domain.Storage
	verify  Verifier
	log     *slog.Logger
	now     func() time.Time
	handler http.Handler
	replays chan struct{}
	limiter limit.Limiter
	suites  map[string]suiteRef // visit id → the suite that holds it
	static  *static

	sessions *session.Manager
	episodes episodeNames // OpenEnv's episode ids of HTTP sessions (openenv_stateless.go)
	gates    gates

	assignMu sync.Mutex
	probes   sync.Map // visit id → probeInfo
	boards   boards
	limited  limitedLog
	studies  studyState
}

// suiteRef names a suite version.
type suiteRef struct{ name, version string }

// New returns a Server.
func New(opts Options) (*Server, error) {
	if opts.Store == nil || opts.Verifier == nil {
		return nil, errors.New("server: Options.Store and Options.Verifier are required")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.ReplayTimeout <= 0 {
		opts.ReplayTimeout = 10 * time.Second
	}
	if opts.MaxReplays <= 0 {
		opts.MaxReplays = 16 * runtime.GOMAXPROCS(0)
	}
	if opts.AssignTTL <= 0 {
		opts.AssignTTL = 2 * time.Hour
	}
	if opts.MaxBody <= 0 {
		opts.MaxBody = DefaultMaxBody
	}
	if opts.RoomTTL <= 0 {
		opts.RoomTTL = DefaultRoomTTL
	}
	if opts.Limiter == nil {
		opts.Limiter = limit.NewBuckets(DefaultLimits(), opts.Now)
	}
	if opts.BoardTTL == 0 {
		opts.BoardTTL = time.Second
	}
	if opts.SessionTTL <= 0 {
		opts.SessionTTL = session.DefaultTTL
	}
	defaultInt(&opts.MaxRequestsPerClient, DefaultPerClient)
	defaultInt(&opts.MaxWebSockets, DefaultMaxWebSockets)
	defaultInt(&opts.MaxWebSocketsPerClient, DefaultWebSocketsPerClient)
	if opts.WSIdle <= 0 {
		opts.WSIdle = DefaultWSIdle
	}
	if opts.WSPing <= 0 {
		opts.WSPing = DefaultWSPing
	}
	s := &Server{opts: opts, store: opts.Store, verify: opts.Verifier, log: opts.Logger, now: opts.Now,
		replays: make(chan struct{}, opts.MaxReplays), limiter: opts.Limiter, suites: map[string]suiteRef{},
		boards: boards{entries: map[string]*board{}, busy: map[string]chan struct{}{}}, gates: newGates(opts)}
	for _, su := range sim.Suites() {
		for _, v := range su.Visits {
			s.suites[v] = suiteRef{su.Name, su.Version}
		}
	}
	if opts.Engine != nil {
		var private session.Engine
		if opts.Private != nil {
			private = session.NativeCatalog(opts.Engine.SHA256(), opts.Private.Catalog)
		}
		m, err := session.New(session.Options{Store: opts.Store, Engine: opts.Engine, Private: private, TTL: opts.SessionTTL,
			MaxLive: opts.SessionsLive, Idle: opts.SessionsIdle, MaxRebuilds: opts.Rebuilds,
			Finish: s.storeSession, Hold: s.sessionHeld, Now: opts.Now, Logger: opts.Logger})
		if err != nil {
			return nil, err
		}
		s.sessions = m
	}
	s.static = newStatic(opts.Web)
	s.handler = s.routes()
	return s, nil
}

// defaultInt sets *v to def if it is 0, and to 0 (no bound) if negative.
func defaultInt(v *int, def int) {
	switch {
	case *v == 0:
		*v = def
	case *v < 0:
		*v = 0
	}
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// Close frees what the server holds open in its engine (the sessions'
// environments in memory); stored sessions resume in a server made later.
// Call it once no request is being served.
func (s *Server) Close() {
	if s.sessions != nil {
		s.sessions.Close()
	}
}

// methods maps HTTP methods to handlers ("*": any method). GET also
// answers HEAD.
type methods map[string]func(http.ResponseWriter, *http.Request) error

// api adapts handlers that return errors: every error becomes a JSON
// error answer (see writeError).
func (s *Server) api(m methods) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, ok := m[r.Method]
		if !ok && r.Method == http.MethodHead {
			h, ok = m[http.MethodGet]
		}
		if !ok {
			h, ok = m["*"]
		}
		if !ok {
			allow := make([]string, 0, len(m))
			for k := range m {
				allow = append(allow, k)
			}
			sort.Strings(allow)
			w.Header().Set("Allow", strings.Join(allow, ", "))
			s.writeError(w, r, errf(api.CodeMethod, "%s is not allowed here (allowed: %s)", r.Method, strings.Join(allow, ", ")))
			return
		}
		if err := h(w, r); err != nil {
			s.writeError(w, r, err)
		}
	})
}

// Error is a domain error: a stable code (api.Code, whose Status is the
// HTTP status) and a message for the user. Err, if set, is the internal
// cause: logged, never shown.
type Error struct {
	Code      api.Code
	Message   string
	Diffs     []string
	SimSHA256 string
	// RetryAfter is when to try again (codes busy, timeout, rate_limited).
	RetryAfter time.Duration
	// Actions is a session's count of actions, on a conflict of a step's
	// index (api.ErrorDetail.Actions).
	Actions *int
	Err     error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("server: %s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("server: %s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

func errf(code api.Code, format string, a ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, a...)}
}

// writeError answers with err as JSON. Errors that are not *Error, and
// *Error with code internal, are logged with their detail and shown as a
// plain "internal error".
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var e *Error
	if !errors.As(err, &e) || e.Code == api.CodeInternal || !e.Code.Known() {
		s.log.Error("internal error", "method", r.Method, "path", r.URL.Path, "err", err)
		e = errf(api.CodeInternal, "internal error: the server could not finish this request (it has been logged)")
	}
	status := e.Code.Status()
	switch e.Code {
	case api.CodeBusy, api.CodeTimeout, api.CodeRateLimited:
		d := e.RetryAfter
		if d <= 0 {
			d = 2 * time.Second
		}
		w.Header().Set("Retry-After", retryAfter(d))
	case api.CodeUnauthorized:
		w.Header().Set("WWW-Authenticate", `Bearer realm="normgym"`)
	}
	writeJSON(w, status, api.ErrorDetail{Code: e.Code, Message: e.Message, Diffs: e.Diffs, SimSHA256: e.SimSHA256, Actions: e.Actions})
}

// writeJSON answers with v as JSON, never cached.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("server: encoding the response: %w", err)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
	return nil
}

// decodeJSON reads a JSON body (bounded by its route, Server.guard) into
// v strictly: the document must pass strictjson.Check (no key twice in an
// object, valid UTF-8, at most strictjson.DefaultMaxDepth levels, no array
// longer than maxArray), and unknown fields and trailing data are errors.
func decodeJSON(r *http.Request, v any, maxArray int) error {
	if ct := r.Header.Get("Content-Type"); strings.HasPrefix(ct, "application/x-www-form-urlencoded") || strings.HasPrefix(ct, "multipart/") {
		return errf(api.CodeInvalid, "the body must be JSON (Content-Type application/json), not %q", ct)
	}
	body, err := io.ReadAll(r.Body)
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return errf(api.CodeTooLarge, "the body is larger than %d bytes", tooBig.Limit)
	} else if err != nil {
		return errf(api.CodeInvalid, "reading the body: %v", err)
	}
	if len(body) == 0 {
		return errf(api.CodeInvalid, "malformed JSON: empty body")
	}
	return decodeBytes(body, v, maxArray)
}

// decodeBytes decodes a JSON document into v as strictly as decodeJSON.
func decodeBytes(body []byte, v any, maxArray int) error {
	if err := strictjson.Check(body, strictjson.Limits{Array: maxArray}); err != nil {
		return errf(api.CodeInvalid, "malformed JSON: %s", strings.TrimPrefix(err.Error(), "strictjson: "))
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return errf(api.CodeInvalid, "malformed JSON: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) error {
	return writeJSON(w, http.StatusOK, api.Health{OK: true, SimSHA256: s.verify.SHA256(), SimVersion: sim.Version,
		Catalog: norms.Default().Version(), Verify: s.verify.Kind()})
}

// statusWriter records the status and size of an answer for the log.
type statusWriter struct {
	http.ResponseWriter
	status int
	n      int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.n += int64(n)
	return n, err
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// logRequests logs one line per request (method, path, status, bytes,
// duration; no query, body, headers or address), except those refused by
// a rate limit (counted instead, see limitedLog), and turns a panic into
// a logged internal error.
func (s *Server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.log.Error("panic", "method", r.Method, "path", r.URL.Path, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				if sw.status == 0 {
					s.writeError(sw, r, errf(api.CodeInternal, "panic"))
				}
			}
			if sw.status == http.StatusTooManyRequests {
				return
			}
			s.log.LogAttrs(r.Context(), slog.LevelInfo, "request",
				slog.String("method", r.Method), slog.String("path", r.URL.Path),
				slog.Int("status", sw.status), slog.Int64("bytes", sw.n),
				slog.Float64("ms", float64(time.Since(start).Microseconds())/1000))
		}()
		next.ServeHTTP(sw, r)
	})
}

// bearer returns the token of an "Authorization: Bearer" header.
func bearer(r *http.Request) string {
	h := r.Header.Get("Authorization")
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:])
	}
	return ""
}
