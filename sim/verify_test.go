package sim_test

import (
	"slices"
	"testing"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
)

func TestVerifyNamesEachTamperedField(t *testing.T) {
	const visit = "harbor/time.rest=noon/observe/s9"
	env, err := agents.Play(visit, "observer")
	if err != nil {
		t.Fatal(err)
	}
	honest := env.Record("observer", "baseline")
	tests := []struct {
		name string
		edit func(*sim.Record)
		want []string
	}{
		{"honest", func(*sim.Record) {}, []string{}},
		{"hash", func(r *sim.Record) { r.Hash = "00" }, []string{"hash"}},
		{"joint", func(r *sim.Record) { r.Scores.Joint = !r.Scores.Joint }, []string{"scores.joint"}},
		{"family", func(r *sim.Record) { r.Family = "place" }, []string{"family"}},
		{"probe", func(r *sim.Record) { r.Probe.Correct = !r.Probe.Correct }, []string{"probe.correct"}},
		{"confidence", func(r *sim.Record) { c := 1.5; r.Probe.Confidence = &c }, []string{"probe.confidence"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := honest
			p := *honest.Probe
			r.Probe = &p
			tt.edit(&r)
			out, diffs, err := sim.Verify(r)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(diffs, tt.want) {
				t.Errorf("diffs = %v, want %v", diffs, tt.want)
			}
			if out.Hash != honest.Hash {
				t.Errorf("recomputed hash %s, want the honest %s", out.Hash, honest.Hash)
			}
		})
	}
}
