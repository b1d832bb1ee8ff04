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
	"strings"
	"testing"

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
	Visit     string   `json:"visit"`
	Actions   []string `json:"actions"`
	Hash      string   `json:"hash"`
	Reward    *float64 `json:"reward"`
	RunID     string   `json:"run_id"`
	StepCount int      `json:"step_count"`
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
// session through /ws and over HTTP, and a key's session through /ws.
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
		{"websocket", mini.Visits[1], nil, false},
		{"http", mini.Visits[2], []string{"--http"}, false},
		{"websocket with a key", "", []string{"--key", key, "--suite", "mini"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{filepath.Join("python", "normgym_client.py"), hs.URL}
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
			if tc.keyed {
				// The key's sealed visit: mini's first cell under a secret seed.
				if !session.SealedVisit(out.Visit) || session.Cell(out.Visit) != session.Cell(mini.Visits[0]) {
					t.Fatalf("the key's visit %s: want the cell of %s under a sealed seed", out.Visit, mini.Visits[0])
				}
				want = out.Visit
			}
			if out.Visit != want || len(out.Actions) == 0 || out.StepCount != len(out.Actions) || out.Reward == nil {
				t.Fatalf("client output: %+v", out)
			}
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

// TestGoClient plays a visit with the Go example (go run) with a key.
func TestGoClient(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the example")
	}
	hs, st, key := testServer(t)
	mini, _ := sim.LookupSuite("mini")
	visit := mini.Visits[0]
	bin := filepath.Join(t.TempDir(), "normgym-client")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	if out, err := exec.Command("go", "build", "-o", bin, "./go/normgym-client").CombinedOutput(); err != nil {
		t.Fatalf("building the Go example: %v\n%s", err, out)
	}
	b, err := exec.Command(bin, "-server", hs.URL, "-suite", "mini", "-key", key).Output()
	if err != nil {
		t.Fatalf("the Go example: %v", err)
	}
	var out struct {
		Actions []string           `json:"actions"`
		Result  *api.SessionResult `json:"result"`
	}
	if err := json.Unmarshal(b, &out); err != nil || out.Result == nil || out.Result.Record == nil {
		t.Fatalf("the Go example printed %s: %v", b, err)
	}
	// The key's sealed visit: mini's first cell under a secret seed.
	if v := out.Result.Record.Visit; !session.SealedVisit(v) || session.Cell(v) != session.Cell(visit) {
		t.Fatalf("the key's visit %s: want the cell of %s under a sealed seed", v, visit)
	}
	visit = out.Result.Record.Visit
	if got, want := out.Result.Hash, nativeHash(t, visit, out.Actions); got != want {
		t.Errorf("hash %s, want %s", got, want)
	}
	replayRun(t, st, out.Result.RunID)
}
