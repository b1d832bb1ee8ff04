package server

import (
	"encoding/csv"
	"fmt"
	"net/http"
	"strings"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/domain"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/report"
)

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
