//go:build !js

package e2e

import (
	"context"
	"encoding/json"
	"io/fs"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/normgym/normgym/wasm/simwasm"
	"github.com/normgym/normgym/web/internal/browser"
	"github.com/normgym/normgym/web/internal/site"
	"github.com/normgym/normgym/web/internal/ui"
)

var (
	root     string
	siteDir  string
	siteOnce sync.Once
	siteErr  error
)

// needChromium skips the test without Chromium, except under CI=true.
func needChromium(t *testing.T) {
	t.Helper()
	if browser.Path() != "" {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed and CI=true: run make web-deps")
	}
	t.Skip("chromium is not installed: skipping the browser tests (make web-deps installs it)")
}

// builtSite returns build/web, rebuilding it when it is missing, was
// built from another sim.wasm, or is older than the UI's sources.
func builtSite(t testing.TB) string {
	t.Helper()
	siteOnce.Do(func() {
		root, siteErr = site.FindRoot(".")
		if siteErr != nil {
			return
		}
		siteDir = filepath.Join(root, "build", "web")
		if why := stale(siteDir); why != "" {
			t.Logf("building %s: %s", siteDir, why)
			_, siteErr = site.Build(context.Background(), site.Options{Out: siteDir, Root: root, Sim: simwasm.Bytes()})
		}
	})
	if siteErr != nil {
		t.Fatal(siteErr)
	}
	return siteDir
}

func stale(dir string) string {
	mf := filepath.Join(dir, "manifest.json")
	st, err := os.Stat(mf)
	if err != nil {
		return "no build"
	}
	var m site.Manifest
	if b, err := os.ReadFile(mf); err != nil || json.Unmarshal(b, &m) != nil {
		return "unreadable manifest"
	}
	if m.SimSHA256 != simwasm.SHA256() {
		return "built with another sim.wasm"
	}
	newer := ""
	for _, src := range []string{"web/app", "web/internal/ui", "web/internal/chat", "web/internal/site"} {
		_ = filepath.WalkDir(filepath.Join(root, src), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || newer != "" {
				return nil
			}
			if info, err := d.Info(); err == nil && info.ModTime().After(st.ModTime()) {
				newer = p
			}
			return nil
		})
	}
	if newer != "" {
		return newer + " is newer than the build"
	}
	return ""
}

// artifacts is where screenshots go.
func artifacts(t *testing.T) string {
	builtSite(t)
	d := filepath.Join(root, "build", "test-artifacts", "web")
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

// session is a served site and a browser tab on it.
type session struct {
	t     *testing.T
	srv   *httptest.Server
	ctx   context.Context
	close context.CancelFunc
	dl    string
	// sealed: the tab plays a sealed visit, whose moves go to the server
	// one at a time; playFromDay waits for each answer before the next key.
	sealed bool
}

func open(t *testing.T, w, h int) *session {
	t.Helper()
	needChromium(t)
	dir := builtSite(t)
	srv := browser.Serve(dir)
	dl := t.TempDir()
	ctx, cancel, err := browser.Start(context.Background(), browser.Options{Width: w, Height: h, UserDataDir: t.TempDir(), DownloadDir: dl})
	if err != nil {
		srv.Close()
		t.Fatal(err)
	}
	s := &session{t: t, srv: srv, ctx: ctx, close: cancel, dl: dl}
	t.Cleanup(func() { cancel(); srv.Close() })
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(w), int64(h))); err != nil {
		t.Fatal(err)
	}
	return s
}

// do runs actions with a time limit.
func (s *session) do(limit time.Duration, steps ...chromedp.Action[chromedp.Void]) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(s.ctx, limit)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		s.t.Fatalf("browser: %v", err)
	}
}

func (s *session) eval(expr string) string {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(s.ctx, 20*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
	if err != nil {
		s.t.Fatalf("browser: eval %s: %v", expr, err)
	}
	return v
}

// load opens the page at fragment and waits until the app is ready.
func (s *session) load(fragment string) {
	s.t.Helper()
	s.do(30*time.Second, chromedp.Navigate(s.srv.URL+"/"+fragment))
	s.poll(30*time.Second, `document.documentElement.dataset.ready === "1"`)
}

// waitStage waits until body[data-stage] is one of stages.
func (s *session) waitStage(limit time.Duration, stages ...string) string {
	s.t.Helper()
	js, _ := json.Marshal(stages)
	// (No body yet while a page loads: keep polling.)
	s.poll(limit, `!!document.body && `+string(js)+`.includes(document.body.dataset.stage)`)
	return s.eval(`document.body.dataset.stage`)
}

// poll waits until the expression is true.
func (s *session) poll(limit time.Duration, expr string) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(s.ctx, limit)
	defer cancel()
	for {
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingInterval(10*time.Millisecond)))
		if err == nil {
			return
		}
		// A page still replacing the last one loses the context the poll
		// ran in: poll again in the new page.
		if ctx.Err() == nil && (strings.Contains(err.Error(), "Cannot find context") || strings.Contains(err.Error(), "context was destroyed") ||
			strings.Contains(err.Error(), "Inspected target navigated")) {
			continue
		}
		state := s.eval(`document.body ? (document.body.dataset.stage || "") + " | " + document.body.innerText.slice(0, 300) : location.href + " (no body)"`)
		s.t.Fatalf("browser: waiting for %s: %v; page: %s", expr, err, state)
	}
}

// key presses one key (a kb constant or a character) on the focused
// page: a keyDown that carries its text, as a real keyboard does (so a
// handled keydown suppresses the keypress), then a keyUp.
func (s *session) key(k string) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(s.ctx, 10*time.Second)
	defer cancel()
	for _, r := range k {
		evs := kb.Encode(r)
		down, up := *evs[0], *evs[len(evs)-1]
		for _, e := range evs {
			if e.Type == kb.KeyChar {
				down.Text, down.UnmodifiedText = e.Text, e.UnmodifiedText
			}
		}
		for _, e := range []input.DispatchKeyEventParams{down, up} {
			if _, err := chromedp.Call(ctx, input.DispatchKeyEvent, e); err != nil {
				s.t.Fatalf("browser: key %q: %v", k, err)
			}
		}
	}
}

// keyName maps the app's key names to chromedp's.
func keyName(k string) string {
	switch k {
	case "ArrowUp":
		return kb.ArrowUp
	case "ArrowDown":
		return kb.ArrowDown
	case "ArrowLeft":
		return kb.ArrowLeft
	case "ArrowRight":
		return kb.ArrowRight
	case "Enter":
		return kb.Enter
	}
	return k
}

// shot saves a screenshot of the viewport.
func (s *session) shot(name string) string {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(s.ctx, 20*time.Second)
	defer cancel()
	b, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		s.t.Fatalf("screenshot %s: %v", name, err)
	}
	p := filepath.Join(artifacts(s.t), name+".png")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		s.t.Fatal(err)
	}
	return p
}

// keyDown sends a keydown of one key (a kb constant or a character),
// marked as an auto-repeat when repeat is set, as a held key sends.
func (s *session) keyDown(k string, repeat bool) {
	s.t.Helper()
	s.keyEvent(k, true, repeat)
}

// keyUp sends the keyup of one key.
func (s *session) keyUp(k string) {
	s.t.Helper()
	s.keyEvent(k, false, false)
}

func (s *session) keyEvent(k string, down, repeat bool) {
	ctx, cancel := context.WithTimeout(s.ctx, 10*time.Second)
	defer cancel()
	r := []rune(k)[0]
	evs := kb.Encode(r)
	e := *evs[len(evs)-1]
	if down {
		e = *evs[0]
		for _, ev := range evs {
			if ev.Type == kb.KeyChar {
				e.Text, e.UnmodifiedText = ev.Text, ev.UnmodifiedText
			}
		}
		e.AutoRepeat = &repeat
	}
	if _, err := chromedp.Call(ctx, input.DispatchKeyEvent, e); err != nil {
		s.t.Fatalf("browser: key %q: %v", k, err)
	}
}

// reload reloads the page, as a player does, and waits until the app is
// ready. It accepts the "Leave site?" dialog if the page asks first, and
// reports whether it did.
func (s *session) reload() (asked bool) {
	s.t.Helper()
	lctx, stop := context.WithCancel(s.ctx)
	defer stop()
	dialogs := make(chan struct{}, 4)
	if err := chromedp.Listen(lctx, func(ev any) {
		if _, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			select {
			case dialogs <- struct{}{}:
			default:
			}
		}
	}); err != nil {
		s.t.Fatal(err)
	}
	var n atomic.Int32
	go func() {
		for {
			select {
			case <-lctx.Done():
				return
			case <-dialogs:
				n.Add(1)
				chromedp.Call(lctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
			}
		}
	}()
	s.do(30*time.Second, chromedp.Reload())
	s.poll(30*time.Second, `document.documentElement.dataset.ready === "1"`)
	return n.Load() > 0
}

// touch turns on touch input for the tab (a phone's), so that taps are
// touch events.
func (s *session) touch() {
	s.t.Helper()
	s.do(5*time.Second, chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, emulation.SetTouchEmulationEnabled, emulation.SetTouchEmulationEnabledParams{Enabled: true, MaxTouchPoints: 1})
		return err
	}))
}

// tap touches the middle of the element matching sel with one finger, as
// a phone does. The element must be on screen: a player cannot tap what
// is scrolled away, so tap fails the test when it is not.
func (s *session) tap(sel string) {
	s.t.Helper()
	q, _ := json.Marshal(sel)
	var box struct {
		X, Y   float64
		OnView bool
		Found  bool
	}
	if err := json.Unmarshal([]byte(s.eval(`JSON.stringify((() => {
		const e = document.querySelector(`+string(q)+`);
		if (!e) return {Found: false};
		const r = e.getBoundingClientRect();
		const x = r.left + r.width / 2, y = r.top + r.height / 2;
		const hit = document.elementFromPoint(x, y);
		return {Found: true, X: x, Y: y, OnView: r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth && !!hit && (hit === e || e.contains(hit))};
	})())`)), &box); err != nil {
		s.t.Fatal(err)
	}
	if !box.Found {
		s.t.Fatalf("tap: no %s on the page (stage %s)", sel, s.eval(`document.body.dataset.stage`))
	}
	if !box.OnView {
		s.t.Fatalf("tap: %s is not on screen (or covered) at scroll %s", sel, s.eval(`String(scrollY)`))
	}
	ctx, cancel := context.WithTimeout(s.ctx, 10*time.Second)
	defer cancel()
	pt := []*input.TouchPoint{{X: box.X, Y: box.Y}}
	for _, p := range []input.DispatchTouchEventParams{{Type: input.DispatchTouchEventTypeTouchStart, TouchPoints: pt}, {Type: input.DispatchTouchEventTypeTouchEnd, TouchPoints: []*input.TouchPoint{}}} {
		if _, err := chromedp.Call(ctx, input.DispatchTouchEvent, p); err != nil {
			s.t.Fatalf("tap %s: %v", sel, err)
		}
	}
}

var (
	axeOnce sync.Once
	axeJS   string
)

// axe runs axe-core (web/node_modules, pinned in web/package.json) on the
// page and fails the test for every critical, serious or moderate
// violation; name says which page or stage it was.
func (s *session) axe(name string) {
	s.t.Helper()
	axeOnce.Do(func() {
		r, err := site.FindRoot(".")
		if err != nil {
			return
		}
		b, err := os.ReadFile(filepath.Join(r, "web", "node_modules", "axe-core", "axe.min.js"))
		if err == nil {
			axeJS = string(b)
		}
	})
	if axeJS == "" {
		if os.Getenv("CI") == "true" {
			s.t.Fatal("axe-core is not installed (npm ci in web/, or make web-deps)")
		}
		s.t.Skip("axe-core is not installed: npm ci in web/ (make web-deps)")
	}
	ctx, cancel := context.WithTimeout(s.ctx, 60*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`typeof axe === "object" || (function(){`+axeJS+`
		; return true; }).call(window)`)); err != nil {
		s.t.Fatalf("axe: injecting: %v", err)
	}
	out, err := chromedp.Run(ctx, chromedp.Evaluate[string](`axe.run(document, {resultTypes: ["violations"]}).then(r => JSON.stringify(
		r.violations.filter(v => ["critical", "serious", "moderate"].includes(v.impact))
		 .map(v => v.impact + " " + v.id + ": " + v.help + " — " + v.nodes.slice(0, 4).map(n => n.target.join(" ")).join(" | "))))`,
		chromedp.EvalAwaitPromise))
	if err != nil {
		s.t.Fatalf("axe: %v", err)
	}
	var vs []string
	if err := json.Unmarshal([]byte(out), &vs); err != nil {
		s.t.Fatal(err)
	}
	for _, v := range vs {
		s.t.Errorf("axe on %s: %s", name, v)
	}
}

// checkStory checks that every statement about data on the page (the
// footer's, and the screen's: consent, result, model form) is mode
// want's story, word for word; at least min of them must be on the page.
func checkStory(t *testing.T, s *session, where string, want ui.DataMode, min int) {
	t.Helper()
	var got [][2]string
	if err := json.Unmarshal([]byte(s.eval(`JSON.stringify([...document.querySelectorAll(".story")].map(e => [e.dataset.story, e.textContent]))`)), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) < min {
		t.Errorf("%s: %d statements about data on the page, want at least %d (footer and screen)", where, len(got), min)
	}
	for _, g := range got {
		if g[0] != string(want) || g[1] != ui.Story(want) {
			t.Errorf("%s: the page says (%s) %q; want the %s story %q", where, g[0], g[1], want, ui.Story(want))
		}
	}
}
