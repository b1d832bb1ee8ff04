//go:build js && wasm

package main

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/normgym/normgym/web/internal/ui"
)

// A classroom on the NormGym site (#room=CODE): the student picks a
// nickname, takes the guided first minute once per browser, then plays
// the room's visit as site mode does. The screens and the tutorial's
// prompts are ui's; this file moves them in and out of the DOM.

// Keys in localStorage.
const (
	// keyNicknames maps a room's code to the nickname taken in it.
	keyNicknames = "normgym.nicknames"
	// keyTutorial is set once the tutorial was finished or skipped.
	keyTutorial = "normgym.tutorial"
)

// classState is the room on screen.
type classState struct {
	route ui.Route
	info  ui.RoomInfo
	nick  string
	// tut is the tutorial in progress, if any: its own visit in the
	// page's module, with no journal and no record.
	tut     *ui.Tutorial
	tutPlay *ui.Play
	tutSaid string
}

// nicknames returns the nicknames this browser took, by room code.
func nicknames() map[string]string {
	m := map[string]string{}
	json.Unmarshal([]byte(storageGet(keyNicknames)), &m)
	return m
}

// openClass fetches the room of r and opens its next screen: the join
// form, the tutorial, or the visit. It runs in its own goroutine.
func (a *app) openClass(r ui.Route) {
	a.set("screen", `<section class="card"><p>Opening your class…</p></section>`)
	a.stage("class-loading")
	status, body, err := fetchText("GET", "/api/rooms/"+r.Room, nil)
	if a.route != r || a.mode != ui.ModePlay {
		return
	}
	info, ok := ui.ParseRoomInfo(body)
	switch {
	case err != nil:
		a.classError("The server could not be reached: "+err.Error(), true)
		return
	case status != 200:
		a.classError(ui.ServerError(status, body), status >= 500)
		return
	case !ok:
		a.classError("The server's answer is not a class.", true)
		return
	}
	a.class = &classState{route: r, info: info, nick: nicknames()[info.Code]}
	if a.class.nick == "" {
		a.showJoin("", "")
		return
	}
	a.afterJoin()
}

func (a *app) classError(msg string, retry bool) {
	h := `<section class="card" role="alert"><h2>This class cannot be opened</h2><p>` + escape(msg) + `</p><div class="actions">`
	if retry {
		h += `<button type="button" class="btn primary" data-act="reclass">Try again</button>`
	}
	a.set("screen", h+`<a class="btn" href="#mode=join">Type another code</a></div></section>`)
	a.stage("error")
}

// showJoin shows the nickname form with what was typed and what was
// wrong with it.
func (a *app) showJoin(value, msg string) {
	a.set("screen", ui.JoinHTML(a.class.info, value, msg))
	a.stage("join")
	a.focus("#nick")
}

// submitJoin sends the nickname typed, once ui.CheckNickname has let it
// through. It runs in its own goroutine.
func (a *app) submitJoin() {
	c := a.class
	if c == nil || a.site == nil {
		return
	}
	typed := value(a.byID("nick"))
	nick, msg := ui.CheckNickname(typed)
	if msg != "" {
		a.showJoin(typed, msg)
		return
	}
	req, _ := json.Marshal(ui.JoinRequest{Participant: a.site.participant, Nickname: nick})
	a.set("nick-err", "Joining…")
	status, body, err := fetchText("POST", "/api/rooms/"+c.info.Code+"/join", req)
	if a.class != c {
		return
	}
	var j ui.Joined
	switch {
	case err != nil:
		a.showJoin(typed, "The server could not be reached ("+err.Error()+"). Try again.")
		return
	case status != 200 || json.Unmarshal(body, &j) != nil:
		a.showJoin(typed, ui.ServerError(status, body))
		return
	}
	m := nicknames()
	m[c.info.Code] = j.Nickname
	if b, err := json.Marshal(m); err == nil {
		storageSet(keyNicknames, string(b))
	}
	c.nick = j.Nickname
	a.afterJoin()
}

// afterJoin opens the tutorial the first time this browser joins a
// class, else the room's visit.
func (a *app) afterJoin() {
	c := a.class
	if storageGet(keyTutorial) == "" && c.info.Tutorial != "" {
		a.openTutorial()
		return
	}
	go func() {
		a.resendLeftover()
		a.openSitePlay(c.route)
	}()
}

// openTutorial starts the guided minute on the room's tutorial visit, in
// the page's own sim (started here: a class's page needs it for nothing
// else). It runs in a goroutine (openClass's, submitJoin's).
func (a *app) openTutorial() {
	c := a.class
	if a.client == nil {
		a.set("screen", `<section class="card" role="status"><p>Getting the practice ready…</p></section>`)
		if err := a.startSim(); err != nil || a.class != c {
			if a.class == c {
				a.endTutorial()
			}
			return
		}
	}
	p, err := ui.NewPlay(a.client, ui.Resolved{ID: c.info.Tutorial}, "human", "human")
	if err != nil {
		a.endTutorial()
		return
	}
	p.Start()
	p.Begin()
	c.tut, c.tutPlay, c.tutSaid = ui.NewTutorial(c.info.Tutorial), p, ""
	a.resetFeed()
	a.set("visit-label", "tutorial")
	a.top()
	a.renderGame(p.Obs())
	a.set("controls", ui.PlayControlsHTML())
	a.addEvents(p.Last.Events, &p.Obs().Frame)
	a.showTutorial(ui.StepResponse{Observation: p.Obs()})
	// Not "Day 1 of 2 begins": the tutorial is no day of a visit.
	a.latest = ""
	a.set("status", "")
	a.stage("tutorial")
	a.focus("#map")
}

// tutorial is the tutorial on screen, if any.
func (a *app) tutorial() *ui.Tutorial {
	if c := a.class; c != nil && c.tut != nil && a.mode == ui.ModePlay {
		return c.tut
	}
	return nil
}

// showTutorial draws a step of the tutorial, its prompt in the place of
// the visit's status bar (the day and the task are not the tutorial's).
func (a *app) showTutorial(r ui.StepResponse) {
	a.showObs(r)
	a.sayTutorial()
}

// sayTutorial draws the tutorial's box. A new prompt may be taller or
// shorter than the last: on a phone the page then scrolls so that the map
// and the line under it sit above the pad again, as at the start of a day
// (the one scrolling the tutorial does while playing; the box above the
// map stays in view).
func (a *app) sayTutorial() {
	c := a.class
	a.data("tut", strconv.Itoa(int(c.tut.Step)))
	h := ui.TutorialHTML(c.tut)
	a.set("hud", h)
	if h == c.tutSaid {
		return
	}
	c.tutSaid = h
	a.fitPlay()
	if c.tut.Done() {
		a.focus(`[data-act="tut-done"]`)
	}
}

// tutorialCommand takes a command in the tutorial.
func (a *app) tutorialCommand(cmd ui.Command) {
	c := a.class
	p := c.tutPlay
	if c.tut.Done() {
		return
	}
	action, why := cmd.Resolve(p.Obs())
	if action == "" {
		a.set("status", escape(why))
		return
	}
	r, _, err := p.Act(action)
	if err != nil {
		a.set("status", escape(err.Error()))
		return
	}
	if p.Stage != ui.StagePlay {
		// The day ended (the tutorial never takes that long): stop here.
		c.tut.Stepped(action, r)
		a.addEvents(r.Events, &r.Observation.Frame)
		a.sayTutorial()
		return
	}
	c.tut.Stepped(action, r)
	a.showTutorial(r)
}

// tutorialClick handles a click in the tutorial; it reports whether the
// click was the tutorial's.
func (a *app) tutorialClick(act string) bool {
	c := a.class
	if c == nil || c.tut == nil {
		return false
	}
	switch act {
	case "tut-skip", "tut-done":
		a.endTutorial()
	case "tut-where":
		if ev := c.tut.Sanction; ev != nil {
			if p, ok := ui.Where(*ev); ok && a.shown != nil && ev.Day == a.shown.Day {
				a.focusSpot = &ui.Spot{Pos: p, Day: ev.Day}
				a.drawGrid(ui.Marks{})
			}
			a.set("status", escape(ui.EventLine(*ev, &a.shown.Frame, "")))
		}
		fallthrough
	case "where":
		c.tut.Where()
		a.sayTutorial()
	case "north", "south", "east", "west", "wait", "pick", "drop", "use", "bow":
		a.tutorialCommand(ui.Command{Action: act})
	case "give":
		a.tutorialCommand(ui.Command{Action: "give"})
	default:
		return false
	}
	return true
}

// endTutorial closes the tutorial for good in this browser and goes on to
// the room's visit.
func (a *app) endTutorial() {
	if a.study != nil {
		a.endStudyTutorial()
		return
	}
	storageSet(keyTutorial, "done")
	a.closeTutorial()
	a.resetFeed()
	a.afterJoin()
}

// closeTutorial frees the tutorial's visit, if one is open.
func (a *app) closeTutorial() {
	if c := a.class; c != nil && c.tutPlay != nil {
		c.tutPlay.Close()
		c.tut, c.tutPlay = nil, nil
	}
}

// openJoinCode shows the screen where a student types a class's code.
func (a *app) openJoinCode(value, msg string) {
	a.set("visit-label", "your class")
	a.set("screen", ui.JoinCodeHTML(value, msg))
	a.stage("join-code")
	a.focus("#room-code")
}

// submitCode opens the class of the code typed.
func (a *app) submitCode() {
	typed := value(a.byID("room-code"))
	code := ui.RoomCode(typed)
	if code == "" {
		msg := "That is not a class code: it looks like ABCD-EFGH-JKMN (letters and digits)."
		if strings.TrimSpace(typed) == "" {
			msg = "Type the code your teacher shows you."
		}
		a.openJoinCode(typed, msg)
		return
	}
	a.go_(ui.Route{Mode: ui.ModePlay, Room: code})
}
