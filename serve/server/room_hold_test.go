package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/normgym/normgym/serve/api"
)

// TestRoomHold plays a student's sealed visit in two kinds of room. In a
// room where everyone plays the same visit, no answer to the student after
// the probe — the answer's own, GET /api/session, its trail, OpenEnv's
// /state, GET /api/runs, POST /api/assign, the public room view — names
// the visit, its norm or its rule, or says whether the answer was right,
// until the teacher opens the reveal; from then on the session's state
// and the runs do (and the reveal keeps its first time). In a room of
// different visits each student's own result comes at once.
func TestRoomHold(t *testing.T) {
	for _, tc := range []struct {
		name string
		same bool
	}{
		{"same visit: held until the reveal", true},
		{"a visit each: shown at once", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, withSessions(nil))
			var room api.RoomCreated
			st, b, _ := e.do("POST", "/api/rooms", api.RoomRequest{Suite: "mini", SameVisit: tc.same})
			if st != http.StatusCreated || json.Unmarshal(b, &room) != nil {
				t.Fatalf("creating a room: %d %s", st, b)
			}
			const p = "hold-student-0001"
			e.join(room.Code, p, "Blue Fox", http.StatusOK)
			open := e.open(api.SessionRequest{Participant: p, Consent: true, Room: room.Code}, http.StatusCreated)
			token := open.Session
			visit := e.sessionVisit(p)
			// The visit's id, its norm's id, rule and statement (not its
			// condition: the public room view names the tutorial's).
			leak := secrets(t, visit)
			leak = append(leak[:1:1], leak[2:]...)
			done := e.finishSession(token, open)

			// Every answer to the student after the probe.
			answers := map[string][]byte{}
			add := func(name string, st int, b []byte) {
				t.Helper()
				if st != http.StatusOK {
					t.Fatalf("%s: %d %s", name, st, b)
				}
				answers[name] = b
			}
			answer := func() {
				st, b := e.sessionDo("GET", "/api/session", token, nil)
				add("GET /api/session", st, b)
				st, b = e.sessionDo("GET", "/api/session/trail", token, nil)
				add("GET /api/session/trail", st, b)
				st, b, _ = e.do("GET", "/state?session_id="+token, nil)
				add("GET /state", st, b)
				st, b, _ = e.do("GET", "/api/runs", nil, api.ParticipantHeader, p)
				add("GET /api/runs", st, b)
				st, b, _ = e.do("POST", "/api/assign", api.AssignRequest{Participant: p, Room: room.Code})
				add("POST /api/assign", st, b)
				st, b, _ = e.do("GET", "/api/rooms/"+room.Code, nil)
				add("GET /api/rooms/CODE", st, b)
			}
			answer()
			done2, _ := json.Marshal(done)
			answers["POST /api/session/answer"] = done2
			shown := func(want bool) {
				t.Helper()
				s := decodeState(t, answers["GET /api/session"])
				var runs api.Runs
				if err := json.Unmarshal(answers["GET /api/runs"], &runs); err != nil || len(runs.Runs) != 1 {
					t.Fatalf("runs: %v %s", err, answers["GET /api/runs"])
				}
				r := s.Result
				got := r != nil && !r.Held && r.Record != nil && r.Hash != "" && r.ProbeCorrect != nil && s.Visit == visit &&
					runs.Runs[0].Visit == visit && runs.Runs[0].ProbeCorrect != nil && !runs.Runs[0].Held
				if got != want {
					t.Fatalf("the student is shown the visit: %v, want %v (state %+v, result %+v, runs %+v)", got, want, s, r, runs.Runs)
				}
				if !want {
					if r == nil || !r.Held || r.RunID == "" || r.Scores.Steps == nil || !runs.Runs[0].Held {
						t.Errorf("a held result says nothing of how the student did, or not that it is held: %+v, runs %+v", r, runs.Runs)
					}
					for name, b := range answers {
						noLeakIn(t, name, b, leak)
					}
				}
			}
			shown(!tc.same)
			if !tc.same {
				return
			}
			// The teacher reveals: the student's next answers hold it all.
			var rv api.Reveal
			e.getJSON("/api/rooms/"+room.Code+"/reveal", &rv, "Authorization", "Bearer "+room.TeacherToken)
			first := e.roomRevealedAt(room.Code)
			e.mu.Lock()
			e.now = e.now.Add(10 * time.Minute)
			e.mu.Unlock()
			e.getJSON("/api/rooms/"+room.Code+"/reveal", &rv, "Authorization", "Bearer "+room.TeacherToken)
			if first == 0 || e.roomRevealedAt(room.Code) != first {
				t.Errorf("revealed_at %d, then %d: want the first reveal's time kept", first, e.roomRevealedAt(room.Code))
			}
			answer()
			shown(true)
		})
	}
}

// noLeakIn fails if the answer b of name holds any of the strings.
func noLeakIn(t *testing.T, name string, b []byte, leak []string) {
	t.Helper()
	for _, l := range leak {
		if l != "" && strings.Contains(string(b), l) {
			t.Errorf("%s holds %q before the reveal: %.300s", name, l, b)
		}
	}
}

// roomRevealedAt reads a room's revealed_at from the store (0: NULL).
func (e *env) roomRevealedAt(code string) int64 {
	e.t.Helper()
	var at *int64
	if err := e.store.DB().QueryRow(`SELECT revealed_at FROM rooms WHERE code = ?`, code).Scan(&at); err != nil {
		e.t.Fatal(err)
	}
	if at == nil {
		return 0
	}
	return *at
}
