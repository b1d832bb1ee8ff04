package ui

import (
	"sort"
	"strings"

	"github.com/normgym/normgym/sim"
)

// Marks are what happened on the last step, drawn over the grid.
type Marks struct {
	// Said maps an agent id to what it said (a sanction's utterance).
	Said map[string]string
	// Hit holds the ids of agents sanctioned on the last step.
	Hit map[string]bool
	// Spots are the tiles of recent sanctions (Trail), drawn with a ring
	// that leaves the tile's colour letter visible; Focus, if set, is the
	// one the player asked to see (a feed line), drawn stronger.
	Spots map[Pos]bool
	Focus *Pos
}

// Spot is where a sanctioned act happened: the tile on which the
// sanctioned one stood after it, on a day and step.
type Spot struct {
	Pos       Pos
	Day, Step int
}

// Where returns the tile of a sanction event: where the sanctioned agent
// stood after the act that drew it (the event's "at").
func Where(ev Event) (Pos, bool) {
	if ev.Kind != "sanction" {
		return Pos{}, false
	}
	return ev.At, true // where the sanctioned one stood after its act
}

// TrailSteps is how many steps a sanction's tile stays marked.
const TrailSteps = 3

// Trail returns the tiles of the spots of day that happened within
// TrailSteps steps before step (the map's own step).
func Trail(spots []Spot, day, step int) map[Pos]bool {
	out := map[Pos]bool{}
	for _, s := range spots {
		if s.Day == day && step-s.Step < TrailSteps && step >= s.Step {
			out[s.Pos] = true
		}
	}
	return out
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
	ini := Initials(f.Agents)
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
			cell(&b, o, x, y, f.Tiles[k], here[k], m, ini)
		}
		b.WriteString(`</div>`)
	}
	taken := labelled(o)
	for _, z := range f.Zones {
		b.WriteString(`<div class="zone" aria-hidden="true" style="grid-area:` + itoa(z.Min.Y+1) + `/` + itoa(z.Min.X+1) + `/` +
			itoa(z.Max.Y+2) + `/` + itoa(z.Max.X+2) + `">`)
		// The name sits in the zone's top-right corner, or its top-left
		// one when a member's token or name label is under it; with both
		// taken it is left out (every tile's text names its zone).
		switch {
		case free(taken, z, z.Max.X, -1):
			b.WriteString(`<span>` + esc(z.Name) + `</span>`)
		case free(taken, z, z.Min.X, 1):
			b.WriteString(`<span class="left">` + esc(z.Name) + `</span>`)
		}
		b.WriteString(`</div>`)
	}
	b.WriteString(`</div>`)
	return b.String()
}

func cell(b *strings.Builder, o *Observation, x, y int, t Tile, agents []int, m Marks, ini []string) {
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
	ring := ""
	if m.Spots[Pos{X: x, Y: y}] {
		cls += " spot"
		ring = "ring"
	}
	if m.Focus != nil && *m.Focus == (Pos{X: x, Y: y}) {
		cls += " spot-focus"
		ring = "ring focus"
	}
	b.WriteString(`<div role="cell" class="` + cls + `" style="grid-area:` + itoa(y+1) + `/` + itoa(x+1) + `">`)
	b.WriteString(`<span class="sr">` + esc(CellText(o, x, y)) + `</span>`)
	if t.Color != "" {
		b.WriteString(`<span class="cl" aria-hidden="true">` + ColorLetter(t.Color) + `</span>`)
	}
	if ring != "" {
		b.WriteString(`<span class="` + ring + `" aria-hidden="true"></span>`)
	}
	if t.Object != "" {
		ocls := "ob o-" + cssName(t.Object)
		if t.ObjectColor != "" {
			ocls += " oc-" + cssName(t.ObjectColor)
		}
		if t.Object == "source" && t.Stock == 0 {
			ocls += " empty"
		}
		b.WriteString(`<span class="` + ocls + `" aria-hidden="true"><svg><use href="#i-` + Icon(o.Names, t.Object) + `"/></svg>`)
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
			b.WriteString(`<em><span class="full">` + esc(Title(a.Name)) + `</span><span class="ini">` + esc(ini[i]) + `</span></em>`)
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

// labelled returns the tiles covered by members' tokens and the name
// labels drawn under them (the tile below and its neighbours), where a
// zone's name would be hidden.
// free reports whether a zone's name, written from its top row's tile x
// inwards (dx: -1 from the right corner, 1 from the left), covers no
// taken tile. It covers about a fifth of a tile a letter where its font
// is at its smallest (a phone's map), so a name of n letters covers
// 1 + n/5 tiles.
func free(taken map[Pos]bool, z Zone, x, dx int) bool {
	span := 1 + len([]rune(z.Name))/5
	for k := 0; k < span && x >= z.Min.X && x <= z.Max.X; k, x = k+1, x+dx {
		if taken[Pos{X: x, Y: z.Min.Y}] {
			return false
		}
	}
	return true
}

func labelled(o *Observation) map[Pos]bool {
	taken := map[Pos]bool{}
	for i, a := range o.Frame.Agents {
		taken[a.Pos] = true
		if i == 0 {
			continue
		}
		for dx := -1; dx <= 1; dx++ {
			taken[Pos{X: a.Pos.X + dx, Y: a.Pos.Y + 1}] = true
		}
	}
	return taken
}

// Initials returns a short label per agent for small maps: the first
// letter of a member's name, or as many letters as it takes to tell it
// from the others' (index 0, the newcomer, is "").
func Initials(ags []Agent) []string {
	out := make([]string, len(ags))
	for n := 1; n <= 3; n++ {
		seen := map[string]int{}
		for i := 1; i < len(ags); i++ {
			seen[prefix(ags[i].Name, n)]++
		}
		done := true
		for i := 1; i < len(ags); i++ {
			if out[i] != "" {
				continue
			}
			if p := prefix(ags[i].Name, n); seen[p] == 1 || n == 3 {
				out[i] = p
			} else {
				done = false
			}
		}
		if done {
			break
		}
	}
	return out
}

func prefix(name string, n int) string {
	r := []rune(Title(name))
	if len(r) > n {
		r = r[:n]
	}
	return string(r)
}

// icons maps what a world calls an object to the map's symbol for it
// (an id in index.html without its "i-"), so that a stall is drawn as a
// stall and a gong as a gong.
var icons = map[string]string{
	"apple tree": "source", "stall": "stall", "flower bush": "bush", "fish rack": "rack", "shelf": "shelf",
	"basket": "basket", "crate": "crate", "vase": "vase", "cart": "cart", "returns box": "box",
	"bell": "bell", "gong": "gong", "chime": "chime", "ship's bell": "bell", "desk bell": "deskbell",
	"well": "well", "fountain": "fountain", "tap": "tap", "pump": "pump", "water jug": "jug",
	"compost bin": "bin", "bin": "bin", "barrel": "barrel", "paper bin": "bin",
}

// Icon returns the symbol (without "i-") that draws an object kind of a
// world with these names; an unknown name falls back to the kind's.
func Icon(n Names, kind string) string {
	if id, ok := icons[n.ObjectName(kind)]; ok {
		return id
	}
	return cssName(kind)
}

// Icons lists every symbol Icon can return (for the page's test).
func Icons() []string {
	set := map[string]bool{}
	for _, id := range icons {
		set[id] = true
	}
	for _, k := range []string{"source", "basket", "bell", "well", "bin"} {
		set[k] = true
	}
	out := make([]string, 0, len(set))
	for id := range set {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}
