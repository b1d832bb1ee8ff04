package sim

import (
	"strconv"
	"strings"
)

// Observation is what the newcomer perceives after reset or a step: the
// whole (small) map, every agent with its last action, its own task and the
// events since the last step. No field is computed from the norm except
// Told, set only under the told condition, and no field names the
// condition: the newcomer finds out what it can learn from by looking.
type Observation struct {
	World     string `json:"world"`
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
	SanctionRadius int `json:"sanction_radius"`
	// ActedIn is the phase the step just taken happened in ("" at the
	// start of a day): the agents' last actions were taken then.
	ActedIn string  `json:"acted_in,omitempty"`
	Frame   Frame   `json:"frame"`
	Events  []Event `json:"events"`
	// Done reports that the visit is over.
	Done bool `json:"done"`
}

// Names are a world's names for its things. Everything a reader sees
// names the kinds generically (source, basket, bell, well, bin, litter)
// and gives the world's own name beside them in the map legend, so that a
// rule reads the same in every world.
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

// Observe returns the current observation, a copy the caller owns.
func (e *Env) Observe() *Observation {
	o := new(Observation)
	e.observe(o)
	return o
}

// observe writes the current observation into o, reusing the memory of
// o's tiles, zones, agents and events.
func (e *Env) observe(o *Observation) {
	w := e.world
	frame, events := o.Frame, o.Events
	if events == nil {
		events = []Event{} // never null in JSON
	}
	*o = Observation{
		World: w.Name, Day: e.day + 1, Days: Days,
		Practice: e.day < Days-1, StepLimit: e.limit, Task: e.task,
		Names:          w.names(),
		SanctionRadius: SanctionRadius, ActedIn: e.lastPhase, Frame: frame,
		Events: append(events[:0], e.events...), Done: e.over,
	}
	e.frame.CopyInto(&o.Frame)
	if e.id.Condition == Told && e.norm != nil {
		o.Told = e.norm.Statement
	}
}

// ViewMark starts the line where Text's view of the present begins: what
// comes before it is the recap of the step just taken.
const ViewMark = "Now: "

// Text renders the observation for a language model: the recap of what
// happened since the newcomer's last step (Recap), then the view of the
// present with the map (View), which starts with a line beginning with
// ViewMark. Browser and headless hosts send exactly this text; a
// conversation may keep only the recap of past turns (SplitText).
func (o *Observation) Text() string {
	var b strings.Builder
	b.Grow(2600)
	o.writeRecap(&b)
	o.writeView(&b)
	return b.String()
}

// Recap renders what happened since the newcomer's last step: each
// agent's act (with the tile for moves and acts on a tile) and every
// event, sanctions saying who did what where. At the start of a day it
// says who is where. It ends with a newline.
func (o *Observation) Recap() string {
	var b strings.Builder
	o.writeRecap(&b)
	return b.String()
}

// View renders the present: day, step and phase, the task, the map and
// its legend, the zones, the members and the actions. It starts with
// ViewMark.
func (o *Observation) View() string {
	var b strings.Builder
	o.writeView(&b)
	return b.String()
}

// SplitText splits an observation's text into its recap and its view (the
// view starting with ViewMark). A text without a view is all recap.
func SplitText(text string) (recap, view string) {
	if strings.HasPrefix(text, ViewMark) {
		return "", text
	}
	if i := strings.Index(text, "\n"+ViewMark); i >= 0 {
		return text[:i+1], text[i+1:]
	}
	return text, ""
}

func (o *Observation) writeRecap(b *strings.Builder) {
	f := &o.Frame
	if o.ActedIn != "" {
		b.WriteString("Day ")
		b.WriteString(strconv.Itoa(o.Day))
		b.WriteString(" step ")
		b.WriteString(strconv.Itoa(f.Step))
		b.WriteString(", ")
		b.WriteString(o.ActedIn)
		b.WriteString(".")
		var waited []string
		for k, a := range f.Agents {
			if a.LastAction == Wait && k > 0 {
				waited = append(waited, a.Name)
				continue
			}
			b.WriteByte(' ')
			b.WriteString(a.Name)
			b.WriteByte(' ')
			b.WriteString(actText(f, &a, !(k == 0 && blocked(o.Events))))
			b.WriteByte(';')
		}
		if len(waited) > 0 {
			b.WriteByte(' ')
			b.WriteString(strings.Join(waited, ", "))
			b.WriteString(" wait;")
		}
		b.WriteByte('\n')
	}
	for _, ev := range o.Events {
		b.WriteString(ev.Line())
		b.WriteByte('\n')
		if ev.Kind == "day" {
			b.WriteString("Members today:")
			for k, a := range f.Agents[1:] {
				if k > 0 {
					b.WriteByte(';')
				}
				b.WriteString(" ")
				b.WriteString(a.Name)
				b.WriteString(" (")
				b.WriteString(a.Role)
				b.WriteString(", ")
				b.WriteString(a.Hat)
				b.WriteString(" hat) at ")
				b.WriteString(posText(a.Pos))
				b.WriteString(" (")
				b.WriteString(tileText(*f.At(a.Pos)))
				b.WriteByte(')')
			}
			b.WriteString(".\n")
		}
	}
}

// blocked reports whether events say the newcomer's action did nothing.
func blocked(evs []Event) bool {
	for _, ev := range evs {
		if ev.Kind == "blocked" {
			return true
		}
	}
	return false
}

// actText says in few words what agent a did in its latest action, as a
// watcher of the map sees it, with the action's own word: "north to 6,1
// (blue grass, garden)", "pick at 3,1 (path, red source)", "bow at 2,9
// (floor)". ok is false when the action was impossible.
func actText(f *Frame, a *Agent, ok bool) string {
	act := a.LastAction
	if act == "" {
		return "nothing yet"
	}
	where := posText(a.Pos) + " (" + tileText(*f.At(a.Pos)) + ")"
	if !ok {
		return act + " at " + where + ", which did nothing"
	}
	switch act {
	case North, South, East, West:
		return act + " to " + where
	}
	return act + " at " + where
}

// didText is the sanction event's account of what agent a had just done.
func didText(f *Frame, a *Agent, ok bool) string {
	act := a.LastAction
	where := posText(a.Pos) + " (" + tileText(*f.At(a.Pos)) + ")"
	if !ok {
		return "had just tried " + act + " at " + where + ", which did nothing"
	}
	switch verb, target, _ := strings.Cut(act, " "); verb {
	case North, South, East, West:
		return "had just walked " + verb + " onto " + where
	case Wait:
		return "had just waited at " + where
	case Pick:
		return "had just picked at " + where
	case Drop:
		return "had just put something down at " + where
	case Use:
		return "had just used the " + f.At(a.Pos).Object + " at " + where
	case Bow:
		return "had just bowed at " + where
	case Give:
		return "had just given something to " + target + " at " + where
	}
	return "had just done " + act + " at " + where
}

func (o *Observation) writeView(b *strings.Builder) {
	f := &o.Frame
	n := o.Names
	kind := "test day"
	if o.Practice {
		kind = "practice day"
	}
	b.WriteString(ViewMark)
	b.WriteString("day ")
	b.WriteString(strconv.Itoa(o.Day))
	b.WriteString(" of ")
	b.WriteString(strconv.Itoa(o.Days))
	b.WriteString(" (")
	b.WriteString(kind)
	b.WriteString(") · step ")
	b.WriteString(strconv.Itoa(f.Step))
	b.WriteString(" of ")
	b.WriteString(strconv.Itoa(o.StepLimit))
	b.WriteString(" · phase: ")
	b.WriteString(f.Phase)
	b.WriteString("\nTask: ")
	b.WriteString(o.Task.Text)
	b.WriteString(" Done so far: ")
	me := f.Agents[0]
	b.WriteString(strconv.Itoa(me.Delivered))
	b.WriteString(" of ")
	b.WriteString(strconv.Itoa(o.Task.Goods))
	b.WriteString(" in the basket, ")
	b.WriteString(strconv.Itoa(GiftsGiven(f)))
	b.WriteString(" of ")
	b.WriteString(strconv.Itoa(o.Task.Gifts))
	b.WriteString(" members given one.\n")
	if o.Told != "" {
		b.WriteString("Community rule: ")
		b.WriteString(o.Told)
		b.WriteByte('\n')
	}
	b.WriteString("You (@) are at ")
	b.WriteString(posText(me.Pos))
	b.WriteString(" on ")
	b.WriteString(tileText(*f.At(me.Pos)))
	b.WriteString(", carrying ")
	b.WriteString(n.Carrying(me))
	b.WriteString(".\n\nMap (x grows east, y grows south):\n   ")
	for x := 0; x < f.Width; x++ {
		b.WriteByte(' ')
		pad2(b, x)
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
		pad2(b, y)
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
	b.WriteString("Legend: . path, _ floor, \" grass, : sand, = stone, ~ water, # wall; a letter after a symbol is the tile's colour " +
		"(r red, b blue, y yellow, g green). T source (")
	b.WriteString(n.Source)
	b.WriteString(") with ")
	b.WriteString(article(n.Goods))
	b.WriteString(" ready, its colour after it (t: none ready yet); B basket")
	b.WriteString(aka(n.Basket, "basket"))
	b.WriteString("; L bell")
	b.WriteString(aka(n.Bell, "bell"))
	b.WriteString("; W well")
	b.WriteString(aka(n.Well, "well"))
	b.WriteString("; X bin")
	b.WriteString(aka(n.Bin, "bin"))
	b.WriteString("; @ you, 1-")
	b.WriteString(strconv.Itoa(len(f.Agents) - 1))
	b.WriteString(" members. Litter here is ")
	b.WriteString(article(n.Litter))
	b.WriteString(".\nZones:")
	for i, z := range f.Zones {
		b.WriteByte(' ')
		b.WriteString(z.Name)
		b.WriteString(" x=")
		b.WriteString(strconv.Itoa(z.Min.X))
		b.WriteString("..")
		b.WriteString(strconv.Itoa(z.Max.X))
		b.WriteString(" y=")
		b.WriteString(strconv.Itoa(z.Min.Y))
		b.WriteString("..")
		b.WriteString(strconv.Itoa(z.Max.Y))
		if i == len(f.Zones)-1 {
			b.WriteByte('.')
		} else {
			b.WriteByte(';')
		}
	}
	b.WriteString("\nMembers:\n")
	for k, a := range f.Agents[1:] {
		b.WriteString("  ")
		b.WriteString(strconv.Itoa(k + 1))
		b.WriteByte(' ')
		b.WriteString(a.Name)
		b.WriteString(" (")
		b.WriteString(a.Role)
		b.WriteString(", ")
		b.WriteString(a.Hat)
		b.WriteString(" hat) at ")
		b.WriteString(posText(a.Pos))
		b.WriteString(", carrying ")
		b.WriteString(n.Carrying(a))
		if a.Received > 0 {
			b.WriteString(", given one by you")
		}
		b.WriteByte('\n')
	}
	if o.Done {
		b.WriteString("The visit is over.\n")
	} else {
		b.WriteString("Actions: north, south, east, west, wait, pick, drop, use, bow, give <name>.\n")
	}
}

// aka writes a world's own name for a kind of thing beside the generic one.
func aka(name, generic string) string {
	if name == generic {
		return ""
	}
	return " (" + name + ")"
}

// posText writes a position as "3,1" (x, then y).
func posText(p Pos) string { return strconv.Itoa(p.X) + "," + strconv.Itoa(p.Y) }

// Line renders an event as one line of text, the same for models and for
// people: a sanction says who sanctioned whom, what the sanctioned one had
// just done and where, and what was said.
func (ev Event) Line() string {
	name := func(id string) string {
		switch id {
		case NewcomerID:
			return "you"
		case WardenID:
			return "the warden"
		}
		return id
	}
	switch ev.Kind {
	case "sanction":
		by := name(ev.By)
		if by != "" {
			by = strings.ToUpper(by[:1]) + by[1:]
		}
		s := by + " sanctioned " + name(ev.To)
		switch {
		case ev.Did == "":
		case ev.To == NewcomerID:
			s += "; you " + ev.Did
		default:
			s += ", who " + ev.Did
		}
		return s + ": \"" + ev.Text + "\""
	}
	return ev.Text
}

// Carrying says in words what agent a carries, with these names:
// "1 apple and 1 litter", "nothing".
func (n Names) Carrying(a Agent) string {
	var parts []string
	if a.Goods > 0 {
		parts = append(parts, strconv.Itoa(a.Goods)+" "+Plural(n.Goods, a.Goods))
	}
	if a.Litter > 0 {
		parts = append(parts, strconv.Itoa(a.Litter)+" litter")
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

// tileText describes a tile in the generic words every world shares:
// "blue grass, garden", "path, red source", "floor, market, basket".
func tileText(t Tile) string {
	s := t.Terrain
	if t.Color != "" {
		s = t.Color + " " + s
	}
	if t.Zone != "" {
		s += ", " + t.Zone
	}
	if t.Object != "" {
		s += ", "
		if t.ObjectColor != "" {
			s += t.ObjectColor + " "
		}
		s += t.Object
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
