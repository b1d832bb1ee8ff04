package sim_test

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
)

// A play-free heuristic picks a probe option from what anyone has without
// playing: the four options, the public catalog and the first observation.
type heuristic struct {
	name string
	pick func(options []string, first string) int
}

// heuristics are the shortcuts a sceptical reviewer would try.
func heuristics() []heuristic {
	cat := norms.Default()
	byStatement := map[string]norms.Norm{}
	for _, n := range cat.Norms() {
		byStatement[n.Statement] = n
	}
	famSize := func(o string) int { return len(cat.Family(byStatement[o].Family)) }
	argBest := func(options []string, score func(string) float64) int {
		best, bestV := 0, math.Inf(-1)
		for k, o := range options {
			if v := score(o); v > bestV {
				best, bestV = k, v
			}
		}
		return best
	}
	familyCount := func(options []string, o string) int {
		n := 0
		for _, p := range options {
			if byStatement[p].Family == byStatement[o].Family {
				n++
			}
		}
		return n
	}
	overlap := func(o, text string) float64 {
		n := 0
		for _, w := range strings.Fields(strings.ToLower(strings.Trim(o, "."))) {
			if strings.Contains(text, w) {
				n++
			}
		}
		return float64(n)
	}
	return []heuristic{
		{"first option", func([]string, string) int { return 0 }},
		{"last option", func(o []string, _ string) int { return len(o) - 1 }},
		{"longest statement", func(o []string, _ string) int { return argBest(o, func(s string) float64 { return float64(len(s)) }) }},
		{"shortest statement", func(o []string, _ string) int { return argBest(o, func(s string) float64 { return -float64(len(s)) }) }},
		{"the family most options share", func(o []string, _ string) int {
			return argBest(o, func(s string) float64 { return float64(familyCount(o, s)) })
		}},
		{"the family alone among the options", func(o []string, _ string) int {
			return argBest(o, func(s string) float64 { return -float64(familyCount(o, s)) })
		}},
		{"commonsense first", func(o []string, _ string) int {
			return argBest(o, func(s string) float64 {
				if byStatement[s].Tag == norms.TagCommonsense {
					return 1
				}
				return 0
			})
		}},
		{"counterintuitive first", func(o []string, _ string) int {
			return argBest(o, func(s string) float64 {
				if byStatement[s].Tag == norms.TagCounterintuitive {
					return 1
				}
				return 0
			})
		}},
		{"largest family", func(o []string, _ string) int {
			return argBest(o, func(s string) float64 { return float64(famSize(s)) })
		}},
		{"smallest family", func(o []string, _ string) int {
			return argBest(o, func(s string) float64 { return -float64(famSize(s)) })
		}},
		{"alphabetically first", func(o []string, _ string) int {
			return argBest(o, func(s string) float64 { return -float64(slices.Index(sortedCopy(o), s)) })
		}},
		{"most words shared with the first observation", func(o []string, first string) int {
			return argBest(o, func(s string) float64 { return overlap(s, first) })
		}},
		{"fewest words shared with the first observation", func(o []string, first string) int {
			return argBest(o, func(s string) float64 { return -overlap(s, first) })
		}},
	}
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

// TestProbeIsFair: on the standard suite, no play-free heuristic does
// better or worse than chance: each stays within the 95% interval of a
// fair four-way guess. Told visits are left out: there the rule was
// stated, and their probe is reported apart as an upper bound.
func TestProbeIsFair(t *testing.T) {
	s, err := sim.LookupSuite("standard")
	if err != nil {
		t.Fatal(err)
	}
	hs := heuristics()
	hits := make([]int, len(hs))
	n := 0
	for _, id := range s.Visits {
		v, err := sim.ParseVisitID(id)
		if err != nil {
			t.Fatal(err)
		}
		if v.Condition == sim.Control || v.Condition == sim.Told {
			continue
		}
		env, obs, err := sim.NewVisit(id)
		if err != nil {
			t.Fatal(err)
		}
		p := env.Probe()
		first := strings.ToLower(obs.Text())
		n++
		for i, h := range hs {
			if p.Correct(h.pick(p.Options, first)) {
				hits[i]++
			}
		}
	}
	half := 1.959963984540054 * math.Sqrt(0.25*0.75/float64(n))
	for i, h := range hs {
		t.Run(h.name, func(t *testing.T) {
			got := float64(hits[i]) / float64(n)
			t.Logf("%s: %d of %d = %.3f (chance 0.25 ± %.3f)", h.name, hits[i], n, got, half)
			if got < 0.25-half || got > 0.25+half {
				t.Errorf("%s scores %.3f (%d of %d), outside chance's 95%% interval [%.3f, %.3f]", h.name, got, hits[i], n, 0.25-half, 0.25+half)
			}
		})
	}
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
