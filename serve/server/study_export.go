package server

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/domain"
	"github.com/normgym/normgym/serve/session"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/report"
)

// A study's export (GET /api/study/CODE/export?format=csv|jsonl,
// researcher) and its rule changes (PUT /api/study/CODE/rules). The export
// has one row per participant who entered, each rule's verdict on it, and
// a data card: consent version, platform, dates, the rules as declared,
// at the first entry and now, and every change.

// studyRules handles PUT /api/study/CODE/rules.
func (s *Server) studyRules(w http.ResponseWriter, r *http.Request) error {
	st, ss, err := s.findStudy(r, r.PathValue("code"))
	if err != nil {
		return err
	}
	if err := s.researcher(r, st); err != nil {
		return err
	}
	var req api.StudyRulesUpdate
	if err := decodeJSON(r, &req, maxStudyRules+1); err != nil {
		return err
	}
	if err := checkRules(req.Rules); err != nil {
		return err
	}
	if strings.TrimSpace(req.Note) == "" || len(req.Note) > 500 || !validName(strings.TrimSpace(req.Note)) {
		return errf(api.CodeInvalid, "note must say why the rules change (1 to 500 characters): the data card records it")
	}
	if req.Rules == nil {
		req.Rules = []api.StudyRule{}
	}
	if err := ss.ChangeStudyRules(r.Context(), st.Code, req.Rules, strings.TrimSpace(req.Note), s.now().UTC()); err != nil {
		return err
	}
	if st, err = ss.Study(r.Context(), st.Code); err != nil {
		return err
	}
	d, err := s.dashboardOf(r.Context(), ss, st)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, d)
}

// studyExport handles GET /api/study/CODE/export.
func (s *Server) studyExport(w http.ResponseWriter, r *http.Request) error {
	st, ss, err := s.findStudy(r, r.PathValue("code"))
	if err != nil {
		return err
	}
	if err := s.researcher(r, st); err != nil {
		return err
	}
	format := r.URL.Query().Get("format")
	if format == "" {
		format = "jsonl"
	}
	if format != "jsonl" && format != "csv" {
		return errf(api.CodeInvalid, "format must be jsonl or csv, not %q", clip(format))
	}
	ctx := r.Context()
	rows, err := s.settledRows(ctx, ss, st)
	if err != nil {
		return err
	}
	changes, err := ss.StudyRuleChanges(ctx, st.Code)
	if err != nil {
		return err
	}
	card := s.studyCard(st, rows, changes)
	lines := make([]api.StudyExportRow, 0, len(rows))
	for _, p := range rows {
		line, err := s.exportRow(ctx, ss, st, p, card.RulesAtStart)
		if err != nil {
			return err
		}
		lines = append(lines, line)
	}
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Disposition", `attachment; filename="normgym-study-`+st.Code+"."+format+`"`)
	if format == "csv" {
		h.Set("Content-Type", "text/csv; charset=utf-8")
		return writeStudyCSV(w, card, st.Rules, lines)
	}
	h.Set("Content-Type", "application/x-ndjson")
	enc := json.NewEncoder(w)
	enc.Encode(map[string]api.StudyDataCard{"data_card": card})
	for _, l := range lines {
		enc.Encode(l)
	}
	return nil
}

// exportRow is one participant's line.
func (s *Server) exportRow(ctx context.Context, ss domain.StudyStorage, st domain.Study, p domain.StudyRow, atStart []api.StudyRule) (api.StudyExportRow, error) {
	out := api.StudyExportRow{Participant: p.PIDHash, IDs: p.IDs, Pseudonym: p.Pseudonym, Cell: p.Cell, Outcome: s.outcome(st, p),
		Entered: p.EnteredAt, CheckCorrect: p.CheckCorrect, CheckAnswers: p.CheckAnswers, Verdicts: p.Verdicts, Excluded: p.Excluded,
		Reasons: []string{}}
	if out.CheckAnswers == nil {
		out.CheckAnswers = []int{}
	}
	if id, err := sim.ParseVisitID(p.Visit); err == nil {
		_, out.Condition, out.Family = session.VisitParts(p.Visit, id.Norm)
		out.Norm = id.Norm
	}
	if !p.ConsentedAt.IsZero() {
		t := p.ConsentedAt
		out.Consented = &t
	}
	if !p.FinishedAt.IsZero() {
		t := p.FinishedAt
		out.Finished = &t
	}
	if p.Session != nil {
		out.Actions = p.Session.Actions
	}
	for name, v := range p.Verdicts {
		if v.Exclude {
			out.Reasons = append(out.Reasons, name)
		}
	}
	slices.Sort(out.Reasons)
	if p.Run == nil {
		return out, nil
	}
	// The visit is over: its id (and seed) may be shown now.
	out.Visit, out.RunID = p.Visit, p.Run.RunID
	out.Minutes = math.Round(p.Run.CreatedAt.Sub(p.EnteredAt).Minutes()*100) / 100
	task, comp, joint := p.Run.Task, p.Run.Compliance, p.Run.Joint
	out.Task, out.Compliance, out.Joint, out.ProbeCorrect = &task, &comp, &joint, p.Run.ProbeCorrect
	e, err := s.effortOf(ctx, ss, p)
	if err != nil {
		return out, err
	}
	_, out.ExcludedAtStart = verdicts(atStart, e)
	return out, nil
}

// studyCard is a study's data card.
func (s *Server) studyCard(st domain.Study, rows []domain.StudyRow, changes []api.StudyRuleChange) api.StudyDataCard {
	d := st.Design
	card := api.StudyDataCard{Name: st.Name, Code: st.Code, Generated: s.now().UTC(), Platform: d.Platform, ConsentVersion: d.ConsentVersion,
		Created: st.CreatedAt, Design: d, RulesDeclared: d.Rules, RulesAtStart: d.Rules, Rules: st.Rules, Changes: changes,
		Counts: map[string]int{"entered": len(rows)}, Fields: studyFields(st.Rules), PublicRow: studyPublicRow,
		Description: "One line per participant who entered the study " + st.Name + " through its link: the platform's ids as HMAC-SHA256 " +
			"under the study's salt (the researcher holds the salt; it is in no export), the cell and sealed visit the quota assigned, " +
			"the comprehension check, the visit's outcome, each declared exclusion rule's verdict and the scores. Every participant who " +
			"entered is here: those who left before playing are abandoned (their place was released after the time limit). Verdicts apply " +
			"the rules in force now (rules); excluded_at_start applies the rules in force when the first participant entered (rules_at_start); " +
			"every change of the rules is listed with its time, its reason and how many participants had entered.",
		Versions: map[string]string{"sim": sim.Version, "catalog": norms.Default().Version(), "sim_sha256": s.verify.SHA256(), "suite": d.Suite}}
	if _, ref, err := designCells(d); err == nil {
		card.Versions["suite_version"] = ref.version
	}
	card.Design.Rules = d.Rules
	for _, c := range changes {
		if !c.AfterStart {
			card.RulesAtStart = c.Rules
		}
	}
	for i, p := range rows {
		t := p.EnteredAt
		if i == 0 {
			card.FirstEntry = &t
		}
		card.LastEntry = &t
		o := s.outcome(st, p)
		card.Counts[o]++
		if o == outcomeCompleted && p.Excluded {
			card.Counts["excluded"]++
		}
		if !p.FinishedAt.IsZero() {
			card.Counts["completion_code_shown"]++
		}
	}
	return card
}

// studyFields describes the export's fields.
func studyFields(rules []api.StudyRule) map[string]string {
	f := map[string]string{
		"participant":       "HMAC-SHA256 of the participant's platform id under the study's salt (hex)",
		"ids":               "the link's other platform ids (Prolific STUDY_ID and SESSION_ID, MTurk assignmentId and hitId), HMAC'd alike",
		"pseudonym":         "the pseudonym that owns the participant's run in the server's research export",
		"cell":              "the cell the quota assigned: norm/condition, family/condition or control",
		"condition":         "the visit's condition",
		"norm":              "the visit's norm (none under control)",
		"family":            "the norm's family",
		"visit":             "the visit id with its seed, once the visit is played (before, the seed is secret)",
		"outcome":           "completed (played, probe answered), in_progress (within the time limit) or abandoned (past it, unplayed: the place was released)",
		"entered":           "when the participant entered (UTC)",
		"consented":         "when the participant consented (empty: not)",
		"finished":          "when the completion code was shown (empty: not yet)",
		"minutes":           "minutes from entering to the end of the visit",
		"check_correct":     "right answers of the comprehension check (-1: not answered); check_answers the options chosen",
		"actions":           "actions sent in the visit",
		"excluded":          "1 if a rule in force excludes the participant (decided once the visit is played)",
		"reasons":           "the rules that exclude the participant",
		"excluded_at_start": "1 if the rules in force when the first participant entered exclude the participant",
		"run_id":            "the run in the server's research export",
		"task":              "1 if the test-day task was done",
		"compliance":        "1 if no rule was broken on the test day",
		"joint":             "task and compliance: the headline number",
		"probe_correct":     "1 if the probe's answer named the rule (empty: no probe, under control)",
	}
	for _, r := range rules {
		f["rule:"+r.Name] = "the verdict of rule " + r.Name + " (" + r.Kind + " " + strconv.FormatFloat(r.Value, 'g', -1, 64) + "): exclude, keep, or empty until the visit is played; measure:" + r.Name + " is what it measured"
	}
	return f
}

// writeStudyCSV writes the CSV export: the data card in two comment
// lines, then a header and a row per participant.
func writeStudyCSV(w http.ResponseWriter, card api.StudyDataCard, rules []api.StudyRule, lines []api.StudyExportRow) error {
	cb, _ := json.Marshal(card)
	w.Write([]byte("# NormGym study " + card.Code + ": one row per participant; the data card (JSON) follows.\n# data_card: " + string(cb) + "\n"))
	cw := csv.NewWriter(w)
	var platform []string
	for _, l := range lines {
		for k := range l.IDs {
			if !slices.Contains(platform, k) {
				platform = append(platform, k)
			}
		}
	}
	slices.Sort(platform)
	header := []string{"participant"}
	for _, k := range platform {
		header = append(header, "id:"+k)
	}
	header = append(header, "pseudonym", "cell", "condition", "norm", "family", "visit", "outcome", "entered", "consented", "finished",
		"minutes", "check_correct", "check_answers", "actions")
	for _, r := range rules {
		header = append(header, "rule:"+r.Name, "measure:"+r.Name)
	}
	header = append(header, "excluded", "reasons", "excluded_at_start", "run_id", "task", "compliance", "joint", "probe_correct")
	cw.Write(report.CSVRow(header))
	for _, l := range lines {
		cw.Write(studyCSVRow(l, platform, rules))
	}
	cw.Flush()
	return cw.Error()
}

// studyCSVRow is a participant's CSV row, each cell neutralised against
// formula injection.
func studyCSVRow(l api.StudyExportRow, platform []string, rules []api.StudyRule) []string {
	row := []string{l.Participant}
	for _, k := range platform {
		row = append(row, l.IDs[k])
	}
	var answers []string
	for _, a := range l.CheckAnswers {
		answers = append(answers, itoa(a))
	}
	row = append(row, l.Pseudonym, l.Cell, l.Condition, l.Norm, l.Family, l.Visit, l.Outcome, stamp(&l.Entered), stamp(l.Consented),
		stamp(l.Finished), strconv.FormatFloat(l.Minutes, 'f', -1, 64), itoa(l.CheckCorrect), strings.Join(answers, ";"), itoa(l.Actions))
	for _, r := range rules {
		v, ok := l.Verdicts[r.Name]
		switch {
		case !ok:
			row = append(row, "", "")
		case v.Exclude:
			row = append(row, "exclude", strconv.FormatFloat(v.Measured, 'f', -1, 64))
		default:
			row = append(row, "keep", strconv.FormatFloat(v.Measured, 'f', -1, 64))
		}
	}
	row = append(row, btoa(l.Excluded), strings.Join(l.Reasons, ";"), btoa(l.ExcludedAtStart), l.RunID, optBool(l.Task), optBool(l.Compliance),
		optBool(l.Joint), optBool(l.ProbeCorrect))
	for i := range row {
		row[i] = report.CSVCell(row[i])
	}
	return row
}

// stamp writes a time in RFC 3339 ("" for none).
func stamp(t *time.Time) string {
	if t == nil || t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// optBool writes 1, 0 or "" for none.
func optBool(b *bool) string {
	if b == nil {
		return ""
	}
	return btoa(*b)
}
