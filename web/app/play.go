//go:build js && wasm

package main

import (
	"encoding/json"
	"strconv"

	"honnef.co/go/js/dom/v2"

	"github.com/normgym/normgym/web/internal/ui"
)

// Where a human's visit in progress is kept (ui.Journal), one slot per
// kind of play: a reload, Back, or a trip to Watch and back resumes it.
const (
	keyProgressLocal = "normgym.progress.play"
	keyProgressSite  = "normgym.progress.site"
)

// storeJournal is ui.Journal over localStorage.
type storeJournal struct{ key string }

func (j storeJournal) Load() (ui.Progress, bool) {
	var p ui.Progress
	s := storageGet(j.key)
	if s == "" || json.Unmarshal([]byte(s), &p) != nil {
		return ui.Progress{}, false
	}
	return p, true
}

func (j storeJournal) Save(p ui.Progress) {
	if b, err := json.Marshal(p); err == nil {
		storageSet(j.key, string(b))
	}
}

func (j storeJournal) Clear() { storageSet(j.key, "") }

// journal is the slot of the visit on screen.
func (a *app) journal() storeJournal {
	if a.visit.Assigned {
		return storeJournal{keyProgressSite}
	}
	return storeJournal{keyProgressLocal}
}

// openPlay opens the visit in a.visit, resuming it where the journal
// left it when the journal holds it.
func (a *app) openPlay() {
	j := a.journal()
	var p *ui.Play
	resumed := false
	if pr, ok := j.Load(); ok && pr.Key == a.visit.Key() {
		rp, err := ui.Resume(a.client, a.visit, pr, "human", "human", j)
		if err == nil {
			p, resumed = rp, true
		}
	}
	if p == nil {
		np, err := ui.NewPlay(a.client, a.visit, "human", "human")
		if err != nil {
			a.set("screen", `<section class="card" role="alert"><h2>This visit cannot be opened</h2><p>`+escape(err.Error())+`</p></section>`)
			return
		}
		np.Journal = j
		p = np
	}
	a.play = p
	a.resetFeed()
	if resumed {
		a.replayFeed(p)
	} else {
		a.addEvents(p.Last.Events, &p.Obs().Frame)
	}
	a.renderPlay()
	if resumed && p.Stage == ui.StagePlay {
		a.latest = "Welcome back: your visit goes on from where you left it."
		a.set("status", escape(a.latest))
	}
}

// replayFeed rebuilds the feed of a resumed visit from its trajectory.
func (a *app) replayFeed(p *ui.Play) {
	env, first, err := a.client.Open(a.visit.ID)
	if err != nil {
		return
	}
	defer env.Close()
	a.addEvents(first.Events, &first.Observation.Frame)
	for _, act := range p.Actions {
		r, err := ui.StepShown(env, act)
		if err != nil {
			return
		}
		a.addEvents(r.Events, &r.Observation.Frame)
	}
}

func (a *app) worldTitle(name string) string {
	for _, w := range a.info.Worlds {
		if w.Name == name {
			return w.Title
		}
	}
	return ""
}

// story is the data story of Play on screen.
func (a *app) story() ui.DataMode {
	if a.study != nil {
		return ui.DataStudy
	}
	room := ""
	if a.site != nil && a.site.assigned != nil {
		room = a.site.assigned.Room
	}
	return ui.DataModeOf(ui.ModePlay, a.site != nil && a.visit.Assigned, room)
}

// renderPlay draws the screen of the visit's stage. A new screen starts
// at the top of the page; keys never scroll it. A sealed visit's mark is
// kept at every stage (a reload draws the same screen).
func (a *app) renderPlay() {
	p := a.play
	a.top()
	a.setStory(a.story())
	if p.Visit.Sealed && p.Stage != ui.StageResult && a.study == nil {
		a.keepSealedMark(p)
	}
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
		nick := ""
		if a.class != nil {
			nick = a.class.nick
		}
		a.set("screen", ui.ConsentHTML(p.Visit, consent, room, nick))
		a.stage("consent")
		a.focus("#intro-h")
	case ui.StageDay:
		a.set("screen", ui.DayHTML(p.Obs(), p.Ended, a.worldTitle(p.Obs().World)))
		a.stage("day")
		// The heading, not the Begin button: a Space still held from the
		// last step would press a focused button when released.
		a.focus("#day-h")
	case ui.StagePlay:
		a.renderGame(p.Obs())
		a.set("controls", ui.PlayControlsHTML())
		a.showObs(ui.StepResponse{Observation: p.Obs()})
		a.stage("play")
		a.focus("#map")
		a.fitPlay()
	case ui.StageProbe:
		a.set("screen", ui.ProbeHTML(*p.Probe))
		a.stage("probe")
		a.focus("#probe-h")
	case ui.StageResult:
		switch {
		case a.study != nil:
			a.studyVisitOver()
		case p.Visit.Sealed:
			a.sealedResult(p, false)
		default:
			a.localResult(p)
		}
	}
}

func (a *app) playClick(act string, el *dom.BasicHTMLElement) {
	p := a.play
	if p == nil {
		return
	}
	switch act {
	case "start":
		a.startPlay(p)
	case "begin":
		p.Begin()
		a.renderPlay()
	case "download":
		a.downloadResult(p)
	case "check-reveal":
		go a.checkReveal(p, true)
	case "submit-run":
		if a.site != nil && a.site.submit == ui.SubmitReady {
			go a.submitRecord(p)
		}
	case "resubmit":
		go a.sendPending(p)
	case "again":
		a.go_(ui.Route{Mode: ui.ModePlay, Room: a.route.Room})
	case "watch-this":
		a.go_(ui.Route{Mode: ui.ModeWatch, Visit: p.Record.Visit, Agent: "observer"})
	case "give":
		m, _ := strconv.Atoi(el.GetAttribute("data-member"))
		a.command(ui.Command{Action: "give", Member: m})
	case "north", "south", "east", "west", "wait", "pick", "drop", "use", "bow":
		a.command(ui.Command{Action: act})
	}
}

// playIntent carries out what a key asked for (ui.Intent).
func (a *app) playIntent(in ui.KeyIntent) {
	p := a.play
	switch {
	case in.Act:
		a.command(in.Command)
	case in.Advance && p.Stage == ui.StageConsent:
		a.startPlay(p)
	case in.Advance && p.Stage == ui.StageDay:
		p.Begin()
		a.renderPlay()
	case in.Choose > 0:
		if opt := input(a.byID("opt" + strconv.Itoa(in.Choose-1))); opt != nil {
			opt.SetChecked(true)
			a.focus("#opt" + strconv.Itoa(in.Choose-1))
		}
	case in.Submit:
		a.submitProbe()
	}
}

// command sends a newcomer's command to the sim and draws the outcome.
// A sealed visit's commands go to the server in order, from a goroutine
// (a fetch cannot wait inside an event callback); keys pressed while one
// is on its way wait their turn (a few at most: a key beyond them is not
// taken, and the line under the map says so). The map says "Waiting for
// the server" while a step takes long (body[data-busy], style.css).
func (a *app) command(c ui.Command) {
	p := a.play
	if p == nil || p.Stage != ui.StagePlay {
		return
	}
	if !p.Visit.Sealed {
		a.act(p, c)
		return
	}
	if len(a.queued) >= maxQueued {
		// Not taken, and the player is told so.
		a.dropped++
		a.data("dropped", strconv.Itoa(a.dropped))
		a.set("status", escape(ui.QueueFull))
		return
	}
	a.queued = append(a.queued, c)
	if a.stepping {
		return
	}
	a.stepping = true
	a.data("busy", "1")
	go func() {
		for len(a.queued) > 0 && a.play == p && p.Stage == ui.StagePlay {
			next := a.queued[0]
			a.queued = a.queued[1:]
			a.act(p, next)
		}
		a.queued, a.stepping = nil, false
		a.data("busy", "")
	}()
}

// maxQueued is how many commands of a sealed visit may wait for the
// server's answer to the one before.
const maxQueued = 4

// act carries out a command in p and draws the outcome.
func (a *app) act(p *ui.Play, c ui.Command) {
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
		a.addEvents(r.Events, &r.Observation.Frame)
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
		if in := input(a.byID("opt" + strconv.Itoa(i))); in != nil && in.Checked() {
			k = i
		}
	}
	if k < 0 {
		a.focus("#opt0")
		return
	}
	conf := 0.5
	if el := a.byID("confidence"); el != nil {
		if v, err := strconv.Atoi(value(el)); err == nil {
			conf = float64(v) / 100
		}
	}
	finish := func() {
		if err := p.Finish(k, conf); err != nil {
			a.set("screen", `<section class="card" role="alert"><p>`+escape(err.Error())+`</p></section>`)
			return
		}
		a.renderPlay()
	}
	if p.Visit.Sealed {
		// The answer goes to the server: not from inside the event.
		if a.stepping {
			return
		}
		a.stepping = true
		a.data("busy", "1")
		go func() {
			finish()
			a.stepping = false
			a.data("busy", "")
		}()
		return
	}
	finish()
}
