package sim

import (
	"errors"
	"fmt"
)

// Event is something visible that happened. Kind is "sanction" (By
// sanctions To, saying Text), "blocked" (the newcomer's action was
// impossible; Text says why) or "day" (a new day began; Text describes it).
//
// A sanction also says what the sanctioned one had just done and where, as
// anyone watching would have seen it: Act is that agent's latest action
// (canonical text), At where it stood after it, and Did the same in words
// with the tile ("walked east onto x=6 y=1 (floor in the market)"). It
// never says why: which feature of the act mattered is for the watcher to
// infer. Under delayed sanctions the latest act is not the one that broke
// the norm.
type Event struct {
	Day  int    `json:"day"`
	Step int    `json:"step"`
	Kind string `json:"kind"`
	By   string `json:"by,omitempty"`
	To   string `json:"to,omitempty"`
	Text string `json:"text"`
	Act  string `json:"act,omitempty"`
	At   Pos    `json:"at,omitzero"`
	Did  string `json:"did,omitempty"`
}

// StepResult is what Step returns.
type StepResult struct {
	Observation *Observation `json:"observation"`
	// Events are the visible events of this step (also in the observation).
	Events []Event `json:"events"`
	// Terminated: the visit ended because the test-day task was done.
	// Truncated: it ended because the test day ran out of steps.
	Terminated bool `json:"terminated"`
	Truncated  bool `json:"truncated"`
	// DayOver reports that a day ended on this step (the observation is
	// then the first of the next day, or the last of the visit).
	DayOver bool `json:"day_over"`
}

// Done reports whether the visit is over.
func (r StepResult) Done() bool { return r.Terminated || r.Truncated }

// ErrVisitOver is returned by Step once the visit has ended.
var ErrVisitOver = errors.New("sim: the visit is over")

func (e *Visit) emit(ev Event) {
	ev.Day, ev.Step = e.day+1, e.frame.Step
	e.events = append(e.events, ev)
	e.all = append(e.all, ev)
}

// Step makes the newcomer take action a, then lets every member act, and
// returns the outcome. An impossible action changes nothing but the step
// count and yields a "blocked" event. After the visit ends, Step returns
// ErrVisitOver.
func (e *Visit) Step(a Action) (StepResult, error) {
	return e.StepInto(a, new(Observation))
}

// StepInto is Step writing the new observation into o (which it returns
// as the result's Observation) instead of a new one, reusing the memory
// of o's tiles, agents and events: for hosts that play many visits and
// keep nothing of an observation once they have acted on it, where a
// fresh observation every step is most of what a visit allocates. o may
// be an observation the Visit gave before; what it held is overwritten,
// including the slices an earlier result shared with it. On an error o
// is left as it was.
func (e *Visit) StepInto(a Action, o *Observation) (StepResult, error) {
	res, err := e.advance(a)
	if err != nil {
		return res, err
	}
	e.observe(o)
	res.Observation, res.Events = o, o.Events
	return res, nil
}

// advance is Step without building the observation (replays need none).
func (e *Visit) advance(a Action) (StepResult, error) {
	if e.over {
		return StepResult{}, ErrVisitOver
	}
	if a.Verb == "" {
		return StepResult{}, fmt.Errorf("%w: empty action", ErrAction)
	}
	a, err := ParseAction(a.String())
	if err != nil {
		return StepResult{}, err
	}
	e.events = e.events[:0]
	e.dayEnd = ""
	f := e.frame
	e.lastPhase = f.Phase
	e.traceTick(f.Step, a.String())
	e.actions = append(e.actions, a.String())
	e.act(0, a)
	for _, m := range e.members {
		var ma Action
		if e.id.Condition == Solo {
			ma = Action{Verb: Wait}
		} else {
			ma = m.act(f, e.rules, e.hist[m.agent])
		}
		e.traceAct(ma.String())
		e.act(m.agent, ma)
	}
	e.giveDue()
	for i := range f.Tiles {
		if t := &f.Tiles[i]; t.Object == "source" && t.Stock == 0 {
			e.regrow[i]++
			if e.regrow[i] >= regrowSteps {
				f.Tiles[i].Stock, e.regrow[i] = 1, 0
			}
		}
	}
	f.Step++
	f.Phase = phaseAt(f.Step, e.lay.phaseOffset)
	e.steps[e.day] = f.Step
	e.traceEnd()
	res := StepResult{}
	// The errand is done once nothing is owed: an act owed under
	// "require A after E" gets its step before the day ends.
	if e.taskComplete() && !owes(e.hist[0]) {
		e.taskDone[e.day] = true
		res.DayOver = true
	} else if f.Step >= e.limit {
		res.DayOver = true
	}
	if res.DayOver {
		// An act still owed ("require A after E") when the day ends will
		// never come: the omission is certain now. Nobody is left to
		// sanction it, but it counts.
		for i := range e.hist {
			if owes(e.hist[i]) {
				e.viol = append(e.viol, violation{day: e.day, step: f.Step, agent: i})
			}
		}
		if e.day == Days-1 {
			e.over = true
			res.Terminated = e.taskDone[e.day]
			res.Truncated = !res.Terminated
		} else {
			evs := append([]Event(nil), e.events...)
			e.dayEnd = string(appendStepLine(nil, f, e.lastPhase))
			e.startDay(e.day + 1)
			e.events = append(evs, e.events...)
		}
	}
	return res, nil
}

// owes reports whether some rule's history owes an act.
func owes(hs []Hist) bool {
	for _, h := range hs {
		if h.Owe {
			return true
		}
	}
	return false
}

// act applies agent i's action: judge it, apply it, sanction it if seen.
func (e *Visit) act(i int, a Action) {
	f := e.frame
	tr := f.Preview(i, f.Agents[i].Pos, a)
	// Every rule of a compound norm is judged, each with its own
	// history; breaking any breaks the norm. A bow that one rule calls
	// for is in place for all (Judge's etiquette applied to the set, as
	// the planner applies it), judged on the histories before the bow.
	violated := false
	hs := e.hist[i]
	bow := tr.OK && tr.Action.Verb == Bow && len(e.rules) > 0
	called := false
	for k := range e.rules {
		called = called || (bow && bowCalledFor(&e.rules[k], hs[k]))
		v, h := judgeRule(f, &e.rules[k], &tr, hs[k])
		violated = violated || v
		hs[k] = h
	}
	if bow && !called {
		violated = true
	}
	f.Apply(tr)
	if i > 0 && tr.OK && a.Verb == Bow {
		e.bows++
	}
	if i == 0 && !tr.OK {
		e.emit(Event{Kind: "blocked", To: NewcomerID, Text: "Your action \"" + a.String() + "\" did nothing: " + tr.Reason + "."})
	}
	if !violated {
		if e.id.Variant == Noisy && tr.OK && e.norm != nil {
			if by := e.witness(i); by != "" && e.srng.float() < falseSanctionRate {
				e.sanction(i, by)
			}
		}
		return
	}
	e.viol = append(e.viol, violation{day: e.day, step: f.Step, agent: i})
	by := e.witness(i)
	if by == "" || (e.id.Variant == Noisy && e.srng.float() >= noticeRate) {
		return
	}
	e.sanction(i, by)
}
