package sim

import (
	"fmt"
	"strconv"
	"strings"
)

// Observation is what the newcomer perceives after reset or a step: the
// whole (small) map, every agent with its last action, its own task and the
// events since the last step. No field is computed from the norm except
// Told, set only under the told condition.
type Observation struct {
	World     string `json:"world"`
	Condition string `json:"condition"`
	Day       int    `json:"day"`
	Days      int    `json:"days"`
	Practice  bool   `json:"practice"`
	StepLimit int    `json:"step_limit"`
	Task      Task   `json:"task"`
	// Told is the norm's statement, under the told condition only.
	Told string `json:"told,omitempty"`
	// Names are the world's names for things.
	Names Names `json:"names"`
	// SanctionRadius is how far members notice what others do.
	SanctionRadius int     `json:"sanction_radius"`
	Frame          Frame   `json:"frame"`
	Events         []Event `json:"events"`
	// Done reports that the visit is over.
	Done bool `json:"done"`
}

// Names are a world's names for its things.
type Names struct {
	Source string `json:"source"`
	Goods  string `json:"goods"`
	Basket string `json:"basket"`
	Bell   string `json:"bell"`
	Well   string `json:"well"`
	Bin    string `json:"bin"`
	Litter string `json:"litter"`
}

// ObjectName returns the world's name for an object kind.
func (n Names) ObjectName(kind string) string {
	switch kind {
	case "source":
		return n.Source
	case "basket":
		return n.Basket
	case "bell":
		return n.Bell
	case "well":
		return n.Well
	case "bin":
		return n.Bin
	}
	return kind
}

// Observe returns the current observation.
func (e *Env) Observe() *Observation {
	w := e.world
	o := &Observation{
		World: w.Name, Condition: e.id.Condition, Day: e.day + 1, Days: Days,
		Practice: e.day < Days-1, StepLimit: e.limit, Task: e.task,
		Names:          w.names(),
		SanctionRadius: SanctionRadius, Frame: *e.frame.Clone(),
		Events: append([]Event{}, e.events...), Done: e.over,
	}
	if e.id.Condition == Told && e.norm != nil {
		o.Told = e.norm.Statement
	}
	return o
}

// Text renders the observation for a language model: compact and stable,
// with an ASCII map and its legend. Browser and headless hosts send exactly
// this text.
func (o *Observation) Text() string {
	var b strings.Builder
	b.Grow(2400)
	f := &o.Frame
	n := o.Names
	kind := "test day"
	if o.Practice {
		kind = "practice day"
	}
	fmt.Fprintf(&b, "Day %d of %d (%s) · step %d of %d · phase: %s\n", o.Day, o.Days, kind, f.Step, o.StepLimit, f.Phase)
	fmt.Fprintf(&b, "Task: %s\n", o.Task.Text)
	if o.Told != "" {
		fmt.Fprintf(&b, "Community rule: %s\n", o.Told)
	}
	me := f.Agents[0]
	fmt.Fprintf(&b, "You (@) are at x=%d y=%d on %s, carrying %s. Delivered today: %d of %d.\n",
		me.Pos.X, me.Pos.Y, tileText(*f.At(me.Pos), n), n.Carrying(me), me.Delivered, o.Task.Goods)
	b.WriteString("\nMap (x grows east, y grows south):\n   ")
	for x := 0; x < f.Width; x++ {
		b.WriteByte(' ')
		pad2(&b, x)
	}
	b.WriteByte('\n')
	cells := make([][2]byte, len(f.Tiles))
	for i, t := range f.Tiles {
		cells[i] = cell(t)
	}
	for k, a := range f.Agents {
		c := &cells[a.Pos.Y*f.Width+a.Pos.X]
		if k == 0 {
			c[0] = '@'
		} else if c[0] != '@' {
			c[0] = byte('0' + k)
		}
	}
	for y := 0; y < f.Height; y++ {
		pad2(&b, y)
		b.WriteByte(' ')
		for x := 0; x < f.Width; x++ {
			c := cells[y*f.Width+x]
			b.WriteByte(' ')
			b.WriteByte(c[0])
			if c[1] != ' ' || x < f.Width-1 {
				b.WriteByte(c[1])
			}
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "Legend: . path, _ floor, \" grass, : sand, = stone, ~ water, # wall; a letter after a symbol is its colour (r red, b blue, y yellow, g green). "+
		"T %s with %s ready (t: none yet), B %s, L %s, W %s, X %s; @ you, 1-%d members (see below).\n",
		n.Source, article(n.Goods), n.Basket, n.Bell, n.Well, n.Bin, len(f.Agents)-1)
	b.WriteString("Zones:")
	for i, z := range f.Zones {
		sep := ";"
		if i == len(f.Zones)-1 {
			sep = "."
		}
		fmt.Fprintf(&b, " %s x=%d..%d y=%d..%d%s", z.Name, z.Min.X, z.Max.X, z.Min.Y, z.Max.Y, sep)
	}
	b.WriteString("\nMembers:\n")
	for k, a := range f.Agents[1:] {
		last := a.LastAction
		if last == "" {
			last = "-"
		}
		fmt.Fprintf(&b, "  %d %s (%s, %s hat) at x=%d y=%d, carrying %s, last action: %s\n",
			k+1, a.Name, a.Role, a.Hat, a.Pos.X, a.Pos.Y, n.Carrying(a), last)
	}
	b.WriteString("Since your last step:")
	if len(o.Events) == 0 {
		b.WriteString(" nothing notable.\n")
	} else {
		b.WriteByte('\n')
		for _, ev := range o.Events {
			b.WriteString("  ")
			b.WriteString(ev.Line(f))
			b.WriteByte('\n')
		}
	}
	if o.Done {
		b.WriteString("The visit is over.\n")
	} else {
		b.WriteString("Actions: north, south, east, west, wait, pick, drop, use, bow, give <name>.\n")
	}
	return b.String()
}

// Line renders an event as one line of text.
func (ev Event) Line(f *Frame) string {
	name := func(id string) string {
		switch id {
		case NewcomerID:
			return "you"
		case WardenID:
			return "The warden"
		}
		return id
	}
	switch ev.Kind {
	case "sanction":
		by := name(ev.By)
		if ev.By != WardenID && len(by) > 0 {
			by = strings.ToUpper(by[:1]) + by[1:]
		}
		return fmt.Sprintf("%s sanctioned %s: \"%s\"", by, name(ev.To), ev.Text)
	}
	return ev.Text
}

// Carrying says in words what agent a carries, with these names:
// "1 apple and 1 core", "nothing".
func (n Names) Carrying(a Agent) string {
	var parts []string
	if a.Goods > 0 {
		parts = append(parts, fmt.Sprintf("%d %s", a.Goods, Plural(n.Goods, a.Goods)))
	}
	if a.Litter > 0 {
		parts = append(parts, fmt.Sprintf("%d %s", a.Litter, Plural(n.Litter, a.Litter)))
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, " and ")
}

// cell returns a tile's two map characters: a symbol and a colour letter.
func cell(t Tile) [2]byte {
	c := [2]byte{terrainChar(t.Terrain), colorChar(t.Color)}
	switch t.Object {
	case "source":
		c[0], c[1] = 'T', colorChar(t.ObjectColor)
		if t.Stock == 0 {
			c[0] = 't'
		}
	case "basket":
		c[0] = 'B'
	case "bell":
		c[0] = 'L'
	case "well":
		c[0] = 'W'
	case "bin":
		c[0] = 'X'
	}
	return c
}

func terrainChar(t string) byte {
	switch t {
	case "path":
		return '.'
	case "floor":
		return '_'
	case "grass":
		return '"'
	case "sand":
		return ':'
	case "stone":
		return '='
	case "water":
		return '~'
	case "wall":
		return '#'
	}
	return '?'
}

func colorChar(c string) byte {
	if c == "" {
		return ' '
	}
	return c[0]
}

// article prefixes a noun with "a" or "an".
func article(s string) string {
	if s != "" && strings.ContainsRune("aeiou", rune(s[0])) {
		return "an " + s
	}
	return "a " + s
}

// tileText describes a tile in words: "red grass in the garden, by the well".
func tileText(t Tile, n Names) string {
	s := t.Terrain
	if t.Color != "" {
		s = t.Color + " " + s
	}
	if t.Zone != "" {
		s += " in the " + t.Zone
	}
	if t.Object != "" {
		name := n.ObjectName(t.Object)
		if t.ObjectColor != "" {
			name = t.ObjectColor + " " + name
		}
		s += ", at the " + name
	}
	return s
}

// pad2 writes n right-aligned in two columns (fmt's %2d, without fmt:
// Text runs every step, and fmt is slow under WebAssembly).
func pad2(b *strings.Builder, n int) {
	if n < 10 {
		b.WriteByte(' ')
	}
	b.WriteString(strconv.Itoa(n))
}
