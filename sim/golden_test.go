package sim_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ instead of comparing with them")

// golden compares got with testdata/name, or rewrites the file under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./sim -run %s -update writes it)", err, t.Name())
	}
	if bytes.Equal(got, want) {
		return
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	line := 0
	for line < len(gl) && line < len(wl) && gl[line] == wl[line] {
		line++
	}
	at := func(ls []string) string {
		if line < len(ls) {
			return ls[line]
		}
		return "(end of file)"
	}
	t.Errorf("%s differs from the output at line %d:\n got: %s\nwant: %s\n(if the change is intended: go test ./sim -run %s -update, and review the diff)",
		path, line+1, at(gl), at(wl), t.Name())
}

// TestGoldenText pins the text form of first observations: the prompt a
// language model sees. The files are <name>.expected.txt.
func TestGoldenText(t *testing.T) {
	tests := []struct {
		name  string
		visit string
	}{
		{name: "orchard-observe", visit: "orchard/place.color=blue/observe/s17"},
		{name: "market-told", visit: "market/order.bow=market/told/s3"},
		{name: "park-control", visit: "park/none/control/s5"},
		{name: "harbor-solo", visit: "harbor/social.greet=elder/solo/s8"},
		{name: "library-peers", visit: "library/disposal.at=bin/peers/s2"},
		{name: "harbor-told", visit: "harbor/resource.carry=1/told/s11"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, obs, err := sim.NewVisit(tc.visit)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name+".expected.txt", []byte(obs.Text()))
		})
	}
}

// TestGoldenHashes pins greedy's trajectory hash on ten visits: any change
// to a trajectory shows here (and needs a sim.Version bump).
func TestGoldenHashes(t *testing.T) {
	visits := []string{
		"orchard/place.color=blue/observe/s17",
		"market/place.terrain=stone/peers/s101",
		"park/resource.color=red/solo/s102",
		"harbor/resource.carry=1/told/s103",
		"library/time.rest=noon/observe/s104",
		"orchard/order.bell=market/peers/s105",
		"market/social.avoid=green/solo/s106",
		"park/direction.path=east/observe/s107",
		"harbor/disposal.at=plaza/told/s108",
		"library/none/control/s109",
	}
	got := map[string]string{}
	for _, id := range visits {
		env, err := agents.Play(id, "greedy")
		if err != nil {
			t.Fatal(err)
		}
		got[id] = env.Hash()
	}
	b, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "hashes.expected.json", append(b, '\n'))
}

// TestGoldenTexts pins the text (and JSON) of every observation of the
// mini suite played by greedy, random and observer: a SHA-256 over each
// form, so that a change to the rendering, which model prompts and the
// browser depend on, shows here even where the first observations of
// TestGoldenText do not change.
func TestGoldenTexts(t *testing.T) {
	mini, err := sim.LookupSuite("mini")
	if err != nil {
		t.Fatal(err)
	}
	text, js := sha256.New(), sha256.New()
	n := 0
	for _, id := range mini.Visits {
		for _, name := range []string{"greedy", "random", "observer"} {
			p, err := agents.New(name)
			if err != nil {
				t.Fatal(err)
			}
			env, obs, err := sim.NewVisit(id)
			if err != nil {
				t.Fatal(err)
			}
			for {
				fmt.Fprintf(text, "%s\x00%s\x00", obs.Text(), obs.Recap())
				js.Write(mustJSON(t, obs))
				n++
				if env.Over() {
					break
				}
				res, err := env.Step(p.Act(obs))
				if err != nil {
					t.Fatal(err)
				}
				obs = res.Observation
			}
		}
	}
	got := map[string]any{"observations": n, "text_sha256": hex.EncodeToString(text.Sum(nil)), "json_sha256": hex.EncodeToString(js.Sum(nil))}
	b, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "texts.expected.json", append(b, '\n'))
}
