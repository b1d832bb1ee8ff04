//go:build js && wasm

package main

import (
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"strings"
	"syscall/js"

	"github.com/normgym/normgym/web/internal/ui"
)

// app is the page's state. Everything runs on the browser's one thread:
// event callbacks and the model loop's goroutine take turns.
type app struct {
	doc    document
	client *ui.Client
	info   ui.Info
	norms  []ui.Norm

	route ui.Route
	visit ui.Resolved
	mode  string

	play  *ui.Play
	watch *watchState
	model *modelState

	// site is set when the app is served by `normgym serve`.
	site *siteState

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
	a := &app{doc: document{js.Global().Get("document")}}
	bridge := js.Global().Get("normgymSim")
	a.client = ui.NewClient(jsSim{bridge}, bridge.Get("sha256").String())
	info, err := a.client.Info()
	if err != nil {
		a.fatal("sim.wasm does not answer: " + err.Error())
		select {}
	}
	a.info = info
	if a.site = detectSite(); a.site != nil {
		if tabs := a.doc.QuerySelector(".tabs"); tabs != nil {
			tabs.Underlying().Call("insertAdjacentHTML", "beforeend", `<a href="/leaderboard" class="lb-link">Leaderboard</a>`)
		}
		a.doc.Underlying().Get("documentElement").Get("dataset").Set("site", "1")
	}
	a.doc.AddEventListener("click", a.onClick)
	a.doc.AddEventListener("keydown", a.onKey)
	a.doc.AddEventListener("submit", a.onSubmit)
	a.doc.AddEventListener("input", a.onInput)
	a.doc.AddEventListener("change", a.onChange)
	win := js.Global()
	listen(win, "hashchange", func(event) { a.navigate(ui.ParseRoute(a.hash())) })
	listen(win, "beforeunload", a.onLeave)
	a.byID("boot").Underlying().Call("remove")
	a.navigate(ui.ParseRoute(a.hash()))
	js.Global().Get("performance").Call("mark", "normgym-interactive")
	a.doc.Underlying().Get("documentElement").Get("dataset").Set("ready", "1")
	select {}
}

func (a *app) byID(id string) *element { return a.doc.GetElementByID(id) }

func (a *app) set(id, html string) {
	if el := a.byID(id); el != nil {
		el.SetInnerHTML(html)
	}
}

func (a *app) focus(sel string) {
	el := a.doc.QuerySelector(sel)
	if el == nil {
		return
	}
	opts := js.Global().Get("Object").New()
	opts.Set("preventScroll", true)
	el.Underlying().Call("focus", opts)
}

// top scrolls to the top of the page, for a new screen.
func (a *app) top() { js.Global().Call("scrollTo", 0, 0) }

// fitPlay scrolls a phone's screen (one column, under 761 px wide) so
// that the map and the banner under it sit just above the pad, which
// sticks to the bottom of the screen: as little of the HUD scrolls away
// as that takes, and never the top of the map. Wider screens show
// everything already.
func (a *app) fitPlay() {
	w := js.Global()
	if w.Get("innerWidth").Int() > 760 {
		return
	}
	m, b, pad := a.byID("map"), a.byID("status"), a.doc.QuerySelector(".ctl")
	if m == nil || b == nil || pad == nil {
		return
	}
	y := w.Get("scrollY").Float()
	mapTop := m.Underlying().Call("getBoundingClientRect").Get("top").Float() + y
	bannerBottom := b.Underlying().Call("getBoundingClientRect").Get("bottom").Float() + y
	room := w.Get("innerHeight").Float() - pad.Underlying().Call("getBoundingClientRect").Get("height").Float()
	w.Call("scrollTo", 0, min(mapTop, max(0, bannerBottom-room)))
}

func (a *app) hash() string { return js.Global().Get("location").Get("hash").String() }

// setHash records the route in the address bar without reloading.
func (a *app) setHash(r ui.Route) {
	js.Global().Get("history").Call("replaceState", js.Null(), "", r.String())
}

// stage tells tests and styles where the page stands.
func (a *app) stage(s string) { a.doc.Underlying().Get("body").Get("dataset").Set("stage", s) }

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

// navigate opens the route: fills in a random suite visit when it names
// none, then shows its mode.
func (a *app) navigate(r ui.Route) {
	a.stop()
	a.setStory(ui.DataModeOf(r.Mode, a.site != nil, r.Room))
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
	for _, el := range a.doc.QuerySelectorAll(".tabs a[data-mode]") {
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
func (a *app) onLeave(ev event) {
	if a.midVisit() || (a.model != nil && a.model.running) {
		ev.PreventDefault()
		ev.Underlying().Set("returnValue", "")
	}
}

// go opens a route through the address bar (so Back works).
func (a *app) go_(r ui.Route) {
	s := r.String()
	if s == a.hash() {
		a.navigate(r)
		return
	}
	js.Global().Get("location").Set("hash", s)
}

// renderGame draws the layout of a visit for the mode, with the legend.
func (a *app) renderGame(o *ui.Observation) {
	a.set("screen", ui.GameHTML(a.mode))
	a.set("legend", ui.LegendHTML(o))
	var b strings.Builder
	for i := len(a.feed) - 1; i >= 0; i-- {
		b.WriteString(a.feed[i])
	}
	a.set("feed", b.String())
}

// showObs draws an observation and the events of the step that led to it.
func (a *app) showObs(r ui.StepResponse) {
	o := r.Observation
	a.set("hud", ui.HUDHTML(o))
	a.shown, a.focusSpot = o, nil
	a.addEvents(r.Events, &o.Frame)
	a.drawGrid(ui.MarksOf(r.Events))
	a.set("roster", ui.RosterHTML(o))
	if a.mode == ui.ModePlay {
		a.set("give", ui.GiveHTML(o))
	}
	status := ""
	if msg := ui.Blocked(r.Events); msg != "" {
		status = msg
	}
	if status == "" {
		status = a.latest
	}
	a.set("status", escape(status))
	a.doc.Underlying().Get("body").Get("dataset").Set("step", o.Frame.Step)
	a.doc.Underlying().Get("body").Get("dataset").Set("day", o.Day)
}

// who names the newcomer in the feed: "" when the player is the
// newcomer, else the baseline or model playing it.
func (a *app) who() string {
	switch {
	case a.mode == ui.ModeWatch && a.watch != nil:
		return "the " + a.watch.w.Agent
	case a.mode == ui.ModeModel:
		return "the model"
	}
	return ""
}

// drawGrid draws the map on screen with m's marks, the recent
// sanctions' tiles and the one a feed line asked for.
func (a *app) drawGrid(m ui.Marks) {
	o := a.shown
	if o == nil {
		return
	}
	m.Spots = ui.Trail(a.spots, o.Day, o.Frame.Step)
	if s := a.focusSpot; s != nil && s.Day == o.Day {
		m.Focus = &s.Pos
	}
	a.set("grid-wrap", ui.GridHTML(o, m))
}

// showWhere marks the tile of a sanction from the feed on today's map.
func (a *app) showWhere(el js.Value) {
	x, errX := strconv.Atoi(attr(el, "data-x"))
	y, errY := strconv.Atoi(attr(el, "data-y"))
	day, _ := strconv.Atoi(attr(el, "data-day"))
	if errX != nil || errY != nil || a.shown == nil {
		return
	}
	if day != a.shown.Day {
		a.set("status", "That happened on day "+strconv.Itoa(day)+", in another layout.")
		return
	}
	a.focusSpot = &ui.Spot{Pos: ui.Pos{X: x, Y: y}, Day: day}
	a.drawGrid(ui.Marks{})
	a.set("status", escape("Marked on the map: x "+strconv.Itoa(x)+", y "+strconv.Itoa(y)+"."))
}

func (a *app) addEvents(evs []ui.Event, f *ui.Frame) {
	if line := ui.BannerText(evs, f, a.who()); line != "" {
		a.latest = line
	}
	for _, ev := range evs {
		if p, ok := ui.Where(ev); ok {
			a.spots = append(a.spots, ui.Spot{Pos: p, Day: ev.Day, Step: ev.Step})
		}
	}
	feed := a.byID("feed")
	for _, ev := range evs {
		h := ui.FeedItemHTML(ev, f, a.who())
		a.feed = append(a.feed, h)
		if feed != nil {
			feed.Underlying().Call("insertAdjacentHTML", "afterbegin", h)
		}
	}
}

func (a *app) catalog() []ui.Norm {
	if a.norms == nil {
		ns, err := a.client.Norms()
		if err == nil {
			a.norms = ns
		}
	}
	return a.norms
}

// publish keeps the last finished record where tests and curious users
// can read it (globalThis.normgymLastRecord), and returns it as one line
// of JSON: a results file `normgym replay` reads.
func (a *app) publish(rec *ui.Record) []byte {
	b, err := json.Marshal(rec)
	if err != nil {
		return nil
	}
	js.Global().Set("normgymLastRecord", string(b))
	return append(b, '\n')
}

func (a *app) downloadRecord(rec *ui.Record) {
	if rec == nil {
		return
	}
	b := a.publish(rec)
	h := rec.Hash
	if len(h) > 8 {
		h = h[:8]
	}
	download("normgym-"+rec.World+"-"+rec.Condition+"-"+rec.Client+"-"+h+".json", "application/json", b)
}

func (a *app) onClick(ev event) {
	if tab := closest(ev, ".tabs a[data-mode]"); !tab.IsNull() {
		ev.PreventDefault()
		r := a.route
		r.Mode = attr(tab, "data-mode")
		a.go_(r)
		return
	}
	el := closest(ev, "[data-act]")
	if el.IsNull() || el.Get("disabled").Truthy() {
		return
	}
	act := attr(el, "data-act")
	switch act {
	case "picker":
		a.renderPicker(attr(el, "aria-expanded") != "true")
		return
	case "random":
		a.go_(ui.Route{Mode: a.mode, Room: a.route.Room})
		return
	case "reassign":
		if a.site != nil {
			go a.openSitePlay(a.route)
		}
		return
	case "p-random", "p-suite", "p-custom":
		ev.PreventDefault()
		a.pickerAction(act)
		return
	case "where":
		a.showWhere(el)
		if ev.Underlying().Get("detail").Int() > 0 && a.doc.GetElementByID("map") != nil {
			a.focus("#map") // a click: the keys stay the game's
		}
		return
	}
	switch a.mode {
	case ui.ModePlay:
		a.playClick(act, el)
		if pointer := ev.Underlying().Get("detail").Int() > 0; pointer && a.play != nil && a.play.Stage == ui.StagePlay {
			// A tap or click on the pad gives the keys back to the map.
			a.focus("#map")
		}
	case ui.ModeWatch:
		a.watchClick(act)
	case ui.ModeModel:
		a.modelClick(act)
	}
}

// focusOf classifies where a key event's target is.
func focusOf(ev event) ui.Focus {
	t := ev.Underlying().Get("target")
	if t.IsNull() || t.IsUndefined() || t.Get("tagName").IsUndefined() {
		return ui.FocusNone
	}
	tag := t.Get("tagName").String()
	typ := ""
	if tag == "INPUT" {
		typ = str(t.Get("type"))
	}
	id := str(t.Get("id"))
	inPad := !t.Call("closest", ".controls").IsNull()
	isMap := id == "map" || id == "main" || !t.Call("closest", "#map").IsNull()
	return ui.FocusOf(tag, typ, inPad, isMap)
}

func (a *app) onKey(ev event) {
	if ev.Key() == "Escape" {
		if el := a.byID("picker"); el != nil && !el.HasAttribute("hidden") {
			a.renderPicker(false)
			a.focus(".visit-btn")
			return
		}
	}
	k := ui.KeyPress{Key: ev.Key(), Repeat: ev.Repeat(), Modified: ev.Modified(), Focus: focusOf(ev)}
	switch {
	case a.mode == ui.ModePlay && a.play != nil:
		in := ui.Intent(a.play.Stage, k)
		if in.Prevent {
			ev.PreventDefault()
		}
		a.playIntent(in)
	case a.mode == ui.ModeWatch && a.watch != nil:
		act, prevent := ui.WatchIntent(k)
		if prevent {
			ev.PreventDefault()
		}
		if act != "" {
			a.watchClick(act)
		}
	default:
		if k.Repeat && (k.Focus == ui.FocusControl || k.Focus == ui.FocusPad) && (k.Key == "Enter" || k.Key == " ") {
			ev.PreventDefault() // a held key does not press a button again and again
		}
	}
}

func (a *app) onSubmit(ev event) {
	ev.PreventDefault()
	switch ev.Underlying().Get("target").Get("id").String() {
	case "probe-form":
		a.submitProbe()
	case "model-form":
		a.startModel()
	}
}

func (a *app) onInput(ev event) {
	t := ev.Underlying().Get("target")
	if t.Get("id").String() == "confidence" {
		a.set("conf-out", t.Get("value").String()+"%")
	}
}

func (a *app) onChange(ev event) {
	t := ev.Underlying().Get("target")
	switch t.Get("id").String() {
	case "w-agent":
		r := a.route
		r.Agent = t.Get("value").String()
		a.go_(r)
	case "w-speed":
		if a.watch != nil {
			a.watch.retime(a)
		}
	case "p-suite":
		if n := a.byID("p-n"); n != nil {
			n.SetAttribute("max", attr(t.Get("selectedOptions").Index(0), "data-visits"))
		}
	}
}
