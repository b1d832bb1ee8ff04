package server_test

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/server"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/wasm/simwasm"
)

// TestSubmitOnce: a participant's trajectory is stored once, a person
// meets each norm once, and only visits of a suite (or of a room's list)
// are stored. A person's records are taken in rooms only.
func TestSubmitOnce(t *testing.T) {
	type play struct{ visit, agent, client, participant string }
	tests := []struct {
		name   string
		first  *play // stored before (201)
		room   []string
		second play
		status int
		code   api.Code // error code, or "" for a stored or duplicate run
		dup    bool     // 200 duplicate naming the first run
		msg    string   // in the error message
	}{
		{name: "model trajectory again", first: &play{controlVisit, "greedy", "model", "model:greedy"},
			second: play{controlVisit, "greedy", "model", "model:greedy"}, status: 200, dup: true},
		{name: "human trajectory again", first: &play{normVisit, "greedy", "human", "person-0000001"},
			second: play{normVisit, "greedy", "human", "person-0000001"}, status: 200, dup: true},
		{name: "same trajectory, another participant", first: &play{controlVisit, "greedy", "model", "model:greedy"},
			second: play{controlVisit, "greedy", "model", "model:other"}, status: 201},
		{name: "human, same norm in another visit", first: &play{normVisit, "greedy", "human", "person-0000002"},
			second: play{"market/place.color=red/peers/s101", "greedy", "human", "person-0000002"},
			status: 409, code: "conflict", msg: "already played norm place.color=red"},
		{name: "human, control twice", first: &play{controlVisit, "greedy", "human", "person-0000003"},
			second: play{"market/none/control/s157", "greedy", "human", "person-0000003"},
			status: 409, code: "conflict", msg: "already played norm none"},
		{name: "human, same visit, other trajectory", first: &play{normVisit, "greedy", "human", "person-0000004"},
			second: play{normVisit, "oracle", "human", "person-0000004"}, status: 201},
		{name: "model, same norm in another visit", first: &play{normVisit, "greedy", "model", "model:greedy"},
			second: play{"market/place.color=red/peers/s101", "greedy", "model", "model:greedy"}, status: 201},
		{name: "visit in no suite", second: play{noSuiteVisit, "greedy", "model", ""},
			status: 400, code: "invalid", msg: "is in no suite (see GET /api/suites"},
		{name: "human visit not in the room", second: play{noSuiteVisit, "greedy", "human", "person-0000005"},
			status: 400, code: "invalid", msg: "is not in room"},
		{name: "visit in no suite that the room lists", room: []string{noSuiteVisit},
			second: play{noSuiteVisit, "greedy", "human", "person-0000006"}, status: 201},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			visits := tc.room
			if visits == nil {
				visits = []string{controlVisit, normVisit, "market/place.color=red/peers/s101", "market/none/control/s157"}
			}
			code := e.newRoom(visits...)
			sub := func(p play) api.Submission {
				s := submission(record(t, p.visit, p.agent, p.client), p.participant)
				if p.client == "human" {
					s.Room = code
				}
				return s
			}
			var first api.SubmitResponse
			if tc.first != nil {
				first = e.mustSubmit(sub(*tc.first))
			}
			before := e.counts()
			st, b, _ := e.do("POST", "/api/runs", sub(tc.second))
			if st != tc.status {
				t.Fatalf("got %d %s, want %d", st, b, tc.status)
			}
			stored := e.counts() != before
			if stored != (tc.status == 201) {
				t.Errorf("rows %v → %v, stored %v", before, e.counts(), stored)
			}
			if tc.code != "" {
				got := errorOf(t, b)
				if got.Code != tc.code || !strings.Contains(got.Message, tc.msg) {
					t.Errorf("error %q %q, want %q containing %q", got.Code, got.Message, tc.code, tc.msg)
				}
				return
			}
			var r api.SubmitResponse
			if err := json.Unmarshal(b, &r); err != nil {
				t.Fatal(err)
			}
			if r.Duplicate != tc.dup || (tc.dup && (r.RunID != first.RunID || r.Record.Hash != first.Record.Hash)) {
				t.Errorf("answer: duplicate %v run %s, want duplicate %v (first run %s)", r.Duplicate, r.RunID, tc.dup, first.RunID)
			}
		})
	}
}

// TestReplaySlotHeld: a replay that outlives its timeout keeps its slot
// until it ends, so at most MaxReplays replays run at once.
func TestReplaySlotHeld(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	running, most := 0, 0
	slow := func(rec sim.Record) (sim.Record, []string, error) {
		mu.Lock()
		running++
		most = max(most, running)
		mu.Unlock()
		<-release
		mu.Lock()
		running--
		mu.Unlock()
		return sim.Verify(rec)
	}
	e := newEnv(t, func(o *server.Options) {
		o.Verifier = server.NativeWith(simwasm.SHA256(), slow)
		o.MaxReplays, o.ReplayTimeout = 1, 50*time.Millisecond
	})
	steps := []struct {
		name    string
		release bool // let the replays finish first
		status  int
		code    api.Code
	}{
		{name: "slow replay", status: 503, code: "timeout"},
		{name: "while it still runs", status: 503, code: "busy"},
		{name: "after it ended", release: true, status: 201},
	}
	for _, s := range steps {
		if s.release {
			close(release)
			deadline := time.Now().Add(5 * time.Second)
			for {
				mu.Lock()
				r := running
				mu.Unlock()
				if r == 0 || time.Now().After(deadline) {
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
			time.Sleep(20 * time.Millisecond) // the slot is freed just after
		}
		st, b, _ := e.do("POST", "/api/runs", submission(record(t, controlVisit, "greedy", "model"), ""))
		if st != s.status || (s.code != "" && errorOf(t, b).Code != s.code) {
			t.Errorf("%s: %d %s, want %d %s", s.name, st, b, s.status, s.code)
		}
	}
	if most > 1 {
		t.Errorf("%d replays ran at once, want at most 1", most)
	}
}
