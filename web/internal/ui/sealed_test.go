//go:build !js

package ui_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/normgym/normgym/serve/limit"
	"github.com/normgym/normgym/serve/server"
	"github.com/normgym/normgym/serve/session"
	"github.com/normgym/normgym/serve/store"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/wasm/simwasm"
	"github.com/normgym/normgym/web/internal/ui"
)

// sealedServer starts the real server (SQLite on disk, sessions stepped
// by the native engine, with lim as its rate limiter: nil for the
// default) and returns a ui.Fetch to it and its store.
func sealedServer(t *testing.T, lim limit.Limiter) (ui.Fetch, *store.Store) {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "normgym.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	sha := simwasm.SHA256()
	opts := server.Options{Store: st, Verifier: server.Native(sha), Engine: session.Native(sha), OpenRooms: true}
	if lim != nil {
		opts.Limiter = lim
	}
	srv, err := server.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	fetch := func(method, path, token string, body []byte) (int, []byte, error) {
		req, err := http.NewRequest(method, hs.URL+path, bytes.NewReader(body))
		if err != nil {
			return 0, nil, err
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, b, err
	}
	return fetch, st
}

// TestSealedPlay plays a sealed visit through ui.Play over the server's
// session API, reloading in the middle: the page's Play never holds the
// visit id before the end, a reload resumes the session at its step, the
// day screens get their summaries from the server, and the record the
// page shows at the end is the one the server stored, which replays to
// the same hash.
func TestSealedPlay(t *testing.T) {
	fetch, st := sealedServer(t, nil)
	req := ui.SessionRequest{Participant: "sealedtest0001", Consent: true, ConsentVersion: server.ConsentVersion}
	v := ui.Resolved{Assigned: true, Sealed: true, Suite: "standard"}

	p, err := ui.OpenSealedPlay(fetch, req, v)
	if err != nil {
		t.Fatal(err)
	}
	open, err := st.OpenSessions(context.Background(), req.Participant, "")
	if err != nil || len(open) != 1 {
		t.Fatalf("open sessions: %v, %v", open, err)
	}
	visit := open[0].Visit
	if p.Stage != ui.StageDay || p.Obs() == nil || p.Obs().Day != 1 {
		t.Fatalf("a new sealed visit starts at stage %v, day %v", p.Stage, p.Obs())
	}
	s := p.Env.(*ui.Sealed)
	if s.Last.Visit != "" || strings.Contains(p.Last.Text, visit) {
		t.Fatalf("the sealed session names its visit %q before the end", visit)
	}
	p.Begin()

	days := 0
	for i := 0; p.Stage == ui.StagePlay || p.Stage == ui.StageDay; i++ {
		if p.Stage == ui.StageDay {
			if p.Ended == nil || p.Ended.Day != p.Obs().Day-1 {
				t.Fatalf("the day screen has no summary of the day before: %+v", p.Ended)
			}
			// A reload on the day's screen draws it again, summary and all.
			ended := *p.Ended
			m := p.Mark(ui.SealedMark{Consent: server.ConsentVersion, Token: p.Env.(*ui.Sealed).Token()})
			back, _ := ui.ParseSealedMark(m.String())
			if p, err = ui.ResumeSealedPlay(fetch, back, v); err != nil {
				t.Fatal(err)
			}
			s = p.Env.(*ui.Sealed)
			if p.Stage != ui.StageDay || p.Ended == nil || *p.Ended != ended {
				t.Fatalf("after a reload on the day's screen: stage %v, summary %+v, want %+v", p.Stage, p.Ended, ended)
			}
			days++
			p.Begin()
		}
		if i == 7 {
			// A reload: the page resumes the session with the token it
			// kept, at the same step; the pseudonym alone reopens nothing.
			step := p.Obs().Frame.Step
			token := p.Env.(*ui.Sealed).Token()
			var he *ui.HTTPError
			if _, err := ui.OpenSealedPlay(fetch, req, v); !errors.As(err, &he) || he.Status != http.StatusConflict {
				t.Fatalf("reopening with the pseudonym alone: %v, want 409", err)
			}
			p, err = ui.ResumeSealedPlay(fetch, p.Mark(ui.SealedMark{Consent: server.ConsentVersion, Token: token}), v)
			if err != nil {
				t.Fatal(err)
			}
			s = p.Env.(*ui.Sealed)
			if !s.Last.Resumed || s.Last.Actions != 7 || p.Stage != ui.StagePlay || p.Obs().Frame.Step != step {
				t.Fatalf("after a reload: resumed %v, %d actions, stage %v, step %d (want step %d)",
					s.Last.Resumed, s.Last.Actions, p.Stage, p.Obs().Frame.Step, step)
			}
			tr, err := s.Trail()
			if err != nil || len(tr.Actions) != 7 {
				t.Fatalf("trail after 7 actions: %d actions, %v", len(tr.Actions), err)
			}
		}
		before := p.Obs().Day
		if _, _, err := p.Act("wait"); err != nil {
			t.Fatalf("step %d (day %d before): %v", i, before, err)
		}
	}
	if days != 1 {
		t.Errorf("%d day screens between days, want 1", days)
	}
	if p.Stage != ui.StageProbe || p.Probe == nil || len(p.Probe.Options) != 4 {
		t.Fatalf("after the last step: stage %v, probe %+v", p.Stage, p.Probe)
	}
	if err := p.Finish(2, 0.7); err != nil {
		t.Fatal(err)
	}
	rec := p.Record
	if p.Stage != ui.StageResult || rec == nil || rec.Visit != visit || rec.Client != "human" {
		t.Fatalf("result: stage %v, record %+v", p.Stage, rec)
	}
	if rec.Probe == nil || rec.Probe.Answer != 2 || rec.Probe.Confidence == nil || *rec.Probe.Confidence != 0.7 {
		t.Errorf("probe in the record: %+v", rec.Probe)
	}
	if s.Last.Result == nil || s.Last.Result.RunID == "" || s.Last.Result.Provenance != "server-stepped" {
		t.Errorf("the run was not stored as server-stepped: %+v", s.Last.Result)
	}
	if _, diffs, err := sim.Verify(*rec); err != nil || len(diffs) > 0 {
		t.Errorf("the record the page shows does not replay: %v %v", diffs, err)
	}

	// A reload on the result screen draws the same result.
	m := p.Mark(ui.SealedMark{Consent: server.ConsentVersion, Token: p.Env.(*ui.Sealed).Token()})
	back, err := ui.ResumeSealedPlay(fetch, m, v)
	if err != nil {
		t.Fatal(err)
	}
	if back.Stage != ui.StageResult || back.Record.Hash != rec.Hash || back.Picked() != p.Picked() || p.Picked() == "" {
		t.Errorf("after a reload on the result: stage %v, hash %s (want %s), picked %q (want %q)", back.Stage, back.Record.Hash, rec.Hash, back.Picked(), p.Picked())
	}

	// The visit is over: opening again gives the next visit, never this one.
	p2, err := ui.OpenSealedPlay(fetch, req, v)
	if err != nil {
		var he *ui.HTTPError
		if !errors.As(err, &he) {
			t.Fatal(err)
		}
		return
	}
	if p2.Stage != ui.StageDay || p2.Env.(*ui.Sealed).Last.Actions != 0 {
		t.Errorf("after the result the next open is not a new visit: stage %v", p2.Stage)
	}
}

// TestSealedHeld plays a student's visit in a class where everyone plays
// the same visit: its result is held (scores only, no visit, no verdict)
// until the teacher opens the reveal, after a reload too (the option
// picked comes back from the mark); Refresh releases it after the reveal.
func TestSealedHeld(t *testing.T) {
	fetch, st := sealedServer(t, nil)
	status, body, err := fetch("POST", "/api/rooms", "", []byte(`{"suite":"mini","same_visit":true}`))
	var room struct {
		Code  string `json:"code"`
		Token string `json:"teacher_token"`
	}
	if err != nil || status != http.StatusCreated || json.Unmarshal(body, &room) != nil {
		t.Fatalf("creating a room: %d %s %v", status, body, err)
	}
	req := ui.SessionRequest{Participant: "heldtest00001", Consent: true, ConsentVersion: server.ConsentVersion, Room: room.Code}
	if status, body, err := fetch("POST", "/api/rooms/"+room.Code+"/join", "", []byte(`{"participant":"heldtest00001","nickname":"Owl"}`)); err != nil || status != 200 {
		t.Fatalf("joining: %d %s %v", status, body, err)
	}
	v := ui.Resolved{Assigned: true, Sealed: true, Class: true, Suite: "mini"}
	p, err := ui.OpenSealedPlay(fetch, req, v)
	if err != nil {
		t.Fatal(err)
	}
	open, err := st.OpenSessions(context.Background(), req.Participant, room.Code)
	if err != nil || len(open) != 1 {
		t.Fatalf("open sessions: %v, %v", open, err)
	}
	visit := open[0].Visit
	for p.Stage == ui.StageDay || p.Stage == ui.StagePlay {
		p.Begin()
		if _, _, err := p.Act("wait"); err != nil {
			t.Fatal(err)
		}
	}
	if p.Stage != ui.StageProbe {
		t.Fatalf("stage %v after the visit, want the probe", p.Stage)
	}
	if err := p.Finish(1, 0.6); err != nil {
		t.Fatal(err)
	}
	s := p.Env.(*ui.Sealed)
	held := func(where string, p *ui.Play, want bool) {
		t.Helper()
		s := p.Env.(*ui.Sealed)
		rec := p.Record
		if got := s.Held(); got != want || p.Stage != ui.StageResult || rec == nil || (rec.Visit == "") != want || (rec.Probe == nil) != want {
			t.Fatalf("%s: held %v (want %v), stage %v, record visit %q, probe %+v", where, got, want, p.Stage, rec.Visit, rec.Probe)
		}
		if b, _ := json.Marshal(s.Last); want && strings.Contains(string(b), visit) {
			t.Fatalf("%s: the held state names the visit: %s", where, b)
		}
	}
	held("after the answer", p, true)
	picked := p.Picked()
	if picked == "" || picked != p.Probe.Options[1] {
		t.Errorf("picked %q, want option 1 %q", picked, p.Probe.Options[1])
	}
	back, err := ui.ResumeSealedPlay(fetch, p.Mark(ui.SealedMark{Consent: server.ConsentVersion, Room: room.Code, Token: s.Token()}), v)
	if err != nil {
		t.Fatal(err)
	}
	held("after a reload", back, true)
	if back.Picked() != picked {
		t.Errorf("after a reload the held result says the student picked %q, want %q", back.Picked(), picked)
	}
	if released, err := s.Refresh(); released || err != nil {
		t.Fatalf("before the reveal Refresh says released %v (%v)", released, err)
	}
	if status, body, err := fetch("GET", "/api/rooms/"+room.Code+"/reveal", room.Token, nil); err != nil || status != 200 {
		t.Fatalf("the reveal: %d %s %v", status, body, err)
	}
	if released, err := s.Refresh(); !released || err != nil {
		t.Fatalf("after the reveal Refresh says released %v (%v)", released, err)
	}
	rec, err := s.Record(context.Background(), "human", "human")
	if err != nil || rec.Visit != visit || rec.Probe == nil || rec.Probe.Answer != 1 {
		t.Errorf("the released record: visit %q (want %q), probe %+v, %v", rec.Visit, visit, rec.Probe, err)
	}
}

// TestSealedErrors: the server's refusals reach the page as HTTPError
// with the server's message.
func TestSealedErrors(t *testing.T) {
	fetch, _ := sealedServer(t, nil)
	for _, tc := range []struct {
		name string
		req  ui.SessionRequest
		want string
	}{
		{"no consent", ui.SessionRequest{Participant: "sealedtest0002"}, "consent"},
		{"bad pseudonym", ui.SessionRequest{Participant: "a@b", Consent: true}, "pseudonym"},
		{"old consent", ui.SessionRequest{Participant: "sealedtest0003", Consent: true, ConsentVersion: "0"}, "consent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ui.OpenSealedPlay(fetch, tc.req, ui.Resolved{Sealed: true, Assigned: true})
			var he *ui.HTTPError
			if !errors.As(err, &he) || he.Status != http.StatusBadRequest || !strings.Contains(he.Message, tc.want) {
				t.Errorf("err = %v, want a 400 saying %q", err, tc.want)
			}
		})
	}
}

func TestSealedMark(t *testing.T) {
	token := "sess_" + strings.Repeat("A", 43)
	for _, tc := range []struct {
		name, kept string
		want       ui.SealedMark
		ok         bool
	}{
		{"nothing kept", "", ui.SealedMark{}, false},
		{"an older page's consent version alone", "2", ui.SealedMark{}, false},
		{"no token", `{"consent":"2"}`, ui.SealedMark{}, false},
		{"not JSON", "{", ui.SealedMark{}, false},
		{"a mark", ui.SealedMark{Consent: "2", Token: token}.String(), ui.SealedMark{Consent: "2", Token: token}, true},
		{"a room's mark", ui.SealedMark{Consent: "2", Room: "ABCD-EFGH-JKMN", Token: token}.String(), ui.SealedMark{Consent: "2", Room: "ABCD-EFGH-JKMN", Token: token}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ui.ParseSealedMark(tc.kept)
			if got != tc.want || ok != tc.ok {
				t.Errorf("ParseSealedMark(%q) = %+v, %v; want %+v, %v", tc.kept, got, ok, tc.want, tc.ok)
			}
		})
	}
}
