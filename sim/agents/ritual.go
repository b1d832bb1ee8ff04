package agents

import (
	"slices"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
)

// A ritual is blanket caution that needs no learning: the greedy errand
// done under a fixed set of self-imposed rules, the same in every visit.
// Where the ritual leaves no way to finish the errand, it does the errand
// as greedy would. The validity tests require every ritual to score at
// most greedy + 0.05 joint success: caution alone must not pay.
type ritual struct {
	rules []norms.Rule
	own   ownHistory
}

// rituals are the ritual baselines by name, each with its self-imposed
// rules in the norm grammar.
var rituals = []struct {
	name, what string
	rules      []string
}{
	{"ritual-bow", "bow before every move, pick and drop",
		[]string{"require bow before step", "require bow before pick", "require bow before drop"}},
	{"ritual-greet", "bow before entering the market, before every pick and drop, and whenever anyone comes next to you",
		[]string{"require bow before enter zone=market", "require bow before pick", "require bow before drop", "require bow after meet"}},
	{"ritual-wash", "wash at the well and bow before every pick",
		[]string{"require use object=well before pick", "require bow before pick"}},
	{"ritual-plain", "keep off every coloured tile, the garden and the plaza",
		[]string{"forbid step color=red", "forbid step color=blue", "forbid step color=yellow", "forbid step color=green",
			"forbid enter zone=garden", "forbid enter zone=plaza"}},
	{"ritual-offpath", "never step onto a path",
		[]string{"forbid step terrain=path"}},
	{"ritual-onething", "carry one thing at a time",
		[]string{"forbid carry over=1"}},
	{"ritual-distance", "never walk next to anyone",
		[]string{"forbid pass"}},
}

// RitualNames lists the ritual baselines in canonical order.
func RitualNames() []string {
	out := make([]string, len(rituals))
	for i, r := range rituals {
		out[i] = r.name
	}
	return out
}

// RitualDescription says in words what the ritual called name does, or "".
func RitualDescription(name string) string {
	for _, r := range rituals {
		if r.name == name {
			return r.what
		}
	}
	return ""
}

func lookupRitual(name string) (*ritual, bool) {
	i := slices.IndexFunc(rituals, func(r struct {
		name, what string
		rules      []string
	}) bool {
		return r.name == name
	})
	if i < 0 {
		return nil, false
	}
	p := &ritual{}
	for _, text := range rituals[i].rules {
		r, err := norms.Parse(text)
		if err != nil {
			panic("agents: ritual " + name + ": " + err.Error()) // a test parses every ritual
		}
		p.rules = append(p.rules, r)
	}
	return p, true
}

func (p *ritual) Act(o *sim.Observation) sim.Action {
	hists := p.own.update(o, p.rules)
	a, ok := taskAction(o, p.rules, hists)
	if !ok {
		a, _ = taskAction(o, nil, nil)
	}
	p.own.did(o, a)
	return a
}

// Answer picks the first option: a ritual learns nothing.
func (p *ritual) Answer(*sim.Probe) int { return 0 }
