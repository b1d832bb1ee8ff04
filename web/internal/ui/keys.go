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
