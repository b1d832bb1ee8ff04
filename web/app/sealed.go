//go:build js && wasm

package main

import (
	"errors"

	"github.com/normgym/normgym/web/internal/ui"
)

// Sealed play: the site's Play outside classrooms. The server steps the
// visit (a session, ui.Sealed) and this page only draws what it answers:
// the page never runs the sim during the visit, so neither its memory,
// its storage nor its traffic holds the visit's id or its rule before the
// probe. The sim starts when the visit is over, for the result screen's
// rule and baselines.

// keySealedOpen keeps, in localStorage, the sealed session this browser
// has open on the server (ui.SealedMark): a reload goes straight back to
// it with its token (the only credential: the pseudonym reopens nothing)
// instead of asking for consent again. Under a newer consent, or in
// another room, the page asks again. Nothing of the visit is in it.
const keySealedOpen = "normgym.sealed"

// openSealedConsent shows the consent screen of the sealed visit the
// server holds for the participant, or resumes the session it has open.
func (a *app) openSealedConsent(r ui.Route, as ui.Assignment) {
	a.visit = ui.Resolved{Suite: as.Suite, Assigned: true, Sealed: true}
	a.set("visit-label", escape(a.visit.Label()))
	if m, ok := ui.ParseSealedMark(storageGet(keySealedOpen)); ok && m.Consent == a.site.consent.Version && m.Room == as.Room {
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
	if m, ok := ui.ParseSealedMark(storageGet(keySealedOpen)); ok && m.Consent == a.site.consent.Version && m.Room == room {
		p, err = ui.ResumeSealedPlay(fetchAs, m.Token, a.visit)
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
	storageSet(keySealedOpen, ui.SealedMark{Consent: a.site.consent.Version, Room: room, Token: s.Token()}.String())
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

// sealedResult readies the result screen of a sealed visit: the server
// stored the run when the probe was answered, and the page's sim, which
// the result screen needs for the rule and the baselines, may start now
// that the visit is over. It reports whether the screen must wait for it
// (the screen is drawn again once it has started).
func (a *app) sealedResult(p *ui.Play) (wait bool) {
	if !p.Visit.Sealed {
		return false
	}
	storageSet(keySealedOpen, "")
	if s, ok := p.Env.(*ui.Sealed); ok && s.Last.Result != nil && s.Last.Result.RunID != "" {
		a.site.submit, a.site.submitMsg = ui.SubmitStored, ""
	}
	if a.client != nil {
		return false
	}
	a.set("screen", `<section class="card" role="status"><h2>Your visit is over</h2><p>Loading your result…</p></section>`)
	a.stage("loading")
	go func() {
		if err := a.startSim(); err != nil {
			a.fatal(err.Error())
			return
		}
		if a.play == p {
			a.renderPlay()
		}
	}()
	return true
}
