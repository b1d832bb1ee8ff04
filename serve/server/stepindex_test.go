package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/coder/websocket"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/server"
)

// indexedStep is a step body with its expected index.
func indexedStep(action string, index int) string {
	return fmt.Sprintf(`{"action":%q,"index":%d}`, action, index)
}

// conflictAt decodes a 409 answer and returns the session's action count
// it names.
func conflictAt(t *testing.T, st int, b []byte) int {
	t.Helper()
	var d struct {
		Code    api.Code `json:"code"`
		Error   string   `json:"error"`
		Actions *int     `json:"actions"`
	}
	if err := json.Unmarshal(b, &d); err != nil || st != http.StatusConflict || d.Code != api.CodeConflict || d.Actions == nil {
		t.Fatalf("%d %s, want 409 conflict with the session's actions", st, b)
	}
	return *d.Actions
}

// TestStepIndex: a step carries the number of actions taken before it. A
// step sent again with the same index (a retry after a lost answer) is
// applied once and answered as the first time, also after the session
// was rebuilt from the store; an index behind or ahead of the session is a
// 409 that says how many actions it has; over /ws and OpenEnv's /step too.
func TestStepIndex(t *testing.T) {
	e := newEnv(t, withSessions(nil))
	s := e.open(api.SessionRequest{Visit: suiteVisit(t, "mini", "observe")}, http.StatusCreated)
	tok := s.Session
	st, first := e.sessionDo("POST", "/api/session/step", tok, indexedStep("north", 0))
	if st != http.StatusOK || decodeState(t, first).Actions != 1 {
		t.Fatalf("step 0: %d %s", st, first)
	}
	st, again := e.sessionDo("POST", "/api/session/step", tok, indexedStep("north", 0))
	if st != http.StatusOK || string(again) != string(first) {
		t.Fatalf("step 0 again: %d, the same answer %v", st, string(again) == string(first))
	}
	for _, tc := range []struct {
		name, body string
	}{
		{"another action at a taken index", indexedStep("west", 0)},
		{"ahead", indexedStep("west", 5)},
	} {
		st, b := e.sessionDo("POST", "/api/session/step", tok, tc.body)
		if n := conflictAt(t, st, b); n != 1 {
			t.Errorf("%s: the answer says %d actions, want 1", tc.name, n)
		}
	}
	if st, b := e.sessionDo("POST", "/api/session/step", tok, indexedStep("west", -1)); st != http.StatusBadRequest {
		t.Errorf("a negative index: %d %s, want 400", st, b)
	}
	for k := 1; k < 60; k++ {
		if st, b := e.sessionDo("POST", "/api/session/step", tok, indexedStep("wait", k)); st != http.StatusOK {
			t.Fatalf("step %d: %d %s", k, st, b)
		}
	}
	// Step 59 ended the practice day: its retry says so again.
	st, dayEnd := e.sessionDo("POST", "/api/session/step", tok, indexedStep("wait", 59))
	if r := decodeState(t, dayEnd); st != http.StatusOK || !r.DayOver || r.Ended == nil || r.Ended.Day != 1 || r.Actions != 60 {
		t.Fatalf("the day's last step again: %d %s", st, dayEnd)
	}
	st, b := e.sessionDo("POST", "/api/session/step", tok, indexedStep("north", 0))
	if n := conflictAt(t, st, b); n != 60 || !strings.Contains(string(b), "60") {
		t.Errorf("a step far behind: %s", b)
	}
	// A server that rebuilds the session from the store answers the retry
	// as the first server did.
	e2 := newEnv(t, withSessions(nil), func(o *server.Options) { o.Store = e.store })
	if st, b := e2.sessionDo("POST", "/api/session/step", tok, indexedStep("wait", 59)); st != http.StatusOK || string(b) != string(dayEnd) {
		t.Errorf("the retry after a rebuild: %d\n%s\nwant\n%s", st, b, dayEnd)
	}
	st, trail := e2.sessionDo("GET", "/api/session/trail", tok, nil)
	var tr api.SessionTrail
	if json.Unmarshal(trail, &tr); st != http.StatusOK || len(tr.Actions) != 60 {
		t.Errorf("%d actions stored after the retries, want 60", len(tr.Actions))
	}

	// /ws: a step carries its index in the action's data.
	c, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(e2.http.URL, "http")+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	wsCall(t, c, `{"type":"reset","data":{"session_id":"`+tok+`"}}`)
	typ, d1 := wsCall(t, c, `{"type":"step","data":{"action":"north","index":60}}`)
	typ2, d2 := wsCall(t, c, `{"type":"step","data":{"action":"north","index":60}}`)
	o1, _ := json.Marshal(d1)
	o2, _ := json.Marshal(d2)
	if typ != "observation" || typ2 != "observation" || string(o1) != string(o2) {
		t.Errorf("a /ws step and its retry: %s %s / %s %s", typ, o1, typ2, o2)
	}
	if typ, d := wsCall(t, c, `{"type":"step","data":{"action":"north","index":7}}`); typ != "error" || d["status"] != 409.0 || d["actions"] != 61.0 {
		t.Errorf("a stale /ws step: %s %v, want an error with status 409 and actions 61", typ, d)
	}
	// OpenEnv's HTTP /step: the same.
	body := `{"session_id":"` + tok + `","action":{"action":"east","index":61}}`
	st1, b1, _ := e2.do("POST", "/step", body)
	st2, b2, _ := e2.do("POST", "/step", body)
	if st1 != http.StatusOK || st2 != http.StatusOK || string(b1) != string(b2) {
		t.Errorf("POST /step and its retry: %d %d, same %v: %s", st1, st2, string(b1) == string(b2), b2)
	}
	st, b, _ = e2.do("POST", "/step", `{"session_id":"`+tok+`","action":{"action":"east","index":99}}`)
	if n := conflictAt(t, st, b); n != 62 {
		t.Errorf("POST /step ahead: the answer says %d actions, want 62", n)
	}
}
