package sim

import (
	"strconv"
	"strings"
)

// The text form of an observation, the prompt a language model gets. It
// is rendered every step, also inside sim.wasm, where calls, allocations
// and pointer writes cost several times what they cost natively (the
// collector marks while the program runs, so a pointer written through a
// pointer can cost a write barrier): so it is appended to one byte slice
// held in local variables, with no fmt and no string built only to be
// copied.

// ViewMark starts the line where Text's view of the present begins: what
// comes before it is the recap of the step just taken.
const ViewMark = "Now: "

// Text renders the observation for a language model: the recap of what
// happened since the newcomer's last step (Recap), then the view of the
// present with the map (View), which starts with a line beginning with
// ViewMark. Browser and headless hosts send exactly this text; a
// conversation may keep only the recap of past turns (SplitText).
func (o *Observation) Text() string {
	b := make([]byte, 0, 2800)
	b = o.appendRecap(b)
	b = o.appendView(b)
	return string(b)
}

// Recap renders what happened since the newcomer's last step: each
// agent's act (with the tile for moves and acts on a tile) and every
// event, sanctions saying who did what where. At the start of a day it
// says who is where. It ends with a newline.
func (o *Observation) Recap() string { return string(o.appendRecap(nil)) }

// View renders the present: day, step and phase, the task, the map and
// its legend, the zones, the members and the actions. It starts with
// ViewMark.
func (o *Observation) View() string { return string(o.appendView(nil)) }

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

func (o *Observation) appendRecap(b []byte) []byte {
	f := &o.Frame
	if o.ActedIn != "" {
		// The day is the latest "Day N of 2 begins" line above.
		b = append(b, "Step "...)
		b = strconv.AppendInt(b, int64(f.Step), 10)
		b = append(b, ", "...)
		b = append(b, o.ActedIn...)
		b = append(b, '.')
		waited := 0
		// Whoever waited is listed last, the newcomer too (unless its
		// action did nothing: that is reported as what it tried).
		waitedHere := func(k int) bool { return f.Agents[k].LastAction == Wait && !(k == 0 && blocked(o.Events)) }
		for k := range f.Agents {
			a := &f.Agents[k]
			if waitedHere(k) {
				waited++
				continue
			}
			b = append(b, ' ')
			b = append(b, a.Name...)
			b = append(b, ' ')
			b = appendAct(b, f, a, !(k == 0 && blocked(o.Events)))
			b = append(b, ';')
		}
		if waited > 0 {
			b = append(b, ' ')
			sep := ""
			for k := range f.Agents {
				if waitedHere(k) {
					b = append(b, sep...)
					b = append(b, f.Agents[k].Name...)
					sep = ", "
				}
			}
			b = append(b, " wait;"...)
		}
		b = append(b, '\n')
	}
	for k := range o.Events {
		ev := &o.Events[k]
		b = ev.appendLine(b)
		b = append(b, '\n')
		if ev.Kind == "day" {
			b = append(b, "Members today:"...)
			for k := 1; k < len(f.Agents); k++ {
				if k > 1 {
					b = append(b, ';')
				}
				b = append(b, ' ')
				a := &f.Agents[k]
				b = appendMember(b, a)
				b = append(b, " ("...)
				b = appendTile(b, f.At(a.Pos))
				b = append(b, ')')
			}
			b = append(b, ".\n"...)
		}
	}
	return b
}

// appendMember appends who member a is and where: "mara (elder, red hat)
// at 3,1".
func appendMember(b []byte, a *Agent) []byte {
	b = append(b, a.Name...)
	b = append(b, " ("...)
	b = append(b, a.Role...)
	b = append(b, ", "...)
	b = append(b, a.Hat...)
	b = append(b, " hat) at "...)
	return appendPos(b, a.Pos)
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

// appendAct says in few words what agent a did in its latest action, as a
// watcher of the map sees it, with the action's own word: "north to 6,1
// (blue grass, garden)", "pick at 3,1 (path, red source)", "bow at 2,9
// (floor)". ok is false when the action was impossible.
func appendAct(b []byte, f *Frame, a *Agent, ok bool) []byte {
	act := a.LastAction
	if act == "" {
		return append(b, "nothing yet"...)
	}
	b = append(b, act...)
	switch {
	case !ok:
		b = append(b, " at "...)
		b = appendWhere(b, f, a.Pos)
		return append(b, ", which did nothing"...)
	case act == North || act == South || act == East || act == West:
		b = append(b, " to "...)
	default:
		b = append(b, " at "...)
	}
	return appendWhere(b, f, a.Pos)
}

// didText is the sanction event's account of what agent a had just done.
func didText(f *Frame, a *Agent, ok bool) string {
	act := a.LastAction
	where := string(appendWhere(nil, f, a.Pos))
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

func (o *Observation) appendView(b []byte) []byte {
	f := &o.Frame
	n := &o.Names
	kind := "test day"
	if o.Practice {
		kind = "practice day"
	}
	b = append(b, ViewMark...)
	b = append(b, "day "...)
	b = strconv.AppendInt(b, int64(o.Day), 10)
	b = append(b, " of "...)
	b = strconv.AppendInt(b, int64(o.Days), 10)
	b = append(b, " ("...)
	b = append(b, kind...)
	b = append(b, ") · step "...)
	b = strconv.AppendInt(b, int64(f.Step), 10)
	b = append(b, " of "...)
	b = strconv.AppendInt(b, int64(o.StepLimit), 10)
	b = append(b, " · phase: "...)
	b = append(b, f.Phase...)
	b = append(b, "\nTask: "...)
	b = append(b, o.Task.Text...)
	b = append(b, " Done so far: "...)
	me := &f.Agents[0]
	b = strconv.AppendInt(b, int64(me.Delivered), 10)
	b = append(b, " of "...)
	b = strconv.AppendInt(b, int64(o.Task.Goods), 10)
	b = append(b, " in the basket, "...)
	b = strconv.AppendInt(b, int64(GiftsGiven(f)), 10)
	b = append(b, " of "...)
	b = strconv.AppendInt(b, int64(o.Task.Gifts), 10)
	b = append(b, " members given one.\n"...)
	if o.Told != "" {
		b = append(b, "Community rule: "...)
		b = append(b, o.Told...)
		b = append(b, '\n')
	}
	b = append(b, "You (@) are at "...)
	b = appendPos(b, me.Pos)
	b = append(b, " on "...)
	b = appendTile(b, f.At(me.Pos))
	b = append(b, ", carrying "...)
	b = n.appendCarrying(b, me)
	b = append(b, ".\n\nMap (x grows east, y grows south):\n   "...)
	b = o.appendMap(b)
	b = append(b, "Legend: . path, _ floor, \" grass, : sand, = stone, ~ water, # wall; a letter after a symbol is the tile's colour "+
		"(r red, b blue, y yellow, g green). T source ("...)
	b = append(b, n.Source...)
	b = append(b, ") with "...)
	b = appendArticle(b, n.Goods)
	b = append(b, " ready, its colour after it (t: none ready yet); B basket"...)
	b = appendAka(b, n.Basket, "basket")
	b = append(b, "; L bell"...)
	b = appendAka(b, n.Bell, "bell")
	b = append(b, "; W well"...)
	b = appendAka(b, n.Well, "well")
	b = append(b, "; X bin"...)
	b = appendAka(b, n.Bin, "bin")
	b = append(b, "; @ you, 1-"...)
	b = strconv.AppendInt(b, int64(len(f.Agents)-1), 10)
	b = append(b, " members. Litter here is "...)
	b = appendArticle(b, n.Litter)
	b = append(b, ".\nZones:"...)
	for i := range f.Zones {
		z := &f.Zones[i]
		b = append(b, ' ')
		b = append(b, z.Name...)
		b = append(b, " x="...)
		b = strconv.AppendInt(b, int64(z.Min.X), 10)
		b = append(b, ".."...)
		b = strconv.AppendInt(b, int64(z.Max.X), 10)
		b = append(b, " y="...)
		b = strconv.AppendInt(b, int64(z.Min.Y), 10)
		b = append(b, ".."...)
		b = strconv.AppendInt(b, int64(z.Max.Y), 10)
		if i == len(f.Zones)-1 {
			b = append(b, '.')
		} else {
			b = append(b, ';')
		}
	}
	b = append(b, "\nMembers:\n"...)
	for k := 1; k < len(f.Agents); k++ {
		a := &f.Agents[k]
		b = append(b, "  "...)
		b = strconv.AppendInt(b, int64(k), 10)
		b = append(b, ' ')
		b = appendMember(b, a)
		b = append(b, ", carrying "...)
		b = n.appendCarrying(b, a)
		if a.Received > 0 {
			b = append(b, ", given one by you"...)
		}
		b = append(b, '\n')
	}
	if o.Done {
		return append(b, "The visit is over.\n"...)
	}
	return append(b, "Actions: north, south, east, west, wait, pick, drop, use, bow, give <name>.\n"...)
}

// appendMap appends the map's column numbers (after the three spaces
// already written) and one line per row: each tile's symbol and colour
// letter, agents on top (@ the newcomer, 1-4 the members).
func (o *Observation) appendMap(b []byte) []byte {
	f := &o.Frame
	for x := 0; x < f.Width; x++ {
		b = appendPad2(append(b, ' '), x)
	}
	b = append(b, '\n')
	var cellsArray [13 * 13][2]byte
	cells := cellsArray[:0]
	for i := range f.Tiles {
		cells = append(cells, cell(&f.Tiles[i]))
	}
	for k := range f.Agents {
		c := &cells[f.Agents[k].Pos.Y*f.Width+f.Agents[k].Pos.X]
		if k == 0 {
			c[0] = '@'
		} else if c[0] != '@' {
			c[0] = byte('0' + k)
		}
	}
	for y := 0; y < f.Height; y++ {
		b = append(appendPad2(b, y), ' ')
		for x := 0; x < f.Width; x++ {
			c := cells[y*f.Width+x]
			b = append(b, ' ', c[0])
			if c[1] != ' ' || x < f.Width-1 {
				b = append(b, c[1])
			}
		}
		b = append(b, '\n')
	}
	return b
}

// appendAka appends a world's own name for a kind of thing beside the
// generic one: " (chime)", or nothing when they are the same.
func appendAka(b []byte, name, generic string) []byte {
	if name == generic {
		return b
	}
	b = append(b, " ("...)
	b = append(b, name...)
	return append(b, ')')
}

// appendPos appends a position as "3,1" (x, then y).
func appendPos(b []byte, p Pos) []byte {
	b = strconv.AppendInt(b, int64(p.X), 10)
	b = append(b, ',')
	return strconv.AppendInt(b, int64(p.Y), 10)
}

// appendWhere appends a position and its tile: "3,1 (path, red source)".
func appendWhere(b []byte, f *Frame, p Pos) []byte {
	b = appendPos(b, p)
	b = append(b, " ("...)
	b = appendTile(b, f.At(p))
	return append(b, ')')
}

// Line renders an event as one line of text, the same for models and for
// people: a sanction says who sanctioned whom, what the sanctioned one had
// just done and where, and what was said.
func (ev Event) Line() string {
	if ev.Kind != "sanction" {
		return ev.Text
	}
	return string(ev.appendLine(nil))
}

func (ev *Event) appendLine(b []byte) []byte {
	if ev.Kind != "sanction" {
		return append(b, ev.Text...)
	}
	name := func(id string) string {
		switch id {
		case NewcomerID:
			return "you"
		case WardenID:
			return "the warden"
		}
		return id
	}
	if by := name(ev.By); by != "" {
		b = append(b, strings.ToUpper(by[:1])...)
		b = append(b, by[1:]...)
	}
	b = append(b, " sanctioned "...)
	b = append(b, name(ev.To)...)
	switch {
	case ev.Did == "":
	case ev.To == NewcomerID:
		b = append(b, "; you "...)
		b = append(b, ev.Did...)
	default:
		b = append(b, ", who "...)
		b = append(b, ev.Did...)
	}
	b = append(b, ": \""...)
	b = append(b, ev.Text...)
	return append(b, '"')
}

// Carrying says in words what agent a carries, with these names:
// "1 apple and 1 litter", "nothing".
func (n Names) Carrying(a Agent) string { return string(n.appendCarrying(nil, &a)) }

func (n *Names) appendCarrying(b []byte, a *Agent) []byte {
	if a.Goods > 0 {
		b = strconv.AppendInt(b, int64(a.Goods), 10)
		b = append(b, ' ')
		b = appendPlural(b, n.Goods, a.Goods)
	}
	if a.Litter > 0 {
		if a.Goods > 0 {
			b = append(b, " and "...)
		}
		b = strconv.AppendInt(b, int64(a.Litter), 10)
		b = append(b, " litter"...)
	}
	if a.Goods <= 0 && a.Litter <= 0 {
		b = append(b, "nothing"...)
	}
	return b
}

// cell returns a tile's two map characters: a symbol and a colour letter.
func cell(t *Tile) [2]byte {
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

// appendArticle appends a noun with "a" or "an" before it.
func appendArticle(b []byte, s string) []byte {
	if s != "" && strings.IndexByte("aeiou", s[0]) >= 0 {
		b = append(b, "an "...)
	} else {
		b = append(b, "a "...)
	}
	return append(b, s...)
}

// appendTile describes a tile in the generic words every world shares:
// "blue grass, garden", "path, red source", "floor, market, basket".
func appendTile(b []byte, t *Tile) []byte {
	if t.Color != "" {
		b = append(b, t.Color...)
		b = append(b, ' ')
	}
	b = append(b, t.Terrain...)
	if t.Zone != "" {
		b = append(b, ", "...)
		b = append(b, t.Zone...)
	}
	if t.Object != "" {
		b = append(b, ", "...)
		if t.ObjectColor != "" {
			b = append(b, t.ObjectColor...)
			b = append(b, ' ')
		}
		b = append(b, t.Object...)
	}
	return b
}

// appendPad2 appends n right-aligned in two columns (fmt's %2d).
func appendPad2(b []byte, n int) []byte {
	if n < 10 {
		b = append(b, ' ')
	}
	return strconv.AppendInt(b, int64(n), 10)
}
