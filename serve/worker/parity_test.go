//go:build !js

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/limit"
	"github.com/normgym/normgym/serve/server"
	"github.com/normgym/normgym/serve/session"
	"github.com/normgym/normgym/serve/store"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/wasm/simwasm"
)

// wranglerConfig reads wrangler.jsonc (full-line comments only).
func wranglerConfig(t testing.TB) map[string]any {
	t.Helper()
	src, err := os.ReadFile("wrangler.jsonc")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(src), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "//") {
			lines = append(lines, l)
		}
	}
	var cfg map[string]any
	if err := json.Unmarshal([]byte(strings.Join(lines, "\n")), &cfg); err != nil {
		t.Fatalf("wrangler.jsonc (full-line comments only): %v", err)
	}
	return cfg
}

// bindingRates returns the rate limits of wrangler.jsonc by class, as
// limit.Rates: limit requests per period.
func bindingRates(t testing.TB) map[string]limit.Rate {
	t.Helper()
	out := map[string]limit.Rate{}
	for _, b := range wranglerConfig(t)["ratelimits"].([]any) {
		m := b.(map[string]any)
		name := m["name"].(string)
		class, ok := strings.CutPrefix(name, "LIMIT_")
		if !ok {
			t.Fatalf("rate limit binding %s: the name must be LIMIT_ and a class", name)
		}
		simple := m["simple"].(map[string]any)
		n, period := int(simple["limit"].(float64)), time.Duration(simple["period"].(float64))*time.Second
		out[strings.ToLower(class)] = limit.Rate{Every: period / time.Duration(n), Burst: n}
	}
	return out
}

// newServer returns serve/server with a throwaway store (for its route
// table).
func newServer(t testing.TB, opts server.Options) *server.Server {
	t.Helper()
	if opts.Store == nil {
		st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "db"), store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		opts.Store = st
	}
	if opts.Verifier == nil {
		opts.Verifier = server.Native(simwasm.SHA256())
	}
	srv, err := server.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// samplePath fills a route pattern's wildcards.
func samplePath(pattern string) string {
	p := strings.ReplaceAll(pattern, "{code}", "ABCD-EFGH-JKMN")
	if strings.HasSuffix(p, "/") && p != "/" {
		p += "anything"
	}
	return p
}

// TestRunWorkerFirst: every route of the server but the web app's files
// reaches the worker before the static assets (wrangler.jsonc
// run_worker_first), so that no route of `normgym serve` is answered by
// index.html on Workers.
func TestRunWorkerFirst(t *testing.T) {
	var globs []string
	for _, g := range wranglerConfig(t)["assets"].(map[string]any)["run_worker_first"].([]any) {
		globs = append(globs, g.(string))
	}
	matches := func(p string) bool {
		for _, g := range globs {
			re := "^" + strings.ReplaceAll(regexp.QuoteMeta(g), `\*`, ".*") + "$"
			if regexp.MustCompile(re).MatchString(p) {
				return true
			}
		}
		return false
	}
	for _, rt := range newServer(t, server.Options{}).Routes() {
		if rt.Pattern == "/" {
			continue
		}
		if p := samplePath(rt.Pattern); !matches(p) {
			t.Errorf("route %s (%s) does not reach the worker: add it to run_worker_first in wrangler.jsonc (%v)", rt.Pattern, p, globs)
		}
	}
}

// TestSecurityHeadersFile: the static files' headers on Workers
// (security_headers, appended to _headers) are the server's.
func TestSecurityHeadersFile(t *testing.T) {
	b, err := os.ReadFile("security_headers")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	rule := ""
	for _, l := range strings.Split(string(b), "\n") {
		switch {
		case strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#"):
		case !strings.HasPrefix(l, " "):
			rule = strings.TrimSpace(l)
		default:
			k, v, _ := strings.Cut(strings.TrimSpace(l), ":")
			if rule != "/*" {
				t.Errorf("header %s under rule %q, want /*", k, rule)
			}
			got[k] = strings.TrimSpace(v)
		}
	}
	want := server.SecurityHeaders()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("security_headers: %s = %q, want %q (serve/server)", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("security_headers has %d headers, the server sets %d", len(got), len(want))
	}
}

// TestRateLimitBindings: every limited class of the server has a binding
// in wrangler.jsonc, at the server's default rate where a window of a
// minute can hold it (rooms: 20 an hour is below it, and sealed sessions'
// 60 a day: the worker allows 2 a minute of each).
func TestRateLimitBindings(t *testing.T) {
	got := bindingRates(t)
	for class, r := range server.DefaultLimits() {
		b, ok := got[class]
		if !ok {
			t.Errorf("class %s has no binding LIMIT_%s in wrangler.jsonc", class, strings.ToUpper(class))
			continue
		}
		if r.Every <= time.Minute && b.Every != r.Every {
			t.Errorf("class %s: the binding allows one request every %s, normgym serve one every %s", class, b.Every, r.Every)
		}
	}
}

// target is one build under test: the Go server or the worker.
type target struct {
	name, base string
	room       api.RoomCreated
	// token and envToken name a session opened by POST /api/sessions and
	// by POST /reset.
	token, envToken string
}

func (tg *target) do(t testing.TB, method, path string, body any, header ...string) (int, []byte, http.Header) {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, tg.base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("%s: %s %s: %v", tg.name, method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b, resp.Header
}

// step is one request of the parity walk.
type step struct {
	pattern, method string
	path            func(*target) string
	body            func(*target) any
	header          func(*target) []string
	status          int
	// after reads the answer (to keep a created room).
	after func(*target, []byte)
	// differs explains why the two builds answer differently (the web
	// app's files come from Cloudflare's asset server on Workers); status
	// is then the Go server's, workerStatus the worker's.
	differs      string
	workerStatus int
	// contains is text both answers hold.
	contains string
}

// native returns `normgym serve`'s handler set up as the worker is (the
// same keys, admin token, web app, client header, and the worker's rate
// limits as token buckets) on loopback, with a SQLite store. It steps
// sessions natively, as the worker does, unless engine says otherwise.
func native(t testing.TB, w *worker, engine ...session.Engine) (*server.Server, *httptest.Server) {
	t.Helper()
	keys, err := server.ParseTeacherKeys(w.teacherKeyLine)
	if err != nil {
		t.Fatal(err)
	}
	subKeys, err := server.ParseTeacherKeys(w.submitterKeyLine)
	if err != nil {
		t.Fatal(err)
	}
	eng := session.Native(simwasm.SHA256())
	if len(engine) == 1 {
		eng = engine[0]
	}
	srv := newServer(t, server.Options{Web: os.DirFS(w.assets), AdminToken: w.adminToken,
		AdminTokenEnv: adminTokenVar, TeacherKeys: keys, ClientHeader: "CF-Connecting-IP", Limiter: limit.NewBuckets(bindingRates(t), nil),
		Engine: eng, SubmitterKeys: subKeys})
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	t.Cleanup(srv.Close)
	return srv, hs
}

// parity walks the server's route table against `normgym serve`'s handler
// (serve/server on loopback, SQLite, set up as the worker is) and the
// worker under wrangler dev: each step goes to both, and their answers
// must agree on the status, the media type, the security headers and the
// Allow and Retry-After headers. Every route and method of the table
// needs a step.
func parity(t *testing.T, w *worker) {
	srv, hs := native(t, w)
	targets := []*target{{name: "normgym serve", base: hs.URL}, {name: "wrangler dev", base: w.base}}

	mini, _ := sim.LookupSuite("mini")
	visit := mini.Visits[1]
	sub := submission(t, visit, "observer", "model", "")
	junk, _ := json.Marshal(sub)
	junk = bytes.Replace(junk, []byte(`"consent":true`), []byte(`"consent":false,"consent":true`), 1)
	big := submission(t, visit, "greedy", "model", "")
	big.Record.Extra = map[string]any{"pad": strings.Repeat("x", 140<<10)}
	fixed := func(p string) func(*target) string { return func(*target) string { return p } }
	roomPath := func(suffix string) func(*target) string {
		return func(tg *target) string { return "/api/rooms/" + tg.room.Code + suffix }
	}
	teacher := func(tg *target) []string { return []string{"Authorization", "Bearer " + tg.room.TeacherToken} }
	admin := func(*target) []string { return []string{"Authorization", "Bearer " + w.adminToken} }
	key := func(*target) []string { return []string{"Authorization", "Bearer " + w.teacherKey} }
	sess := func(tg *target) []string { return []string{"Authorization", "Bearer " + tg.token} }
	steps := []step{
		{pattern: "/healthz", method: "GET", status: 200},
		{pattern: "/healthz", method: "HEAD", status: 200},
		{pattern: "/healthz", method: "POST", status: 405},
		{pattern: "/api/consent", method: "GET", status: 200},
		{pattern: "/api/runs", method: "POST", body: func(*target) any { return sub }, status: 201},
		{pattern: "/api/runs", method: "POST", body: func(*target) any { return junk }, status: 400},
		{pattern: "/api/runs", method: "POST", body: func(*target) any { return big }, status: 413},
		{pattern: "/api/runs", method: "GET", header: func(*target) []string { return []string{api.ParticipantHeader, "parity-0000001"} }, status: 200},
		{pattern: "/api/runs", method: "GET", path: fixed("/api/runs?participant=parity-0000001"), status: 400},
		{pattern: "/api/runs", method: "PUT", status: 405},
		{pattern: "/api/assign", method: "POST", body: func(*target) any { return api.AssignRequest{Participant: "parity-0000002"} }, status: 200},
		{pattern: "/api/assign", method: "GET", path: fixed("/api/assign?participant=parity-0000002"), status: 400},
		{pattern: "/api/leaderboard", method: "GET", path: fixed("/api/leaderboard?suite=mini"), status: 200},
		{pattern: "/api/rooms", method: "POST", body: func(*target) any { return api.RoomRequest{Suite: "mini"} }, status: 401},
		// A refused creation draws from no room limit (2 a minute on the
		// worker): the valid key's room after it is created.
		{pattern: "/api/rooms", method: "POST", body: func(*target) any { return api.RoomRequest{Suite: "mini"} }, status: 403,
			header: func(*target) []string { return []string{"Authorization", "Bearer ngt_not-a-key"} }},
		{pattern: "/api/rooms", method: "POST", body: func(*target) any { return api.RoomRequest{Suite: "mini"} }, header: key, status: 201,
			after: func(tg *target, b []byte) { json.Unmarshal(b, &tg.room) }},
		{pattern: "/api/rooms", method: "GET", status: 405},
		{pattern: "/api/rooms/{code}", method: "GET", path: roomPath(""), status: 200},
		{pattern: "/api/rooms/{code}", method: "GET", path: fixed("/api/rooms/ABCD-EFGH-JKMN"), status: 404},
		{pattern: "/api/rooms/{code}/dashboard", method: "GET", path: roomPath("/dashboard"), status: 401},
		{pattern: "/api/rooms/{code}/dashboard", method: "GET", path: roomPath("/dashboard"), header: teacher, status: 200},
		{pattern: "/api/rooms/{code}/export.csv", method: "GET", path: roomPath("/export.csv"), header: teacher, status: 200},
		{pattern: "/api/rooms/{code}/join", method: "POST", path: roomPath("/join"), status: 200,
			body: func(*target) any { return api.JoinRequest{Participant: "parity-0000003", Nickname: "Seat 3"} }},
		{pattern: "/api/rooms/{code}/join", method: "POST", path: roomPath("/join"), status: 409,
			body: func(*target) any { return api.JoinRequest{Participant: "parity-0000004", Nickname: "seat-3"} }},
		{pattern: "/api/rooms/{code}/join", method: "POST", path: roomPath("/join"), status: 400,
			body: func(*target) any { return api.JoinRequest{Participant: "parity-0000004", Nickname: "ana@school.org"} }},
		{pattern: "/api/rooms/{code}/reveal", method: "GET", path: roomPath("/reveal"), status: 401},
		{pattern: "/api/rooms/{code}/reveal", method: "GET", path: roomPath("/reveal"), header: teacher, status: 200},
		{pattern: "/api/export", method: "GET", status: 401},
		{pattern: "/api/export", method: "GET", path: fixed("/api/export?format=csv"), header: admin, status: 200},
		{pattern: "/api/", method: "*", path: fixed("/api/nope"), status: 404},
		{pattern: "/api/", method: "DELETE", path: fixed("/api/nope"), status: 404},
		{pattern: "/leaderboard", method: "GET", path: fixed("/leaderboard?suite=mini"), status: 200, contains: "observer"},
		{pattern: "/api/sessions", method: "POST", body: func(*target) any { return api.SessionRequest{Visit: visit} }, status: 201,
			after: func(tg *target, b []byte) {
				var s api.SessionState
				json.Unmarshal(b, &s)
				tg.token = s.Session
			}},
		{pattern: "/api/sessions", method: "POST", body: func(*target) any { return api.SessionRequest{Participant: "parity-0000003"} }, status: 400},
		{pattern: "/api/sessions", method: "GET", status: 405},
		{pattern: "/api/session", method: "GET", header: sess, status: 200},
		{pattern: "/api/session", method: "GET", status: 401},
		{pattern: "/api/session/step", method: "POST", header: sess, body: func(*target) any { return api.SessionStep{Action: "north"} }, status: 200},
		{pattern: "/api/session/step", method: "POST", header: sess, body: func(*target) any { return api.SessionStep{Action: "fly"} }, status: 400},
		{pattern: "/api/session/trail", method: "GET", header: sess, status: 200, contains: "north"},
		{pattern: "/api/session/answer", method: "POST", header: sess, body: func(*target) any { return api.SessionAnswer{Answer: 0} }, status: 409},
		{pattern: "/health", method: "GET", status: 200, contains: "healthy"},
		{pattern: "/metadata", method: "GET", status: 200, contains: "NormGym"},
		{pattern: "/schema", method: "GET", status: 200, contains: "NormGymAction"},
		{pattern: "/reset", method: "POST", body: func(*target) any { return map[string]any{"visit": visit, "session": true} }, status: 200,
			after: func(tg *target, b []byte) {
				var r struct {
					Metadata map[string]any `json:"metadata"`
				}
				json.Unmarshal(b, &r)
				tg.envToken, _ = r.Metadata["session_id"].(string)
			}},
		{pattern: "/step", method: "POST", body: func(tg *target) any {
			return map[string]any{"action": map[string]any{"action": "wait"}, "session_id": tg.envToken}
		}, status: 200},
		{pattern: "/state", method: "GET", path: func(tg *target) string { return "/state?session_id=" + tg.envToken }, status: 200, contains: "step_count"},
		{pattern: "/ws", method: "GET", status: 426},
		{pattern: "/teach", method: "GET", status: 200, contains: "Create a room"},
		{pattern: "/teach", method: "POST", status: 405},
		{pattern: "/teach.js", method: "GET", status: 200, contains: "/api/rooms"},
		{pattern: "/", method: "GET", status: 200},
		{pattern: "/", method: "HEAD", status: 200},
		{pattern: "/", method: "GET", path: fixed("/play"), status: 200},
		{pattern: "/", method: "GET", path: fixed("/missing.js"), status: 404, workerStatus: 200,
			differs: "Cloudflare's single-page-application mode answers every missing file with index.html"},
		{pattern: "/", method: "POST", status: 405, workerStatus: 405,
			differs: "Cloudflare's asset server answers 405 without an Allow header or a body"},
	}
	steps = append(steps, studySteps(w)...)
	if css, _ := filepath.Glob(filepath.Join(w.assets, "assets", "style.*.css")); len(css) == 1 {
		steps = append(steps, step{pattern: "/", method: "GET", path: fixed("/assets/" + filepath.Base(css[0])), status: 200})
	}
	covered := map[string]bool{}
	for _, st := range steps {
		covered[st.pattern+" "+st.method] = true
	}
	for _, rt := range srv.Routes() {
		ms := rt.Methods
		for _, m := range ms {
			if !covered[rt.Pattern+" "+m] {
				t.Errorf("route %s %s has no parity step: add one to parity_test.go", m, rt.Pattern)
			}
		}
	}
	for i, st := range steps {
		method := st.method
		if method == "*" {
			method = "GET"
		}
		var answers []string
		for k, tg := range targets {
			path := st.pattern
			if st.path != nil {
				path = st.path(tg)
			}
			var body any
			if st.body != nil {
				body = st.body(tg)
			}
			hdr := []string{"CF-Connecting-IP", "203.0.113.10"}
			if st.header != nil {
				hdr = append(hdr, st.header(tg)...)
			}
			code, b, h := tg.do(t, method, path, body, hdr...)
			want := st.status
			if k == 1 && st.differs != "" {
				want = st.workerStatus
			}
			if code != want {
				t.Errorf("step %d, %s: %s %s = %d %.300s, want %d", i+1, tg.name, method, path, code, b, want)
			}
			for k, v := range server.SecurityHeaders() {
				if h.Get(k) != v {
					t.Errorf("step %d, %s: %s %s: %s = %q, want %q", i+1, tg.name, method, path, k, h.Get(k), v)
				}
			}
			if st.contains != "" && !bytes.Contains(b, []byte(st.contains)) {
				t.Errorf("step %d, %s: %s %s: the answer lacks %q: %.200s", i+1, tg.name, method, path, st.contains, b)
			}
			mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
			answers = append(answers, fmt.Sprintf("%d %s allow=%q retry=%v", code, mt, h.Get("Allow"), h.Get("Retry-After") != ""))
			if st.after != nil {
				st.after(tg, b)
			}
		}
		if st.differs != "" {
			t.Logf("step %d, %s %s: a known difference (%s): %s answers %s, %s answers %s", i+1, method, st.pattern, st.differs,
				targets[0].name, answers[0], targets[1].name, answers[1])
		} else if answers[0] != answers[1] {
			t.Errorf("step %d, %s %s: %s answers %s, %s answers %s", i+1, method, st.pattern, targets[0].name, answers[0], targets[1].name, answers[1])
		}
	}

	// Rate limits: room creation from one address runs out on both.
	rooms := bindingRates(t)[server.ClassRooms]
	for _, tg := range targets {
		limited := false
		for i := 0; i < 2*rooms.Burst+1 && !limited; i++ {
			code, b, h := tg.do(t, "POST", "/api/rooms", api.RoomRequest{Suite: "mini"}, "CF-Connecting-IP", "203.0.113.99",
				"Authorization", "Bearer "+w.teacherKey)
			switch code {
			case http.StatusCreated:
			case http.StatusTooManyRequests:
				limited = h.Get("Retry-After") != ""
			default:
				t.Errorf("%s: room %d: %d %s", tg.name, i+1, code, b)
			}
		}
		if !limited {
			t.Errorf("%s: %d rooms from one address at once, none refused with 429 and Retry-After (binding %s)", tg.name, 2*rooms.Burst+1, rooms)
		}
	}
}
