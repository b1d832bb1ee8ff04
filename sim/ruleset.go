package sim

import "github.com/normgym/normgym/norms"

// RuleSet is a list of rules read once for judging one actor's
// transitions under each of them apart, as a learner weighing thousands
// of hypotheses about the norm does (sim/agents). Judging a rule of a
// RuleSet is Judge for that rule alone, the etiquette of bows included
// (TestRuleSetMatchesJudge), on the compiled form the planner uses. Rules
// share their events and acts (two thousand one-feature rules are two
// hundred events and six acts), so each distinct event and act is
// matched once per transition, and only the rules it can concern are
// judged (Judging.Step). A RuleSet is never changed once made, so one
// serves any number of goroutines.
type RuleSet struct {
	rules    []norms.Rule
	compiled []compiledRule
	// matchers are the rules' distinct events and acts; event[k] and
	// act[k] index rule k's, and uses[m] lists the rules whose event or
	// act matcher m is.
	matchers   []compiledEvent
	event, act []int32
	uses       [][]int32
	// meets lists the rules whose event is "meet" or says "follows":
	// their history follows whom the actor is next to, or what others
	// just did, so every transition concerns them.
	meets []int32
}

// NewRuleSet reads rules into a RuleSet; rule k of it is rules[k].
func NewRuleSet(rules []norms.Rule) *RuleSet {
	s := &RuleSet{rules: append([]norms.Rule(nil), rules...)}
	s.compiled = compileRules(s.rules)
	s.event, s.act = make([]int32, len(rules)), make([]int32, len(rules))
	seen := map[string]int32{}
	var buf []compiledQual
	index := func(ev *norms.Event, isEvent bool) int32 {
		key := norms.Rule{Deontic: norms.Forbid, Event: *ev}.String()
		if isEvent {
			key = "event " + key
		}
		if m, ok := seen[key]; ok {
			return m
		}
		var c compiledEvent
		c, buf = compileEvent(ev, isEvent, buf)
		s.matchers = append(s.matchers, c)
		s.uses = append(s.uses, nil)
		seen[key] = int32(len(s.matchers) - 1)
		return seen[key]
	}
	for k := range s.rules {
		e, a := index(&s.rules[k].Event, true), index(&s.rules[k].Act, false)
		s.event[k], s.act[k] = e, a
		s.uses[e] = append(s.uses[e], int32(k))
		if a != e {
			s.uses[a] = append(s.uses[a], int32(k))
		}
		if c := &s.compiled[k]; c.event.verb == evMeet || c.event.follows != "" {
			s.meets = append(s.meets, int32(k))
		}
	}
	return s
}

// Len is how many rules s has.
func (s *RuleSet) Len() int { return len(s.rules) }

// Rule returns rule k of s.
func (s *RuleSet) Rule(k int) norms.Rule { return s.rules[k] }

// Judging is one actor's histories under every rule of a RuleSet, moved
// on transition by transition from the start of a day (NewJudging).
type Judging struct {
	set   *RuleSet
	hists []Hist
	// owing lists the "after" rules whose act the actor owes now: the
	// next transition concerns them whatever it is.
	owing, spare []int32
	// touched[k] is the step rule k was last judged at.
	touched []uint32
	step    uint32
	matched []bool
	broken  []int32
	// f and tr are the frame and transition Step is judging.
	f  *Frame
	tr *Transition
}

// NewJudging returns an actor's judging under every rule of s from the
// zero history (the start of a day).
func (s *RuleSet) NewJudging() *Judging {
	return &Judging{set: s, hists: make([]Hist, len(s.rules)), touched: make([]uint32, len(s.rules)),
		matched: make([]bool, len(s.matchers))}
}

// Hist returns the actor's history under rule k.
func (j *Judging) Hist(k int) Hist { return j.hists[k] }

// Step judges tr, taken in f by the actor, under every rule, moves every
// history on, and returns the rules it breaks (as Judge reports it), in
// increasing order for a bow and otherwise in no set order. The slice is
// reused by the next Step.
func (j *Judging) Step(f *Frame, tr *Transition) []int32 {
	s := j.set
	j.broken = j.broken[:0]
	if tr.OK && tr.Action.Verb == Bow {
		// Every rule that does not call for the bow is broken by it.
		for k := range s.compiled {
			c := &s.compiled[k]
			v, next := c.judge(f, tr, j.hists[k])
			if v || !c.bowCalledFor(j.hists[k]) {
				j.broken = append(j.broken, int32(k))
			}
			j.hists[k] = next
		}
		j.owing = j.owing[:0]
		for k := range s.compiled {
			if j.hists[k].Owe {
				j.owing = append(j.owing, int32(k))
			}
		}
		return j.broken
	}
	for m := range s.matchers {
		c := &s.matchers[m]
		if c.verb == evMeet {
			j.matched[m] = nextToMatching(f, c.agents, tr)
		} else {
			j.matched[m] = c.matches(f, tr)
		}
	}
	// The rules this transition concerns: those owing an act, those about
	// meeting, and those whose event or act it is. Every other rule is
	// neither broken nor moved on by it.
	j.step++
	j.f, j.tr = f, tr
	owing := j.owing
	j.owing = j.spare[:0]
	for _, k := range owing {
		j.judge(k)
	}
	for _, k := range s.meets {
		j.judge(k)
	}
	for m, ok := range j.matched {
		if ok {
			for _, k := range s.uses[m] {
				j.judge(k)
			}
		}
	}
	j.spare = owing
	return j.broken
}

// judge judges rule k on the transition Step is judging, once.
func (j *Judging) judge(k int32) {
	if j.touched[k] == j.step {
		return
	}
	j.touched[k] = j.step
	s := j.set
	v, next := s.compiled[k].judgeMatched(j.f, j.tr, j.matched[s.event[k]], j.matched[s.act[k]], j.hists[k])
	j.hists[k] = next
	if v {
		j.broken = append(j.broken, k)
	}
	if next.Owe {
		j.owing = append(j.owing, k)
	}
}
