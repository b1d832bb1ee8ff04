package sim

import "github.com/normgym/normgym/norms"

// A layout must leave a compliant way through the errand under every norm
// a newcomer might face, whatever the norm turns out to be (the layout
// never depends on it). The norms that restrict walking do so by one
// feature of the tile entered or of the move: its colour, its band
// terrain, a zone entered, the direction onto a path, or a member's
// neighbourhood. For each such restriction, passable checks from the
// newcomer's start that every place the errand needs is reachable and that
// nothing reachable is a trap (a tile from which the start cannot be
// reached again, as a pocket of one-way paths can be).

// moveRule says whether a move from tile a to tile b (positions p, q,
// direction dir) stays allowed under one restriction, and which of the
// errand's places it exempts (those a newcomer keeping it never needs to
// walk to: the market's basket when the market may only be entered after
// something, say).
type moveRule struct {
	allow  func(a, b *Tile, p, q Pos, dir string) bool
	exempt func(t *Tile, p Pos) bool
	// member is the agent whose neighbourhood the restriction keeps off
	// (0 for none): the errand needs the others only.
	member int
}

// moveRules lists the restrictions passable checks for a frame: none at
// all, each colour, each band terrain, entering each zone, each direction
// onto a path, and keeping away from each member's station (where members
// stand all day under solo).
func moveRules(f *Frame) []moveRule {
	never := func(*Tile, Pos) bool { return false }
	rules := []moveRule{{allow: func(*Tile, *Tile, Pos, Pos, string) bool { return true }, exempt: never}}
	for _, c := range norms.Colors() {
		rules = append(rules, moveRule{allow: func(_, b *Tile, _, _ Pos, _ string) bool { return b.Color != c }, exempt: never})
	}
	for _, t := range bandTerrains[1:4] { // grass, sand, stone
		rules = append(rules, moveRule{allow: func(_, b *Tile, _, _ Pos, _ string) bool { return b.Terrain != t }, exempt: never})
	}
	for _, z := range norms.Zones() {
		rules = append(rules, moveRule{
			allow:  func(a, b *Tile, _, _ Pos, _ string) bool { return b.Zone != z || a.Zone == z },
			exempt: func(t *Tile, _ Pos) bool { return t.Zone == z }})
	}
	for _, d := range norms.Dirs() {
		rules = append(rules, moveRule{allow: func(_, b *Tile, _, _ Pos, dir string) bool { return b.Terrain != "path" || dir != d }, exempt: never})
	}
	for k := 1; k < len(f.Agents); k++ {
		s := f.Agents[k].Pos
		rules = append(rules, moveRule{
			allow:  func(_, _ *Tile, _, q Pos, _ string) bool { return chebyshev(q, s) > 1 },
			exempt: func(_ *Tile, p Pos) bool { return chebyshev(p, s) <= 1 }, member: k})
	}
	return rules
}

// passable reports whether, under every restriction of moveRules, the
// errand's places are reachable from the newcomer's start — the objects,
// and a tile on or next to each member's station (to hand a gift), but
// the member the restriction keeps away from — and every tile reachable
// from it leads back to it.
func passable(f *Frame) bool {
	start := f.Agents[0].Pos
	var keys []Pos
	for i := range f.Tiles {
		if f.Tiles[i].Object != "" {
			keys = append(keys, Pos{i % f.Width, i / f.Width})
		}
	}
	for _, mr := range moveRules(f) {
		fwd := reach(f, start, mr.allow, false)
		back := reach(f, start, mr.allow, true)
		for i := range fwd {
			if fwd[i] && !back[i] {
				return false
			}
		}
		for _, k := range keys {
			if !fwd[k.Y*f.Width+k.X] && !mr.exempt(f.At(k), k) {
				return false
			}
		}
		for m := 1; m < len(f.Agents); m++ {
			if m != mr.member && !approachable(f, fwd, f.Agents[m].Pos) {
				return false
			}
		}
	}
	return true
}

// approachable reports whether a tile on or next to p is in reached.
func approachable(f *Frame, reached []bool, p Pos) bool {
	for y := p.Y - 1; y <= p.Y+1; y++ {
		for x := p.X - 1; x <= p.X+1; x++ {
			if q := (Pos{x, y}); f.In(q) && reached[y*f.Width+x] {
				return true
			}
		}
	}
	return false
}

// moveDirs are the moves in neighbours' order.
var moveDirs = [4]string{North, East, South, West}

// reach returns the tiles reachable from p by allowed moves onto walkable
// tiles (or, with backward, the tiles from which p is reachable).
func reach(f *Frame, p Pos, allow func(a, b *Tile, p, q Pos, dir string) bool, backward bool) []bool {
	seen := make([]bool, len(f.Tiles))
	seen[p.Y*f.Width+p.X] = true
	stack := []Pos{p}
	for len(stack) > 0 {
		cur := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for k, q := range neighbours(cur) {
			if !f.In(q) || seen[q.Y*f.Width+q.X] || !f.At(q).Walkable() {
				continue
			}
			ok := false
			if backward {
				// A move from q onto cur, the opposite direction.
				ok = allow(f.At(q), f.At(cur), q, cur, moveDirs[(k+2)%4])
			} else {
				ok = allow(f.At(cur), f.At(q), cur, q, moveDirs[k])
			}
			if ok {
				seen[q.Y*f.Width+q.X] = true
				stack = append(stack, q)
			}
		}
	}
	return seen
}
