package sim

import "github.com/normgym/normgym/norms"

// errand is one item of a member's routine for the day.
type errand struct {
	kind     string // harvest, ring, drink, tidy, stroll, idle
	count    int    // goods to harvest, or steps to idle
	target   Pos    // stroll target
	careless bool   // ignore the norm for this errand
	picked   bool   // harvest: enough goods picked, now delivering
}

// member is a scripted community agent: a routine of errands pursued with
// the norm-aware planner.
type member struct {
	agent      int
	propensity float64
	errands    []errand
	cur        int
	// path is the rest of the plan being followed towards pathKey's goal.
	path    []Action
	pathKey planKey
}

// planKey identifies what a cached plan leads to.
type planKey struct {
	goal   Goal
	at     Pos
	nrules int
	valid  bool
}

// errandsPerDay is more than a day can use, so routines never run out.
const errandsPerDay = 40

// roleErrands weights the errand kinds for each role.
var roleErrands = map[string][]struct {
	kind   string
	weight int
}{
	"elder":    {{"drink", 3}, {"ring", 2}, {"stroll", 3}, {"tidy", 1}, {"harvest", 2}},
	"vendor":   {{"idle", 2}, {"ring", 2}, {"stroll", 2}, {"tidy", 1}, {"harvest", 3}},
	"gardener": {{"harvest", 5}, {"drink", 2}, {"stroll", 2}, {"tidy", 1}},
	"child":    {{"stroll", 4}, {"harvest", 3}, {"ring", 1}, {"tidy", 2}},
}

// newMember draws a member's routine for one day. Every errand takes the
// same number of draws whatever the condition or norm, so routines (and
// so observations) differ between norms only once behaviour does.
func newMember(agent int, role string, w World, seed uint64, day int, careful bool) *member {
	r := newRNG("member", w.Name, utoa(seed), itoa(day), itoa(agent))
	m := &member{agent: agent, propensity: 0.25 + 0.25*r.float()}
	if careful {
		m.propensity = 0
	}
	kinds := roleErrands[role]
	total := 0
	for _, k := range kinds {
		total += k.weight
	}
	for e := 0; e < errandsPerDay; e++ {
		u := r.intn(total)
		var kind string
		for _, k := range kinds {
			if u < k.weight {
				kind = k.kind
				break
			}
			u -= k.weight
		}
		target := Pos{r.intn(gridW), r.intn(gridH)}
		count := 1 + r.intn(3)
		if kind == "harvest" {
			count = 1
		}
		careless := r.float() < m.propensity
		m.errands = append(m.errands, errand{kind: kind, count: count, target: target, careless: careless})
	}
	return m
}

// act chooses the member's action this step. rules holds the active norm's
// rule (or nothing under control), hist the member's history for it.
func (m *member) act(f *Frame, rules []norms.Rule, hists []Hist) Action {
	for tries := 0; tries < 4 && m.cur < len(m.errands); tries++ {
		e := &m.errands[m.cur]
		use := rules
		if e.careless {
			use = nil
		}
		a, done, ok := m.try(f, e, use, hists)
		if ok {
			if done {
				m.next(e)
			}
			return a
		}
		m.cur++
	}
	return Action{Verb: Wait}
}

// mindful makes the member keep the norm for the rest of the day: a
// member who was sanctioned takes the hint. (Its routine still draws the
// same random numbers, so observations stay aligned across norms.)
func (m *member) mindful() {
	for k := m.cur; k < len(m.errands); k++ {
		m.errands[k].careless = false
	}
}

// next finishes the current errand when its last action is being taken.
func (m *member) next(e *errand) {
	switch e.kind {
	case "harvest":
		// finished only when the last good is delivered: try decides.
	case "idle":
		e.count--
		if e.count > 0 {
			return
		}
	}
	m.cur++
}

// try plans the errand's next action; done reports that this action
// completes the errand, ok false that the errand cannot go on.
func (m *member) try(f *Frame, e *errand, rules []norms.Rule, hists []Hist) (a Action, done, ok bool) {
	ag := &f.Agents[m.agent]
	plan := func(g Goal) (Action, bool, bool) { return m.follow(f, g, rules, hists) }
	switch e.kind {
	case "harvest":
		if !e.picked && ag.Goods < e.count {
			a, arrived, ok := plan(Goal{Verb: Pick, Object: "source"})
			if ok {
				if arrived && ag.Goods+1 >= e.count {
					e.picked = true
				}
				return a, false, true
			}
			e.picked = true
		}
		if ag.Goods == 0 {
			return Action{}, false, false
		}
		a, arrived, ok := plan(Goal{Verb: Drop, Object: "basket"})
		return a, arrived && ag.Goods == 1, ok
	case "ring", "drink":
		obj := "bell"
		if e.kind == "drink" {
			obj = "well"
		}
		a, arrived, ok := plan(Goal{Verb: Use, Object: obj})
		return a, arrived, ok
	case "tidy":
		if ag.Litter == 0 {
			return Action{}, false, false
		}
		a, arrived, ok := plan(Goal{Verb: Drop, Litter: true})
		return a, arrived, ok
	case "stroll":
		t := e.target
		if !f.At(t).Walkable() {
			return Action{}, false, false
		}
		a, arrived, ok := plan(Goal{Verb: Wait, At: &t})
		return a, arrived, ok
	case "idle":
		return Action{Verb: Wait}, true, true
	}
	return Action{}, false, false
}

// follow returns the next action towards goal g: the next step of the
// cached plan while it stays possible and compliant, else a fresh plan.
// Replanning only when needed keeps members cheap.
func (m *member) follow(f *Frame, g Goal, rules []norms.Rule, hists []Hist) (Action, bool, bool) {
	key := planKey{goal: g, nrules: len(rules), valid: true}
	if g.At != nil {
		key.at, key.goal.At = *g.At, nil
	}
	here := f.Agents[m.agent].Pos
	if m.pathKey == key {
		if len(m.path) > 0 {
			a := m.path[0]
			tr := f.Preview(m.agent, here, a)
			bad := !tr.OK
			for r := 0; r < len(rules) && !bad; r++ {
				bad, _ = judge(f, &rules[r], &tr, hists[r])
			}
			if !bad {
				m.path = m.path[1:]
				return a, false, true
			}
		} else if reach, now, act := goalHere(f, m.agent, &g, here, compileRules(rules), packHists(hists, len(rules))); reach {
			if now {
				return act, true, true
			}
			return Action{Verb: Wait}, false, true
		}
	}
	path, final, now, ok := PlanPath(f, m.agent, g, rules, hists)
	if !ok {
		m.pathKey, m.path = planKey{}, nil
		return Action{Verb: Wait}, false, false
	}
	m.pathKey = key
	if len(path) == 0 {
		m.path = nil
		if now {
			return final, true, true
		}
		return Action{Verb: Wait}, false, true
	}
	m.path = path[1:]
	return path[0], false, true
}
