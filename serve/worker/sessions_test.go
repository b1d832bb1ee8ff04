//go:build !js

package main

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
)

// sessions plays sessions on the worker (D1, the native core rebuilt for
// every request from the stored actions): a person's sealed session
// (assignment without a visit id, resumed with its token, never with the
// pseudonym), and a submitter key's whole sealed visit, stored and on the
// leaderboard. It logs the
// time a step takes under wrangler dev at the start and at the end of a
// visit (each step replays the visit so far).
func sessions(t *testing.T, w *worker) {
	p := "person-" + randomHex(6)
	st, b, _ := w.do("POST", "/api/assign", api.AssignRequest{Participant: p})
	if st != 200 || strings.Contains(string(b), `"visit"`) || !strings.Contains(string(b), `"sealed":true`) {
		t.Fatalf("POST /api/assign = %d %s, want no visit, sealed", st, b)
	}
	var s api.SessionState
	st, b, _ = w.do("POST", "/api/sessions", api.SessionRequest{Participant: p, Consent: true})
	if st != http.StatusCreated || json.Unmarshal(b, &s) != nil || !s.Sealed || s.Visit != "" {
		t.Fatalf("POST /api/sessions (a person) = %d %s", st, b)
	}
	for _, a := range []string{"north", "wait", "west"} {
		if st, b, _ := w.do("POST", "/api/session/step", api.SessionStep{Action: a}, "Authorization", "Bearer "+s.Session); st != 200 {
			t.Fatalf("step: %d %s", st, b)
		}
	}
	if st, b, _ = w.do("POST", "/api/sessions", api.SessionRequest{Participant: p, Consent: true}); st != http.StatusConflict {
		t.Fatalf("POST /api/sessions again with the pseudonym = %d %.300s, want 409 (the token is the credential)", st, b)
	}
	var r api.SessionState
	st, b, _ = w.do("GET", "/api/session", nil, "Authorization", "Bearer "+s.Session)
	if st != http.StatusOK || json.Unmarshal(b, &r) != nil || r.Actions != 3 {
		t.Fatalf("GET /api/session (a reload) = %d %.300s, want the session at 3 actions", st, b)
	}

	// A key's whole sealed visit.
	st, b, _ = w.do("POST", "/api/sessions", api.SessionRequest{Suite: "mini"}, "Authorization", "Bearer "+w.submitterKey)
	if st != http.StatusCreated || json.Unmarshal(b, &s) != nil || s.Kind != api.KindModel || !s.Sealed {
		t.Fatalf("POST /api/sessions (a key) = %d %s", st, b)
	}
	token := s.Session
	pol, _ := agents.New("greedy")
	var early, late []time.Duration
	for s.Stage == api.StagePlay {
		var obs sim.Observation
		if err := json.Unmarshal(s.Observation, &obs); err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		st, b, _ := w.do("POST", "/api/session/step", api.SessionStep{Action: pol.Act(&obs).String()}, "Authorization", "Bearer "+token)
		d := time.Since(t0)
		if st != 200 || json.Unmarshal(b, &s) != nil {
			t.Fatalf("step %d: %d %s", s.Actions, st, b)
		}
		if s.Actions <= 10 {
			early = append(early, d)
		} else if s.Day == 2 && s.Step >= 40 {
			late = append(late, d)
		}
	}
	if s.Stage == api.StageProbe {
		st, b, _ = w.do("POST", "/api/session/answer", api.SessionAnswer{Answer: 0}, "Authorization", "Bearer "+token)
		if st != 200 || json.Unmarshal(b, &s) != nil {
			t.Fatalf("answer: %d %s", st, b)
		}
	}
	if s.Stage != api.StageDone || s.Result == nil || s.Result.RunID == "" || s.Result.Provenance != api.ProvenanceStepped {
		t.Fatalf("the end: %+v", s.Result)
	}
	env, err := sim.Replay(*s.Result.Record)
	if err != nil || env.Hash() != s.Result.Hash {
		t.Errorf("the record does not replay to its hash: %v", err)
	}
	var lb api.Leaderboard
	w.getJSON("/api/leaderboard?suite=mini", &lb)
	found := false
	for _, a := range lb.Agents {
		found = found || a.Agent == "worker-model" && a.Provenance == api.ProvenanceStepped
	}
	if !found {
		t.Errorf("no server-stepped worker-model row on the leaderboard")
	}
	med := func(d []time.Duration) time.Duration {
		if len(d) == 0 {
			return 0
		}
		slices.Sort(d)
		return d[len(d)/2].Round(time.Millisecond)
	}
	t.Logf("a session step under wrangler dev (D1, the Go runtime and the visit so far replayed per request): p50 %s in the first 10 steps, %s late on the test day (%d steps in all)",
		med(early), med(late), s.Actions)
}
