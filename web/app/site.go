//go:build js && wasm

package main

import (
	"encoding/json"
	"math/rand/v2"
	"syscall/js"

	"honnef.co/go/js/dom/v2"

	"github.com/normgym/normgym/web/internal/ui"
)

// Site mode: served by `normgym serve`, Play asks the server for the
// visit (GET /api/assign) and submits the record (POST /api/runs). On a
// static host (no /api/consent) the app stays standalone.

// Keys in localStorage.
const (
	keyParticipant = "normgym.participant"
	// keyPending holds a submission not yet acknowledged by the server.
	keyPending = "normgym.pending"
)

// siteState is what the app knows of the server.
type siteState struct {
	consent     ui.SiteConsent
	participant string
	// assigned is the server's assignment for the visit on screen.
	assigned *ui.Assignment
	// submit is the submission state of the finished visit and its
	// message (ui.SubmitHTML).
	submit, submitMsg string
}

// detectSite asks the page's origin for /api/consent. It blocks: call it
// from main, not from an event callback.
func detectSite(win dom.Window) *siteState {
	if p := win.Location().Protocol(); p != "http:" && p != "https:" {
		return nil
	}
	status, body, err := fetchText("GET", "/api/consent", nil)
	if err != nil {
		return nil
	}
	c, ok := ui.ParseSiteConsent(status, body)
	if !ok {
		return nil
	}
	s := &siteState{consent: c, participant: storageGet(keyParticipant)}
	if !ui.ValidParticipant(s.participant) {
		s.participant = ui.RandomID(24, rand.IntN)
		storageSet(keyParticipant, s.participant)
	}
	js.Global().Set("normgymParticipant", s.participant) // not the DOM
	return s
}

// fetchText is a same-origin fetch returning the status and body.
func fetchText(method, path string, body []byte) (int, []byte, error) {
	return fetchAs(method, path, "", body)
}

// fetchAs is fetchText with a bearer token ("" for none): ui.Fetch.
func fetchAs(method, path, token string, body []byte) (int, []byte, error) {
	obj := js.Global().Get("Object")
	opts := obj.New()
	opts.Set("method", method)
	opts.Set("cache", "no-store")
	opts.Set("credentials", "same-origin")
	h := obj.New()
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
	if body != nil {
		h.Set("Content-Type", "application/json")
		opts.Set("body", string(body))
	}
	opts.Set("headers", h)
	resp, err := await(js.Global().Call("fetch", path, opts))
	if err != nil {
		return 0, nil, err
	}
	status := resp.Get("status").Int()
	text, err := await(resp.Call("text"))
	if err != nil {
		return status, nil, err
	}
	return status, []byte(text.String()), nil
}

// openSitePlay asks the server whether a visit waits for the participant
// (in the route's room, if any) and opens it: the server never names it,
// and steps it in a sealed session (sealed.go). It runs in its own
// goroutine.
func (a *app) openSitePlay(r ui.Route) {
	a.set("screen", `<section class="card"><p>Getting your visit from the server…</p></section>`)
	a.stage("assigning")
	// The pseudonym goes in the body, never in a URL (logs keep URLs).
	req, _ := json.Marshal(ui.AssignRequest{Participant: a.site.participant, Room: r.Room})
	status, body, err := fetchText("POST", "/api/assign", req)
	if a.route != r || a.mode != ui.ModePlay {
		return // the user went elsewhere meanwhile
	}
	var as ui.Assignment
	switch {
	case err != nil:
		a.siteError("The server could not be reached: "+err.Error(), true)
		return
	case status != 200:
		a.siteError(ui.ServerError(status, body), status >= 500)
		return
	case json.Unmarshal(body, &as) != nil:
		a.siteError("The server's answer is not an assignment.", true)
		return
	case as.Sealed:
		a.site.assigned = &as
		a.site.submit, a.site.submitMsg = "", ""
		a.openSealedConsent(r, as)
		return
	}
	if _, ok := a.sealedMark(r.Room); ok {
		// Nothing is left to play, but the last visit's result is kept
		// (a class's, held for the reveal): it is shown again.
		a.site.assigned = &as
		a.site.submit, a.site.submitMsg = "", ""
		a.openSealedConsent(r, as)
		return
	}
	switch {
	case r.Room != "":
		a.set("screen", `<section class="card" role="status"><h2>All done</h2><p>You have played every visit your class has for you. Thank you! Keep what you found out to yourself until your teacher shows the rule.</p></section>`)
		a.stage("assign-done")
		return
	}
	a.set("screen", `<section class="card" role="status"><h2>All done</h2><p>You have played every visit there is for you here. Thank you!</p><p><a href="/leaderboard">See the leaderboard</a></p></section>`)
	a.stage("assign-done")
}

func (a *app) siteError(msg string, retry bool) {
	h := `<section class="card" role="alert"><h2>No visit yet</h2><p>` + escape(msg) + `</p>`
	if retry {
		h += `<div class="actions"><button type="button" class="btn primary" data-act="reassign">Try again</button></div>`
	}
	a.set("screen", h+`</section>`)
	a.stage("error")
}

// submitRecord keeps the finished visit's submission in localStorage and
// sends it, when the player presses Send. It runs in its own goroutine.
func (a *app) submitRecord(p *ui.Play) {
	as := a.site.assigned
	if as == nil || p.Record == nil || p.Record.Visit != as.Visit {
		return
	}
	sub := ui.Submission{RunID: ui.RandomID(32, rand.IntN), Participant: a.site.participant, Consent: true,
		ConsentVersion: a.site.consent.Version, Room: as.Room, Record: *p.Record}
	b, err := json.Marshal(sub)
	if err != nil {
		return
	}
	storageSet(keyPending, string(b))
	// The record now waits in keyPending; the visit is over for the
	// journal (a reload resends the record, then asks for the next visit).
	storeJournal{keyProgressSite}.Clear()
	a.sendPending(p)
}

// sendPending sends the kept submission and shows how it went. Only an
// answer from the server clears it: a network error or a server fault
// keeps it for a retry (a retry reuses the run id, so it is stored once).
func (a *app) sendPending(p *ui.Play) {
	pending := storageGet(keyPending)
	if pending == "" {
		return
	}
	a.showSubmit(p, ui.SubmitSending, "")
	status, body, err := fetchText("POST", "/api/runs", []byte(pending))
	switch {
	case err != nil:
		a.showSubmit(p, ui.SubmitFailed, "the server could not be reached ("+err.Error()+").")
	case status >= 500:
		a.showSubmit(p, ui.SubmitFailed, ui.ServerError(status, body))
	case status >= 300:
		storageSet(keyPending, "")
		a.showSubmit(p, ui.SubmitRefused, ui.ServerError(status, body))
	default:
		storageSet(keyPending, "")
		a.showSubmit(p, ui.SubmitStored, "")
	}
}

// showSubmit records the submission state and draws it on the result
// screen, if it is still on screen.
func (a *app) showSubmit(p *ui.Play, state, msg string) {
	if p == nil || a.play != p {
		return // a leftover from an earlier page, or another visit on screen
	}
	a.site.submit, a.site.submitMsg = state, msg
	a.data("submit", state)
	if el := a.byID("submit-status"); el != nil {
		el.SetOuterHTML(ui.SubmitHTML(state, msg))
	}
}

// resendLeftover sends a submission an earlier page left unsent.
func (a *app) resendLeftover() {
	if storageGet(keyPending) != "" {
		a.sendPending(nil)
	}
}
