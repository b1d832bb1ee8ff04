//go:build js && wasm

package main

import (
	"errors"
	"math/rand/v2"
	"strings"
	"syscall/js"

	"honnef.co/go/js/dom/v2"

	"github.com/normgym/normgym/web/internal/ui"
)

// app is the page's state. Everything runs on the browser's one thread:
// event callbacks and the model loop's goroutine take turns.
type app struct {
	win dom.Window
	doc dom.HTMLDocument
	// root is the document's element (<html>), through which the app
	// queries by selector (see dom_js.go).
	root   *dom.BasicHTMLElement
	client *ui.Client
	info   ui.Info
	norms  []ui.Norm

	route ui.Route
	visit ui.Resolved
	mode  string

	play *ui.Play
	// queued are a sealed visit's commands waiting for the server's
	// answer to the one before; stepping is set while one is on its way.
	queued   []ui.Command
	stepping bool
	// dropped counts the keys refused because the queue was full.
	dropped int
	// asking is set while a held result asks the server whether it was
	// released (result.go).
	asking bool
	watch  *watchState
	model  *modelState
	// viewer is the transcript viewer's state (transcript.go), in
	// viewer.wasm only: app.wasm sends #mode=transcript to viewer.html.
	viewer *viewerState

	// site is set when the app is served by `normgym serve`.
	site *siteState
	// class is the classroom on screen (#room=CODE on the site).
	class *classState
	// study is the study on screen (#study=CODE on the site, study.go).
	study *studyState

	// feed holds the event feed's items, oldest first, for the visit on
	// screen, so the feed survives re-rendering the layout.
	feed []string
	// latest is the banner under the map: the last step's main event.
	latest string
	// spots are the tiles of the visit's sanctions so far; focusSpot is
	// the one a feed line asked to show (until the next step); shown is
	// the observation on screen.
	spots     []ui.Spot
	focusSpot *ui.Spot
	shown     *ui.Observation
}

// resetFeed forgets the feed, banner and sanction tiles of the visit on
// screen (a new visit, or a replay from its start).
func (a *app) resetFeed() {
	a.feed, a.latest, a.spots, a.focusSpot = nil, "", nil, nil
}

func main() {
	a := &app{win: dom.GetWindow()}
	a.doc = a.win.Document().(dom.HTMLDocument)
	a.root = element(a.doc.DocumentElement())
	if a.site = detectSite(a.win); a.site != nil {
		if tabs := a.query(".tabs"); tabs != nil {
			insertHTML(tabs, "beforeend", `<a href="#mode=join" data-mode="join"><span class="long">Join a class</span><span class="short">Class</span></a>`+
				`<a href="/leaderboard" class="lb-link">Leaderboard</a>`)
		}
		a.root.SetAttribute("data-site", "1")
	}
	// Listeners live as long as the page: their js.Funcs are never released.
	a.doc.AddEventListener("click", false, a.onClick)
	a.doc.AddEventListener("keydown", false, a.onKey)
	a.doc.AddEventListener("submit", false, a.onSubmit)
	a.doc.AddEventListener("input", false, a.onInput)
	a.doc.AddEventListener("change", false, a.onChange)
	a.win.AddEventListener("hashchange", false, func(dom.Event) { a.navigate(ui.ParseRoute(a.hash())) })
	a.win.AddEventListener("beforeunload", false, a.onLeave)
	first := ui.ParseRoute(a.hash())
	study := a.readStudyLink()
	if !a.simless(first) || study {
		// Every mode but the site's sealed play runs the sim in the page.
		if err := a.startSim(); err != nil {
			a.fatal(err.Error())
			select {}
		}
	}
	a.byID("boot").Remove()
	if study {
		go a.openStudy()
	} else {
		a.navigate(first)
	}
	js.Global().Get("performance").Call("mark", "normgym-interactive") // not the DOM
	a.root.SetAttribute("data-ready", "1")
	select {}
}

func (a *app) byID(id string) *dom.BasicHTMLElement { return element(a.doc.GetElementByID(id)) }

// query returns the first element matching sel, or nil.
func (a *app) query(sel string) *dom.BasicHTMLElement { return element(a.root.QuerySelector(sel)) }

func (a *app) set(id, html string) {
	if el := a.byID(id); el != nil {
		el.SetInnerHTML(html)
	}
}

func (a *app) focus(sel string) {
	if el := a.query(sel); el != nil {
		focusNoScroll(el)
	}
}

// top scrolls to the top of the page, for a new screen.
func (a *app) top() { a.win.ScrollTo(0, 0) }

// fitPlay scrolls a phone's screen (one column, under 761 px wide) so
// that the map and the banner under it sit just above the pad, which
// sticks to the bottom of the screen: as little of the HUD scrolls away
// as that takes, and never the top of the map. Wider screens show
// everything already.
func (a *app) fitPlay() {
	w := a.win
	if w.InnerWidth() > 760 {
		return
	}
	m, b, pad := a.byID("map"), a.byID("status"), a.query(".ctl")
	if m == nil || b == nil || pad == nil {
		return
	}
	y := float64(w.ScrollY())
	mapTop := m.GetBoundingClientRect().Top() + y
	bannerBottom := b.GetBoundingClientRect().Bottom() + y
	room := float64(w.InnerHeight()) - pad.GetBoundingClientRect().Height()
	w.ScrollTo(0, int(min(mapTop, max(0, bannerBottom-room))))
}

func (a *app) hash() string { return a.win.Location().Hash() }

// setHash records the route in the address bar without reloading.
// dom/v2 has no API for it: its Window.History is unimplemented (nil).
func (a *app) setHash(r ui.Route) {
	js.Global().Get("history").Call("replaceState", js.Null(), "", r.String())
}

// data sets a data- attribute of the body (body.dataset): where the page
// stands, for tests and styles.
func (a *app) data(name, value string) { element(a.doc.Body()).SetAttribute("data-"+name, value) }

// stage tells tests and styles where the page stands.
func (a *app) stage(s string) { a.data("stage", s) }

func (a *app) fatal(msg string) {
	box := a.byID("boot")
	if box == nil {
		a.set("screen", `<div class="card alert" role="alert">`+escape(msg)+`</div>`)
		return
	}
	box.SetAttribute("role", "alert")
	box.SetInnerHTML(`<p>NormGym could not start: ` + escape(msg) + `</p>`)
	a.stage("error")
}

func escape(s string) string {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")
	return r.Replace(s)
}

// simless reports whether r needs no sim in the page, at least for now:
// the site's sealed play, in a class or not (its visit is stepped on the
// server, see ui.Sealed; a class's tutorial starts the sim itself), and
// the screen where a student types a class's code. boot.js then neither
// downloads nor compiles sim.wasm until something asks for it.
func (a *app) simless(r ui.Route) bool {
	return a.site != nil && (r.Mode == ui.ModeJoin || r.Mode == ui.ModePlay && r.Visit == "")
}

// startSim instantiates the page's sim.wasm, once, and reads its info.
// It blocks: call it from main or a goroutine, never from an event
// callback.
func (a *app) startSim() error {
	if a.client != nil {
		return nil
	}
	bridge := js.Global().Get("normgymSim")
	if _, err := await(bridge.Call("start")); err != nil {
		return errors.New("sim.wasm could not start: " + err.Error())
	}
	c := ui.NewClient(jsSim{bridge}, bridge.Get("sha256").String())
	info, err := c.Info()
	if err != nil {
		return errors.New("sim.wasm does not answer: " + err.Error())
	}
	a.client, a.info = c, info
	return nil
}

// navigate opens the route: fills in a random suite visit when it names
// none, then shows its mode.
func (a *app) navigate(r ui.Route) {
	a.stop()
	if r.Mode == ui.ModeJoin && a.site == nil {
		r.Mode = ui.ModePlay // a static host has no classes
	}
	if a.client == nil && !a.simless(r) {
		// The page came up sealed and now needs its own sim.
		a.set("screen", `<section class="card" role="status"><p>Starting the simulation…</p></section>`)
		a.stage("loading")
		go func() {
			if err := a.startSim(); err != nil {
				a.fatal(err.Error())
				return
			}
			a.navigate(r)
		}()
		return
	}
	a.setStory(ui.DataModeOf(r.Mode, a.site != nil, r.Room))
	if r.Mode == ui.ModeTranscript {
		a.openTranscript(r)
		return
	}
	if r.Mode == ui.ModeJoin {
		a.route, a.mode = r, r.Mode
		a.markTab()
		a.resetFeed()
		a.openJoinCode("", "")
		return
	}
	if a.site != nil && r.Mode == ui.ModePlay && r.Visit == "" && r.Room != "" {
		// A classroom: the nickname, the tutorial once, then the visit.
		r.Suite, r.N = "", 0
		a.route, a.mode = r, r.Mode
		a.markTab()
		a.resetFeed()
		a.set("visit-label", "your class")
		go a.openClass(r)
		return
	}
	if a.site != nil && r.Mode == ui.ModePlay && r.Visit == "" {
		// On the site, Play plays the server's assignment, once an
		// earlier page's unsent record (if any) has gone.
		r.Suite, r.N = "", 0
		a.route, a.mode = r, r.Mode
		a.markTab()
		a.resetFeed()
		a.set("visit-label", "assigned")
		go func() {
			a.resendLeftover()
			a.openSitePlay(r)
		}()
		return
	}
	if !r.HasVisit() {
		if r.Suite == "" {
			r.Suite = "standard"
		}
		n := 0
		for _, s := range a.info.Suites {
			if s.Name == r.Suite {
				n = s.Visits
			}
		}
		if n == 0 && len(a.info.Suites) > 0 { // an unknown suite: the first
			r.Suite, n = a.info.Suites[0].Name, a.info.Suites[0].Visits
		}
		r.N = 1 + rand.IntN(max(n, 1))
		a.setHash(r)
	}
	a.route, a.mode = r, r.Mode
	a.markTab()
	v, err := a.client.Resolve(r)
	if err != nil {
		a.set("visit-label", "?")
		a.set("screen", `<section class="card" role="alert"><h2>This visit cannot be opened</h2><p>`+escape(err.Error())+
			`</p><div class="actions"><button type="button" class="btn primary" data-act="random">Open a random visit</button></div></section>`)
		a.stage("error")
		return
	}
	a.visit = v
	a.set("visit-label", escape(v.Label()))
	a.resetFeed()
	switch a.mode {
	case ui.ModeWatch:
		a.openWatch()
	case ui.ModeModel:
		a.openModel()
	default:
		a.openPlay()
	}
	a.renderPicker(false)
}

// markTab marks the current mode's tab.
func (a *app) markTab() {
	for _, e := range a.root.QuerySelectorAll(".tabs a[data-mode]") {
		el := element(e)
		if el.GetAttribute("data-mode") == a.mode {
			el.SetAttribute("aria-current", "page")
		} else {
			el.RemoveAttribute("aria-current")
		}
	}
}

// stop ends whatever runs: a human visit, a replay timer, a model run.
func (a *app) stop() {
	if a.play != nil {
		a.leaveSealed()
		a.play.Close()
		a.play = nil
	}
	if a.watch != nil {
		a.watch.close(a)
		a.watch = nil
	}
	if a.model != nil {
		a.model.close()
		a.model = nil
	}
	a.closeViewer()
	a.closeTutorial()
	a.class = nil
}

// setStory tells, in the footer, the data story of the mode on screen.
func (a *app) setStory(m ui.DataMode) { a.set("story", ui.StoryHTML(m)) }

// midVisit reports whether leaving the page would interrupt a human's
// visit (it resumes after a reload, but the player should know).
func (a *app) midVisit() bool {
	p := a.play
	return a.mode == ui.ModePlay && p != nil && p.Stage > ui.StageConsent && p.Stage < ui.StageResult
}

// onLeave asks before the page is left mid-visit.
func (a *app) onLeave(ev dom.Event) {
	if a.midVisit() || (a.model != nil && a.model.running) {
		preventDefault(ev)
		setReturnValue(ev)
	}
}

// go opens a route through the address bar (so Back works).
func (a *app) go_(r ui.Route) {
	s := r.String()
	if s == a.hash() {
		a.navigate(r)
		return
	}
	a.win.Location().SetHash(s)
}
