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
	if o.DayEnd != "" {
		b = append(b, o.DayEnd...)
		b = append(b, '\n')
	}
	if o.ActedIn != "" {
		b = appendStepLine(b, f, o.ActedIn)
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

// appendStepLine appends the recap line of the step just taken in frame
// f, in phase actedIn: "Step 5, morning. you north to 10,6 (yellow
// stone); mara pick at 6,0 (path, red source), which did nothing; olek
// wait;". Whoever waited is listed last. The day is the one the latest
// "Day N of 2 begins" line started.
func appendStepLine(b []byte, f *Frame, actedIn string) []byte {
	b = append(b, "Step "...)
	b = strconv.AppendInt(b, int64(f.Step), 10)
	b = append(b, ", "...)
	b = append(b, actedIn...)
	b = append(b, '.')
	waited := 0
	for k := range f.Agents {
		a := &f.Agents[k]
		if a.LastAction == Wait {
			waited++
			continue
		}
		b = append(b, ' ')
		b = append(b, a.Name...)
		b = append(b, ' ')
		b = appendAct(b, f, a, !a.Failed)
		b = append(b, ';')
	}
	if waited > 0 {
		b = append(b, ' ')
		sep := ""
		for k := range f.Agents {
			if f.Agents[k].LastAction == Wait {
				b = append(b, sep...)
				b = append(b, f.Agents[k].Name...)
				sep = ", "
			}
		}
		b = append(b, " wait;"...)
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
	b = appendGround(b, t)
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

// appendGround appends a tile's ground: its colour, terrain and zone
// ("blue grass, garden").
func appendGround(b []byte, t *Tile) []byte {
	if t.Color != "" {
		b = append(b, t.Color...)
		b = append(b, ' ')
	}
	b = append(b, t.Terrain...)
	if t.Zone != "" {
		b = append(b, ", "...)
		b = append(b, t.Zone...)
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
