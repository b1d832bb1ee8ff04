package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/domain"
	"github.com/normgym/normgym/serve/server"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/report"
)

// sameAsReport checks that a leaderboard's entries equal report.Summarize
// over the records.
func sameAsReport(t *testing.T, lb api.Leaderboard, recs []sim.Record) {
	t.Helper()
	want := report.Summarize(recs)
	if len(lb.Agents) != len(want) {
		t.Fatalf("%d leaderboard entries, want %d", len(lb.Agents), len(want))
	}
	got := map[string]report.Summary{}
	for _, a := range lb.Agents {
		got[a.Agent] = a.Summary
	}
	for _, w := range want {
		g, ok := got[w.Agent]
		if !ok {
			t.Errorf("no entry for %s", w.Agent)
			continue
		}
		gb, _ := json.Marshal(g)
		wb, _ := json.Marshal(w)
		if string(gb) != string(wb) {
			t.Errorf("%s:\n got %s\nwant %s", w.Agent, gb, wb)
		}
	}
	for i := 1; i < len(lb.Agents); i++ {
		a, prev := lb.Agents[i], lb.Agents[i-1]
		self, prevSelf := a.Provenance == api.ProvenanceSelfReported, prev.Provenance == api.ProvenanceSelfReported
		if !self && prevSelf {
			t.Errorf("a row the server vouches for (%s) after a self-reported one (%s)", a.Agent, prev.Agent)
		}
		if self == prevSelf && a.Joint.Rate > prev.Joint.Rate {
			t.Errorf("entries not ordered by joint success: %s after %s", a.Agent, prev.Agent)
		}
	}
}

func TestLeaderboardMatchesReport(t *testing.T) {
	e := newEnv(t)
	su, _ := sim.LookupSuite("mini")
	var recs []sim.Record
	// Real, verified runs: three baselines and a human over observe,
	// solo and control visits.
	var picked []string
	for _, v := range su.Visits {
		id, _ := sim.ParseVisitID(v)
		if (id.Condition == sim.Observe || id.Condition == sim.Solo || id.Condition == sim.Control) && len(picked) < 6 {
			picked = append(picked, v)
		}
	}
	for i, v := range picked {
		for _, a := range []string{"greedy", "oracle", "observer"} {
			recs = append(recs, e.mustSubmit(submission(record(t, v, a, "model"), "")).Record)
		}
		if i < 3 {
			// A person meets a norm once: one participant per visit. A
			// person's runs come from sessions: stored as the server
			// stores a finished session.
			rec := record(t, v, "self", "human")
			rec.Suite, rec.SuiteVersion = su.Name, su.Version
			if _, _, err := e.store.PutRun(t.Context(), domain.Run{RunID: newRunID(), ContentSHA256: "x", CreatedAt: e.now,
				Participant: fmt.Sprintf("human-participant-%d", i), ConsentVersion: server.ConsentVersion, Verifier: "wasm",
				Provenance: api.ProvenanceStepped, Record: rec}); err != nil {
				t.Fatal(err)
			}
			recs = append(recs, rec)
			// A submitted human record (a classroom's) is not on the
			// leaderboard.
			code := e.newRoom(v)
			e.mustSubmit(inRoom(submission(record(t, v, "greedy", "human"), fmt.Sprintf("classroom-student-%d", i)), code))
		}
	}
	var lb api.Leaderboard
	e.getJSON("/api/leaderboard?suite=mini", &lb)
	if lb.Suite != "mini" || lb.SuiteVersion != su.Version {
		t.Errorf("leaderboard of %s v%s", lb.Suite, lb.SuiteVersion)
	}
	sameAsReport(t, lb, recs)
	if lb.Agents[0].Gap == nil && lb.Agents[0].ByCondition[sim.Observe].Visits > 0 && lb.Agents[0].ByCondition[sim.Solo].Visits > 0 {
		t.Errorf("no observational gap for %s", lb.Agents[0].Agent)
	}
	// Other suites are empty.
	e.getJSON("/api/leaderboard?suite=standard", &lb)
	if len(lb.Agents) != 0 {
		t.Errorf("standard has %d entries, want none", len(lb.Agents))
	}
	// The page shows every agent.
	st, b, h := e.do("GET", "/leaderboard?suite=mini", nil)
	if st != 200 || !strings.HasPrefix(h.Get("Content-Type"), "text/html") {
		t.Fatalf("page: %d %s", st, h.Get("Content-Type"))
	}
	for _, a := range []string{"greedy", "oracle", "observer", "human", "observe", "solo"} {
		if !strings.Contains(string(b), a) {
			t.Errorf("page lacks %q", a)
		}
	}
}

func TestLeaderboardManyRuns(t *testing.T) {
	e := newEnv(t)
	r := rand.New(rand.NewPCG(5, 6))
	su, _ := sim.LookupSuite("standard")
	var recs []sim.Record
	var runs []domain.Run
	for i := 0; i < 3000; i++ {
		agent, client := []string{"greedy", "oracle", "gpt-x", "human"}[i%4], []string{"baseline", "baseline", "model", "human"}[i%4]
		rec := synthetic(su.Visits[r.IntN(len(su.Visits))], agent, client, r)
		rec.Suite, rec.SuiteVersion = su.Name, su.Version
		recs = append(recs, rec)
		prov := map[string]string{"baseline": api.ProvenanceServer, "human": api.ProvenanceStepped, "model": api.ProvenanceSelfReported}[client]
		runs = append(runs, domain.Run{RunID: newRunID(), ContentSHA256: "x", CreatedAt: e.now, ConsentVersion: "1", Provenance: prov, Record: rec})
	}
	if err := e.store.BulkPut(context.Background(), runs); err != nil {
		t.Fatal(err)
	}
	var lb api.Leaderboard
	e.getJSON("/api/leaderboard", &lb)
	sameAsReport(t, lb, recs)
}
