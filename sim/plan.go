package sim

import (
	"math/bits"
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
	// To, for Give, names the one member to give to (else any).
	To string
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
	rules [maxPlanRules]compiledRule
	quals []compiledQual // the rules' qualifiers
}

// planNode is one state of the search: a tile (its index in the frame)
// and the histories there (packed, see packHists). It is 16 bytes on
// purpose: under WebAssembly a copy of more than 16 bytes is a call.
type planNode struct {
	cell, parent int32
	h            uint32
	act          int8
}

// maxPlanRules bounds the rules a plan respects; at most maxPlanRequires
// of them may carry history (requirements and "meet" events; each
// multiplies the search space by eight).
const (
	maxPlanRules    = 8
	maxPlanRequires = 4
)

// A search packs the histories of its (at most maxPlanRules) rules into
// one word, three bits a rule: rule k's Since, Owe and Near are bits 3k,
// 3k+1 and 3k+2.
func packHists(hists []Hist, n int) uint32 {
	var h uint32
	for k := 0; k < n && k < len(hists); k++ {
		h = withHist(h, k, hists[k])
	}
	return h
}

// histAt returns rule k's history from packed histories h.
func histAt(h uint32, k int) Hist {
	b := h >> (3 * k)
	return Hist{Since: b&1 != 0, Owe: b&2 != 0, Near: b&4 != 0}
}

// withHist returns packed histories h with rule k's history set to x.
func withHist(h uint32, k int, x Hist) uint32 {
	var b uint32
	if x.Since {
		b |= 1
	}
	if x.Owe {
		b |= 2
	}
	if x.Near {
		b |= 4
	}
	return h&^(7<<(3*k)) | b<<(3*k)
}

var scratchPool = sync.Pool{New: func() any { return &planScratch{} }}

// PlanPath is Plan returning the whole way: the actions that lead to a
// tile where the goal action can be done (empty when already there), the
// goal action to do there (for Give, naming the member), and whether it can
// be done there in the current phase.
//
// It respects at most maxPlanRules rules, of which at most maxPlanRequires
// requirements; further rules are ignored.
func PlanPath(f *Frame, i int, g Goal, rules []norms.Rule, hists []Hist) (path []Action, final Action, now, ok bool) {
	rules, hists, k := trimPlanRules(rules, hists)
	sc := scratchPool.Get().(*planScratch)
	s := planSearch{f: f, i: i, nr: len(rules), key: k}
	s.seen, s.stamp = sc.reserve(f.Width * f.Height * k.width)
	s.crs, s.judged = sc.compile(rules)
	from := f.Agents[i].Pos
	start := planNode{cell: int32(from.Y*f.Width + from.X), parent: -1, h: packHists(hists, s.nr), act: -1}
	s.seen[k.of(int(start.cell), start.h)] = s.stamp
	q := append(sc.queue[:0], start)
	// Without rules that carry history a bow or a use leaves the state
	// (tile and histories) as it was: it never reaches a new one.
	s.nsteps = len(planSteps)
	if k.nreq == 0 {
		s.nsteps = 4
	}
	for head := 0; head < len(q); head++ {
		cur := q[head]
		c, w := uint(cur.cell), uint(f.Width) // unsigned: no runtime call to divide under WebAssembly
		p := Pos{int(c % w), int(c / w)}
		if reach, here, act := goalHere(f, i, &g, p, s.crs, cur.h); reach {
			path = pathTo(q, head)
			sc.queue = q[:0]
			scratchPool.Put(sc)
			return path, act, here, true
		}
		q = s.expand(q, head, p)
	}
	sc.queue = q[:0]
	scratchPool.Put(sc)
	return nil, Action{}, false, false
}

// trimPlanRules keeps the rules (and their histories) a plan respects: at
// most maxPlanRules, of which at most maxPlanRequires carry history
// (requirements, "meet" events and events qualified by "follows"; other
// forbid rules add no search state), and returns how a search numbers its states.
func trimPlanRules(rules []norms.Rule, hists []Hist) ([]norms.Rule, []Hist, stateKey) {
	nr := len(rules)
	if nr > maxPlanRules {
		rules, hists, nr = rules[:maxPlanRules], hists[:maxPlanRules], maxPlanRules
	}
	var k stateKey
	for r := 0; r < nr; r++ {
		if carriesHistory(&rules[r]) {
			if k.nreq == maxPlanRequires {
				rules, hists = rules[:r], hists[:r]
				break
			}
			k.req[k.nreq] = r
			k.nreq++
		}
	}
	k.width = 1 << (3 * k.nreq)
	return rules, hists, k
}

// carriesHistory reports whether judging r changes the actor's history:
// a requirement, or an event that is "meet" or qualified by "follows".
func carriesHistory(r *norms.Rule) bool {
	if r.Deontic == norms.Require || r.Event.Verb == "meet" {
		return true
	}
	_, ok := r.Event.Value("follows")
	return ok
}

// stateKey numbers a search's states: its tile, then the histories of the
// rules that carry history (the others never change in a search).
type stateKey struct {
	req         [maxPlanRequires]int
	nreq, width int
}

// of is the number of the state at cell with packed histories h.
func (k *stateKey) of(cell int, h uint32) int {
	b := 0
	for j := 0; j < k.nreq; j++ {
		b |= int(h>>(3*k.req[j])&7) << (3 * j)
	}
	return cell*k.width + b
}

// reserve returns the scratch's table of states seen, n long, and the
// stamp that marks a state seen in this search.
func (sc *planScratch) reserve(n int) ([]uint32, uint32) {
	if len(sc.seen) < n {
		sc.seen = make([]uint32, n)
		sc.stamp = 0
	}
	sc.stamp++
	if sc.stamp == 0 {
		clear(sc.seen)
		sc.stamp = 1
	}
	return sc.seen, sc.stamp
}

// compile compiles rules into the scratch and returns them with, for
// each kind of plan step (stepMove, stepBow, stepUse), the mask of the
// rules that must be judged for it (the others are inert for it).
func (sc *planScratch) compile(rules []norms.Rule) ([]compiledRule, [3]uint32) {
	crs, buf := sc.rules[:len(rules)], sc.quals[:0]
	for k := range crs {
		crs[k], buf = compileRule(&rules[k], buf)
	}
	sc.quals = buf
	var judged [3]uint32
	for k := range crs {
		for s := range judged {
			if !crs[k].inert(s) {
				judged[s] |= 1 << k
			}
		}
	}
	return crs, judged
}

// pathTo is the actions from the search's start to node head of q.
func pathTo(q []planNode, head int) []Action {
	steps := 0
	for k := head; q[k].parent >= 0; k = int(q[k].parent) {
		steps++
	}
	if steps == 0 {
		return nil
	}
	path := make([]Action, steps)
	for k := head; q[k].parent >= 0; k = int(q[k].parent) {
		steps--
		path[steps] = planSteps[q[k].act]
	}
	return path
}

// planSearch is one search of PlanPath: the frame and agent, the compiled
// rules and the states seen.
type planSearch struct {
	f      *Frame
	i      int
	nr     int
	crs    []compiledRule
	judged [3]uint32
	key    stateKey
	seen   []uint32
	stamp  uint32
	nsteps int
}

// planMoves are the moves of planSteps[:4], as offsets.
var planMoves = [4]Pos{{0, -1}, {1, 0}, {0, 1}, {-1, 0}}

// expand appends to q the states one plan step from node head of q, at
// p, that break no rule and were not seen.
func (s *planSearch) expand(q []planNode, head int, p Pos) []planNode {
	f, i, crs, judged := s.f, s.i, s.crs, &s.judged
	cur := q[head]
	t := &f.Tiles[cur.cell]
	// tr is the transition of one plan step, written in place: only what
	// a step changes is written, and tr stays on this function's stack
	// (no write barriers). Only possible steps are judged, so OK is true,
	// and Reason, PickedColor, Dropped, IntoBasket and Target stay empty:
	// tr is then what Preview returns for the step.
	var tr Transition
	ag := &f.Agents[i]
	tr.Agent, tr.OK, tr.Receiver, tr.Phase = i, true, -1, f.Phase
	tr.CarryBefore = ag.Goods + ag.Litter
	tr.CarryAfter = tr.CarryBefore
	if judged[stepMove]|judged[stepBow]|judged[stepUse] != 0 {
		tr.From = p
		setTile(&tr.FromTile, t)
	}
	for k := 0; k < s.nsteps; k++ {
		kind := stepMove
		to := p
		if k < 4 {
			// A move (planSteps[k]).
			to = Pos{p.X + planMoves[k].X, p.Y + planMoves[k].Y}
			if !f.In(to) {
				continue
			}
			nt := f.At(to)
			if !walkable(nt) {
				continue
			}
			if judged[stepMove] == 0 {
				// Nothing to judge: the histories stay as they are.
				cell := to.Y*f.Width + to.X
				if kk := s.key.of(cell, cur.h); s.seen[kk] != s.stamp {
					s.seen[kk] = s.stamp
					q = append(q, planNode{cell: int32(cell), parent: int32(head), h: cur.h, act: int8(k)})
				}
				continue
			}
			tr.Moved = true
			setTile(&tr.ToTile, nt)
			tr.UsedObject = ""
		} else {
			kind = stepBow
			if k == 5 { // Use
				kind = stepUse
				switch t.Object {
				case "bell", "well", "bin":
				default:
					continue
				}
				tr.UsedObject = t.Object
			} else {
				tr.UsedObject = ""
			}
			tr.Moved = false
			setTile(&tr.ToTile, t)
		}
		tr.Action.Verb, tr.To = planSteps[k].Verb, to
		// breaks, judging only the rules not inert for the step.
		nh := cur.h
		bad := false
		for m := judged[kind]; m != 0 && !bad; m &= m - 1 {
			r := bits.TrailingZeros32(m)
			var next Hist
			bad, next = crs[r].judge(f, &tr, histAt(nh, r))
			nh = withHist(nh, r, next)
		}
		if bad || (kind == stepBow && s.nr > 0 && !anyBowCalledFor(crs, cur.h)) {
			continue
		}
		cell := to.Y*f.Width + to.X
		kk := s.key.of(cell, nh)
		if s.seen[kk] == s.stamp {
			continue
		}
		s.seen[kk] = s.stamp
		q = append(q, planNode{cell: int32(cell), parent: int32(head), h: nh, act: int8(k)})
	}
	return q
}

// breaks reports whether tr breaks any of rules, and returns the packed
// histories h (one per rule) advanced past it when it does not. A bow is
// out of place only if no rule calls for it (the etiquette of Judge, for
// a set of rules).
func breaks(f *Frame, rules []compiledRule, tr *Transition, h uint32) (bool, uint32) {
	h0 := h
	for r := range rules {
		v, next := rules[r].judge(f, tr, histAt(h, r))
		if v {
			// Judging is pure: the rules left cannot undo this.
			return true, h
		}
		h = withHist(h, r, next)
	}
	return len(rules) > 0 && tr.OK && tr.Action.Verb == Bow && !anyBowCalledFor(rules, h0), h
}

// anyBowCalledFor reports whether some rule calls for a bow, for packed
// histories h.
func anyBowCalledFor(rules []compiledRule, h uint32) bool {
	for r := range rules {
		if rules[r].bowCalledFor(histAt(h, r)) {
			return true
		}
	}
	return false
}

// goalHere reports whether agent i standing at p with packed histories h
// (see packHists) can do the goal action without breaking a rule in some
// phase (reachable), and whether it can in the current phase (now), and
// returns that action.
func goalHere(f *Frame, i int, g *Goal, p Pos, rules []compiledRule, h uint32) (reachable, now bool, act Action) {
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
			if j != i && f.Agents[j].Received == 0 && chebyshev(p, f.Agents[j].Pos) <= 1 && (g.To == "" || g.To == f.Agents[j].ID) {
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
	for _, ph := range phases {
		tr.Phase = ph
		if bad, _ := breaks(f, rules, &tr, h); !bad {
			reachable = true
			if ph == f.Phase {
				now = true
			}
		}
	}
	return reachable, now, act
}

// phases is norms.Phases, read once.
var phases = norms.Phases()
