//go:build !js

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/server"
	sessions "github.com/normgym/normgym/serve/session"
	"github.com/normgym/normgym/serve/store"
	"github.com/normgym/normgym/wasm/host"
	"github.com/normgym/normgym/wasm/simwasm"
	"github.com/normgym/normgym/web/internal/browser"
	"github.com/normgym/normgym/web/internal/site"
	"github.com/normgym/normgym/web/internal/ui"
	"github.com/normgym/normgym/web/internal/wasmtest"
)

// siteServer starts the real NormGym server (the wazero verifier, a
// fresh SQLite file, build/web) on a free loopback port.
func siteServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv, _, _ := siteServerWith(t)
	return srv
}

// siteServerWith is siteServer that also returns its store and what its
// API routes said.
func siteServerWith(t *testing.T) (*httptest.Server, *store.Store, *traffic) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "normgym.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	// Rooms open to anyone: the classroom test creates one without a
	// teacher key (normgym serve asks for one unless --open-rooms).
	// Sessions (sealed play) step sim.wasm in a runtime of their own.
	rt, err := host.New(ctx, simwasm.Bytes(), host.Options{CacheDir: filepath.Join(os.TempDir(), "normgym-web-wazero-cache")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close(context.Background()) })
	srv, err := server.New(server.Options{Store: st, Verifier: server.Wasm(wasmtest.Runtime(t)), Engine: sessions.Wasm(rt),
		Web: os.DirFS(builtSite(t)), OpenRooms: true})
	if err != nil {
		t.Fatal(err)
	}
	tr := &traffic{}
	hs := httptest.NewServer(tr.wrap(srv))
	t.Cleanup(hs.Close)
	return hs, st, tr
}

// openSite opens a browser tab (a fresh profile: a new participant) on
// the site at srv.
func openSite(t *testing.T, srv *httptest.Server, w, h int) *session {
	t.Helper()
	ctx, cancel, err := browser.Start(context.Background(), browser.Options{Width: w, Height: h, UserDataDir: t.TempDir(), DownloadDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cancel)
	s := &session{t: t, srv: srv, ctx: ctx, close: cancel}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(w), int64(h))); err != nil {
		t.Fatal(err)
	}
	return s
}

func getJSON(t *testing.T, url, token string, v any) {
	t.Helper()
	getJSONWith(t, url, "Authorization", "Bearer "+token, v)
}

// postJSON posts body as JSON and decodes a 200 answer into v.
func postJSON(t *testing.T, url string, body, v any) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || json.Unmarshal(got, v) != nil {
		t.Fatalf("POST %s: %d %s", url, resp.StatusCode, got)
	}
}

// getJSONAs is getJSON with a participant's pseudonym in its header (GET
// /api/runs: never in the URL).
func getJSONAs(t *testing.T, url, participant string, v any) {
	t.Helper()
	getJSONWith(t, url, api.ParticipantHeader, participant, v)
}

// getJSONWith is getJSON with a header (none when value is "Bearer " or "").
func getJSONWith(t *testing.T, url, header, value string, v any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if value != "" && value != "Bearer " {
		req.Header.Set(header, value)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

// playAssigned plays the visit the server assigned to the tab in a room
// (fragment "#room=CODE"), by keyboard, with the greedy baseline's
// actions: the server steps it sealed, and stores it when the probe is
// answered. It reloads once in the middle (the page resumes with its
// session's token) and returns the visit id, read from the store (the
// page never holds it before the end).
func playAssigned(t *testing.T, s *session, st *store.Store, fragment, shots string) string {
	t.Helper()
	s.do(30*time.Second, chromedp.Navigate(s.srv.URL+"/"+fragment))
	s.poll(30*time.Second, `document.documentElement.dataset.ready === "1"`)
	if got := s.eval(`document.documentElement.dataset.site || ""`); got != "1" {
		t.Fatalf("the app served by normgym serve is not in site mode (%q)", got)
	}
	s.waitStage(20*time.Second, "consent")
	participant := s.eval(`localStorage.getItem("normgym.participant") || ""`)
	if participant == "" {
		t.Fatal("no participant pseudonym in localStorage")
	}
	room, _ := strings.CutPrefix(fragment, "#room=")
	var consent api.Consent
	getJSON(t, s.srv.URL+"/api/consent", "", &consent)
	if got := s.eval(`document.querySelector(".consent").dataset.consentVersion`); got != consent.Version {
		t.Errorf("consent version on screen %q, want the server's %q", got, consent.Version)
	}
	if !strings.Contains(s.eval(`document.body.innerText`), strings.TrimSpace(strings.Fields(consent.Text)[0])) {
		t.Error("the consent screen does not show the server's text")
	}
	checkStory(t, s, "consent", ui.DataClassroom, 2)
	if shots != "" {
		s.shot(shots + "-consent")
	}
	s.sealed = true
	s.key(keyName("Enter"))
	s.waitStage(20*time.Second, "day")
	open, err := st.OpenSessions(context.Background(), participant, room)
	if err != nil || len(open) != 1 {
		t.Fatalf("the server has %d open sessions for the page's participant in room %s (%v), want 1", len(open), room, err)
	}
	id := open[0].Visit
	noLeak(t, s, id, "day")
	base := greedy(t, id)
	resumed := false
	playFromDay(t, s, id, base, func(stage string, n int) {
		if n == 0 && (stage == "day" || stage == "play") || stage == "probe" {
			noLeak(t, s, id, stage)
		}
		if stage == "play" && n > 0 && !resumed {
			// A visit once seen is never restarted: a reload resumes it.
			resumed = true
			step := s.eval(`document.body.dataset.step`)
			s.reload()
			if got := s.waitStage(20*time.Second, "play", "consent"); got != "play" || s.eval(`document.body.dataset.step`) != step {
				t.Fatalf("after a reload at step %s the assigned visit is at %s, step %s", step, got, s.eval(`document.body.dataset.step`))
			}
			noLeak(t, s, id, "resumed")
		}
	})
	s.waitStage(20*time.Second, "result", "result-held")
	s.poll(30*time.Second, `document.body.dataset.submit === "stored"`)
	if shots != "" {
		s.shot(shots + "-stored")
	}
	return id
}

// noLeak fails the test if the page exposes the assigned visit id id
// (it names the norm) before the visit is over: in its markup or text,
// the title, the address, a global, or the browser's storage.
func noLeak(t *testing.T, s *session, id, stage string) {
	t.Helper()
	where := s.eval(`(() => {
		const id = ` + strconv.Quote(id) + `;
		const found = [];
		if (document.documentElement.outerHTML.includes(id)) found.push("markup");
		if (document.body.innerText.includes(id)) found.push("text");
		if (document.title.includes(id)) found.push("title");
		if (location.href.includes(id) || decodeURIComponent(location.href).includes(id)) found.push("address");
		for (const st of [localStorage, sessionStorage]) {
			for (let i = 0; i < st.length; i++) {
				const k = st.key(i);
				if (k.includes(id) || (st.getItem(k) || "").includes(id)) found.push("storage " + k);
			}
		}
		for (const k of Object.keys(globalThis)) {
			let v;
			try { v = globalThis[k]; } catch (e) { continue; }
			if (typeof v === "string" && v.includes(id)) found.push("global " + k);
		}
		return found.join(", ");
	})()`)
	if where != "" {
		t.Errorf("%s: the page exposes the assigned visit's id (it names the norm) in: %s", stage, where)
	}
}

// TestSite plays through `normgym serve`. Outside a classroom the server
// keeps the assigned visit to itself: it is played sealed (TestSealedSite
// plays one), and the page says so before the player starts. Then two
// students play in a classroom, sealed too, on the teacher's dashboard;
// their runs are the class's, not on the leaderboard.
func TestSite(t *testing.T) {
	needChromium(t)
	srv, store, _ := siteServerWith(t)

	s := openSite(t, srv, 1280, 800)
	s.do(30*time.Second, chromedp.Navigate(s.srv.URL+"/"))
	s.poll(30*time.Second, `document.documentElement.dataset.ready === "1"`)
	s.waitStage(20*time.Second, "consent")
	if got := s.eval(`document.getElementById("visit-label").textContent`); got != "sealed (standard)" {
		t.Errorf("the site's visit label is %q, want sealed (standard)", got)
	}
	if !strings.Contains(s.eval(`document.body.innerText`), "sealed visit") {
		t.Error("the page does not say that its visit is sealed")
	}
	if got := s.eval(`document.querySelector('a[href="/leaderboard"]') ? "yes" : "no"`); got != "yes" {
		t.Error("no link to /leaderboard")
	}
	s.shot("site-sealed")

	// A classroom: the teacher creates a room, two students join by link.
	body, _ := json.Marshal(api.RoomRequest{Name: "e2e class", Suite: "standard"})
	resp, err := http.Post(srv.URL+"/api/rooms", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var room api.RoomCreated
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode/100 != 2 || json.Unmarshal(b, &room) != nil {
		t.Fatalf("POST /api/rooms: %d %s", resp.StatusCode, b)
	}
	for i := 0; i < 2; i++ {
		st := openSite(t, srv, 390, 844)
		joinClass(t, st, room.Code, fmt.Sprintf("Seat %d", i+1))
		playAssigned(t, st, store, "#room="+room.Code, fmt.Sprintf("site-room-%d", i+1))
		st.close()
	}
	var dash api.Dashboard
	getJSON(t, srv.URL+"/api/rooms/"+room.Code+"/dashboard", room.TeacherToken, &dash)
	if len(dash.Students) != 2 || dash.Stats.Runs != 2 {
		t.Errorf("dashboard: %d students, %d runs; want 2 and 2", len(dash.Students), dash.Stats.Runs)
	}
	var lb api.Leaderboard
	getJSON(t, srv.URL+"/api/leaderboard?suite=standard", "", &lb)
	for _, e := range lb.Agents {
		if e.Client == "human" {
			t.Errorf("leaderboard: a human row from classroom runs: %+v", e)
		}
	}
}

// TestServerBrotli checks that `normgym serve` sends the build's .br
// siblings to browsers that accept brotli, with the asset's own content
// type, Content-Encoding: br and Vary: Accept-Encoding, and the plain file
// to those that do not.
func TestServerBrotli(t *testing.T) {
	srv := siteServer(t)
	dir := builtSite(t)
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m site.Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	types := map[string]string{".wasm": "application/wasm", ".js": "text/javascript; charset=utf-8",
		".css": "text/css; charset=utf-8", ".html": "text/html; charset=utf-8"}
	for _, f := range m.Files {
		if _, ok := m.Brotli[f]; !ok {
			continue
		}
		for _, enc := range []string{"br, gzip", "identity"} {
			req, _ := http.NewRequest(http.MethodGet, srv.URL+"/"+f, nil)
			req.Header.Set("Accept-Encoding", enc)
			resp, err := http.DefaultTransport.RoundTrip(req) // no transparent decompression
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			want, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
			wantEnc := ""
			if enc != "identity" {
				want, _ = os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)) + ".br")
				wantEnc = "br"
			}
			h := resp.Header
			if resp.StatusCode != 200 || h.Get("Content-Encoding") != wantEnc || !bytes.Equal(body, want) {
				t.Errorf("GET %s (Accept-Encoding %s): %d, Content-Encoding %q, %d bytes; want 200, %q, %d bytes", f, enc, resp.StatusCode, h.Get("Content-Encoding"), len(body), wantEnc, len(want))
			}
			if ct := types[path.Ext(f)]; h.Get("Content-Type") != ct {
				t.Errorf("GET %s: Content-Type %q, want %q", f, h.Get("Content-Type"), ct)
			}
			if !strings.Contains(h.Get("Vary"), "Accept-Encoding") {
				t.Errorf("GET %s: Vary %q lacks Accept-Encoding", f, h.Get("Vary"))
			}
		}
	}
}
