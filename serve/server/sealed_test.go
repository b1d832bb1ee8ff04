package server_test

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/domain"
	"github.com/normgym/normgym/serve/limit"
	"github.com/normgym/normgym/serve/server"
	"github.com/normgym/normgym/serve/session"
	"github.com/normgym/normgym/sim"
)

// TestEverySealedSessionCounts is issue 18's cherry-picker: twenty
// pseudonyms open a sealed visit each, the best three are finished and
// the rest left. Every one counts: the human row holds twenty visits, of
// which seventeen abandoned (no success), and the export lists them.
func TestEverySealedSessionCounts(t *testing.T) {
	e := newEnv(t, withSessions(nil), func(o *server.Options) { o.AdminToken = "s3cret-token" })
	const people, finished = 20, 3
	var tokens []string
	var states []api.SessionState
	for i := range people {
		p := fmt.Sprintf("picker-%08d", i)
		s := e.open(api.SessionRequest{Participant: p, Consent: true, ConsentVersion: server.ConsentVersion}, http.StatusCreated)
		tokens, states = append(tokens, s.Session), append(states, s)
	}
	// While they are open, none is in the figures yet.
	var lb api.Leaderboard
	e.getJSON("/api/leaderboard?suite=standard", &lb)
	if h := humanRow(lb); h == nil || h.Sessions == nil || h.Sessions.Opened != people || h.Sessions.Open != people || h.Visits != 0 {
		t.Fatalf("with every session open: %+v", h)
	}
	for i := range finished {
		e.finishSession(tokens[i], states[i])
	}
	e.mu.Lock()
	e.now = e.now.Add(session.DefaultTTL + time.Minute)
	e.mu.Unlock()

	e.getJSON("/api/leaderboard?suite=standard", &lb)
	h := humanRow(lb)
	if h == nil || h.Sessions == nil {
		t.Fatalf("no human row with sessions: %+v", lb.Agents)
	}
	want := api.SessionCounts{Opened: people, Finished: finished, Abandoned: people - finished, Participants: people}
	got := *h.Sessions
	got.Completion = api.SessionCounts{}.Completion
	if got != want {
		t.Errorf("sessions %+v, want %+v", got, want)
	}
	if h.Visits != people || h.Joint.N != people || h.Task.N != people || h.Joint.K > finished {
		t.Errorf("human row: %d visits, joint %d/%d, task n %d; want %d visits in both denominators", h.Visits, h.Joint.K, h.Joint.N, h.Task.N, people)
	}
	if c := h.Sessions.Completion; c.K != finished || c.N != people {
		t.Errorf("completion %d/%d, want %d/%d", c.K, c.N, finished, people)
	}
	st, page, _ := e.do("GET", "/leaderboard?suite=standard", nil)
	if st != 200 || !strings.Contains(string(page), "17 abandoned") {
		t.Errorf("the page does not say how many were abandoned")
	}

	// The export lists the abandoned sessions after the runs, JSONL and CSV.
	auth := []string{"Authorization", "Bearer s3cret-token"}
	st, body, _ := e.do("GET", "/api/export?format=jsonl", nil, auth...)
	if st != 200 {
		t.Fatalf("export: %d %s", st, body)
	}
	runs, abandoned, cardCount := 0, 0, -1
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var line map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		switch {
		case line["data_card"] != nil:
			var card api.DataCard
			json.Unmarshal(line["data_card"], &card)
			cardCount = card.Counts.Abandoned
		case line["abandoned"] != nil:
			var a api.ExportAbandoned
			json.Unmarshal(line["abandoned"], &a)
			if a.Kind != api.KindHuman || !session.SealedVisit(a.Visit) || a.Condition == "" || a.Participant == "" {
				t.Errorf("abandoned line %+v", a)
			}
			abandoned++
		default:
			runs++
		}
	}
	if runs != finished || abandoned != people-finished || cardCount != people-finished {
		t.Errorf("export: %d runs, %d abandoned (card %d); want %d and %d", runs, abandoned, cardCount, finished, people-finished)
	}
	st, body, _ = e.do("GET", "/api/export?format=csv", nil, auth...)
	rows, err := csv.NewReader(bytes.NewReader(body[bytes.Index(body, []byte("\nrun_id"))+1:])).ReadAll()
	if st != 200 || err != nil {
		t.Fatalf("csv export: %d %v", st, err)
	}
	outcomes := map[string]int{}
	for _, r := range rows[1:] {
		outcomes[r[len(r)-1]]++
	}
	if outcomes["finished"] != finished || outcomes["abandoned"] != people-finished {
		t.Errorf("csv outcomes %v", outcomes)
	}
}

func humanRow(lb api.Leaderboard) *api.LeaderboardEntry {
	for i, a := range lb.Agents {
		if a.Client == "human" {
			return &lb.Agents[i]
		}
	}
	return nil
}

// TestNamesOnTheBoard: self-reported rows cannot pass for the human row,
// a baseline or a label only the server may give, and they are listed
// after the rows the server vouches for, however well they score.
func TestNamesOnTheBoard(t *testing.T) {
	e := newEnv(t, withSessions(nil))
	visit := suiteVisit(t, "standard", "observe")
	for _, name := range []string{"humаn", "Human", "Oracle", "gr33dy", "VERIFIED (server) — GPT-5", "official-gpt"} {
		rec := record(t, visit, "oracle", "baseline")
		rec.Client, rec.Agent = "model", name
		if st, b, _ := e.do("POST", "/api/runs", submission(rec, "")); st != http.StatusBadRequest {
			t.Errorf("a model named %q: %d %s, want 400", name, st, b)
		}
	}
	// A person plays a sealed visit badly; a self-reported oracle scores 1.
	s := e.open(api.SessionRequest{Participant: "board-person-1", Consent: true, ConsentVersion: server.ConsentVersion}, http.StatusCreated)
	e.finishSession(s.Session, s)
	rec := record(t, visit, "oracle", "baseline")
	rec.Client, rec.Agent = "model", "my-model"
	e.mustSubmit(submission(rec, ""))
	// The same trajectory again, under another run id: stored, counted once.
	e.mustSubmit(submission(clone(rec), "model:other-submitter"))
	var lb api.Leaderboard
	e.getJSON("/api/leaderboard?suite=standard", &lb)
	if len(lb.Agents) != 2 || lb.Agents[0].Client != "human" || lb.Agents[1].Agent != "my-model" {
		t.Fatalf("rows %+v: want the human row, then my-model", lb.Agents)
	}
	if lb.Agents[1].Visits != 1 {
		t.Errorf("my-model counts %d visits of one trajectory, want 1", lb.Agents[1].Visits)
	}
}

// firstScreen is a visit's step-0 text without the told line (the only
// line a norm may write there, by design).
func firstScreen(t testing.TB, visit string) string {
	t.Helper()
	_, obs, err := sim.NewEnv(visit)
	if err != nil {
		t.Fatal(err)
	}
	o := *obs
	o.Told = ""
	return o.Text()
}

// TestSealedAttacks are issue 18's attacks on sealed play, each of which
// worked before secret seeds and token-only resume.
func TestSealedAttacks(t *testing.T) {
	e := newEnv(t, withSessions(nil))
	standard, _ := sim.LookupSuite("standard")
	t.Run("fingerprint bot", func(t *testing.T) {
		// The bot's table: the first screen of every public visit.
		table := map[string]string{}
		for _, v := range standard.Visits {
			table[firstScreen(t, v)] = v
		}
		for i := range 6 {
			p := fmt.Sprintf("bot-%08d", i)
			s := e.open(api.SessionRequest{Participant: p, Consent: true, ConsentVersion: server.ConsentVersion}, http.StatusCreated)
			var obs sim.Observation
			if err := json.Unmarshal(s.Observation, &obs); err != nil {
				t.Fatal(err)
			}
			obs.Told = ""
			if v, ok := table[obs.Text()]; ok {
				t.Fatalf("session %d's first screen is public visit %s's", i, v)
			}
			// Nor does the first screen say anything of the norm: under any
			// other norm of the catalog, the same cell and seed open on the
			// same screen. Only the secret seed drew it.
			visit := e.sessionVisit(p)
			id := mustID(t, visit)
			if id.Condition == sim.Control {
				continue
			}
			want := firstScreen(t, visit)
			for _, n := range norms.Default().Norms() {
				other := id
				other.Norm = n.ID
				if got := firstScreen(t, other.String()); got != want {
					t.Fatalf("%s opens otherwise under norm %s than under its own: the first screen tells norms apart", visit, n.ID)
				}
			}
			// Nothing of the visit is stored as a run before the probe.
			if runs, _ := e.store.Runs(t.Context(), domain.RunFilter{Participant: p, Limit: 10}); len(runs) != 0 {
				t.Errorf("a run of %s before the probe", p)
			}
		}
	})
	t.Run("rehearsal", func(t *testing.T) {
		p := "rehearser-0001"
		e.open(api.SessionRequest{Participant: p, Consent: true, ConsentVersion: server.ConsentVersion}, http.StatusCreated)
		visit := e.sessionVisit(p)
		e.open(api.SessionRequest{Visit: visit}, http.StatusBadRequest)
		st, b, _ := e.do("POST", "/reset", map[string]any{"visit": visit})
		if st != http.StatusBadRequest {
			t.Errorf("OpenEnv reset on the sealed visit: %d %s, want 400", st, b)
		}
		// No public seed reaches a sealed one: every suite's seeds are public.
		for _, su := range sim.Suites() {
			for _, v := range su.Visits {
				if session.SealedVisit(v) {
					t.Fatalf("suite %s holds a sealed seed: %s", su.Name, v)
				}
			}
		}
	})
	t.Run("room path", func(t *testing.T) {
		st, b, _ := e.do("POST", "/api/rooms", api.RoomRequest{Visits: []string{suiteVisit(t, "standard", "observe")}})
		var room api.RoomCreated
		if st != http.StatusCreated || json.Unmarshal(b, &room) != nil {
			t.Fatalf("creating a room: %d %s", st, b)
		}
		code := room.Code
		p := "room-student-01"
		a := e.assign(p, code)
		if !a.Sealed {
			t.Fatalf("room assignment %+v", a)
		}
		s := e.open(api.SessionRequest{Participant: p, Consent: true, ConsentVersion: server.ConsentVersion, Room: code}, http.StatusCreated)
		s = e.finishSession(s.Session, s)
		run, err := e.store.Run(t.Context(), s.Result.RunID)
		if err != nil || run.Room != code || run.Provenance != api.ProvenanceStepped {
			t.Fatalf("the room's run: %+v %v", run, err)
		}
		var lb api.Leaderboard
		e.getJSON("/api/leaderboard?suite=standard", &lb)
		if h := humanRow(lb); h != nil && h.Sessions != nil && h.Visits+h.Sessions.Open != h.Sessions.Opened {
			t.Errorf("the human row counts the room's run: %+v", h)
		}
		var dash api.Dashboard
		e.getJSON("/api/rooms/"+code+"/dashboard", &dash, "Authorization", "Bearer "+room.TeacherToken)
		if dash.Stats.Runs != 1 {
			t.Errorf("the room's dashboard has %d runs, want the student's", dash.Stats.Runs)
		}
	})
	t.Run("pseudonym takeover", func(t *testing.T) {
		p := "victim-00000001"
		v := e.open(api.SessionRequest{Participant: p, Consent: true, ConsentVersion: server.ConsentVersion}, http.StatusCreated)
		e.open(api.SessionRequest{Participant: p, Consent: true, ConsentVersion: server.ConsentVersion}, http.StatusConflict)
		st, b := e.sessionDo("POST", "/api/session/step", v.Session, api.SessionStep{Action: "wait"})
		if st != http.StatusOK {
			t.Errorf("the victim's token after the attempt: %d %s", st, b)
		}
		for _, path := range []string{"/api/assign?participant=" + p, "/api/runs?participant=" + p} {
			if st, _, _ := e.do("GET", path, nil); st != http.StatusBadRequest {
				t.Errorf("GET %s: %d, want 400 (no pseudonym in a URL)", path, st)
			}
		}
	})
}

// TestSealedSessionsPerDay: a client opens only so many sealed sessions a
// day (each counts in the figures); other clients are not held back.
func TestSealedSessionsPerDay(t *testing.T) {
	e := newEnv(t, withSessions(nil), func(o *server.Options) {
		o.Limiter = limit.NewBuckets(map[string]limit.Rate{server.ClassSealed: {Every: 12 * time.Hour, Burst: 2}}, nil)
	})
	for i := range 2 {
		e.open(api.SessionRequest{Participant: fmt.Sprintf("daily-%08d", i), Consent: true, ConsentVersion: server.ConsentVersion}, http.StatusCreated)
	}
	st, b, h := e.do("POST", "/api/sessions", api.SessionRequest{Participant: "daily-00000009", Consent: true, ConsentVersion: server.ConsentVersion})
	if st != http.StatusTooManyRequests || h.Get("Retry-After") == "" {
		t.Errorf("a third sealed session in a day: %d %s, want 429 with Retry-After", st, b)
	}
	// Practice is not a sealed session.
	e.open(api.SessionRequest{Visit: suiteVisit(t, "mini", "observe")}, http.StatusCreated)
}
