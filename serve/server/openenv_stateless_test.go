package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/sim"
)

// envRes is OpenEnv's result as a client reads it.
type envRes struct {
	Observation struct {
		Text   string             `json:"text"`
		Stage  string             `json:"stage"`
		Probe  *api.Probe         `json:"probe"`
		Result *api.SessionResult `json:"result"`
		Visit  string             `json:"visit"`
	} `json:"observation"`
	Reward   *float64       `json:"reward"`
	Done     bool           `json:"done"`
	Metadata map[string]any `json:"metadata"`
}

// post sends body to path and decodes OpenEnv's result (status checked).
func (e *env) envPost(path string, body any, want int) envRes {
	e.t.Helper()
	st, b, _ := e.do("POST", path, body)
	if st != want {
		e.t.Fatalf("POST %s %v: %d %s, want %d", path, body, st, b, want)
	}
	var r envRes
	if st == http.StatusOK {
		if err := json.Unmarshal(b, &r); err != nil {
			e.t.Fatalf("POST %s: %v in %s", path, err, b)
		}
	}
	return r
}

// TestOpenEnvSeeds: a reset's seed draws from the suite in its stratified
// order: seeds 0..9 of standard give ten different norms, a seed gives
// the same visit every time, over HTTP and /ws alike.
func TestOpenEnvSeeds(t *testing.T) {
	e := newEnv(t, withSessions(nil))
	norms := map[string]int{}
	for k := range 10 {
		r := e.envPost("/reset", map[string]any{"suite": "standard", "seed": k}, http.StatusOK)
		v, _ := r.Metadata["visit"].(string)
		id, err := sim.ParseVisitID(v)
		if err != nil {
			t.Fatalf("seed %d: visit %q: %v", k, v, err)
		}
		if j, ok := norms[id.Norm]; ok {
			t.Errorf("seeds %d and %d both give norm %s", j, k, id.Norm)
		}
		norms[id.Norm] = k
		if again := e.envPost("/reset", map[string]any{"suite": "standard", "seed": k}, http.StatusOK); again.Metadata["visit"] != v {
			t.Errorf("seed %d: %s, then %v", k, v, again.Metadata["visit"])
		}
		if _, ok := r.Metadata["session_id"]; ok || r.Reward != nil || r.Done {
			t.Errorf("a stateless reset: %+v", r)
		}
	}
	// The default suite is train; a seed past the suite wraps.
	train, _ := sim.LookupSuite("train")
	order := sim.Stratified(train.Visits, 0)
	for _, k := range []int{0, 5, len(order) + 5} {
		if r := e.envPost("/reset", map[string]any{"seed": k}, http.StatusOK); r.Metadata["visit"] != order[k%len(order)] {
			t.Errorf("seed %d: %v, want %s", k, r.Metadata["visit"], order[k%len(order)])
		}
	}
}

// TestOpenEnvStateless plays a whole visit with OpenEnv's stateless
// /step: each request names the visit and the actions before, and the
// server answers from a fresh environment; the trajectory hash is the
// sim's, the last reward the joint success, and nothing needs a session.
func TestOpenEnvStateless(t *testing.T) {
	e := newEnv(t, withSessions(nil))
	visit := suiteVisit(t, "mini", "observe")
	first := e.envPost("/reset", map[string]any{"visit": visit, "episode_id": "free-1"}, http.StatusOK)
	if first.Observation.Stage != api.StagePlay || first.Metadata["episode_id"] != "free-1" || first.Metadata["session_id"] != nil {
		t.Fatalf("stateless reset: %+v", first)
	}
	var history []string
	r := first
	for r.Observation.Stage == api.StagePlay {
		a := []string{"north", "east", "wait", "pick"}[len(history)%4]
		r = e.envPost("/step", map[string]any{"action": map[string]any{"action": a}, "visit": visit, "history": history}, http.StatusOK)
		history = append(history, a)
		if r.Reward == nil || (*r.Reward != 0 && !r.Done) || r.Metadata["session_id"] != nil {
			t.Fatalf("step %d: reward %v metadata %v", len(history), r.Reward, r.Metadata)
		}
		if !r.Done && strings.Contains(r.Observation.Text, visit) {
			t.Fatalf("step %d names the visit", len(history))
		}
	}
	if r.Observation.Stage != api.StageProbe {
		t.Fatalf("after %d actions: stage %s", len(history), r.Observation.Stage)
	}
	end := e.envPost("/step", map[string]any{"action": map[string]any{"answer": 1}, "visit": visit, "history": history}, http.StatusOK)
	res := end.Observation.Result
	if !end.Done || res == nil || end.Observation.Visit != visit || end.Metadata["probe_correct"] != *res.ProbeCorrect || (*end.Reward == 1) != res.Scores.Joint {
		t.Fatalf("the answer: %+v", end)
	}
	env, err := sim.Replay(sim.Record{Visit: visit, Actions: history})
	if err != nil || env.Hash() != res.Hash {
		t.Errorf("hash %s, want the sim's (%v)", res.Hash, err)
	}
	for _, tc := range []struct {
		name string
		body map[string]any
		want int
	}{
		{"a step on the default fresh environment", map[string]any{"action": map[string]any{"action": "wait"}}, http.StatusOK},
		{"history past the end", map[string]any{"action": map[string]any{"action": "wait"}, "visit": visit, "history": append(history, "wait")}, http.StatusBadRequest},
		{"a step after the end", map[string]any{"action": map[string]any{"action": "wait"}, "visit": visit, "history": history}, http.StatusConflict},
		{"an answer before the end", map[string]any{"action": map[string]any{"answer": 0}, "visit": visit}, http.StatusConflict},
		{"a bad action in history", map[string]any{"action": map[string]any{"action": "wait"}, "visit": visit, "history": []string{"fly"}}, http.StatusBadRequest},
		{"visit and seed", map[string]any{"action": map[string]any{"action": "wait"}, "visit": visit, "seed": 2}, http.StatusBadRequest},
		{"a sealed seed", map[string]any{"action": map[string]any{"action": "wait"}, "visit": "orchard/none/control/s9999999999"}, http.StatusBadRequest},
		{"a session's step with history", map[string]any{"action": map[string]any{"action": "wait"}, "session_id": "sess_" + strings.Repeat("a", 43), "history": []string{"wait"}}, http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.envPost("/step", tc.body, tc.want)
		})
	}
}

// TestOpenEnvStatelessRefusesKeys: a key's or a person's reset is stored,
// so over HTTP it takes "session": true; with it the key's sealed session
// opens and its state echoes the episode_id.
func TestOpenEnvStatelessRefusesKeys(t *testing.T) {
	var key string
	e := newEnv(t, withSessions(&key))
	e.envPost("/reset", map[string]any{"suite": "mini", "key": key}, http.StatusBadRequest)
	st, b, _ := e.do("POST", "/reset", map[string]any{"suite": "mini"}, "Authorization", "Bearer "+key)
	if st != http.StatusBadRequest {
		t.Errorf("a stateless reset with the key as a bearer: %d %s", st, b)
	}
	r := e.envPost("/reset", map[string]any{"suite": "mini", "key": key, "session": true, "episode_id": "run-7/visit-1"}, http.StatusOK)
	token, _ := r.Metadata["session_id"].(string)
	if r.Metadata["sealed"] != true || token == "" || r.Metadata["visit"] != nil || r.Metadata["episode_id"] != "run-7/visit-1" {
		t.Fatalf("a key's session: %v", r.Metadata)
	}
	var state map[string]any
	e.getJSON("/state?session_id="+token, &state)
	if state["episode_id"] != "run-7/visit-1" || state["sealed"] != true || state["visit"] != nil {
		t.Errorf("state %v", state)
	}
}
