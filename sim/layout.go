package sim

import "github.com/normgym/normgym/norms"

// Layout geometry shared by every world: a top area with the sources, the
// market (holding the basket) and the well; a band of flower beds, sand and
// paving across the middle (garden and plaza zones, tiles of every colour in
// every column) with a path round each end; a bottom area with the bell,
// the bin and the newcomer's start.
const (
	gridW, gridH = 13, 13
	bandTop      = 4 // first band row
	bandBottom   = 8 // last band row
	phaseLen     = 5 // steps per phase
	regrowSteps  = 6 // steps for an emptied source to bear again
)

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
// nothing else: not the norm, not the condition.
func newLayout(w World, seed int, day int) layout {
	r := newRNG("layout", w.Name, itoa(seed), itoa(day))
	f := &Frame{Width: gridW, Height: gridH, Tiles: make([]Tile, gridW*gridH)}
	colors := norms.Colors()
	// Ground.
	for y := 0; y < gridH; y++ {
		for x := 0; x < gridW; x++ {
			t := f.At(Pos{x, y})
			t.Terrain = "floor"
			if r.intn(2) == 0 {
				t.Terrain = "path"
			}
		}
	}
	for x := 0; x < gridW; x++ {
		shift := r.intn(4)
		for y := bandTop; y <= bandBottom; y++ {
			t := f.At(Pos{x, y})
			if x == 0 || x == gridW-1 {
				*t = Tile{Terrain: "path"}
				continue
			}
			switch {
			case y <= bandTop+1:
				t.Terrain, t.Zone = "grass", "garden"
			case y == bandTop+2:
				t.Terrain = "sand"
			default:
				t.Terrain, t.Zone = "stone", "plaza"
			}
			if y <= bandTop+3 {
				t.Color = colors[(y-bandTop+shift)%4]
			}
		}
	}
	mx := 1 + r.intn(gridW-6)
	market := Zone{Name: "market", Min: Pos{mx, 0}, Max: Pos{mx + 4, 2}}
	f.Zones = []Zone{
		market,
		{Name: "garden", Min: Pos{1, bandTop}, Max: Pos{gridW - 2, bandTop + 1}},
		{Name: "plaza", Min: Pos{1, bandTop + 3}, Max: Pos{gridW - 2, bandBottom}},
	}
	for y := market.Min.Y; y <= market.Max.Y; y++ {
		for x := market.Min.X; x <= market.Max.X; x++ {
			f.At(Pos{x, y}).Zone = "market"
		}
	}
	inMarket := func(p Pos) bool {
		return p.X >= market.Min.X && p.X <= market.Max.X && p.Y <= market.Max.Y
	}
	free := func(p Pos) bool { t := f.At(p); return t.Object == "" && t.Walkable() }
	// pick draws a free tile in rows y0..y1 that passes ok.
	pick := func(y0, y1 int, ok func(Pos) bool) Pos {
		for try := 0; ; try++ {
			p := Pos{r.intn(gridW), y0 + r.intn(y1-y0+1)}
			if free(p) && (ok == nil || ok(p) || try > 500) {
				return p
			}
		}
	}
	basket := Pos{market.Min.X + 1 + r.intn(3), r.intn(2)}
	f.At(basket).Object = "basket"
	for i, c := range r.perm(4) {
		_ = i
		p := pick(0, bandTop-1, func(p Pos) bool {
			if inMarket(p) {
				return false
			}
			for _, q := range neighbours(p) {
				if f.In(q) && f.At(q).Object == "source" {
					return false
				}
			}
			return true
		})
		t := f.At(p)
		t.Object, t.ObjectColor, t.Stock = "source", colors[c], 1
	}
	well := pick(0, bandTop-1, func(p Pos) bool { return !inMarket(p) })
	f.At(well).Object = "well"
	bell := pick(bandBottom+1, gridH-1, nil)
	f.At(bell).Object = "bell"
	bin := pick(bandBottom+1, gridH-1, nil)
	f.At(bin).Object = "bin"
	// Obstacles: a few tiles of the world's obstacle in the open areas,
	// redrawn until every walkable tile stays reachable.
	if w.Obstacle != "" {
		for placed := 0; placed < 3; {
			y0, y1 := 0, bandTop-1
			if r.intn(2) == 0 {
				y0, y1 = bandBottom+1, gridH-1
			}
			p := pick(y0, y1, func(p Pos) bool { return !inMarket(p) && p.X > 0 && p.X < gridW-1 })
			old := f.At(p).Terrain
			f.At(p).Terrain = w.Obstacle
			if connected(f) {
				placed++
			} else {
				f.At(p).Terrain = old
			}
		}
	}
	// Agents: the newcomer first, then the members in role order.
	hats := r.perm(4)
	start := pick(bandBottom+2, gridH-1, nil)
	f.Agents = append(f.Agents, Agent{ID: NewcomerID, Name: "you", Role: "newcomer", Pos: start})
	stations := []Pos{start}
	sources := objectTiles(f, "source")
	for k, role := range memberRoles {
		var p Pos
		switch role {
		case "elder":
			p = pick(0, bandTop-1, func(p Pos) bool { return chebyshev(p, well) <= 2 })
		case "vendor":
			p = pick(0, 2, func(p Pos) bool { return inMarket(p) && chebyshev(p, basket) == 2 })
		case "gardener":
			s := sources[r.intn(len(sources))]
			p = pick(0, bandTop-1, func(p Pos) bool { return chebyshev(p, s) == 1 })
		default:
			p = pick(bandBottom+1, gridH-1, nil)
		}
		name := w.Members[k]
		f.Agents = append(f.Agents, Agent{ID: name, Name: name, Role: role, Hat: colors[hats[k]], Pos: p, Litter: 1})
		stations = append(stations, p)
	}
	return layout{frame: f, stations: stations, phaseOffset: r.intn(3 * phaseLen)}
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
