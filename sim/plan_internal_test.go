package sim

import (
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"

	"github.com/normgym/normgym/norms"
)

// The planner as it was before it was tuned for WebAssembly (histories
// as arrays, a Preview per step, every rule judged): TestPlanPathMatchesReference
// holds the tuned PlanPath to it.

// refScratch is reused across searches to spare the allocator.
type refScratch struct {
	seen  []uint32
	stamp uint32
	queue []refNode
}

type refNode struct {
	p      Pos
	h      [maxPlanRules]Hist
	parent int32
	act    int8
}

var refPool = sync.Pool{New: func() any { return &refScratch{} }}

func refPlanPath(f *Frame, i int, g Goal, rules []norms.Rule, hists []Hist) (path []Action, final Action, now, ok bool) {
	nr := len(rules)
	if nr > maxPlanRules {
		rules, hists, nr = rules[:maxPlanRules], hists[:maxPlanRules], maxPlanRules
	}
	// Only requirements, "meet" events and events qualified by "follows"
	// carry history; other forbid rules add no search state.
	var req [maxPlanRequires]int
	nreq := 0
	for k := 0; k < nr; k++ {
		_, follows := rules[k].Event.Value("follows")
		if rules[k].Deontic == norms.Require || rules[k].Event.Verb == "meet" || follows {
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
	sc := refPool.Get().(*refScratch)
	defer refPool.Put(sc)
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
	start := refNode{p: f.Agents[i].Pos, parent: -1, act: -1}
	copy(start.h[:], hists)
	sc.seen[key(start.p, &start.h)] = sc.stamp
	q := append(sc.queue[:0], start)
	defer func() { sc.queue = q[:0] }()
	for head := 0; head < len(q); head++ {
		cur := q[head]
		if reach, here, act := refGoalHere(f, i, g, cur.p, rules, cur.h[:nr]); reach {
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
			if refBreaks(f, rules, &tr, &nh) {
				continue
			}
			kk := key(tr.To, &nh)
			if sc.seen[kk] == sc.stamp {
				continue
			}
			sc.seen[kk] = sc.stamp
			q = append(q, refNode{p: tr.To, h: nh, parent: int32(head), act: int8(k)})
		}
	}
	return nil, Action{}, false, false
}

// breaks reports whether tr breaks any of rules, advancing the histories
// h (one per rule) past it. A bow is out of place only if no rule calls
// for it (the etiquette of Judge, for a set of rules).
func refBreaks(f *Frame, rules []norms.Rule, tr *Transition, h *[maxPlanRules]Hist) bool {
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
func refGoalHere(f *Frame, i int, g Goal, p Pos, rules []norms.Rule, h []Hist) (reachable, now bool, act Action) {
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
		if !refBreaks(f, rules, &tr, &hs) {
			reachable = true
			if ph == f.Phase {
				now = true
			}
		}
	}
	return reachable, now, act
}

// TestPlanPathMatchesReference plans from the frames of mini-suite visits
// (every agent, several goals, the visit's rule, none, and random sets of
// catalog rules with random histories) with PlanPath and with the
// reference planner above, and wants the same answers.
func TestPlanPathMatchesReference(t *testing.T) {
	mini, err := LookupSuite("mini")
	if err != nil {
		t.Fatal(err)
	}
	all := norms.Default().Norms()
	rng := rand.New(rand.NewPCG(1, 2))
	every := 6
	if testing.Short() {
		every = 24
	}
	calls := 0
	for v := 0; v < len(mini.Visits); v += every {
		id := mini.Visits[v]
		e, _, err := NewVisit(id)
		if err != nil {
			t.Fatal(err)
		}
		for step := 0; !e.Over() && step < 40; step++ {
			f := e.frame
			ruleSets := [][]norms.Rule{nil, e.rules}
			for range 3 {
				var rs []norms.Rule
				for range 1 + rng.IntN(9) {
					rs = append(rs, all[rng.IntN(len(all))].Rule)
				}
				ruleSets = append(ruleSets, rs)
			}
			stroll := Pos{rng.IntN(f.Width), rng.IntN(f.Height)}
			goals := []Goal{{Verb: Pick, Object: "source"}, {Verb: Drop, Object: "basket"}, {Verb: Give},
				{Verb: Drop, Litter: true}, {Verb: Use, Object: "bell"}, {Verb: Use, Object: "well"}, {Verb: Wait, At: &stroll}}
			for i := range f.Agents {
				for _, g := range goals {
					for _, rs := range ruleSets {
						hists := make([]Hist, len(rs)+rng.IntN(2))
						for k := range hists {
							b := rng.IntN(8)
							hists[k] = Hist{Since: b&1 != 0, Owe: b&2 != 0, Near: b&4 != 0}
						}
						p1, a1, n1, ok1 := PlanPath(f, i, g, rs, hists)
						p2, a2, n2, ok2 := refPlanPath(f, i, g, rs, hists)
						calls++
						if !reflect.DeepEqual(p1, p2) || a1 != a2 || n1 != n2 || ok1 != ok2 {
							t.Fatalf("%s step %d agent %d goal %+v rules %v hists %v:\nPlanPath  %v %v %v %v\nreference %v %v %v %v",
								id, step, i, g, rs, hists, p1, a1, n1, ok1, p2, a2, n2, ok2)
						}
					}
				}
			}
			a, _, _ := Plan(f, 0, goals[step%len(goals)], e.rules, e.hist[0])
			if rng.IntN(4) == 0 {
				a = planSteps[rng.IntN(len(planSteps))]
			}
			if _, err := e.Step(a); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("%d plans compared", calls)
}
