package agents

import (
	"math"
	"slices"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
)

// learner infers the norm over hypotheses, each a rule judged on every
// transition it sees as sim.Judge judges it (through a sim.RuleSet). The
// observer (social) weighs every agent's transitions, sanctioned or not,
// and watches before acting on the practice day; the self-learner scores
// the hypotheses by its own actions only: the sanctions each explains,
// less the seen acts it flags that went unsanctioned. Both take the
// grammar's one-feature rules as hypotheses (hypotheses.go). The counter
// (counts) watches like the observer but counts generic features instead
// (counter.go).
type learner struct {
	social bool
	hyps   []norms.Rule
	set    *sim.RuleSet   // hyps, read for judging
	index  map[string]int // hyps' canonical texts, or nil (then searched)
	// logp: the observer's log posterior, unnormalised and relative to a
	// hypothesis that flags nothing (learn); the self-learner's score, the
	// sanctions on its own acts a hypothesis explains less the seen acts
	// it flags that went unsanctioned.
	logp   []float64
	counts *counting // the counter's tallies, or nil
	// cat is the catalog whose statements the told text and the probe's
	// options are: it says which rules a statement states.
	cat *norms.Catalog
	// judging[a]: agent a's histories under every hypothesis today.
	judging []*sim.Judging
	// prev is the frame the newcomer last acted in (nil at a day's
	// start), kept in buf's memory; learn replays the tick on it.
	prev, buf *sim.Frame
	last      sim.Action
	idx       []int // suspects' scratch
	day       int
	told      bool
	// stated: the told statement named rules, now the only hypotheses;
	// the observer respects all of them (tell), the self-learner those
	// its own sanctions single out.
	stated bool
	// warden: a warden's sanction was seen, so members are bystanders
	// and only the newcomer is watched (read from the events, as a model
	// would read "The warden sanctioned you").
	warden bool
	// active: some member did something other than wait today.
	active bool
	// blocked counts the steps waited in a row because the suspected
	// rules allowed no way on (a phase that forbids walking, say).
	blocked int
}

// patience is how many steps in a row a learner waits for its suspected
// rules to allow a way on before it drops the least likely of them.
const patience = 8

// watchSteps is how long the observer watches before acting on the
// practice day, when there are members to watch.
const watchSteps = 30

// newLearner returns the observer (social) or the self-learner for visits
// whose statements are cat's. Their hypotheses are the grammar's
// one-feature rules (norms.OneFeatureRules), each one feature of one act:
// the harder tier (sim.Harder) is made of norms no such hypothesis is,
// which is what it measures.
func newLearner(social bool, cat *norms.Catalog) *learner {
	sp := oneFeature()
	return newLearnerOver(social, cat, sp.set, sp.index)
}

// newLearnerOver returns a learner over the hypotheses of set (index:
// their canonical texts, or nil).
func newLearnerOver(social bool, cat *norms.Catalog, set *sim.RuleSet, index map[string]int) *learner {
	l := &learner{social: social, cat: cat, index: index}
	l.over(set)
	return l
}

// over makes the rules of set the learner's hypotheses, all equally
// likely.
func (l *learner) over(set *sim.RuleSet) {
	n := set.Len()
	l.set, l.hyps, l.logp = set, make([]norms.Rule, n), make([]float64, n)
	for h := range n {
		l.hyps[h] = set.Rule(h)
	}
	for a := range l.judging {
		l.judging[a] = set.NewJudging()
	}
}

func (l *learner) Act(o *sim.Observation) sim.Action {
	if o.Day != l.day {
		if l.prev != nil {
			// The tick that ended the day: only the newcomer's own act can
			// be replayed (the new frame shows a new layout), against the
			// sanctions of that tick, which the first observation of the
			// new day still reports.
			l.learn(o, true)
		}
		l.day, l.prev, l.active, l.blocked = o.Day, nil, false, 0
		l.judging = make([]*sim.Judging, len(o.Frame.Agents))
		for a := range l.judging {
			l.judging[a] = l.set.NewJudging()
		}
	} else if l.prev != nil {
		l.learn(o, false)
	}
	if o.Told != "" && !l.told {
		l.told = true
		l.tell(o.Told)
	}
	a := l.decide(o)
	l.buf = keepFrame(l.buf, &o.Frame)
	l.prev, l.last = l.buf, a
	return a
}

// learn replays the tick between the previous frame and o: the newcomer's
// action, then (unless ownOnly) each member's last action in order, and
// scores every hypothesis on each transition against the sanctions that
// followed. It replays on l.prev itself, which Act replaces afterwards.
func (l *learner) learn(o *sim.Observation, ownOnly bool) {
	var sanctioned []string
	for i := range o.Events {
		if ev := &o.Events[i]; ev.Kind == "sanction" && ev.Day == l.day {
			sanctioned = append(sanctioned, ev.To)
			if ev.By == sim.WardenID {
				l.warden = true
			}
		}
	}
	for i := 1; i < len(o.Frame.Agents); i++ {
		if a := &o.Frame.Agents[i]; a.LastAction != "" && a.LastAction != sim.Wait {
			l.active = true
		}
	}
	f := l.prev
	for a := range f.Agents {
		act := l.last
		if a > 0 {
			if !l.social || ownOnly {
				break
			}
			parsed, err := sim.ParseAction(o.Frame.Agents[a].LastAction)
			if err != nil {
				break
			}
			act = parsed
		}
		tr := f.Preview(a, f.Agents[a].Pos, act)
		// Who could see it: members other than the actor near where it
		// ends; once a warden has shown up, the warden, who watches only
		// the newcomer.
		seen := false
		if l.warden {
			seen = a == 0
		} else {
			for j := 1; j < len(f.Agents); j++ {
				if j != a && cheb(f.Agents[j].Pos, tr.To) <= o.SanctionRadius {
					seen = true
					break
				}
			}
		}
		s := slices.Contains(sanctioned, f.Agents[a].ID)
		// Only the hypotheses tr breaks are scored: the likelihood of what
		// was seen under one that flags nothing is the same for all of
		// them, and the posterior is kept relative to it.
		member := b2i(a > 0)
		for _, h := range l.judging[a].Step(f, &tr) {
			switch {
			case l.counts != nil:
				l.counts.add(int(h), true, seen, s)
			case !l.social:
				// One point for a sanction it explains, one off for an act
				// it calls a violation that was seen and went unsanctioned.
				if s {
					l.logp[h]++
				} else if seen {
					l.logp[h]--
				}
			default:
				l.logp[h] += logLikelihood[1][b2i(seen)][b2i(s)][member] - logLikelihood[0][b2i(seen)][b2i(s)][member]
			}
		}
		f.Apply(tr)
	}
}

// likelihood is P(what was seen | a hypothesis that flags the transition
// or not): witnessed violations draw sanctions, nothing else does, and
// members break norms less often than chance would have them.
func likelihood(flagged, seen, sanctioned, member bool) float64 {
	p := 0.02
	if flagged && seen {
		p = 0.97
	}
	if !sanctioned {
		p = 1 - p
	}
	if member && flagged {
		p *= memberViolationOdds
	}
	return p
}

// memberViolationOdds is how much less likely a member's act is under a
// hypothesis that calls it a violation: members mostly keep the norm.
const memberViolationOdds = 0.5

// logLikelihood[flagged][seen][sanctioned][member] is the log of
// likelihood, computed once: learn adds these for every hypothesis on
// every transition.
var logLikelihood = func() (t [2][2][2][2]float64) {
	for _, flagged := range []bool{false, true} {
		for _, seen := range []bool{false, true} {
			for _, sanctioned := range []bool{false, true} {
				for _, member := range []bool{false, true} {
					t[b2i(flagged)][b2i(seen)][b2i(sanctioned)][b2i(member)] = math.Log(likelihood(flagged, seen, sanctioned, member))
				}
			}
		}
	}
	return t
}()

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func cheb(a, b sim.Pos) int {
	dx, dy := a.X-b.X, a.Y-b.Y
	if dx < 0 {
		dx = -dx
	}
	if dy < 0 {
		dy = -dy
	}
	return max(dx, dy)
}

// suspects returns the hypotheses to respect, most probable first.
func (l *learner) suspects() []int {
	if l.counts != nil {
		l.idx = l.counts.suspects(l.idx)
		return l.idx
	}
	if l.stated && l.social {
		idx := l.idx[:0]
		for h := range l.hyps {
			idx = append(idx, h)
		}
		l.idx = idx
		return idx
	}
	best := math.Inf(-1)
	for _, v := range l.logp {
		best = max(best, v)
	}
	// Only hypotheses within ln(1/minShare) of the best can hold a share
	// of minShare, and only tied ones can be the self-learner's, once it
	// was sanctioned at all.
	floor := best + math.Log(minShare)
	if !l.social {
		if best <= 0 {
			return l.idx[:0]
		}
		floor = best
	}
	// The most probable first, ties in the space's order; neither learner
	// respects more than maxTop, so only those are kept. Hypotheses that
	// never flagged anything (log posterior 0) are added up at once.
	idx := l.idx[:0]
	total, zeros := 0.0, 0
	for h, v := range l.logp {
		switch d := v - best; {
		case v == 0:
			zeros++
		case d > -negligible:
			total += math.Exp(d)
		}
		if v >= floor {
			idx = insertTop(idx, h, l.logp)
		}
	}
	total += float64(zeros) * math.Exp(-best)
	l.idx = idx
	if !l.social {
		// The self-learner avoids the hypotheses tied for most sanctions,
		// as many as a plan can respect (sim.PlanPath ignores the rest).
		return idx
	}
	// The observer respects the most probable hypotheses that hold real
	// posterior mass, until they hold cover of it together.
	var out []int
	held := 0.0
	for _, h := range idx {
		p := math.Exp(l.logp[h]-best) / total
		if p < minShare || held >= cover {
			break
		}
		out = append(out, h)
		held += p
	}
	return out
}

// The observer respects hypotheses that each hold at least minShare of
// the posterior until they hold cover together (at most maxTop);
// hypotheses more than negligible below the best (in log posterior) hold
// none worth adding up.
const (
	minShare   = 0.04
	cover      = 0.5
	negligible = 40.0
	// maxTop is how many rules a plan respects (sim.PlanPath): the most
	// either learner respects.
	maxTop = 8
)

// insertTop inserts hypothesis h into top, kept most probable first
// (ties in the order inserted) and at most maxTop long.
func insertTop(top []int, h int, logp []float64) []int {
	i := len(top)
	for i > 0 && logp[top[i-1]] < logp[h] {
		i--
	}
	if i == maxTop {
		return top
	}
	if len(top) < maxTop {
		top = append(top, 0)
	}
	copy(top[i+1:], top[i:len(top)-1])
	top[i] = h
	return top
}

func (l *learner) decide(o *sim.Observation) sim.Action {
	// Watch before acting on the practice day, while members are doing
	// things (at step 0 nobody has acted yet).
	if l.social && o.Practice && o.Frame.Step < watchSteps && (l.active || o.Frame.Step == 0) && !l.warden && !l.told {
		return sim.Action{Verb: sim.Wait}
	}
	sus := l.suspects()
	for len(sus) >= 0 {
		rules := make([]norms.Rule, len(sus))
		hists := make([]sim.Hist, len(sus))
		for k, h := range sus {
			rules[k] = l.hyps[h]
			if l.judging != nil {
				hists[k] = l.judging[0].Hist(h)
			}
		}
		if a, ok := taskAction(o, rules, hists); ok {
			l.blocked = 0
			return a
		}
		if len(sus) == 0 {
			break
		}
		wait := sim.Action{Verb: sim.Wait}
		if l.blocked < patience && transient(rules) && !breaksAny(o, rules, hists, wait) {
			l.blocked++
			return wait
		}
		sus = sus[:len(sus)-1]
	}
	a, _ := taskAction(o, nil, nil)
	return a
}

// transient reports whether a way that rules block now may open by
// waiting: some rule depends on the phase or on where others stand.
func transient(rules []norms.Rule) bool {
	for _, r := range rules {
		if _, ok := r.Event.Value("phase"); ok || r.Event.Verb == "pass" || r.Event.Verb == "meet" {
			return true
		}
	}
	return false
}
