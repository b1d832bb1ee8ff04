package agents

import (
	"math"
	"sync"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
)

// The observer's and the self-learner's hypothesis space is the grammar's
// one-feature rules (norms.OneFeatureRules: 1,990 rules, every verb with
// one of its qualifiers in every shape the grammar allows), not any
// catalog: they are not handed the list of norms a community may keep.
// A catalog serves them only where a model reads plain words — the
// statement a told visit gives and the probe's four options — to know
// which rule a statement states (statementRules).

// space is the hypothesis space with each rule's canonical text and the
// index of every text, computed once and shared read-only by every
// learner.
type space struct {
	set   *sim.RuleSet
	index map[string]int
}

var oneFeature = sync.OnceValue(func() *space {
	rules := norms.OneFeatureRules()
	s := &space{set: sim.NewRuleSet(rules), index: map[string]int{}}
	for h, r := range rules {
		s.index[r.String()] = h
	}
	return s
})

// statementRules returns the rules of the norm of cat whose statement is
// s, or nil when no norm of cat says s.
func statementRules(cat *norms.Catalog, s string) []norms.Rule {
	if cat == nil {
		return nil
	}
	for _, n := range cat.Norms() {
		if n.Statement == s {
			return n.Rules()
		}
	}
	return nil
}

// tell restricts the learner to the rules the told statement states
// (through its catalog): they become its only hypotheses, whether or not
// the grammar's one-feature space holds them (a compound's conditional
// clause does not), and the observer respects every one of them. A
// statement no norm of the catalog says tells it nothing.
func (l *learner) tell(statement string) {
	rules := statementRules(l.cat, statement)
	if len(rules) == 0 {
		return
	}
	l.over(sim.NewRuleSet(rules))
	l.index, l.stated = nil, true
}

// hypIndex returns the index of rule r among the learner's hypotheses.
func (l *learner) hypIndex(r norms.Rule) (int, bool) {
	if l.index != nil {
		h, ok := l.index[r.String()]
		return h, ok
	}
	for h := range l.hyps {
		if l.hyps[h].String() == r.String() {
			return h, true
		}
	}
	return 0, false
}

// Answer picks the probe option whose rule holds the most posterior mass
// (for the self-learner, the most sanctions): each option is mapped to
// its rules through the catalog, and scored by the log of the summed
// (unnormalised) posterior of those of its clauses that are hypotheses;
// an option with none scores nothing. Ties go to the first option.
func (l *learner) Answer(p *sim.Probe) int {
	if l.counts != nil {
		return l.counts.answer(p, l.hyps)
	}
	best, bestScore := 0, math.Inf(-1)
	for k, s := range p.Options {
		if score := l.optionScore(statementRules(l.cat, s)); score > bestScore {
			best, bestScore = k, score
		}
	}
	return best
}

// optionScore is log Σ exp(logp[h]) over the hypotheses h among rules.
func (l *learner) optionScore(rules []norms.Rule) float64 {
	var ls []float64
	for _, r := range rules {
		if h, ok := l.hypIndex(r); ok {
			ls = append(ls, l.logp[h])
		}
	}
	top := math.Inf(-1)
	for _, v := range ls {
		top = max(top, v)
	}
	if math.IsInf(top, -1) {
		return top
	}
	sum := 0.0
	for _, v := range ls {
		sum += math.Exp(v - top)
	}
	return top + math.Log(sum)
}
