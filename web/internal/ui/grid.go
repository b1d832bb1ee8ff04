package ui

import (
	"github.com/normgym/normgym/sim"
	"strings"
)

// Marks are what happened on the last step, drawn over the grid.
type Marks struct {
	// Said maps an agent id to what it said (a sanction's utterance).
	Said map[string]string
	// Hit holds the ids of agents sanctioned on the last step.
	Hit map[string]bool
}

// MarksOf collects the marks of a step's events.
func MarksOf(events []Event) Marks {
	m := Marks{Said: map[string]string{}, Hit: map[string]bool{}}
	for _, ev := range events {
		if ev.Kind != "sanction" {
			continue
		}
		if ev.By != "" && ev.By != "warden" {
			m.Said[ev.By] = ev.Text
		}
		m.Hit[ev.To] = true
	}
	return m
}

// GridHTML renders the map: one cell per tile in reading order (row by
// row), then the zones as outlined rectangles. Every cell carries a text
// description for screen readers; colours are drawn with a letter and a
// line style as well.
func GridHTML(o *Observation, m Marks) string {
	f := &o.Frame
	var b strings.Builder
	b.Grow(len(f.Tiles) * 260)
	here := make(map[int][]int, len(f.Agents))
	for i, a := range f.Agents {
		k := a.Pos.Y*f.Width + a.Pos.X
		here[k] = append(here[k], i)
	}
	me := Agent{}
	if len(f.Agents) > 0 {
		me = f.Agents[0]
	}
	b.WriteString(`<div class="grid" role="table" aria-label="Map, ` + itoa(f.Width) + ` by ` + itoa(f.Height) +
		` tiles, x grows east and y grows south. You are at x ` + itoa(me.Pos.X) + `, y ` + itoa(me.Pos.Y) +
		`." style="--w:` + itoa(f.Width) + `;--h:` + itoa(f.Height) + `">`)
	for y := 0; y < f.Height; y++ {
		b.WriteString(`<div class="row" role="row">`)
		for x := 0; x < f.Width; x++ {
			k := y*f.Width + x
			if k >= len(f.Tiles) {
				break
			}
			cell(&b, o, x, y, f.Tiles[k], here[k], m)
		}
		b.WriteString(`</div>`)
	}
	for _, z := range f.Zones {
		b.WriteString(`<div class="zone" aria-hidden="true" style="grid-area:` + itoa(z.Min.Y+1) + `/` + itoa(z.Min.X+1) + `/` +
			itoa(z.Max.Y+2) + `/` + itoa(z.Max.X+2) + `"><span>` + esc(z.Name) + `</span></div>`)
	}
	b.WriteString(`</div>`)
	return b.String()
}

func cell(b *strings.Builder, o *Observation, x, y int, t Tile, agents []int, m Marks) {
	f := &o.Frame
	cls := "cell t-" + cssName(t.Terrain)
	if t.Color != "" {
		cls += " c-" + cssName(t.Color)
	}
	if len(agents) > 0 {
		cls += " has-agent"
	}
	if len(agents) > 1 {
		cls += " multi"
	}
	b.WriteString(`<div role="cell" class="` + cls + `" style="grid-area:` + itoa(y+1) + `/` + itoa(x+1) + `">`)
	b.WriteString(`<span class="sr">` + esc(CellText(o, x, y)) + `</span>`)
	if t.Color != "" {
		b.WriteString(`<span class="cl" aria-hidden="true">` + ColorLetter(t.Color) + `</span>`)
	}
	if t.Object != "" {
		ocls := "ob o-" + cssName(t.Object)
		if t.ObjectColor != "" {
			ocls += " oc-" + cssName(t.ObjectColor)
		}
		if t.Object == "source" && t.Stock == 0 {
			ocls += " empty"
		}
		b.WriteString(`<span class="` + ocls + `" aria-hidden="true"><svg><use href="#i-` + cssName(t.Object) + `"/></svg>`)
		if t.Object == "source" && t.ObjectColor != "" {
			b.WriteString(`<i>` + ColorLetter(t.ObjectColor) + `</i>`)
		}
		b.WriteString(`</span>`)
		if t.Stock > 0 {
			b.WriteString(`<span class="st" aria-hidden="true">` + itoa(t.Stock) + `</span>`)
		}
	}
	if t.Loose > 0 {
		b.WriteString(`<span class="lo" aria-hidden="true">` + itoa(t.Loose) + `</span>`)
	}
	for _, i := range agents {
		a := f.Agents[i]
		tcls := "tk"
		label := itoa(i)
		if i == 0 {
			tcls += " me"
			label = "@"
		} else {
			tcls += " m" + itoa(i)
		}
		if a.Hat != "" {
			tcls += " h-" + cssName(a.Hat)
		}
		if m.Hit[a.ID] {
			tcls += " hit"
		}
		b.WriteString(`<span class="` + tcls + `" aria-hidden="true"><b>` + label + `</b>`)
		if a.Hat != "" {
			b.WriteString(`<i>` + ColorLetter(a.Hat) + `</i>`)
		}
		if i > 0 {
			b.WriteString(`<em>` + esc(Title(a.Name)) + `</em>`)
		}
		b.WriteString(`</span>`)
		if s, ok := m.Said[a.ID]; ok {
			bc := "bubble"
			if y == 0 {
				bc += " below"
			}
			b.WriteString(`<span class="` + bc + `" aria-hidden="true">` + esc(s) + `</span>`)
		}
	}
	b.WriteString(`</div>`)
}

// CellText describes a tile for a screen reader: position, terrain and
// colour, zone, object, items on the ground and who stands there.
func CellText(o *Observation, x, y int) string {
	f := &o.Frame
	t := f.Tiles[y*f.Width+x]
	var b strings.Builder
	b.WriteString("x " + itoa(x) + ", y " + itoa(y) + ": ")
	if t.Color != "" {
		b.WriteString(t.Color + " ")
	}
	b.WriteString(t.Terrain)
	if t.Zone != "" {
		b.WriteString(", " + t.Zone)
	}
	if t.Object != "" {
		b.WriteString(", " + o.Names.ObjectName(t.Object))
		if t.ObjectColor != "" {
			b.WriteString(" (" + t.ObjectColor + ")")
		}
		switch {
		case t.Object == "source" && t.Stock == 0:
			b.WriteString(" with nothing ready")
		case t.Object == "source":
			b.WriteString(" with " + itoa(t.Stock) + " " + sim.Plural(o.Names.Goods, t.Stock) + " ready")
		case t.Stock > 0:
			b.WriteString(" holding " + itoa(t.Stock))
		}
	}
	if t.Loose > 0 {
		b.WriteString(", " + itoa(t.Loose) + " on the ground")
	}
	for i, a := range f.Agents {
		if a.Pos.X != x || a.Pos.Y != y {
			continue
		}
		if i == 0 {
			b.WriteString("; you")
			continue
		}
		b.WriteString("; " + itoa(i) + " " + Title(a.Name) + " (" + a.Role)
		if a.Hat != "" {
			b.WriteString(", " + a.Hat + " hat")
		}
		b.WriteString(")")
	}
	return b.String()
}
