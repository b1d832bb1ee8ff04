package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/server"
	"github.com/normgym/normgym/serve/store/storetest"
	"github.com/normgym/normgym/sim"
)

// join posts a JoinRequest and fails unless the answer has status want;
// it returns the answer's body.
func (e *env) join(code, participant, nick string, want int) []byte {
	e.t.Helper()
	st, b, _ := e.do("POST", "/api/rooms/"+code+"/join", api.JoinRequest{Participant: participant, Nickname: nick})
	if st != want {
		e.t.Fatalf("joining %s as %q: %d %s, want %d", code, nick, st, b, want)
	}
	return b
}

// createRoom creates a room and fails unless it is created.
func (e *env) createRoom(req api.RoomRequest) api.RoomCreated {
	e.t.Helper()
	var room api.RoomCreated
	st, b, _ := e.do("POST", "/api/rooms", req)
	if st != http.StatusCreated || json.Unmarshal(b, &room) != nil {
		e.t.Fatalf("creating a room: %d %s", st, b)
	}
	return room
}

// TestJoin: nicknames are validated and unique in a room; a refused join
// answers 4xx with what to do and stores nothing.
func TestJoin(t *testing.T) {
	e := newEnv(t, func(o *server.Options) { o.RoomTTL = 48 * time.Hour })
	room := e.createRoom(api.RoomRequest{Suite: "mini"})
	other := e.createRoom(api.RoomRequest{Suite: "mini"})
	members := func() int { return storetest.Count(t, e.store, "room_members") }
	path := "/api/rooms/" + room.Code + "/join"
	for _, tc := range []struct {
		name   string
		path   string
		body   any
		status int
		nick   string   // the nickname kept, when the join is accepted
		code   api.Code // the error's code
		about  string   // a word of its message
	}{
		{"seat number", path, api.JoinRequest{Participant: "student-0000001", Nickname: "12"}, 200, "Seat 12", "", ""},
		{"same again", path, api.JoinRequest{Participant: "student-0000001", Nickname: " seat  12 "}, 200, "seat 12", "", ""},
		{"taken", path, api.JoinRequest{Participant: "student-0000002", Nickname: "Seat-12"}, 409, "", "conflict", "choose another"},
		{"made-up name", path, api.JoinRequest{Participant: "student-0000002", Nickname: "Blue Fox"}, 200, "Blue Fox", "", ""},
		{"taken in another case", path, api.JoinRequest{Participant: "student-0000003", Nickname: "BLUEFOX"}, 409, "", "conflict", "capitals"},
		{"same nickname, another room", "/api/rooms/" + other.Code + "/join", api.JoinRequest{Participant: "student-0000003", Nickname: "Blue Fox"}, 200, "Blue Fox", "", ""},
		{"email", path, api.JoinRequest{Participant: "student-0000003", Nickname: "ana@school.org"}, 400, "", "invalid", "letters, digits"},
		{"phone number", path, api.JoinRequest{Participant: "student-0000003", Nickname: "0612345678"}, 400, "", "invalid", "3 digits"},
		{"too long", path, api.JoinRequest{Participant: "student-0000003", Nickname: strings.Repeat("x", 17)}, 400, "", "invalid", "16 characters"},
		{"empty", path, api.JoinRequest{Participant: "student-0000003", Nickname: ""}, 400, "", "invalid", "nickname"},
		{"markup", path, api.JoinRequest{Participant: "student-0000003", Nickname: "<b>x</b>"}, 400, "", "invalid", "letters"},
		{"no pseudonym", path, api.JoinRequest{Nickname: "Red Fox"}, 400, "", "invalid", "pseudonym"},
		{"email as pseudonym", path, api.JoinRequest{Participant: "ana@school.org", Nickname: "Red Fox"}, 400, "", "invalid", "pseudonym"},
		{"unknown field", path, `{"participant":"student-0000003","nickname":"Red Fox","name":"Ana"}`, 400, "", "invalid", "unknown field"},
		{"twice the same key", path, `{"participant":"student-0000003","nickname":"Red Fox","nickname":"Ana"}`, 400, "", "invalid", "nickname"},
		{"not JSON", path, `nickname=Red+Fox`, 400, "", "invalid", "JSON"},
		{"no such room", "/api/rooms/ABCD-EFGH-JKMN/join", api.JoinRequest{Participant: "student-0000003", Nickname: "Red Fox"}, 404, "", "not_found", "no room"},
		{"too large", path, `{"participant":"student-0000003","nickname":"` + strings.Repeat("x", 2000) + `"}`, 413, "", "too_large", "larger"},
		{"GET", path, nil, 405, "", "method", "POST"},
		{"rename", path, api.JoinRequest{Participant: "student-0000001", Nickname: "Red Fox"}, 200, "Red Fox", "", ""},
		{"the old nickname is free", path, api.JoinRequest{Participant: "student-0000003", Nickname: "12"}, 200, "Seat 12", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := members()
			method := "POST"
			if tc.name == "GET" {
				method = "GET"
			}
			st, b, _ := e.do(method, tc.path, tc.body)
			if st != tc.status {
				t.Fatalf("%d %s, want %d", st, b, tc.status)
			}
			if tc.code != "" {
				got := errorOf(t, b)
				if got.Code != tc.code || !strings.Contains(got.Message, tc.about) {
					t.Errorf("error %s %q, want %s mentioning %q", got.Code, got.Message, tc.code, tc.about)
				}
				if n := members(); n != before {
					t.Errorf("a refused join changed the members: %d, then %d", before, n)
				}
				return
			}
			var j api.Joined
			if err := json.Unmarshal(b, &j); err != nil || j.Nickname != tc.nick {
				t.Errorf("joined %+v (%v), want nickname %q", j, err, tc.nick)
			}
		})
	}
	var d api.Dashboard
	e.getJSON("/api/rooms/"+room.Code+"/dashboard", &d, "Authorization", "Bearer "+room.TeacherToken)
	var got []string
	for _, s := range d.Students {
		got = append(got, s.Nickname)
	}
	if want := "Blue Fox, Red Fox, Seat 12"; strings.Join(got, ", ") != want {
		t.Errorf("dashboard nicknames %q, want %q (by nickname)", strings.Join(got, ", "), want)
	}
	var pub api.Room
	e.getJSON("/api/rooms/"+room.Code, &pub)
	if pub.Members != 3 {
		t.Errorf("public room: %d members, want 3", pub.Members)
	}
	// A room past its time takes no one.
	e.mu.Lock()
	e.now = e.now.Add(48 * time.Hour)
	e.mu.Unlock()
	before := members()
	e.join(room.Code, "student-0000009", "Late Owl", http.StatusGone)
	if members() != before {
		t.Error("a join to a closed room was stored")
	}
}

// TestSameVisit: a room where everyone plays the same visit hands every
// student that visit; the other kind spreads students over visits.
func TestSameVisit(t *testing.T) {
	e := newEnv(t)
	mini, err := sim.LookupSuite("mini")
	if err != nil {
		t.Fatal(err)
	}
	listed := []string{"orchard/place.color=blue/observe/s1", "orchard/place.color=blue/solo/s2"}
	for _, tc := range []struct {
		name string
		req  api.RoomRequest
		in   []string // the room's visit is one of these
		cond string   // … under this condition, if set
	}{
		{"default suite", api.RoomRequest{SameVisit: true}, mini.Visits, sim.Observe},
		{"named suite", api.RoomRequest{Suite: "mini", SameVisit: true}, mini.Visits, sim.Observe},
		{"listed visits", api.RoomRequest{Visits: listed, SameVisit: true}, listed, ""},
		{"one listed visit", api.RoomRequest{Visits: listed[1:]}, listed[1:], ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			room := e.createRoom(tc.req)
			if !room.SameVisit || room.Visits != 1 {
				t.Fatalf("room %+v: want one visit for everyone", room)
			}
			var pub api.Room
			e.getJSON("/api/rooms/"+room.Code, &pub)
			if !pub.SameVisit || pub.Visits != 1 {
				t.Errorf("public room %+v: want same_visit and one visit", pub)
			}
			visit := ""
			for i := 0; i < 3; i++ {
				a := e.assign("pupil-"+strings.Repeat(string(rune('a'+i)), 8), room.Code)
				if visit == "" {
					visit = a.Visit
				}
				if a.Visit != visit {
					t.Errorf("student %d plays %s, student 1 %s: want the same visit", i+1, a.Visit, visit)
				}
			}
			id, err := sim.ParseVisitID(visit)
			if err != nil || !contains(tc.in, visit) || tc.cond != "" && id.Condition != tc.cond {
				t.Errorf("the room's visit %s: want one of the %d offered, under %q", visit, len(tc.in), tc.cond)
			}
		})
	}
	// The other option: each student gets a visit of a different rule.
	room := e.createRoom(api.RoomRequest{Suite: "mini"})
	if room.SameVisit || room.Visits != len(mini.Visits) {
		t.Errorf("room %+v: want every mini visit", room)
	}
	norms := map[string]bool{}
	for i := 0; i < 3; i++ {
		a := e.assign("pupil-"+strings.Repeat(string(rune('k'+i)), 8), room.Code)
		id, _ := sim.ParseVisitID(a.Visit)
		norms[id.Norm] = true
	}
	if len(norms) != 3 {
		t.Errorf("3 students of a room of different visits play %d norms, want 3", len(norms))
	}
	// A bad request creates nothing.
	before := storetest.Count(t, e.store, "rooms")
	for _, body := range []string{
		`{"same_visit":true,"visits":["moon/none/control/s1"]}`,
		`{"same_visit":"yes"}`,
		`{"same_visit":true,"suite":"nope"}`,
	} {
		if st, b, _ := e.do("POST", "/api/rooms", body); st != http.StatusBadRequest {
			t.Errorf("POST /api/rooms %s: %d %s, want 400", body, st, b)
		}
	}
	if n := storetest.Count(t, e.store, "rooms"); n != before {
		t.Errorf("refused rooms were stored: %d rooms, then %d", before, n)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestReveal: the rule and the class's results on it, for the room's
// teacher only.
func TestReveal(t *testing.T) {
	e := newEnv(t)
	visit := "orchard/place.color=red/observe/s100"
	room := e.createRoom(api.RoomRequest{Visits: []string{visit}, SameVisit: true})
	other := e.createRoom(api.RoomRequest{Suite: "mini"})
	path := "/api/rooms/" + room.Code + "/reveal"
	cat := norms.Default()
	rule, err := cat.Lookup("place.color=red")
	if err != nil {
		t.Fatal(err)
	}
	// Before anyone plays, the teacher can already read the rule.
	var rv api.Reveal
	e.getJSON(path, &rv, "Authorization", "Bearer "+room.TeacherToken)
	if len(rv.Visits) != 1 || rv.Visits[0].Rule != rule.Statement || rv.Visits[0].Runs != 0 {
		t.Fatalf("reveal before play: %+v", rv)
	}
	// Three students join and play; one still holds a second visit.
	agents := []string{"greedy", "observer", "random"}
	var sanctions [sim.Days]int
	answered := 0
	for i, a := range agents {
		p := "pupil-" + strings.Repeat(string(rune('a'+i)), 8)
		e.join(room.Code, p, []string{"Ana Fox", "Seat 3", "Owl"}[i], http.StatusOK)
		if got := e.assign(p, room.Code); got.Visit != visit {
			t.Fatalf("assigned %s, want %s", got.Visit, visit)
		}
		rec := record(t, visit, a, "human")
		sub := submission(rec, p)
		sub.Room = room.Code
		e.mustSubmit(sub)
		for d := range sanctions {
			sanctions[d] += rec.Scores.Sanctions[d]
		}
		if rec.Probe != nil {
			answered++
		}
	}
	e.join(room.Code, "pupil-zzzzzzzz", "Late Owl", http.StatusOK)
	e.assign("pupil-zzzzzzzz", room.Code)

	for _, tc := range []struct {
		name, method, path string
		hdr                []string
		status             int
	}{
		{"no token", "GET", path, nil, http.StatusUnauthorized},
		{"wrong token", "GET", path, []string{"Authorization", "Bearer nope"}, http.StatusForbidden},
		{"another room's token", "GET", path, []string{"Authorization", "Bearer " + other.TeacherToken}, http.StatusForbidden},
		{"a teacher key", "GET", path, []string{"Authorization", "Bearer ngt_x"}, http.StatusForbidden},
		{"POST", "POST", path, []string{"Authorization", "Bearer " + room.TeacherToken}, http.StatusMethodNotAllowed},
		{"no such room", "GET", "/api/rooms/ABCD-EFGH-JKMN/reveal", []string{"Authorization", "Bearer " + room.TeacherToken}, http.StatusNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, b, _ := e.do(tc.method, tc.path, nil, tc.hdr...)
			if st != tc.status {
				t.Fatalf("%d %s, want %d", st, b, tc.status)
			}
			if strings.Contains(string(b), rule.Statement) {
				t.Errorf("a refused reveal shows the rule: %s", b)
			}
		})
	}
	// The public view never shows the rule.
	if _, b, _ := e.do("GET", "/api/rooms/"+room.Code, nil); strings.Contains(string(b), rule.Statement) || strings.Contains(string(b), visit) {
		t.Errorf("the public room view shows the rule or the visit: %s", b)
	}

	e.getJSON(path, &rv, "Authorization", "Bearer "+room.TeacherToken)
	if !rv.SameVisit || rv.Members != 4 || rv.Playing != 1 || len(rv.Visits) != 1 {
		t.Fatalf("reveal: %+v", rv)
	}
	v := rv.Visits[0]
	if v.Visit != visit || v.Rule != rule.Statement || v.Family != "place" || v.Students != 3 || v.Runs != 3 ||
		v.Label != "Orchard · members make mistakes (observe) · seed 100" {
		t.Errorf("reveal of the visit: %+v", v)
	}
	for d := range sanctions {
		if v.Sanctions[d] != sanctions[d] {
			t.Errorf("sanctions on day %d: %d, want %d (the records')", d+1, v.Sanctions[d], sanctions[d])
		}
	}
	n := 0
	for _, s := range v.Sanctioned {
		n += s.N
		if strings.Contains(s.Did, "had just") || strings.ContainsAny(s.Did, "0123456789") {
			t.Errorf("sanctioned act %q: want it without \"had just\" and coordinates", s.Did)
		}
	}
	if sanctions[0]+sanctions[1] > 0 && len(v.Sanctioned) == 0 || n > sanctions[0]+sanctions[1] {
		t.Errorf("sanctioned acts %+v for %v sanctions", v.Sanctioned, sanctions)
	}
	if v.Probe == nil || len(v.Probe.Options) != 4 || v.Probe.Options[v.Probe.Correct] != rule.Statement {
		t.Fatalf("probe: %+v", v.Probe)
	}
	sum := 0
	for _, a := range v.Probe.Answers {
		sum += a
	}
	if sum != answered {
		t.Errorf("probe answers %v sum to %d, want %d", v.Probe.Answers, sum, answered)
	}
}

// TestTutorial: each tutorial visit shows a member's sanction within its
// first six steps whatever the newcomer does first, and a room's tutorial
// leaves its rule alone: another family where the room leaves one out,
// another norm where it holds every family, control where it holds every
// norm.
func TestTutorial(t *testing.T) {
	scripts := [][]string{
		{"east", "east", "north", "west", "wait", "wait"},
		{"east", "west", "east", "west", "wait", "wait"},
		{"north", "north", "north", "north", "wait", "wait"},
		{"wait", "wait", "wait", "wait", "wait", "wait"},
		{"east", "east", "east", "east", "wait", "wait"},
		{"west", "west", "west", "south", "wait", "wait"},
	}
	tutorials := server.TutorialVisits()
	seen := map[string]bool{}
	for _, v := range tutorials[:len(tutorials)-1] {
		id, err := sim.ParseVisitID(v)
		if err != nil || id.Condition != sim.Observe {
			t.Fatalf("tutorial visit %s: %v (want an observe visit)", v, err)
		}
		if seen[id.Norm] {
			t.Errorf("two tutorial visits of %s", id.Norm)
		}
		seen[id.Norm] = true
		for _, su := range sim.Suites() {
			if contains(su.Visits, v) {
				t.Errorf("tutorial visit %s is in suite %s", v, su.Name)
			}
		}
		for _, script := range scripts {
			if !sanctionWithin(t, v, script) {
				t.Errorf("tutorial %s: no member is sanctioned in view within %v", v, script)
			}
		}
	}
	// Every tier-1 family has a tutorial but gift (members never hand
	// anyone a gift, so none is seen breaking a gift norm); the harder
	// tier's has none.
	families := map[string]bool{}
	for id := range seen {
		fam, _, _, _ := norms.ParseID(id)
		families[fam] = true
	}
	for _, fam := range norms.Default().Families() {
		tier := sim.Tier(norms.Default().Family(fam)[0])
		if got, want := families[fam], fam != "gift" && tier == 1; got != want {
			t.Errorf("family %s has a tutorial visit: %v, want %v", fam, got, want)
		}
	}
	if last := tutorials[len(tutorials)-1]; !strings.Contains(last, "/control/") {
		t.Errorf("the last tutorial visit %s is not a control visit", last)
	}

	e := newEnv(t)
	family := func(v string) string {
		id, _ := sim.ParseVisitID(v)
		f, _, _, _ := norms.ParseID(id.Norm)
		return f
	}
	std, _ := sim.LookupSuite("standard")
	for _, tc := range []struct {
		name string
		req  api.RoomRequest
		ok   func(tutorial string, room []string) bool
	}{
		{"same visit: another family", api.RoomRequest{Visits: []string{"orchard/place.color=red/observe/s100"}}, func(tut string, _ []string) bool {
			return family(tut) != "place"
		}},
		{"mini: a norm the room does not hold", api.RoomRequest{Suite: "mini"}, func(tut string, room []string) bool {
			id, _ := sim.ParseVisitID(tut)
			for _, v := range room {
				if rid, _ := sim.ParseVisitID(v); rid.Norm == id.Norm {
					return false
				}
			}
			return id.Condition == sim.Observe
		}},
		{"standard: control", api.RoomRequest{Suite: "standard"}, func(tut string, _ []string) bool {
			return strings.Contains(tut, "/control/")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			room := e.createRoom(tc.req)
			var pub api.Room
			e.getJSON("/api/rooms/"+room.Code, &pub)
			visits := tc.req.Visits
			if tc.req.Suite == "mini" {
				su, _ := sim.LookupSuite("mini")
				visits = su.Visits
			} else if tc.req.Suite == "standard" {
				visits = std.Visits
			}
			if !contains(tutorials, pub.Tutorial) || !tc.ok(pub.Tutorial, visits) {
				t.Errorf("room's tutorial %q", pub.Tutorial)
			}
			var again api.Room
			e.getJSON("/api/rooms/"+room.Code, &again)
			if again.Tutorial != pub.Tutorial {
				t.Errorf("the tutorial changed from %s to %s: a class shares one", pub.Tutorial, again.Tutorial)
			}
		})
	}
}

// sanctionWithin reports whether, with the newcomer acting script, a
// member is sanctioned in the newcomer's view.
func sanctionWithin(t *testing.T, visit string, script []string) bool {
	t.Helper()
	env, _, err := sim.NewVisit(visit)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range script {
		a, err := sim.ParseAction(s)
		if err != nil {
			t.Fatal(err)
		}
		r, err := env.Step(a)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range r.Observation.Events {
			if ev.Kind == "sanction" && ev.To != sim.NewcomerID {
				return true
			}
		}
	}
	return false
}
