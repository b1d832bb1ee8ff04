//go:build !js

package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/web/internal/ui"
)

// TestResume reloads a visit in the middle of a day and on the card
// between the days: each time the page comes back at the same stage and
// step with the same feed, asks before it is left, and the finished
// record carries the hash the wazero host computes for the whole action
// sequence (the replay through the module rebuilt the same trajectory).
// The visit comes from a suite, so the kept progress must not name it.
func TestResume(t *testing.T) {
	s := open(t, 1280, 800)
	s.load("#suite=mini&n=3")
	s.waitStage(10*time.Second, "consent")
	if got := s.eval(`String(window.dispatchEvent(new Event("beforeunload", {cancelable: true})))`); got != "true" {
		t.Error("the consent screen asks before the page is left; nothing is lost there yet")
	}
	st, err := sim.LookupSuite("mini")
	if err != nil {
		t.Fatal(err)
	}
	id := st.Visits[2]
	base := greedy(t, id)
	reloads := 0
	check := func(stage string) {
		step, feed := s.eval(`document.body.dataset.step || ""`), s.eval(`String(document.querySelectorAll("#feed li").length)`)
		if got := s.eval(`String(window.dispatchEvent(new Event("beforeunload", {cancelable: true})))`); got != "false" {
			t.Errorf("%s: leaving mid-visit does not ask first", stage)
		}
		kept := s.eval(`localStorage.getItem("normgym.progress.play") || ""`)
		if kept == "" || strings.Contains(kept, id) {
			t.Errorf("%s: the kept progress is %q: want it kept, without the visit's id", stage, kept)
		}
		if !s.reload() {
			t.Errorf("%s: a reload mid-visit did not ask first", stage)
		}
		if got := s.waitStage(10*time.Second, stage, "consent"); got != stage {
			t.Fatalf("after a reload at %s the visit is at %s", stage, got)
		}
		if got := s.eval(`document.body.dataset.step || ""`); stage == "play" && got != step {
			t.Errorf("after a reload at step %s the visit is at step %s", step, got)
		}
		if stage == "play" {
			if got := s.eval(`String(document.querySelectorAll("#feed li").length)`); got != feed {
				t.Errorf("after a reload the feed has %s lines, had %s", got, feed)
			}
		}
		reloads++
	}
	playByKeys(t, s, id, base, func(stage string, n int) {
		switch {
		case stage == "play" && n > 0:
			check("play")
		case stage == "day" && n > 0:
			check("day")
		}
	})
	if reloads != 3 {
		t.Errorf("%d reloads, want 3 (mid day 1, the card, mid day 2)", reloads)
	}
	var rec ui.Record
	if err := json.Unmarshal([]byte(s.eval(`globalThis.normgymLastRecord`)), &rec); err != nil {
		t.Fatal(err)
	}
	if got, want := rec.Hash, hostHash(t, id, base.Actions); got != want {
		t.Errorf("after reloads the record's hash is %s, the wazero host's %s", got, want)
	}
	// A reload on the result shows the result again.
	s.reload()
	s.waitStage(10*time.Second, "result")
	if got := s.eval(`document.body.dataset.stage`); got != "result" {
		t.Errorf("a reload on the result screen shows %s", got)
	}
}
