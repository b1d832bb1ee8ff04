package ui

// Command is what a key or an on-screen button asks for.
type Command struct {
	// Action is a verb the newcomer takes ("north", "pick", …), or "give"
	// to give to Member, or to the only adjacent member when Member is 0.
	Action string
	// Member is the member number (1-based, as on the map) to give to.
	Member int
}

// Keys lists the bindings for the help text, in display order.
var keyHelp = [][2]string{
	{"↑ ↓ ← → or W A S D", "move north, south, west, east"},
	{"Space or .", "wait"},
	{"P", "pick up"},
	{"Q", "drop (put down)"},
	{"U or E", "use the object you stand on"},
	{"B", "bow"},
	{"G, or 1–4", "give to an adjacent member (the number is theirs on the map)"},
}

// KeyHelp returns the key bindings as (keys, meaning) pairs.
func KeyHelp() [][2]string { return keyHelp }

// KeyCommand maps a KeyboardEvent.key value to a command. D is "east"
// (WASD), so dropping is on Q.
func KeyCommand(key string) (Command, bool) {
	switch key {
	case "ArrowUp", "w", "W":
		return Command{Action: "north"}, true
	case "ArrowDown", "s", "S":
		return Command{Action: "south"}, true
	case "ArrowLeft", "a", "A":
		return Command{Action: "west"}, true
	case "ArrowRight", "d", "D":
		return Command{Action: "east"}, true
	case " ", "Spacebar", ".":
		return Command{Action: "wait"}, true
	case "p", "P":
		return Command{Action: "pick"}, true
	case "q", "Q":
		return Command{Action: "drop"}, true
	case "u", "U", "e", "E":
		return Command{Action: "use"}, true
	case "b", "B":
		return Command{Action: "bow"}, true
	case "g", "G":
		return Command{Action: "give"}, true
	case "1", "2", "3", "4", "5", "6", "7", "8", "9":
		return Command{Action: "give", Member: int(key[0] - '0')}, true
	}
	return Command{}, false
}

// ActionKey returns a key that KeyCommand maps to action (for tests and
// the help text); give actions need the member number instead.
func ActionKey(action string) string {
	switch action {
	case "north":
		return "ArrowUp"
	case "south":
		return "ArrowDown"
	case "west":
		return "ArrowLeft"
	case "east":
		return "ArrowRight"
	case "wait":
		return " "
	case "pick":
		return "p"
	case "drop":
		return "q"
	case "use":
		return "u"
	case "bow":
		return "b"
	}
	return ""
}

// Resolve turns a command into an action's text form for observation o,
// or explains why it cannot (a give with nobody, or several, next to the
// newcomer). It decides nothing the sim decides: a give to a member who
// is not adjacent is still sent, and the sim says it is impossible.
func (c Command) Resolve(o *Observation) (string, string) {
	if c.Action != "give" {
		return c.Action, ""
	}
	ags := o.Frame.Agents
	if c.Member > 0 {
		if c.Member >= len(ags) {
			return "", "There is no member " + itoa(c.Member) + "."
		}
		return "give " + ags[c.Member].ID, ""
	}
	near := Adjacent(o)
	switch len(near) {
	case 0:
		return "", "Nobody is next to you to give to."
	case 1:
		return "give " + ags[near[0]].ID, ""
	}
	return "", "Several members are next to you: press their number (shown on the map) or use a Give button."
}

// Adjacent returns the indices of the members on or next to the newcomer's
// tile (counting diagonals), in map order: who a Give button is shown for.
func Adjacent(o *Observation) []int {
	ags := o.Frame.Agents
	if len(ags) == 0 {
		return nil
	}
	me := ags[0].Pos
	var out []int
	for i := 1; i < len(ags); i++ {
		dx, dy := ags[i].Pos.X-me.X, ags[i].Pos.Y-me.Y
		if dx >= -1 && dx <= 1 && dy >= -1 && dy <= 1 {
			out = append(out, i)
		}
	}
	return out
}

// Focus is what holds the keyboard focus when a key is pressed, as far as
// the game's keys are concerned.
type Focus int

// Kinds of focus.
const (
	// FocusNone: nothing in particular (the page, the main area, a card's
	// heading) or the map: the game's keys apply.
	FocusNone Focus = iota
	// FocusPad: a button of the game's own pad or action row. Letters and
	// arrows still play; Enter and Space press the button.
	FocusPad
	// FocusChoice: a radio button or slider of the probe form. Digits
	// choose and Enter submits; arrows move between options natively.
	FocusChoice
	// FocusControl: any other button, link, tab or widget. Its keys are
	// its own: the game ignores them.
	FocusControl
	// FocusText: a text field or a select. Keys are typing.
	FocusText
)

// FocusOf classifies a focused element: its tag name (upper case, as the
// DOM reports it, "" for none), the type attribute of an input, whether
// it lies inside the game's pad, and whether it is the map or the page's
// main area.
func FocusOf(tag, inputType string, inPad, isMap bool) Focus {
	switch {
	case tag == "" || tag == "BODY" || tag == "HTML" || isMap:
		return FocusNone
	case tag == "BUTTON" && inPad:
		return FocusPad
	case tag == "INPUT" && (inputType == "radio" || inputType == "range"):
		return FocusChoice
	case tag == "INPUT" || tag == "TEXTAREA" || tag == "SELECT":
		return FocusText
	case tag == "BUTTON" || tag == "A" || tag == "SUMMARY" || tag == "DETAILS" || tag == "LABEL":
		return FocusControl
	}
	// Anything else that took focus (a heading given tabindex=-1, a
	// panel) is not a control.
	return FocusNone
}

// KeyPress is a keydown as the app sees it.
type KeyPress struct {
	// Key is KeyboardEvent.key.
	Key string
	// Repeat is KeyboardEvent.repeat: the key is held and auto-repeats.
	Repeat bool
	// Modified: Ctrl, Alt or Meta was held (a browser shortcut).
	Modified bool
	Focus    Focus
}

// KeyIntent is what a keydown asks the app to do.
type KeyIntent struct {
	// Command is a game action to take (when Act is set).
	Command Command
	Act     bool
	// Advance leaves the screen on show: consent → first day, a day's
	// card → the grid.
	Advance bool
	// Choose picks probe option Choose (1-based; 0 picks none).
	Choose int
	// Submit submits the probe.
	Submit bool
	// Prevent asks for preventDefault: the key was the game's (so the
	// page must not scroll), or it was an auto-repeat that would press a
	// focused button again.
	Prevent bool
}

func enterOrSpace(k string) bool { return k == "Enter" || k == " " || k == "Spacebar" }

// Intent decides what a keydown does at a stage of a human's visit:
//
//   - a key with Ctrl, Alt or Meta is the browser's;
//   - auto-repeat never acts (holding a key moves once, and a held key
//     cannot skip the card that ends a day); a repeated Enter or Space on
//     a button is cancelled so that it does not press the button again;
//   - the game's keys apply only when the map, the page or the game's
//     own pad has the focus; Enter and Space on a control (a tab, the
//     visit picker, a link, a pad button) do that control's job;
//   - a card (consent, a day's start) moves on with Enter or Space.
func Intent(stage Stage, k KeyPress) KeyIntent {
	if k.Modified {
		return KeyIntent{}
	}
	button := k.Focus == FocusPad || k.Focus == FocusControl
	if k.Repeat {
		if button && enterOrSpace(k.Key) {
			return KeyIntent{Prevent: true}
		}
		if stage == StagePlay && (k.Focus == FocusNone || k.Focus == FocusPad) {
			if _, ok := KeyCommand(k.Key); ok {
				return KeyIntent{Prevent: true} // no scrolling while held
			}
		}
		if (stage == StageConsent || stage == StageDay) && k.Focus == FocusNone && enterOrSpace(k.Key) {
			return KeyIntent{Prevent: true}
		}
		return KeyIntent{}
	}
	switch stage {
	case StageConsent, StageDay:
		if k.Focus == FocusNone && enterOrSpace(k.Key) {
			return KeyIntent{Advance: true, Prevent: true}
		}
	case StagePlay:
		if k.Focus != FocusNone && k.Focus != FocusPad {
			return KeyIntent{}
		}
		if k.Focus == FocusPad && enterOrSpace(k.Key) {
			return KeyIntent{} // the button's own job
		}
		if c, ok := KeyCommand(k.Key); ok {
			return KeyIntent{Command: c, Act: true, Prevent: true}
		}
	case StageProbe:
		if k.Focus != FocusNone && k.Focus != FocusChoice {
			return KeyIntent{}
		}
		if len(k.Key) == 1 && k.Key[0] >= '1' && k.Key[0] <= '9' {
			return KeyIntent{Choose: int(k.Key[0] - '0'), Prevent: true}
		}
		if k.Key == "Enter" {
			return KeyIntent{Submit: true, Prevent: true}
		}
	}
	return KeyIntent{}
}

// WatchIntent decides what a keydown does in Watch mode: Space or K plays
// and pauses, → or L or . steps, with the same focus and repeat rules as
// Intent. It returns the watch bar's action ("w-play", "w-step") or "".
func WatchIntent(k KeyPress) (act string, prevent bool) {
	if k.Modified || k.Focus != FocusNone {
		return "", false
	}
	switch k.Key {
	case " ", "k", "K":
		act = "w-play"
	case "ArrowRight", "l", "L", ".":
		act = "w-step"
	default:
		return "", false
	}
	if k.Repeat {
		return "", true
	}
	return act, true
}
