package guest

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
	"github.com/normgym/normgym/wasm/wire"
)

// TestEncodeMatchesJSON compares the hand-written encoding of step, reset
// and observe responses with encoding/json's on every step of a few
// visits (one per world and a transfer, with greedy and random).
func TestEncodeMatchesJSON(t *testing.T) {
	s, err := sim.LookupSuite("mini")
	if err != nil {
		t.Fatal(err)
	}
	visits := append(s.Visits[len(s.Visits)-5:], "orchard>harbor/order.bow=market/told/s3", "park/social.greet=elder/observe+delayed/s4")
	for _, visit := range visits {
		for _, name := range []string{"greedy", "random"} {
			p, err := agents.New(name)
			if err != nil {
				t.Fatal(err)
			}
			env, obs, err := sim.NewVisit(visit)
			if err != nil {
				t.Fatal(err)
			}
			// As the guest does: one observation written over (StepInto)
			// and one tile cache for the visit.
			tc := new(visitCache)
			checkEncoding(t, visit, 0, &wire.ResetResponse{Handle: 7, Observation: obs, Text: obs.Text()}, tc)
			for step := 1; !env.Over(); step++ {
				res, err := env.StepInto(p.Act(obs), obs)
				if err != nil {
					t.Fatal(err)
				}
				resp := wire.StepResponse{Observation: obs, Text: obs.Text(), Events: res.Events,
					Terminated: res.Terminated, Truncated: res.Truncated, DayOver: res.DayOver, Day: obs.Day, Step: obs.Frame.Step, Over: obs.Done}
				checkEncoding(t, visit, step, &resp, tc)
				if step%5 == 0 {
					checkEncoding(t, visit, step, &resp, nil)
				}
				resp.Observation = nil
				checkEncoding(t, visit, step, &resp, tc)
			}
			checkEncoding(t, visit, -1, &wire.ObserveResponse{Observation: obs, Text: obs.Text()}, tc)
		}
	}
}

// TestEncodeWritesEveryField fills every field of the encoded types (and
// leaves them all zero) and compares with encoding/json: a field added to
// sim.Observation or anything in it fails here until encode.go writes it.
func TestEncodeWritesEveryField(t *testing.T) {
	for _, odd := range []string{"x", "gr\"ass <b>&amp; caf\u00e9\n\t\\ \u2028\u2029 \x01 \xff\xfe end", ""} {
		var step wire.StepResponse
		fill(reflect.ValueOf(&step).Elem(), odd)
		checkEncoding(t, "filled "+odd, 0, &step, new(visitCache))
		var reset wire.ResetResponse
		fill(reflect.ValueOf(&reset).Elem(), odd)
		checkEncoding(t, "filled "+odd, 0, &reset, nil)
		var observe wire.ObserveResponse
		fill(reflect.ValueOf(&observe).Elem(), odd)
		checkEncoding(t, "filled "+odd, 0, &observe, nil)
	}
	checkEncoding(t, "zero", 0, &wire.StepResponse{}, nil)
	checkEncoding(t, "zero", 0, &wire.StepResponse{Observation: &sim.Observation{}}, new(visitCache))
	zeroTiles := &sim.Observation{Events: []sim.Event{{}}, Frame: sim.Frame{Tiles: []sim.Tile{{}, {}}, Zones: []sim.Zone{}, Agents: []sim.Agent{}}}
	checkEncoding(t, "zero", 0, &wire.ResetResponse{Observation: zeroTiles}, new(visitCache))
	checkEncoding(t, "zero", 0, &wire.ObserveResponse{}, nil)
}

// fill sets every field reachable from v to a value that is not zero (s
// for strings; "" leaves strings empty), with one element in each slice.
func fill(v reflect.Value, s string) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(s)
	case reflect.Int:
		v.SetInt(-12)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), s)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		fill(v.Index(1), s)
	case reflect.Struct:
		for i := range v.NumField() {
			fill(v.Field(i), s)
		}
	default:
		panic("fill: unexpected kind " + v.Kind().String())
	}
}

func checkEncoding(t *testing.T, visit string, step int, v any, tc *visitCache) {
	t.Helper()
	want, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var got []byte
	switch r := v.(type) {
	case *wire.StepResponse:
		got = appendStepResponse(nil, r, tc)
	case *wire.ResetResponse:
		got = appendResetResponse(nil, r, tc)
	case *wire.ObserveResponse:
		got = appendObserveResponse(nil, r, tc)
	default:
		t.Fatalf("no hand encoder for %T", v)
	}
	if !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Fatalf("%s step %d, %T: encodings differ at byte %d:\n got …%s\nwant …%s", visit, step, v, i, clip(got[i:]), clip(want[i:]))
	}
}

func clip(b []byte) []byte {
	if len(b) > 80 {
		return b[:80]
	}
	return b
}

// TestJSONSafeWord puts every byte at every place of a word of safe
// bytes: the word is safe exactly when the byte is (jsonSafe).
func TestJSONSafeWord(t *testing.T) {
	for _, fill := range []byte{'a', ' ', '~', '#'} {
		for c := 0; c < 256; c++ {
			for at := 0; at < 8; at++ {
				var b [8]byte
				for k := range b {
					b[k] = fill
				}
				b[at] = byte(c)
				want := c < utf8.RuneSelf && jsonSafe[c]
				if got := jsonSafeWord(binary.LittleEndian.Uint64(b[:])); got != want {
					t.Errorf("jsonSafeWord(%q) = %v, want %v", b[:], got, want)
				}
			}
		}
	}
}

// FuzzAppendString: strings are quoted exactly as encoding/json quotes them.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "\n", "a\nb", "\xc3\n\xa9", "plain", `"quoted" \ back`, "<b>&</b>", "\u2028\u2029", "caf\u00e9 · ☃", "\x00\x1f\x7f", "\xff", "a\xc3", "\xed\xa0\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("appendString(%q) = %s, want %s", s, got, want)
		}
		// appendText, its lines new, then partly the same, then fewer.
		tc := new(visitCache)
		for _, text := range []string{s, s + "\n\n" + s + "\n", "x\n" + s, s} {
			want, err := json.Marshal(text)
			if err != nil {
				t.Fatal(err)
			}
			if got := tc.appendText(nil, text); !bytes.Equal(got, want) {
				t.Errorf("appendText(%q) = %s, want %s", text, got, want)
			}
		}
	})
}
