package sim

import (
	"errors"
	"fmt"
	"strings"
)

// Action is one thing an agent does in a step. Its canonical text form is
// the verb, followed for "give" by the receiving agent's id: "north", "give mara".
type Action struct {
	Verb   string `json:"verb"`
	Target string `json:"target,omitempty"`
}

// The action verbs, the same for members and the newcomer.
const (
	North = "north"
	South = "south"
	East  = "east"
	West  = "west"
	Wait  = "wait"
	Pick  = "pick"
	Drop  = "drop"
	Use   = "use"
	Bow   = "bow"
	Give  = "give"
)

// ActionVerbs lists every action verb in canonical order.
func ActionVerbs() []string {
	return []string{North, South, East, West, Wait, Pick, Drop, Use, Bow, Give}
}

// String returns the canonical text form.
func (a Action) String() string {
	if a.Verb == Give {
		return Give + " " + a.Target
	}
	return a.Verb
}

// ErrAction is wrapped by every error of ParseAction, and by Step's error
// for an action with no verb: test for it with errors.Is.
var ErrAction = errors.New("sim: bad action")

// ParseAction reads an action's text form. It is case-insensitive, trims
// space, and accepts the abbreviations n s e w for the moves. "give" needs
// exactly one agent id. It never panics.
func ParseAction(s string) (Action, error) {
	// Canonical text, which Step records and agents write, reads as is.
	switch s {
	case North, South, East, West, Wait, Pick, Drop, Use, Bow:
		return Action{Verb: s}, nil
	}
	if t, ok := strings.CutPrefix(s, Give+" "); ok && isLowerWord(t) {
		return Action{Verb: Give, Target: t}, nil
	}
	return parseAction(s)
}

// parseAction is ParseAction for any text.
func parseAction(s string) (Action, error) {
	f := strings.Fields(strings.ToLower(s))
	if len(f) == 0 {
		return Action{}, fmt.Errorf("%w: empty action (want one of %s)", ErrAction, strings.Join(ActionVerbs(), ", "))
	}
	v := f[0]
	switch v {
	case "n":
		v = North
	case "s":
		v = South
	case "e":
		v = East
	case "w":
		v = West
	}
	switch v {
	case North, South, East, West, Wait, Pick, Drop, Use, Bow:
		if len(f) != 1 {
			return Action{}, fmt.Errorf("%w: %q takes no argument", ErrAction, v)
		}
		return Action{Verb: v}, nil
	case Give:
		if len(f) != 2 {
			return Action{}, fmt.Errorf("%w: give needs one agent, as in \"give mara\"", ErrAction)
		}
		return Action{Verb: Give, Target: f[1]}, nil
	}
	if len(v) > 40 {
		v = v[:40] + "…"
	}
	return Action{}, fmt.Errorf("%w: unknown action %q (want one of %s)", ErrAction, v, strings.Join(ActionVerbs(), ", "))
}

// isLowerWord reports whether s is one or more lower-case ASCII letters
// and digits: a word that lower-casing and splitting leave alone.
func isLowerWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return false
		}
	}
	return s != ""
}

// IsMove reports whether the action is one of the four moves.
func (a Action) IsMove() bool {
	switch a.Verb {
	case North, South, East, West:
		return true
	}
	return false
}

// delta returns the grid offset of a move.
func delta(verb string) (dx, dy int) {
	switch verb {
	case North:
		return 0, -1
	case South:
		return 0, 1
	case East:
		return 1, 0
	case West:
		return -1, 0
	}
	return 0, 0
}
