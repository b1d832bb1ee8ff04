package sim

import (
	"sync"

	"github.com/normgym/normgym/norms"
)

// Goal is what a planner tries to reach: a tile where Verb can be done.
type Goal struct {
	// Verb is the action to do on arrival: Pick, Drop, Use, or Wait (just arrive).
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
func Plan(f *Frame, i int, g Goal, rules []norms.Rule, hists []Hist) (a Action, arrived, ok bool) {
	path, now, ok := PlanPath(f, i, g, rules, hists)
	switch {
	case !ok:
		return Action{Verb: Wait}, false, false
	case len(path) > 0:
		return path[0], false, true
	case now:
		return goalAction(g), true, true
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
	h      [4]Hist
	parent int32
	act    int8
}

var scratchPool = sync.Pool{New: func() any { return &planScratch{} }}

// PlanPath is Plan returning the whole way: the actions that lead to a
// tile where the goal action can be done (empty when already there), and
// whether it can be done there in the current phase.
func PlanPath(f *Frame, i int, g Goal, rules []norms.Rule, hists []Hist) (path []Action, now, ok bool) {
	nr := len(rules)
	if nr > 4 {
		rules, hists, nr = rules[:4], hists[:4], 4
	}
	width := 1 << (2 * nr)
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
	key := func(p Pos, h *[4]Hist) int {
		b := 0
		for k := 0; k < nr; k++ {
			if h[k].Since {
				b |= 1 << (2 * k)
			}
			if h[k].Owe {
				b |= 2 << (2 * k)
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
		if reach, here := goalHere(f, i, g, cur.p, rules, cur.h[:nr]); reach {
			for k := head; q[k].parent >= 0; k = int(q[k].parent) {
				path = append(path, planSteps[q[k].act])
			}
			for a, b := 0, len(path)-1; a < b; a, b = a+1, b-1 {
				path[a], path[b] = path[b], path[a]
			}
			return path, here, true
		}
		for k, a := range planSteps {
			tr := f.Preview(i, cur.p, a)
			if !tr.OK {
				continue
			}
			nh := cur.h
			bad := false
			for r := 0; r < nr && !bad; r++ {
				bad, nh[r] = judge(f, &rules[r], &tr, nh[r])
			}
			if bad {
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
	return nil, false, false
}

func goalAction(g Goal) Action { return Action{Verb: g.Verb} }

// goalHere reports whether agent i standing at p with histories h can do
// the goal action without breaking a rule in some phase (reachable), and
// whether it can in the current phase (now).
func goalHere(f *Frame, i int, g Goal, p Pos, rules []norms.Rule, h []Hist) (reachable, now bool) {
	if g.At != nil && *g.At != p {
		return false, false
	}
	t := f.At(p)
	if g.Object != "" && t.Object != g.Object {
		return false, false
	}
	if g.Verb == Pick && t.Stock == 0 {
		return false, false
	}
	if g.Litter && t.Object == "basket" {
		return false, false
	}
	tr := f.Preview(i, p, goalAction(g))
	if !tr.OK {
		return false, false
	}
	for _, ph := range norms.Phases() {
		tr.Phase = ph
		bad := false
		for r := range rules {
			if v, _ := judge(f, &rules[r], &tr, h[r]); v {
				bad = true
				break
			}
		}
		if !bad {
			reachable = true
			if ph == f.Phase {
				now = true
			}
		}
	}
	return reachable, now
}
