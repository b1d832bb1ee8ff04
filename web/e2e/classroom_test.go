//go:build !js

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/store"
	"github.com/normgym/normgym/sim"
)

// TestClassroom is a lesson (issue 13, item 7): a teacher creates a room
// where everyone plays the same visit on /teach, at a projector's size;
// three students join with nicknames (on two phones and a Chromebook),
// the first by typing the class code; the guided first minute runs once
// per browser, teaches by the room's tutorial visit and sends nothing;
// each student plays and sends the same visit. The projected dashboard
// shows nicknames and never a pseudonym or the teacher token (until
// "Show"); the reveal shows the rule, the visit's label and how the class
// did. axe runs on every new screen.
func TestClassroom(t *testing.T) {
	needChromium(t)
	srv, store, _ := siteServerWith(t)

	// The teacher, on the projector.
	teacher := openSite(t, srv, 1280, 800)
	teacher.do(30*time.Second, chromedp.Navigate(srv.URL+"/teach"))
	teacher.poll(10*time.Second, `!!document.getElementById("make")`)
	teacher.eval(`document.getElementById("name").value = "Class 7B"; "ok"`)
	if got := teacher.eval(`document.querySelector('input[name="mode"]:checked').value`); got != "same" {
		t.Errorf("the room option checked by default is %q, want same (one visit for the class)", got)
	}
	teacher.do(10*time.Second, chromedp.Click(chromedp.CSS(`#make`)))
	teacher.poll(20*time.Second, `!document.getElementById("dash").hidden && document.getElementById("joinCode").textContent !== ""`)
	code := teacher.eval(`document.getElementById("joinCode").textContent`)
	token := teacher.eval(`JSON.parse(localStorage.getItem("normgym.teacher"))[` + strconv.Quote(code) + `] || ""`)
	if !api.ValidRoomCode(code) || len(token) < 32 {
		t.Fatalf("room %q, token of %d characters", code, len(token))
	}
	projectorSafe(t, teacher, token, nil, "the new room")
	teacher.axe("/teach dashboard")

	var room api.Room
	getJSON(t, srv.URL+"/api/rooms/"+code, "", &room)
	if !room.SameVisit || room.Visits != 1 || room.Tutorial == "" {
		t.Fatalf("room %+v: want one visit for everyone and a tutorial", room)
	}

	type student struct {
		w, h        int
		nick, shown string
		tutorial    string // "finish" or "skip"
		s           *session
		participant string
		visit       string
	}
	students := []*student{
		{w: 390, h: 844, nick: "Blue Fox", shown: "Blue Fox", tutorial: "finish"},
		{w: 390, h: 844, nick: "12", shown: "Seat 12", tutorial: "skip"},
		{w: 1280, h: 800, nick: "Owl", shown: "Owl", tutorial: "skip"},
	}
	for i, st := range students {
		st.s = openSite(t, srv, st.w, st.h)
		s := st.s
		size := strconv.Itoa(st.w) + "x" + strconv.Itoa(st.h)
		if i == 0 {
			// Typed by hand from the board: lower case, spaces.
			s.do(30*time.Second, chromedp.Navigate(srv.URL+"/#mode=join"))
			s.poll(30*time.Second, `document.documentElement.dataset.ready === "1"`)
			s.waitStage(10*time.Second, "join-code")
			checkStory(t, s, "join a class", "classroom", 2)
			s.axe("join a class")
			s.shot("class-code-" + size)
			typeInto(t, s, "#room-code", strings.ToLower(strings.ReplaceAll(code, "-", " ")))
			s.key(keyName("Enter"))
		} else {
			s.do(30*time.Second, chromedp.Navigate(srv.URL+"/#room="+code))
			s.poll(30*time.Second, `document.documentElement.dataset.ready === "1"`)
		}
		s.waitStage(20*time.Second, "join")
		st.participant = s.eval(`localStorage.getItem("normgym.participant") || ""`)
		if i == 0 {
			checkStory(t, s, "join", "classroom", 2)
			s.axe("join")
			s.shot("class-join-" + size)
		}
		if i == 1 {
			// Taken (the server says so), then personal data (the page
			// says so before sending anything), then a seat number.
			for _, bad := range []struct{ nick, says string }{
				{"blue-fox", "already has the nickname"},
				{"ana@school.org", "Use only letters"},
				{"0612345678", "most 3 digits"},
			} {
				typeInto(t, s, "#nick", bad.nick)
				s.key(keyName("Enter"))
				s.poll(10*time.Second, `document.getElementById("nick-err").textContent.includes(`+strconv.Quote(bad.says)+`)`)
				if s.eval(`document.body.dataset.stage`) != "join" {
					t.Fatalf("the nickname %q was taken", bad.nick)
				}
			}
			s.axe("join, refused")
			s.shot("class-join-refused-" + size)
		}
		typeInto(t, s, "#nick", st.nick)
		s.key(keyName("Enter"))
		s.waitStage(20*time.Second, "tutorial")
		tutorial(t, s, store, st.tutorial, room, code, size, i == 0)
		s.waitStage(20*time.Second, "consent")
		if got := s.eval(`(document.querySelector(".nick") || {}).textContent || ""`); got != st.shown {
			t.Errorf("student %d's consent screen names them %q, want %q", i+1, got, st.shown)
		}
		if i == 0 {
			// Once per browser: a reload goes back to the visit, not the tutorial.
			s.reload()
			if got := s.waitStage(20*time.Second, "consent", "tutorial", "join"); got != "consent" {
				t.Errorf("after a reload the student is on %q, want the visit's consent screen", got)
			}
		}
		// playAssigned opens the room again: a page away first, so that
		// its navigation loads the app anew.
		s.do(30*time.Second, chromedp.Navigate(srv.URL+"/leaderboard"))
		st.visit = playAssigned(t, s, store, "#room="+code, "class-student-"+strconv.Itoa(i+1)+"-"+size)
		if st.visit != students[0].visit {
			t.Errorf("student %d played %s, student 1 %s: the room plays one visit", i+1, st.visit, students[0].visit)
		}
		// The rule waits for the teacher: a student who finishes first
		// cannot spoil it for the others.
		s.poll(30*time.Second, `!document.getElementById("baselines-wait")`)
		id, _ := sim.ParseVisitID(st.visit)
		rule, _ := norms.Default().Lookup(id.Norm)
		// The rule's statement may be on screen only as the student's own
		// pick, which says nothing of whether it is the rule.
		text := s.eval(`document.body.innerText`)
		if strings.Count(text, rule.Statement) != strings.Count(text, "You picked: “"+rule.Statement) || strings.Contains(text, st.visit) ||
			!strings.Contains(text, "your teacher will show its rule") {
			t.Errorf("student %d's result screen shows the rule or the visit, or does not say the teacher will", i+1)
		}
		if i == 0 {
			s.shot("class-result-" + size)
			s.axe("classroom result")
		}
	}
	visit := students[0].visit
	id, err := sim.ParseVisitID(visit)
	if err != nil {
		t.Fatal(err)
	}
	rule, err := norms.Default().Lookup(id.Norm)
	if err != nil {
		t.Fatal(err)
	}

	// A fourth student holds the visit and plays on (by the API).
	late := "late-student-0001"
	body, _ := json.Marshal(api.JoinRequest{Participant: late, Nickname: "Late Owl"})
	resp, err := http.Post(srv.URL+"/api/rooms/"+code+"/join", "application/json", bytes.NewReader(body))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("the fourth student's join: %v %v", err, resp)
	}
	resp.Body.Close()
	postJSON(t, srv.URL+"/api/assign", api.AssignRequest{Participant: late, Room: code}, &api.Assignment{})

	// The dashboard, projected: nicknames, no pseudonym, no token.
	teacher.poll(20*time.Second, `document.getElementById("students").innerText.includes("Late Owl") && document.getElementById("playing").textContent === "1"`)
	var pseudonyms []string
	for _, st := range students {
		pseudonyms = append(pseudonyms, st.participant)
	}
	pseudonyms = append(pseudonyms, late)
	projectorSafe(t, teacher, token, pseudonyms, "the dashboard")
	rows := teacher.eval(`document.getElementById("students").innerText`)
	for _, st := range students {
		if !strings.Contains(rows, st.shown) {
			t.Errorf("the dashboard does not list %q:\n%s", st.shown, rows)
		}
	}
	if !strings.Contains(rows, "finished") || !strings.Contains(rows, "playing") {
		t.Errorf("the dashboard does not say who finished and who plays:\n%s", rows)
	}
	if strings.Contains(teacher.eval(`document.body.innerText`), rule.Statement) {
		t.Error("the dashboard shows the rule before the reveal")
	}
	teacher.shot("class-teacher-dashboard-1280x800")
	teacher.shotFull("class-teacher-dashboard-full-1280x800")
	teacher.axe("/teach dashboard with students")
	teacher.do(5*time.Second, chromedp.Click(chromedp.CSS(`#showToken`)))
	if !strings.Contains(teacher.eval(`document.body.innerText`), token) {
		t.Error("Show teacher token does not show it")
	}
	teacher.do(5*time.Second, chromedp.Click(chromedp.CSS(`#showToken`)))
	projectorSafe(t, teacher, token, pseudonyms, "the dashboard, token hidden again")

	// The reveal: first a warning, since a student still plays.
	teacher.do(5*time.Second, chromedp.Click(chromedp.CSS(`#revealBtn`)))
	teacher.poll(5*time.Second, `!document.getElementById("revealWarn").hidden`)
	if w := teacher.eval(`document.getElementById("revealWarnText").textContent`); !strings.Contains(w, "1 student is still playing") {
		t.Errorf("the reveal's warning: %q", w)
	}
	teacher.axe("/teach reveal warning")
	teacher.do(5*time.Second, chromedp.Click(chromedp.CSS(`#revealAnyway`)))
	teacher.poll(20*time.Second, `document.getElementById("revealBody").innerText.includes("Which rule did the class pick?")`)
	text := teacher.eval(`document.getElementById("reveal").innerText`)
	for _, want := range []string{rule.Statement, "Visit: " + serverLabel(visit), visit, "✓ the rule", "students who finished", "3 answers"} {
		if !strings.Contains(text, want) {
			t.Errorf("the reveal lacks %q:\n%s", want, text)
		}
	}
	for _, p := range pseudonyms {
		if strings.Contains(text, p) {
			t.Errorf("the reveal names the pseudonym %s", p)
		}
	}
	var rv api.Reveal
	getJSON(t, srv.URL+"/api/rooms/"+code+"/reveal", token, &rv)
	if len(rv.Visits) != 1 || rv.Visits[0].Students != 3 || rv.Visits[0].Rule != rule.Statement {
		t.Errorf("reveal: %+v", rv)
	}
	teacher.shot("class-teacher-reveal-1280x800")
	teacher.shotFull("class-teacher-reveal-full-1280x800")
	teacher.axe("/teach reveal")
	// The reveal on a phone, for a teacher who has only that.
	teacher.do(5*time.Second, chromedp.EmulateViewport(390, 844))
	teacher.shot("class-teacher-reveal-390x844")
	teacher.axe("/teach reveal, phone")
}

// serverLabel is the label the server gives a visit (server.VisitLabel):
// the test checks the page shows it, not how it is made.
func serverLabel(visit string) string {
	id, _ := sim.ParseVisitID(visit)
	return strings.ToUpper(id.World[:1]) + id.World[1:] + " · members make mistakes (observe) · seed " + strconv.FormatUint(id.Seed, 10)
}

// projectorSafe fails the test if the teacher's page shows, as text, the
// teacher token or a student's pseudonym.
func projectorSafe(t *testing.T, s *session, token string, pseudonyms []string, where string) {
	t.Helper()
	text := s.eval(`document.body.innerText`)
	if strings.Contains(text, token) {
		t.Errorf("%s: the teacher token is on the screen before Show", where)
	}
	for _, p := range pseudonyms {
		if strings.Contains(text, p) || strings.Contains(s.eval(`document.documentElement.outerHTML`), p) {
			t.Errorf("%s: the page names the pseudonym %s", where, p)
		}
	}
}

// typeInto replaces the text of the input sel with text, typed key by key.
func typeInto(t *testing.T, s *session, sel, text string) {
	t.Helper()
	s.eval(`(() => { const e = document.querySelector(` + strconv.Quote(sel) + `); e.value = ""; e.focus(); return "ok"; })()`)
	for _, r := range text {
		s.key(string(r))
	}
	if got := s.eval(`document.querySelector(` + strconv.Quote(sel) + `).value`); got != text {
		t.Fatalf("typed %q into %s, it holds %q", text, sel, got)
	}
}

// tutorial goes through the guided first minute, by keys ("finish") or
// by its Skip button ("skip"), and checks that it hints nothing of the
// room's visit and sends and keeps nothing.
func tutorial(t *testing.T, s *session, st *store.Store, how string, room api.Room, code, size string, look bool) {
	t.Helper()
	participant := s.eval(`localStorage.getItem("normgym.participant")`)
	// The room's visit: the server holds it for the student from here on,
	// and names it to nobody (the store is the server's side).
	postJSON(t, s.srv.URL+"/api/assign", api.AssignRequest{Participant: participant, Room: code}, &api.Assignment{})
	var visit string
	if err := st.DB().QueryRow(`SELECT visit FROM assignments WHERE participant = ? AND room = ?`, participant, code).Scan(&visit); err != nil {
		t.Fatal(err)
	}
	roomID, _ := sim.ParseVisitID(visit)
	roomRule, _ := norms.Default().Lookup(roomID.Norm)
	tutID, _ := sim.ParseVisitID(room.Tutorial)
	if tutID.Norm == roomID.Norm {
		t.Fatalf("the tutorial %s plays the room's norm %s", room.Tutorial, roomID.Norm)
	}
	say := func() string { return s.eval(`document.getElementById("tut-say").textContent`) }
	if !strings.Contains(say(), "Press →") {
		t.Errorf("the tutorial's first prompt: %q", say())
	}
	if look {
		s.shot("class-tutorial-start-" + size)
		s.axe("tutorial")
	}
	said := []string{say()}
	if how == "skip" {
		if !look {
			s.shot("class-tutorial-skip-" + size)
		}
		s.do(5*time.Second, chromedp.Click(chromedp.CSS(`[data-act="tut-skip"]`)))
	} else {
		// Walk (east and west, so that no wall stops every step), then
		// wait until someone is sanctioned.
		tut := func() string { return s.eval(`document.body.dataset.tut`) }
		for i := 0; i < 30; i++ {
			step := tut()
			switch {
			case step == "0" || step == "1":
				s.key(keyName([]string{"ArrowRight", "ArrowLeft"}[i%2]))
			case step == "2" || step == "3" && !strings.Contains(say(), "said “"):
				s.key(" ")
			}
			if p := say(); p != said[len(said)-1] {
				said = append(said, p)
			}
			if step == "4" || step == "3" && strings.Contains(say(), "said “") {
				break
			}
		}
		s.poll(5*time.Second, `document.getElementById("tut-say").textContent.includes("said “")`)
		said = append(said, say())
		if look {
			s.shot("class-tutorial-sanction-" + size)
			s.axe("tutorial, sanction prompt")
		}
		// The student asks where it happened: the tile is marked, the
		// banner under the map says what was done there.
		s.tapInView(`[data-act="tut-where"]`)
		s.poll(5*time.Second, `!!document.querySelector(".ring.focus") && document.getElementById("status").textContent.includes("sanctioned")`)
		s.poll(5*time.Second, `!!document.querySelector('[data-act="tut-done"]')`)
		said = append(said, say())
		if !strings.Contains(say(), "different rule") {
			t.Errorf("the tutorial's end does not say the class's rule is another: %q", say())
		}
		if look {
			s.shot("class-tutorial-end-" + size)
		}
		s.do(5*time.Second, chromedp.Click(chromedp.CSS(`[data-act="tut-done"]`)))
	}
	for _, p := range said {
		for _, leak := range []string{roomRule.Statement, visit, room.Tutorial, tutID.Norm} {
			if leak != "" && strings.Contains(p, leak) {
				t.Errorf("a tutorial prompt names %q: %s", leak, p)
			}
		}
	}
	// Nothing of the tutorial is kept or sent.
	noLeak(t, s, room.Tutorial, "after the tutorial")
	noLeak(t, s, visit, "after the tutorial")
	var runs api.Runs
	getJSONAs(t, s.srv.URL+"/api/runs", participant, &runs)
	if len(runs.Runs) != 0 || s.eval(`localStorage.getItem("normgym.pending") || ""`) != "" {
		t.Errorf("the tutorial was sent or kept to send: %d runs", len(runs.Runs))
	}
	if s.eval(`localStorage.getItem("normgym.tutorial") || ""`) == "" {
		t.Error("the tutorial is not marked as seen in this browser")
	}
}

// shotFull saves a screenshot of the whole page (PNG), for people to look
// at what is below the fold.
func (s *session) shotFull(name string) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(s.ctx, 20*time.Second)
	defer cancel()
	b, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		s.t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(artifacts(s.t), name+".png"), b, 0o644); err != nil {
		s.t.Fatal(err)
	}
}

// joinClass joins the class of code in a fresh tab with the nickname
// nick and skips the tutorial, leaving the tab away from the app (so that
// playAssigned's navigation loads it anew).
func joinClass(t *testing.T, s *session, code, nick string) {
	t.Helper()
	s.do(30*time.Second, chromedp.Navigate(s.srv.URL+"/#room="+code))
	s.poll(30*time.Second, `document.documentElement.dataset.ready === "1"`)
	s.waitStage(20*time.Second, "join")
	typeInto(t, s, "#nick", nick)
	s.key(keyName("Enter"))
	if s.waitStage(20*time.Second, "tutorial", "consent") == "tutorial" {
		s.do(5*time.Second, chromedp.Click(chromedp.CSS(`[data-act="tut-skip"]`)))
		s.waitStage(20*time.Second, "consent")
	}
	s.do(30*time.Second, chromedp.Navigate(s.srv.URL+"/leaderboard"))
}
