//go:build !js

// The example clients, played against a real NormGym server on loopback:
// the Python client (python3, the standard library only) through the
// WebSocket session and over HTTP, and the Go client through the session
// API. Each plays a whole visit; its trajectory hash must be the one the
// sim gives for the same actions, and a key's stored run must pass
// `normgym replay`.
package examples_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/cli"
	"github.com/normgym/normgym/serve/limit"
	"github.com/normgym/normgym/serve/server"
	"github.com/normgym/normgym/serve/session"
	"github.com/normgym/normgym/serve/store"
	"github.com/normgym/normgym/serve/store/storetest"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/wasm/host"
	"github.com/normgym/normgym/wasm/simwasm"
)

// testServer is a NormGym server stepping sessions in sim.wasm, with a
// submitter key labelled "example-model".
func testServer(t *testing.T) (*httptest.Server, *store.Store, string) {
	t.Helper()
	ctx := context.Background()
	opts := host.Options{Uninterruptible: true}
	if dir, err := os.UserCacheDir(); err == nil {
		opts.CacheDir = filepath.Join(dir, "normgym", "wazero")
		os.MkdirAll(opts.CacheDir, 0o755)
	}
	rt, err := host.New(ctx, simwasm.Bytes(), opts)
	if err != nil {
		t.Fatalf("loading sim.wasm: %v (run make wasm)", err)
	}
	t.Cleanup(func() { rt.Close(ctx) })
	key, line, err := server.NewSubmitterKey("example-model")
	if err != nil {
		t.Fatal(err)
	}
	keys, _ := server.ParseTeacherKeys(line)
	st := storetest.MustOpenDB(t)
	srv, err := server.New(server.Options{Store: st, Verifier: server.Wasm(rt), Engine: session.Wasm(rt), SubmitterKeys: keys,
		Limiter: limit.None})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return hs, st, key
}

// pythonOut is what normgym_client.py prints.
type pythonOut struct {
	Visit        string   `json:"visit"`
	Actions      []string `json:"actions"`
	Hash         string   `json:"hash"`
	Reward       *float64 `json:"reward"`
	RunID        string   `json:"run_id"`
	StepCount    int      `json:"step_count"`
	EpisodeID    string   `json:"episode_id"`
	ProbeCorrect *bool    `json:"probe_correct"`
}

// nativeHash is the trajectory hash of actions on visit, stepped natively.
func nativeHash(t *testing.T, visit string, actions []string) string {
	t.Helper()
	env, err := sim.Replay(sim.Record{Visit: visit, Actions: actions})
	if err != nil {
		t.Fatalf("replaying the client's actions: %v", err)
	}
	return env.Hash()
}

// replayRun writes a stored run's record to a file and runs `normgym
// replay` on it (through sim.wasm).
func replayRun(t *testing.T, st *store.Store, runID string) {
	t.Helper()
	run, err := st.Run(context.Background(), runID)
	if err != nil {
		t.Fatalf("the stored run %s: %v", runID, err)
	}
	if run.Provenance != api.ProvenanceStepped || run.Record.Agent != "example-model" || run.Record.Client != "model" {
		t.Errorf("stored run: provenance %q agent %q client %q", run.Provenance, run.Record.Agent, run.Record.Client)
	}
	b, _ := json.Marshal(run.Record)
	f := filepath.Join(t.TempDir(), "run.jsonl")
	os.WriteFile(f, append(b, '\n'), 0o644)
	var out, errb bytes.Buffer
	if code := cli.Main(context.Background(), []string{"replay", f}, nil, &out, &errb); code != 0 {
		t.Errorf("normgym replay of the stored run: exit %d\n%s%s", code, out.String(), errb.String())
	}
}

func python(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("python3 is needed for the Python client's test")
		}
		t.Skip("python3 is not installed")
	}
	return p
}

// TestPythonClient plays whole visits with normgym_client.py: a practice
// session through /ws and over HTTP, and a key's session through /ws. The
// client writes every observation it was sent, whole (--trace): none before
// the last names the visit, its norm or its condition (issue 19).
func TestPythonClient(t *testing.T) {
	py := python(t)
	hs, st, key := testServer(t)
	mini, err := sim.LookupSuite("mini")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		visit string
		args  []string
		keyed bool
	}{
		{"websocket", mini.Visits[1], []string{"--episode", "py-ws"}, false},
		{"http", mini.Visits[2], []string{"--http", "--episode", "py-http"}, false},
		{"websocket, a seed's draw", "", []string{"--suite", "mini", "--seed", "4", "--episode", "py-seed"}, false},
		{"websocket with a key", "", []string{"--key", key, "--suite", "mini", "--episode", "py-key"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			trace := filepath.Join(t.TempDir(), "observations.jsonl")
			args := []string{filepath.Join("python", "normgym_client.py"), hs.URL, "--trace", trace}
			if tc.visit != "" {
				args = append(args, "--visit", tc.visit)
			}
			args = append(args, tc.args...)
			cmd := exec.Command(py, args...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			b, err := cmd.Output()
			if err != nil {
				t.Fatalf("python3 %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
			}
			var out pythonOut
			if err := json.Unmarshal(b, &out); err != nil {
				t.Fatalf("the client printed %q: %v", b, err)
			}
			want := tc.visit
			if want == "" && !tc.keyed {
				want = sim.Stratified(mini.Visits, 0)[4]
			}
			control := strings.Contains(out.Visit, "/"+sim.Control+"/") // a control visit has no probe
			if ep := tc.args[len(tc.args)-1]; out.EpisodeID != ep || (out.ProbeCorrect == nil) != control {
				t.Errorf("episode_id %q probe_correct %v, want %q and the probe's correctness unless control", out.EpisodeID, out.ProbeCorrect, ep)
			}
			if tc.keyed {
				// The key's sealed visit: the first cell of mini's stratified
				// order under a secret seed.
				first := sim.Stratified(mini.Visits, 0)[0]
				if !session.SealedVisit(out.Visit) || session.Cell(out.Visit) != session.Cell(first) {
					t.Fatalf("the key's visit %s: want the cell of %s under a sealed seed", out.Visit, first)
				}
				want = out.Visit
			}
			if out.Visit != want || len(out.Actions) == 0 || out.StepCount != len(out.Actions) || out.Reward == nil {
				t.Fatalf("client output: %+v", out)
			}
			noVisitBeforeTheEnd(t, trace, want)
			if got, want := out.Hash, nativeHash(t, want, out.Actions); got != want {
				t.Errorf("the server's trajectory hash %s, want %s (the sim's for the client's actions)", got, want)
			}
			if tc.keyed {
				if out.RunID == "" {
					t.Fatal("a key's session stored no run")
				}
				replayRun(t, st, out.RunID)
			} else if out.RunID != "" {
				t.Errorf("a practice session stored run %s", out.RunID)
			}
		})
	}
}

// noVisitBeforeTheEnd reads the observations a client wrote, one JSON
// line each, and fails if any before the last (stage done) holds the visit
// id, its norm's id or rule, or its condition as the id writes it, or, in
// play, its statement (a told visit's own rule aside; the probe offers it
// among four, by design).
func noVisitBeforeTheEnd(t *testing.T, trace, visit string) {
	t.Helper()
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	id, err := sim.ParseVisitID(visit)
	if err != nil {
		t.Fatal(err)
	}
	secrets := []string{visit, "/" + id.Condition + "/"}
	if id.Condition != sim.Told {
		// A told visit's observation states its rule, by design, in its
		// field "told": the condition is no secret there.
		secrets = append(secrets, `"`+id.Condition+`"`)
	}
	statement := ""
	if n, err := norms.Default().Lookup(id.Norm); err == nil {
		secrets = append(secrets, n.ID, n.Rule.String())
		if id.Condition != sim.Told {
			statement = n.Statement
		}
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) < 2 {
		t.Fatalf("the client traced %d observations", len(lines))
	}
	for i, l := range lines[:len(lines)-1] {
		hidden := secrets
		if statement != "" && !strings.Contains(l, `"stage": "probe"`) {
			hidden = append(slices.Clone(secrets), statement)
		}
		for _, s := range hidden {
			if strings.Contains(l, s) {
				t.Fatalf("observation %d of %d, before the end, holds %q: %.300s", i+1, len(lines), s, l)
			}
		}
	}
	if !strings.Contains(lines[len(lines)-1], visit) {
		t.Errorf("the last observation (the visit is over) does not name the visit")
	}
}

// goOut is what the Go example prints.
type goOut struct {
	Health       string   `json:"health"`
	Name         string   `json:"name"`
	ActionSchema string   `json:"action_schema"`
	FreshState   goState  `json:"fresh_state"`
	Visit        string   `json:"visit"`
	Actions      []string `json:"actions"`
	Hash         string   `json:"hash"`
	Reward       *float64 `json:"reward"`
	ProbeCorrect *bool    `json:"probe_correct"`
	RunID        string   `json:"run_id"`
	State        goState  `json:"state"`
}

type goState struct {
	EpisodeID *string `json:"episode_id"`
	StepCount int     `json:"step_count"`
}

// TestGoClient plays visits with the Go example, an OpenEnv client
// written from OpenEnv's own types (types.py) that decodes every answer
// as strictly as they do: /health, /metadata, /schema and a fresh /state
// over HTTP, then reset with seed and episode_id, steps, state and close
// over /ws. A practice visit drawn by seed is the suite's stratified
// draw; a key's visit is its sealed one, stored and replayable.
func TestGoClient(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the example")
	}
	hs, st, key := testServer(t)
	mini, _ := sim.LookupSuite("mini")
	bin := filepath.Join(t.TempDir(), "normgym-client")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	if out, err := exec.Command("go", "build", "-o", bin, "./go/normgym-client").CombinedOutput(); err != nil {
		t.Fatalf("building the Go example: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		name  string
		args  []string
		visit string
		keyed bool
	}{
		{"practice, seed 3", []string{"-seed", "3", "-episode", "ep-three"}, sim.Stratified(mini.Visits, 0)[3], false},
		{"a key's sealed visit", []string{"-key", key, "-episode", "ep-key"}, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			cmd := exec.Command(bin, append([]string{"-server", hs.URL, "-suite", "mini"}, tc.args...)...)
			cmd.Stderr = &stderr
			b, err := cmd.Output()
			if err != nil {
				t.Fatalf("the Go example: %v\n%s", err, stderr.String())
			}
			var out goOut
			if err := json.Unmarshal(b, &out); err != nil {
				t.Fatalf("the Go example printed %s: %v", b, err)
			}
			if out.Health != "healthy" || out.Name != "NormGym" || out.ActionSchema != "NormGymAction" ||
				out.FreshState.EpisodeID != nil || out.FreshState.StepCount != 0 {
				t.Errorf("the HTTP routes: %+v", out)
			}
			ep := tc.args[len(tc.args)-1]
			control := strings.Contains(out.Visit, "/"+sim.Control+"/") // a control visit has no probe
			if out.State.EpisodeID == nil || *out.State.EpisodeID != ep || out.State.StepCount != len(out.Actions) || out.Reward == nil || (out.ProbeCorrect == nil) != control {
				t.Fatalf("the visit: %+v", out)
			}
			visit := tc.visit
			if tc.keyed {
				// The key's sealed visit: mini's first cell in the server's order, under a secret seed.
				if !session.SealedVisit(out.Visit) {
					t.Fatalf("the key's visit %s: want a sealed seed", out.Visit)
				}
				visit = out.Visit
			}
			if out.Visit != visit {
				t.Fatalf("visit %s, want %s", out.Visit, visit)
			}
			if got, want := out.Hash, nativeHash(t, visit, out.Actions); got != want {
				t.Errorf("hash %s, want %s", got, want)
			}
			if tc.keyed {
				replayRun(t, st, out.RunID)
			} else if out.RunID != "" {
				t.Errorf("a practice visit stored run %s", out.RunID)
			}
		})
	}
}
