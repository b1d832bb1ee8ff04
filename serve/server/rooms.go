package server

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	mrand "math/rand/v2"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/domain"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/report"
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
		return "", errf(api.CodeUnauthorized, "creating a room needs a teacher key from this site's operator: send Authorization: Bearer <key> (the /teach page has a field for it)")
	}
	if s.opts.TeacherKeys == nil {
		if s.opts.OpenRooms {
			return "", nil
		}
		return "", errf(api.CodeForbidden, "this site issues no teacher keys, so it creates no rooms: ask its operator")
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

// tutorialVisits are the visits a room's guided first minute may use, one
// per tier-1 norm of the catalog that a member can be seen breaking early
// (the harder tier's compounds are no first minute), under observe: each shows a member sanctioned in the newcomer's view within
// its first six steps, whatever the newcomer does first (TestTutorial).
// Norms whose acts members never take (gifts) or take only later (the
// basket, carrying more than two) have none. Their seeds are below every suite's,
// so none is a visit of a suite.
var tutorialVisits = [...]string{
	"market/place.color=red/observe/s1",
	"harbor/place.color=blue/observe/s2",
	"orchard/place.color=yellow/observe/s2",
	"harbor/place.color=green/observe/s1",
	"orchard/place.terrain=grass/observe/s1",
	"orchard/place.terrain=sand/observe/s2",
	"orchard/place.terrain=stone/observe/s1",
	"harbor/place.zone=garden/observe/s1",
	"harbor/place.zone=plaza/observe/s7",
	"orchard/resource.color=red/observe/s27",
	"orchard/resource.color=blue/observe/s6",
	"market/resource.color=yellow/observe/s4",
	"park/resource.color=green/observe/s7",
	"orchard/resource.carry=1/observe/s4",
	"harbor/time.rest=morning/observe/s1",
	"orchard/time.rest=noon/observe/s1",
	"harbor/time.rest=evening/observe/s1",
	"orchard/time.hands=morning/observe/s6",
	"market/time.hands=noon/observe/s3",
	"orchard/time.hands=evening/observe/s4",
	"orchard/order.bow=market/observe/s4",
	"orchard/order.greet=market/observe/s4",
	"orchard/order.greet=garden/observe/s1",
	"park/order.bell=market/observe/s15",
	"orchard/order.bow=pick/observe/s6",
	"orchard/order.well=pick/observe/s5",
	"park/order.bow=drop/observe/s8",
	"orchard/order.well=market/observe/s4",
	"orchard/order.well=litter/observe/s5",
	"market/order.thanks=pick/observe/s1",
	"orchard/order.bow=litter/observe/s5",
	"orchard/order.bow=garden/observe/s1",
	"orchard/order.bow=plaza/observe/s1",
	"market/social.greet=elder/observe/s3",
	"park/social.greet=vendor/observe/s8",
	"orchard/social.greet=gardener/observe/s4",
	"library/social.greet=child/observe/s76",
	"orchard/social.avoid=red/observe/s4",
	"library/social.avoid=blue/observe/s7",
	"market/social.avoid=yellow/observe/s2",
	"market/social.avoid=green/observe/s3",
	"park/direction.path=north/observe/s2",
	"market/direction.path=south/observe/s1",
	"park/direction.path=east/observe/s1",
	"park/direction.path=west/observe/s3",
	"orchard/disposal.at=bin/observe/s5",
	"harbor/disposal.at=garden/observe/s10",
	"harbor/disposal.at=plaza/observe/s21",
	"orchard/disposal.at=sand/observe/s5",
	"orchard/disposal.at=grass/observe/s5",
	"orchard/disposal.at=stone/observe/s5",
	"orchard/disposal.at=well/observe/s5",
	"orchard/disposal.at=bell/observe/s5",
}

// tutorialControl is the tutorial of a room that holds every norm: no
// rule, so no sanction to show, and nothing to hint.
const tutorialControl = "park/none/control/s1"

// TutorialVisits lists the visits a room's tutorial may use, the control
// visit last.
func TutorialVisits() []string { return append(tutorialVisits[:], tutorialControl) }

// tutorialFor chooses a room's tutorial visit: one whose family is in no
// visit of the room (so that it does not even show the kind of rule the
// class meets), or, when the room holds every family, one whose norm is
// in none; the control visit when the room holds every norm. Among those
// it draws by a hash of the room's code, so that the class shares one
// tutorial and the choice follows no order that would tell which families
// the room holds.
func tutorialFor(room domain.Room) string {
	inNorm, inFamily := map[string]bool{}, map[string]bool{}
	for _, v := range room.Visits {
		id, err := sim.ParseVisitID(v)
		if err != nil {
			continue
		}
		inNorm[id.Norm] = true
		if fam, _, _, err := norms.ParseID(id.Norm); err == nil {
			inFamily[fam] = true
		}
	}
	var otherFamily, otherNorm []string
	for _, v := range tutorialVisits {
		id, _ := sim.ParseVisitID(v)
		fam, _, _, _ := norms.ParseID(id.Norm)
		switch {
		case !inFamily[fam]:
			otherFamily = append(otherFamily, v)
		case !inNorm[id.Norm]:
			otherNorm = append(otherNorm, v)
		}
	}
	pool := otherFamily
	if len(pool) == 0 {
		pool = otherNorm
	}
	if len(pool) == 0 {
		return tutorialControl
	}
	h := fnv.New64a()
	h.Write([]byte(room.Code))
	return pool[h.Sum64()%uint64(len(pool))]
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
	members, err := s.members(r.Context(), room)
	if err != nil {
		return err
	}
	info.Members = len(members)
	d := api.Dashboard{Room: info, Students: studentRows(members, students), Probes: []api.VisitProbe{}}
	var cur *api.VisitProbe
	for _, p := range probes {
		if cur == nil || cur.Visit != p.Visit {
			info, ok := s.probeInfo(p.Visit)
			if !ok {
				continue
			}
			d.Probes = append(d.Probes, api.VisitProbe{Visit: p.Visit, Label: VisitLabel(p.Visit), Question: info.Question, Options: info.Options,
				Correct: info.correct, Answers: make([]int, len(info.Options))})
			cur = &d.Probes[len(d.Probes)-1]
		}
		if p.Answer >= 0 && p.Answer < len(cur.Answers) {
			cur.Answers[p.Answer] += p.N
		}
	}
	return writeJSON(w, http.StatusOK, d)
}

// studentRows are the dashboard's students: the members by nickname
// (with their totals once they have runs), then the participants who sent
// runs to the room without joining it, with no nickname. No row carries a
// pseudonym.
func studentRows(members []domain.Member, students []domain.Student) []api.StudentRow {
	byP := make(map[string]domain.Student, len(students))
	for _, st := range students {
		byP[st.Participant] = st
	}
	out := make([]api.StudentRow, 0, len(members)+len(students))
	add := func(nick string, playing bool, st domain.Student) {
		row := api.StudentRow{Nickname: nick, Playing: playing, Runs: st.Runs, Joint: st.Joint, Task: st.Task,
			Compliance: st.Compliance, ProbeAnswered: st.ProbeAnswered, ProbeCorrect: st.ProbeCorrect, Last: st.Last}
		if st.Runs > 0 {
			row.ViolationsPerDay = Breakdown(st.Totals).Violations
		} else {
			row.ViolationsPerDay = make([]float64, sim.Days)
		}
		out = append(out, row)
	}
	for _, m := range members {
		st := byP[m.Participant]
		delete(byP, m.Participant)
		add(m.Nickname, m.Playing, st)
	}
	for _, st := range students {
		if _, ok := byP[st.Participant]; ok {
			add("", false, st)
		}
	}
	return out
}

// VisitLabel names a visit for people, for a teacher who discusses it
// with the class: its world (and the test day's, for a transfer visit),
// what the newcomer could learn from, and its seed:
// "Orchard · members make mistakes (observe) · seed 17".
func VisitLabel(visit string) string {
	id, err := sim.ParseVisitID(visit)
	if err != nil {
		return visit
	}
	title := func(s string) string {
		if s == "" {
			return s
		}
		return strings.ToUpper(s[:1]) + s[1:]
	}
	w := title(id.World)
	if id.TestWorld != "" {
		w += ", test day in " + title(id.TestWorld)
	}
	cond := map[string]string{
		sim.Observe: "members make mistakes (observe)",
		sim.Peers:   "members keep the rule (peers)",
		sim.Solo:    "alone with a warden (solo)",
		sim.Told:    "told the rule (told)",
		sim.Control: "no rule (control)",
	}[id.Condition]
	if cond == "" {
		cond = id.Condition
	}
	if id.Variant != "" {
		cond += ", " + id.Variant + " sanctions"
	}
	return fmt.Sprintf("%s · %s · seed %d", w, cond, id.Seed)
}

// reveal handles GET /api/rooms/CODE/reveal: for the teacher only, each
// visit played in the room with its rule and how the class did, for the
// class's discussion (api.Reveal).
func (s *Server) reveal(w http.ResponseWriter, r *http.Request) error {
	room, err := s.teacherRoom(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	members, err := s.members(ctx, room)
	if err != nil {
		return err
	}
	out := api.Reveal{Code: room.Code, Name: room.Name, SameVisit: len(room.Visits) == 1, Members: len(members), Visits: []api.VisitReveal{}}
	for _, m := range members {
		if m.Playing {
			out.Playing++
		}
	}
	type tally struct {
		api.VisitReveal
		students map[string]bool
		did      map[string]int
	}
	byVisit := map[string]*tally{}
	var order []string
	visit := func(v string) *tally {
		t := byVisit[v]
		if t == nil {
			t = &tally{VisitReveal: s.visitReveal(v), students: map[string]bool{}, did: map[string]int{}}
			byVisit[v] = t
			order = append(order, v)
		}
		return t
	}
	if out.SameVisit {
		visit(room.Visits[0])
	}
	f := domain.RunFilter{Room: room.Code, Limit: exportPage}
	for read := 0; read < maxRevealRuns; {
		runs, err := s.store.Runs(ctx, f)
		if err != nil {
			return err
		}
		for _, run := range runs {
			rec := run.Record
			t := visit(rec.Visit)
			t.Runs++
			t.students[run.Participant] = true
			sc := rec.Scores
			t.Task += b2i(sc.Task)
			t.Compliance += b2i(sc.Compliance)
			t.Joint += b2i(sc.Joint)
			for d := 0; d < sim.Days; d++ {
				t.Violations[d] += day(sc.Violations, d)
				t.Sanctions[d] += day(sc.Sanctions, d)
			}
			if p := rec.Probe; p != nil && t.Probe != nil && p.Answer >= 0 && p.Answer < len(t.Probe.Answers) {
				t.Probe.Answers[p.Answer]++
			}
			for _, ev := range rec.Events {
				if ev.Kind == "sanction" && ev.To == sim.NewcomerID && ev.Did != "" {
					t.did[didPhrase(ev.Did)]++
				}
			}
			f.After = run.Seq
		}
		read += len(runs)
		if len(runs) < f.Limit {
			break
		}
	}
	for _, v := range order {
		t := byVisit[v]
		t.Students = len(t.students)
		for d, n := range t.did {
			t.Sanctioned = append(t.Sanctioned, api.SanctionCount{Did: d, N: n})
		}
		sort.Slice(t.Sanctioned, func(i, j int) bool {
			a, b := t.Sanctioned[i], t.Sanctioned[j]
			return a.N > b.N || a.N == b.N && a.Did < b.Did
		})
		if len(t.Sanctioned) > 10 {
			t.Sanctioned = t.Sanctioned[:10]
		}
		out.Visits = append(out.Visits, t.VisitReveal)
	}
	sort.SliceStable(out.Visits, func(i, j int) bool { return out.Visits[i].Runs > out.Visits[j].Runs })
	return writeJSON(w, http.StatusOK, out)
}

// visitReveal is a visit's rule and probe, with nothing counted yet.
func (s *Server) visitReveal(visit string) api.VisitReveal {
	vr := api.VisitReveal{Visit: visit, Label: VisitLabel(visit), Violations: make([]int, sim.Days), Sanctions: make([]int, sim.Days),
		Sanctioned: []api.SanctionCount{}}
	id, err := sim.ParseVisitID(visit)
	if err != nil {
		return vr
	}
	vr.World, vr.Condition = id.World, id.Condition
	if n, err := norms.Default().Lookup(id.Norm); err == nil {
		vr.Norm, vr.Family, vr.Rule = n.ID, n.Family, n.Statement
	}
	if info, ok := s.probeInfo(visit); ok {
		vr.Probe = &api.VisitProbe{Visit: visit, Label: vr.Label, Question: info.Question, Options: info.Options,
			Correct: info.correct, Answers: make([]int, len(info.Options))}
	}
	return vr
}

// didWhere is the place in a sanction's account of the act: "2,8 (red
// stone, plaza)".
var didWhere = regexp.MustCompile(`\d+,\d+ \(([^)]*)\)`)

// didPhrase words a sanction's account of what the newcomer had just
// done (sim's "had just walked north onto 2,8 (red stone, plaza)") for a
// class that compares the acts: without the tile's coordinates, which
// differ between layouts and mean little on a projector ("Walked north
// onto red stone, plaza").
func didPhrase(did string) string {
	d := strings.TrimPrefix(did, "had just ")
	d = didWhere.ReplaceAllString(d, "$1")
	if d == "" {
		return d
	}
	return strings.ToUpper(d[:1]) + d[1:]
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
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
	members, err := s.members(r.Context(), room)
	if err != nil {
		return err
	}
	nick := make(map[string]string, len(members))
	for _, m := range members {
		nick[m.Participant] = m.Nickname
	}
	w.Header().Set("Content-Disposition", `attachment; filename="normgym-room-`+room.Code+`.csv"`)
	cw := csv.NewWriter(w)
	cols := roomColumns(nick)
	header := make([]string, len(cols))
	for i, c := range cols {
		header[i] = c.name
	}
	cw.Write(report.CSVRow(header))
	return s.streamRuns(w, r, domain.RunFilter{Room: room.Code}, func(run domain.Run) error {
		return cw.Write(row(cols, run))
	}, cw.Flush)
}

// roomColumns are the teacher export's columns: the research columns
// without the ones that are the same for the whole room, and with the
// student's nickname (nick: by participant) in place of the pseudonym,
// which is the student's private key.
func roomColumns(nick map[string]string) []column {
	var out []column
	for _, c := range columns {
		switch c.name {
		case "room", "consent_version", "suite", "suite_version", "hash", "verifier", "sim_sha256":
			continue
		case "participant":
			c = column{"nickname", "the nickname the student chose when joining the room (empty: none)",
				func(r domain.Run) string { return nick[r.Participant] }}
		}
		out = append(out, c)
	}
	return out
}
