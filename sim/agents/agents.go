// Package agents holds NormGym's baseline newcomers: random, greedy,
// oracle, self (learns from its own sanctions) and observer (infers the norm
// from everyone's actions and sanctions). Every baseline sees only the
// observation a model gets; the oracle alone is also handed the norm.
package agents

import (
	"fmt"
	"strings"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
)

// Policy is a newcomer: it is shown each observation and chooses an
// action, and at the end of the visit answers the probe.
type Policy interface {
	// Act returns the next action for the observation.
	Act(o *sim.Observation) sim.Action
	// Answer returns the chosen probe option (0-based).
	Answer(p *sim.Probe) int
}

// Names lists the baselines in canonical order.
func Names() []string { return []string{"random", "greedy", "oracle", "self", "observer"} }

// New returns a fresh baseline called name for the visit id. Only the
// oracle reads the norm from the id; random uses it as its seed.
func New(name, visit string) (Policy, error) {
	v, err := sim.ParseVisitID(visit)
	if err != nil {
		return nil, err
	}
	switch name {
	case "random":
		return newRandom(visit), nil
	case "greedy":
		return &greedy{}, nil
	case "oracle":
		var rules []norms.Rule
		statement := ""
		if v.Norm != norms.NoNorm {
			n, err := norms.Default().Lookup(v.Norm)
			if err != nil {
				return nil, err
			}
			rules, statement = []norms.Rule{n.Rule}, n.Statement
		}
		return &oracle{rules: rules, statement: statement}, nil
	case "self":
		return newLearner(false), nil
	case "observer":
		return newLearner(true), nil
	}
	return nil, fmt.Errorf("agents: unknown agent %q (want one of %s)", name, strings.Join(Names(), ", "))
}

// Run plays a whole visit with policy p (the probe included) and returns
// the finished environment.
func Run(visit string, p Policy) (*sim.Env, error) {
	env, obs, err := sim.NewEnv(visit)
	if err != nil {
		return nil, err
	}
	for !env.Over() {
		res, err := env.Step(p.Act(obs))
		if err != nil {
			return nil, err
		}
		obs = res.Observation
	}
	if pr := env.Probe(); pr != nil {
		if _, err := env.Answer(p.Answer(pr)); err != nil {
			return nil, err
		}
	}
	return env, nil
}

// random acts uniformly at random among the verbs that take no argument.
type random struct{ s uint64 }

func newRandom(visit string) *random {
	h := uint64(1469598103934665603)
	for i := 0; i < len(visit); i++ {
		h = (h ^ uint64(visit[i])) * 1099511628211
	}
	return &random{s: h}
}

func (r *random) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func (r *random) Act(*sim.Observation) sim.Action {
	verbs := []string{sim.North, sim.South, sim.East, sim.West, sim.Wait, sim.Pick, sim.Drop, sim.Use, sim.Bow}
	return sim.Action{Verb: verbs[r.next()%uint64(len(verbs))]}
}

func (r *random) Answer(p *sim.Probe) int { return int(r.next() % uint64(len(p.Options))) }

// greedy does the task by the shortest way, knowing nothing of norms.
type greedy struct{}

func (greedy) Act(o *sim.Observation) sim.Action {
	a, _ := taskAction(o, nil, nil)
	return a
}

func (greedy) Answer(*sim.Probe) int { return 0 }

// oracle knows the norm and does the task without breaking it.
type oracle struct {
	rules     []norms.Rule
	statement string
	own       ownHistory
}

func (p *oracle) Act(o *sim.Observation) sim.Action {
	hists := p.own.update(o, p.rules)
	a, ok := taskAction(o, p.rules, hists)
	if !ok {
		a, _ = taskAction(o, nil, nil)
	}
	p.own.did(o, a)
	return a
}

func (p *oracle) Answer(pr *sim.Probe) int {
	for k, s := range pr.Options {
		if s == p.statement {
			return k
		}
	}
	return 0
}

// taskAction returns the next action for the observation's task while
// respecting rules (with the newcomer's histories for them); ok is false
// when the task cannot go on without breaking one.
func taskAction(o *sim.Observation, rules []norms.Rule, hists []sim.Hist) (sim.Action, bool) {
	f := &o.Frame
	me := f.Agents[0]
	capacity := o.Task.Goods + 1
	for _, r := range rules {
		if r.Deontic == norms.Forbid && r.Event.Verb == "carry" {
			if v, ok := r.Event.Value("over"); ok && int(v[0]-'0') < capacity {
				capacity = int(v[0] - '0')
			}
		}
	}
	var g sim.Goal
	switch {
	case o.Task.Litter && me.Litter > 0:
		g = sim.Goal{Verb: sim.Drop, Litter: true}
	case me.Delivered+me.Goods < o.Task.Goods && me.Carrying() < capacity:
		g = sim.Goal{Verb: sim.Pick, Object: "source"}
	case me.Goods > 0:
		g = sim.Goal{Verb: sim.Drop, Object: "basket"}
	default:
		return sim.Action{Verb: sim.Wait}, true
	}
	a, _, ok := sim.Plan(f, 0, g, rules, hists)
	if !ok && g.Verb == sim.Pick && me.Goods > 0 {
		a, _, ok = sim.Plan(f, 0, sim.Goal{Verb: sim.Drop, Object: "basket"}, rules, hists)
	}
	return a, ok
}

// ownHistory tracks the newcomer's own requirement histories for a rule
// set by replaying its own actions on the frames it saw.
type ownHistory struct {
	prev   *sim.Frame
	last   sim.Action
	day    int
	hists  []sim.Hist
	nrules int
}

// update accounts for the newcomer's last action and returns the histories
// for rules as they stand at observation o.
func (h *ownHistory) update(o *sim.Observation, rules []norms.Rule) []sim.Hist {
	if len(h.hists) != len(rules) || o.Day != h.day {
		h.hists = make([]sim.Hist, len(rules))
		h.day = o.Day
		h.prev = nil
	}
	if h.prev != nil {
		tr := h.prev.Preview(0, h.prev.Agents[0].Pos, h.last)
		for k, r := range rules {
			_, h.hists[k] = sim.Judge(h.prev, r, tr, h.hists[k])
		}
	}
	return h.hists
}

// did records the action taken at observation o.
func (h *ownHistory) did(o *sim.Observation, a sim.Action) {
	h.prev = o.Frame.Clone()
	h.last = a
}
