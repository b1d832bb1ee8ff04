//go:build js && wasm

package main

import (
	"strconv"
	"strings"
	"syscall/js"
	"time"

	"github.com/normgym/normgym/web/internal/ui"
)

func (a *app) openPlay() {
	p, err := ui.NewPlay(a.client, a.visit, "human", "human")
	if err != nil {
		a.set("screen", `<section class="card" role="alert"><h2>This visit cannot be opened</h2><p>`+escape(err.Error())+`</p></section>`)
		return
	}
	a.play = p
	a.addEvents(p.Last.Events)
	a.renderPlay()
}

func (a *app) worldTitle(name string) string {
	for _, w := range a.info.Worlds {
		if w.Name == name {
			return w.Title
		}
	}
	return ""
}

// renderPlay draws the screen of the visit's stage.
func (a *app) renderPlay() {
	p := a.play
	a.top()
	switch p.Stage {
	case ui.StageConsent:
		var consent *ui.SiteConsent
		room := ""
		if a.site != nil && p.Visit.Assigned {
			consent = &a.site.consent
			if a.site.assigned != nil {
				room = a.site.assigned.Room
			}
		}
		a.set("screen", ui.ConsentHTML(p.Visit, consent, room))
		a.stage("consent")
		a.focus("[data-act=start]")
	case ui.StageDay:
		a.set("screen", ui.DayHTML(p.Obs(), p.Ended, a.worldTitle(p.Obs().World)))
		a.stage("day")
		a.focus("[data-act=begin]")
	case ui.StagePlay:
		a.renderGame(p.Obs())
		a.set("controls", ui.PlayControlsHTML())
		a.showObs(ui.StepResponse{Observation: p.Obs()})
		a.stage("play")
		a.focus("#main")
	case ui.StageProbe:
		a.set("screen", ui.ProbeHTML(*p.Probe))
		a.stage("probe")
		a.focus("#opt0")
	case ui.StageResult:
		if a.site != nil && p.Visit.Assigned && a.site.submit == "" {
			a.site.submit = ui.SubmitSending
			go a.submitRecord(p)
		}
		a.renderResult(nil)
		a.stage("result")
		a.focus("#res-h")
		// Let the page paint, then run the baselines on the same visit.
		rec := p.Record
		go func() {
			time.Sleep(30 * time.Millisecond)
			if a.play != p {
				return
			}
			others := a.client.Baselines(rec.Visit, a.info.Agents)
			if a.play == p {
				a.renderResult(others)
			}
		}()
	}
}

func (a *app) renderResult(others []ui.Outcome) {
	p := a.play
	rec := *p.Record
	a.publish(p.Record)
	h := ui.ResultHTML(rec, ui.FindNorm(a.catalog(), rec.Norm), p.Probe, others)
	if others == nil {
		h = h[:len(h)-len("</section>")] + `<p class="hint" id="baselines-wait">Running the baselines on this visit…</p></section>`
	}
	if a.site != nil && p.Visit.Assigned && a.site.submit != "" {
		// Under the heading, where it is seen first.
		if i := strings.Index(h, "</h2>"); i >= 0 {
			h = h[:i+5] + ui.SubmitHTML(a.site.submit, a.site.submitMsg) + h[i+5:]
		}
	}
	a.set("screen", h)
	a.set("visit-label", escape(rec.Visit))
	if el := a.byID("res-h"); el != nil {
		el.SetAttribute("tabindex", "-1")
	}
}

func (a *app) playClick(act string, el js.Value) {
	p := a.play
	if p == nil {
		return
	}
	switch act {
	case "start":
		p.Start()
		a.renderPlay()
	case "begin":
		p.Begin()
		a.renderPlay()
	case "download":
		a.downloadRecord(p.Record)
	case "resubmit":
		go a.sendPending(p)
	case "again":
		a.go_(ui.Route{Mode: ui.ModePlay, Room: a.route.Room})
	case "watch-this":
		a.go_(ui.Route{Mode: ui.ModeWatch, Visit: p.Record.Visit, Agent: "observer"})
	case "give":
		m, _ := strconv.Atoi(attr(el, "data-member"))
		a.command(ui.Command{Action: "give", Member: m})
	case "north", "south", "east", "west", "wait", "pick", "drop", "use", "bow":
		a.command(ui.Command{Action: act})
	}
}

// playKey handles a key in play mode and reports whether it used it.
func (a *app) playKey(key, tag string) bool {
	p := a.play
	a.top()
	switch p.Stage {
	case ui.StageConsent:
		if key == "Enter" && tag != "A" {
			p.Start()
			a.renderPlay()
			return true
		}
	case ui.StageDay:
		if key == "Enter" || key == " " {
			p.Begin()
			a.renderPlay()
			return true
		}
	case ui.StagePlay:
		if tag == "BUTTON" && key == "Enter" {
			return false // activates the focused button
		}
		c, ok := ui.KeyCommand(key)
		if !ok {
			return false
		}
		a.command(c)
		return true
	case ui.StageProbe:
		if len(key) == 1 && key[0] >= '1' && key[0] <= '9' {
			if el := a.byID("opt" + strconv.Itoa(int(key[0]-'1'))); el != nil {
				el.Underlying().Set("checked", true)
				el.Underlying().Call("focus")
				return true
			}
		}
		if key == "Enter" {
			a.submitProbe()
			return true
		}
	}
	return false
}

// command sends a newcomer's command to the sim and draws the outcome.
func (a *app) command(c ui.Command) {
	p := a.play
	if p == nil || p.Stage != ui.StagePlay {
		return
	}
	action, why := c.Resolve(p.Obs())
	if action == "" {
		a.set("status", escape(why))
		if c.Action == "give" {
			a.focus("#give button")
		}
		return
	}
	r, _, err := p.Act(action)
	if err != nil {
		a.set("status", escape(err.Error()))
		return
	}
	if p.Stage != ui.StagePlay {
		a.addEvents(r.Events)
		a.renderPlay()
		return
	}
	a.showObs(r)
}

func (a *app) submitProbe() {
	p := a.play
	if p == nil || p.Stage != ui.StageProbe {
		return
	}
	k := -1
	for i := range p.Probe.Options {
		if el := a.byID("opt" + strconv.Itoa(i)); el != nil && el.Underlying().Get("checked").Bool() {
			k = i
		}
	}
	if k < 0 {
		a.focus("#opt0")
		return
	}
	conf := 0.5
	if el := a.byID("confidence"); el != nil {
		if v, err := strconv.Atoi(el.Underlying().Get("value").String()); err == nil {
			conf = float64(v) / 100
		}
	}
	if err := p.Finish(k, conf); err != nil {
		a.set("screen", `<section class="card" role="alert"><p>`+escape(err.Error())+`</p></section>`)
		return
	}
	a.renderPlay()
}
