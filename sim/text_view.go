package sim

import "strconv"

// appendView renders the view of the present (View).
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
	b = appendLegend(b, n, len(f.Agents)-1)
	b = appendObjects(b, f)
	b = append(b, "\nZones:"...)
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
		b = append(b, " ("...)
		b = appendTile(b, f.At(a.Pos))
		b = append(b, "), carrying "...)
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

// appendObjects appends every object with its tile, row by row (what the
// map's letter hides: the terrain under it, and whether a source is ready
// when someone stands on it): " red source 4,2 (path, ready); well 5,3
// (floor); basket 7,12 (floor, market)."
func appendObjects(b []byte, f *Frame) []byte {
	sep := ""
	for i := range f.Tiles {
		t := &f.Tiles[i]
		if t.Object == "" {
			continue
		}
		b = append(b, sep...)
		b = append(b, ' ')
		sep = ";"
		if t.ObjectColor != "" {
			b = append(b, t.ObjectColor...)
			b = append(b, ' ')
		}
		b = append(b, t.Object...)
		b = append(b, ' ')
		b = appendPos(b, Pos{i % f.Width, i / f.Width})
		b = append(b, " ("...)
		b = appendGround(b, t)
		if t.Object == "source" {
			if t.Stock > 0 {
				b = append(b, ", ready"...)
			} else {
				b = append(b, ", none ready"...)
			}
		}
		b = append(b, ')')
	}
	return append(b, '.')
}

// appendLegend appends the map's legend, with the world's names n and
// its count of members, and starts the objects line (appendObjects).
func appendLegend(b []byte, n *Names, members int) []byte {
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
	b = strconv.AppendInt(b, int64(members), 10)
	b = append(b, " members. Litter here is "...)
	b = appendArticle(b, n.Litter)
	b = append(b, ".\nObjects:"...)
	return b
}
