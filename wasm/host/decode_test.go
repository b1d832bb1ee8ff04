package host

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/normgym/normgym/sim/agents"
	"github.com/normgym/normgym/wasm/internal/guest"
	"github.com/normgym/normgym/wasm/wire"
)

// responses plays a few visits through the guest's exports natively and
// returns every reset, step (full and text-only) and observe response.
func responses(tb testing.TB) (out [][]byte) {
	tb.Helper()
	g := guest.New()
	for _, visit := range []string{"orchard/place.color=blue/observe/s17", "market/social.greet=elder/solo/s3",
		"park/none/control/s5", "orchard>harbor/order.bow=market/told/s3", "library/disposal.at=bin/peers+noisy/s8"} {
		// A response is valid until the next call: keep copies.
		reset := bytes.Clone(g.Reset([]byte(`{"visit":"` + visit + `"}`)))
		var r wire.ResetResponse
		if err := json.Unmarshal(reset, &r); err != nil {
			tb.Fatalf("%s: %v: %s", visit, err, reset)
		}
		out = append(out, reset)
		h := strconv.Itoa(r.Handle)
		p, _ := agents.New("greedy")
		obs := r.Observation
		for k := 0; !obs.Done; k++ {
			textOnly := ""
			if k%3 == 2 {
				textOnly = `,"text_only":true`
			}
			step := bytes.Clone(g.Step([]byte(`{"handle":` + h + `,"action":"` + p.Act(obs).String() + `"` + textOnly + `}`)))
			out = append(out, step)
			var s wire.StepResponse
			if err := json.Unmarshal(step, &s); err != nil {
				tb.Fatalf("%s: %v: %s", visit, err, step)
			}
			if s.Observation == nil {
				observe := bytes.Clone(g.Observe([]byte(`{"handle":` + h + `}`)))
				out = append(out, observe)
				var o wire.ObserveResponse
				if err := json.Unmarshal(observe, &o); err != nil {
					tb.Fatal(err)
				}
				s.Observation = o.Observation
			}
			obs = s.Observation
		}
	}
	return out
}

// decodeBoth decodes b into a fresh value of each response type both
// ways, the fast one with memo (which may be nil).
func decodeBoth(b []byte, memo *tileMemo) (kind string, fast, slow any, fastOK bool, slowErr error) {
	for _, mk := range []func() any{
		func() any { return new(wire.StepResponse) },
		func() any { return new(wire.ResetResponse) },
		func() any { return new(wire.ObserveResponse) },
	} {
		fast, slow = mk(), mk()
		if fastOK = decodeFast(b, fast, memo); fastOK {
			return fmt.Sprintf("%T", fast), fast, slow, true, json.Unmarshal(b, slow)
		}
	}
	return "", nil, nil, false, nil
}

// TestDecodeFast: every response the module writes is read by the fast
// reader, to exactly what encoding/json gives, with a visit's tile memo
// and without.
func TestDecodeFast(t *testing.T) {
	memo := new(tileMemo)
	for k, b := range responses(t) {
		if k%2 == 0 {
			memo = nil
		} else if memo == nil {
			memo = new(tileMemo)
		}
		kind, fast, slow, ok, err := decodeBoth(b, memo)
		if !ok {
			t.Fatalf("response %d: the fast reader gave up on %.200s", k, b)
		}
		if err != nil {
			t.Fatalf("response %d (%s): encoding/json fails: %v", k, kind, err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("response %d (%s): the fast reader gave\n%+v\nencoding/json\n%+v", k, kind, fast, slow)
		}
	}
	// What it does not expect, encoding/json decodes.
	for _, b := range []string{`{"observation": null,"text":"","events":null,"terminated":false,"truncated":false,"day_over":false,"day":1,"step":2,"over":false}`,
		`{"text":"x","observation":null}`, `{"observation":null,"text":"caf\u00e9 \ud83d\ude00"}`} {
		var s wire.StepResponse
		if decodeFast([]byte(b), &s, nil) {
			t.Errorf("the fast reader took %s", b)
		}
	}
}

// FuzzDecodeFast: whatever the fast reader accepts, encoding/json reads
// to the same value.
func FuzzDecodeFast(f *testing.F) {
	rs := responses(f)
	for k := 0; k < len(rs); k += 40 {
		f.Add(rs[k])
	}
	f.Add([]byte(`{"observation":null,"text":"a\"\\\/\b\f\n\r\t\u003c\u2028 é","events":[],"terminated":true,"truncated":false,"day_over":true,"day":-0,"step":123456789012345678,"over":true}`))
	f.Add([]byte(`{"handle":3,"observation":null,"text":"\u00e9"}`))
	// A memo filled by real responses, so that fuzzed tiles meet it.
	memo := new(tileMemo)
	for _, b := range rs[:40] {
		decodeFast(b, new(wire.StepResponse), memo)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m := &tileMemo{raw: slices.Clone(memo.raw), tiles: slices.Clone(memo.tiles)}
		kind, fast, slow, ok, err := decodeBoth(b, m)
		if !ok {
			return
		}
		if err != nil {
			t.Fatalf("the fast reader read %q as %s, but encoding/json fails: %v", b, kind, err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%q: the fast reader gave\n%+v\nencoding/json\n%+v", b, fast, slow)
		}
	})
}

// BenchmarkDecode decodes the module's step responses both ways.
func BenchmarkDecode(b *testing.B) {
	var steps [][]byte
	for _, r := range responses(b) {
		var s wire.StepResponse
		if decodeFast(r, &s, nil) && s.Observation != nil {
			steps = append(steps, r)
		}
	}
	b.Run("fast", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			var s wire.StepResponse
			if !decodeFast(steps[i%len(steps)], &s, nil) {
				b.Fatal("gave up")
			}
		}
	})
	b.Run("fast-memo", func(b *testing.B) {
		memo := new(tileMemo)
		for i := 0; b.Loop(); i++ {
			var s wire.StepResponse
			if !decodeFast(steps[i%len(steps)], &s, memo) {
				b.Fatal("gave up")
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			var s wire.StepResponse
			if err := json.Unmarshal(steps[i%len(steps)], &s); err != nil {
				b.Fatal(err)
			}
		}
	})
}
