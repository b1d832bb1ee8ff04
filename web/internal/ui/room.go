package ui

import (
	"encoding/json"
	"strings"

	"github.com/normgym/normgym/web/nickname"
)

// The classroom on the NormGym site: a student opens #room=CODE (or
// types the code on the Join screen), picks a nickname, takes the guided
// first minute once per browser, then plays the room's visit. These are
// the screens and the mirrors of serve/api's room types (site_test.go
// checks them against the originals).

// ModeJoin is the screen where a student types a class's code.
const ModeJoin = "join"

// RoomInfo mirrors the fields of api.Room (GET /api/rooms/CODE) that the
// student's page uses.
type RoomInfo struct {
	Code      string `json:"code"`
	Name      string `json:"name,omitempty"`
	SameVisit bool   `json:"same_visit"`
	// Tutorial is the room's tutorial visit: its norm is not the room's
	// (nor, where the room leaves one out, its family), so it hints
	// nothing; the page plays it alone and never sends it.
	Tutorial string `json:"tutorial,omitempty"`
}

// ParseRoomInfo reads GET /api/rooms/CODE's answer.
func ParseRoomInfo(body []byte) (RoomInfo, bool) {
	var r RoomInfo
	if json.Unmarshal(body, &r) != nil || r.Code == "" {
		return RoomInfo{}, false
	}
	return r, true
}

// JoinRequest mirrors api.JoinRequest (POST /api/rooms/CODE/join).
type JoinRequest struct {
	Participant string `json:"participant"`
	Nickname    string `json:"nickname"`
}

// Joined mirrors api.Joined.
type Joined struct {
	Room     string `json:"room"`
	Nickname string `json:"nickname"`
}

// CheckNickname returns the nickname as the room will keep it, or a
// message for the student: the server's own rules (web/nickname),
// checked before anything is sent.
func CheckNickname(s string) (string, string) {
	n, err := nickname.Normalize(s)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "nickname: ")
		return "", Title(msg) + "."
	}
	return n, ""
}

// RoomCode reads a class code as a student types it (any case, with
// spaces or dashes) into the form a route carries, or "" when it cannot
// be one. The server decides whether the room exists.
func RoomCode(s string) string {
	var b strings.Builder
	for _, c := range strings.ToUpper(s) {
		switch {
		case c == ' ' || c == '-':
		case c >= 'A' && c <= 'Z' || c >= '0' && c <= '9':
			b.WriteRune(c)
		default:
			return ""
		}
	}
	code := b.String()
	if len(code) == 12 {
		code = code[:4] + "-" + code[4:8] + "-" + code[8:]
	}
	if !ValidRoom(code) {
		return ""
	}
	return code
}

// JoinCodeHTML is the screen where a student types the class's code; msg
// says what was wrong with the last one.
func JoinCodeHTML(value, msg string) string {
	var b strings.Builder
	b.WriteString(`<section class="card join" aria-labelledby="code-h"><h2 id="code-h" tabindex="-1">Join a class</h2>`)
	b.WriteString(`<p>Type the code your teacher shows you.</p><form id="code-form" novalidate><div class="field">`)
	b.WriteString(`<label for="room-code">Class code</label><input id="room-code" type="text" autocomplete="off" autocapitalize="characters" spellcheck="false" maxlength="20" placeholder="ABCD-EFGH-JKMN" aria-describedby="code-err" value="` + esc(value) + `">`)
	b.WriteString(`<p id="code-err" class="alert" role="alert">` + esc(msg) + `</p></div>`)
	b.WriteString(`<div class="actions"><button type="submit" class="btn primary">Next</button></div></form>`)
	b.WriteString(StoryHTML(DataClassroom) + `</section>`)
	return b.String()
}

// JoinHTML is the screen where a student picks a nickname in room r;
// value is what was typed and msg what was wrong with it.
func JoinHTML(r RoomInfo, value, msg string) string {
	var b strings.Builder
	b.WriteString(`<section class="card join" aria-labelledby="join-h"><h2 id="join-h" tabindex="-1">Join your class</h2><p>`)
	if r.Name != "" {
		b.WriteString(`Class <strong>` + esc(r.Name) + `</strong> · `)
	}
	b.WriteString(`code <code>` + esc(r.Code) + `</code></p>`)
	if r.SameVisit {
		b.WriteString(`<p>Everyone in this class plays the same visit. Keep what you find out to yourself until your teacher reveals the rule!</p>`)
	}
	b.WriteString(`<form id="join-form" novalidate><div class="field"><label for="nick">Your nickname or seat number</label>`)
	b.WriteString(`<input id="nick" type="text" autocomplete="off" autocapitalize="words" spellcheck="false" maxlength="` + itoa(nickname.MaxLen) +
		`" aria-describedby="nick-help nick-err" value="` + esc(value) + `">`)
	b.WriteString(`<p id="nick-help" class="hint">Not your real name: make one up (like Blue Fox) or use your seat number (like 12). Up to ` +
		itoa(nickname.MaxLen) + ` letters, digits and spaces. Your teacher's screen shows it.</p>`)
	b.WriteString(`<p id="nick-err" class="alert" role="alert">` + esc(msg) + `</p></div>`)
	b.WriteString(`<div class="actions"><button type="submit" class="btn primary">Join</button></div></form>`)
	b.WriteString(StoryHTML(DataClassroom) + `</section>`)
	return b.String()
}

// ResultHeldHTML is the result screen of a classroom where everyone plays
// the same visit, before the teacher reveals the rule: the scores s and
// the option the student picked (picked: "" if unknown), but not the
// rule, not whether the answer was right, nor the visit's id (which names
// the rule). The server holds those back (SessionResult.Held) so that a
// student who finishes first cannot spoil the visit for the others. The
// screen offers to look again (data-act check-reveal; the page also looks
// by itself now and then) and to download what the student has: a result
// that names no visit.
func ResultHeldHTML(s Scores, picked string, story DataMode) string {
	var b strings.Builder
	b.WriteString(resultHead(s))
	b.WriteString(scoresHTML(s))
	b.WriteString(`<div class="reveal held"><h3>The rule stays a secret for now</h3><p>Everyone in your class played this visit: your teacher will show its rule to the whole class. Until then, keep what you think it is to yourself!</p>`)
	if picked != "" {
		b.WriteString(`<p>You picked: ` + Quoted(picked) + `</p>`)
	}
	b.WriteString(`<p class="hint">When your teacher has shown the rule, this screen shows it too, with your answer and your visit.</p></div>`)
	b.WriteString(StoryHTML(story))
	b.WriteString(`<div class="actions"><button type="button" class="btn primary" data-act="check-reveal">Is the rule shown yet?</button>` +
		`<button type="button" class="btn" data-act="download">Download my result (JSON)</button></div>` +
		`<p id="reveal-status" class="hint" role="status"></p></section>`)
	return b.String()
}

// Quoted puts a sentence in quotation marks, as HTML, ending the
// sentence around it with a full stop only when the quoted text does not
// end with its own (“Walk on the path.” rather than “Walk on the path.”.).
func Quoted(text string) string {
	q := `“` + esc(text) + `”`
	if strings.HasSuffix(text, ".") || strings.HasSuffix(text, "!") || strings.HasSuffix(text, "?") {
		return q
	}
	return q + "."
}
