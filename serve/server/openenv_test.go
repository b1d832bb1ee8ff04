package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/sim"
)

// wsCall sends one OpenEnv message and returns the reply's type and data.
func wsCall(t *testing.T, c *websocket.Conn, msg string) (string, map[string]any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := c.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
		t.Fatal(err)
	}
	_, b, err := c.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var reply struct {
		Type string         `json:"type"`
		Data map[string]any `json:"data"`
	}
	if err := json.Unmarshal(b, &reply); err != nil {
		t.Fatalf("%v in %s", err, b)
	}
	return reply.Type, reply.Data
}

// TestOpenEnv exercises OpenEnv's routes: the WebSocket session's
// messages and errors, and /health, /metadata, /schema, /reset, /step and
// /state over HTTP, on one practice session.
func TestOpenEnv(t *testing.T) {
	e := newEnv(t, withSessions(nil))
	url := "ws" + strings.TrimPrefix(e.http.URL, "http") + "/ws"
	c, _, err := websocket.Dial(context.Background(), url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	// Before a reset, the state is a fresh environment's (OpenEnv's).
	if typ, data := wsCall(t, c, `{"type":"state"}`); typ != "state" || data["episode_id"] != nil || data["step_count"] != 0.0 {
		t.Errorf("state before a reset: %s %v, want a fresh environment's", typ, data)
	}
	for _, tc := range []struct{ msg, code string }{
		{`{"type":"step","data":{"action":"north"}}`, "SESSION_ERROR"},
		{`{"type":"dance"}`, "UNKNOWN_TYPE"},
		{`{"type":`, "INVALID_JSON"},
		{`{"type":"reset","data":{"visit":"moon/none/control/s1"}}`, "SESSION_ERROR"},
		{`{"type":"reset","data":{"vist":"x"}}`, "VALIDATION_ERROR"},
	} {
		typ, data := wsCall(t, c, tc.msg)
		if typ != "error" || data["code"] != tc.code || data["message"] == "" {
			t.Errorf("%s: %s %v, want error %s", tc.msg, typ, data, tc.code)
		}
	}
	visit := suiteVisit(t, "mini", "observe")
	typ, data := wsCall(t, c, `{"type":"reset","data":{"visit":"`+visit+`","episode_id":"episode-001"}}`)
	if typ != "observation" || data["done"] != false || data["reward"] != nil {
		t.Fatalf("reset: %s %v", typ, data)
	}
	obs := data["observation"].(map[string]any)
	meta := data["metadata"].(map[string]any)
	token, _ := meta["session_id"].(string)
	if obs["stage"] != api.StagePlay || !strings.Contains(obs["text"].(string), "Day 1") || obs["json"] == nil || token == "" || meta["episode_id"] != "episode-001" {
		t.Fatalf("reset observation: %v %v", obs["stage"], meta)
	}
	typ, data = wsCall(t, c, `{"type":"step","data":{"action":"fly"}}`)
	if typ != "error" || data["code"] != "EXECUTION_ERROR" || data["status"] != float64(400) {
		t.Errorf("a bad action: %s %v", typ, data)
	}
	for _, msg := range []string{`{"type":"step","data":{"action":"north","answer":1}}`, `{"type":"step"}`, `{"type":"step","data":{"move":"north"}}`} {
		if typ, data = wsCall(t, c, msg); typ != "error" || data["code"] != "VALIDATION_ERROR" {
			t.Errorf("%s: %s %v, want VALIDATION_ERROR", msg, typ, data)
		}
	}
	if typ, data = wsCall(t, c, `{"type":"reset","data":{"seed":-1}}`); typ != "error" || data["code"] != "SESSION_ERROR" {
		t.Errorf("a negative seed: %s %v", typ, data)
	}
	typ, data = wsCall(t, c, `{"type":"step","data":{"action":"north"}}`)
	if typ != "observation" || data["reward"] != 0.0 || data["done"] != false {
		t.Fatalf("step: %s %v", typ, data)
	}
	typ, data = wsCall(t, c, `{"type":"state"}`)
	if typ != "state" || data["episode_id"] != "episode-001" || data["step_count"] != 1.0 {
		t.Fatalf("state: %s %v, want episode-001 after one step", typ, data)
	}
	// close: the server ends the connection without a reply (as OpenEnv's).
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Write(ctx, websocket.MessageText, []byte(`{"type":"close"}`)); err != nil {
		t.Fatal(err)
	}
	if _, b, err := c.Read(ctx); websocket.CloseStatus(err) != websocket.StatusNormalClosure {
		t.Errorf("after close: %q %v, want the connection closed normally", b, err)
	}

	// HTTP: the same session, resumed with session_id, played to the end.
	for _, p := range []string{"/health", "/metadata", "/schema"} {
		var v map[string]any
		e.getJSON(p, &v)
		if len(v) == 0 {
			t.Errorf("GET %s: empty", p)
		}
	}
	var res struct {
		Observation struct {
			Stage  string             `json:"stage"`
			JSON   json.RawMessage    `json:"json"`
			Probe  *api.Probe         `json:"probe"`
			Result *api.SessionResult `json:"result"`
		} `json:"observation"`
		Reward   *float64       `json:"reward"`
		Done     bool           `json:"done"`
		Metadata map[string]any `json:"metadata"`
	}
	st, b, _ := e.do("POST", "/reset", map[string]any{"session_id": token, "episode_id": "episode-002"})
	if st != 200 || json.Unmarshal(b, &res) != nil || res.Metadata["session_id"] != token || res.Metadata["episode_id"] != "episode-002" {
		t.Fatalf("POST /reset with session_id: %d %s", st, b)
	}
	actions := []string{"north"}
	for !res.Done {
		action := map[string]any{"action": "wait"}
		if res.Observation.Stage == api.StageProbe {
			action = map[string]any{"answer": 0}
		} else {
			actions = append(actions, "wait")
		}
		st, b, _ = e.do("POST", "/step", map[string]any{"action": action, "session_id": token})
		res.Observation.Result = nil
		if st != 200 || json.Unmarshal(b, &res) != nil {
			t.Fatalf("POST /step: %d %s", st, b)
		}
	}
	r := res.Observation.Result
	if r == nil || res.Reward == nil || (*res.Reward == 1) != r.Scores.Joint || r.RunID != "" {
		t.Fatalf("the end: reward %v result %+v", res.Reward, r)
	}
	if r.ProbeCorrect == nil || res.Metadata["probe_correct"] != *r.ProbeCorrect || res.Metadata["joint"] != r.Scores.Joint {
		t.Errorf("the final metadata %v: want probe_correct and joint", res.Metadata)
	}
	env, err := sim.Replay(sim.Record{Visit: visit, Actions: actions})
	if err != nil || env.Hash() != r.Hash {
		t.Errorf("hash %s, want the sim's %v (%v)", r.Hash, env, err)
	}
	var state map[string]any
	e.getJSON("/state?session_id="+token, &state)
	if state["stage"] != api.StageDone || state["step_count"] != float64(len(actions)) || state["episode_id"] != "episode-002" {
		t.Errorf("state: %v", state)
	}
	// Without a session, OpenEnv's stateless /state: a fresh environment.
	state = nil
	e.getJSON("/state", &state)
	if len(state) != 2 || state["episode_id"] != nil || state["step_count"] != 0.0 {
		t.Errorf("GET /state without a session: %v, want {episode_id: null, step_count: 0}", state)
	}
	if st, b, _ := e.do("GET", "/state?session_id=nope", nil); st != http.StatusBadRequest {
		t.Errorf("GET /state with a bad session_id: %d %s", st, b)
	}
}
