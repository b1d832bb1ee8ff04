package agents_test

import (
	"reflect"
	"testing"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
)

// TestPlayMatchesRun: Play, which writes every step's observation over
// the previous one (sim.Visit.StepInto), gives every baseline the same run
// as Run, which hands it a new observation every step. A baseline that
// kept part of an observation between steps would differ here.
func TestPlayMatchesRun(t *testing.T) {
	mini, err := sim.LookupSuite("mini")
	if err != nil {
		t.Fatal(err)
	}
	var visits []string
	for k := 0; k < len(mini.Visits); k += 5 {
		visits = append(visits, mini.Visits[k])
	}
	for _, name := range agents.Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, visit := range visits {
				played, err := agents.Play(visit, name)
				if err != nil {
					t.Fatal(err)
				}
				fresh, _, err := sim.NewVisit(visit)
				if err != nil {
					t.Fatal(err)
				}
				p, err := agents.ForEnv(name, fresh)
				if err != nil {
					t.Fatal(err)
				}
				ran, err := agents.Run(visit, p)
				if err != nil {
					t.Fatal(err)
				}
				if got, want := played.Record(name, "baseline"), ran.Record(name, "baseline"); !reflect.DeepEqual(got, want) {
					t.Errorf("%s: Play gave hash %.12s, scores %+v; Run gave %.12s, %+v", visit, got.Hash, got.Scores, want.Hash, want.Scores)
				}
			}
		})
	}
}
