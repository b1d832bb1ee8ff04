package sim_test

import (
	"slices"
	"testing"

	"github.com/normgym/normgym/sim"
)

// TestStratified: the order holds every visit once, is the same for the
// same seed and another for another seed, and its prefixes are balanced:
// --sample 40 --seed 1 on standard covers at least 30 norms and all five
// conditions, and seeds 0..9 of the server's order (seed 0) give ten
// different norms.
func TestStratified(t *testing.T) {
	for _, tc := range []struct {
		suite         string
		n             int
		seed          uint64
		minNorms      int
		minConditions int
	}{
		{"standard", 40, 1, 30, 5},
		{"standard", 10, 0, 10, 4},
		{"mini", 20, 7, 14, 4},
		{"train", 30, 3, 25, 4},
		{"hard", 20, 2, 20, 2},
	} {
		t.Run(tc.suite, func(t *testing.T) {
			su, err := sim.LookupSuite(tc.suite)
			if err != nil {
				t.Fatal(err)
			}
			order := sim.Stratified(su.Visits, tc.seed)
			if got, want := slices.Sorted(slices.Values(order)), slices.Sorted(slices.Values(su.Visits)); !slices.Equal(got, want) {
				t.Fatalf("the order does not hold every visit of %s once", tc.suite)
			}
			if again := sim.Stratified(su.Visits, tc.seed); !slices.Equal(again, order) {
				t.Errorf("two orders with seed %d differ", tc.seed)
			}
			if other := sim.Stratified(su.Visits, tc.seed+1); slices.Equal(other, order) {
				t.Errorf("seeds %d and %d give the same order", tc.seed, tc.seed+1)
			}
			s := sim.Sample(su.Visits, tc.n, tc.seed)
			if !slices.Equal(s, order[:tc.n]) {
				t.Errorf("Sample is not the order's first %d", tc.n)
			}
			c := sim.Compose(s)
			if len(c.Norms) < tc.minNorms || len(c.Conditions) < tc.minConditions {
				t.Errorf("--sample %d --seed %d of %s: %s; want at least %d norms and %d conditions", tc.n, tc.seed, tc.suite, c, tc.minNorms, tc.minConditions)
			}
			// The first round takes every norm once: a prefix no longer
			// than the norms holds no norm twice.
			all := len(sim.Compose(su.Visits).Norms)
			if p := sim.Compose(order[:min(tc.n, all)]); len(p.Norms) != min(tc.n, all) {
				t.Errorf("the first %d of the order hold %d norms, want %d", min(tc.n, all), len(p.Norms), min(tc.n, all))
			}
			t.Logf("%s --sample %d --seed %d: %s", tc.suite, tc.n, tc.seed, c)
		})
	}
}

// TestStratifiedConditions: on standard, the first 40 of seed 1 hold all
// five conditions, no learning condition more than twice another's, and
// any seed's first five hold every condition.
func TestStratifiedConditions(t *testing.T) {
	su, _ := sim.LookupSuite("standard")
	c := sim.Compose(sim.Sample(su.Visits, 40, 1))
	if len(c.Conditions) != 5 {
		t.Fatalf("conditions %v, want all five", c.Conditions)
	}
	lo, hi := 1<<30, 0
	for _, k := range []string{sim.Observe, sim.Peers, sim.Solo, sim.Told} {
		lo, hi = min(lo, c.Conditions[k]), max(hi, c.Conditions[k])
	}
	if hi > 2*lo {
		t.Errorf("learning conditions %v: unbalanced", c.Conditions)
	}
	// Every condition comes within the first five, control (one norm's
	// only condition) among them, whatever the seed.
	for seed := range uint64(20) {
		if c := sim.Compose(sim.Sample(su.Visits, 5, seed)); len(c.Conditions) != 5 {
			t.Errorf("seed %d: the first five hold %v, want every condition", seed, c.Conditions)
		}
	}
}

func TestSampleAll(t *testing.T) {
	su, _ := sim.LookupSuite("mini")
	for _, n := range []int{0, len(su.Visits), len(su.Visits) + 5} {
		if got := sim.Sample(su.Visits, n, 4); len(got) != len(su.Visits) {
			t.Errorf("Sample(%d) = %d visits, want all %d", n, len(got), len(su.Visits))
		}
	}
}
