package agents

import (
	"math"
	"slices"
	"testing"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
)

// lookupNorm returns the public norm id, failing the test if there is none.
func lookupNorm(t *testing.T, id string) norms.Norm {
	t.Helper()
	n, err := norms.Default().Lookup(id)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestLearnerHypotheses: the observer's hypotheses are the grammar's
// one-feature rules, which hold every tier-1 norm of the catalog; a told
// statement narrows them to the rules the catalog gives it (a compound's
// clauses, one of them outside the space), and a statement no norm says
// narrows nothing.
func TestLearnerHypotheses(t *testing.T) {
	if got, want := len(newLearner(true, norms.Default()).hyps), len(norms.OneFeatureRules()); got != want {
		t.Fatalf("the observer has %d hypotheses, want the %d one-feature rules", got, want)
	}
	space := newLearner(true, norms.Default())
	for _, n := range norms.Default().Norms() {
		if sim.Tier(n) != 1 {
			continue
		}
		if _, ok := space.hypIndex(n.Rule); !ok {
			t.Errorf("tier-1 norm %s (%s) is not a hypothesis", n.ID, n.RuleText())
		}
	}
	tests := []struct {
		name, told string
		want       []string
	}{
		{"a tier-1 norm", lookupNorm(t, "place.color=blue").Statement, []string{"forbid step color=blue"}},
		{"a compound", lookupNorm(t, "when.ground=sand-noon").Statement,
			[]string{"forbid step terrain=sand phase=noon", "require bow before give"}},
		{"words no norm says", "Always whistle at the well.", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := newLearner(true, norms.Default())
			l.tell(tc.told)
			var got []string
			for _, r := range l.hyps {
				got = append(got, r.String())
			}
			if tc.want == nil {
				if len(got) != len(norms.OneFeatureRules()) {
					t.Errorf("told %q: %d hypotheses, want the whole space", tc.told, len(got))
				}
				return
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("told %q: hypotheses %q, want %q", tc.told, got, tc.want)
			}
			if got, want := len(l.suspects()), len(tc.want); got != want {
				t.Errorf("told %q: respects %d rules, want all %d it was told", tc.told, got, want)
			}
		})
	}
}

// TestLearnerAnswer: a probe option scores the posterior its rule's
// clauses hold among the hypotheses, read through the catalog; options
// no hypothesis is part of score nothing, and ties go to the first.
func TestLearnerAnswer(t *testing.T) {
	blue, sand, bell := lookupNorm(t, "place.color=blue"), lookupNorm(t, "place.terrain=sand"), lookupNorm(t, "order.bell=market")
	compound := lookupNorm(t, "when.ground=sand-noon") // its partner: require bow before give
	gift := lookupNorm(t, "gift.bow=before")
	tests := []struct {
		name    string
		likely  map[string]float64 // log posterior of some hypotheses; the rest 0
		options []string
		want    int
	}{
		{"the most probable rule", map[string]float64{"forbid step color=blue": 5, "forbid step terrain=sand": 2},
			[]string{sand.Statement, bell.Statement, blue.Statement, gift.Statement}, 2},
		{"far below the best still counts", map[string]float64{"forbid step color=blue": -900, "forbid step terrain=sand": -1000},
			[]string{sand.Statement, blue.Statement}, 1},
		{"a compound by its one-feature clause", map[string]float64{"require bow before give": 3},
			[]string{blue.Statement, compound.Statement}, 1},
		{"ties go to the first", nil, []string{bell.Statement, blue.Statement}, 0},
		{"words no norm says score nothing", map[string]float64{"forbid step color=blue": -50},
			[]string{"Always whistle at the well.", blue.Statement}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := newLearner(true, norms.Default())
			for text, lp := range tc.likely {
				h, ok := l.hypIndex(norms.MustParse(text))
				if !ok {
					t.Fatalf("%q is not a hypothesis", text)
				}
				l.logp[h] = lp
			}
			if got := l.Answer(&sim.Probe{Options: tc.options}); got != tc.want {
				t.Errorf("answer %d (%q), want %d (%q)", got, tc.options[got], tc.want, tc.options[tc.want])
			}
		})
	}
	if got := (&learner{}).optionScore(nil); !math.IsInf(got, -1) {
		t.Errorf("an option with no hypothesis scores %v, want -Inf", got)
	}
}

// TestLearnerPrivateCatalog: on a generated private catalog, whose rules
// no public list holds, the observer told the rule plays by it and names
// it in the probe, reading both through the visit's catalog.
func TestLearnerPrivateCatalog(t *testing.T) {
	files := map[string][]byte{}
	for i, f := range norms.FamilyFiles(norms.Candidates(11, 8, norms.Default())) {
		files[string(rune('a'+i))+".json"] = f
	}
	cat, err := norms.LoadFiles(files)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range cat.Norms()[:4] {
		t.Run(n.ID, func(t *testing.T) {
			id := sim.VisitID{World: sim.WorldNames()[i%len(sim.WorldNames())], Norm: n.ID, Condition: sim.Told, Seed: uint64(i)}
			env, err := PlayIn(cat, id.String(), "observer")
			if err != nil {
				t.Fatal(err)
			}
			if got := env.Record("observer", "baseline").Probe; got == nil || !got.Correct {
				t.Errorf("told %q, the observer's probe answer is %+v, want the rule", n.Statement, got)
			}
		})
	}
}

// TestInsertTop: the kept hypotheses are the most probable, first, ties
// in the order inserted, at most maxTop.
func TestInsertTop(t *testing.T) {
	tests := []struct {
		name string
		logp []float64
		want []int
	}{
		{"most probable first", []float64{1, 3, 2}, []int{1, 2, 0}},
		{"ties in order", []float64{0, 5, 0, 5}, []int{1, 3, 0, 2}},
		{"at most maxTop", []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, []int{9, 8, 7, 6, 5, 4, 3, 2}},
		{"a tie past the end is left out", []float64{1, 1, 1, 1, 1, 1, 1, 1, 1}, []int{0, 1, 2, 3, 4, 5, 6, 7}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var top []int
			for h := range tc.logp {
				top = insertTop(top, h, tc.logp)
			}
			if !slices.Equal(top, tc.want) {
				t.Errorf("top = %v, want %v", top, tc.want)
			}
		})
	}
}
