package guest

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/normgym/normgym/sim"
)

// Encoding an observation with encoding/json costs ~3 ms under wazero,
// nearly all of it in the frame's tiles (reflection is slow in Go's wasm
// code). marshalObservation writes the tiles by hand and everything else
// with encoding/json; tiles_test.go checks that the bytes are exactly
// encoding/json's, so a new sim.Tile field fails the test until it is
// added here.

// tilesNull is how encoding/json writes a nil Frame.Tiles. A string value
// cannot contain it: its quotes would be escaped.
var tilesNull = []byte(`"tiles":null`)

// marshalObservation is json.Marshal(v) for a response v that holds the
// observation o, with o's tiles encoded by hand.
func marshalObservation(v any, o *sim.Observation) ([]byte, error) {
	tiles := o.Frame.Tiles
	if tiles == nil {
		return json.Marshal(v)
	}
	o.Frame.Tiles = nil
	b, err := json.Marshal(v)
	o.Frame.Tiles = tiles
	if err != nil {
		return nil, err
	}
	i := bytes.Index(b, tilesNull)
	if i < 0 {
		return nil, errors.New("internal: the observation has no tiles key")
	}
	out := make([]byte, 0, len(b)+len(tiles)*48)
	out = append(out, b[:i+len(tilesNull)-len("null")]...)
	out = appendTiles(out, tiles)
	return append(out, b[i+len(tilesNull):]...), nil
}

// appendTiles appends tiles as encoding/json writes []sim.Tile.
func appendTiles(b []byte, tiles []sim.Tile) []byte {
	b = append(b, '[')
	for i, t := range tiles {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"terrain":`...)
		b = appendString(b, t.Terrain)
		b = appendField(b, `,"color":`, t.Color)
		b = appendField(b, `,"zone":`, t.Zone)
		b = appendField(b, `,"object":`, t.Object)
		b = appendField(b, `,"object_color":`, t.ObjectColor)
		if t.Stock != 0 {
			b = strconv.AppendInt(append(b, `,"stock":`...), int64(t.Stock), 10)
		}
		if t.Loose != 0 {
			b = strconv.AppendInt(append(b, `,"loose":`...), int64(t.Loose), 10)
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendField appends an omitempty string field.
func appendField(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	return appendString(append(b, key...), s)
}

// appendString appends s as encoding/json quotes it.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
