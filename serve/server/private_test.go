package server_test

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/server"
	"github.com/normgym/normgym/sim"
)

func loadPrivate(t testing.TB) *server.PrivateSuite {
	t.Helper()
	b, err := os.ReadFile("testdata/private.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := server.LoadPrivateSuite(b)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadPrivateSuite(t *testing.T) {
	p := loadPrivate(t)
	if p.Name != "private" || len(p.Visits) != 2*3*2*2 || len(p.Catalog.Norms()) != 6 {
		t.Errorf("loaded %s with %d visits and %d norms", p.Name, len(p.Visits), len(p.Catalog.Norms()))
	}
	good, _ := os.ReadFile("testdata/private.json")
	for _, tc := range []struct{ name, edit, want string }{
		{"a public norm", `"key": "shade"`, ""},
		{"a public suite's name", `"name": "private"`, "taken"},
		{"no families", `"families": [`, "no families"},
		{"visits and seeds", `"seeds": [`, "not both"},
		{"unknown field", `"seeds": [`, "unknown field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := string(good)
			switch tc.name {
			case "a public norm":
				s = strings.Replace(s, `"family": "hue"`, `"family": "place"`, 1)
				s = strings.Replace(s, `"key": "shade"`, `"key": "color"`, 1)
				s = strings.Replace(s, `"forbid enter color={value}"`, `"forbid step color={value}"`, 1)
				tc.want = "public catalog"
			case "a public suite's name":
				s = strings.Replace(s, `"name": "private"`, `"name": "standard"`, 1)
			case "no families":
				s = `{"families": [], "seeds": [1]}`
			case "visits and seeds":
				s = strings.Replace(s, `"seeds": [`, `"visits": ["orchard/hue.shade=red/observe/s1"], "seeds": [`, 1)
			case "unknown field":
				s = strings.Replace(s, `"seeds": [`, `"seed": 4, "seeds": [`, 1)
			}
			if _, err := server.LoadPrivateSuite([]byte(s)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// TestPrivateSuite: a private suite is played by submitter keys only,
// through sessions; no answer ever names its visit or norm (not even once
// it is over); its runs make the leaderboard's private column; and a
// record replays with the private catalog to the hash the session saw.
func TestPrivateSuite(t *testing.T) {
	p := loadPrivate(t)
	var key string
	e := newEnv(t, withSessions(&key), func(o *server.Options) { o.Private = p })
	auth := []string{"Authorization", "Bearer " + key}
	// Not without a key, not by id.
	e.open(api.SessionRequest{Suite: "private", Seed: new(int)}, http.StatusForbidden)
	e.open(api.SessionRequest{Visit: p.Visits[0]}, http.StatusBadRequest)
	s := e.open(api.SessionRequest{Suite: "private"}, http.StatusCreated, auth...)
	if !s.Sealed || s.Visit != "" || s.Suite != "private" {
		t.Fatalf("a private session: %+v", s)
	}
	var leak []string
	for _, n := range p.Catalog.Norms() {
		leak = append(leak, n.ID, n.Rule.String())
	}
	leak = append(append(leak, p.Visits...), "hue.", "litterbug.")
	token := s.Session
	s = e.playSession(token, s, leak, nil)
	if s.Stage != api.StageProbe || s.Probe == nil {
		t.Fatalf("the end: %+v", s)
	}
	st, b := e.sessionDo("POST", "/api/session/answer", token, api.SessionAnswer{Answer: 2})
	noLeak(t, b, leak)
	s = decodeState(t, b)
	if st != 200 || s.Stage != api.StageDone || s.Visit != "" || s.Result == nil || s.Result.Record != nil || s.Result.Hash != "" || s.Result.RunID == "" {
		t.Fatalf("done: %d %s", st, b)
	}
	run, err := e.store.Run(t.Context(), s.Result.RunID)
	order := sim.Stratified(p.Visits, 0) // the key's visits come in the suite's stratified order
	if err != nil || run.Record.Suite != "private" || run.Record.Visit != order[0] || run.Verifier != "native" {
		t.Fatalf("stored: %+v %v", run, err)
	}
	// The operator, who holds the catalog, can replay it.
	env, err := sim.ReplayIn(p.Catalog, run.Record)
	if err != nil || env.Hash() != run.Record.Hash {
		t.Errorf("replay with the private catalog: %v", err)
	}
	// The next private session is the next visit.
	n := e.open(api.SessionRequest{Suite: "private"}, http.StatusCreated, auth...)
	if n.Resumed || e.sessionVisit("model:model-a") != order[1] {
		t.Errorf("next private visit: %s", e.sessionVisit("model:model-a"))
	}
	// The leaderboards: the private suite's own, and its column on standard.
	var lb api.Leaderboard
	e.getJSON("/api/leaderboard?suite=private", &lb)
	if len(lb.Agents) != 1 || lb.Agents[0].Agent != "model-a" || lb.Agents[0].Provenance != api.ProvenanceStepped {
		t.Errorf("private leaderboard: %+v", lb.Agents)
	}
	std := e.open(api.SessionRequest{Suite: "standard"}, http.StatusCreated, auth...)
	e.finishSession(std.Session, std)
	e.getJSON("/api/leaderboard?suite=standard", &lb)
	if len(lb.Agents) != 1 || lb.Agents[0].Private == nil || lb.Agents[0].Private.N != 1 || lb.PrivateSuite != "private" {
		b, _ := json.Marshal(lb)
		t.Errorf("standard leaderboard without the private column: %s", b)
	}
	st, page, _ := e.do("GET", "/leaderboard?suite=standard", nil)
	if st != 200 || !strings.Contains(string(page), "unpublished norms") {
		t.Errorf("the page has no private column")
	}
	noLeak(t, page, leak)
}
