package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/domain"
	"github.com/normgym/normgym/serve/limit"
	"github.com/normgym/normgym/serve/server"
	"github.com/normgym/normgym/serve/session"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
	"github.com/normgym/normgym/wasm/host"
	"github.com/normgym/normgym/wasm/simwasm"
)

// withSessions gives the server a session engine (sim.wasm, as normgym
// serve steps by default) and a submitter key labelled "model-a".
func withSessions(key *string) option {
	return func(o *server.Options) {
		o.Engine = session.Wasm(rt)
		o.BoardTTL = -1
		k, line, err := server.NewSubmitterKey("model-a")
		if err != nil {
			panic(err)
		}
		keys, err := server.ParseTeacherKeys(line)
		if err != nil {
			panic(err)
		}
		o.SubmitterKeys = keys
		if key != nil {
			*key = k
		}
	}
}

// open opens a session and returns its state (status checked by want).
func (e *env) open(req api.SessionRequest, want int, header ...string) api.SessionState {
	e.t.Helper()
	st, b, _ := e.do("POST", "/api/sessions", req, header...)
	if st != want {
		e.t.Fatalf("POST /api/sessions %+v: %d %s, want %d", req, st, b, want)
	}
	var s api.SessionState
	if st < 300 {
		if err := json.Unmarshal(b, &s); err != nil {
			e.t.Fatal(err)
		}
	}
	return s
}

// sessionDo sends a session request with the token.
func (e *env) sessionDo(method, path, token string, body any) (int, []byte) {
	e.t.Helper()
	st, b, _ := e.do(method, path, body, "Authorization", "Bearer "+token)
	return st, b
}

func decodeState(t testing.TB, b []byte) api.SessionState {
	t.Helper()
	var s api.SessionState
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%v in %s", err, b)
	}
	return s
}

// playSession plays the session of token with the greedy baseline until
// the visit is over (or until stop returns true after a step), checking
// at every answer that nothing of the visit leaks if it is sealed.
func (e *env) playSession(token string, s api.SessionState, leak []string, stop func(api.SessionState) bool) api.SessionState {
	e.t.Helper()
	p, _ := agents.New("greedy")
	for s.Stage == api.StagePlay {
		var obs sim.Observation
		if err := json.Unmarshal(s.Observation, &obs); err != nil {
			e.t.Fatal(err)
		}
		st, b := e.sessionDo("POST", "/api/session/step", token, api.SessionStep{Action: p.Act(&obs).String()})
		if st != http.StatusOK {
			e.t.Fatalf("step %d: %d %s", s.Actions, st, b)
		}
		noLeak(e.t, b, leak)
		s = decodeState(e.t, b)
		if stop != nil && stop(s) {
			break
		}
	}
	return s
}

// finishSession plays the session to its end with greedy and answers the
// probe (option 0) if there is one.
func (e *env) finishSession(token string, s api.SessionState) api.SessionState {
	e.t.Helper()
	s = e.playSession(token, s, nil, nil)
	if s.Stage == api.StageProbe {
		st, b := e.sessionDo("POST", "/api/session/answer", token, api.SessionAnswer{Answer: 0})
		if st != http.StatusOK {
			e.t.Fatalf("answer: %d %s", st, b)
		}
		s = decodeState(e.t, b)
	}
	if s.Stage != api.StageDone {
		e.t.Fatalf("session not done: %+v", s.Stage)
	}
	return s
}

// noLeak fails if b holds any of the strings.
func noLeak(t testing.TB, b []byte, leak []string) {
	t.Helper()
	for _, l := range leak {
		if l != "" && strings.Contains(string(b), l) {
			t.Fatalf("an answer of a sealed session holds %q: %.300s", l, b)
		}
	}
}

// secrets are the strings that name a sealed session's visit: its id,
// its norm's id, rule and statement, and its condition as the id writes it.
func secrets(t testing.TB, visit string) []string {
	t.Helper()
	id, err := sim.ParseVisitID(visit)
	if err != nil {
		t.Fatal(err)
	}
	out := []string{visit, "/" + id.Condition + "/"}
	if id.Norm != norms.NoNorm {
		n, err := norms.Default().Lookup(id.Norm)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, n.ID, n.Rule.String())
		if id.Condition != sim.Told {
			// Under told the task states the rule: by design.
			out = append(out, n.Statement)
		}
	}
	return out
}

// sessionVisit reads a session's visit from the store (the server side).
func (e *env) sessionVisit(participant string) string {
	e.t.Helper()
	var v string
	if err := e.store.DB().QueryRow(`SELECT visit FROM sessions WHERE participant = ? ORDER BY rowid DESC LIMIT 1`, participant).Scan(&v); err != nil {
		e.t.Fatal(err)
	}
	return v
}

// TestHumanSession plays a person's sealed session from start to probe:
// no answer before the probe holds the visit id, the norm's id, rule or
// statement; the visit is a cell of standard under a sealed seed; a
// reload resumes it with the token (same step), never with the pseudonym
// alone; the probe's options are the first to hold the statement; the
// run is stored as a server-stepped human run and counts on the
// leaderboard, and the next session is another norm.
func TestHumanSession(t *testing.T) {
	e := newEnv(t, withSessions(nil))
	p := "person-0001"
	// The assignment names no visit outside rooms.
	st, b, _ := e.do("POST", "/api/assign", api.AssignRequest{Participant: p})
	if st != 200 || strings.Contains(string(b), "visit") || !strings.Contains(string(b), `"sealed":true`) {
		t.Fatalf("POST /api/assign: %d %s, want no visit and sealed", st, b)
	}
	e.open(api.SessionRequest{Participant: p}, http.StatusBadRequest) // no consent
	s := e.open(api.SessionRequest{Participant: p, Consent: true, ConsentVersion: server.ConsentVersion}, http.StatusCreated)
	visit := e.sessionVisit(p)
	if !session.SealedVisit(visit) {
		t.Fatalf("a person's visit %s has a public seed", visit)
	}
	leak := secrets(t, visit)
	raw, _ := json.Marshal(s)
	noLeak(t, raw, leak)
	noLeak(t, b, leak)
	if !s.Sealed || s.Visit != "" || s.Stage != api.StagePlay || s.Kind != api.KindHuman || !session.ValidToken(s.Session) {
		t.Fatalf("opened %+v", s)
	}
	token := s.Session
	// Play 20 steps, then "reload": the page resumes with its token.
	s = e.playSession(token, s, leak, func(s api.SessionState) bool { return s.Actions == 20 })
	st, b = e.sessionDo("GET", "/api/session", token, nil)
	r := decodeState(t, b)
	if st != 200 || r.Actions != 20 || r.Day != s.Day || r.Step != s.Step || string(r.Observation) != string(s.Observation) {
		t.Fatalf("after a reload: %d at %d actions (day %d step %d), want 200 at 20 (day %d step %d)", st, r.Actions, r.Day, r.Step, s.Day, s.Step)
	}
	noLeak(t, b, leak)
	// The pseudonym alone reopens nothing (it is no credential).
	e.open(api.SessionRequest{Participant: p, Consent: true}, http.StatusConflict)
	// Its trail holds the 20 actions and the events seen.
	st, b = e.sessionDo("GET", "/api/session/trail", token, nil)
	var trail api.SessionTrail
	if json.Unmarshal(b, &trail); st != 200 || len(trail.Actions) != 20 {
		t.Fatalf("trail: %d %s", st, b)
	}
	noLeak(t, b, leak)
	s = e.playSession(token, r, leak, nil)
	if !s.Over {
		t.Fatalf("not over: %+v", s)
	}
	control := strings.Contains(visit, "/control/")
	if !control {
		if s.Stage != api.StageProbe || s.Probe == nil || len(s.Probe.Options) != 4 {
			t.Fatalf("at the end: %+v", s)
		}
		// Actions after the end are refused.
		if st, b := e.sessionDo("POST", "/api/session/step", token, api.SessionStep{Action: "wait"}); st != http.StatusConflict {
			t.Errorf("a step after the end: %d %s", st, b)
		}
		if st, b := e.sessionDo("POST", "/api/session/answer", token, api.SessionAnswer{Answer: 7}); st != http.StatusBadRequest {
			t.Errorf("answer 7: %d %s", st, b)
		}
		st, b = e.sessionDo("POST", "/api/session/answer", token, api.SessionAnswer{Answer: 1})
		if st != http.StatusOK {
			t.Fatalf("answer: %d %s", st, b)
		}
		s = decodeState(t, b)
	}
	if s.Stage != api.StageDone || s.Result == nil || s.Result.RunID == "" || s.Result.Provenance != api.ProvenanceStepped || s.Visit != visit {
		t.Fatalf("done: %+v", s)
	}
	run, err := e.store.Run(t.Context(), s.Result.RunID)
	if err != nil || run.Provenance != api.ProvenanceStepped || run.Record.Client != "human" || run.Participant != p || run.Verifier != "wasm" {
		t.Fatalf("stored run %+v: %v", run, err)
	}
	if run.Record.Hash != s.Result.Hash {
		t.Errorf("stored hash %s, answered %s", run.Record.Hash, s.Result.Hash)
	}
	// The record replays natively to the same hash.
	if env, err := sim.Replay(run.Record); err != nil || env.Hash() != run.Record.Hash {
		t.Errorf("replay of the stored record: %v", err)
	}
	var lb api.Leaderboard
	e.getJSON("/api/leaderboard?suite=standard", &lb)
	if len(lb.Agents) != 1 || lb.Agents[0].Client != "human" || lb.Agents[0].Provenance != api.ProvenanceStepped || lb.Agents[0].Visits != 1 {
		t.Errorf("leaderboard: %+v", lb.Agents)
	}
	// The next session is another visit, of another norm.
	n := e.open(api.SessionRequest{Participant: p, Consent: true}, http.StatusCreated)
	if n.Resumed || e.sessionVisit(p) == visit {
		t.Errorf("the next session resumed %v on %s", n.Resumed, e.sessionVisit(p))
	}
	if id1, id2 := mustID(t, visit), mustID(t, e.sessionVisit(p)); id1.Norm == id2.Norm {
		t.Errorf("the next session has the same norm %s", id1.Norm)
	}
}

// suiteVisit returns the first visit of a suite under a condition ("":
// any).
func suiteVisit(t testing.TB, suite, condition string) string {
	t.Helper()
	su, err := sim.LookupSuite(suite)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range su.Visits {
		if condition == "" || mustID(t, v).Condition == condition {
			return v
		}
	}
	t.Fatalf("no %s visit in %s", condition, suite)
	return ""
}

func mustID(t testing.TB, v string) sim.VisitID {
	id, err := sim.ParseVisitID(v)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestSessionSurvivesRestart: a new server on the same database (as after
// kill -9: the actions are in the store) goes on where the session was.
func TestSessionSurvivesRestart(t *testing.T) {
	var key string
	e := newEnv(t, withSessions(&key))
	s := e.open(api.SessionRequest{Visit: suiteVisit(t, "standard", "")}, http.StatusCreated, "Authorization", "Bearer "+key)
	if s.Sealed || s.Visit == "" || s.Kind != api.KindPractice {
		t.Fatalf("a key's chosen visit (practice): %+v", s)
	}
	token := s.Session
	s = e.playSession(token, s, nil, func(s api.SessionState) bool { return s.Actions == 30 })
	// A second server on the same store, as after a restart.
	e2 := newEnv(t, withSessions(nil), func(o *server.Options) { o.Store = e.store })
	st, b := e2.sessionDo("GET", "/api/session", token, nil)
	r := decodeState(t, b)
	if st != 200 || r.Actions != 30 || string(r.Observation) != string(s.Observation) || r.Text != s.Text {
		t.Fatalf("after a restart: %d, %d actions (want 30), same observation %v", st, r.Actions, string(r.Observation) == string(s.Observation))
	}
}

// TestSessionHostile: the hostile cases of issue 11.
func TestSessionHostile(t *testing.T) {
	var key string
	e := newEnv(t, withSessions(&key))
	visit := suiteVisit(t, "standard", "observe")
	t.Run("oracle record as human", func(t *testing.T) {
		rec := record(t, visit, "oracle", "human")
		st, b, _ := e.do("POST", "/api/runs", submission(rec, "person-0002"))
		if st != http.StatusForbidden {
			t.Errorf("%d %s, want 403", st, b)
		}
	})
	t.Run("baseline claim", func(t *testing.T) {
		rec := record(t, visit, "greedy", "baseline")
		rec.Client, rec.Agent = "baseline", "oracle"
		st, b, _ := e.do("POST", "/api/runs", submission(rec, ""))
		if st != http.StatusForbidden {
			t.Errorf("%d %s, want 403", st, b)
		}
	})
	t.Run("model without key is self-reported", func(t *testing.T) {
		rec := record(t, visit, "oracle", "baseline")
		rec.Client, rec.Agent = "model", "model-a" // the key's label, claimed without the key
		e.mustSubmit(submission(rec, ""))
		var lb api.Leaderboard
		e.getJSON("/api/leaderboard?suite=standard", &lb)
		for _, a := range lb.Agents {
			if a.Agent == "model-a" && a.Provenance != api.ProvenanceSelfReported {
				t.Errorf("the submitted model line shows provenance %q", a.Provenance)
			}
		}
	})
	t.Run("keyed sessions", func(t *testing.T) {
		auth := []string{"Authorization", "Bearer " + key}
		// A key that names its visit practises: nothing is stored.
		control := suiteVisit(t, "standard", "control")
		p := e.open(api.SessionRequest{Visit: control}, http.StatusCreated, auth...)
		if p = e.finishSession(p.Session, p); p.Kind != api.KindPractice || p.Result.RunID != "" {
			t.Fatalf("a key's named visit: kind %s, run %q, want practice and no run", p.Kind, p.Result.RunID)
		}
		// A key's suite session is sealed on a secret seed of a suite cell;
		// opening it again (the key is a credential) resumes it.
		s := e.open(api.SessionRequest{Suite: "standard"}, http.StatusCreated, auth...)
		visit := e.sessionVisit("model:model-a")
		if !s.Sealed || s.Visit != "" || s.Kind != api.KindModel || !session.SealedVisit(visit) || session.Cell(visit) != session.Cell(keyOrder(t, "standard")[0]) {
			t.Fatalf("a key's suite session: %+v on %s, want sealed on the cell of the first visit of standard's stratified order", s, visit)
		}
		if again := e.open(api.SessionRequest{Suite: "standard"}, http.StatusOK, auth...); !again.Resumed {
			t.Errorf("opening the key's open session again: %+v, want it resumed", again)
		} else {
			s = again
		}
		s = e.finishSession(s.Session, s)
		if s.Result == nil || s.Result.RunID == "" || s.Visit != visit {
			t.Fatalf("the key's sealed session: %+v", s)
		}
		// The key's run is server-stepped, under the key's label.
		var lb api.Leaderboard
		e.getJSON("/api/leaderboard?suite=standard", &lb)
		found := false
		for _, a := range lb.Agents {
			found = found || a.Agent == "model-a" && a.Provenance == api.ProvenanceStepped && a.Client == "model"
		}
		if !found {
			t.Errorf("no server-stepped model-a row: %+v", lb.Agents)
		}
		// The next one is the order's next cell, sealed anew.
		n := e.open(api.SessionRequest{Suite: "standard"}, http.StatusCreated, auth...)
		if next := e.sessionVisit("model:model-a"); n.Resumed || next == visit || session.Cell(next) != session.Cell(keyOrder(t, "standard")[1]) {
			t.Errorf("the key's next session: %s, want the cell of the order's second visit", next)
		}
	})
	t.Run("unknown key", func(t *testing.T) {
		e.open(api.SessionRequest{Visit: visit}, http.StatusUnauthorized, "Authorization", "Bearer ngk_nothing")
	})
	t.Run("person chooses a visit", func(t *testing.T) {
		e.open(api.SessionRequest{Participant: "person-0003", Consent: true, Visit: visit}, http.StatusBadRequest)
	})
	t.Run("expired", func(t *testing.T) {
		s := e.open(api.SessionRequest{Visit: visit}, http.StatusCreated)
		e.mu.Lock()
		e.now = e.now.Add(session.DefaultTTL + time.Minute)
		e.mu.Unlock()
		if st, b := e.sessionDo("POST", "/api/session/step", s.Session, api.SessionStep{Action: "wait"}); st != http.StatusGone {
			t.Errorf("a step after the expiry: %d %s", st, b)
		}
	})
	t.Run("bad token", func(t *testing.T) {
		for _, tok := range []string{"", "sess_x", "sess_" + strings.Repeat("A", 43)} {
			if st, b := e.sessionDo("GET", "/api/session", tok, nil); st != http.StatusUnauthorized && st != http.StatusNotFound {
				t.Errorf("token %q: %d %s", tok, st, b)
			}
		}
	})
}

// TestServerBaselines: the server computes the baseline rows itself
// (provenance server, shown on the leaderboard), once.
func TestServerBaselines(t *testing.T) {
	e := newEnv(t, withSessions(nil))
	n, err := e.srv.ComputeBaselines(t.Context(), []string{"mini"}, nil)
	mini, _ := sim.LookupSuite("mini")
	if want := len(mini.Visits) * len(agents.Names()); err != nil || n != want {
		t.Fatalf("computed %d runs (%v), want %d", n, err, want)
	}
	if n, err := e.srv.ComputeBaselines(t.Context(), []string{"mini"}, nil); err != nil || n != 0 {
		t.Errorf("computed %d runs again (%v), want 0", n, err)
	}
	var lb api.Leaderboard
	e.getJSON("/api/leaderboard?suite=mini", &lb)
	if len(lb.Agents) != len(agents.Names()) {
		t.Fatalf("%d rows, want %d", len(lb.Agents), len(agents.Names()))
	}
	for _, a := range lb.Agents {
		if a.Client != "baseline" || a.Provenance != api.ProvenanceServer || a.Visits != len(mini.Visits) {
			t.Errorf("row %s: client %s provenance %s, %d runs", a.Agent, a.Client, a.Provenance, a.Visits)
		}
	}
	// Their records replay in sim.wasm.
	runs, err := e.store.Runs(t.Context(), domain.RunFilter{Limit: 20})
	if err != nil || len(runs) == 0 {
		t.Fatal(err)
	}
	for _, run := range runs {
		if res, err := rt.Replay(t.Context(), run.Record); err != nil || !res.Match {
			t.Errorf("%s %s: %v %v", run.Record.Agent, run.Record.Visit, err, res.Diffs)
		}
	}
}

// TestSessionLimits: the session routes have their route-table bounds:
// the step rate limit (HTTP and WebSocket), a body bound of 1 KiB, strict
// JSON.
func TestSessionLimits(t *testing.T) {
	e := newEnv(t, withSessions(nil), func(o *server.Options) {
		o.Limiter = limit.NewBuckets(map[string]limit.Rate{server.ClassStep: {Every: time.Minute, Burst: 4}}, nil)
	})
	s := e.open(api.SessionRequest{Visit: suiteVisit(t, "mini", "observe")}, http.StatusCreated)
	for _, tc := range []struct {
		name   string
		body   string
		status int
	}{
		{"duplicate key", `{"action":"north","action":"west"}`, 400},
		{"unknown field", `{"action":"north","score":1}`, 400},
		{"too large", `{"action":"` + strings.Repeat("n", 2000) + `"}`, 413},
		{"bad action", `{"action":"fly"}`, 400},
	} {
		if st, b := e.sessionDo("POST", "/api/session/step", s.Session, tc.body); st != tc.status {
			t.Errorf("%s: %d %s, want %d", tc.name, st, b, tc.status)
		}
	}
	// The burst of 4 is spent by now: a step is refused with Retry-After.
	st, b, h := e.do("POST", "/api/session/step", api.SessionStep{Action: "north"}, "Authorization", "Bearer "+s.Session)
	if st != http.StatusTooManyRequests || h.Get("Retry-After") == "" {
		t.Errorf("a step over the limit: %d %s", st, b)
	}
	// So is a WebSocket step.
	c, _, err := websocket.Dial(t.Context(), "ws"+strings.TrimPrefix(e.http.URL, "http")+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	wsCall(t, c, `{"type":"reset","data":{"session_id":"`+s.Session+`"}}`)
	if typ, data := wsCall(t, c, `{"type":"step","data":{"action":"north"}}`); typ != "error" || data["code"] != "CAPACITY_REACHED" || data["status"] != 429.0 {
		t.Errorf("a WebSocket step over the limit: %s %v", typ, data)
	}
}

// TestSessionsBeyondCapacity opens more sessions than sim.wasm can hold
// open (one instance: 256 visits) and steps each: the server keeps at
// most SessionsLive of them in memory, as normgym serve sets it, and
// rebuilds the others when they act, so none is refused.
func TestSessionsBeyondCapacity(t *testing.T) {
	small, err := host.New(context.Background(), simwasm.Bytes(), host.Options{MaxInstances: 1, Uninterruptible: true})
	if err != nil {
		t.Fatal(err)
	}
	defer small.Close(context.Background())
	e := newEnv(t, func(o *server.Options) { o.Engine, o.SessionsLive = session.Wasm(small), small.Capacity()/2 })
	n := small.Capacity() + 44
	tokens := make([]string, n)
	for i := range tokens {
		seed := i
		s := e.open(api.SessionRequest{Suite: "standard", Seed: &seed}, http.StatusCreated)
		tokens[i] = s.Session
	}
	for i, tok := range tokens {
		if st, b := e.sessionDo("POST", "/api/session/step", tok, api.SessionStep{Action: "wait"}); st != 200 {
			t.Fatalf("step of session %d of %d: %d %s", i, n, st, b)
		}
	}
	// The first ones were evicted: they come back from the store.
	st, b := e.sessionDo("GET", "/api/session", tokens[0], nil)
	if r := decodeState(t, b); st != 200 || r.Actions != 1 {
		t.Fatalf("the first session after %d others: %d, %d actions", n-1, st, r.Actions)
	}
}

// keyOrder is the order in which a submitter key's sealed sessions of a
// suite get their cells: the suite's stratified order (seed 0).
func keyOrder(t testing.TB, suite string) []string {
	t.Helper()
	su, err := sim.LookupSuite(suite)
	if err != nil {
		t.Fatal(err)
	}
	return sim.Stratified(su.Visits, 0)
}
