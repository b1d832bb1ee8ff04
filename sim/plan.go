package sim

import (
	"sync"

	"github.com/normgym/normgym/norms"
)

// Goal is what a planner tries to reach: a tile where Verb can be done.
type Goal struct {
	// Verb is the action to do on arrival: Pick, Drop, Use, Give, or Wait
	// (just arrive). Give goes to any member on or next to the tile who has
	// received nothing today (the errand's gifts go to different members).
	Verb string
	// Object, when set, is the object kind the tile must hold
	// ("source" for Pick also needs stock; "basket" for Drop delivers).
	Object string
	// Litter, for Drop, asks for a tile that is not a basket.
	Litter bool
	// At, when set, is the one tile wanted.
	At *Pos
}

// Plan returns agent i's next action towards goal g that breaks none of
// rules, given the agent's history for each rule (hists[k] for rules[k]).
// It searches breadth-first over positions and requirement histories,
// treating other agents as standing still. When the goal action is
// forbidden only by the phase, Plan waits where it stands. ok is false when
// no compliant way to the goal exists. Plan never changes the frame.
//
// With rules, a plan bows only where some rule calls for it (Judge's
// etiquette, applied to the set: a bow one rule calls for is in place).
func Plan(f *Frame, i int, g Goal, rules []norms.Rule, hists []Hist) (a Action, arrived, ok bool) {
	path, final, now, ok := PlanPath(f, i, g, rules, hists)
	switch {
	case !ok:
		return Action{Verb: Wait}, false, false
	case len(path) > 0:
		return path[0], false, true
	case now:
		return final, true, true
	}
	return Action{Verb: Wait}, false, true
}

// planSteps are the actions a plan is made of, in tie-breaking order.
var planSteps = [...]Action{{Verb: North}, {Verb: East}, {Verb: South}, {Verb: West}, {Verb: Bow}, {Verb: Use}}

// planScratch is reused across searches to spare the allocator.
type planScratch struct {
	seen  []uint32
	stamp uint32
	queue []planNode
}

type planNode struct {
	p      Pos
	h      [maxPlanRules]Hist
	parent int32
	act    int8
}

// maxPlanRules bounds the rules a plan respects; at most maxPlanRequires
// of them may carry history (requirements and "meet" events; each
// multiplies the search space by eight).
const (
	maxPlanRules    = 8
	maxPlanRequires = 4
)

var scratchPool = sync.Pool{New: func() any { return &planScratch{} }}

// PlanPath is Plan returning the whole way: the actions that lead to a
// tile where the goal action can be done (empty when already there), the
// goal action to do there (for Give, naming the member), and whether it can
// be done there in the current phase.
//
// It respects at most maxPlanRules rules, of which at most maxPlanRequires
// requirements; further rules are ignored.
func PlanPath(f *Frame, i int, g Goal, rules []norms.Rule, hists []Hist) (path []Action, final Action, now, ok bool) {
	nr := len(rules)
	if nr > maxPlanRules {
		rules, hists, nr = rules[:maxPlanRules], hists[:maxPlanRules], maxPlanRules
	}
	// Only requirements and "meet" events carry history; other forbid
	// rules add no search state.
	var req [maxPlanRequires]int
	nreq := 0
	for k := 0; k < nr; k++ {
		if rules[k].Deontic == norms.Require || rules[k].Event.Verb == "meet" {
			if nreq == maxPlanRequires {
				rules, hists, nr = rules[:k], hists[:k], k
				break
			}
			req[nreq] = k
			nreq++
		}
	}
	width := 1 << (3 * nreq)
	n := f.Width * f.Height * width
	sc := scratchPool.Get().(*planScratch)
	defer scratchPool.Put(sc)
	if len(sc.seen) < n {
		sc.seen = make([]uint32, n)
		sc.stamp = 0
	}
	sc.stamp++
	if sc.stamp == 0 {
		clear(sc.seen)
		sc.stamp = 1
	}
	key := func(p Pos, h *[maxPlanRules]Hist) int {
		b := 0
		for j := 0; j < nreq; j++ {
			k := req[j]
			if h[k].Since {
				b |= 1 << (3 * j)
			}
			if h[k].Owe {
				b |= 2 << (3 * j)
			}
			if h[k].Near {
				b |= 4 << (3 * j)
			}
		}
		return (p.Y*f.Width+p.X)*width + b
	}
	start := planNode{p: f.Agents[i].Pos, parent: -1, act: -1}
	copy(start.h[:], hists)
	sc.seen[key(start.p, &start.h)] = sc.stamp
	q := append(sc.queue[:0], start)
	defer func() { sc.queue = q[:0] }()
	for head := 0; head < len(q); head++ {
		cur := q[head]
		if reach, here, act := goalHere(f, i, g, cur.p, rules, cur.h[:nr]); reach {
			for k := head; q[k].parent >= 0; k = int(q[k].parent) {
				path = append(path, planSteps[q[k].act])
			}
			for a, b := 0, len(path)-1; a < b; a, b = a+1, b-1 {
				path[a], path[b] = path[b], path[a]
			}
			return path, act, here, true
		}
		for k, a := range planSteps {
			tr := f.Preview(i, cur.p, a)
			if !tr.OK {
				continue
			}
			nh := cur.h
			if breaks(f, rules, &tr, &nh) {
				continue
			}
			kk := key(tr.To, &nh)
			if sc.seen[kk] == sc.stamp {
				continue
			}
			sc.seen[kk] = sc.stamp
			q = append(q, planNode{p: tr.To, h: nh, parent: int32(head), act: int8(k)})
		}
	}
	return nil, Action{}, false, false
}

// breaks reports whether tr breaks any of rules, advancing the histories
// h (one per rule) past it. A bow is out of place only if no rule calls
// for it (the etiquette of Judge, for a set of rules).
func breaks(f *Frame, rules []norms.Rule, tr *Transition, h *[maxPlanRules]Hist) bool {
	bad, calledFor := false, false
	for r := range rules {
		if tr.Action.Verb == Bow && bowCalledFor(&rules[r], h[r]) {
			calledFor = true
		}
		var v bool
		v, h[r] = judgeRule(f, &rules[r], tr, h[r])
		bad = bad || v
	}
	return bad || (len(rules) > 0 && tr.OK && tr.Action.Verb == Bow && !calledFor)
}

// goalHere reports whether agent i standing at p with histories h can do
// the goal action without breaking a rule in some phase (reachable), and
// whether it can in the current phase (now), and returns that action.
func goalHere(f *Frame, i int, g Goal, p Pos, rules []norms.Rule, h []Hist) (reachable, now bool, act Action) {
	if g.At != nil && *g.At != p {
		return false, false, act
	}
	t := f.At(p)
	if g.Object != "" && t.Object != g.Object {
		return false, false, act
	}
	if g.Verb == Pick && t.Stock == 0 {
		return false, false, act
	}
	if g.Litter && t.Object == "basket" {
		return false, false, act
	}
	act = Action{Verb: g.Verb}
	if g.Verb == Give {
		act.Target = ""
		for j := 1; j < len(f.Agents); j++ {
			if j != i && f.Agents[j].Received == 0 && chebyshev(p, f.Agents[j].Pos) <= 1 {
				act.Target = f.Agents[j].ID
				break
			}
		}
		if act.Target == "" {
			return false, false, act
		}
	}
	tr := f.Preview(i, p, act)
	if !tr.OK {
		return false, false, act
	}
	var hs [maxPlanRules]Hist
	for _, ph := range norms.Phases() {
		tr.Phase = ph
		copy(hs[:], h)
		if !breaks(f, rules, &tr, &hs) {
			reachable = true
			if ph == f.Phase {
				now = true
			}
		}
	}
	return reachable, now, act
}
