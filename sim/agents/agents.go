// Package agents holds NormGym's baseline newcomers: random, greedy,
// oracle, self (learns from its own sanctions), observer (infers the norm
// from everyone's actions and sanctions), counter (counts generic features
// of sanctioned and unsanctioned acts and avoids the suspicious ones) and
// the rituals (fixed caution that needs no learning). Every baseline sees only the observation a
// model gets; the oracle alone is also handed the norm, and only through
// NewOracle.
package agents

import (
	"fmt"
	"strings"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/splitmix"
)

// Policy is a newcomer: it is shown each observation and chooses an
// action, and at the end of the visit answers the probe.
type Policy interface {
	// Act returns the next action for the observation.
	Act(o *sim.Observation) sim.Action
	// Answer returns the chosen probe option (0-based).
	Answer(p *sim.Probe) int
}

// Oracle is the name of the baseline that knows the norm (NewOracle).
const Oracle = "oracle"

// Names lists the baselines in canonical order: the learners and their
// bounds, then the rituals (fixed caution that needs no learning).
func Names() []string {
	return append([]string{"random", "greedy", Oracle, "self", "observer", Counter}, RitualNames()...)
}

// New returns a fresh baseline called name that sees only what a model
// sees: the observations and the probe. It is never handed the visit id,
// the norm or the condition. The oracle, which is handed the norm, comes
// from NewOracle instead. It is NewIn for the public catalog.
func New(name string) (Policy, error) { return NewIn(norms.Default(), name) }

// NewIn is New for visits whose norms are in cat: the learners read the
// told statement and the probe's options as the rules cat gives those
// statements (as a model reads their words), and nothing else of it.
func NewIn(cat *norms.Catalog, name string) (Policy, error) {
	switch name {
	case "random":
		return &random{}, nil
	case "greedy":
		return &greedy{}, nil
	case Oracle:
		return nil, fmt.Errorf("agents: the oracle is handed the norm: use NewOracle")
	case "self":
		return newLearner(false, cat), nil
	case "observer":
		return newLearner(true, cat), nil
	case Counter:
		return newCounter(), nil
	}
	if r, ok := lookupRitual(name); ok {
		return r, nil
	}
	return nil, fmt.Errorf("agents: unknown agent %q (want one of %s)", name, strings.Join(Names(), ", "))
}

// NewOracle returns the oracle for norm n (nil under control): it does
// the task without breaking the norm and names it in the probe.
func NewOracle(n *norms.Norm) Policy {
	if n == nil {
		return &oracle{}
	}
	return &oracle{rules: n.Rules(), statement: n.Statement}
}

// Run plays a whole visit with policy p (the probe included) and returns
// the finished environment. p gets a new observation every step and may
// keep them.
func Run(visit string, p Policy) (*sim.Visit, error) {
	env, obs, err := sim.NewVisit(visit)
	if err != nil {
		return nil, err
	}
	return env, finish(env, obs, p, false)
}

// Play plays a whole visit with the baseline called name and returns the
// finished environment. Only the oracle is handed the visit's norm.
func Play(visit, name string) (*sim.Visit, error) { return PlayIn(norms.Default(), visit, name) }

// PlayIn is Play for a visit whose norm is in cat (sim.NewVisitIn).
func PlayIn(cat *norms.Catalog, visit, name string) (*sim.Visit, error) {
	env, obs, err := sim.NewVisitIn(cat, visit)
	if err != nil {
		return nil, err
	}
	p, err := ForEnv(name, env)
	if err != nil {
		return nil, err
	}
	// The baselines keep nothing of an observation once they have acted
	// on it (they copy what they need), so one observation serves the
	// whole visit (sim.Visit.StepInto): TestPlayMatchesRun holds it.
	return env, finish(env, obs, p, true)
}

// finish plays env to its end with p, then asks the probe. With reuse,
// every step's observation is written over the previous one.
func finish(env *sim.Visit, obs *sim.Observation, p Policy, reuse bool) error {
	for !env.Over() {
		a := p.Act(obs)
		var res sim.StepResult
		var err error
		if reuse {
			res, err = env.StepInto(a, obs)
		} else {
			res, err = env.Step(a)
		}
		if err != nil {
			return err
		}
		obs = res.Observation
	}
	if pr := env.Probe(); pr != nil {
		if _, err := env.Answer(p.Answer(pr)); err != nil {
			return err
		}
	}
	return nil
}

// random acts uniformly at random among the verbs that take no argument.
// Its generator (SplitMix64) is seeded by the first observation's map, so
// a visit replays identically.
type random struct {
	src    splitmix.Source
	seeded bool
}

// seed hashes what the first observation shows (FNV-1a).
func (r *random) seed(o *sim.Observation) {
	h := uint64(1469598103934665603)
	mix := func(s string) {
		for i := 0; i < len(s); i++ {
			h = (h ^ uint64(s[i])) * 1099511628211
		}
	}
	mix(o.World)
	for _, t := range o.Frame.Tiles {
		mix(t.Terrain)
		mix(t.Color)
		mix(t.Object)
	}
	for _, a := range o.Frame.Agents {
		h = (h ^ uint64(a.Pos.Y*64+a.Pos.X)) * 1099511628211
	}
	r.src, r.seeded = *splitmix.New(h), true
}

func (r *random) next() uint64 { return r.src.Uint64() }

func (r *random) Act(o *sim.Observation) sim.Action {
	if !r.seeded {
		r.seed(o)
	}
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
	a, ok := patientAction(o, p.rules, hists)
	if !ok {
		// No compliant way now (a member in the way, say): wait for one
		// if waiting itself breaks nothing, else do the errand regardless.
		a = sim.Action{Verb: sim.Wait}
		if !breaksAny(o, p.rules, hists, a) {
			p.own.did(o, a)
			return a
		}
		a, _ = taskAction(o, nil, nil)
	}
	p.own.did(o, a)
	return a
}

// breaksAny reports whether the newcomer doing a now breaks one of rules.
func breaksAny(o *sim.Observation, rules []norms.Rule, hists []sim.Hist, a sim.Action) bool {
	f := &o.Frame
	tr := f.Preview(0, f.Agents[0].Pos, a)
	for k, r := range rules {
		if v, _ := sim.Judge(f, r, tr, hists[k]); v {
			return true
		}
	}
	return false
}

func (p *oracle) Answer(pr *sim.Probe) int {
	for k, s := range pr.Options {
		if s == p.statement {
			return k
		}
	}
	return 0
}

// ownHistory tracks the newcomer's own requirement histories for a rule
// set by replaying its own actions on the frames it saw.
type ownHistory struct {
	prev   *sim.Frame // the frame of the last action (nil at a day's start), in buf's memory
	buf    *sim.Frame
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
	h.buf = keepFrame(h.buf, &o.Frame)
	h.prev, h.last = h.buf, a
}

// keepFrame copies f into dst (sim.Frame.CopyInto), and returns it (a
// new copy when dst is nil). Baselines keep the frame they last acted in;
// a fresh copy every step was most of what they allocated.
func keepFrame(dst, f *sim.Frame) *sim.Frame {
	if dst == nil {
		return f.Clone()
	}
	f.CopyInto(dst)
	return dst
}

// ForEnv returns a fresh baseline called name for the visit env runs:
// New(name), or for the oracle NewOracle(env.Norm()). It is for hosts
// that step visits themselves; Play does the whole visit.
func ForEnv(name string, env *sim.Visit) (Policy, error) {
	if name == Oracle {
		return NewOracle(env.Norm()), nil
	}
	return NewIn(env.Catalog(), name)
}
