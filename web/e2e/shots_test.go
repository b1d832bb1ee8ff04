//go:build !js

package e2e

import (
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestScreenshots saves a screenshot of every screen of every mode at a
// laptop and a phone size into build/test-artifacts/web/, for people to
// look at; it checks only that each screen is reached and that the map
// fits the width.
func TestScreenshots(t *testing.T) {
	id := "orchard/place.color=red/observe/s100"
	base := greedy(t, id)
	for _, sz := range [][2]int{{1280, 800}, {390, 844}} {
		w, h := sz[0], sz[1]
		t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
			s := open(t, w, h)
			name := func(n string) string { return fmt.Sprintf("%s-%dx%d", n, w, h) }
			s.load("#visit=" + id)
			s.waitStage(10*time.Second, "consent")
			days := 0
			playByKeys(t, s, id, base, func(stage string, n int) {
				switch stage {
				case "day":
					days++
					s.shot(name(fmt.Sprintf("play-day%d", days)))
				case "play":
					if n > 0 {
						s.shot(name(fmt.Sprintf("play-grid-day%d", days)))
						if gw := s.eval(`String(document.querySelector(".grid").getBoundingClientRect().right <= innerWidth)`); gw != "true" {
							t.Errorf("the map is wider than the %dpx viewport", w)
						}
					}
				case "consent", "probe":
					s.shot(name("play-" + stage))
				}
			})
			s.poll(30*time.Second, `!document.getElementById("baselines-wait")`)
			s.shot(name("play-result"))

			s.eval(`location.hash = "#mode=watch&visit=` + id + `&agent=observer"; "ok"`)
			s.waitStage(10*time.Second, "watch")
			for i := 0; i < 24; i++ {
				s.do(5*time.Second, chromedp.Click(chromedp.CSS(`[data-act="w-step"]`)))
			}
			s.shot(name("watch"))
			if feed := s.eval(`document.getElementById("feed").innerText`); regexp.MustCompile(`(?i)\byou\b`).MatchString(feed) {
				t.Errorf("Watch mode's feed speaks of the baseline as \"you\":\n%s", feed)
			}
			if w > 1000 {
				// Play the rest fast: the replay must reproduce the module's run.
				s.eval(`const sp = document.getElementById("w-speed"); sp.value = "30"; sp.dispatchEvent(new Event("change", {bubbles: true})); "ok"`)
				s.do(5*time.Second, chromedp.Click(chromedp.CSS(`[data-act="w-play"]`)))
				s.waitStage(30*time.Second, "watch-done")
				if s.eval(`String(!!document.querySelector("#w-result .verified"))`) != "true" {
					t.Error("the replayed baseline's hash does not match its run")
				}
				s.shot(name("watch-done"))
			}
			s.do(5*time.Second, chromedp.Click(chromedp.CSS(`.visit-btn`)))
			s.poll(5*time.Second, `!document.getElementById("picker").hidden`)
			s.shot(name("picker"))
			s.eval(`location.hash = "#mode=model&suite=standard&n=17"; "ok"`)
			s.waitStage(10*time.Second, "model-form")
			s.shot(name("model-form"))
		})
	}
}
