package sim_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/validity"
)

// TestProbeIsFair: on the standard suite, no play-free heuristic
// (validity.Heuristics: a pick from the four options, the public catalog
// and the first observation alone) does better or worse than chance: each
// stays within the 95% interval of a fair four-way guess. Told visits are
// left out: there the rule was stated, and their probe is reported apart
// as an upper bound.
func TestProbeIsFair(t *testing.T) {
	figs, err := validity.ProbeFairness(norms.Default())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(figs), len(validity.Heuristics(norms.Default())); got != want || got == 0 {
		t.Fatalf("%d figures for %d heuristics", got, want)
	}
	for _, f := range figs {
		t.Run(f.Name, func(t *testing.T) {
			t.Logf("%s: %s (chance %s)", f.Name, f.Detail, f.Want)
			if !f.OK {
				t.Errorf("%s scores %s, outside chance's 95%% interval %s", f.Name, f.Detail, f.Want)
			}
		})
	}
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

// TestProbeOptions: four distinct statements of the catalog, the rule
// among them, at least one option from another family, the same options
// for the same visit id.
func TestProbeOptions(t *testing.T) {
	cat := norms.Default()
	s, _ := sim.LookupSuite("mini")
	for _, id := range s.Visits {
		v, _ := sim.ParseVisitID(id)
		if v.Condition == sim.Control {
			continue
		}
		env, _, err := sim.NewVisit(id)
		if err != nil {
			t.Fatal(err)
		}
		p := env.Probe()
		rule, _ := cat.Lookup(v.Norm)
		other := false
		right := 0
		for k, o := range p.Options {
			var n norms.Norm
			for _, m := range cat.Norms() {
				if m.Statement == o {
					n = m
				}
			}
			if n.ID == "" {
				t.Errorf("%s: option %q is no statement of the catalog", id, o)
			}
			if n.Family != rule.Family {
				other = true
			}
			if p.Correct(k) {
				right++
				if o != rule.Statement {
					t.Errorf("%s: the correct option is %q, want the rule %q", id, o, rule.Statement)
				}
			}
		}
		if got, want := len(p.Options), 4; got != want || len(slices.Compact(sortedCopy(p.Options))) != 4 {
			t.Errorf("%s: options %q, want 4 distinct", id, p.Options)
		}
		if right != 1 {
			t.Errorf("%s: %d correct options, want 1", id, right)
		}
		if !other {
			t.Errorf("%s: every option is of the %s family, want one from another", id, rule.Family)
		}
		again, _, _ := sim.NewVisit(id)
		if !slices.Equal(again.Probe().Options, p.Options) {
			t.Errorf("%s: the options changed between two resets", id)
		}
	}
}

// TestAnswerErrors: Answer refuses a visit with no probe and an option out
// of range with the exported sentinels, and records nothing.
func TestAnswerErrors(t *testing.T) {
	tests := []struct {
		name  string
		visit string
		k     int
		want  error
	}{
		{name: "control", visit: "orchard/none/control/s1", k: 0, want: sim.ErrNoProbe},
		{name: "negative", visit: "orchard/place.color=blue/observe/s17", k: -1, want: sim.ErrBadAnswer},
		{name: "past the options", visit: "orchard/place.color=blue/observe/s17", k: 4, want: sim.ErrBadAnswer},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, _, err := sim.NewVisit(tc.visit)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := env.Answer(tc.k); !errors.Is(err, tc.want) {
				t.Errorf("Answer(%d) error = %v, want %v", tc.k, err, tc.want)
			}
			if got := env.ProbeAnswer(); got != -1 {
				t.Errorf("ProbeAnswer() = %d after a refused answer, want -1", got)
			}
		})
	}
}
