package server

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"net/http"
	"strings"
	"time"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/domain"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/web/nickname"
)

// Room limits.
const (
	maxRoomVisits = 1000
	maxRoomName   = 80
	roomSuite     = "mini" // a room's visits when the teacher names none
	// maxRoomMembers bounds the students who join a room: a school's year
	// group at once, not an open door for filling the store.
	maxRoomMembers = 300
	// maxRevealRuns bounds the runs a reveal reads.
	maxRevealRuns = 20000
)

// DefaultRoomTTL is how long a room takes students unless
// Options.RoomTTL says otherwise.
const DefaultRoomTTL = 30 * 24 * time.Hour

// createRoom handles POST /api/rooms. Unless Options.OpenRooms, it needs a
// teacher key (Authorization: Bearer KEY) that Options.TeacherKeys holds;
// the key's label is kept with the room.
func (s *Server) createRoom(w http.ResponseWriter, r *http.Request) error {
	teacher, err := s.teacher(r)
	if err != nil {
		return err
	}
	var req api.RoomRequest
	if err := decodeJSON(r, &req, maxRoomVisits); err != nil {
		return err
	}
	name := strings.TrimSpace(req.Name)
	if name != "" && (!validName(name) || len([]rune(name)) > maxRoomName) {
		return errf(api.CodeInvalid, "name must be at most %d printable characters", maxRoomName)
	}
	room := domain.Room{Name: name, CreatedAt: s.now().UTC(), Teacher: teacher}
	switch {
	case req.Suite != "" && len(req.Visits) > 0:
		return errf(api.CodeInvalid, "give either suite or visits, not both")
	case len(req.Visits) > 0:
		if len(req.Visits) > maxRoomVisits {
			return errf(api.CodeInvalid, "a room holds at most %d visits", maxRoomVisits)
		}
		seen := map[string]bool{}
		for _, v := range req.Visits {
			if _, err := sim.ParseVisitID(v); err != nil {
				return errf(api.CodeInvalid, "unknown visit: %s", strings.TrimPrefix(err.Error(), "sim: "))
			}
			if !seen[v] {
				seen[v] = true
				room.Visits = append(room.Visits, v)
			}
		}
	default:
		name := req.Suite
		if name == "" {
			name = roomSuite
		}
		su, err := sim.LookupSuite(name)
		if err != nil {
			return errf(api.CodeInvalid, "unknown suite %q (want one of %s)", clip(name), strings.Join(sim.SuiteNames(), ", "))
		}
		room.Suite, room.Visits = su.Name, su.Visits
	}
	if req.SameVisit {
		room.Visits = []string{sameVisit(room.Visits, req.Suite == "" && len(req.Visits) > 0)}
	}
	// Only a room about to be created draws from the client's room
	// limit: a refused request (no key, a bad body) counts as a write.
	if err := s.allow(r, ClassRooms); err != nil {
		return err
	}
	token := randomToken()
	sum := sha256.Sum256([]byte(token))
	room.TokenSHA256 = hex.EncodeToString(sum[:])
	for try := 0; ; try++ {
		room.Code = randomCode()
		err := s.store.CreateRoom(r.Context(), room)
		if err == nil {
			break
		}
		if !errors.Is(err, domain.ErrExists) || try == 20 {
			return err
		}
	}
	return writeJSON(w, http.StatusCreated, api.RoomCreated{Code: room.Code, TeacherToken: token, Name: room.Name,
		Suite: room.Suite, Visits: len(room.Visits), SameVisit: len(room.Visits) == 1, JoinURL: "/#room=" + room.Code, Expires: s.roomExpires(room)})
}

// sameVisit draws the one visit of a room where everyone plays the same
// visit: one of the teacher's visits (listed), or one of a suite's observe
// visits, where members break the rule and are sanctioned, so that the
// class has something to talk about (peers and solo show fewer of others'
// sanctions, told states the rule, control has none). A suite without
// observe visits gives any of its visits.
func sameVisit(visits []string, listed bool) string {
	pool := visits
	if !listed {
		var observe []string
		for _, v := range visits {
			if id, err := sim.ParseVisitID(v); err == nil && id.Condition == sim.Observe {
				observe = append(observe, v)
			}
		}
		if len(observe) > 0 {
			pool = observe
		}
	}
	return pool[mrand.IntN(len(pool))]
}

// teacher returns the label of the request's teacher key; "" when rooms
// are open to anyone and no key was sent.
func (s *Server) teacher(r *http.Request) (string, error) {
	key := bearer(r)
	if s.opts.OpenRooms && key == "" {
		return "", nil
	}
	if key == "" {
		return "", errf(api.CodeUnauthorized, "creating a room needs a teacher key from whoever runs this site: on /teach, type it in the Teacher key box (a program sends it as Authorization: Bearer <key>)")
	}
	if s.opts.TeacherKeys == nil {
		if s.opts.OpenRooms {
			return "", nil
		}
		return "", errf(api.CodeForbidden, "this site issues no teacher keys, so it creates no rooms: ask whoever runs it")
	}
	label, ok := s.opts.TeacherKeys.Label(key)
	if !ok {
		if s.opts.OpenRooms {
			return "", nil
		}
		return "", errf(api.CodeForbidden, "that is not a teacher key of this site")
	}
	return label, nil
}

// randomCode returns a new room code: api.RoomCodeLen symbols of
// api.RoomAlphabet (60 random bits), grouped.
func randomCode() string {
	b := make([]byte, api.RoomCodeLen)
	rand.Read(b)
	for i := range b {
		b[i] = api.RoomAlphabet[int(b[i])%len(api.RoomAlphabet)] // 256 = 8 × 32: uniform
	}
	code, _ := api.NormalizeRoomCode(string(b))
	return code
}

// randomToken returns 256 random bits in base64url.
func randomToken() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// roomExpires is when a room stops taking students.
func (s *Server) roomExpires(room domain.Room) time.Time {
	return room.CreatedAt.Add(s.opts.RoomTTL).UTC()
}

// findRoom finds the room of a code as a person typed it, or fails with
// not_found. Every call draws a token from the client's ClassLookup
// bucket: this is the one place a code is resolved, so guessing codes is
// as slow on every route.
func (s *Server) findRoom(r *http.Request, code string) (domain.Room, error) {
	if err := s.allow(r, ClassLookup); err != nil {
		return domain.Room{}, err
	}
	c, ok := api.NormalizeRoomCode(code)
	if !ok {
		return domain.Room{}, errf(api.CodeNotFound, "there is no room %q", clip(code))
	}
	room, err := s.store.Room(r.Context(), c)
	if errors.Is(err, domain.ErrNotFound) {
		return domain.Room{}, errf(api.CodeNotFound, "there is no room %q", c)
	}
	return room, err
}

// openRoom is findRoom for students: a room past its time is gone, and
// so is every room with a code of the old 6-symbol kind (about 29 bits:
// guessable), unlooked-up, so that these answers tell nothing.
func (s *Server) openRoom(r *http.Request, code string) (domain.Room, error) {
	if c, ok := api.NormalizeRoomCode(code); ok && api.LegacyRoomCode(c) {
		if err := s.allow(r, ClassLookup); err != nil {
			return domain.Room{}, err
		}
		return domain.Room{}, errf(api.CodeGone, "room codes of 6 characters were retired (they could be guessed): ask your teacher for a new room")
	}
	room, err := s.findRoom(r, code)
	if err != nil {
		return domain.Room{}, err
	}
	if exp := s.roomExpires(room); !s.now().Before(exp) {
		return domain.Room{}, errf(api.CodeGone, "room %s closed on %s (rooms take students for %s): ask your teacher for a new one",
			room.Code, exp.Format("2006-01-02"), days(s.opts.RoomTTL))
	}
	return room, nil
}

// days formats a duration in days (or hours below two days).
func days(d time.Duration) string {
	if d < 48*time.Hour {
		return fmt.Sprintf("%.0f hours", d.Hours())
	}
	return fmt.Sprintf("%.0f days", d.Hours()/24)
}

// teacherRoom is findRoom for the room's teacher only, expired or not.
func (s *Server) teacherRoom(r *http.Request) (domain.Room, error) {
	room, err := s.findRoom(r, r.PathValue("code"))
	if err != nil {
		return domain.Room{}, err
	}
	tok := bearer(r)
	if tok == "" {
		return domain.Room{}, errf(api.CodeUnauthorized, "this is for the room's teacher: send Authorization: Bearer <teacher_token>")
	}
	sum := sha256.Sum256([]byte(tok))
	if subtle.ConstantTimeCompare([]byte(hex.EncodeToString(sum[:])), []byte(room.TokenSHA256)) != 1 {
		return domain.Room{}, errf(api.CodeForbidden, "that is not this room's teacher token")
	}
	return room, nil
}

// roomInfo returns a room's public view and its students' totals.
func (s *Server) roomInfo(r *http.Request, room domain.Room) (api.Room, []domain.Student, []domain.ProbeCount, error) {
	ctx := r.Context()
	students, err := s.store.RoomStudents(ctx, room.Code)
	if err != nil {
		return api.Room{}, nil, nil, err
	}
	probes, err := s.store.RoomProbes(ctx, room.Code)
	if err != nil {
		return api.Room{}, nil, nil, err
	}
	var all domain.Totals
	for _, st := range students {
		all.AddCounts(st.Totals)
	}
	b := all.Breakdown()
	stats := api.ClassStats{Participants: len(students), Runs: all.Finished, Joint: b.Joint, Task: b.Task, Compliance: b.Compliance,
		ViolationsPerDay: b.Violations, Probe: api.ProbeStats{Answered: all.ProbeAnswered, Correct: b.Probe, Answers: make([]int, 4)}}
	for _, p := range probes {
		for p.Answer >= len(stats.Probe.Answers) {
			stats.Probe.Answers = append(stats.Probe.Answers, 0)
		}
		if p.Answer >= 0 {
			stats.Probe.Answers[p.Answer] += p.N
		}
	}
	return api.Room{Code: room.Code, Name: room.Name, Suite: room.Suite, Visits: len(room.Visits), SameVisit: len(room.Visits) == 1,
		Tutorial: tutorialFor(room), Expires: s.roomExpires(room), Stats: stats}, students, probes, nil
}

// room handles GET /api/rooms/CODE: public aggregates.
func (s *Server) room(w http.ResponseWriter, r *http.Request) error {
	room, err := s.openRoom(r, r.PathValue("code"))
	if err != nil {
		return err
	}
	info, _, _, err := s.roomInfo(r, room)
	if err != nil {
		return err
	}
	members, err := s.members(r.Context(), room)
	if err != nil {
		return err
	}
	info.Members = len(members)
	return writeJSON(w, http.StatusOK, info)
}

// members returns a room's members, Playing set for those who hold a
// visit that has not expired.
func (s *Server) members(ctx context.Context, room domain.Room) ([]domain.Member, error) {
	return s.store.RoomMembers(ctx, room.Code, s.now().Add(-s.opts.AssignTTL))
}

// joinBody bounds POST /api/rooms/CODE/join: a pseudonym and a nickname.
const joinBody = 1 << 10

// join handles POST /api/rooms/CODE/join: a student takes a nickname in
// the room (api.JoinRequest). A nickname that nickname.Normalize refuses,
// or that another member has, is refused with what to do instead, and
// nothing is stored; so is any join to a room past its time.
func (s *Server) join(w http.ResponseWriter, r *http.Request) error {
	var req api.JoinRequest
	if err := decodeJSON(r, &req, 1); err != nil {
		return err
	}
	if !api.ValidParticipant(req.Participant) {
		return errf(api.CodeInvalid, "participant must be a random pseudonym of 8 to 64 letters, digits, '-' or '_' (never a name or an email address)")
	}
	nick, err := nickname.Normalize(req.Nickname)
	if err != nil {
		return errf(api.CodeInvalid, "%s: %s", strings.TrimPrefix(err.Error(), "nickname: "), nickname.Rules)
	}
	room, err := s.openRoom(r, r.PathValue("code"))
	if err != nil {
		return err
	}
	m := domain.Member{Room: room.Code, Participant: req.Participant, Nickname: nick, Key: nickname.Key(nick), JoinedAt: s.now().UTC()}
	switch err := s.store.JoinRoom(r.Context(), m, maxRoomMembers); {
	case errors.Is(err, domain.ErrExists):
		return errf(api.CodeConflict, "someone in this class already has the nickname %s, or one that differs only in capitals, spaces or '-': choose another (adding a letter or your seat number works)", nick)
	case errors.Is(err, domain.ErrFull):
		return errf(api.CodeConflict, "room %s is full (%d students): ask your teacher", room.Code, maxRoomMembers)
	case err != nil:
		return err
	}
	return writeJSON(w, http.StatusOK, api.Joined{Room: room.Code, Nickname: nick})
}
