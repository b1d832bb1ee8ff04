package sim

import (
	"strconv"

	"github.com/normgym/normgym/norms"
)

// compiledRule is a rule read once for judging many transitions, as the
// planner does (every step from every tile it reaches): judgeRule's
// semantics with the deontic, the verbs and the qualifier keys turned
// into small numbers and the values an event needs looked up in advance.
// Under WebAssembly every string switch and comparison is a chain of
// branches, and each branch costs more than it does natively.
// TestCompiledRuleMatchesJudge holds it to judgeRule and bowCalledFor.
type compiledRule struct {
	kind       uint8 // ruleForbid, ruleAfter, ruleBefore or ruleNone
	event, act compiledEvent
	// bowAct: a requirement whose act is a bow (bowCalledFor can hold).
	bowAct bool
}

const (
	ruleNone   = iota // neither forbid nor require: never broken
	ruleForbid        // forbid Event
	ruleAfter         // require Act after Event
	ruleBefore        // require Act before Event (any When but "after")
)

// compiledEvent is an event (or act) of a compiledRule.
type compiledEvent struct {
	verb   uint8
	quals  []compiledQual
	except []compiledQual // litter: each one exempts
	zone   string         // enter: the zone entered
	over   int            // carry: how many may be carried
	overOK bool           // carry: over is a number (else nothing matches)
	agents []norms.Qual   // pass and meet: what the other agent must be
	// follows: the event's qualifier follows=who ("" without one), judged
	// on the actor's history with othersDid; ev is the event it reads.
	follows string
	ev      *norms.Event
}

// The verbs of a compiledEvent. evNone is an instance of nothing (an
// unknown verb, or "meet" as an act).
const (
	evNone = iota
	evStep
	evEnter
	evPick
	evDrop
	evLitter
	evCarry
	evPass
	evBow
	evUse
	evMeet // as a rule's event only: judged on the actor's history
	evGive
	evHandle
)

// compiledQual is a qualifier with the transition field it reads (attr
// for the event's verb) and the value wanted.
type compiledQual struct {
	field uint8
	value string
}

// The fields a compiledQual reads; fNever for a key attr does not know.
const (
	fNever = iota
	fPhase
	fDir // the action's verb, for moves only
	fFromTerrain
	fToTerrain
	fFromZone
	fToZone
	fFromColor
	fToColor
	fPicked
	fFromObject
	fToObject
	fUsed
	fReceiverRole
	fReceiverHat
	fNear // near=who: read from the frame (nearOther)
)

// compileRule compiles r, appending its qualifiers to buf and returning
// buf for the next rule: the compiled rule's slices point into buf's
// memory (appending later never writes there), so buf must not be
// reused from its start while the rule is in use.
func compileRule(r *norms.Rule, buf []compiledQual) (compiledRule, []compiledQual) {
	var c compiledRule
	switch r.Deontic {
	case norms.Forbid:
		c.kind = ruleForbid
	case norms.Require:
		c.kind = ruleBefore
		if r.When == "after" {
			c.kind = ruleAfter
		}
		c.bowAct = r.Act.Verb == "bow"
	}
	c.event, buf = compileEvent(&r.Event, true, buf)
	c.act, buf = compileEvent(&r.Act, false, buf)
	return c, buf
}

// compileRules compiles rules into new memory.
func compileRules(rules []norms.Rule) []compiledRule {
	if len(rules) == 0 {
		return nil
	}
	out := make([]compiledRule, len(rules))
	var buf []compiledQual
	for k := range rules {
		out[k], buf = compileRule(&rules[k], buf)
	}
	return out
}

func compileEvent(ev *norms.Event, isEvent bool, buf []compiledQual) (compiledEvent, []compiledQual) {
	var c compiledEvent
	switch ev.Verb {
	case "step":
		c.verb = evStep
	case "enter":
		c.verb = evEnter
		c.zone = valueOr(ev, "zone", "")
	case "pick":
		c.verb = evPick
	case "drop":
		c.verb = evDrop
	case "litter":
		c.verb = evLitter
	case "carry":
		c.verb = evCarry
		over, err := strconv.Atoi(valueOr(ev, "over", "0"))
		c.over, c.overOK = over, err == nil
	case "pass":
		c.verb = evPass
		c.agents = ev.Quals
	case "bow":
		c.verb = evBow
	case "use":
		c.verb = evUse
	case "give":
		c.verb = evGive
	case "handle":
		c.verb = evHandle
	case "meet":
		if isEvent {
			c.verb = evMeet
			c.agents = ev.Quals
		}
	}
	start := len(buf)
	for _, q := range ev.Quals {
		if q.Key == "follows" {
			c.follows, c.ev = q.Value, ev
			continue
		}
		buf = append(buf, compiledQual{field: qualField(ev.Verb, q.Key), value: q.Value})
	}
	mid := len(buf)
	if c.verb == evLitter {
		for _, q := range ev.Except {
			buf = append(buf, compiledQual{field: qualField(ev.Verb, q.Key), value: q.Value})
		}
	}
	c.quals, c.except = buf[start:mid:mid], buf[mid:len(buf):len(buf)]
	return c, buf
}

// qualField is the field attr reads for key under verb.
func qualField(verb, key string) uint8 {
	to := verb == "step" || verb == "enter"
	switch key {
	case "near":
		return fNear
	case "phase":
		return fPhase
	case "dir":
		return fDir
	case "terrain":
		if to {
			return fToTerrain
		}
		return fFromTerrain
	case "zone":
		if to {
			return fToZone
		}
		return fFromZone
	case "color":
		switch {
		case verb == "pick":
			return fPicked
		case to:
			return fToColor
		}
		return fFromColor
	case "object":
		switch {
		case verb == "use":
			return fUsed
		case to:
			return fToObject
		}
		return fFromObject
	case "role":
		if verb == "give" {
			return fReceiverRole
		}
	case "hat":
		if verb == "give" {
			return fReceiverHat
		}
	}
	return fNever
}

// holds is quals for one compiled qualifier.
func (q *compiledQual) holds(f *Frame, tr *Transition) bool {
	var v string
	switch q.field {
	case fNear:
		return nearOther(f, tr, q.value)
	case fPhase:
		v = tr.Phase
	case fDir:
		if !tr.Moved {
			return false
		}
		v = tr.Action.Verb
	case fFromTerrain:
		v = tr.FromTile.Terrain
	case fToTerrain:
		v = tr.ToTile.Terrain
	case fFromZone:
		v = tr.FromTile.Zone
	case fToZone:
		v = tr.ToTile.Zone
	case fFromColor:
		v = tr.FromTile.Color
	case fToColor:
		v = tr.ToTile.Color
	case fPicked:
		v = tr.PickedColor
	case fFromObject:
		v = tr.FromTile.Object
	case fToObject:
		v = tr.ToTile.Object
	case fUsed:
		v = tr.UsedObject
	case fReceiverRole:
		v = tr.ReceiverRole
	case fReceiverHat:
		v = tr.ReceiverHat
	default:
		return false
	}
	return v == q.value
}

// matches is matches for a compiled event.
func (c *compiledEvent) matches(f *Frame, tr *Transition) bool {
	if !tr.OK {
		return false
	}
	switch c.verb {
	case evStep:
		if !tr.Moved {
			return false
		}
	case evEnter:
		if !tr.Moved || tr.ToTile.Zone != c.zone || tr.FromTile.Zone == c.zone {
			return false
		}
	case evPick:
		if tr.Action.Verb != Pick {
			return false
		}
	case evDrop:
		if tr.Dropped == "" {
			return false
		}
	case evLitter:
		if tr.Dropped == "" || tr.IntoBasket {
			return false
		}
		for k := range c.except {
			if c.except[k].holds(f, tr) {
				return false
			}
		}
	case evCarry:
		return c.overOK && tr.CarryAfter > c.over && tr.CarryAfter > tr.CarryBefore
	case evPass:
		return tr.Moved && nextToMatching(f, c.agents, tr)
	case evBow:
		if tr.Action.Verb != Bow {
			return false
		}
	case evUse:
		if tr.UsedObject == "" {
			return false
		}
	case evGive:
		if tr.Receiver < 0 {
			return false
		}
	case evHandle:
		if tr.Action.Verb != Pick && tr.Dropped == "" && tr.Receiver < 0 {
			return false
		}
	default:
		return false
	}
	for k := range c.quals {
		if !c.quals[k].holds(f, tr) {
			return false
		}
	}
	return true
}

// judge is judgeRule for a compiled rule: it matches the transition
// against the rule's event and (when the rule can use it) its act, and
// judges with judgeMatched.
func (c *compiledRule) judge(f *Frame, tr *Transition, h Hist) (bool, Hist) {
	var event bool
	if c.event.verb == evMeet {
		event = nextToMatching(f, c.event.agents, tr)
	} else {
		event = c.event.matches(f, tr)
	}
	act := (c.kind == ruleBefore || c.kind == ruleAfter && h.Owe) && c.act.matches(f, tr)
	return c.judgeMatched(f, tr, event, act, h)
}

// judgeMatched judges a compiled rule given whether the transition tr,
// taken in f, matched the rule's event (for "meet": whether the actor is
// next to such an agent now) and its act.
func (c *compiledRule) judgeMatched(f *Frame, tr *Transition, event, act bool, h Hist) (bool, Hist) {
	happened := event
	if c.event.verb == evMeet {
		happened, h.Near = event && !h.Near, event
	}
	if c.event.follows != "" {
		did := othersDid(f, c.event.ev, tr.Agent, c.event.follows)
		happened, h.Near = happened && (did || h.Near), did
	}
	switch c.kind {
	case ruleForbid:
		return happened, h
	case ruleAfter:
		violated := false
		if h.Owe {
			violated = !act
			h.Owe = false
		}
		if happened {
			h.Owe = true
		}
		return violated, h
	case ruleBefore:
		if act {
			h.Since = true
		}
		violated := false
		if happened {
			violated = !h.Since
			h.Since = false
		}
		return violated, h
	}
	return false, h
}

// bowCalledFor is bowCalledFor for a compiled rule.
func (c *compiledRule) bowCalledFor(h Hist) bool {
	switch {
	case !c.bowAct:
		return false
	case c.kind == ruleAfter:
		return h.Owe
	}
	return !h.Since
}

// The kinds of plan step (planSteps) for inert.
const (
	stepMove = iota
	stepBow
	stepUse
)

// inert reports whether judging a possible plan step of kind step (a
// move, a bow or a use, as PlanPath makes them: no target, nothing picked,
// dropped or given) under c always gives "not broken" and leaves the
// history as it was, so the planner may skip c for it.
func (c *compiledRule) inert(step int) bool {
	if c.event.verb == evMeet || c.event.follows != "" {
		return false // the history follows who the actor is next to, or who just acted
	}
	can := func(e *compiledEvent) bool {
		switch e.verb {
		case evStep, evEnter, evPass:
			return step == stepMove
		case evBow:
			return step == stepBow
		case evUse:
			return step == stepUse
		}
		// pick, drop, litter, carry, give, handle: nothing is picked,
		// dropped, given or carried more; unknown verbs and "meet" as an
		// act: never.
		return false
	}
	switch c.kind {
	case ruleForbid:
		return !can(&c.event)
	case ruleAfter:
		// Owing an act changes the history whatever is done.
		return false
	case ruleBefore:
		return !can(&c.event) && !can(&c.act)
	}
	return true
}
