package host_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
	"github.com/normgym/normgym/wasm/host"
)

// native plays visit with baseline agent in the Go core directly.
func native(t testing.TB, visit, agent string) sim.Record {
	t.Helper()
	env, err := agents.Play(visit, agent)
	if err != nil {
		t.Fatal(err)
	}
	return env.Record(agent, "baseline")
}

// stepwise plays visit in r one step at a time, with the native baseline
// deciding each action from the observation decoded from the module. A
// native Env runs in lockstep: every observation and text must match.
func stepwise(t testing.TB, r *host.Runtime, visit, agent string) sim.Record {
	t.Helper()
	ctx := context.Background()
	env, want, err := sim.NewVisit(visit)
	if err != nil {
		t.Fatal(err)
	}
	p, err := agents.ForEnv(agent, env)
	if err != nil {
		t.Fatal(err)
	}
	v, obs, text, err := r.Reset(ctx, visit)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close(ctx)
	for step := 0; ; step++ {
		if !reflect.DeepEqual(obs, want) {
			t.Fatalf("%s: step %d: the module's observation differs from the native one", visit, step)
		}
		if got, want := text, want.Text(); got != want {
			t.Fatalf("%s: step %d: text\n%s\nwant\n%s", visit, step, got, want)
		}
		if obs.Done {
			break
		}
		a := p.Act(obs)
		res, err := v.Step(ctx, a.String())
		if err != nil {
			t.Fatalf("%s: step %d: %v", visit, step, err)
		}
		nres, err := env.Step(a)
		if err != nil {
			t.Fatal(err)
		}
		if res.Done() != nres.Done() || res.DayOver != nres.DayOver || !slices.Equal(res.Events, nres.Events) {
			t.Fatalf("%s: step %d: result %+v, native %+v", visit, step, res, nres)
		}
		obs, text, want = res.Observation, res.Text, nres.Observation
	}
	if pr, err := v.Probe(ctx); err == nil {
		if _, err := v.Answer(ctx, p.Answer(pr), nil); err != nil {
			t.Fatal(err)
		}
	} else if env.Probe() != nil {
		t.Fatalf("%s: probe: %v", visit, err)
	}
	rec, err := v.Record(ctx, agent, "baseline")
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// same fails unless got (from the module) and want (native) hold the same
// trajectory, scores, probe answer and hash.
func same(t testing.TB, how string, got, want sim.Record) {
	t.Helper()
	got.SimSHA256, want.SimSHA256 = "", ""
	if reflect.DeepEqual(got, want) {
		return
	}
	switch {
	case !slices.Equal(got.Actions, want.Actions):
		t.Errorf("%s %s/%s: actions differ\n got %v\nwant %v", how, want.Visit, want.Agent, got.Actions, want.Actions)
	case got.Hash != want.Hash:
		t.Errorf("%s %s/%s: hash %s, want %s", how, want.Visit, want.Agent, got.Hash, want.Hash)
	default:
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Errorf("%s %s/%s: records differ\n got %s\nwant %s", how, want.Visit, want.Agent, g, w)
	}
}

func suiteVisits(t testing.TB, name string) []string {
	t.Helper()
	s, err := sim.LookupSuite(name)
	if err != nil {
		t.Fatal(err)
	}
	return s.Visits
}

// every returns every k-th element of list, n at most.
func every(list []string, k, n int) []string {
	var out []string
	for i := 0; i < len(list) && len(out) < n; i += k {
		out = append(out, list[i])
	}
	return out
}

// TestDifferentialMini compares, for every visit of the mini suite, the
// native core with the module's in-module run and with a step-by-step run
// driven from the host.
func TestDifferentialMini(t *testing.T) {
	r := compiler(t)
	visits := suiteVisits(t, "mini")
	cases := []struct {
		agent  string
		visits []string
	}{
		{"greedy", visits},
		{"observer", visits},
		{"oracle", every(visits, 4, 15)},
	}
	for _, c := range cases {
		t.Run(c.agent, func(t *testing.T) {
			for _, visit := range c.visits {
				t.Run(visit, func(t *testing.T) {
					t.Parallel()
					want := native(t, visit, c.agent)
					got, err := r.RunBaseline(context.Background(), visit, c.agent)
					if err != nil {
						t.Fatal(err)
					}
					if got.SimSHA256 != r.SHA256() {
						t.Errorf("sim_sha256 %q, want %q", got.SimSHA256, r.SHA256())
					}
					same(t, "run", got, want)
					same(t, "step", stepwise(t, r, visit, c.agent), want)
				})
			}
		})
	}
}

// TestDifferentialStandard compares native runs with batched in-module
// runs on a sample of the standard suite, on an Uninterruptible runtime.
func TestDifferentialStandard(t *testing.T) {
	r := uninterruptible(t)
	visits := every(suiteVisits(t, "standard"), 19, 40)
	for _, agent := range []string{"greedy", "observer"} {
		t.Run(agent, func(t *testing.T) {
			t.Parallel()
			// Two batches, so both pooled instances work.
			half := len(visits) / 2
			for _, batch := range [][]string{visits[:half], visits[half:]} {
				t.Run("batch", func(t *testing.T) {
					t.Parallel()
					got, err := r.RunBaselines(context.Background(), batch, agent)
					if err != nil {
						t.Fatal(err)
					}
					if len(got) != len(batch) {
						t.Fatalf("%d records for %d visits", len(got), len(batch))
					}
					for i, visit := range batch {
						same(t, "batch", got[i], native(t, visit, agent))
					}
				})
			}
		})
	}
}

// TestDifferentialInterpreter runs a sample through wazero's interpreter.
func TestDifferentialInterpreter(t *testing.T) {
	if testing.Short() {
		t.Skip("slow under -short")
	}
	r := interpreter(t)
	visits := every(suiteVisits(t, "mini"), 6, 10)
	for i, visit := range visits {
		t.Run(visit, func(t *testing.T) {
			t.Parallel()
			agent := "greedy"
			if i%3 == 0 {
				agent = "observer"
			}
			got, err := r.RunBaseline(context.Background(), visit, agent)
			if err != nil {
				t.Fatal(err)
			}
			want := native(t, visit, agent)
			same(t, "interpreter run", got, want)
			if i%3 == 1 {
				same(t, "interpreter step", stepwise(t, r, visit, agent), want)
			}
		})
	}
}

// golden is one line of testdata/golden_hashes.json.
type golden struct {
	Visit string `json:"visit"`
	Agent string `json:"agent"`
	Hash  string `json:"hash"`
}

const goldenFile = "testdata/golden_hashes.json"

// TestGoldenHashes pins the trajectory hashes of a few visits, natively
// and in the module. A change is a change of the simulation: bump
// sim.Version and rewrite the file with go test -run Golden -update.
func TestGoldenHashes(t *testing.T) {
	r := compiler(t)
	agentsFor := []string{"greedy", "observer", "oracle", "self", "random"}
	var cases []golden
	for i, visit := range every(suiteVisits(t, "mini"), 5, 12) {
		cases = append(cases, golden{Visit: visit, Agent: agentsFor[i%len(agentsFor)]})
	}
	for i := range cases {
		rec, err := r.RunBaseline(context.Background(), cases[i].Visit, cases[i].Agent)
		if err != nil {
			t.Fatal(err)
		}
		cases[i].Hash = rec.Hash
		if nat := native(t, cases[i].Visit, cases[i].Agent); nat.Hash != rec.Hash {
			t.Errorf("%s/%s: module hash %s, native %s", cases[i].Visit, cases[i].Agent, rec.Hash, nat.Hash)
		}
	}
	path := filepath.FromSlash(goldenFile)
	if *update {
		b, err := json.MarshalIndent(cases, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", path)
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (create it with -update)", err)
	}
	var want []golden
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if len(want) != len(cases) {
		t.Fatalf("%s has %d entries, the test computes %d: rewrite it with -update", path, len(want), len(cases))
	}
	for i, w := range want {
		if got := cases[i]; got != w {
			t.Errorf("%s/%s: hash %s, golden %s/%s %s", got.Visit, got.Agent, got.Hash, w.Visit, w.Agent, w.Hash)
		}
	}
}
