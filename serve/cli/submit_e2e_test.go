package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/server"
	"github.com/normgym/normgym/serve/store"
)

// `normgym run --submit` is refused: the server computes its baselines
// itself, and a baseline run submitted to it is refused (403).
func TestRunSubmitToServer(t *testing.T) {
	ctx := context.Background()
	eng, err := openWasm(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "runs.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	srv, err := server.New(server.Options{Store: st, Verifier: server.Wasm(eng.(*wasmEngine).rt)})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	code, _, stderr := runCLI(t, "", "run", "--suite", "mini", "--agent", "greedy", "--limit", "1", "--submit", hs.URL)
	if code != 2 || !strings.Contains(stderr, "computes its baselines itself") {
		t.Errorf("run --submit: exit %d, stderr %q; want a usage error", code, stderr)
	}
	// A baseline record posted anyway is refused.
	recs := baselineRecords(t, 1)
	recs[0].SimSHA256 = eng.SHA256()
	if _, err := submitRecords(ctx, hs.URL, recs, "baseline:greedy"); err == nil || !strings.Contains(err.Error(), "computed by the server itself") {
		t.Errorf("a baseline submission: %v, want it refused", err)
	}
	res, err := http.Get(hs.URL + "/api/leaderboard?suite=mini")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var lb api.Leaderboard
	if err := json.NewDecoder(res.Body).Decode(&lb); err != nil {
		t.Fatal(err)
	}
	if len(lb.Agents) != 0 {
		t.Errorf("leaderboard agents = %+v, want none", lb.Agents)
	}
}
