package guest

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
	"github.com/normgym/normgym/wasm/internal/wire"
)

// TestMarshalObservation checks that the hand-written tile encoding gives
// exactly encoding/json's bytes on every step of a few visits (one per
// world, with odd strings added), so that a field added to sim.Tile fails
// here until tiles.go writes it.
func TestMarshalObservation(t *testing.T) {
	s, err := sim.LookupSuite("mini")
	if err != nil {
		t.Fatal(err)
	}
	for _, visit := range s.Visits[len(s.Visits)-5:] {
		p, err := agents.New("greedy")
		if err != nil {
			t.Fatal(err)
		}
		env, obs, err := sim.NewEnv(visit)
		if err != nil {
			t.Fatal(err)
		}
		for step := 0; ; step++ {
			check(t, visit, step, wire.StepResponse{Observation: obs, Text: obs.Text()}, obs)
			if obs.Done {
				break
			}
			res, err := env.Step(p.Act(obs))
			if err != nil {
				t.Fatal(err)
			}
			obs = res.Observation
		}
	}
	odd := &sim.Observation{Frame: sim.Frame{Tiles: []sim.Tile{
		{},
		{Terrain: "gr\"ass", Color: "<b>&", Zone: "caf\u00e9", Object: "a\\b\n", ObjectColor: "\u2028\xff", Stock: -3, Loose: 1 << 40},
	}}, Told: `"tiles":null`}
	check(t, "odd", 0, wire.ObserveResponse{Observation: odd, Text: `x "tiles":null`}, odd)
}

func check(t *testing.T, visit string, step int, v any, o *sim.Observation) {
	t.Helper()
	want, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	got, err := marshalObservation(v, o)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Fatalf("%s step %d: encodings differ at byte %d:\n got …%s\nwant …%s", visit, step, i, clip(got[i:]), clip(want[i:]))
	}
}

func clip(b []byte) []byte {
	if len(b) > 80 {
		return b[:80]
	}
	return b
}
