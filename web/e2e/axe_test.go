//go:build !js

package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/normgym/normgym/serve/api"
)

// TestAxe runs axe-core on every page and every stage of the app, at a
// laptop's and a phone's size: no critical, serious or moderate
// violation is allowed (issue 13, item 9).
func TestAxe(t *testing.T) {
	id := "harbor/place.color=red/told/s103"
	base := greedy(t, id)
	for _, sz := range [][2]int{{1280, 800}, {390, 844}} {
		s := open(t, sz[0], sz[1])
		s.load("#visit=" + id)
		s.waitStage(10*time.Second, "consent")
		playByKeys(t, s, id, base, func(stage string, n int) {
			if stage == "day" && n > 0 {
				stage = "day-end card"
			}
			if stage == "play" && n == 0 {
				return
			}
			s.axe(stage)
		})
		s.poll(30*time.Second, `!document.getElementById("baselines-wait")`)
		s.axe("result")
		s.do(5*time.Second, chromedp.Click(chromedp.CSS(`.visit-btn`)))
		s.poll(5*time.Second, `!document.getElementById("picker").hidden`)
		s.axe("visit picker")
		s.eval(`location.hash = "#mode=watch&visit=` + id + `&agent=observer"; "ok"`)
		s.waitStage(10*time.Second, "watch")
		for i := 0; i < 12; i++ {
			s.do(5*time.Second, chromedp.Click(chromedp.CSS(`[data-act="w-step"]`)))
		}
		s.axe("watch")
		s.eval(`location.hash = "#mode=model&suite=standard&n=17"; "ok"`)
		s.waitStage(10*time.Second, "model-form")
		s.axe("model form")
		// The model mode's run screen, paused on an endpoint that is not there.
		s.eval(`document.getElementById("m-url").value = "http://127.0.0.1:9/v1"; document.getElementById("m-model").value = "m"; "ok"`)
		s.do(5*time.Second, chromedp.Click(chromedp.CSS(`[data-act="m-start"]`)))
		s.waitStage(30*time.Second, "model-error")
		s.axe("model run, paused")
		s.close()
	}

	// The NormGym site: the app in site mode, and the server's own pages.
	srv := siteServer(t)
	s := openSite(t, srv, 1280, 800)
	for _, p := range []string{"/teach", "/leaderboard"} {
		s.do(30*time.Second, chromedp.Navigate(srv.URL+p))
		s.axe(p)
	}
	s.do(30*time.Second, chromedp.Navigate(srv.URL+"/"))
	s.poll(30*time.Second, `document.documentElement.dataset.ready === "1"`)
	// Outside a classroom the assigned visit is sealed: its consent screen.
	s.waitStage(20*time.Second, "consent")
	s.axe("site sealed")
	// A classroom's visit starts with the consent screen.
	body, _ := json.Marshal(api.RoomRequest{Name: "axe class", Suite: "mini"})
	rr, err := http.Post(srv.URL+"/api/rooms", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var room api.RoomCreated
	b, _ := io.ReadAll(rr.Body)
	rr.Body.Close()
	if rr.StatusCode != http.StatusCreated || json.Unmarshal(b, &room) != nil {
		t.Fatalf("POST /api/rooms: %d %s", rr.StatusCode, b)
	}
	// The nickname screen, then (after the tutorial) the consent screen.
	s.do(30*time.Second, chromedp.Navigate(srv.URL+"/#room="+room.Code))
	s.poll(30*time.Second, `document.documentElement.dataset.ready === "1"`)
	s.waitStage(20*time.Second, "join")
	s.axe("class join")
	joinClass(t, s, room.Code, "Seat 3")
	s.do(30*time.Second, chromedp.Navigate(srv.URL+"/#room="+room.Code))
	s.poll(30*time.Second, `document.documentElement.dataset.ready === "1"`)
	s.waitStage(20*time.Second, "consent")
	s.axe("site consent")
}
