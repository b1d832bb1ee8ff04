//go:build js && wasm

package main

import (
	"encoding/json"
	"strconv"
	"strings"
	"syscall/js"

	"honnef.co/go/js/dom/v2"

	"github.com/normgym/normgym/web/internal/ui"
)

// Drawing a visit on screen: the map, the feed, the records.

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
	if t := a.tutorial(); t != nil && t.Pinned() {
		status = t.Line(&o.Frame) // the sanction the tutorial asks about
	}
	a.set("status", escape(status))
	a.data("step", strconv.Itoa(o.Frame.Step))
	a.data("day", strconv.Itoa(o.Day))
}

// who names the newcomer in the feed: "" when the player is the
// newcomer, else the baseline or model playing it.
func (a *app) who() string {
	switch {
	case a.mode == ui.ModeWatch && a.watch != nil:
		return "the " + a.watch.w.Agent
	case a.mode == ui.ModeModel, a.mode == ui.ModeTranscript:
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
	if t := a.tutorial(); t != nil {
		m = t.Marks(m)
	}
	a.set("grid-wrap", ui.GridHTML(o, m))
}

// showWhere marks the tile of a sanction from the feed on today's map.
func (a *app) showWhere(el *dom.BasicHTMLElement) {
	x, errX := strconv.Atoi(el.GetAttribute("data-x"))
	y, errY := strconv.Atoi(el.GetAttribute("data-y"))
	day, _ := strconv.Atoi(el.GetAttribute("data-day"))
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
			insertHTML(feed, "afterbegin", h)
		}
	}
}

func (a *app) catalog() []ui.Norm {
	if a.norms == nil && a.client != nil {
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
	js.Global().Set("normgymLastRecord", string(b)) // not the DOM
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
	a.download("normgym-"+rec.World+"-"+rec.Condition+"-"+rec.Client+"-"+h+".json", "application/json", b)
}
