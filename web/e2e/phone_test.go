//go:build !js

package e2e

import (
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/web/internal/ui"
)

// tapInView scrolls the element matching sel into the middle of the
// screen, as a player scrolls to a button below the fold, and taps it.
func (s *session) tapInView(sel string) {
	s.t.Helper()
	q, _ := json.Marshal(sel)
	s.eval(`(() => { const e = document.querySelector(` + string(q) + `); if (e) e.scrollIntoView({block: "center"}); return "ok"; })()`)
	s.tap(sel)
}

// TestTouch plays whole visits by touch alone on phone-sized screens:
// every step is a tap on the on-screen pad, which must stay on screen
// (tap fails on a button that is scrolled away or covered) without any
// scrolling during the day, with the map as wide as the screen and
// initials on it. The record must carry the wazero host's hash.
func TestTouch(t *testing.T) {
	for _, tc := range []struct {
		w, h int
		id   string
	}{
		{390, 844, "market/place.terrain=grass/observe/s104"},
		{360, 640, "orchard/place.color=red/observe/s100"},
	} {
		t.Run(fmt.Sprintf("%dx%d", tc.w, tc.h), func(t *testing.T) {
			s := open(t, tc.w, tc.h)
			s.touch()
			s.load("#visit=" + tc.id)
			s.waitStage(10*time.Second, "consent")
			base := greedy(t, tc.id)
			env, _, err := sim.NewVisit(tc.id)
			if err != nil {
				t.Fatal(err)
			}
			s.tapInView(`[data-act="start"]`)
			s.waitStage(5*time.Second, "day")
			s.tapInView(`[data-act="begin"]`)
			s.waitStage(5*time.Second, "play")
			checkPhoneMap(t, s, tc.w)
			s.shot(fmt.Sprintf("touch-play-%dx%d", tc.w, tc.h))
			for i, a := range base.Actions {
				act, err := sim.ParseAction(a)
				if err != nil {
					t.Fatal(err)
				}
				sel := `.controls [data-act="` + act.Verb + `"]`
				if act.Verb == "give" {
					sel = `#give [data-member="` + strconv.Itoa(env.Observe().Frame.AgentIndex(act.Target)) + `"]`
				}
				step := s.eval(`document.body.dataset.step`)
				s.tap(sel)
				r, err := env.Step(act)
				if err != nil {
					t.Fatal(err)
				}
				if r.DayOver && !r.Done() {
					s.waitStage(5*time.Second, "day")
					s.tapInView(`[data-act="begin"]`)
					s.waitStage(5*time.Second, "play")
					continue
				}
				if !r.Done() {
					s.poll(5*time.Second, `document.body.dataset.step !== "`+step+`"`)
				}
				if i == 20 {
					s.shot(fmt.Sprintf("touch-play-later-%dx%d", tc.w, tc.h))
				}
			}
			if base.Probe != nil {
				s.waitStage(5*time.Second, "probe")
				s.tapInView(`label[for="opt` + strconv.Itoa(base.Probe.Answer) + `"]`)
				s.tapInView(`[data-act="answer"]`)
			}
			s.waitStage(10*time.Second, "result")
			var rec ui.Record
			if err := json.Unmarshal([]byte(s.eval(`globalThis.normgymLastRecord`)), &rec); err != nil {
				t.Fatal(err)
			}
			if got, want := rec.Hash, hostHash(t, tc.id, base.Actions); got != want {
				t.Errorf("touch play: record hash %s, wazero host %s", got, want)
			}
		})
	}
}

// checkPhoneMap checks the play screen on a phone: the map fits the
// width, the pad and the banner are on screen, the banner's line whole
// (it wraps), and members are labelled by initials.
func checkPhoneMap(t *testing.T, s *session, w int) {
	t.Helper()
	var got struct {
		MapRight, MapTop, MapBottom, PadTop, PadBottom, BannerBottom, H float64
		BannerLines                                                     float64
		BannerWhole                                                     bool
		Initials                                                        int
	}
	if err := json.Unmarshal([]byte(s.eval(`JSON.stringify((() => {
		const g = document.querySelector(".grid").getBoundingClientRect();
		const pad = document.querySelector(".ctl").getBoundingClientRect();
		const b = document.getElementById("status");
		const lh = parseFloat(getComputedStyle(b).lineHeight) || 20;
		return {MapRight: g.right, MapTop: g.top, MapBottom: g.bottom, PadTop: pad.top, PadBottom: pad.bottom, BannerBottom: b.getBoundingClientRect().bottom, H: innerHeight,
			BannerLines: Math.round((b.scrollHeight - parseFloat(getComputedStyle(b).paddingTop) - parseFloat(getComputedStyle(b).paddingBottom)) / lh),
			BannerWhole: b.scrollWidth <= b.clientWidth + 1 && b.scrollHeight <= b.clientHeight + 1 && getComputedStyle(b).textOverflow !== "ellipsis",
			Initials: [...document.querySelectorAll(".tk em .ini")].filter(e => e.offsetParent !== null && e.textContent).length};
	})())`)), &got); err != nil {
		t.Fatal(err)
	}
	if got.MapRight > float64(w) {
		t.Errorf("the map ends at x=%.0f, wider than the %dpx screen", got.MapRight, w)
	}
	if got.PadBottom > got.H {
		t.Errorf("the pad ends at y=%.0f, below the %.0fpx screen", got.PadBottom, got.H)
	}
	if got.MapTop < 0 || got.MapBottom > got.PadTop+1 || got.BannerBottom > got.PadTop+1 { // 1 px: subpixel layout
		t.Errorf("at the start of a day the map (y=%.0f..%.0f) and the banner (to y=%.0f) are not all above the pad (from y=%.0f)",
			got.MapTop, got.MapBottom, got.BannerBottom, got.PadTop)
	}
	if !got.BannerWhole {
		t.Errorf("the latest-event banner is cut (%.0f lines shown): its whole line must show", got.BannerLines)
	}
	if got.Initials == 0 {
		t.Error("no member initials on the map")
	}
	if c := coveredNumbers(t, s); len(c) > 0 {
		t.Errorf("members' numbers covered on the map: %v", c)
	}
}

// coveredNumbers lists the members whose number on the map something
// else drawn over it covers (a hat's letter, initials, a zone's name, a
// tile's colour letter, a count): "3 by Y (cl)" for member 3 under a
// tile's Y. What is drawn under the member's token covers nothing.
func coveredNumbers(t *testing.T, s *session) []string {
	t.Helper()
	var out []string
	if err := json.Unmarshal([]byte(s.eval(`JSON.stringify((() => {
		const shown = e => e.getClientRects().length > 0;
		const hit = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
		const others = [...document.querySelectorAll(".grid .tk i, .grid .tk em, .grid .zone span, .grid .cl, .grid .st, .grid .lo")].filter(shown);
		// The z-index of what e is drawn in: the token, the zone, the mark itself.
		const z = e => +getComputedStyle(e.closest(".tk, .zone") || e).zIndex || 0;
		const out = [];
		for (const b of document.querySelectorAll(".grid .tk:not(.me) b")) {
			if (!shown(b)) continue;
			const r = b.getBoundingClientRect(), tk = b.closest(".tk");
			for (const o of others) {
				const over = o.closest(".tk") === tk || z(o) > z(tk);
				if (over && hit(r, o.getBoundingClientRect())) out.push(b.textContent + " by " + o.textContent + " (" + o.className + ")");
			}
		}
		return out;
	})())`)), &out); err != nil {
		t.Fatal(err)
	}
	return out
}
