package agents_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
	"github.com/normgym/normgym/sim/simtest"
)

// keepOffRed is a newcomer written from scratch: it does the errand the
// greedy way (pick every good needed, deliver each into the basket or to a
// member, whichever is nearer, then get rid of the litter), but plans
// every way with sim.PlanPath under a rule of its own guessing: never
// step on red. It sees only observations, like every newcomer.
type keepOffRed struct {
	rules []norms.Rule
	hists []sim.Hist // its history under each rule (none for a forbid rule)
}

func newKeepOffRed() *keepOffRed {
	r := norms.MustParse("forbid step color=red")
	return &keepOffRed{rules: []norms.Rule{r}, hists: make([]sim.Hist, 1)}
}

func (p *keepOffRed) Act(o *sim.Observation) sim.Action {
	f, t := &o.Frame, o.Task
	me, given := f.Agents[0], sim.GiftsGiven(f)
	if me.Goods+me.Delivered+given < t.Picks() {
		if a, _, ok := p.way(f, sim.Goal{Verb: sim.Pick, Object: "source"}); ok {
			return a
		}
	}
	if me.Goods > 0 {
		// Deliver where the way is shorter: into the basket or to a member.
		var best sim.Action
		bestLen := -1
		for _, g := range []sim.Goal{{Verb: sim.Drop, Object: "basket"}, {Verb: sim.Give}} {
			if g.Verb == sim.Drop && me.Delivered >= t.Goods || g.Verb == sim.Give && given >= t.Gifts {
				continue
			}
			if a, n, ok := p.way(f, g); ok && (bestLen < 0 || n < bestLen) {
				best, bestLen = a, n
			}
		}
		if bestLen >= 0 {
			return best
		}
	}
	if me.Litter > 0 {
		if a, _, ok := p.way(f, sim.Goal{Verb: sim.Drop, Litter: true}); ok {
			return a
		}
	}
	return sim.Action{Verb: sim.Wait} // errand done, or no way that keeps off red now
}

// way returns the first action on the shortest way to goal g that keeps
// the newcomer's rules, and how many steps the way takes.
func (p *keepOffRed) way(f *sim.Frame, g sim.Goal) (sim.Action, int, bool) {
	path, final, now, ok := sim.PlanPath(f, 0, g, p.rules, p.hists)
	switch {
	case !ok:
		return sim.Action{}, 0, false
	case len(path) > 0:
		return path[0], len(path), true
	case now:
		return final, 0, true // there: do it
	}
	return sim.Action{Verb: sim.Wait}, 0, true // there, but not in this phase
}

// Answer picks the probe option about red tiles, else the last one (a
// guess).
func (p *keepOffRed) Answer(pr *sim.Probe) int {
	for k, s := range pr.Options {
		if strings.Contains(s, "red tiles") {
			return k
		}
	}
	return len(pr.Options) - 1
}

// A custom newcomer is any agents.Policy. agents.Run plays a visit with it
// (the probe included) and returns the finished environment, whose scores
// are the benchmark's. The guess pays where the hidden norm is about red
// tiles and not where it is about blue ones; simtest.CheckEnv checks such
// an agent against the environment's contract.
func Example_customAgent() {
	for _, visit := range []string{
		"orchard/place.color=red/observe/s17",
		"orchard/place.color=blue/observe/s17",
		"market/none/control/s4",
	} {
		env, err := agents.Run(visit, newKeepOffRed())
		if err != nil {
			fmt.Println(err)
			return
		}
		s := env.Scores()
		fmt.Printf("%s: joint %v (task %v, violations %v, sanctioned %d)", visit, s.Joint, s.Task, s.Violations, s.SanctionsReceived)
		if pr := env.Probe(); pr != nil {
			k := env.ProbeAnswer()
			fmt.Printf("; probe: %q, right: %v", pr.Options[k], pr.Correct(k))
		}
		fmt.Println()
	}
	// Output:
	// orchard/place.color=red/observe/s17: joint true (task true, violations [0 0], sanctioned 0); probe: "Do not step on red tiles.", right: true
	// orchard/place.color=blue/observe/s17: joint false (task true, violations [2 4], sanctioned 6); probe: "Put things on the ground only on sand.", right: false
	// market/none/control/s4: joint true (task true, violations [0 0], sanctioned 0)
}

// TestCustomAgentKeepsTheContract runs the example's agent through the
// environment checker, as a researcher would their own.
func TestCustomAgentKeepsTheContract(t *testing.T) {
	for _, visit := range []string{"orchard/place.color=red/observe/s17", "park/order.bow=drop/solo/s2", "market/none/control/s4"} {
		t.Run(visit, func(t *testing.T) {
			simtest.CheckEnv(t, new(sim.Native), visit, newKeepOffRed())
		})
	}
}
