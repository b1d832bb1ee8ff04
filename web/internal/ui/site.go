package ui

import (
	"encoding/json"
	"strings"
)

// Site mode: when the app is served by `normgym serve`, Play takes its
// visits from the server and submits the records there. These are
// mirrors of serve/api's types (see site_test.go), so the UI module does
// not link the server's packages.

// SiteConsent mirrors api.Consent (GET /api/consent).
type SiteConsent struct {
	Version string `json:"version"`
	Text    string `json:"text"`
}

// AssignRequest mirrors api.AssignRequest (POST /api/assign).
type AssignRequest struct {
	Participant string `json:"participant"`
	Room        string `json:"room,omitempty"`
}

// Assignment mirrors api.Assignment (POST /api/assign).
type Assignment struct {
	Participant string `json:"participant"`
	Room        string `json:"room,omitempty"`
	Visit       string `json:"visit,omitempty"`
	Suite       string `json:"suite,omitempty"`
	// Sealed: a visit waits, to be played through a session of the
	// server (its id is never sent to the page).
	Sealed bool `json:"sealed,omitempty"`
	Done   bool `json:"done,omitempty"`
	Played int  `json:"played"`
}

// Submission mirrors api.Submission (POST /api/runs).
type Submission struct {
	RunID          string `json:"run_id"`
	Participant    string `json:"participant,omitempty"`
	Consent        bool   `json:"consent"`
	ConsentVersion string `json:"consent_version,omitempty"`
	Room           string `json:"room,omitempty"`
	Record         Record `json:"record"`
}

// ParseSiteConsent reads GET /api/consent's answer. A static host answers
// 404 or a page that is not this JSON: then there is no server, and ok is
// false.
func ParseSiteConsent(status int, body []byte) (SiteConsent, bool) {
	var c SiteConsent
	if status != 200 || json.Unmarshal(body, &c) != nil || c.Version == "" || c.Text == "" {
		return SiteConsent{}, false
	}
	return c, true
}

// ServerError returns the message of a server's error answer
// ({"code", "error"}), or the body itself, cut short.
func ServerError(status int, body []byte) string {
	var e struct {
		Code    string `json:"code"`
		Message string `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && e.Message != "" {
		return e.Message
	}
	msg := strings.TrimSpace(string(body))
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	if msg == "" {
		msg = "the server answered " + itoa(status)
	}
	return msg
}

// ValidParticipant mirrors api.ValidParticipant: 8 to 64 characters of
// [A-Za-z0-9_-].
func ValidParticipant(s string) bool { return validToken(s, 8, 64) }

// ValidRoom reports whether s may be a room's join code (the server
// decides whether it exists).
func ValidRoom(s string) bool { return validToken(s, 3, 16) }

func validToken(s string, lo, hi int) bool {
	if len(s) < lo || len(s) > hi {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

const idChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// RandomID returns n characters of [A-Za-z0-9] drawn with intn (a source
// of uniform integers in [0, k)): pseudonyms and run ids.
func RandomID(n int, intn func(k int) int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = idChars[intn(len(idChars))]
	}
	return string(b)
}

// SiteConsentHTML is the consent paragraph on the NormGym site: the
// server's text and version, which the submission agrees to; in a
// classroom, the room and the student's nickname in it.
func SiteConsentHTML(c SiteConsent, room, nick string) string {
	var b strings.Builder
	b.WriteString(`<h3>Consent</h3><p class="consent" data-consent-version="` + esc(c.Version) + `">` + esc(c.Text) + `</p>`)
	b.WriteString(`<p class="hint">Consent version ` + esc(c.Version) + `.`)
	if room != "" {
		b.WriteString(` Classroom <strong>` + esc(room) + `</strong>`)
		if nick != "" {
			b.WriteString(`, where you are <strong class="nick">` + esc(nick) + `</strong>`)
		}
		b.WriteString(`.`)
	}
	b.WriteString(`</p>`)
	b.WriteString(StoryHTML(DataModeOf(ModePlay, true, room)))
	return b.String()
}

// Submit states of a site-mode record.
const (
	// SubmitReady: finished, not sent; the player chooses to send it (the
	// consent says nothing is sent until they do).
	SubmitReady   = "ready"
	SubmitSending = "sending"
	SubmitStored  = "stored"
	SubmitRefused = "refused" // the server said no: retrying will not help
	SubmitFailed  = "failed"  // no answer, or a server fault: retry
)

// StoredInClassHTML says, on a class's result screen, that the server
// stored the visit (state SubmitStored) for the class: not for the public
// leaderboard, which a class's runs are never on.
func StoredInClassHTML() string {
	return `<div id="submit-status" class="submit submit-stored" role="status" data-submit="` + SubmitStored +
		`"><p><strong>Your visit is saved for your class.</strong> Your teacher sees how the class did; it is not on the public leaderboard.</p></div>`
}

// SubmitHTML says where the record's submission stands; msg is the
// server's or the network's message.
func SubmitHTML(state, msg string) string {
	var b strings.Builder
	b.WriteString(`<div id="submit-status" class="submit submit-` + state + `" role="status" data-submit="` + state + `">`)
	switch state {
	case SubmitReady:
		b.WriteString(`<p><strong>Your record is ready to send.</strong> Nothing has been sent yet.</p>` +
			`<div class="actions"><button type="button" class="btn primary" data-act="submit-run">Send my record</button></div>`)
	case SubmitSending:
		b.WriteString(`<p>Sending your record to the server…</p>`)
	case SubmitStored:
		b.WriteString(`<p><strong>Your run was verified and stored.</strong> ` + esc(msg) + `</p>`)
	case SubmitRefused:
		b.WriteString(`<p class="alert" role="alert"><strong>The server did not store your run:</strong> ` + esc(msg) + `</p>`)
	case SubmitFailed:
		b.WriteString(`<p class="alert" role="alert"><strong>Your run is not sent yet:</strong> ` + esc(msg) +
			` It is kept in this browser until the server has it.</p><div class="actions"><button type="button" class="btn primary" data-act="resubmit">Try again</button></div>`)
	}
	b.WriteString(`<p><a href="/leaderboard">See the leaderboard</a></p></div>`)
	return b.String()
}
