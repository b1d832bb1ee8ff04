//go:build !js

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/server"
)

// cspWatch collects what Chromium blocks under the page's
// Content-Security-Policy: securitypolicyviolation events (a script
// installed before the page's own) and the console's reports.
type cspWatch struct {
	mu   sync.Mutex
	msgs []string
}

func watchCSP(t *testing.T, s *session) *cspWatch {
	t.Helper()
	w := &cspWatch{}
	ctx, cancel := context.WithCancel(s.ctx)
	t.Cleanup(cancel)
	msgs := chromedp.Console(ctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			if strings.Contains(m.Text, "Content Security Policy") || strings.Contains(m.Text, "Content-Security-Policy") {
				w.mu.Lock()
				w.msgs = append(w.msgs, "console: "+m.Text)
				w.mu.Unlock()
			}
		}
	}()
	cctx, ccancel := context.WithTimeout(s.ctx, 10*time.Second)
	defer ccancel()
	if _, err := chromedp.Call(cctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: `
		globalThis.__cspViolations = [];
		document.addEventListener("securitypolicyviolation", e =>
			globalThis.__cspViolations.push(e.violatedDirective + " " + e.blockedURI + " " + e.sourceFile + ":" + e.lineNumber));`}); err != nil {
		t.Fatal(err)
	}
	return w
}

// check fails the test for every violation seen on the page so far.
func (w *cspWatch) check(t *testing.T, s *session, where string) {
	t.Helper()
	if v := s.eval(`(globalThis.__cspViolations || []).join("\n")`); v != "" {
		t.Errorf("%s: the Content-Security-Policy blocked:\n%s", where, v)
	}
	time.Sleep(100 * time.Millisecond) // the console's reports come asynchronously
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, m := range w.msgs {
		t.Errorf("%s: %s", where, m)
	}
	w.msgs = nil
}

// TestCSP runs the app as `normgym serve` serves it, with the server's
// Content-Security-Policy on every answer, and fails on anything
// Chromium blocks: Play with its consent and a whole visit submitted,
// Watch, Model mode against a chat endpoint on another origin (the CSP's
// connect-src http: https:), the teacher page creating a room, and the
// leaderboard page.
func TestCSP(t *testing.T) {
	needChromium(t)
	srv, st, _ := siteServerWith(t)
	resp, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("Content-Security-Policy"); got != server.ContentSecurityPolicy {
		t.Fatalf("GET / Content-Security-Policy %q, want the server's", got)
	}

	s := openSite(t, srv, 1280, 800)
	w := watchCSP(t, s)
	// A classroom's visit (outside rooms the server plays visits sealed).
	body, _ := json.Marshal(api.RoomRequest{Name: "csp class", Suite: "mini"})
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
	joinClass(t, s, room.Code, "Seat 4")
	playAssigned(t, s, st, "#room="+room.Code, "")
	w.check(t, s, "play")

	s.load("#mode=watch")
	s.waitStage(20*time.Second, "watch", "watch-done")
	w.check(t, s, "watch")

	runModel(t, s, "csp")
	w.check(t, s, "model")

	s.do(30*time.Second, chromedp.Navigate(srv.URL+"/teach"))
	s.poll(10*time.Second, `typeof document.getElementById("make").onclick === "function"`)
	s.do(10*time.Second, chromedp.Click(chromedp.CSS(`#make`)))
	s.poll(20*time.Second, `!document.getElementById("dash").hidden && document.getElementById("members").textContent === "0"`)
	w.check(t, s, "teach")
	s.do(10*time.Second, chromedp.Click(chromedp.CSS(`#revealBtn`)))
	s.poll(20*time.Second, `document.getElementById("revealBody").innerText.includes("The rule was")`)
	w.check(t, s, "teach, reveal")

	s.do(30*time.Second, chromedp.Navigate(srv.URL+"/leaderboard"))
	s.poll(10*time.Second, `document.readyState === "complete"`)
	w.check(t, s, "leaderboard")
}
