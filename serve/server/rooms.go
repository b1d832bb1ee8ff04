package server

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/report"
)

// Room limits.
const (
	maxRoomVisits = 1000
	maxRoomName   = 80
	roomSuite     = "mini" // a room's visits when the teacher names none
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
		return errf("invalid", "name must be at most %d printable characters", maxRoomName)
	}
	room := Room{Name: name, CreatedAt: s.now().UTC(), Teacher: teacher}
	switch {
	case req.Suite != "" && len(req.Visits) > 0:
		return errf("invalid", "give either suite or visits, not both")
	case len(req.Visits) > 0:
		if len(req.Visits) > maxRoomVisits {
			return errf("invalid", "a room holds at most %d visits", maxRoomVisits)
		}
		seen := map[string]bool{}
		for _, v := range req.Visits {
			if _, err := sim.ParseVisitID(v); err != nil {
				return errf("invalid", "unknown visit: %s", strings.TrimPrefix(err.Error(), "sim: "))
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
			return errf("invalid", "unknown suite %q (want one of %s)", clip(name), strings.Join(sim.SuiteNames(), ", "))
		}
		room.Suite, room.Visits = su.Name, su.Visits
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
		if !errors.Is(err, ErrExists) || try == 20 {
			return err
		}
	}
	return writeJSON(w, http.StatusCreated, api.RoomCreated{Code: room.Code, TeacherToken: token, Name: room.Name,
		Suite: room.Suite, Visits: len(room.Visits), JoinURL: "/#room=" + room.Code, Expires: s.roomExpires(room)})
}

// teacher returns the label of the request's teacher key; "" when rooms
// are open to anyone and no key was sent.
func (s *Server) teacher(r *http.Request) (string, error) {
	key := bearer(r)
	if s.opts.OpenRooms && key == "" {
		return "", nil
	}
	if key == "" {
		return "", errf("unauthorized", "creating a room needs a teacher key from this site's operator: send Authorization: Bearer <key> (the /teach page has a field for it)")
	}
	if s.opts.TeacherKeys == nil {
		if s.opts.OpenRooms {
			return "", nil
		}
		return "", errf("forbidden", "this site issues no teacher keys, so it creates no rooms: ask its operator")
	}
	label, ok := s.opts.TeacherKeys.Label(key)
	if !ok {
		if s.opts.OpenRooms {
			return "", nil
		}
		return "", errf("forbidden", "that is not a teacher key of this site")
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
func (s *Server) roomExpires(room Room) time.Time {
	return room.CreatedAt.Add(s.opts.RoomTTL).UTC()
}

// findRoom finds the room of a code as a person typed it, or fails with
// not_found. Every call draws a token from the client's ClassLookup
// bucket: this is the one place a code is resolved, so guessing codes is
// as slow on every route.
func (s *Server) findRoom(r *http.Request, code string) (Room, error) {
	if err := s.allow(r, ClassLookup); err != nil {
		return Room{}, err
	}
	c, ok := api.NormalizeRoomCode(code)
	if !ok {
		return Room{}, errf("not_found", "there is no room %q", clip(code))
	}
	room, err := s.store.Room(r.Context(), c)
	if errors.Is(err, ErrNotFound) {
		return Room{}, errf("not_found", "there is no room %q", c)
	}
	return room, err
}

// openRoom is findRoom for students: a room past its time is gone, and
// so is every room with a code of the old 6-symbol kind (about 29 bits:
// guessable), unlooked-up, so that these answers tell nothing.
func (s *Server) openRoom(r *http.Request, code string) (Room, error) {
	if c, ok := api.NormalizeRoomCode(code); ok && api.LegacyRoomCode(c) {
		if err := s.allow(r, ClassLookup); err != nil {
			return Room{}, err
		}
		return Room{}, errf("gone", "room codes of 6 characters were retired (they could be guessed): ask your teacher for a new room")
	}
	room, err := s.findRoom(r, code)
	if err != nil {
		return Room{}, err
	}
	if exp := s.roomExpires(room); !s.now().Before(exp) {
		return Room{}, errf("gone", "room %s closed on %s (rooms take students for %s): ask your teacher for a new one",
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
func (s *Server) teacherRoom(r *http.Request) (Room, error) {
	room, err := s.findRoom(r, r.PathValue("code"))
	if err != nil {
		return Room{}, err
	}
	tok := bearer(r)
	if tok == "" {
		return Room{}, errf("unauthorized", "this is for the room's teacher: send Authorization: Bearer <teacher_token>")
	}
	sum := sha256.Sum256([]byte(tok))
	if subtle.ConstantTimeCompare([]byte(hex.EncodeToString(sum[:])), []byte(room.TokenSHA256)) != 1 {
		return Room{}, errf("forbidden", "that is not this room's teacher token")
	}
	return room, nil
}

// roomInfo returns a room's public view and its students' totals.
func (s *Server) roomInfo(r *http.Request, room Room) (api.Room, []Student, []ProbeCount, error) {
	ctx := r.Context()
	students, err := s.store.RoomStudents(ctx, room.Code)
	if err != nil {
		return api.Room{}, nil, nil, err
	}
	probes, err := s.store.RoomProbes(ctx, room.Code)
	if err != nil {
		return api.Room{}, nil, nil, err
	}
	var all Totals
	for _, st := range students {
		all.Add(st.Totals)
	}
	b := Breakdown(all)
	stats := api.ClassStats{Participants: len(students), Runs: all.Runs, Joint: b.Joint, Task: b.Task, Compliance: b.Compliance,
		ViolationsPerDay: b.Violations, Probe: api.ProbeStats{Answered: all.ProbeAnswered, Correct: b.Probe, Answers: make([]int, 4)}}
	for _, p := range probes {
		for p.Answer >= len(stats.Probe.Answers) {
			stats.Probe.Answers = append(stats.Probe.Answers, 0)
		}
		if p.Answer >= 0 {
			stats.Probe.Answers[p.Answer] += p.N
		}
	}
	return api.Room{Code: room.Code, Name: room.Name, Suite: room.Suite, Visits: len(room.Visits), Expires: s.roomExpires(room),
		Stats: stats}, students, probes, nil
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
	return writeJSON(w, http.StatusOK, info)
}

// dashboard handles GET /api/rooms/CODE/dashboard: the teacher's view.
func (s *Server) dashboard(w http.ResponseWriter, r *http.Request) error {
	room, err := s.teacherRoom(r)
	if err != nil {
		return err
	}
	info, students, probes, err := s.roomInfo(r, room)
	if err != nil {
		return err
	}
	d := api.Dashboard{Room: info, Students: []api.StudentRow{}, Probes: []api.VisitProbe{}}
	for _, st := range students {
		b := Breakdown(st.Totals)
		d.Students = append(d.Students, api.StudentRow{Participant: st.Participant, Runs: st.Runs, Joint: st.Joint, Task: st.Task,
			Compliance: st.Compliance, ProbeAnswered: st.ProbeAnswered, ProbeCorrect: st.ProbeCorrect,
			ViolationsPerDay: b.Violations, Last: st.Last})
	}
	var cur *api.VisitProbe
	for _, p := range probes {
		if cur == nil || cur.Visit != p.Visit {
			info, ok := s.probeInfo(p.Visit)
			if !ok {
				continue
			}
			d.Probes = append(d.Probes, api.VisitProbe{Visit: p.Visit, Question: info.Question, Options: info.Options,
				Correct: info.correct, Answers: make([]int, len(info.Options))})
			cur = &d.Probes[len(d.Probes)-1]
		}
		if p.Answer >= 0 && p.Answer < len(cur.Answers) {
			cur.Answers[p.Answer] += p.N
		}
	}
	return writeJSON(w, http.StatusOK, d)
}

// probeInfo is a visit's probe with the index of the rule.
type probeInfo struct {
	sim.Probe
	correct int
}

// probeInfo returns a visit's probe (computed by the native core once).
func (s *Server) probeInfo(visit string) (probeInfo, bool) {
	if v, ok := s.probes.Load(visit); ok {
		return v.(probeInfo), true
	}
	env, _, err := sim.NewEnv(visit)
	if err != nil {
		return probeInfo{}, false
	}
	p := env.Probe()
	if p == nil {
		return probeInfo{}, false
	}
	info := probeInfo{Probe: sim.Probe{Question: p.Question, Options: p.Options}, correct: -1}
	for k := range p.Options {
		if p.Correct(k) {
			info.correct = k
		}
	}
	s.probes.Store(visit, info)
	return info, true
}

// roomExport handles GET /api/rooms/CODE/export.csv: the room's runs, one
// row each, for the teacher.
func (s *Server) roomExport(w http.ResponseWriter, r *http.Request) error {
	room, err := s.teacherRoom(r)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Disposition", `attachment; filename="normgym-room-`+room.Code+`.csv"`)
	cw := csv.NewWriter(w)
	cols := roomColumns()
	header := make([]string, len(cols))
	for i, c := range cols {
		header[i] = c.name
	}
	cw.Write(report.CSVRow(header))
	return s.streamRuns(w, r, RunFilter{Room: room.Code}, func(run Run) error {
		return cw.Write(row(cols, run))
	}, cw.Flush)
}

// roomColumns are the teacher export's columns: the research columns
// without the ones that are the same for the whole room.
func roomColumns() []column {
	var out []column
	for _, c := range columns {
		switch c.name {
		case "room", "consent_version", "suite", "suite_version", "hash", "verifier", "sim_sha256":
			continue
		}
		out = append(out, c)
	}
	return out
}
