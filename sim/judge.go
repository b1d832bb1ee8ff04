package sim

import (
	"strconv"

	"github.com/normgym/normgym/norms"
)

// Hist is what an agent's past means for one rule: whether the required
// act happened since the trigger last did ("before" norms), whether the
// agent owes the act as its next action ("after" norms), and Near: for a
// "meet" event, whether it was next to an agent the event names after its
// previous action; for an event qualified by "follows", whether someone
// else had just done the event's act when it took its previous action. A
// new day starts from the zero Hist.
type Hist struct {
	Since bool `json:"since,omitempty"`
	Owe   bool `json:"owe,omitempty"`
	Near  bool `json:"near,omitempty"`
}

// Judge reports whether transition tr, taken in frame f (the state before
// it), breaks the community's norm when r is its rule, for an actor whose
// history is h, and returns the actor's next history. It is a pure
// function: it changes nothing.
//
// Breaking the norm is breaking r, or bowing where r does not call for a
// bow: in every community bows mean something, and a bow that no custom
// calls for is out of place (see BowCalledFor). Blanket rituals — bowing
// before every act to be safe — therefore break every norm but the one
// they happen to match.
func Judge(f *Frame, r norms.Rule, tr Transition, h Hist) (bool, Hist) {
	return judge(f, &r, &tr, h)
}

// judge is Judge without copying its arguments, for the hot paths.
func judge(f *Frame, r *norms.Rule, tr *Transition, h Hist) (bool, Hist) {
	v, next := judgeRule(f, r, tr, h)
	if !v && tr.OK && tr.Action.Verb == Bow && !bowCalledFor(r, h) {
		v = true
	}
	return v, next
}

// BowCalledFor reports whether rule r calls for a bow from an actor whose
// history is h: r requires a bow before some act and the actor has not
// bowed since that act last happened, or r requires a bow after some act
// and the actor owes it now. Only such bows are in place.
func BowCalledFor(r norms.Rule, h Hist) bool { return bowCalledFor(&r, h) }

func bowCalledFor(r *norms.Rule, h Hist) bool {
	if r.Deontic != norms.Require || r.Act.Verb != "bow" {
		return false
	}
	if r.When == "after" {
		return h.Owe
	}
	return !h.Since
}

// judgeRule is the rule's own semantics, without the etiquette of bows.
func judgeRule(f *Frame, r *norms.Rule, tr *Transition, h Hist) (bool, Hist) {
	var happened bool
	if r.Event.Verb == "meet" {
		// Whoever moved: the actor is next to such an agent now and was
		// not after its own previous action.
		near := nextToMatching(f, r.Event.Quals, tr)
		happened, h.Near = near && !h.Near, near
	} else {
		happened = matches(f, &r.Event, tr)
	}
	if who, ok := r.Event.Value("follows"); ok {
		// Someone else did the act in the latest round, or had in the
		// round before (as the actor saw at its previous action).
		did := othersDid(f, &r.Event, tr.Agent, who)
		happened, h.Near = happened && (did || h.Near), did
	}
	switch r.Deontic {
	case norms.Forbid:
		return happened, h
	case norms.Require:
		if r.When == "after" {
			violated := false
			if h.Owe {
				violated = !matches(f, &r.Act, tr)
				h.Owe = false
			}
			if happened {
				h.Owe = true
			}
			return violated, h
		}
		if matches(f, &r.Act, tr) {
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

// nextToMatching reports whether, after tr, its actor stands on or next to
// another agent whose role and hat match qs.
func nextToMatching(f *Frame, qs []norms.Qual, tr *Transition) bool {
	for j := range f.Agents {
		if j != tr.Agent && near(tr.To, f.Agents[j].Pos) && agentQuals(qs, &f.Agents[j]) {
			return true
		}
	}
	return false
}

// Matches reports whether transition tr is an instance of event ev.
// Impossible actions are instances of nothing. "meet" depends on the
// actor's history (Judge tracks it) and is an instance of nothing here;
// so does the qualifier "follows", which Matches leaves out.
func Matches(f *Frame, ev norms.Event, tr Transition) bool {
	return matches(f, &ev, &tr)
}

func matches(f *Frame, ev *norms.Event, tr *Transition) bool {
	if !tr.OK {
		return false
	}
	switch ev.Verb {
	case "step":
		if !tr.Moved {
			return false
		}
	case "enter":
		if !tr.Moved {
			return false
		}
		z, _ := ev.Value("zone")
		return tr.ToTile.Zone == z && tr.FromTile.Zone != z && quals(ev.Quals, ev.Verb, tr, f)
	case "pick":
		if tr.Action.Verb != Pick {
			return false
		}
	case "drop":
		if tr.Dropped == "" {
			return false
		}
	case "litter":
		if tr.Dropped == "" || tr.IntoBasket {
			return false
		}
		for _, q := range ev.Except {
			if q.Key != "follows" && quals([]norms.Qual{q}, ev.Verb, tr, f) {
				return false
			}
		}
	case "carry":
		over, err := strconv.Atoi(valueOr(ev, "over", "0"))
		return err == nil && tr.CarryAfter > over && tr.CarryAfter > tr.CarryBefore
	case "pass":
		return tr.Moved && nextToMatching(f, ev.Quals, tr)
	case "bow":
		if tr.Action.Verb != Bow {
			return false
		}
	case "use":
		if tr.UsedObject == "" {
			return false
		}
	case "give":
		if tr.Receiver < 0 {
			return false
		}
	case "handle":
		if tr.Action.Verb != Pick && tr.Dropped == "" && tr.Receiver < 0 {
			return false
		}
	default:
		return false
	}
	return quals(ev.Quals, ev.Verb, tr, f)
}

func valueOr(ev *norms.Event, k, def string) string {
	if v, ok := ev.Value(k); ok {
		return v
	}
	return def
}

func near(a, b Pos) bool { return chebyshev(a, b) <= 1 }

func agentQuals(qs []norms.Qual, a *Agent) bool {
	for _, q := range qs {
		switch q.Key {
		case "role":
			if a.Role != q.Value {
				return false
			}
		case "hat":
			if a.Hat != q.Value {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// quals reports whether every qualifier holds for tr.
func quals(qs []norms.Qual, verb string, tr *Transition, f *Frame) bool {
	for _, q := range qs {
		switch q.Key {
		case "near":
			if !nearOther(f, tr, q.Value) {
				return false
			}
			continue
		case "follows":
			continue // judged on the actor's history (judgeRule)
		}
		v, ok := attr(verb, q.Key, tr)
		if !ok || v != q.Value {
			return false
		}
	}
	return true
}

// attr returns the value a transition has for a qualifier key, judged for verb.
func attr(verb, key string, tr *Transition) (string, bool) {
	// The tile that matters: the one entered for moves, the one stood on otherwise.
	tile := &tr.FromTile
	if verb == "step" || verb == "enter" {
		tile = &tr.ToTile
	}
	switch key {
	case "phase":
		return tr.Phase, true
	case "dir":
		return tr.Action.Verb, tr.Moved
	case "terrain":
		return tile.Terrain, true
	case "zone":
		return tile.Zone, true
	case "color":
		if verb == "pick" {
			return tr.PickedColor, true
		}
		return tile.Color, true
	case "object":
		if verb == "use" {
			return tr.UsedObject, true
		}
		return tile.Object, true
	case "role":
		// Of the one given to: "pass" and "meet" judge their agents apart.
		return tr.ReceiverRole, verb == "give"
	case "hat":
		return tr.ReceiverHat, verb == "give"
	}
	return "", false
}

// other reports whether agent j of f is someone else for tr (neither the
// actor nor the one it gives to) whom who ("anyone" or a role) names.
func other(f *Frame, tr *Transition, j int, who string) bool {
	return j != tr.Agent && j != tr.Receiver && (who == "anyone" || f.Agents[j].Role == who)
}

// nearOther is the qualifier near=who: someone else stands on or next to
// the tile tr is judged at (the tile entered for a move), in the frame
// before it.
func nearOther(f *Frame, tr *Transition, who string) bool {
	for j := range f.Agents {
		if other(f, tr, j, who) && near(tr.To, f.Agents[j].Pos) {
			return true
		}
	}
	return false
}

// othersDid reports whether someone else whom who ("anyone" or a role)
// names did the act of event ev in its latest action, as frame f shows
// it: the action did something, had the act's verb (see actOf) and
// was done on a tile holding the object ev names, if it names one.
func othersDid(f *Frame, ev *norms.Event, actor int, who string) bool {
	obj, named := ev.Value("object")
	for j := range f.Agents {
		a := &f.Agents[j]
		if j == actor || a.Failed || (who != "anyone" && a.Role != who) || !actOf(ev.Verb, actVerb(a.LastAction)) {
			continue
		}
		if !named || f.At(a.Pos).Object == obj {
			return true
		}
	}
	return false
}

// actOf reports whether an action with verb act is an act of event verb
// ev, for the qualifier follows: pick, drop, use, bow and give are their
// own actions, litter is a drop, handle a pick, drop or give.
func actOf(ev, act string) bool {
	switch ev {
	case "pick", "drop", "use", "bow", "give":
		return act == ev
	case "litter":
		return act == Drop
	case "handle":
		return act == Pick || act == Drop || act == Give
	}
	return false
}

// actVerb is the verb of an action's canonical text ("give mara" → "give").
func actVerb(act string) string {
	for i := 0; i < len(act); i++ {
		if act[i] == ' ' {
			return act[:i]
		}
	}
	return act
}
