package sim

import "unsafe"

// Pos is a tile position: X grows east, Y grows south.
type Pos struct {
	X int `json:"x"`
	Y int `json:"y"`
}

// Tile is one grid cell. Colour, zone and object are empty when absent.
type Tile struct {
	Terrain     string `json:"terrain"`
	Color       string `json:"color,omitempty"`
	Zone        string `json:"zone,omitempty"`
	Object      string `json:"object,omitempty"`
	ObjectColor string `json:"object_color,omitempty"`
	// Stock is how many items an object holds: goods ready on a source,
	// goods delivered into a basket.
	Stock int `json:"stock,omitempty"`
	// Loose is how many items lie on the ground here.
	Loose int `json:"loose,omitempty"`
}

// Walkable reports whether agents can stand on the tile.
func (t Tile) Walkable() bool { return t.Terrain != "water" && t.Terrain != "wall" }

// Zone is a named rectangle of tiles, Min and Max inclusive.
type Zone struct {
	Name string `json:"name"`
	Min  Pos    `json:"min"`
	Max  Pos    `json:"max"`
}

// Agent is a community member or the newcomer, as everyone can see it.
type Agent struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Role is the member's role, or "newcomer".
	Role string `json:"role"`
	Hat  string `json:"hat,omitempty"`
	Pos  Pos    `json:"pos"`
	// Goods and Litter count what the agent carries.
	Goods  int `json:"goods"`
	Litter int `json:"litter"`
	// Delivered counts goods this agent put into a basket today.
	Delivered int `json:"delivered"`
	// Received counts goods this member was given today.
	Received   int    `json:"received,omitempty"`
	LastAction string `json:"last_action,omitempty"`
	// Failed reports that LastAction was impossible and did nothing.
	Failed bool `json:"failed,omitempty"`
}

// Carrying is the number of items the agent holds.
func (a Agent) Carrying() int { return a.Goods + a.Litter }

// NewcomerID is the id of the evaluated agent.
const NewcomerID = "newcomer"

// Frame is the visible state of one day: everything an observer sees.
// It holds no hidden state, so policies can replay transitions on it.
type Frame struct {
	Width  int     `json:"width"`
	Height int     `json:"height"`
	Tiles  []Tile  `json:"tiles"`
	Zones  []Zone  `json:"zones"`
	Agents []Agent `json:"agents"`
	Step   int     `json:"step"`
	Phase  string  `json:"phase"`
}

// In reports whether p lies on the grid.
func (f *Frame) In(p Pos) bool { return p.X >= 0 && p.Y >= 0 && p.X < f.Width && p.Y < f.Height }

// At returns the tile at p, which must lie on the grid.
func (f *Frame) At(p Pos) *Tile { return &f.Tiles[p.Y*f.Width+p.X] }

// AgentIndex returns the index of the agent with id, or -1.
func (f *Frame) AgentIndex(id string) int {
	for i := range f.Agents {
		if f.Agents[i].ID == id {
			return i
		}
	}
	return -1
}

// Clone returns a deep copy.
func (f *Frame) Clone() *Frame {
	g := *f
	g.Tiles = append([]Tile(nil), f.Tiles...)
	g.Zones = append([]Zone(nil), f.Zones...)
	g.Agents = append([]Agent(nil), f.Agents...)
	return &g
}

// CopyInto makes dst a deep copy of f, as Clone would, but in dst's own
// memory where it has room: for callers that keep a frame every step.
// It writes only the tiles that differ, and most do not from one step to
// the next: under WebAssembly, where the collector marks while the
// program runs, every pointer written can cost a write barrier.
func (f *Frame) CopyInto(dst *Frame) {
	tiles, zones, agents := dst.Tiles, dst.Zones, dst.Agents
	*dst = *f
	dst.Tiles = copyTiles(tiles, f.Tiles)
	dst.Zones = copySlice(zones, f.Zones)
	dst.Agents = copySlice(agents, f.Agents)
}

// copySlice returns a copy of src in dst's memory (nil for an empty src,
// as Clone copies).
func copySlice[E any](dst, src []E) []E {
	if len(src) == 0 {
		return nil
	}
	return append(dst[:0], src...)
}

// copyTiles is copySlice for tiles, writing only those not already equal.
func copyTiles(dst, src []Tile) []Tile {
	if len(dst) != len(src) {
		return copySlice(dst, src)
	}
	for i := range src {
		if d, s := &dst[i], &src[i]; !sameTile(d, s) {
			*d = *s
		}
	}
	return dst
}

// sameTile reports whether a and b certainly hold the same tile, telling
// equal strings by their memory, not their bytes (a copy shares its
// strings with the original): a false answer for equal tiles only costs a
// write.
func sameTile(a, b *Tile) bool {
	return a.Stock == b.Stock && a.Loose == b.Loose && sameString(a.Terrain, b.Terrain) &&
		sameString(a.Color, b.Color) && sameString(a.Zone, b.Zone) && sameString(a.Object, b.Object) &&
		sameString(a.ObjectColor, b.ObjectColor)
}

// sameString reports whether a and b are the same bytes in memory. It
// only compares addresses (unsafe.StringData reads nothing): comparing
// the bytes costs a call per string under WebAssembly, and this check runs
// for every tile every step.
func sameString(a, b string) bool {
	return len(a) == len(b) && unsafe.StringData(a) == unsafe.StringData(b)
}

func adjacent(a, b Pos) bool {
	dx, dy := a.X-b.X, a.Y-b.Y
	return dx >= -1 && dx <= 1 && dy >= -1 && dy <= 1 && (dx != 0 || dy != 0)
}

func chebyshev(a, b Pos) int {
	dx, dy := a.X-b.X, a.Y-b.Y
	if dx < 0 {
		dx = -dx
	}
	if dy < 0 {
		dy = -dy
	}
	if dx > dy {
		return dx
	}
	return dy
}

// Transition describes one agent's action and its effect: the facts norms
// are judged on. It is computed from the frame before the action.
type Transition struct {
	Agent  int    // index in Frame.Agents
	Action Action // what was attempted
	// OK is false for an impossible action, which changes nothing; Reason says why.
	OK     bool
	Reason string
	From   Pos
	To     Pos // equals From unless the agent moved
	Moved  bool
	// FromTile and ToTile are the tiles left and entered (equal when not moving).
	FromTile, ToTile Tile
	// PickedColor is the colour of the object taken from.
	PickedColor string
	// Dropped is what was put down: "goods" or "litter"; IntoBasket when
	// goods went into a basket (a basket takes nothing else).
	Dropped    string
	IntoBasket bool
	// UsedObject is the kind of object used.
	UsedObject string
	// CarryBefore and CarryAfter count the items the agent holds.
	CarryBefore, CarryAfter int
	Phase                   string
	// Receiver is the agent index given to, or -1; ReceiverRole and
	// ReceiverHat are that agent's role and hat.
	Receiver                  int
	ReceiverRole, ReceiverHat string
}

// Preview computes the transition of agent i doing a as if it stood at
// from, without changing the frame. Other agents are where the frame says.
func (f *Frame) Preview(i int, from Pos, a Action) Transition {
	ag := &f.Agents[i]
	carry := ag.Goods + ag.Litter // ag.Carrying(), without copying the agent
	tr := Transition{Agent: i, Action: a, From: from, To: from, Phase: f.Phase, Receiver: -1,
		CarryBefore: carry, CarryAfter: carry}
	t := f.At(from)
	tr.FromTile = *t
	switch a.Verb {
	case North, South, East, West:
		dx, dy := delta(a.Verb)
		to := Pos{from.X + dx, from.Y + dy}
		if !f.In(to) {
			tr.Reason = "the edge of the map is that way"
			tr.ToTile = *t
			return tr
		}
		nt := f.At(to)
		if !walkable(nt) {
			tr.Reason = cannotWalkOnto(nt.Terrain)
			tr.ToTile = *t
			return tr
		}
		tr.OK, tr.Moved, tr.To, tr.ToTile = true, true, to, *nt
		return tr
	case Wait, Bow:
		tr.OK = true
	case Pick:
		switch {
		case t.Object != "source":
			tr.Reason = "there is nothing to pick here"
		case t.Stock == 0:
			tr.Reason = "there is nothing left to pick here yet"
		default:
			tr.OK, tr.PickedColor = true, t.ObjectColor
			tr.CarryAfter++
		}
	case Drop:
		switch {
		case carry == 0:
			tr.Reason = "you are not carrying anything"
		case t.Object == "basket" && ag.Goods > 0:
			// A basket takes goods only; litter dropped there stays on the ground.
			tr.OK, tr.IntoBasket = true, true
			tr.Dropped = "goods"
			tr.CarryAfter--
		default:
			tr.OK = true
			tr.Dropped = "litter"
			if ag.Litter == 0 {
				tr.Dropped = "goods"
			}
			tr.CarryAfter--
		}
	case Use:
		switch t.Object {
		case "bell", "well", "bin":
			tr.OK, tr.UsedObject = true, t.Object
		case "":
			tr.Reason = "there is nothing to use here"
		default:
			tr.Reason = nothingHappens(t.Object)
		}
	case Give:
		j := f.AgentIndex(a.Target)
		switch {
		case j < 0:
			tr.Reason = "there is nobody called " + a.Target
		case j == i:
			tr.Reason = "you cannot give to yourself"
		case !adjacent(from, f.Agents[j].Pos) && from != f.Agents[j].Pos:
			tr.Reason = f.Agents[j].Name + " is not next to you"
		case ag.Goods == 0:
			tr.Reason = "you have nothing to give"
		default:
			tr.OK, tr.Receiver = true, j
			tr.ReceiverRole, tr.ReceiverHat = f.Agents[j].Role, f.Agents[j].Hat
			tr.CarryAfter--
		}
	default:
		tr.Reason = "unknown action " + a.Verb
	}
	tr.ToTile = *t
	return tr
}

// walkable is Tile.Walkable without copying the tile.
func walkable(t *Tile) bool { return t.Terrain != "water" && t.Terrain != "wall" }

// setTile sets *dst to *src field by field: under WebAssembly a struct
// copy of more than 16 bytes is a call (memory.copy), and the planner
// sets tiles in its inner loop.
func setTile(dst, src *Tile) {
	dst.Terrain, dst.Color, dst.Zone = src.Terrain, src.Color, src.Zone
	dst.Object, dst.ObjectColor = src.Object, src.ObjectColor
	dst.Stock, dst.Loose = src.Stock, src.Loose
}

// cannotWalkOnto is the reason a move onto terrain is impossible; the
// terrains no one walks on have theirs written out.
func cannotWalkOnto(terrain string) string {
	switch terrain {
	case "water":
		return "you cannot walk onto water"
	case "wall":
		return "you cannot walk onto wall"
	}
	return "you cannot walk onto " + terrain
}

// nothingHappens is the reason using object does nothing; the objects
// that cannot be used have theirs written out.
func nothingHappens(object string) string {
	switch object {
	case "source":
		return "nothing happens when you use the source"
	case "basket":
		return "nothing happens when you use the basket"
	}
	return "nothing happens when you use the " + object
}

// Apply carries out a transition computed by Preview on the agent's real
// position, updating the frame.
func (f *Frame) Apply(tr Transition) {
	ag := &f.Agents[tr.Agent]
	ag.LastAction = tr.Action.String()
	ag.Failed = !tr.OK
	if !tr.OK {
		return
	}
	switch tr.Action.Verb {
	case North, South, East, West:
		ag.Pos = tr.To
	case Pick:
		f.At(tr.From).Stock--
		ag.Goods++
	case Drop:
		if tr.Dropped == "goods" {
			ag.Goods--
		} else {
			ag.Litter--
		}
		if tr.IntoBasket {
			f.At(tr.From).Stock++
			if tr.Dropped == "goods" {
				ag.Delivered++
			}
		} else {
			f.At(tr.From).Loose++
		}
	case Give:
		// The member keeps the gift for themselves: it is not carried.
		ag.Goods--
		f.Agents[tr.Receiver].Received++
	}
}

// Do previews and applies agent i's action from where it stands.
func (f *Frame) Do(i int, a Action) Transition {
	tr := f.Preview(i, f.Agents[i].Pos, a)
	f.Apply(tr)
	return tr
}
