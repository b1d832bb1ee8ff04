//go:build js && wasm

package main

import (
	"encoding/json"
	"errors"
	"strconv"
	"syscall/js"
	"time"

	"github.com/normgym/normgym/web/internal/ui"
)

// A study on the site (#study=CODE, where the study link /s/CODE sends
// the page): consent, the practice and the questions, the sealed visit,
// the debrief and the end. The screens are ui's; this file moves the
// participant through them with the study's routes (serve/server,
// /api/study/CODE/…). The visit itself is the site's sealed play
// (sealed.go), opened through the study.

// keyStudies keeps, in localStorage, the study token of each study this
// browser entered (ui.StudyMarks): a reload resumes with it; the platform
// id opens nothing by itself.
const keyStudies = "normgym.study"

// studyState is the study on screen.
type studyState struct {
	link  ui.StudyLink
	pub   ui.StudyPublic
	state ui.StudyState
	mark  ui.StudyMark
	// practiced: the practice was taken or skipped (this page).
	practiced bool
}

// readStudyLink reads a study from the address and takes the link's
// platform ids out of the address bar at once. It reports whether the
// page is a study's.
func (a *app) readStudyLink() bool {
	l, ok := ui.ParseStudyLink(a.hash())
	if !ok || a.site == nil {
		return false
	}
	loc := a.win.Location()
	js.Global().Get("history").Call("replaceState", js.Null(), "", loc.Pathname()+l.Fragment()) // dom/v2 has no History
	a.study = &studyState{link: l, mark: ui.ParseStudyMarks(storageGet(keyStudies))[l.Code]}
	// A participant plays the study here: no tabs, no visit picker.
	for _, sel := range []string{".tabs", ".visit-btn"} {
		if el := a.query(sel); el != nil {
			el.SetAttribute("hidden", "")
			el.SetAttribute("style", "display:none") // the stylesheet's display wins over [hidden]
		}
	}
	return true
}

// keepMark stores the study's mark.
func (a *app) keepMark() {
	m := ui.ParseStudyMarks(storageGet(keyStudies))
	m[a.study.link.Code] = a.study.mark
	storageSet(keyStudies, m.String())
}

// studyPath is the path of one of the study's routes ("" for the study).
func (a *app) studyPath(action string) string {
	p := "/api/study/" + a.study.link.Code
	if action != "" {
		p += "/" + action
	}
	return p
}

// openStudy fetches the study and enters it (or resumes the entry this
// browser made), then shows the participant's stage. It runs in its own
// goroutine.
func (a *app) openStudy() {
	st := a.study
	a.route, a.mode = ui.Route{Mode: ui.ModePlay}, ui.ModePlay
	a.setStory(ui.DataStudy)
	a.set("visit-label", "study")
	a.set("screen", `<section class="card" role="status"><p>Opening the study…</p></section>`)
	a.stage("study-loading")
	status, body, err := fetchText("GET", a.studyPath(""), nil)
	if err != nil || status != 200 || json.Unmarshal(body, &st.pub) != nil {
		a.studyStop("This study cannot be opened", studyErr(status, body, err), err != nil || status >= 500)
		return
	}
	var state ui.StudyState
	if len(st.link.Params) == 0 && st.mark.Token != "" {
		state, err = a.studyCall("GET", "me", nil)
	} else {
		state, err = a.studyCall("POST", "enter", ui.StudyEnter{Params: st.link.Params})
	}
	var he *ui.HTTPError
	if errors.As(err, &he) && he.Status == 404 && st.mark.Token != "" {
		st.mark = ui.StudyMark{}
		a.keepMark()
		a.studyStop("Please open the study again", "This browser's place in the study is no longer known: open the study's link again from your platform.", false)
		return
	}
	if err != nil {
		a.studyStop("You cannot take part now", err.Error(), he == nil || he.Status >= 500)
		return
	}
	if state.Token != "" {
		st.mark = ui.StudyMark{Token: state.Token}
		if st.pub.RedirectNeedsID {
			st.mark.ID = st.link.Params[st.pub.IDParam]
		}
		a.keepMark()
	}
	// The link's ids are used: forget them (a reload resumes with the token).
	st.link.Params = nil
	st.state = state
	if state.Stage == ui.StudyPlayStage && st.mark.Visit {
		a.openStudyVisit()
		return
	}
	a.showStudy()
}

// studyErr says why a study request failed.
func studyErr(status int, body []byte, err error) string {
	if err != nil {
		return "The server could not be reached: " + err.Error()
	}
	return ui.ServerError(status, body)
}

// studyCall sends one of the participant's requests with the study token
// and reads the participant's state.
func (a *app) studyCall(method, action string, req any) (ui.StudyState, error) {
	var body []byte
	if req != nil {
		body, _ = json.Marshal(req)
	}
	status, resp, err := fetchAs(method, a.studyPath(action), a.study.mark.Token, body)
	var st ui.StudyState
	switch {
	case err != nil:
		return st, errors.New("the server could not be reached: " + err.Error())
	case status/100 != 2:
		return st, &ui.HTTPError{Status: status, Message: ui.ServerError(status, resp)}
	case json.Unmarshal(resp, &st) != nil:
		return st, errors.New("the server's answer could not be read")
	}
	return st, nil
}

// studyStop shows a screen that ends the study here.
func (a *app) studyStop(title, msg string, retry bool) {
	a.set("screen", ui.StudyStopHTML(title, msg, retry))
	a.stage("study-stop")
	a.focus("#study-h")
}

// showStudy shows the participant's stage.
func (a *app) showStudy() {
	st := a.study
	s := st.state
	a.top()
	a.setStory(ui.DataStudy)
	switch s.Stage {
	case ui.StudyConsentStage:
		a.set("screen", ui.StudyConsentHTML(s, st.pub))
		a.stage("study-consent")
	case ui.StudyCheckStage:
		if !st.practiced {
			a.set("screen", ui.StudyPracticeHTML())
			a.stage("study-practice")
		} else {
			a.set("screen", ui.StudyQuestionsHTML(s.Questions, ""))
			a.stage("study-check")
		}
	case ui.StudyPlayStage:
		a.set("screen", ui.StudyCheckedHTML(s, s.Questions))
		a.stage("study-checked")
	case ui.StudyDebriefStage:
		a.showDebrief()
		return
	case ui.StudyDoneStage:
		a.showStudyDone()
		return
	case ui.StudyExpiredStage:
		a.studyStop("Time is up", s.Message, false)
		return
	}
	a.focus("#study-h")
}

// studyPost sends one of the participant's steps and shows where it
// leads. It runs in its own goroutine.
func (a *app) studyPost(action string, req any) {
	a.data("busy", "1")
	s, err := a.studyCall("POST", action, req)
	a.data("busy", "")
	if err != nil {
		var he *ui.HTTPError
		a.studyStop("Something went wrong", err.Error(), he == nil || errors.As(err, &he) && he.Status >= 500)
		return
	}
	a.study.state = s
	a.showStudy()
}

// studyClick handles the study's buttons; it reports whether act was one.
func (a *app) studyClick(act string) bool {
	st := a.study
	if st == nil {
		return false
	}
	switch act {
	case "study-consent":
		go a.studyPost("consent", ui.StudyConsent{Consent: true, ConsentVersion: st.state.ConsentVersion})
	case "study-decline":
		a.set("screen", ui.StudyDeclinedHTML())
		a.stage("study-declined")
		a.focus("#study-h")
	case "study-reconsider":
		a.showStudy()
	case "study-tutorial":
		a.openStudyTutorial()
	case "study-questions":
		st.practiced = true
		a.showStudy()
	case "study-play":
		go a.openStudyVisit()
	case "study-finish":
		go a.studyPost("finish", nil)
	case "study-retry":
		go a.openStudy()
	default:
		return false
	}
	return true
}

// submitStudyCheck sends the questions' answers, once each has one.
func (a *app) submitStudyCheck() {
	st := a.study
	if st == nil || st.state.Stage != ui.StudyCheckStage {
		return
	}
	answers := make([]int, len(st.state.Questions))
	for i, q := range st.state.Questions {
		answers[i] = -1
		for k := range q.Options {
			if in := input(a.byID("q" + strconv.Itoa(i) + "o" + strconv.Itoa(k))); in != nil && in.Checked() {
				answers[i] = k
			}
		}
		if answers[i] < 0 {
			a.set("study-check-err", "Please answer question "+strconv.Itoa(i+1)+".")
			a.focus("#q" + strconv.Itoa(i) + "o0")
			return
		}
	}
	go a.studyPost("check", ui.StudyCheck{Answers: answers})
}

// openStudyTutorial starts the practice: the classroom's guided minute
// on the study's tutorial visit, in the page's own sim, kept nowhere.
func (a *app) openStudyTutorial() {
	a.class = &classState{route: a.route, info: ui.RoomInfo{Tutorial: a.study.state.Tutorial}}
	a.openTutorial()
	if c := a.class; c != nil && c.tut != nil {
		c.tut.Study = true
		a.sayTutorial()
	}
}

// endStudyTutorial closes the practice and goes on to the questions.
func (a *app) endStudyTutorial() {
	a.closeTutorial()
	a.class = nil
	a.study.practiced = true
	a.resetFeed()
	a.set("visit-label", "study")
	a.showStudy()
}

// openStudyVisit opens (or resumes) the participant's sealed visit and
// shows it at its stage. It runs in its own goroutine.
func (a *app) openStudyVisit() {
	st := a.study
	a.set("screen", `<section class="card" role="status"><p>Opening your visit on the server…</p></section>`)
	a.stage("study-opening")
	v := ui.Resolved{Assigned: true, Sealed: true}
	p, resumed, err := ui.OpenStudyPlay(fetchAs, st.link.Code, st.mark.Token, v)
	if err != nil {
		var he *ui.HTTPError
		if errors.As(err, &he) && he.Status < 500 {
			// The server says where the participant stands instead.
			if s, err := a.studyCall("GET", "me", nil); err == nil && s.Stage != ui.StudyPlayStage {
				st.state = s
				a.showStudy()
				return
			}
		}
		a.studyStop("Your visit cannot be opened", err.Error(), he == nil || he.Status >= 500)
		return
	}
	st.mark.Visit = true
	a.keepMark()
	a.visit = v
	a.set("visit-label", escape(v.Label()))
	a.play = p
	a.resetFeed()
	s := p.Env.(*ui.Sealed)
	if resumed && s.Last.Actions > 0 {
		if t, err := s.Trail(); err == nil {
			a.addEvents(t.Events, &p.Obs().Frame)
		}
	} else {
		a.addEvents(p.Last.Events, &p.Obs().Frame)
	}
	a.renderPlay()
	if resumed && p.Stage == ui.StagePlay {
		a.latest = "Welcome back: your visit goes on from where you left it."
		a.set("status", escape(a.latest))
	}
}

// studyVisitOver takes the place of the result screen in a study: the
// server has stored the run; the debrief comes next.
func (a *app) studyVisitOver() {
	a.set("screen", `<section class="card" role="status"><h2>Your visit is over</h2><p>Loading the last page…</p></section>`)
	a.stage("loading")
	go func() {
		if s, err := a.studyCall("GET", "me", nil); err == nil {
			a.study.state = s
		}
		a.showStudy()
	}()
}

// showDebrief shows the debrief: the visit's outcome and rule (when this
// page played it) and the study's words.
func (a *app) showDebrief() {
	var h string
	if p := a.play; p != nil && p.Record != nil {
		h = ui.StudyDebriefHTML(*p.Record, ui.FindNorm(a.catalog(), p.Record.Norm), a.study.state.Debrief)
		a.publish(p.Record)
	} else {
		h = ui.StudyDebriefHTML(ui.Record{}, nil, a.study.state.Debrief)
	}
	a.set("screen", h)
	a.stage("study-debrief")
	a.focus("#res-h")
}

// showStudyDone shows the completion code and goes back to the platform
// when the study has a redirect.
func (a *app) showStudyDone() {
	st := a.study
	to := ui.StudyRedirect(st.state, st.mark.ID)
	a.set("screen", ui.StudyDoneHTML(st.state, to))
	a.stage("study-done")
	a.focus("#study-h")
	if to != "" {
		go func() {
			time.Sleep(1500 * time.Millisecond)
			a.win.Location().SetHref(to)
		}()
	}
}
