package host

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/wasm/wire"
)

// The step, reset and observe responses carry an observation, and
// encoding/json took longer to decode one than the native core takes for
// the step itself. The module writes them in one exact form (encoding/
// json's bytes, written by hand in the guest's encode.go); decodeFast
// reads that form directly. At anything it does not expect it gives up,
// and encoding/json decodes the response instead, so the result is always
// the one encoding/json gives (decode_test.go compares them, and fuzzes
// the reader).

// decode decodes a module response into resp.
func decode(out []byte, resp any) error {
	if m, ok := resp.(*memoized); ok {
		if decodeFast(out, m.resp, m.memo) {
			return nil
		}
		return json.Unmarshal(out, m.resp)
	}
	if decodeFast(out, resp, nil) {
		return nil
	}
	return json.Unmarshal(out, resp)
}

// memoized is a response to decode with a visit's tile memo.
type memoized struct {
	resp any
	memo *tileMemo
}

// tileMemo keeps, for one visit, each tile's bytes in the last response
// read and the tile read from them: from one step to the next most tiles
// come back byte for byte the same, and are not read again. A pair is
// right whatever the response, so the memo never needs clearing. Its
// user serialises access to it.
type tileMemo struct {
	raw   [][]byte
	tiles []sim.Tile
}

// decodeFast decodes out into resp (a zero value) if resp is a response
// it knows and out is in the form the module writes; else it reports
// false and leaves resp zero. memo may be nil.
func decodeFast(out []byte, resp any, memo *tileMemo) bool {
	r := &reader{b: out, memo: memo}
	switch v := resp.(type) {
	case *wire.StepResponse:
		var s wire.StepResponse
		r.lit(`{"observation":`)
		s.Observation = r.observation()
		r.lit(`,"text":`)
		s.Text = r.str()
		r.lit(`,"events":`)
		s.Events = r.events()
		r.lit(`,"terminated":`)
		s.Terminated = r.bool()
		r.lit(`,"truncated":`)
		s.Truncated = r.bool()
		r.lit(`,"day_over":`)
		s.DayOver = r.bool()
		r.lit(`,"day":`)
		s.Day = r.int()
		r.lit(`,"step":`)
		s.Step = r.int()
		r.lit(`,"over":`)
		s.Over = r.bool()
		r.lit(`}`)
		if r.done() {
			*v = s
			return true
		}
	case *wire.ResetResponse:
		var s wire.ResetResponse
		r.lit(`{"handle":`)
		s.Handle = r.int()
		r.lit(`,"observation":`)
		s.Observation = r.observation()
		r.lit(`,"text":`)
		s.Text = r.str()
		r.lit(`}`)
		if r.done() {
			*v = s
			return true
		}
	case *wire.ObserveResponse:
		var s wire.ObserveResponse
		r.lit(`{"observation":`)
		s.Observation = r.observation()
		r.lit(`,"text":`)
		s.Text = r.str()
		r.lit(`}`)
		if r.done() {
			*v = s
			return true
		}
	}
	return false
}

// reader reads JSON in the exact form the module writes. Once something
// does not match, ok is false and every later read gives a zero value.
type reader struct {
	b    []byte
	i    int
	bad  bool
	memo *tileMemo
}

// done reports whether everything matched and all input was read.
func (r *reader) done() bool { return !r.bad && r.i == len(r.b) }

// lit reads s exactly.
func (r *reader) lit(s string) {
	if r.bad || len(r.b)-r.i < len(s) || string(r.b[r.i:r.i+len(s)]) != s {
		r.bad = true
		return
	}
	r.i += len(s)
}

// opt reads s if it comes next and reports whether it did.
func (r *reader) opt(s string) bool {
	if r.bad || len(r.b)-r.i < len(s) || string(r.b[r.i:r.i+len(s)]) != s {
		return false
	}
	r.i += len(s)
	return true
}

// int reads an integer written without fraction or exponent.
func (r *reader) int() int {
	if r.bad {
		return 0
	}
	j := r.i
	if j < len(r.b) && r.b[j] == '-' {
		j++
	}
	k := j
	for k < len(r.b) && r.b[k] >= '0' && r.b[k] <= '9' {
		k++
	}
	// encoding/json writes no leading zeros; at most 18 digits fit.
	if k == j || k-j > 18 || (r.b[j] == '0' && k-j > 1) {
		r.bad = true
		return 0
	}
	n, err := strconv.Atoi(string(r.b[r.i:k]))
	if err != nil {
		r.bad = true
		return 0
	}
	r.i = k
	return n
}

func (r *reader) bool() bool {
	if r.opt("true") {
		return true
	}
	r.lit("false")
	return false
}

// str reads a string. It takes the escapes encoding/json writes (\" \\
// \n \r \t \b \f \/ and \uXXXX outside the surrogates) and valid UTF-8;
// anything else ends the fast read.
func (r *reader) str() string {
	if r.bad || r.i >= len(r.b) || r.b[r.i] != '"' {
		r.bad = true
		return ""
	}
	start := r.i + 1
	j := start
	for j < len(r.b) && r.b[j] != '"' && r.b[j] != '\\' && r.b[j] >= 0x20 && r.b[j] < utf8.RuneSelf {
		j++
	}
	if j < len(r.b) && r.b[j] == '"' { // plain ASCII: the common case
		r.i = j + 1
		return intern(r.b[start:j])
	}
	out := make([]byte, 0, j-start+256)
	for {
		// Copy the run up to the next quote, backslash or control byte.
		k := j
		for k < len(r.b) && r.b[k] != '"' && r.b[k] != '\\' && r.b[k] >= 0x20 {
			k++
		}
		out = append(out, r.b[start:k]...)
		if k >= len(r.b) || r.b[k] < 0x20 {
			r.bad = true
			return ""
		}
		if r.b[k] == '"' {
			r.i = k + 1
			if !utf8.Valid(out) {
				r.bad = true
				return ""
			}
			return string(out)
		}
		if k+1 >= len(r.b) {
			r.bad = true
			return ""
		}
		switch e := r.b[k+1]; e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'u':
			if k+6 > len(r.b) {
				r.bad = true
				return ""
			}
			n, err := strconv.ParseUint(string(r.b[k+2:k+6]), 16, 16)
			if err != nil || utf16.IsSurrogate(rune(n)) {
				r.bad = true
				return ""
			}
			out = utf8.AppendRune(out, rune(n))
			start, j = k+6, k+6
			continue
		default:
			r.bad = true
			return ""
		}
		start, j = k+2, k+2
	}
}

// known holds the words tiles, agents and events repeat, so that reading
// them allocates nothing.
var known = func() map[string]string {
	m := map[string]string{}
	for _, list := range [][]string{norms.Terrains(), norms.Colors(), norms.Zones(), norms.Objects(), norms.Phases(),
		norms.Roles(), sim.ActionVerbs(), {sim.NewcomerID, "sanction", "blocked", "day"}} {
		for _, w := range list {
			m[w] = w
		}
	}
	return m
}()

func intern(b []byte) string {
	if w, ok := known[string(b)]; ok {
		return w
	}
	return string(b)
}

// strField reads key and a string if key comes next (an omitempty field).
func (r *reader) strField(key string) string {
	if r.opt(key) {
		return r.str()
	}
	return ""
}

// intField reads key and an integer if key comes next (omitempty).
func (r *reader) intField(key string) int {
	if r.opt(key) {
		return r.int()
	}
	return 0
}

func (r *reader) pos() sim.Pos {
	var p sim.Pos
	r.lit(`{"x":`)
	p.X = r.int()
	r.lit(`,"y":`)
	p.Y = r.int()
	r.lit(`}`)
	return p
}

func (r *reader) observation() *sim.Observation {
	if r.opt("null") {
		return nil
	}
	o := new(sim.Observation)
	r.lit(`{"world":`)
	o.World = r.str()
	r.lit(`,"day":`)
	o.Day = r.int()
	r.lit(`,"days":`)
	o.Days = r.int()
	r.lit(`,"practice":`)
	o.Practice = r.bool()
	r.lit(`,"step_limit":`)
	o.StepLimit = r.int()
	r.lit(`,"task":{"text":`)
	o.Task.Text = r.str()
	r.lit(`,"goods":`)
	o.Task.Goods = r.int()
	r.lit(`,"gifts":`)
	o.Task.Gifts = r.int()
	r.lit(`,"litter":`)
	o.Task.Litter = r.bool()
	r.lit(`}`)
	o.Told = r.strField(`,"told":`)
	n := &o.Names
	r.lit(`,"names":{"source":`)
	n.Source = r.str()
	r.lit(`,"goods":`)
	n.Goods = r.str()
	r.lit(`,"basket":`)
	n.Basket = r.str()
	r.lit(`,"bell":`)
	n.Bell = r.str()
	r.lit(`,"well":`)
	n.Well = r.str()
	r.lit(`,"bin":`)
	n.Bin = r.str()
	r.lit(`,"litter":`)
	n.Litter = r.str()
	r.lit(`}`)
	r.lit(`,"sanction_radius":`)
	o.SanctionRadius = r.int()
	o.ActedIn = r.strField(`,"acted_in":`)
	o.DayEnd = r.strField(`,"day_end":`)
	r.lit(`,"frame":`)
	r.frame(&o.Frame)
	r.lit(`,"events":`)
	o.Events = r.events()
	r.lit(`,"done":`)
	o.Done = r.bool()
	r.lit(`}`)
	return o
}

func (r *reader) frame(f *sim.Frame) {
	r.lit(`{"width":`)
	f.Width = r.int()
	r.lit(`,"height":`)
	f.Height = r.int()
	r.lit(`,"tiles":`)
	f.Tiles = list(r, f.Width*f.Height, (*reader).tile)
	r.lit(`,"zones":`)
	f.Zones = list(r, 0, func(r *reader, _ int) (z sim.Zone) {
		r.lit(`{"name":`)
		z.Name = r.str()
		r.lit(`,"min":`)
		z.Min = r.pos()
		r.lit(`,"max":`)
		z.Max = r.pos()
		r.lit(`}`)
		return z
	})
	r.lit(`,"agents":`)
	f.Agents = list(r, 0, func(r *reader, _ int) (a sim.Agent) {
		r.lit(`{"id":`)
		a.ID = r.str()
		r.lit(`,"name":`)
		a.Name = r.str()
		r.lit(`,"role":`)
		a.Role = r.str()
		a.Hat = r.strField(`,"hat":`)
		r.lit(`,"pos":`)
		a.Pos = r.pos()
		r.lit(`,"goods":`)
		a.Goods = r.int()
		r.lit(`,"litter":`)
		a.Litter = r.int()
		r.lit(`,"delivered":`)
		a.Delivered = r.int()
		a.Received = r.intField(`,"received":`)
		a.LastAction = r.strField(`,"last_action":`)
		a.Failed = r.opt(`,"failed":true`)
		r.lit(`}`)
		return a
	})
	r.lit(`,"step":`)
	f.Step = r.int()
	r.lit(`,"phase":`)
	f.Phase = r.str()
	r.lit(`}`)
}

// tile reads the k-th tile, from the memo when its bytes are those the
// memo holds.
func (r *reader) tile(k int) (t sim.Tile) {
	m := r.memo
	if m != nil && k < len(m.raw) && m.raw[k] != nil && !r.bad && bytes.HasPrefix(r.b[r.i:], m.raw[k]) {
		r.i += len(m.raw[k])
		return m.tiles[k]
	}
	start := r.i
	r.lit(`{"terrain":`)
	t.Terrain = r.str()
	t.Color = r.strField(`,"color":`)
	t.Zone = r.strField(`,"zone":`)
	t.Object = r.strField(`,"object":`)
	t.ObjectColor = r.strField(`,"object_color":`)
	t.Stock = r.intField(`,"stock":`)
	t.Loose = r.intField(`,"loose":`)
	r.lit(`}`)
	if m != nil && !r.bad {
		for len(m.raw) <= k {
			m.raw, m.tiles = append(m.raw, nil), append(m.tiles, sim.Tile{})
		}
		m.raw[k], m.tiles[k] = append(m.raw[k][:0], r.b[start:r.i]...), t
	}
	return t
}

func (r *reader) events() []sim.Event {
	return list(r, 0, func(r *reader, _ int) (ev sim.Event) {
		r.lit(`{"day":`)
		ev.Day = r.int()
		r.lit(`,"step":`)
		ev.Step = r.int()
		r.lit(`,"kind":`)
		ev.Kind = r.str()
		ev.By = r.strField(`,"by":`)
		ev.To = r.strField(`,"to":`)
		r.lit(`,"text":`)
		ev.Text = r.str()
		ev.Act = r.strField(`,"act":`)
		if r.opt(`,"at":`) {
			ev.At = r.pos()
		}
		ev.Did = r.strField(`,"did":`)
		r.lit(`}`)
		return ev
	})
}

// list reads null (a nil slice) or an array of elements read by elem (a
// non-nil slice, empty for []), as encoding/json does; size is the
// number of elements expected, if known.
func list[E any](r *reader, size int, elem func(r *reader, k int) E) []E {
	if r.opt("null") {
		return nil
	}
	r.lit("[")
	out := make([]E, 0, max(0, min(size, 1<<12)))
	if r.opt("]") {
		return out
	}
	for !r.bad {
		out = append(out, elem(r, len(out)))
		if r.opt("]") {
			return out
		}
		r.lit(",")
	}
	return nil
}
