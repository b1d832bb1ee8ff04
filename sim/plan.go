package sim

import "github.com/normgym/normgym/norms"

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
	nr := len(rules)
	if nr > 4 {
		rules, hists, nr = rules[:4], hists[:4], 4
	}
	width := 1 << (2 * nr)
	n := f.Width * f.Height * width
	type node struct {
		p     Pos
		h     [4]Hist
		first int8
	}
	seen := make([]bool, n)
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
	var start node
	start.p, start.first = f.Agents[i].Pos, -1
	copy(start.h[:], hists)
	seen[key(start.p, &start.h)] = true
	queue := []node{start}
	steps := [...]Action{{Verb: North}, {Verb: East}, {Verb: South}, {Verb: West}, {Verb: Bow}, {Verb: Use}}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if act, now := goalHere(f, i, g, cur.p, rules, cur.h[:nr]); act {
			if cur.first >= 0 {
				return steps[cur.first], false, true
			}
			if now {
				return goalAction(g), true, true
			}
			return Action{Verb: Wait}, false, true
		}
		for k, a := range steps {
			tr := f.Preview(i, cur.p, a)
			if !tr.OK {
				continue
			}
			nh := cur.h
			bad := false
			for r := 0; r < nr; r++ {
				var v bool
				v, nh[r] = Judge(f, rules[r], tr, nh[r])
				bad = bad || v
			}
			if bad {
				continue
			}
			kk := key(tr.To, &nh)
			if seen[kk] {
				continue
			}
			seen[kk] = true
			first := cur.first
			if first < 0 {
				first = int8(k)
			}
			queue = append(queue, node{p: tr.To, h: nh, first: first})
		}
	}
	return Action{Verb: Wait}, false, false
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
			if v, _ := Judge(f, rules[r], tr, h[r]); v {
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
