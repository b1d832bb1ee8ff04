package host_test

import (
	"context"
	"testing"

	"github.com/normgym/normgym/sim/agents"
)

// StepText gives the same text, events and standing as Step, without the
// structured observation.
func TestStepTextMatchesStep(t *testing.T) {
	ctx := context.Background()
	rt := compiler(t)
	const visit = "library/order.bow=pick/peers/s4"
	env, err := agents.Play(visit, "greedy")
	if err != nil {
		t.Fatal(err)
	}
	full, _, _, err := rt.Reset(ctx, visit)
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close(ctx)
	lean, _, _, err := rt.Reset(ctx, visit)
	if err != nil {
		t.Fatal(err)
	}
	defer lean.Close(ctx)
	for i, a := range env.Actions() {
		want, err := full.Step(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		got, err := lean.StepText(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		if got.Observation != nil {
			t.Fatalf("step %d: StepText returned an observation", i)
		}
		if got.Text != want.Text || got.Day != want.Observation.Day || got.Step != want.Observation.Frame.Step ||
			got.Over != want.Observation.Done || got.Done() != want.Done() || len(got.Events) != len(want.Events) {
			t.Fatalf("step %d: StepText = day %d step %d over %v, want day %d step %d over %v (or text/events differ)",
				i, got.Day, got.Step, got.Over, want.Observation.Day, want.Observation.Frame.Step, want.Observation.Done)
		}
	}
	if rec, err := lean.Record(ctx, "greedy", "baseline"); err != nil || rec.Hash != env.Hash() {
		t.Errorf("hash after StepText = %v (%v), want %s", rec.Hash, err, env.Hash())
	}
}
