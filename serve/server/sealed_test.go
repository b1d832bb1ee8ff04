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

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/server"
	"github.com/normgym/normgym/serve/session"
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
