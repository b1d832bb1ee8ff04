//go:build !js

package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
)

// sessions plays sessions on the worker (in Session Durable Objects, on
// D1): a person's sealed session (assignment without a visit id, resumed
// with its token, never with the pseudonym), and a submitter key's whole
// sealed visit, stored and on the leaderboard.
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
	for s.Stage == api.StagePlay {
		var obs sim.Observation
		if err := json.Unmarshal(s.Observation, &obs); err != nil {
			t.Fatal(err)
		}
		st, b, _ := w.do("POST", "/api/session/step", api.SessionStep{Action: pol.Act(&obs).String()}, "Authorization", "Bearer "+token)
		if st != 200 || json.Unmarshal(b, &s) != nil {
			t.Fatalf("step %d: %d %s", s.Actions, st, b)
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
}

// stepTimes plays a visit of 160 steps on the worker and on normgym
// serve (the native core, as the worker steps), a step on each in turn,
// and logs both; a step on the worker must not grow slower as the visit
// goes on (its visit stays live in a Durable Object).
func stepTimes(t *testing.T, w *worker) {
	_, hs := native(t, w)
	mini, _ := sim.LookupSuite("mini")
	out := stepLatency(t, mini.Visits[3], &target{name: "normgym serve", base: hs.URL}, &target{name: "wrangler dev", base: w.base})
	nat, wk := summarize(out[0]), summarize(out[1])
	t.Logf("a session step over a whole visit (%d steps): normgym serve %s; wrangler dev %s; p95 %.1f× native's",
		len(out[1]), nat, wk, float64(wk.p95)/float64(nat.p95))
	if wk.last > 2*wk.first+10*time.Millisecond {
		t.Errorf("a step on the worker grows slower within a visit: p50 %s over the first 10 steps, %s over the last 10", wk.first, wk.last)
	}
}
