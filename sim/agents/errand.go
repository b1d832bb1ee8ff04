package agents

import (
	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
)

// taskAction returns the next action for the observation's errand while
// respecting rules (with the newcomer's histories for them); ok is false
// when the errand cannot go on without breaking one. The errand is done
// the greedy way: pick every good needed, then deliver them (into the
// basket or to members, whichever is nearer), and get rid of the litter
// last — unless a carrying limit in rules asks for fewer things at once.
func taskAction(o *sim.Observation, rules []norms.Rule, hists []sim.Hist) (sim.Action, bool) {
	return errandAction(o, rules, hists, false)
}

// patientAction is taskAction done patiently, as the oracle does it: when
// no source it may take from is ready, it does not carry what it holds
// across the map (unless a delivery is close by) but waits at the nearest
// source for it to bear again.
func patientAction(o *sim.Observation, rules []norms.Rule, hists []sim.Hist) (sim.Action, bool) {
	return errandAction(o, rules, hists, true)
}

// nearDelivery is how close (in steps) a delivery must be for a patient
// newcomer to make it while it still needs goods.
const nearDelivery = 4

// errandPlan plans the steps of one errand at one observation.
type errandPlan struct {
	f     *sim.Frame
	rules []norms.Rule
	hists []sim.Hist
}

// plan returns the next action towards g, the whole way, and whether g
// can be reached without breaking a rule.
func (e *errandPlan) plan(g sim.Goal) (sim.Action, []sim.Action, bool) {
	path, final, now, ok := sim.PlanPath(e.f, 0, g, e.rules, e.hists)
	switch {
	case !ok:
		return sim.Action{Verb: sim.Wait}, nil, false
	case len(path) > 0:
		return path[0], path, true
	case now:
		return final, path, true
	}
	return sim.Action{Verb: sim.Wait}, path, true
}

// nearest returns the first action towards the goal of goals with the
// shortest way, how many steps that way takes, and the goal.
func (e *errandPlan) nearest(goals []sim.Goal) (sim.Action, int, sim.Goal, bool) {
	var best sim.Action
	var goal sim.Goal
	bestLen, bestCost, found := 0, 0, false
	for _, g := range goals {
		a, path, ok := e.plan(g)
		if cost := len(path) + e.walkingPenalty(g); ok && (!found || cost < bestCost) {
			best, bestLen, bestCost, goal, found = a, len(path), cost, g, true
		}
	}
	return best, bestLen, goal, found
}

// walkingPenalty is what a patient newcomer adds to the way to a member
// on the move: by the time it gets there the member will likely have
// walked on, while the basket and a member at rest stay put.
func (e *errandPlan) walkingPenalty(g sim.Goal) int {
	if g.To == "" {
		return 0
	}
	switch e.f.Agents[e.f.AgentIndex(g.To)].LastAction {
	case sim.North, sim.South, sim.East, sim.West:
		return walkerPenalty
	}
	return 0
}

// walkerPenalty is walkingPenalty's steps.
const walkerPenalty = 4

// detourThreshold is how many steps longer than its way without them the
// rules about passing or meeting someone may make a way before a patient
// newcomer waits for the one walking in its way to move on.
const detourThreshold = 3

// walkerInWay reports whether the way to g (n steps) is a detour of at
// least detourThreshold steps forced by rules about passing or meeting
// someone, while some member within two tiles is on the move: waiting a
// step for them to walk on is then the shorter way (a member standing
// still, as under solo, will not move on, and is walked round).
func (e *errandPlan) walkerInWay(g sim.Goal, n int) bool {
	var still []norms.Rule
	var hists []sim.Hist
	for k, r := range e.rules {
		if r.Event.Verb != "pass" && r.Event.Verb != "meet" {
			still = append(still, r)
			hists = append(hists, e.hists[k])
		}
	}
	if len(still) == len(e.rules) {
		return false
	}
	me := e.f.Agents[0].Pos
	walking := false
	for _, a := range e.f.Agents[1:] {
		switch a.LastAction {
		case sim.North, sim.South, sim.East, sim.West:
			dx, dy := a.Pos.X-me.X, a.Pos.Y-me.Y
			walking = walking || (max(dx, -dx) <= 2 && max(dy, -dy) <= 2)
		}
	}
	if !walking {
		return false
	}
	path, _, _, ok := sim.PlanPath(e.f, 0, g, still, hists)
	return ok && n-len(path) >= detourThreshold
}

// patiently returns a, or waits instead when a walker is in the way to g.
func (e *errandPlan) patiently(a sim.Action, g sim.Goal, n int) sim.Action {
	if e.walkerInWay(g, n) {
		if w, ok := e.stay(); ok {
			return w
		}
	}
	return a
}

// stay waits where the newcomer stands, paying any act still owed (a
// bow, say) first.
func (e *errandPlan) stay() (sim.Action, bool) {
	here := e.f.Agents[0].Pos
	a, _, ok := e.plan(sim.Goal{Verb: sim.Wait, At: &here})
	return a, ok
}

// bySource heads for the nearest source, ready or not, to wait there.
func (e *errandPlan) bySource() (sim.Action, bool) {
	var goals []sim.Goal
	for i := range e.f.Tiles {
		if e.f.Tiles[i].Object == "source" {
			at := sim.Pos{X: i % e.f.Width, Y: i / e.f.Width}
			goals = append(goals, sim.Goal{Verb: sim.Wait, At: &at})
		}
	}
	a, _, _, ok := e.nearest(goals)
	return a, ok
}

func errandAction(o *sim.Observation, rules []norms.Rule, hists []sim.Hist, patient bool) (sim.Action, bool) {
	f := &o.Frame
	me := &f.Agents[0]
	t := o.Task
	capacity := t.Picks() + 1
	for _, r := range rules {
		if r.Deontic == norms.Forbid && r.Event.Verb == "carry" {
			if v, ok := r.Event.Value("over"); ok && int(v[0]-'0') < capacity {
				capacity = int(v[0] - '0')
			}
		}
	}
	toBasket := max(t.Goods-me.Delivered, 0)
	toGive := max(t.Gifts-sim.GiftsGiven(f), 0)
	need := toBasket + toGive - me.Goods
	litter := t.Litter && me.Litter > 0
	e := &errandPlan{f: f, rules: rules, hists: hists}
	var deliveries []sim.Goal
	if toBasket > 0 {
		deliveries = append(deliveries, sim.Goal{Verb: sim.Drop, Object: "basket"})
	}
	if toGive > 0 && !patient {
		deliveries = append(deliveries, sim.Goal{Verb: sim.Give})
	}
	for j := 1; j < len(f.Agents) && toGive > 0 && patient; j++ {
		// One goal a member, so that a member walking away weighs more.
		if f.Agents[j].Received == 0 {
			deliveries = append(deliveries, sim.Goal{Verb: sim.Give, To: f.Agents[j].ID})
		}
	}
	switch {
	case need > 0 && me.Goods+me.Litter < capacity: // me.Carrying(), without copying me
		pick := sim.Goal{Verb: sim.Pick, Object: "source"}
		if a, path, ok := e.plan(pick); ok {
			if patient {
				a = e.patiently(a, pick, len(path))
			}
			return a, true
		}
		if patient {
			if a, n, g, ok := e.nearest(deliveries); ok && n <= nearDelivery {
				return e.patiently(a, g, n), true
			}
			if a, ok := e.bySource(); ok {
				return a, true
			}
		}
		if me.Goods > 0 {
			a, _, _, ok := e.nearest(deliveries)
			return a, ok
		}
		if !anyReady(f) {
			return e.stay() // nothing ready to pick yet
		}
		return sim.Action{Verb: sim.Wait}, false
	case need > 0 && litter && me.Goods == 0:
		// Hands full of litter alone: get rid of it to make room.
		a, _, ok := e.plan(sim.Goal{Verb: sim.Drop, Litter: true})
		return a, ok
	case me.Goods > 0 && toBasket+toGive > 0:
		a, n, g, ok := e.nearest(deliveries)
		if ok && patient {
			a = e.patiently(a, g, n)
		}
		return a, ok
	case litter:
		a, _, ok := e.plan(sim.Goal{Verb: sim.Drop, Litter: true})
		return a, ok
	}
	return e.stay() // errand done
}

// anyReady reports whether some source has goods ready.
func anyReady(f *sim.Frame) bool {
	for i := range f.Tiles {
		if t := &f.Tiles[i]; t.Object == "source" && t.Stock > 0 {
			return true
		}
	}
	return false
}
