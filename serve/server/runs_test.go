package server_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/server"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/wasm/simwasm"
)

// visits used across the tests, both in suite mini: a norm visit (with a
// probe) and control.
const (
	normVisit = "orchard/place.color=red/observe/s100"
	// noSuiteVisit is in no suite.
	noSuiteVisit = "orchard/place.color=blue/observe/s17"
)

// controlVisit is mini's first control visit (its seed follows the
// catalog's size, so it is looked up, not written down).
var controlVisit = func() string {
	mini, err := sim.LookupSuite("mini")
	if err != nil {
		panic(err)
	}
	for _, v := range mini.Visits {
		if strings.Contains(v, "/none/control/") {
			return v
		}
	}
	panic("mini has no control visit")
}()

func TestSubmitValid(t *testing.T) {
	e := newEnv(t)
	rec := record(t, normVisit, "observer", "model")
	conf := 0.7
	rec.Probe.Confidence = &conf
	sub := submission(rec, "")
	resp := e.mustSubmit(sub)
	if resp.Duplicate || resp.RunID != sub.RunID {
		t.Errorf("response: duplicate %v run id %q, want a new run %q", resp.Duplicate, resp.RunID, sub.RunID)
	}
	got := resp.Record
	if got.Hash != rec.Hash || got.SimSHA256 != simwasm.SHA256() || got.Agent != "model-observer" || got.Client != "model" {
		t.Errorf("stored record: hash %s sha %s agent %s client %s", got.Hash, got.SimSHA256, got.Agent, got.Client)
	}
	if got.Probe == nil || got.Probe.Confidence == nil || *got.Probe.Confidence != conf {
		t.Errorf("probe confidence not carried over: %+v", got.Probe)
	}
	// The record names no suite: the server says so itself.
	if got.Suite != "mini" {
		t.Errorf("suite %q, want mini", got.Suite)
	}
	if c := e.counts(); c != [3]int{1, 1, 0} {
		t.Errorf("rows (runs, totals, plays) = %v, want [1 1 0]", c)
	}

	if run, err := e.store.Run(t.Context(), resp.RunID); err != nil || run.Provenance != api.ProvenanceSelfReported {
		t.Errorf("a submitted run's provenance %q, want %q (%v)", run.Provenance, api.ProvenanceSelfReported, err)
	}

	// A human run in a classroom (the page ran the sim): agent forced to
	// "human", suite derived, extra dropped.
	su, _ := sim.LookupSuite("standard")
	st, b, _ := e.do("POST", "/api/rooms", api.RoomRequest{Suite: "standard"})
	var room api.RoomCreated
	if st != http.StatusCreated || json.Unmarshal(b, &room) != nil {
		t.Fatalf("creating a room: %d %s", st, b)
	}
	hrec := record(t, su.Visits[5], "greedy", "human")
	hrec.Extra = map[string]any{"note": "my name is Ann"}
	hsub := submission(hrec, "p-0123456789abcdef")
	hsub.Room = room.Code
	resp = e.mustSubmit(hsub)
	if got := resp.Record; got.Agent != "human" || got.Suite != "standard" || got.SuiteVersion != su.Version || got.Extra != nil {
		t.Errorf("human record: agent %q suite %q v%q extra %v", got.Agent, got.Suite, got.SuiteVersion, got.Extra)
	}
	// A classroom's run is the class's: stored, not in the leaderboard's totals.
	if c := e.counts(); c != [3]int{2, 1, 1} {
		t.Errorf("rows (runs, totals, plays) = %v, want [2 1 1]", c)
	}
}

func TestSubmitRejected(t *testing.T) {
	e := newEnv(t, func(o *server.Options) { o.MaxBody = 256 << 10 })
	base := record(t, normVisit, "greedy", "model")
	if base.Probe == nil {
		t.Fatal("want a visit with a probe")
	}
	room := struct{ Code string }{}
	st, b, _ := e.do("POST", "/api/rooms", api.RoomRequest{Visits: []string{controlVisit}})
	if st != http.StatusCreated || json.Unmarshal(b, &room) != nil {
		t.Fatalf("creating a room: %d %s", st, b)
	}
	tests := []struct {
		name   string
		edit   func(*api.Submission)
		body   func(api.Submission) []byte // raw body instead of the submission
		status int
		code   api.Code
		diff   string // in diffs
		msg    string // in the message
	}{
		{name: "forged score", edit: func(s *api.Submission) { s.Record.Scores.Joint = !s.Record.Scores.Joint },
			status: 422, code: "mismatch", diff: "scores.joint"},
		{name: "forged violations", edit: func(s *api.Submission) { s.Record.Scores.Violations = []int{0, 0} },
			status: 422, code: "mismatch", diff: "scores.violations"},
		{name: "hash mismatch", edit: func(s *api.Submission) { s.Record.Hash = strings.Repeat("0", 64) },
			status: 422, code: "mismatch", diff: "hash"},
		{name: "forged probe", edit: func(s *api.Submission) { s.Record.Probe.Correct = !s.Record.Probe.Correct },
			status: 422, code: "mismatch", diff: "probe.correct"},
		{name: "confidence out of range", edit: func(s *api.Submission) { c := 2.0; s.Record.Probe.Confidence = &c },
			status: 422, code: "mismatch", diff: "probe.confidence"},
		{name: "actions cut short", edit: func(s *api.Submission) { s.Record.Actions = s.Record.Actions[:3] },
			status: 422, code: "mismatch"},
		{name: "bad action", edit: func(s *api.Submission) { s.Record.Actions[0] = "fly" },
			status: 422, code: "mismatch"},
		{name: "unknown visit", edit: func(s *api.Submission) { s.Record.Visit = "moon/none/control/s1" },
			status: 400, code: "invalid"},
		{name: "missing consent", edit: func(s *api.Submission) { s.Consent = false }, status: 400, code: "consent"},
		{name: "old consent version", edit: func(s *api.Submission) { s.ConsentVersion = "0" }, status: 400, code: "consent"},
		{name: "wrong sim version", edit: func(s *api.Submission) { s.Record.SimSHA256 = strings.Repeat("a", 64) },
			status: 409, code: "version"},
		{name: "native record", edit: func(s *api.Submission) { s.Record.SimSHA256 = "native" }, status: 409, code: "version"},
		{name: "old sim version", edit: func(s *api.Submission) { s.Record.SimVersion = "3"; s.Record.Actions = s.Record.Actions[:2] },
			status: 409, code: "version", msg: "made by sim version 3; this server runs sim version " + sim.Version + ": re-run the visit"},
		{name: "old catalog version", edit: func(s *api.Submission) { s.Record.Catalog = "1"; s.Record.Visit = "moon/x/observe/s1" },
			status: 409, code: "version", msg: "made with norm catalog version 1; this server runs catalog version " + norms.Default().Version() + ": re-run the visit"},
		{name: "malformed JSON", body: func(api.Submission) []byte { return []byte(`{"run_id": "abc`) }, status: 400, code: "invalid"},
		{name: "empty body", body: func(api.Submission) []byte { return nil }, status: 400, code: "invalid"},
		{name: "trailing data", body: func(s api.Submission) []byte { b, _ := json.Marshal(s); return append(b, "{}"...) },
			status: 400, code: "invalid"},
		{name: "oversized body", body: func(s api.Submission) []byte {
			b, _ := json.Marshal(s)
			return append(b[:len(b)-1], (`,"pad":"` + strings.Repeat("x", 300<<10) + `"}`)...)
		}, status: 413, code: "too_large"},
		{name: "unknown field", body: func(s api.Submission) []byte {
			b, _ := json.Marshal(s)
			return append(b[:len(b)-1], `,"score":1}`...)
		}, status: 400, code: "invalid"},
		{name: "unknown record field", body: func(s api.Submission) []byte {
			b, _ := json.Marshal(s)
			return []byte(strings.Replace(string(b), `"record":{`, `"record":{"verified":true,`, 1))
		}, status: 400, code: "invalid"},
		{name: "short run id", edit: func(s *api.Submission) { s.RunID = "abc" }, status: 400, code: "invalid"},
		{name: "run id with a space", edit: func(s *api.Submission) { s.RunID = "abcdefgh ijklmnop" }, status: 400, code: "invalid"},
		{name: "email as participant", edit: func(s *api.Submission) { s.Participant = "ann@example.org" }, status: 400, code: "invalid"},
		{name: "human email", edit: func(s *api.Submission) {
			s.Record.Client, s.Record.Agent, s.Participant, s.Room = "human", "human", "ann@example.org", room.Code
		}, status: 400, code: "invalid"},
		{name: "human without participant", edit: func(s *api.Submission) {
			s.Record.Client, s.Record.Agent, s.Room = "human", "human", room.Code
		}, status: 400, code: "invalid"},
		{name: "human outside a room", edit: func(s *api.Submission) {
			s.Record.Client, s.Record.Agent, s.Participant = "human", "human", "person-0000001"
		}, status: 403, code: "forbidden"},
		{name: "baseline", edit: func(s *api.Submission) { s.Record.Client, s.Record.Agent = "baseline", "oracle" },
			status: 403, code: "forbidden"},
		{name: "unknown client", edit: func(s *api.Submission) { s.Record.Client = "robot" }, status: 400, code: "invalid"},
		{name: "model named as a baseline", edit: func(s *api.Submission) { s.Record.Agent = "oracle" }, status: 400, code: "invalid"},
		{name: "model named human", edit: func(s *api.Submission) { s.Record.Client, s.Record.Agent = "model", "human" },
			status: 400, code: "invalid"},
		{name: "wrong suite", edit: func(s *api.Submission) { s.Record.Suite = "standard" }, status: 400, code: "invalid"},
		{name: "unknown room", edit: func(s *api.Submission) { s.Room, s.Participant = "ZZZZ-ZZZZ-ZZZZ", "student-0001" },
			status: 400, code: "invalid"},
		{name: "retired room code", edit: func(s *api.Submission) { s.Room, s.Participant = "ZZZZZZ", "student-0001" },
			status: 410, code: "gone"},
		{name: "visit not in room", edit: func(s *api.Submission) { s.Room, s.Participant = room.Code, "student-0001" },
			status: 400, code: "invalid"},
		{name: "form body", body: func(api.Submission) []byte { return []byte("run_id=x") }, status: 400, code: "invalid"},
	}
	before := e.counts()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sub := submission(clone(base), "")
			if tc.edit != nil {
				tc.edit(&sub)
			}
			var st int
			var b []byte
			if tc.body != nil {
				body := tc.body(sub)
				ct := "application/json"
				if tc.name == "form body" {
					ct = "application/x-www-form-urlencoded"
				}
				st, b, _ = e.do("POST", "/api/runs", body, "Content-Type", ct)
			} else {
				st, b, _ = e.do("POST", "/api/runs", sub)
			}
			got := errorOf(t, b)
			if st != tc.status || got.Code != tc.code {
				t.Errorf("got %d %q (%s), want %d %q", st, got.Code, got.Message, tc.status, tc.code)
			}
			if !strings.Contains(got.Message, tc.msg) {
				t.Errorf("message %q, want it to say %q", got.Message, tc.msg)
			}
			if tc.diff != "" && !slices.Contains(got.Diffs, tc.diff) {
				t.Errorf("diffs %v, want %q among them", got.Diffs, tc.diff)
			}
			if tc.code == "version" && got.SimSHA256 != simwasm.SHA256() {
				t.Errorf("version error names sim.wasm %q, want this server's %s", got.SimSHA256, simwasm.SHA256())
			}
			if strings.Contains(got.Message, "goroutine") || strings.Contains(got.Message, ".go:") {
				t.Errorf("message leaks internals: %s", got.Message)
			}
			if after := e.counts(); after != before {
				t.Errorf("rows changed: %v → %v", before, after)
			}
		})
	}
}

func TestSubmitIdempotent(t *testing.T) {
	e := newEnv(t)
	sub := submission(record(t, controlVisit, "random", "model"), "baseline:random")
	first := e.mustSubmit(sub)
	// The same body again, twice at once: one run.
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, b, _ := e.do("POST", "/api/runs", sub)
			var r api.SubmitResponse
			if st != http.StatusOK || json.Unmarshal(b, &r) != nil || !r.Duplicate || r.Record.Hash != first.Record.Hash {
				t.Errorf("resubmission: %d %s, want 200 duplicate", st, b)
			}
		}()
	}
	wg.Wait()
	// Same run id, other content: a conflict.
	other := sub
	other.Record = record(t, controlVisit, "greedy", "model")
	st, b, _ := e.do("POST", "/api/runs", other)
	if got := errorOf(t, b); st != http.StatusConflict || got.Code != "conflict" {
		t.Errorf("same run id, other run: %d %s, want 409 conflict", st, b)
	}
	if c := e.counts(); c[0] != 1 {
		t.Errorf("%d runs stored, want 1", c[0])
	}
	// Two new submissions of one fresh run id at once: one is created.
	fresh := submission(record(t, controlVisit, "greedy", "model"), "")
	codes := make(chan int, 2)
	for i := 0; i < 2; i++ {
		go func() { st, _, _ := e.do("POST", "/api/runs", fresh); codes <- st }()
	}
	got := []int{<-codes, <-codes}
	slices.Sort(got)
	if !slices.Equal(got, []int{200, 201}) {
		t.Errorf("racing submissions of one run: statuses %v, want [200 201]", got)
	}
	if c := e.counts(); c[0] != 2 {
		t.Errorf("%d runs stored, want 2", c[0])
	}
}

func TestParticipantRuns(t *testing.T) {
	e := newEnv(t)
	me, other := "me-aaaaaaaaaaaa", "other-bbbbbbbbbb"
	code := e.newRoom(controlVisit, normVisit)
	e.mustSubmit(inRoom(submission(record(t, controlVisit, "greedy", "human"), me), code))
	e.mustSubmit(inRoom(submission(record(t, normVisit, "greedy", "human"), other), code))
	var runs api.Runs
	e.getJSON("/api/runs", &runs, api.ParticipantHeader, me)
	if len(runs.Runs) != 1 || runs.Runs[0].Visit != controlVisit {
		t.Errorf("my runs: %+v, want just mine", runs.Runs)
	}
	st, b, _ := e.do("GET", "/api/runs", nil, api.ParticipantHeader, "a@b.c")
	if st != http.StatusBadRequest {
		t.Errorf("listing an email: %d %s", st, b)
	}
	// A pseudonym never goes in a URL (logs, proxies and histories keep URLs).
	if st, b, _ := e.do("GET", "/api/runs?participant="+me, nil); st != http.StatusBadRequest || !strings.Contains(string(b), api.ParticipantHeader) {
		t.Errorf("the pseudonym in the query: %d %s, want 400 naming the header", st, b)
	}
}

func TestMisc(t *testing.T) {
	e := newEnv(t)
	var c api.Consent
	e.getJSON("/api/consent", &c)
	if c.Version != server.ConsentVersion || !strings.Contains(c.Text, "no IP address") {
		t.Errorf("consent: %+v", c)
	}
	var h api.Health
	e.getJSON("/healthz", &h)
	if !h.OK || h.SimSHA256 != simwasm.SHA256() || h.Verify != "wasm" {
		t.Errorf("health: %+v", h)
	}
	for _, tc := range []struct {
		method, path string
		status       int
		code         api.Code
	}{
		{"DELETE", "/api/runs", 405, "method"},
		{"GET", "/api/nothing", 404, "not_found"},
		{"GET", "/api/leaderboard?suite=huge", 400, "invalid"},
		{"GET", "/api/rooms/ABC", 404, "not_found"},
		{"GET", "/api/rooms/2222-2222-2222", 404, "not_found"},
		{"GET", "/api/rooms/222222", 410, "gone"},
		{"GET", "/api/assign?participant=x", 400, "invalid"},
	} {
		st, b, _ := e.do(tc.method, tc.path, nil)
		if got := errorOf(t, b); st != tc.status || got.Code != tc.code {
			t.Errorf("%s %s: %d %s, want %d %s", tc.method, tc.path, st, b, tc.status, tc.code)
		}
		if tc.code.Status() != tc.status {
			t.Errorf("%s.Status() = %d", tc.code, tc.code.Status())
		}
	}
}

// FuzzSubmit throws arbitrary bodies at POST /api/runs (native verifier,
// for speed): never a 5xx, always a JSON answer, and a stored run only
// for a record that replays to itself.
func FuzzSubmit(f *testing.F) {
	e := newEnv(f, func(o *server.Options) { o.Verifier = server.Native(simwasm.SHA256()) })
	rec := record(f, normVisit, "oracle", "baseline")
	valid, _ := json.Marshal(submission(rec, ""))
	f.Add(valid)
	rec.Scores.Joint = !rec.Scores.Joint
	forged, _ := json.Marshal(submission(rec, ""))
	f.Add(forged)
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"run_id":"aaaaaaaaaaaaaaaa","consent":true,"record":{"visit":"orchard/none/control/s1","client":"human"}}`))
	f.Add([]byte(`[1,2,3]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequest("POST", "/api/runs", bytes.NewReader(body))
		w := httptest.NewRecorder()
		e.srv.ServeHTTP(w, req)
		if w.Code >= 500 {
			t.Fatalf("%d %s for %q", w.Code, w.Body, body)
		}
		if w.Code/100 == 2 {
			var r api.SubmitResponse
			if err := json.Unmarshal(w.Body.Bytes(), &r); err != nil || r.Record.SimSHA256 != simwasm.SHA256() {
				t.Fatalf("accepted %q: %s", body, w.Body)
			}
			return
		}
		var ed api.ErrorDetail
		if err := json.Unmarshal(w.Body.Bytes(), &ed); err != nil || ed.Code == "" {
			t.Fatalf("%d answer is not an error: %s", w.Code, w.Body)
		}
	})
}
