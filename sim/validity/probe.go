package validity

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
)

// Heuristic is a play-free way to pick a probe option: from the four
// options, the catalog and the visit's first observation (its text, in
// lower case) alone.
type Heuristic struct {
	Name string
	Pick func(options []string, first string) int
}

// Heuristics are the shortcuts a sceptical reviewer would try on the
// probe of a visit of cat.
func Heuristics(cat *norms.Catalog) []Heuristic {
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
	tagged := func(tag string) func(string) float64 {
		return func(s string) float64 {
			if byStatement[s].Tag == tag {
				return 1
			}
			return 0
		}
	}
	return []Heuristic{
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
		{"commonsense first", func(o []string, _ string) int { return argBest(o, tagged(norms.TagCommonsense)) }},
		{"counterintuitive first", func(o []string, _ string) int { return argBest(o, tagged(norms.TagCounterintuitive)) }},
		{"largest family", func(o []string, _ string) int {
			return argBest(o, func(s string) float64 { return float64(famSize(s)) })
		}},
		{"smallest family", func(o []string, _ string) int {
			return argBest(o, func(s string) float64 { return -float64(famSize(s)) })
		}},
		{"alphabetically first", func(o []string, _ string) int {
			sorted := slices.Clone(o)
			slices.Sort(sorted)
			return argBest(o, func(s string) float64 { return -float64(slices.Index(sorted, s)) })
		}},
		{"most words shared with the first observation", func(o []string, first string) int {
			return argBest(o, func(s string) float64 { return overlap(s, first) })
		}},
		{"fewest words shared with the first observation", func(o []string, first string) int {
			return argBest(o, func(s string) float64 { return -overlap(s, first) })
		}},
	}
}

// ChanceHalfWidth is the half width of chance's (1/4) 95% interval over n
// probes.
func ChanceHalfWidth(n int) float64 { return 1.959963984540054 * math.Sqrt(0.25*0.75/float64(n)) }

// ProbeFairness runs every heuristic over the probes of the standard
// suite of cat (told and control visits left out) and returns one figure
// each: its hit rate, which must stay within chance's 95% interval.
func ProbeFairness(cat *norms.Catalog) ([]Figure, error) {
	s, err := sim.LookupSuiteIn(cat, "standard")
	if err != nil {
		return nil, err
	}
	hs := Heuristics(cat)
	hits := make([]int, len(hs))
	n := 0
	for _, id := range s.Visits {
		v, err := sim.ParseVisitIDIn(cat, id)
		if err != nil {
			return nil, err
		}
		if v.Condition == sim.Control || v.Condition == sim.Told {
			continue
		}
		env, obs, err := sim.NewEnvIn(cat, id)
		if err != nil {
			return nil, err
		}
		p := env.Probe()
		first := strings.ToLower(obs.Text())
		n++
		for i, h := range hs {
			if p.Correct(h.Pick(p.Options, first)) {
				hits[i]++
			}
		}
	}
	half := ChanceHalfWidth(n)
	out := make([]Figure, len(hs))
	for i, h := range hs {
		f := Frac{hits[i], n}
		out[i] = Figure{Name: "probe heuristic: " + h.Name, Got: f.Rate(), Detail: f.String(),
			Want: fmt.Sprintf("0.25 ± %.3f", half), OK: math.Abs(f.Rate()-0.25) <= half}
	}
	return out, nil
}
