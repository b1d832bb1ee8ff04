package host_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
	"github.com/normgym/normgym/wasm/host"
)

// TestInfo compares the module's description, catalog and suites with
// the native packages'.
func TestInfo(t *testing.T) {
	r := compiler(t)
	ctx := context.Background()
	info, err := r.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.ABI != host.ABI || info.SimVersion != sim.Version || info.CatalogVersion != norms.Default().Version() {
		t.Errorf("info %d %s %s, want %d %s %s", info.ABI, info.SimVersion, info.CatalogVersion, host.ABI, sim.Version, norms.Default().Version())
	}
	if !reflect.DeepEqual(info.Worlds, sim.Worlds()) || !reflect.DeepEqual(info.Agents, agents.Names()) {
		t.Errorf("worlds or agents differ: %v", info.Agents)
	}
	all := sim.Suites()
	if len(info.Suites) != len(all) {
		t.Fatalf("%d suites, want %d", len(info.Suites), len(all))
	}
	for i, s := range all {
		if want := (host.SuiteInfo{Name: s.Name, Version: s.Version, Visits: len(s.Visits)}); info.Suites[i] != want {
			t.Errorf("suite %d: %+v, want %+v", i, info.Suites[i], want)
		}
	}
	ns, err := r.Norms(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ns, norms.Default().Norms()) {
		t.Error("the module's catalog differs from the native one")
	}
	suites, err := r.Suites(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(suites, all) {
		t.Error("the module's suites differ from the native ones")
	}
	mini, err := r.Suite(ctx, "mini")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(mini, all[0]) {
		t.Error("Suite(mini) differs")
	}
}

// TestVisitScore checks observe, score, probe and answer against a native
// Env at a few points of a visit.
func TestVisitScore(t *testing.T) {
	r := compiler(t)
	ctx := context.Background()
	visit := suiteVisits(t, "mini")[1]
	v, _, _, err := r.Reset(ctx, visit)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close(ctx)
	env, _, _ := sim.NewVisit(visit)
	actions := []string{"north", "north", "east", "pick", "bow", "use", "drop", "west"}
	for i, a := range actions {
		if _, err := v.Step(ctx, a); err != nil {
			t.Fatal(err)
		}
		act, _ := sim.ParseAction(a)
		env.Step(act)
		sc, err := v.Score(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if want := (host.Score{Scores: env.Scores(), Hash: env.Hash(), Over: env.Over()}); !reflect.DeepEqual(sc, want) {
			t.Fatalf("after %d steps: score %+v, want %+v", i+1, sc, want)
		}
		obs, text, err := v.Observe(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if want := env.Observe(); !reflect.DeepEqual(obs, want) || text != want.Text() {
			t.Fatalf("after %d steps: the observation differs", i+1)
		}
	}
	if _, err := v.Probe(ctx); !errors.Is(err, sim.ErrNotOver) {
		t.Fatalf("probe before the end: %v, want sim.ErrNotOver", err)
	}
	for !env.Over() {
		if _, err := v.Step(ctx, "wait"); err != nil {
			t.Fatal(err)
		}
		env.Step(sim.Action{Verb: sim.Wait})
	}
	p, err := v.Probe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := env.Probe(); p.Question != want.Question || !reflect.DeepEqual(p.Options, want.Options) {
		t.Errorf("probe %+v, want %+v", p, want)
	}
	k, c := len(p.Options)-1, 0.25
	got, err := v.Answer(ctx, k, &c)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := env.Answer(k); got != want {
		t.Errorf("answer %d: correct %v, want %v", k, got, want)
	}
	if again, err := v.Answer(ctx, k, nil); err != nil || again != got {
		t.Errorf("the same answer again: %v, %v; want %v (a retry)", again, err, got)
	}
	if _, err := v.Answer(ctx, 0, nil); !errors.Is(err, sim.ErrAnswered) {
		t.Errorf("another answer: %v, want sim.ErrAnswered", err)
	}
	rec, err := v.Record(ctx, "tester", "human")
	if err != nil {
		t.Fatal(err)
	}
	want := env.Record("tester", "human")
	want.SimSHA256, want.Probe.Confidence = r.SHA256(), &c
	if !reflect.DeepEqual(rec, want) {
		t.Errorf("record %+v, want %+v", rec, want)
	}
}
