package guest

import (
	"encoding/binary"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/wasm/wire"
)

// The responses that carry an observation (step, reset, observe) are
// written by hand: under wazero encoding/json took most of a step, nearly
// all of it reflection, which is slow in Go's wasm code. The bytes are
// exactly encoding/json's: encode_test.go compares them over whole visits
// and odd strings, and checks that every field of the types involved is
// written, so a field added to one of them fails the test until it is
// added here.

// appendStepResponse appends r as encoding/json writes it, with the
// tiles' encodings kept in tc (nil for none).
func appendStepResponse(b []byte, r *wire.StepResponse, tc *visitCache) []byte {
	b = append(b, `{"observation":`...)
	b = appendObservation(b, r.Observation, tc)
	b = tc.appendText(append(b, `,"text":`...), r.Text)
	b = appendEvents(append(b, `,"events":`...), r.Events)
	b = appendBool(append(b, `,"terminated":`...), r.Terminated)
	b = appendBool(append(b, `,"truncated":`...), r.Truncated)
	b = appendBool(append(b, `,"day_over":`...), r.DayOver)
	b = appendInt(append(b, `,"day":`...), r.Day)
	b = appendInt(append(b, `,"step":`...), r.Step)
	b = appendBool(append(b, `,"over":`...), r.Over)
	return append(b, '}')
}

// appendResetResponse appends r as encoding/json writes it.
func appendResetResponse(b []byte, r *wire.ResetResponse, tc *visitCache) []byte {
	b = appendInt(append(b, `{"handle":`...), r.Handle)
	b = appendObservation(append(b, `,"observation":`...), r.Observation, tc)
	b = tc.appendText(append(b, `,"text":`...), r.Text)
	return append(b, '}')
}

// appendObserveResponse appends r as encoding/json writes it.
func appendObserveResponse(b []byte, r *wire.ObserveResponse, tc *visitCache) []byte {
	b = appendObservation(append(b, `{"observation":`...), r.Observation, tc)
	b = tc.appendText(append(b, `,"text":`...), r.Text)
	return append(b, '}')
}

// appendObservation appends o as encoding/json writes a *sim.Observation.
func appendObservation(b []byte, o *sim.Observation, tc *visitCache) []byte {
	if o == nil {
		return append(b, "null"...)
	}
	b = appendString(append(b, `{"world":`...), o.World)
	b = appendInt(append(b, `,"day":`...), o.Day)
	b = appendInt(append(b, `,"days":`...), o.Days)
	b = appendBool(append(b, `,"practice":`...), o.Practice)
	b = appendInt(append(b, `,"step_limit":`...), o.StepLimit)
	t := &o.Task
	b = appendString(append(b, `,"task":{"text":`...), t.Text)
	b = appendInt(append(b, `,"goods":`...), t.Goods)
	b = appendInt(append(b, `,"gifts":`...), t.Gifts)
	b = appendBool(append(b, `,"litter":`...), t.Litter)
	b = append(b, '}')
	b = appendStringField(b, `,"told":`, o.Told)
	n := &o.Names
	b = appendString(append(b, `,"names":{"source":`...), n.Source)
	b = appendString(append(b, `,"goods":`...), n.Goods)
	b = appendString(append(b, `,"basket":`...), n.Basket)
	b = appendString(append(b, `,"bell":`...), n.Bell)
	b = appendString(append(b, `,"well":`...), n.Well)
	b = appendString(append(b, `,"bin":`...), n.Bin)
	b = appendString(append(b, `,"litter":`...), n.Litter)
	b = append(b, '}')
	b = appendInt(append(b, `,"sanction_radius":`...), o.SanctionRadius)
	b = appendStringField(b, `,"acted_in":`, o.ActedIn)
	b = appendStringField(b, `,"day_end":`, o.DayEnd)
	b = appendFrame(append(b, `,"frame":`...), &o.Frame, tc)
	b = appendEvents(append(b, `,"events":`...), o.Events)
	b = appendBool(append(b, `,"done":`...), o.Done)
	return append(b, '}')
}

// appendFrame appends f as encoding/json writes a sim.Frame.
func appendFrame(b []byte, f *sim.Frame, tc *visitCache) []byte {
	b = appendInt(append(b, `{"width":`...), f.Width)
	b = appendInt(append(b, `,"height":`...), f.Height)
	b = tc.appendTiles(append(b, `,"tiles":`...), f.Tiles)
	b = appendList(append(b, `,"zones":`...), f.Zones, appendZone)
	b = appendList(append(b, `,"agents":`...), f.Agents, appendAgent)
	b = appendInt(append(b, `,"step":`...), f.Step)
	b = appendString(append(b, `,"phase":`...), f.Phase)
	return append(b, '}')
}

// visitCache keeps each tile's encoding from a visit's last response, and
// the whole array's: from one step to the next few tiles change, and
// encoding all of them again was most of the work. It keeps the encoding
// of each line of the last text too: most lines (the legend, the
// actions, most rows of the map) stay the same from one step to the
// next, and escaping a text byte by byte is slow under WebAssembly. The
// nil cache keeps nothing.
type visitCache struct {
	tiles []sim.Tile // as last encoded
	enc   [][]byte   // tiles[i]'s encoding; nil when not yet made
	all   []byte     // the array's encoding, when it is that of tiles
	lines []string   // the last text's lines
	quote [][]byte   // lines[i] quoted, without the quotes
}

// appendText appends s as appendString does, quoting each line (a
// newline quotes as \n whatever surrounds it, and splitting at a newline
// never splits a UTF-8 sequence) or reusing the quote of the same line
// of the last text.
func (tc *visitCache) appendText(b []byte, s string) []byte {
	if tc == nil {
		return appendString(b, s)
	}
	b = append(b, '"')
	k := 0
	for ; ; k++ {
		line, rest, more := strings.Cut(s, "\n")
		if k == len(tc.lines) {
			tc.lines, tc.quote = append(tc.lines, ""), append(tc.quote, nil)
		}
		if tc.quote[k] == nil || tc.lines[k] != line {
			tc.lines[k], tc.quote[k] = line, appendQuoted(tc.quote[k][:0], line)
		}
		b = append(b, tc.quote[k]...)
		if !more {
			break
		}
		b = append(b, '\\', 'n')
		s = rest
	}
	clear(tc.lines[k+1:]) // keep no old text alive
	tc.lines, tc.quote = tc.lines[:k+1], tc.quote[:k+1]
	return append(b, '"')
}

// appendTiles appends tiles as encoding/json writes []sim.Tile.
func (tc *visitCache) appendTiles(b []byte, tiles []sim.Tile) []byte {
	if tiles == nil {
		return append(b, "null"...)
	}
	if tc == nil {
		return appendList(b, tiles, appendTile)
	}
	if len(tc.tiles) != len(tiles) {
		tc.tiles, tc.enc, tc.all = make([]sim.Tile, len(tiles)), make([][]byte, len(tiles)), nil
	}
	for i := range tiles {
		if t := &tiles[i]; tc.enc[i] == nil || !sameTile(&tc.tiles[i], t) {
			tc.enc[i] = appendTile(tc.enc[i][:0], t)
			tc.tiles[i] = *t
			tc.all = tc.all[:0]
		}
	}
	if len(tc.all) == 0 {
		tc.all = append(tc.all, '[')
		for i := range tc.enc {
			if i > 0 {
				tc.all = append(tc.all, ',')
			}
			tc.all = append(tc.all, tc.enc[i]...)
		}
		tc.all = append(tc.all, ']')
	}
	return append(b, tc.all...)
}

// appendTile appends t as encoding/json writes a sim.Tile.
func appendTile(b []byte, t *sim.Tile) []byte {
	b = appendString(append(b, `{"terrain":`...), t.Terrain)
	b = appendStringField(b, `,"color":`, t.Color)
	b = appendStringField(b, `,"zone":`, t.Zone)
	b = appendStringField(b, `,"object":`, t.Object)
	b = appendStringField(b, `,"object_color":`, t.ObjectColor)
	b = appendIntField(b, `,"stock":`, t.Stock)
	b = appendIntField(b, `,"loose":`, t.Loose)
	return append(b, '}')
}

// sameTile reports whether a and b certainly hold the same tile, telling
// equal strings by their memory, not their bytes: an observation written
// over by sim.Visit.StepInto keeps the strings of the tiles that did not
// change. A false answer for equal tiles only costs encoding one again.
func sameTile(a, b *sim.Tile) bool {
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

// appendAgent appends a as encoding/json writes a sim.Agent.
func appendAgent(b []byte, a *sim.Agent) []byte {
	b = appendString(append(b, `{"id":`...), a.ID)
	b = appendString(append(b, `,"name":`...), a.Name)
	b = appendString(append(b, `,"role":`...), a.Role)
	b = appendStringField(b, `,"hat":`, a.Hat)
	b = appendPos(append(b, `,"pos":`...), a.Pos)
	b = appendInt(append(b, `,"goods":`...), a.Goods)
	b = appendInt(append(b, `,"litter":`...), a.Litter)
	b = appendInt(append(b, `,"delivered":`...), a.Delivered)
	b = appendIntField(b, `,"received":`, a.Received)
	b = appendStringField(b, `,"last_action":`, a.LastAction)
	if a.Failed { // omitempty
		b = append(b, `,"failed":true`...)
	}
	return append(b, '}')
}

// appendEvents appends evs as encoding/json writes []sim.Event.
func appendEvents(b []byte, evs []sim.Event) []byte { return appendList(b, evs, appendEvent) }

// appendEvent appends ev as encoding/json writes a sim.Event.
func appendEvent(b []byte, ev *sim.Event) []byte {
	b = appendInt(append(b, `{"day":`...), ev.Day)
	b = appendInt(append(b, `,"step":`...), ev.Step)
	b = appendString(append(b, `,"kind":`...), ev.Kind)
	b = appendStringField(b, `,"by":`, ev.By)
	b = appendStringField(b, `,"to":`, ev.To)
	b = appendString(append(b, `,"text":`...), ev.Text)
	b = appendStringField(b, `,"act":`, ev.Act)
	if ev.At != (sim.Pos{}) { // omitzero
		b = appendPos(append(b, `,"at":`...), ev.At)
	}
	b = appendStringField(b, `,"did":`, ev.Did)
	return append(b, '}')
}

// appendZone appends z as encoding/json writes a sim.Zone.
func appendZone(b []byte, z *sim.Zone) []byte {
	b = appendString(append(b, `{"name":`...), z.Name)
	b = appendPos(append(b, `,"min":`...), z.Min)
	b = appendPos(append(b, `,"max":`...), z.Max)
	return append(b, '}')
}

// appendList appends list as encoding/json writes a slice: null when
// nil, else each element by elem between brackets.
func appendList[E any](b []byte, list []E, elem func([]byte, *E) []byte) []byte {
	if list == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = elem(b, &list[i])
	}
	return append(b, ']')
}

func appendPos(b []byte, p sim.Pos) []byte {
	b = appendInt(append(b, `{"x":`...), p.X)
	b = appendInt(append(b, `,"y":`...), p.Y)
	return append(b, '}')
}

func appendInt(b []byte, n int) []byte { return strconv.AppendInt(b, int64(n), 10) }

func appendBool(b []byte, v bool) []byte { return strconv.AppendBool(b, v) }

// appendStringField appends key and s unless s is empty (omitempty).
func appendStringField(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	return appendString(append(b, key...), s)
}

// appendIntField appends key and n unless n is 0 (omitempty).
func appendIntField(b []byte, key string, n int) []byte {
	if n == 0 {
		return b
	}
	return appendInt(append(b, key...), n)
}

// jsonSafe tells the ASCII bytes encoding/json writes as they are: all
// but the control bytes, '"', '\\' and the HTML-sensitive '<', '>' and '&'.
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// jsonSafeWord reports whether all eight bytes of w are ASCII that
// encoding/json writes as they are (jsonSafe), without a branch, with
// the word-at-a-time tricks of "Bit Twiddling Hacks": once no byte has
// its high bit set, (v - 0x01…01) &^ v has some high bit set exactly
// when some byte of v is zero, and v - 0x20…20 exactly when some byte
// is below 0x20.
func jsonSafeWord(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	zero := func(v uint64) uint64 { return (v - ones) &^ v }
	bad := w | (w - ones*0x20) // not ASCII, or a control byte
	bad |= zero(w^(ones*'"')) | zero(w^(ones*'\\')) | zero(w^(ones*'<')) | zero(w^(ones*'>')) | zero(w^(ones*'&'))
	return bad&highs == 0
}

// appendString appends s quoted as encoding/json quotes it (HTML-safe:
// <, > and & escaped, U+2028 and U+2029 escaped, invalid UTF-8 replaced).
func appendString(b []byte, s string) []byte {
	return append(appendQuoted(append(b, '"'), s), '"')
}

// appendQuoted is appendString without the quotes around.
func appendQuoted(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	start := 0
	for i := 0; i < len(s); {
		// Eight bytes at a time while none needs escaping: an
		// observation's text is thousands of plain bytes, and a byte a
		// loop turn is slow under WebAssembly.
		if i+8 <= len(s) && jsonSafeWord(binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))) {
			i += 8
			continue
		}
		if c := s[i]; c < utf8.RuneSelf {
			if jsonSafe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(b, s[start:]...)
}
