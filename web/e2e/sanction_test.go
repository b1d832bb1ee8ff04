//go:build !js

package e2e

import (
	"testing"
	"time"
)

// TestSanctionSpot checks how a sanction shows on the map: its tile keeps
// a ring for a few steps with the tile's colour letter on top, and
// pressing its line in the feed marks the tile.
func TestSanctionSpot(t *testing.T) {
	s := open(t, 1280, 800)
	s.load("#mode=watch&visit=orchard/place.color=red/observe/s100&agent=random")
	s.waitStage(10*time.Second, "watch")
	found := false
	for i := 0; i < 120 && !found; i++ {
		s.eval(`document.querySelector('[data-act="w-step"]').click(); "ok"`)
		found = s.eval(`String(!!document.querySelector("#feed .where"))`) == "true"
	}
	if !found {
		t.Fatal("no sanction in 120 steps of this visit: pick another")
	}
	// The tile of the fresh sanction has a ring, under its colour letter.
	if got := s.eval(`(() => {
		const b = document.querySelector("#feed .where");
		const cell = document.querySelectorAll(".grid .row")[+b.dataset.y].children[+b.dataset.x];
		if (!cell.querySelector(".ring")) return "no ring on the sanction's tile";
		const cl = cell.querySelector(".cl");
		if (cl) {
			const r = cl.getBoundingClientRect();
			const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
			if (top !== cl) return "the colour letter is covered by " + top.className;
		}
		return "ok";
	})()`); got != "ok" {
		t.Error(got)
	}
	s.eval(`document.querySelector("#feed .where").click(); "ok"`)
	if got := s.eval(`(() => {
		const b = document.querySelector("#feed .where");
		const cell = document.querySelectorAll(".grid .row")[+b.dataset.y].children[+b.dataset.x];
		return cell.querySelector(".ring.focus") ? "ok" : "pressing the line did not mark its tile";
	})()`); got != "ok" {
		t.Error(got)
	}
	s.shot("sanction-spot-1280x800")
	// A few steps later the ring is gone.
	for i := 0; i < 4; i++ {
		s.eval(`document.querySelector('[data-act="w-step"]').click(); "ok"`)
	}
	if got := s.eval(`String(document.querySelectorAll(".ring.focus").length)`); got != "0" {
		t.Errorf("the marked tile stays marked after the next steps")
	}
}
