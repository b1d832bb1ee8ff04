package agents

import (
	"slices"
	"strings"
	"sync"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
)

// The counting reference ("counter") is a learner that does no inference
// over any catalog. It counts, for generic features of an act — the
// colour, terrain and zone of the tile walked onto or acted on, the
// colour of a source taken from, the phase, the direction onto a path,
// whom the actor walks or comes next to, whether a bow, the bell or the
// well came just before, how much it then carries, where it puts things
// down — how often acts with the feature were sanctioned and how often
// they were seen and not, and it avoids the features sanctioned most of
// the times they were seen. Features are written as rules of the grammar
// only so that the planner can avoid them; they come from the grammar's
// words (norms.Colors, Zones…), never from a catalog, the visit id or
// the condition. It shows how far a learner that counts without
// reasoning gets: on norms that one feature of one act gives away, about
// as far as the observer; on the harder tier it must stay well below the
// oracle (sim/DESIGN.md, Headroom).

// Counter is the name of the counting reference.
const Counter = "counter"

// featureRules lists the counter's features as rules.
func featureRules() []string {
	var out []string
	add := func(format string, values []string) {
		for _, v := range values {
			out = append(out, strings.ReplaceAll(format, "{}", v))
		}
	}
	walkable := []string{"path", "floor", "grass", "sand", "stone"}
	add("forbid step color={}", norms.Colors())
	add("forbid step terrain={}", walkable)
	add("forbid enter zone={}", norms.Zones())
	add("forbid step terrain=path dir={}", norms.Dirs())
	add("forbid step phase={}", norms.Phases())
	add("forbid pick color={}", norms.Colors())
	add("forbid pick phase={}", norms.Phases())
	add("forbid drop phase={}", norms.Phases())
	add("forbid handle phase={}", norms.Phases())
	add("forbid give role={}", norms.Roles())
	add("forbid give hat={}", norms.Colors())
	add("forbid carry over={}", []string{"1", "2", "3"})
	add("forbid pass hat={}", norms.Colors())
	add("forbid pass role={}", norms.Roles())
	add("forbid litter except object={}", []string{"bin", "well", "bell"})
	add("forbid litter except zone={}", norms.Zones())
	add("forbid litter except terrain={}", walkable)
	for _, before := range []string{"bow", "use object=bell", "use object=well"} {
		add("require "+before+" before enter zone={}", norms.Zones())
		add("require "+before+" before {}", []string{"pick", "drop", "litter", "give", "drop object=basket"})
	}
	add("require bow after meet role={}", norms.Roles())
	add("require bow after meet hat={}", norms.Colors())
	add("require bow after {}", []string{"pick", "drop", "give", "use object=well", "use object=bell"})
	return out
}

// featureHypotheses returns the features as hypotheses for a learner.
func featureHypotheses() []norms.Rule {
	texts := featureRules()
	out := make([]norms.Rule, len(texts))
	for i, t := range texts {
		out[i] = norms.MustParse(t)
	}
	return out
}

// featureSet is featureHypotheses read once for judging, shared by every
// counter.
var featureSet = sync.OnceValue(func() *sim.RuleSet { return sim.NewRuleSet(featureHypotheses()) })

// counting holds the counter's tallies: for each feature, the acts with
// it that were sanctioned, and those seen by a member and not sanctioned.
type counting struct {
	sanctioned, unsanctioned []float64
}

// Thresholds of suspicion: a feature is avoided once acts with it were
// sanctioned at least minSanctioned times and on at least suspectShare of
// the times they were seen; at most maxSuspects features are avoided,
// the most suspicious first.
const (
	minSanctioned = 1
	suspectShare  = 0.5
	maxSuspects   = 6
)

func newCounter() *learner {
	l := newLearnerOver(true, nil, featureSet(), nil)
	l.counts = &counting{sanctioned: make([]float64, len(l.hyps)), unsanctioned: make([]float64, len(l.hyps))}
	return l
}

// add counts one act that has feature h (flagged) or not.
func (c *counting) add(h int, flagged, seen, sanctioned bool) {
	switch {
	case !flagged:
	case sanctioned:
		c.sanctioned[h]++
	case seen:
		c.unsanctioned[h]++
	}
}

// share is how suspicious feature h is: its sanctioned share of the times
// it was seen, with one unsanctioned sighting assumed (so one sanction
// alone is not certainty).
func (c *counting) share(h int) float64 {
	return c.sanctioned[h] / (c.sanctioned[h] + c.unsanctioned[h] + 1)
}

// suspects returns the features to avoid, most suspicious first.
func (c *counting) suspects(idx []int) []int {
	idx = idx[:0]
	for h := range c.sanctioned {
		if c.sanctioned[h] >= minSanctioned && c.sanctioned[h]/(c.sanctioned[h]+c.unsanctioned[h]) >= suspectShare {
			idx = append(idx, h)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch sa, sb := c.share(a), c.share(b); {
		case sa > sb:
			return -1
		case sa < sb:
			return 1
		}
		return 0
	})
	return idx[:min(len(idx), maxSuspects)]
}

// answer picks the probe option that shares most words with the features
// avoided, each weighed by its suspicion: the counter reads statements as
// words, not as rules.
func (c *counting) answer(p *sim.Probe, hyps []norms.Rule) int {
	best, bestScore := 0, -1.0
	for k, opt := range p.Options {
		words := strings.Fields(strings.ToLower(strings.Trim(opt, ".")))
		score := 0.0
		for _, h := range c.suspects(nil) {
			for _, w := range featureWords(hyps[h]) {
				if slices.Contains(words, w) {
					score += c.share(h)
				}
			}
		}
		if score > bestScore {
			best, bestScore = k, score
		}
	}
	return best
}

// featureWords are the plain words a feature is about: its values and
// what its verbs are called in speech.
func featureWords(r norms.Rule) []string {
	var out []string
	say := map[string][]string{"step": {"walk", "step"}, "enter": {"go", "into"}, "pick": {"take"},
		"drop": {"put", "down"}, "litter": {"ground"}, "carry": {"carry"}, "pass": {"next"}, "meet": {"next"},
		"bow": {"bow"}, "use": {"ring", "wash"}, "give": {"hand", "gift"}, "handle": {"business"}}
	for _, e := range []norms.Event{r.Event, r.Act} {
		out = append(out, say[e.Verb]...)
		for _, q := range append(slices.Clone(e.Quals), e.Except...) {
			out = append(out, q.Value)
		}
	}
	return out
}
