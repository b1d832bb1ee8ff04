package sim

import "github.com/normgym/normgym/norms"

// Layout geometry shared by every world (see RATIONALE.md, "One layout
// structure"): the sources and the well in the top area; a band of
// flower beds, sand and paving across the whole width of the middle, every
// tile coloured, every column holding every colour and every band terrain,
// the garden and the plaza zones each with one gap; the market (holding
// the basket), the bell, the bin and the newcomer's start in the bottom
// area. The errand therefore crosses the band twice (to the sources and
// back), every crossing meets every colour, terrain and zone, and for each
// single colour, terrain or zone a way round it exists.
const (
	gridW, gridH = 13, 13
	bandTop      = 4  // first band row
	bandBottom   = 8  // last band row
	phaseLen     = 3  // steps per phase
	regrowSteps  = 14 // steps for an emptied source to bear again
)

// bandTerrains are the terrains of one band column, before shuffling.
var bandTerrains = [bandBottom - bandTop + 1]string{"grass", "grass", "sand", "stone", "stone"}

// The member roles, in agent order after the newcomer.
var memberRoles = [4]string{"elder", "vendor", "gardener", "child"}

// layout is one seeded draw of a world: the frame at step 0, plus what is
// hidden (member stations and the phase offset).
type layout struct {
	frame       *Frame
	stations    []Pos // per agent
	phaseOffset int
}

// newLayout draws day `day` of world w for the visit seed. It depends on
// nothing else: not the norm, not the condition. A draw where some
// single-feature way of keeping a norm would strand the newcomer
// (passable) is drawn again from the same stream, so every layout holds a
// compliant way through the errand and layouts that pass at once are
// unchanged.
func newLayout(w World, seed uint64, day int) layout {
	r := newRNG("layout", w.Name, utoa(seed), itoa(day))
	for {
		if lay := drawLayout(w, r); passable(lay.frame) {
			return lay
		}
	}
}

// drawLayout is one draw of a layout from r.
func drawLayout(w World, r *rng) layout {
	f := &Frame{Width: gridW, Height: gridH, Tiles: make([]Tile, gridW*gridH)}
	colors := norms.Colors()
	for y := 0; y < gridH; y++ {
		for x := 0; x < gridW; x++ {
			t := f.At(Pos{x, y})
			t.Terrain = "floor"
			if r.intn(2) == 0 {
				t.Terrain = "path"
			}
		}
	}
	gardenGap, plazaGap := drawBand(f, r, colors)
	f.Zones = append(f.Zones, bandZones("garden", bandTop, bandTop+1, gardenGap)...)
	f.Zones = append(f.Zones, bandZones("plaza", bandBottom-1, bandBottom, plazaGap)...)
	// The market: five columns by three rows at the bottom.
	mx := r.intn(gridW - 4)
	market := Zone{Name: "market", Min: Pos{mx, gridH - 3}, Max: Pos{mx + 4, gridH - 1}}
	f.Zones = append([]Zone{market}, f.Zones...)
	for y := market.Min.Y; y <= market.Max.Y; y++ {
		for x := market.Min.X; x <= market.Max.X; x++ {
			f.At(Pos{x, y}).Zone = "market"
		}
	}
	d := drawer{f: f, r: r, market: market}
	basket := Pos{market.Min.X + 1 + r.intn(3), market.Min.Y + 1 + r.intn(2)}
	f.At(basket).Object = "basket"
	for _, c := range r.perm(4) {
		p := d.pick(0, bandTop-1, func(p Pos) bool {
			for _, q := range [8]Pos{{p.X - 1, p.Y - 1}, {p.X, p.Y - 1}, {p.X + 1, p.Y - 1}, {p.X - 1, p.Y},
				{p.X + 1, p.Y}, {p.X - 1, p.Y + 1}, {p.X, p.Y + 1}, {p.X + 1, p.Y + 1}} {
				if f.In(q) && f.At(q).Object == "source" {
					return false
				}
			}
			return true
		})
		t := f.At(p)
		t.Object, t.ObjectColor, t.Stock = "source", colors[c], 1
	}
	well := d.pick(0, bandTop-1, nil)
	f.At(well).Object = "well"
	bottom := bandBottom + 1
	bell := d.pick(bottom, gridH-1, d.outside)
	f.At(bell).Object = "bell"
	bin := d.pick(bottom, gridH-1, d.outside)
	f.At(bin).Object = "bin"
	d.obstacles(w.Obstacle)
	stations := d.agents(w, basket, well)
	return layout{frame: f, stations: stations, phaseOffset: r.intn(3 * phaseLen)}
}

// drawer holds what drawing a layout's objects and agents shares.
type drawer struct {
	f      *Frame
	r      *rng
	market Zone
}

// outside reports whether p lies outside the market.
func (d *drawer) outside(p Pos) bool {
	m := d.market
	return !(p.X >= m.Min.X && p.X <= m.Max.X && p.Y >= m.Min.Y)
}

// free reports whether p is walkable and holds no object.
func (d *drawer) free(p Pos) bool { t := d.f.At(p); return t.Object == "" && t.Walkable() }

// pick draws a free tile in rows y0..y1 that passes ok (after 500 tries,
// any free tile).
func (d *drawer) pick(y0, y1 int, ok func(Pos) bool) Pos {
	for try := 0; ; try++ {
		p := Pos{d.r.intn(gridW), y0 + d.r.intn(y1-y0+1)}
		if d.free(p) && (ok == nil || ok(p) || try > 500) {
			return p
		}
	}
}

// obstacles scatters three tiles of the world's obstacle in the open
// areas, each redrawn until every walkable tile stays reachable.
func (d *drawer) obstacles(obstacle string) {
	if obstacle == "" {
		return
	}
	f := d.f
	for placed := 0; placed < 3; {
		y0, y1 := 0, bandTop-1
		if d.r.intn(2) == 0 {
			y0, y1 = bandBottom+1, gridH-1
		}
		p := d.pick(y0, y1, d.outside)
		old := f.At(p).Terrain
		f.At(p).Terrain = obstacle
		if connected(f) {
			placed++
		} else {
			f.At(p).Terrain = old
		}
	}
}

// agents places the newcomer, then the members in role order, and
// returns their stations.
func (d *drawer) agents(w World, basket, well Pos) []Pos {
	f, r := d.f, d.r
	colors := norms.Colors()
	hats := r.perm(4)
	start := d.pick(gridH-2, gridH-1, func(p Pos) bool { return d.outside(p) && chebyshev(p, d.market.Min) > 1 })
	f.Agents = append(f.Agents, Agent{ID: NewcomerID, Name: "you", Role: "newcomer", Pos: start})
	stations := []Pos{start}
	sources := objectTiles(f, "source")
	for k, role := range memberRoles {
		var p Pos
		switch role {
		case "elder":
			p = d.pick(0, bandTop-1, func(p Pos) bool { return chebyshev(p, well) <= 2 })
		case "vendor":
			// Two tiles north of the basket, on the way in from the band.
			p = d.pick(bandBottom+1, gridH-1, func(p Pos) bool { return p == Pos{basket.X, basket.Y - 2} })
		case "gardener":
			s := sources[r.intn(len(sources))]
			p = d.pick(0, bandTop-1, func(p Pos) bool { return chebyshev(p, s) == 1 })
		default:
			// Two tiles north of the newcomer's start, on its way out.
			p = d.pick(bandBottom+1, gridH-1, func(p Pos) bool { return p == Pos{start.X, start.Y - 2} })
		}
		name := w.Members[k]
		f.Agents = append(f.Agents, Agent{ID: name, Name: name, Role: role, Hat: colors[hats[k]], Pos: p, Litter: 1})
		stations = append(stations, p)
	}
	return stations
}

// drawBand colours the band and lays its terrains and zone gaps, redrawn
// until, for every single colour, band terrain and band zone, a crossing
// from the top area to the bottom area avoids it. It returns the columns
// where the garden and the plaza have their gaps.
func drawBand(f *Frame, r *rng, colors []string) (gardenGap, plazaGap int) {
	rows := bandBottom - bandTop + 1
	for {
		for x := 0; x < gridW; x++ {
			order := r.perm(4)
			extra := r.intn(4)
			cs := [5]int{order[0], order[1], order[2], order[3], extra}
			ts := bandTerrains
			for i := rows - 1; i > 0; i-- {
				j := r.intn(i + 1)
				cs[i], cs[j] = cs[j], cs[i]
				k := r.intn(i + 1)
				ts[i], ts[k] = ts[k], ts[i]
			}
			for i := 0; i < rows; i++ {
				*f.At(Pos{x, bandTop + i}) = Tile{Terrain: ts[i], Color: colors[cs[i]]}
			}
		}
		gardenGap = r.intn(gridW)
		plazaGap = r.intn(gridW - 1)
		if plazaGap >= gardenGap {
			plazaGap++
		}
		for x := 0; x < gridW; x++ {
			for y := bandTop; y <= bandTop+1; y++ {
				if x != gardenGap {
					f.At(Pos{x, y}).Zone = "garden"
				}
			}
			for y := bandBottom - 1; y <= bandBottom; y++ {
				if x != plazaGap {
					f.At(Pos{x, y}).Zone = "plaza"
				}
			}
		}
		if bandCrossable(f, colors) {
			return gardenGap, plazaGap
		}
	}
}

// bandCrossable reports whether, for each colour, band terrain and band
// zone, some crossing of the band avoids it.
func bandCrossable(f *Frame, colors []string) bool {
	for _, c := range colors {
		if !crossing(f, func(t *Tile) bool { return t.Color != c }) {
			return false
		}
	}
	for _, terrain := range []string{"grass", "sand", "stone"} {
		if !crossing(f, func(t *Tile) bool { return t.Terrain != terrain }) {
			return false
		}
	}
	for _, z := range []string{"garden", "plaza"} {
		if !crossing(f, func(t *Tile) bool { return t.Zone != z }) {
			return false
		}
	}
	return true
}

// crossing reports whether a walk through band tiles that ok accepts leads
// from the band's top row to its bottom row.
func crossing(f *Frame, ok func(*Tile) bool) bool {
	seen := make([]bool, len(f.Tiles))
	var stack []Pos
	for x := 0; x < f.Width; x++ {
		p := Pos{x, bandTop}
		if ok(f.At(p)) {
			seen[p.Y*f.Width+p.X] = true
			stack = append(stack, p)
		}
	}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if p.Y == bandBottom {
			return true
		}
		for _, q := range neighbours(p) {
			if q.Y < bandTop || q.Y > bandBottom || !f.In(q) || seen[q.Y*f.Width+q.X] || !ok(f.At(q)) {
				continue
			}
			seen[q.Y*f.Width+q.X] = true
			stack = append(stack, q)
		}
	}
	return false
}

// bandZones returns the rectangles of a band zone over rows y0..y1 with a
// gap at column gap.
func bandZones(name string, y0, y1, gap int) []Zone {
	var zs []Zone
	if gap > 0 {
		zs = append(zs, Zone{Name: name, Min: Pos{0, y0}, Max: Pos{gap - 1, y1}})
	}
	if gap < gridW-1 {
		zs = append(zs, Zone{Name: name, Min: Pos{gap + 1, y0}, Max: Pos{gridW - 1, y1}})
	}
	return zs
}

func neighbours(p Pos) [4]Pos {
	return [4]Pos{{p.X, p.Y - 1}, {p.X + 1, p.Y}, {p.X, p.Y + 1}, {p.X - 1, p.Y}}
}

// objectTiles lists the positions of objects of a kind, in row-major order.
func objectTiles(f *Frame, kind string) []Pos {
	var ps []Pos
	for i, t := range f.Tiles {
		if t.Object == kind {
			ps = append(ps, Pos{i % f.Width, i / f.Width})
		}
	}
	return ps
}

// connected reports whether every walkable tile is reachable from every other.
func connected(f *Frame) bool {
	seen := make([]bool, len(f.Tiles))
	var stack []Pos
	total := 0
	for i, t := range f.Tiles {
		if t.Walkable() {
			total++
			if len(stack) == 0 {
				stack = append(stack, Pos{i % f.Width, i / f.Width})
				seen[i] = true
			}
		}
	}
	n := 0
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n++
		for _, q := range neighbours(p) {
			if f.In(q) && !seen[q.Y*f.Width+q.X] && f.At(q).Walkable() {
				seen[q.Y*f.Width+q.X] = true
				stack = append(stack, q)
			}
		}
	}
	return n == total
}

// phaseAt returns the phase name at a step of a day.
func phaseAt(step, offset int) string {
	return norms.Phases()[((step+offset)/phaseLen)%3]
}
