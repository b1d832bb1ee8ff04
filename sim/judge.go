package sim

import (
	"strconv"

	"github.com/normgym/normgym/norms"
)

// Hist is what an agent's past means for one requirement: whether the
// required act happened since the trigger last did ("before" norms), and
// whether the agent owes the act as its next action ("after" norms).
// A new day starts from the zero Hist.
type Hist struct {
	Since bool `json:"since,omitempty"`
	Owe   bool `json:"owe,omitempty"`
}

// Judge reports whether transition tr, taken in frame f (the state before
// it), violates rule r for an actor whose history is h, and returns the
// actor's next history. It is a pure function: it changes nothing.
func Judge(f *Frame, r norms.Rule, tr Transition, h Hist) (bool, Hist) {
	return judge(f, &r, &tr, h)
}

// judge is Judge without copying its arguments, for the hot paths.
func judge(f *Frame, r *norms.Rule, tr *Transition, h Hist) (bool, Hist) {
	switch r.Deontic {
	case norms.Forbid:
		return matches(f, &r.Event, tr), h
	case norms.Require:
		if r.When == "after" {
			violated := false
			if h.Owe {
				violated = !matches(f, &r.Act, tr)
				h.Owe = false
			}
			if matches(f, &r.Event, tr) {
				h.Owe = true
			}
			return violated, h
		}
		if matches(f, &r.Act, tr) {
			h.Since = true
		}
		violated := false
		if matches(f, &r.Event, tr) {
			violated = !h.Since
			h.Since = false
		}
		return violated, h
	}
	return false, h
}

// Matches reports whether transition tr is an instance of event ev.
// Impossible actions are instances of nothing.
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
			if quals([]norms.Qual{q}, ev.Verb, tr, f) {
				return false
			}
		}
	case "carry":
		over, err := strconv.Atoi(valueOr(ev, "over", "0"))
		return err == nil && tr.CarryAfter > over && tr.CarryAfter > tr.CarryBefore
	case "pass", "meet":
		if !tr.Moved {
			return false
		}
		for j := range f.Agents {
			other := &f.Agents[j]
			if j == tr.Agent || !near(tr.To, other.Pos) {
				continue
			}
			if ev.Verb == "meet" && near(tr.From, other.Pos) {
				continue
			}
			if agentQuals(ev.Quals, other) {
				return true
			}
		}
		return false
	case "bow":
		if tr.Action.Verb != Bow {
			return false
		}
	case "use":
		if tr.UsedObject == "" {
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
	}
	return "", false
}
