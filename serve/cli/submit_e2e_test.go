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

// `normgym run --submit` against the real server: baseline records made in
// sim.wasm are replayed by the server, stored once, and counted on the
// leaderboard; submitting the same runs again stores nothing new.
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

	for round, want := range []string{"greedy: 4 stored, 0 already there", "greedy: 0 stored, 4 already there"} {
		code, _, stderr := runCLI(t, "", "run", "--suite", "mini", "--agent", "greedy", "--limit", "4", "--submit", hs.URL)
		if code != 0 || !strings.Contains(stderr, want) {
			t.Fatalf("round %d: exit %d, stderr %q; want %q", round+1, code, stderr, want)
		}
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
	if len(lb.Agents) != 1 || lb.Agents[0].Agent != "greedy" || lb.Agents[0].Visits != 4 {
		t.Errorf("leaderboard agents = %+v, want greedy with 4 runs", lb.Agents)
	}
	// Records from the native core are refused by --submit before sending.
	code, _, stderr := runCLI(t, "", "run", "--native", "--suite", "mini", "--agent", "greedy", "--limit", "1", "--submit", hs.URL)
	if code != 2 || !strings.Contains(stderr, "drop --native") {
		t.Errorf("native --submit: exit %d, stderr %q; want a usage error", code, stderr)
	}
}
