//go:build !js

package ui_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/web/internal/ui"
	"github.com/normgym/normgym/web/internal/wasmtest"
)

// visits picks visits of several worlds and conditions from the mini suite.
func visits(t *testing.T, n int) []string {
	s, err := sim.LookupSuite("mini")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	seen := map[string]bool{}
	for _, v := range s.Visits {
		id, _ := sim.ParseVisitID(v)
		k := id.World + id.Condition
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, v)
		if len(out) == n {
			break
		}
	}
	// And one control visit.
	return append(out, s.Visits[len(s.Visits)-1])
}

// TestPlayGreedy plays visits with the greedy baseline's actions through
// Play, renders every screen, and checks the record replays and carries
// the baseline's trajectory hash.
func TestPlayGreedy(t *testing.T) {
	c := wasmtest.Client(t)
	rt := wasmtest.Runtime(t)
	for _, id := range visits(t, 6) {
		t.Run(id, func(t *testing.T) {
			base, err := c.RunBaseline(id, "greedy")
			if err != nil {
				t.Fatal(err)
			}
			p, err := ui.NewPlay(c, ui.Resolved{ID: id, Suite: "mini", SuiteVersion: "1", N: 1, Of: 60}, "human", "human")
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			if !strings.Contains(ui.ConsentHTML(p.Visit, nil, "", ""), "mini #1 of 60") || strings.Contains(ui.ConsentHTML(p.Visit, nil, "", ""), id) {
				t.Error("the consent screen should name the visit by suite and number, not by id")
			}
			p.Start()
			days := 0
			for _, a := range base.Actions {
				if p.Stage == ui.StageDay {
					days++
					_ = ui.DayHTML(p.Obs(), p.Ended, "")
					p.Begin()
				}
				if p.Stage != ui.StagePlay {
					t.Fatalf("stage %d before action %q, want play", p.Stage, a)
				}
				r, ok, err := p.Act(a)
				if err != nil || !ok {
					t.Fatalf("act %q: %v %v", a, ok, err)
				}
				checkRender(t, r.Observation, r.Events)
			}
			if days != 2 {
				t.Errorf("saw %d day screens, want 2", days)
			}
			if p.Probe != nil {
				if p.Stage != ui.StageProbe {
					t.Fatalf("stage %d after the last action, want probe", p.Stage)
				}
				if h := ui.ProbeHTML(*p.Probe); strings.Count(h, `type="radio"`) != 4 {
					t.Errorf("probe HTML has %d options, want 4", strings.Count(h, `type="radio"`))
				}
				if err := p.Finish(base.Probe.Answer, 0.7); err != nil {
					t.Fatal(err)
				}
			}
			if p.Stage != ui.StageResult || p.Record == nil {
				t.Fatalf("stage %d, record %v: want a result", p.Stage, p.Record)
			}
			rec := *p.Record
			if got, want := rec.Hash, base.Hash; got != want {
				t.Errorf("hash %s, want the baseline's %s", got, want)
			}
			if rec.Agent != "human" || rec.Client != "human" || rec.Suite != "mini" || rec.SimSHA256 != c.SHA256 {
				t.Errorf("record names %q %q %q %q", rec.Agent, rec.Client, rec.Suite, rec.SimSHA256)
			}
			// The record is the format normgym replay verifies.
			var srec sim.Record
			b, _ := json.Marshal(rec)
			if err := json.Unmarshal(b, &srec); err != nil {
				t.Fatal(err)
			}
			res, err := rt.Replay(context.Background(), srec)
			if err != nil || !res.Match {
				t.Fatalf("replay: %v, diffs %v", err, res.Diffs)
			}
			ns, err := c.Norms()
			if err != nil {
				t.Fatal(err)
			}
			others := c.Baselines(id, []string{"greedy", "oracle"})
			h := ui.ResultHTML(rec, ui.FindNorm(ns, rec.Norm), p.Probe, others, ui.DataLocal)
			if !strings.Contains(h, "greedy") || !strings.Contains(h, "oracle") {
				t.Error("the result should compare with the baselines")
			}
			if n := ui.FindNorm(ns, rec.Norm); n != nil && !strings.Contains(h, n.Statement) {
				t.Error("the result should reveal the rule")
			}
		})
	}
}

// checkRender renders an observation's screens and checks what must be
// there: a cell per tile, every colour with its letter, every member.
func checkRender(t *testing.T, o *ui.Observation, events []ui.Event) {
	t.Helper()
	g := ui.GridHTML(o, ui.MarksOf(events))
	if got, want := strings.Count(g, `role="cell"`), o.Frame.Width*o.Frame.Height; got != want {
		t.Fatalf("%d cells, want %d", got, want)
	}
	colored := 0
	for _, tl := range o.Frame.Tiles {
		if tl.Color != "" {
			colored++
		}
	}
	if got := strings.Count(g, `class="cl"`); got != colored {
		t.Fatalf("%d colour letters for %d coloured tiles", got, colored)
	}
	for _, a := range o.Frame.Agents[1:] {
		if !strings.Contains(g, ui.Title(a.Name)) {
			t.Fatalf("member %s is not on the map", a.Name)
		}
	}
	for _, ev := range events {
		if ev.Kind == "sanction" && ev.By != "warden" && !strings.Contains(g, `class="bubble"`) {
			t.Fatalf("sanction %+v has no speech bubble", ev)
		}
		_ = ui.FeedItemHTML(ev, &o.Frame, "")
	}
	_ = ui.HUDHTML(o)
	_ = ui.RosterHTML(o)
	_ = ui.GiveHTML(o)
}
