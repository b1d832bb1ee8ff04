package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/limit"
	"github.com/normgym/normgym/serve/server"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
)

// countingVerifier counts replays.
type countingVerifier struct {
	server.Verifier
	n *atomic.Int64
}

func (c countingVerifier) Replay(ctx context.Context, rec sim.Record) (server.Replayed, error) {
	c.n.Add(1)
	return c.Verifier.Replay(ctx, rec)
}

// TestJunkNeverReplayed: bodies no honest client sends are refused before
// anything is replayed or stored.
func TestJunkNeverReplayed(t *testing.T) {
	var replays atomic.Int64
	e := newEnv(t, func(o *server.Options) { o.Verifier = countingVerifier{server.Wasm(rt), &replays} })
	base := submission(record(t, normVisit, "greedy", "model"), "")
	good, _ := json.Marshal(base)
	withRecord := func(edit func(*sim.Record)) []byte {
		s := base
		s.Record = clone(base.Record)
		edit(&s.Record)
		b, _ := json.Marshal(s)
		return b
	}
	replace := func(old, new string) []byte {
		if !bytes.Contains(good, []byte(old)) {
			t.Fatalf("the submission has no %q", old)
		}
		return bytes.Replace(good, []byte(old), []byte(new), 1)
	}
	deep := strings.Repeat(`{"a":`, 5000) + "1" + strings.Repeat("}", 5000)
	tests := []struct {
		name   string
		body   []byte
		status int
		msg    string
	}{
		{"duplicate consent", replace(`"consent":true`, `"consent":false,"consent":true`), 400, "appears twice"},
		{"duplicate by case", replace(`"consent":true`, `"Consent":false,"consent":true`), 400, "appears twice"},
		{"duplicate record field", replace(`"record":{`, `"record":{"visit":"x",`), 400, "appears twice"},
		{"deep extra", replace(`"record":{`, `"record":{"extra":{"x":`+deep+`},`), 400, "levels deep"},
		{"invalid UTF-8 name", replace(`"agent":"model-greedy"`, "\"agent\":\"gre\xffedy\""), 400, "UTF-8"},
		{"raw invalid UTF-8", replace(`"consent":true`, "\"consent\":true,\"participant\":\"ab\xc3(cdefgh\""), 400, "UTF-8"},
		{"lone surrogate", replace(`"consent":true`, `"consent":true,"participant":"\ud800abcdefgh"`), 400, "surrogate"},
		{"too many actions", withRecord(func(r *sim.Record) {
			r.Actions = make([]string, 12000)
			for i := range r.Actions {
				r.Actions[i] = "n"
			}
		}), 400, fmt.Sprintf("an array holds more than %d elements", server.MaxEvents)},
		{"actions past the bound", withRecord(func(r *sim.Record) {
			for len(r.Actions) <= server.MaxActions {
				r.Actions = append(r.Actions, "wait")
			}
		}), 400, "actions"},
		{"too many events", withRecord(func(r *sim.Record) {
			r.Events = make([]sim.Event, server.MaxEvents+1)
		}), 400, fmt.Sprintf("more than %d elements", server.MaxEvents)},
		{"events past the bound", withRecord(func(r *sim.Record) {
			r.Events = make([]sim.Event, server.MaxEvents)
			r.Actions = append(r.Actions, make([]string, server.MaxActions)...)
		}), 400, fmt.Sprintf("a visit takes at most %d steps", sim.PracticeSteps+sim.TestSteps)},
		{"over the body limit", withRecord(func(r *sim.Record) { r.Extra = map[string]any{"pad": strings.Repeat("x", 140<<10)} }), 413, "larger than"},
	}
	before := e.counts()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, b, _ := e.do("POST", "/api/runs", tc.body)
			got := errorOf(t, b)
			if st != tc.status || !strings.Contains(got.Message, tc.msg) {
				t.Errorf("got %d %s, want %d with %q", st, b, tc.status, tc.msg)
			}
		})
	}
	// A body sent without a length (chunked) is cut at the bound too.
	req, _ := http.NewRequest("POST", e.http.URL+"/api/runs", struct{ *bytes.Reader }{bytes.NewReader(bytes.Repeat([]byte(" "), 200<<10))})
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
		if resp.StatusCode != 413 {
			t.Errorf("chunked 200 KiB body: %d, want 413", resp.StatusCode)
		}
	}
	if n := replays.Load(); n != 0 {
		t.Errorf("%d replays of junk, want 0", n)
	}
	if after := e.counts(); after != before {
		t.Errorf("rows changed: %v → %v", before, after)
	}
	// The honest record itself still passes.
	e.mustSubmit(base)
	if n := replays.Load(); n != 1 {
		t.Errorf("%d replays after one honest run, want 1", n)
	}
	// Rooms: a duplicate key and an honest list of 1,000 visits.
	if st, b, _ := e.do("POST", "/api/rooms", `{"suite":"mini","suite":"standard"}`); st != 400 {
		t.Errorf("room with a duplicate key: %d %s", st, b)
	}
	std, _ := sim.LookupSuite("hard")
	var visits []string
	for len(visits) < 1000 {
		visits = append(visits, std.Visits...)
	}
	body, _ := json.Marshal(api.RoomRequest{Visits: visits[:1000]})
	if st, b, _ := e.do("POST", "/api/rooms", body); st != http.StatusCreated {
		t.Errorf("room of 1,000 visits (%d bytes): %d %s", len(body), st, b)
	}
}

// clock is a settable time source for limiters.
type clock struct{ t atomic.Int64 }

func (c *clock) now() time.Time          { return time.Unix(0, c.t.Load()) }
func (c *clock) advance(d time.Duration) { c.t.Add(int64(d)) }

func TestRateLimits(t *testing.T) {
	c := &clock{}
	c.t.Store(time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC).UnixNano())
	rates := map[string]limit.Rate{
		server.ClassWrite:  {Every: time.Second, Burst: 2},
		server.ClassLookup: {Every: time.Second, Burst: 3},
		server.ClassRooms:  {Every: time.Hour, Burst: 1},
		server.ClassRead:   {Every: time.Second, Burst: 5},
	}
	var logs strings.Builder
	var mu sync.Mutex
	newLimited := func(header string) *env {
		return newEnv(t, func(o *server.Options) {
			o.Limiter = limit.NewBuckets(rates, c.now)
			o.ClientHeader = header
			o.OpenRooms = true
			o.Now = c.now
			o.Logger = slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, nil))
		})
	}
	e := newLimited("X-Forwarded-For")
	from := func(ip string) []string { return []string{"X-Forwarded-For", "198.51.100.1, " + ip} }
	rec := record(t, controlVisit, "greedy", "model")
	for i := range 2 {
		if st, b, _ := e.do("POST", "/api/runs", submission(rec, ""), from("203.0.113.1")...); st != http.StatusCreated {
			t.Fatalf("write %d within the burst: %d %s", i+1, st, b)
		}
	}
	st, b, h := e.do("POST", "/api/runs", submission(rec, ""), from("203.0.113.1")...)
	if got := errorOf(t, b); st != http.StatusTooManyRequests || got.Code != "rate_limited" || h.Get("Retry-After") != "1" {
		t.Errorf("write over the burst: %d %s Retry-After %q, want 429 rate_limited and 1", st, b, h.Get("Retry-After"))
	}
	if st, b, _ := e.do("POST", "/api/runs", submission(rec, ""), from("203.0.113.2")...); st != http.StatusCreated {
		t.Errorf("another client's write: %d %s", st, b)
	}
	// /api/assign holds a visit: it is a write.
	if st, _, _ := e.do("POST", "/api/assign", api.AssignRequest{Participant: "person-0000001"}, from("203.0.113.1")...); st != http.StatusTooManyRequests {
		t.Errorf("assign after the writes ran out: %d, want 429", st)
	}
	c.advance(time.Second)
	if st, b, _ := e.do("POST", "/api/runs", submission(rec, ""), from("203.0.113.1")...); st != http.StatusCreated {
		t.Errorf("write a second later: %d %s", st, b)
	}

	// Room creation: one per hour here.
	var room api.RoomCreated
	st, b, _ = e.do("POST", "/api/rooms", api.RoomRequest{Suite: "mini"}, from("203.0.113.3")...)
	if st != http.StatusCreated || json.Unmarshal(b, &room) != nil {
		t.Fatalf("creating a room: %d %s", st, b)
	}
	if st, _, _ := e.do("POST", "/api/rooms", api.RoomRequest{Suite: "mini"}, from("203.0.113.3")...); st != http.StatusTooManyRequests {
		t.Errorf("a second room at once: %d, want 429", st)
	}
	// Every look-up of a room code draws from one bucket, whatever the
	// route: guesses are slow everywhere.
	guess := "ABCD-EFGH-JKMN"
	lookups := []struct {
		method, path string
		body         any
	}{{"GET", "/api/rooms/" + guess, nil}, {"POST", "/api/assign", api.AssignRequest{Participant: "person-0000002", Room: guess}}, {"GET", "/api/rooms/" + room.Code, nil}}
	for i, l := range lookups {
		if st, b, _ := e.do(l.method, l.path, l.body, from("203.0.113.4")...); st == http.StatusTooManyRequests {
			t.Errorf("look-up %d (%s) within the burst: %d %s", i+1, l.path, st, b)
		}
	}
	for _, p := range []string{"/api/rooms/" + room.Code, "/api/rooms/" + room.Code + "/dashboard"} {
		if st, b, _ := e.do("GET", p, nil, from("203.0.113.4")...); st != http.StatusTooManyRequests {
			t.Errorf("look-up %s over the burst: %d %s, want 429", p, st, b)
		}
	}
	sub := submission(record(t, controlVisit, "oracle", "human"), "person-0000003")
	sub.Room = guess
	if st, b, _ := e.do("POST", "/api/runs", sub, from("203.0.113.4")...); st != http.StatusTooManyRequests {
		t.Errorf("a submission naming a room after the look-ups ran out: %d %s, want 429", st, b)
	}

	// Refusals are not logged one by one: one line a minute counts them.
	mu.Lock()
	if n := strings.Count(logs.String(), "status=429"); n != 0 {
		t.Errorf("%d refusals logged one by one", n)
	}
	mu.Unlock()
	c.advance(time.Minute)
	for range 3 {
		e.do("POST", "/api/runs", submission(rec, ""), from("203.0.113.1")...)
	}
	mu.Lock()
	if n := strings.Count(logs.String(), `msg="rate limited"`); n != 1 || !strings.Contains(logs.String(), "write=") {
		t.Errorf("%d summary lines of refusals, want 1 counting writes:\n%s", n, logs.String())
	}
	mu.Unlock()

	// Without a trusted header, the header is the client's own text and
	// changes nothing: one bucket per address.
	e = newLimited("")
	for i := range 3 {
		st, _, _ := e.do("POST", "/api/runs", submission(rec, ""), "X-Forwarded-For", fmt.Sprintf("192.0.2.%d", i))
		if want := map[bool]int{true: 201, false: 429}[i < 2]; st != want {
			t.Errorf("write %d with a forged header: %d, want %d", i+1, st, want)
		}
	}
}

// TestSecurityHeaders: every route, and every kind of answer (pages,
// JSON, errors, 404, 405, 413, 429, static files), carries the headers.
func TestSecurityHeaders(t *testing.T) {
	e := newEnv(t, func(o *server.Options) {
		o.Limiter = limit.NewBuckets(map[string]limit.Rate{server.ClassRooms: {Every: time.Hour, Burst: 1}}, nil)
	})
	want := server.SecurityHeaders()
	check := func(what string, h http.Header) {
		t.Helper()
		for k, v := range want {
			if got := h.Get(k); got != v {
				t.Errorf("%s: %s = %q, want %q", what, k, got, v)
			}
		}
	}
	for _, rt := range e.srv.Routes() {
		path := strings.ReplaceAll(rt.Pattern, "{code}", "ABCD-EFGH-JKMN")
		methods := append([]string{"PATCH"}, rt.Methods...)
		for _, m := range methods {
			if m == "*" {
				m = "DELETE"
			}
			st, _, h := e.do(m, path, nil)
			check(fmt.Sprintf("%s %s (%d)", m, path, st), h)
		}
	}
	for _, p := range []string{"/nope.js", "/api/nope", "/api/rooms/x/y/z", "/.git/config"} {
		st, _, h := e.do("GET", p, nil)
		check(fmt.Sprintf("GET %s (%d)", p, st), h)
	}
	for range 2 {
		st, _, h := e.do("POST", "/api/rooms", `{}`)
		check(fmt.Sprintf("POST /api/rooms (%d)", st), h)
	}
	st, _, h := e.do("POST", "/api/runs", strings.Repeat(" ", 100<<10))
	check(fmt.Sprintf("oversized POST /api/runs (%d)", st), h)
	if !strings.Contains(server.ContentSecurityPolicy, "frame-ancestors 'none'") || !strings.Contains(server.ContentSecurityPolicy, "'wasm-unsafe-eval'") {
		t.Errorf("CSP %q", server.ContentSecurityPolicy)
	}
}

// TestBodyBoundFitsHonestRecords: every baseline's record of the mini
// suite, with the largest extra a submission may carry, fits in half of
// the default body bound, and its events in half of MaxEvents: the bounds
// stay twice what honest clients need as the sim changes.
func TestBodyBoundFitsHonestRecords(t *testing.T) {
	mini, err := sim.LookupSuite("mini")
	if err != nil {
		t.Fatal(err)
	}
	extra := map[string]any{"pad": strings.Repeat("x", 16<<10-20)}
	largest, events, actions := 0, 0, 0
	var which string
	for _, v := range mini.Visits {
		for _, a := range agents.Names() {
			sub := submission(record(t, v, a, "model"), "baseline:"+a)
			sub.Record.Extra = extra
			b, _ := json.Marshal(sub)
			if len(b) > largest {
				largest, which = len(b), v+" "+a
			}
			events = max(events, len(sub.Record.Events))
			actions = max(actions, len(sub.Record.Actions))
		}
	}
	t.Logf("largest honest submission %d bytes (%s, with 16 KiB of extra); bound %d; most events %d (bound %d), actions %d (bound %d)",
		largest, which, server.DefaultMaxBody, events, server.MaxEvents, actions, server.MaxActions)
	if 2*largest > server.DefaultMaxBody {
		t.Errorf("the largest honest submission (%d bytes, %s) is over half the body bound %d: raise DefaultMaxBody", largest, which, server.DefaultMaxBody)
	}
	if 2*events > server.MaxEvents {
		t.Errorf("a record holds %d events, over half of MaxEvents %d", events, server.MaxEvents)
	}
	if actions > sim.PracticeSteps+sim.TestSteps || actions > server.MaxActions {
		t.Errorf("a record holds %d actions, more than a visit's steps", actions)
	}
}
