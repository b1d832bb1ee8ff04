package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/sim"
)

// fakeServer is the NormGym server's POST /api/runs, storing runs by id.
type fakeServer struct {
	mu    sync.Mutex
	runs  map[string]api.Submission
	posts int
	// fail answers post n (1-based) with this status and body, if set.
	fail map[int]func(w http.ResponseWriter)
	// refuse answers submissions of this visit with 422.
	refuse string
}

func newFakeServer(t *testing.T) (*fakeServer, string) {
	s := &fakeServer{runs: map[string]api.Submission{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.posts++
		if r.Method != http.MethodPost || r.URL.Path != "/api/runs" || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("server: %s %s (%s)", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
		}
		if h, ok := s.fail[s.posts]; ok {
			h(w)
			return
		}
		var sub api.Submission
		if err := json.NewDecoder(r.Body).Decode(&sub); err != nil {
			t.Errorf("server: %v", err)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if !sub.Consent || !api.ValidRunID(sub.RunID) || sub.Record.Visit == "" {
			w.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(w).Encode(api.Error{Code: "invalid", Message: "bad submission"})
			return
		}
		if sub.Record.Visit == s.refuse {
			w.WriteHeader(http.StatusUnprocessableEntity)
			json.NewEncoder(w).Encode(api.Error{Code: "mismatch", Message: "the replayed hash differs"})
			return
		}
		_, dup := s.runs[sub.RunID]
		s.runs[sub.RunID] = sub
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(api.SubmitResponse{RunID: sub.RunID, Duplicate: dup, Record: sub.Record})
	}))
	t.Cleanup(srv.Close)
	return s, srv.URL
}

func baselineRecords(t *testing.T, n int) []sim.Record {
	suite, _ := sim.LookupSuite("mini")
	var recs []sim.Record
	for _, v := range suite.Visits[:n] {
		r, err := nativeEngine{}.RunBaseline(context.Background(), v, "greedy")
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	return recs
}

func TestSubmitRecords(t *testing.T) {
	s, url := newFakeServer(t)
	s.fail = map[int]func(http.ResponseWriter){
		1: func(w http.ResponseWriter) {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusServiceUnavailable)
		},
		2: func(w http.ResponseWriter) { w.WriteHeader(http.StatusBadGateway) },
	}
	recs := baselineRecords(t, 3)
	recs[0].Extra = map[string]any{"run_id": "fixed-run-id-0123456789"}
	st, err := submitRecords(context.Background(), url+"/", recs, "baseline:greedy")
	if err != nil {
		t.Fatal(err)
	}
	if st.Stored != 3 || st.Duplicates != 0 || len(s.runs) != 3 {
		t.Errorf("stats %+v, server holds %d runs; want 3 stored", st, len(s.runs))
	}
	got, ok := s.runs["fixed-run-id-0123456789"]
	if !ok || got.Participant != "baseline:greedy" || got.Record.Hash != recs[0].Hash {
		t.Errorf("the record's own run id was not used, or the submission differs: %+v", got.RunID)
	}
	// The same record again is a duplicate; a refused one is named.
	s.refuse = recs[1].Visit
	st, err = submitRecords(context.Background(), url, recs[:2], "baseline:greedy")
	if err == nil || !strings.Contains(err.Error(), "mismatch: the replayed hash differs") || !strings.Contains(err.Error(), recs[1].Visit) {
		t.Errorf("err = %v, want the refusal named", err)
	}
	if st.Duplicates != 1 {
		t.Errorf("stats %+v, want 1 duplicate", st)
	}
	if _, err := submitRecords(context.Background(), "ftp://x", recs, "p"); err == nil {
		t.Errorf("a non-HTTP URL was accepted")
	}
}

func TestEvalSubmit(t *testing.T) {
	setKey(t)
	f := newFakeLLM(t, testKey, "m")
	f.record = false
	s, url := newFakeServer(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out.jsonl")
	args := evalArgs(f, dir, "--native", "--limit", "2", "--out", out, "--submit", url)
	code, _, stderr := evalCLI(context.Background(), args...)
	if code != 0 || !strings.Contains(stderr, "submitted 2 records") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if len(s.runs) != 2 {
		t.Fatalf("server holds %d runs, want 2", len(s.runs))
	}
	for _, sub := range s.runs {
		if sub.Participant != "model:m" || sub.Record.Client != "model" || sub.Record.Extra["run_id"] != sub.RunID {
			t.Errorf("submission: participant %q client %q run id %q (record's %v)", sub.Participant, sub.Record.Client, sub.RunID, sub.Record.Extra["run_id"])
		}
	}
	// Re-running (nothing left to do) submits the same run ids: nothing new.
	code, _, stderr = evalCLI(context.Background(), args...)
	if code != 0 || !strings.Contains(stderr, "0 new, 2 already stored") || len(s.runs) != 2 {
		t.Errorf("re-submission: exit %d, stderr %q, %d runs", code, stderr, len(s.runs))
	}
}
