//go:build !js

package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
)

// study runs a study on the worker (D1, the native core): created with
// the admin token, its link redirected by the worker (not answered by the
// app's index.html), a Prolific participant from entry to the completion
// redirect through a whole sealed visit, the same id refused, the
// dashboard at 1/1 with the baselines played on the same visit, and the
// export with every rule's verdict.
func study(t *testing.T, w *worker) {
	d := api.StudyDesign{Name: "Worker study", Cells: api.StudyCellsNorms, Norms: []string{"place.color=red"}, Conditions: []string{"observe"},
		Target: 1, ConsentVersion: "w-1", ConsentText: "You agree.", Platform: api.PlatformProlific, CompletionCode: "W0RK",
		RedirectURL: "https://app.prolific.com/submissions/complete?cc={code}", TimeLimitMinutes: 60,
		Rules: []api.StudyRule{{Name: "understood", Kind: api.RuleComprehension}, {Name: "tried", Kind: api.RuleMinActions, Value: 5}}}
	var c api.StudyCreated
	if st, b, _ := w.do("POST", "/api/studies", d, "Authorization", "Bearer "+w.adminToken); st != http.StatusCreated || json.Unmarshal(b, &c) != nil {
		t.Fatalf("POST /api/studies = %d %s", st, b)
	}
	req, _ := http.NewRequest("GET", w.base+"/s/"+c.Code+"?PROLIFIC_PID=w0rker1d&STUDY_ID=s&SESSION_ID=x", nil)
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/#study="+c.Code+"&") {
		t.Errorf("GET /s/CODE = %d, Location %q; want the worker's redirect to the page", resp.StatusCode, loc)
	}
	var s api.StudyState
	enter := api.StudyEnter{Params: map[string]string{"PROLIFIC_PID": "w0rker1d", "STUDY_ID": "s", "SESSION_ID": "x"}}
	if st, b, _ := w.do("POST", "/api/study/"+c.Code+"/enter", enter); st != http.StatusCreated || json.Unmarshal(b, &s) != nil {
		t.Fatalf("enter = %d %s", st, b)
	}
	auth := []string{"Authorization", "Bearer " + s.Token}
	for _, step := range []struct {
		path string
		body any
	}{{"consent", api.StudyConsent{Consent: true, ConsentVersion: "w-1"}}, {"check", api.StudyCheck{Answers: []int{1, 2, 0}}}} {
		if st, b, _ := w.do("POST", "/api/study/"+c.Code+"/"+step.path, step.body, auth...); st != http.StatusOK {
			t.Fatalf("%s = %d %s", step.path, st, b)
		}
	}
	var ss api.SessionState
	if st, b, _ := w.do("POST", "/api/study/"+c.Code+"/session", nil, auth...); st != http.StatusCreated || json.Unmarshal(b, &ss) != nil || !ss.Sealed {
		t.Fatalf("session = %d %.300s", st, b)
	}
	studyVisit(t, w, ss)
	if st, b, _ := w.do("POST", "/api/study/"+c.Code+"/finish", nil, auth...); st != http.StatusOK || json.Unmarshal(b, &s) != nil ||
		s.RedirectURL != "https://app.prolific.com/submissions/complete?cc=W0RK" {
		t.Fatalf("finish = %d %s", st, b)
	}
	if st, b, _ := w.do("POST", "/api/study/"+c.Code+"/enter", enter); st != http.StatusConflict {
		t.Errorf("the same platform id again = %d %s, want 409", st, b)
	}
	var dash api.StudyDashboard
	w.getJSON("/api/study/"+c.Code+"/dashboard", &dash, "Authorization", "Bearer "+c.Token)
	if len(dash.Cells) != 1 || dash.Cells[0].N != 1 || dash.Status != api.StudyFull || len(dash.Cells[0].Compare) == 0 {
		t.Errorf("dashboard on the worker: %+v", dash.Cells)
	}
	st, b, _ := w.do("GET", "/api/study/"+c.Code+"/export?format=csv", nil, "Authorization", "Bearer "+c.Token)
	if st != http.StatusOK || !strings.Contains(string(b), "rule:understood") || !strings.Contains(string(b), "keep") || strings.Contains(string(b), "w0rker1d") {
		t.Errorf("export on the worker = %d %.500s", st, b)
	}
}

// studyVisit plays a study's session to its end with the greedy baseline
// and answers the probe.
func studyVisit(t *testing.T, w *worker, s api.SessionState) {
	token := s.Session
	pol, _ := agents.New("greedy")
	for s.Stage == api.StagePlay {
		var obs sim.Observation
		if err := json.Unmarshal(s.Observation, &obs); err != nil {
			t.Fatal(err)
		}
		st, b, _ := w.do("POST", "/api/session/step", api.SessionStep{Action: pol.Act(&obs).String()}, "Authorization", "Bearer "+token)
		if st != 200 || json.Unmarshal(b, &s) != nil {
			t.Fatalf("step %d: %d %s", s.Actions, st, b)
		}
	}
	if s.Stage == api.StageProbe {
		if st, b, _ := w.do("POST", "/api/session/answer", api.SessionAnswer{Answer: 0}, "Authorization", "Bearer "+token); st != 200 {
			t.Fatalf("answer: %d %s", st, b)
		}
	}
}
