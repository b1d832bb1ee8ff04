//go:build js && wasm

package main

import (
	"errors"

	"github.com/normgym/normgym/web/internal/ui"
)

// Sealed play: the site's Play, in a classroom or not. The server steps
// the visit (a session, ui.Sealed) and this page only draws what it
// answers: the page never runs the sim during the visit, so neither its
// memory, its storage nor its traffic holds the visit's id or its rule
// before the probe. The result screen's rule and baselines come from a
// worker that runs the sim once the visit is over (result.go).

// keySealedOpen keeps, in localStorage, the sealed session this browser
// has open on the server, or whose result is on screen (ui.SealedMark): a
// reload goes straight back to it with its token (the only credential:
// the pseudonym reopens nothing) instead of asking for consent again, and
// draws the same screen (the day's summary, the result). Under a newer
// consent, or in another room, the page asks again. Nothing in it names
// the visit. It is forgotten when the player leaves a result (leaveSealed);
// a result held for a class's reveal keeps it, so that the class's link
// shows that result again until it is released and left.
const keySealedOpen = "normgym.sealed"

// openSealedConsent shows the consent screen of the sealed visit the
// server holds for the participant, or resumes the session it has open.
func (a *app) openSealedConsent(r ui.Route, as ui.Assignment) {
	a.visit = ui.Resolved{Suite: as.Suite, Assigned: true, Sealed: true, Class: as.Room != ""}
	a.set("visit-label", escape(a.visit.Label()))
	if _, ok := a.sealedMark(as.Room); ok {
		a.openSealed(r)
		return
	}
	// A Play with no environment yet: the session opens on Start, once
	// the player has agreed (the server requires the consent).
	a.play = &ui.Play{Visit: a.visit, Stage: ui.StageConsent}
	a.resetFeed()
	a.renderPlay()
}

// sealedWaiting reports whether p is a sealed visit whose session is not
// open yet (the consent screen).
func sealedWaiting(p *ui.Play) bool { return p != nil && p.Visit.Sealed && p.Env == nil }

// openSealed resumes the session this page keeps the token of, or opens
// the participant's next one, and shows it at its stage. It runs in its
// own goroutine.
func (a *app) openSealed(r ui.Route) {
	a.set("status", "Opening your visit on the server…")
	room := ""
	if a.site.assigned != nil {
		room = a.site.assigned.Room
	}
	var p *ui.Play
	var err error
	if m, ok := a.sealedMark(room); ok {
		p, err = ui.ResumeSealedPlay(fetchAs, m, a.visit)
		var he *ui.HTTPError
		if errors.As(err, &he) && (he.Status == 404 || he.Status == 410) {
			// The kept session is gone (it expired, or the server lost
			// it): open the next visit instead.
			storageSet(keySealedOpen, "")
			p, err = nil, nil
		}
	}
	if p == nil && err == nil {
		req := ui.SessionRequest{Participant: a.site.participant, Consent: true, ConsentVersion: a.site.consent.Version, Room: room}
		p, err = ui.OpenSealedPlay(fetchAs, req, a.visit)
	}
	if a.route != r || a.mode != ui.ModePlay {
		if p != nil {
			p.Close()
		}
		return // the user went elsewhere meanwhile
	}
	if err != nil {
		storageSet(keySealedOpen, "")
		var he *ui.HTTPError
		a.siteError(err.Error(), !errors.As(err, &he) || he.Status >= 500)
		return
	}
	a.play = p
	a.resetFeed()
	s := p.Env.(*ui.Sealed)
	a.keepSealedMark(p)
	if s.Last.Resumed && s.Last.Actions > 0 {
		// Draw the visit's feed again from what the server kept.
		if t, err := s.Trail(); err == nil {
			a.addEvents(t.Events, &p.Obs().Frame)
		}
	} else {
		a.addEvents(p.Last.Events, &p.Obs().Frame)
	}
	a.renderPlay()
	if s.Last.Resumed && p.Stage == ui.StagePlay {
		a.latest = "Welcome back: your visit goes on from where you left it."
		a.set("status", escape(a.latest))
	}
}

// startPlay leaves the consent screen: a sealed visit opens its session
// on the server first.
func (a *app) startPlay(p *ui.Play) {
	if sealedWaiting(p) {
		r := a.route
		go a.openSealed(r)
		return
	}
	p.Start()
	a.renderPlay()
}

// sealedMark returns the kept mark of a sealed session in room ("" for
// none) under the current consent.
func (a *app) sealedMark(room string) (ui.SealedMark, bool) {
	m, ok := ui.ParseSealedMark(storageGet(keySealedOpen))
	return m, ok && m.Consent == a.site.consent.Version && m.Room == room
}

// keepSealedMark keeps p's mark (ui.Play.Mark): its token and what its
// screens show again after a reload.
func (a *app) keepSealedMark(p *ui.Play) {
	s, ok := p.Env.(*ui.Sealed)
	if !ok || a.site == nil || a.study != nil || s.Token() == "" {
		return // a study keeps its own marks (study.go)
	}
	room := ""
	if a.site.assigned != nil {
		room = a.site.assigned.Room
	}
	storageSet(keySealedOpen, p.Mark(ui.SealedMark{Consent: a.site.consent.Version, Room: room, Token: s.Token()}).String())
}

// leaveSealed forgets the kept mark when the player leaves a sealed
// visit's result that is not held (a held one waits for the reveal).
func (a *app) leaveSealed() {
	p := a.play
	if p == nil || !p.Visit.Sealed || p.Stage != ui.StageResult || a.study != nil {
		return
	}
	if s, ok := p.Env.(*ui.Sealed); ok && !s.Held() {
		storageSet(keySealedOpen, "")
	}
}
