package server

import (
	"log/slog"
	"math"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/limit"
	"github.com/normgym/normgym/serve/session"
)

// The classes of request a client's rate limits are kept by. A request
// draws a token from its client's bucket of its route's class; every
// resolution of a room code also draws from ClassLookup, whatever the
// route (Server.findRoom), so that guessing codes is slow everywhere.
const (
	// ClassRead is GET and HEAD of the API and the server's pages.
	ClassRead = "read"
	// ClassWrite is every request that may write: any method but GET and
	// HEAD, and GET /api/assign (refused: the pseudonym would be in the URL).
	ClassWrite = "write"
	// ClassLookup is every look-up of a room by its code.
	ClassLookup = "lookup"
	// ClassRooms is room creation: only the requests that create a room
	// draw from it (Server.createRoom), after the teacher key and the body
	// are checked; the route itself is ClassWrite.
	ClassRooms = "rooms"
	// ClassStatic is the web app's files.
	ClassStatic = "static"
	// ClassStep is every action sent to a session (HTTP or WebSocket).
	ClassStep = "step"
	// ClassSealed is every new sealed session of a person outside a
	// classroom: each counts in the human baseline's figures, so a client
	// may open only so many a day.
	ClassSealed = "sealed"
)

// DefaultLimits are the rates per client (address) that Options.Limiter
// defaults to, sized for a class of 30 behind one school address:
//
//   - read 20/s, burst 300: a class loading its pages at once;
//   - write 5/s, burst 60: a class submitting at once; a bulk upload
//     (normgym run --submit retries on 429) goes at 5 runs a second;
//   - lookup 2/s, burst 60: a class joining a room at once, and a
//     teacher's dashboard polling every 5 s;
//   - rooms 20/h, burst 10: a teacher creating a room per lesson (only
//     rooms created count: a refused request is a write);
//   - step 50/s, burst 500: a class playing sessions at once (a person
//     takes about an action a second), or a program stepping a few dozen
//     sessions in parallel;
//   - sealed 60/day, burst 60: new sealed visits of people outside
//     classrooms (the human baseline), about two a day for each of 30
//     people behind one address;
//   - static: unlimited (files from memory; a CDN or proxy caches them).
func DefaultLimits() map[string]limit.Rate {
	return map[string]limit.Rate{
		ClassRead:   {Every: time.Second / 20, Burst: 300},
		ClassWrite:  {Every: time.Second / 5, Burst: 60},
		ClassLookup: {Every: time.Second / 2, Burst: 60},
		ClassRooms:  {Every: time.Hour / 20, Burst: 10},
		ClassStep:   {Every: time.Second / 50, Burst: 500},
		ClassSealed: {Every: 24 * time.Hour / 60, Burst: 60},
	}
}

// Classes lists the rate-limit classes.
func Classes() []string {
	return []string{ClassRead, ClassWrite, ClassLookup, ClassRooms, ClassStatic, ClassStep, ClassSealed}
}

// Body limits. DefaultMaxBody is sized to the largest honest submission,
// measured: a baseline record that takes every step was at most 13.7 KB
// with sim 3 (7,120 records of the standard, hard, transfer, train and
// heldout suites) and 41.4 KB with the sim 4 in progress (160 steps, up
// to 251 events, every suite); plus at most 16 KiB of extra (maxExtra) and
// the wrapper, about 58 KB: 128 KiB leaves a margin of two.
// TestBodyBoundFitsHonestRecords keeps it so as the sim changes.
const (
	DefaultMaxBody = 128 << 10
	// roomBody bounds POST /api/rooms: 1,000 visit ids of up to ~60
	// bytes each.
	roomBody = 128 << 10
	// sessionBody bounds a session's action or answer: a few dozen bytes.
	sessionBody = 1 << 10
	// envStepBody bounds POST /step: a stateless step carries the visit's
	// earlier actions (at most 160, each a few bytes).
	envStepBody = 8 << 10
)

// route is one entry of the route table: a pattern as http.ServeMux
// reads it, its handlers by method (or one handler for every method), the
// rate-limit class of each method if not the default (ClassRead for GET
// and HEAD, ClassWrite otherwise) and its body limit (0: Options.MaxBody).
// Every route gets the security headers, its limits and the body bound
// from Server.guard: a new route has them by default.
type route struct {
	pattern string
	methods methods
	handler http.Handler
	classes map[string]string
	body    int64
}

// routeTable lists every route.
func (s *Server) routeTable() []route {
	notFound := func(w http.ResponseWriter, r *http.Request) error {
		return errf(api.CodeNotFound, "no such endpoint: %s (see GET / for the list)", r.URL.Path)
	}
	return []route{
		{pattern: "/healthz", methods: methods{"GET": s.health}},
		{pattern: "/api/consent", methods: methods{"GET": s.consent}},
		{pattern: "/api/runs", methods: methods{"GET": s.listRuns, "POST": s.submit}},
		{pattern: "/api/assign", methods: methods{"GET": s.assign, "POST": s.assign}, classes: map[string]string{"GET": ClassWrite}},
		{pattern: "/api/leaderboard", methods: methods{"GET": s.leaderboard}},
		// createRoom draws from ClassRooms itself, once the room is valid.
		{pattern: "/api/rooms", methods: methods{"POST": s.createRoom}, body: roomBody},
		{pattern: "/api/rooms/{code}", methods: methods{"GET": s.room}},
		{pattern: "/api/rooms/{code}/dashboard", methods: methods{"GET": s.dashboard}},
		{pattern: "/api/rooms/{code}/export.csv", methods: methods{"GET": s.roomExport}},
		{pattern: "/api/rooms/{code}/join", methods: methods{"POST": s.join}, body: joinBody},
		{pattern: "/api/rooms/{code}/reveal", methods: methods{"GET": s.reveal}},
		{pattern: "/api/export", methods: methods{"GET": s.export}},
		{pattern: "/api/sessions", methods: methods{"POST": s.openSession}},
		{pattern: "/api/session", methods: methods{"GET": s.getSession}},
		{pattern: "/api/session/step", methods: methods{"POST": s.stepSession}, classes: map[string]string{"POST": ClassStep}, body: sessionBody},
		{pattern: "/api/session/answer", methods: methods{"POST": s.answerSession}, body: sessionBody},
		{pattern: "/api/session/trail", methods: methods{"GET": s.sessionTrail}},
		{pattern: "/api/studies", methods: methods{"POST": s.createStudy}, body: studyBody},
		{pattern: "/api/study/{code}", methods: methods{"GET": s.studyPublic}},
		{pattern: "/api/study/{code}/enter", methods: methods{"POST": s.studyEnter}},
		{pattern: "/api/study/{code}/me", methods: methods{"GET": s.studyMe}},
		{pattern: "/api/study/{code}/consent", methods: methods{"POST": s.studyConsent}},
		{pattern: "/api/study/{code}/check", methods: methods{"POST": s.studyCheck}},
		{pattern: "/api/study/{code}/session", methods: methods{"POST": s.studySession}},
		{pattern: "/api/study/{code}/finish", methods: methods{"POST": s.studyFinish}},
		{pattern: "/api/study/{code}/dashboard", methods: methods{"GET": s.studyDashboard}},
		{pattern: "/api/study/{code}/export", methods: methods{"GET": s.studyExport}},
		{pattern: "/api/study/{code}/rules", methods: methods{"PUT": s.studyRules}, body: studyBody},
		{pattern: "/api/", methods: methods{"*": notFound}},
		// OpenEnv's environment API (openenv.go, ws.go) on the same sessions.
		{pattern: "/health", methods: methods{"GET": s.envHealth}},
		{pattern: "/metadata", methods: methods{"GET": s.envMetadata}},
		{pattern: "/schema", methods: methods{"GET": s.envSchema}},
		{pattern: "/state", methods: methods{"GET": s.envStateHTTP}},
		{pattern: "/reset", methods: methods{"POST": s.envResetHTTP}, body: sessionBody},
		{pattern: "/step", methods: methods{"POST": s.envStepHTTP}, classes: map[string]string{"POST": ClassStep}, body: envStepBody},
		{pattern: "/ws", methods: methods{"GET": s.envWS}, classes: map[string]string{"GET": ClassWrite}},
		{pattern: "/leaderboard", methods: methods{"GET": s.leaderboardPage}},
		{pattern: "/teach", methods: methods{"GET": s.teachPage}},
		{pattern: "/teach.js", methods: methods{"GET": s.teachScript}},
		{pattern: "/study", methods: methods{"GET": s.studyPage}},
		{pattern: "/study.js", methods: methods{"GET": s.studyScript}},
		{pattern: "/s/{code}", methods: methods{"GET": s.studyLinkRedirect}},
		{pattern: "/", handler: s.static, classes: map[string]string{"GET": ClassStatic, "HEAD": ClassStatic}},
	}
}

// Route describes one route of the server, for tests and documentation.
type Route struct {
	// Pattern is the http.ServeMux pattern ("/api/rooms/{code}").
	Pattern string
	// Methods are the methods it answers, sorted ("*": any; GET answers
	// HEAD too); empty for the web app's files (GET and HEAD).
	Methods []string
	// Class names the rate-limit class of each method.
	Class map[string]string
	// MaxBody bounds a request body.
	MaxBody int64
}

// Routes returns the route table.
func (s *Server) Routes() []Route {
	var out []Route
	for _, rt := range s.routeTable() {
		r := Route{Pattern: rt.pattern, Class: map[string]string{}, MaxBody: rt.body}
		if r.MaxBody == 0 {
			r.MaxBody = s.opts.MaxBody
		}
		ms := []string{"GET", "HEAD"}
		if rt.methods != nil {
			ms = ms[:0]
			for m := range rt.methods {
				ms = append(ms, m)
			}
			slices.Sort(ms)
			r.Methods = ms
		}
		for _, m := range ms {
			r.Class[m] = rt.class(m)
		}
		out = append(out, r)
	}
	return out
}

// class returns the rate-limit class of a method on the route.
func (rt route) class(method string) string {
	if c, ok := rt.classes[method]; ok {
		return c
	}
	if method == http.MethodHead {
		if c, ok := rt.classes[http.MethodGet]; ok {
			return c
		}
	}
	if method == http.MethodGet || method == http.MethodHead {
		return ClassRead
	}
	return ClassWrite
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	for _, rt := range s.routeTable() {
		h := rt.handler
		if h == nil {
			h = s.api(rt.methods)
		}
		mux.Handle(rt.pattern, s.guard(rt, h))
	}
	return s.logRequests(securityHeaders(mux))
}

// guard applies a route's limits before its handler: the client's rate
// limit for the method's class, its bound of requests in flight, then the
// body bound (a declared length over it is refused unread; a body that
// runs over it fails to read). The handler's context names the client
// (session.WithClient), by which sessions share memory and rebuilds.
func (s *Server) guard(rt route, next http.Handler) http.Handler {
	max := rt.body
	if max <= 0 {
		max = s.opts.MaxBody
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		refuse := func(err error) {
			if r.ContentLength != 0 {
				// Close rather than read and discard a body we refuse.
				w.Header().Set("Connection", "close")
			}
			s.writeError(w, r, err)
		}
		if err := s.allow(r, rt.class(r.Method)); err != nil {
			refuse(err)
			return
		}
		client := s.client(r)
		leave, err := s.gates.requests.Enter(client)
		if err != nil {
			refuse(gateError(err, "requests", s.opts.MaxRequestsPerClient))
			return
		}
		defer leave()
		r = r.WithContext(session.WithClient(r.Context(), client))
		if r.ContentLength > max {
			refuse(errf(api.CodeTooLarge, "the body is larger than %d bytes", max))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, max)
		next.ServeHTTP(w, r)
	})
}

// client returns the key that names the request's client for its rate
// limits: its address, or the one Options.ClientHeader names.
func (s *Server) client(r *http.Request) string {
	h := ""
	if s.opts.ClientHeader != "" {
		h = r.Header.Get(s.opts.ClientHeader)
	}
	return limit.ClientKey(r.RemoteAddr, h)
}

// allow takes a token of class from the request's client, or returns a
// rate_limited error saying when to try again.
func (s *Server) allow(r *http.Request, class string) error {
	ok, retry := s.limiter.Allow(r.Context(), class, s.client(r))
	if ok {
		return nil
	}
	s.limited.note(s.log, s.now(), class)
	e := errf(api.CodeRateLimited, "too many requests of this kind (%s) from your address: try again in %s", class, roundUp(retry))
	e.RetryAfter = retry
	return e
}

// roundUp rounds d up to a whole second (at least one).
func roundUp(d time.Duration) time.Duration {
	return time.Duration(max(1, math.Ceil(d.Seconds()))) * time.Second
}

// retryAfter is the Retry-After header value for d.
func retryAfter(d time.Duration) string { return strconv.Itoa(int(roundUp(d) / time.Second)) }

// ContentSecurityPolicy is the policy on every answer of both builds (the
// Go server here; the Workers build's static files through its _headers
// file, which a test keeps equal). It allows exactly what the app needs:
//
//   - scripts from this origin only, and 'wasm-unsafe-eval' to compile
//     sim.wasm and the app (no inline script, no eval);
//   - styles from this origin, and inline style attributes: the app's
//     grid places every tile with style="grid-area:…" (and the server's
//     pages carry a <style> block); styles cannot run script;
//   - images from this origin and data: URLs (the favicon);
//   - fetch to this origin, and to any http: or https: URL, because the
//     browser's Model mode sends the conversation to the chat endpoint the
//     user types (a local server or a provider), which no list can name;
//   - no frames, objects, plugins, <base> or form posts elsewhere, and no
//     framing by any other page (clickjacking /teach, which shows the
//     teacher token).
const ContentSecurityPolicy = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; connect-src 'self' http: https:; manifest-src 'self'; base-uri 'none'; form-action 'self'; " +
	"frame-ancestors 'none'"

// securityHeaderList is SecurityHeaders in a fixed order.
var securityHeaderList = [...][2]string{
	{"Content-Security-Policy", ContentSecurityPolicy},
	{"X-Frame-Options", "DENY"},
	{"X-Content-Type-Options", "nosniff"},
	{"Referrer-Policy", "no-referrer"},
}

// SecurityHeaders returns the headers every answer carries: the
// ContentSecurityPolicy, no framing (X-Frame-Options for browsers without
// frame-ancestors), no MIME sniffing and no Referer sent from the site.
func SecurityHeaders() map[string]string {
	out := make(map[string]string, len(securityHeaderList))
	for _, kv := range securityHeaderList {
		out[kv[0]] = kv[1]
	}
	return out
}

// SetSecurityHeaders sets SecurityHeaders on h.
func SetSecurityHeaders(h http.Header) {
	for _, kv := range securityHeaderList {
		h.Set(kv[0], kv[1])
	}
}

// securityHeaders sets the security headers on every answer.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		SetSecurityHeaders(w.Header())
		next.ServeHTTP(w, r)
	})
}

// limitedLog counts the requests refused by a rate limit. They are not
// logged one by one (logRequests skips them), so that a flood cannot fill
// the log: a line "rate limited" with the counts by class is written at
// most once a minute, with the first refusal after the minute is over.
type limitedLog struct {
	mu     sync.Mutex
	counts map[string]int
	since  time.Time
}

func (l *limitedLog) note(log *slog.Logger, now time.Time, class string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.counts == nil {
		l.counts = map[string]int{}
		l.since = now
	}
	l.counts[class]++
	if now.Sub(l.since) < time.Minute {
		return
	}
	attrs := []any{"seconds", int(now.Sub(l.since).Seconds())}
	for _, c := range Classes() {
		if n := l.counts[c]; n > 0 {
			attrs = append(attrs, c, n)
		}
	}
	log.Warn("rate limited", attrs...)
	l.counts, l.since = map[string]int{}, now
}
