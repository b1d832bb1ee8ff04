package agents_test

import (
	"testing"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
	"github.com/normgym/normgym/sim/validity"
)

// The harder tier's floors (sim/DESIGN.md, Headroom): made of norms no
// single feature of one act reveals, it is valid only if the oracle
// solves it, greedy keeps no norm of it by chance, and the learners that
// read one feature of one act — the observer over the grammar's
// one-feature rules, the counting reference — stay well below the oracle.
const (
	minHarderOracle   = 0.95
	maxHarderObserver = 0.80
	maxHarderCounter  = 0.60
)

func TestHarderTierHeadroom(t *testing.T) {
	if testing.Short() {
		t.Skip("plays four baselines over the harder suite; skipped with -short")
	}
	s, err := sim.LookupSuite(sim.Harder)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{agents.Oracle, "observer", agents.Counter, "greedy"}
	out, err := runVisits(s.Visits, names, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := &suiteRuns{suite: s, names: names, out: out}
	tests := []struct {
		agent    string
		min, max float64
	}{
		{agents.Oracle, minHarderOracle, 1},
		{"observer", 0, maxHarderObserver},
		{agents.Counter, 0, maxHarderCounter},
	}
	for _, tc := range tests {
		t.Run(tc.agent, func(t *testing.T) {
			f := r.tally(tc.agent, anyVisit, joint)
			t.Logf("%s joint success on %s: %s (%d visits)", tc.agent, sim.Harder, interval(f), f.n)
			if got := f.rate(); got < tc.min || got > tc.max {
				t.Errorf("%s joint = %v, want within [%.2f, %.2f]", tc.agent, f, tc.min, tc.max)
			}
		})
	}
	for _, n := range norms.Default().Norms() {
		if sim.Tier(n) != 2 {
			continue
		}
		t.Run("chance/"+n.ID, func(t *testing.T) {
			f := r.tally("greedy", func(o outcome) bool { return o.Visit.Norm == n.ID }, compliant)
			if f.n == 0 {
				t.Fatalf("no visits of %s in %s", n.ID, sim.Harder)
			}
			if got, want := f.rate(), validity.MaxChance; got > want {
				t.Errorf("greedy complies by chance on %v of %s's visits, want ≤ %.2f", f, n.ID, want)
			}
		})
	}
}
