package validity

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
)

// Heuristic is a play-free way to score probe options: from the four
// options, the catalog and the visit's first observation (its text, in
// lower case) alone. It picks the option of highest score, and among
// options tied for it, any one with equal chance: its expected hits are
// 1/n when the rule is one of n tied options. (Breaking ties by position
// would make every heuristic that often ties a copy of "first option".)
type Heuristic struct {
	Name  string
	Score func(options []string, first string) []float64
}

// Hit returns h's expected hit on a probe: 1/n when the option at correct
// is one of the n options of highest score, else 0.
func (h Heuristic) Hit(options []string, first string, correct int) float64 {
	scores := h.Score(options, first)
	best := math.Inf(-1)
	for _, v := range scores {
		best = max(best, v)
	}
	n := 0
	for _, v := range scores {
		if v == best {
			n++
		}
	}
	if scores[correct] != best {
		return 0
	}
	return 1 / float64(n)
}

// Heuristics are the shortcuts a sceptical reviewer would try on the
// probe of a visit of cat.
func Heuristics(cat *norms.Catalog) []Heuristic {
	byStatement := map[string]norms.Norm{}
	for _, n := range cat.Norms() {
		byStatement[n.Statement] = n
	}
	famSize := func(o string) int { return len(cat.Family(byStatement[o].Family)) }
	each := func(score func(options []string, o string) float64) func([]string, string) []float64 {
		return func(options []string, _ string) []float64 {
			out := make([]float64, len(options))
			for k, o := range options {
				out[k] = score(options, o)
			}
			return out
		}
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
	position := func(k int) func([]string, string) []float64 {
		return func(options []string, _ string) []float64 {
			out := make([]float64, len(options))
			out[(k+len(options))%len(options)] = 1
			return out
		}
	}
	byWords := func(sign float64) func([]string, string) []float64 {
		return func(options []string, first string) []float64 {
			out := make([]float64, len(options))
			for k, o := range options {
				out[k] = sign * overlap(o, first)
			}
			return out
		}
	}
	return []Heuristic{
		{"first option", position(0)},
		{"last option", position(-1)},
		{"longest statement", each(func(_ []string, s string) float64 { return float64(len(s)) })},
		{"shortest statement", each(func(_ []string, s string) float64 { return -float64(len(s)) })},
		{"the family most options share", each(func(o []string, s string) float64 { return float64(familyCount(o, s)) })},
		{"the family alone among the options", each(func(o []string, s string) float64 { return -float64(familyCount(o, s)) })},
		{"commonsense first", each(func(_ []string, s string) float64 { return tagged(norms.TagCommonsense)(s) })},
		{"counterintuitive first", each(func(_ []string, s string) float64 { return tagged(norms.TagCounterintuitive)(s) })},
		{"largest family", each(func(_ []string, s string) float64 { return float64(famSize(s)) })},
		{"smallest family", each(func(_ []string, s string) float64 { return -float64(famSize(s)) })},
		{"alphabetically first", func(o []string, _ string) []float64 {
			sorted := slices.Clone(o)
			slices.Sort(sorted)
			return each(func(_ []string, s string) float64 { return -float64(slices.Index(sorted, s)) })(o, "")
		}},
		{"most words shared with the first observation", byWords(1)},
		{"fewest words shared with the first observation", byWords(-1)},
	}
}

// ChanceHalfWidth is the half width of chance's (1/4) interval over n
// probes for each of m heuristics tested together: 95% for the m jointly
// (Bonferroni: each at 1 − 0.05/m), so that a fair probe fails one of
// the m by bad luck one time in twenty, not one in two.
func ChanceHalfWidth(n, m int) float64 {
	return zTwoSided(0.05/float64(m)) * math.Sqrt(0.25*0.75/float64(n))
}

// zTwoSided is the normal quantile z with P(|Z| > z) = alpha, found by
// bisection on math.Erfc (P(|Z| > z) = erfc(z/√2)).
func zTwoSided(alpha float64) float64 {
	lo, hi := 0.0, 10.0
	for range 100 {
		mid := (lo + hi) / 2
		if math.Erfc(mid/math.Sqrt2) > alpha {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// ProbeFairness runs every heuristic over the probes of the standard
// suite of cat (told and control visits left out) and returns one figure
// each: its hit rate, which must stay within chance's 95% interval.
func ProbeFairness(cat *norms.Catalog) ([]Figure, error) {
	s, err := sim.LookupSuiteIn(cat, "standard")
	if err != nil {
		return nil, err
	}
	hs := Heuristics(cat)
	hits := make([]float64, len(hs))
	n := 0
	for _, id := range s.Visits {
		v, err := sim.ParseVisitIDIn(cat, id)
		if err != nil {
			return nil, err
		}
		if v.Condition == sim.Control || v.Condition == sim.Told {
			continue
		}
		env, obs, err := sim.NewVisitIn(cat, id)
		if err != nil {
			return nil, err
		}
		p := env.Probe()
		first := strings.ToLower(obs.Text())
		n++
		correct := 0
		for k := range p.Options {
			if p.Correct(k) {
				correct = k
			}
		}
		for i, h := range hs {
			hits[i] += h.Hit(p.Options, first, correct)
		}
	}
	half := ChanceHalfWidth(n, len(hs))
	out := make([]Figure, len(hs))
	for i, h := range hs {
		rate := hits[i] / float64(n)
		out[i] = Figure{Name: "probe heuristic: " + h.Name, Got: rate, Detail: fmt.Sprintf("%.2f (%.1f/%d)", rate, hits[i], n),
			Want: fmt.Sprintf("0.25 ± %.3f", half), OK: math.Abs(rate-0.25) <= half}
	}
	return out, nil
}
