package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/domain"
	"github.com/normgym/normgym/serve/session"
)

// Studies (schema 9, migrations/0009_study.sql): domain.StudyStorage.

var _ domain.StudyStorage = (*Store)(nil)

// millis is t in unix milliseconds, 0 for the zero time.
func millis(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// fromMillis is millis' inverse.
func fromMillis(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

// CreateStudy implements domain.StudyStorage.
func (s *Store) CreateStudy(ctx context.Context, st domain.Study) error {
	design, err := json.Marshal(st.Design)
	if err != nil {
		return fmt.Errorf("store: study %s: %w", st.Code, err)
	}
	rules, err := json.Marshal(st.Rules)
	if err != nil {
		return fmt.Errorf("store: study %s: %w", st.Code, err)
	}
	res, err := s.w.ExecContext(ctx, `INSERT INTO studies (code, name, design, rules, rules_n, salt, token_sha256, creator, created_at)
VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, st.Code, st.Name, string(design), string(rules), st.Salt, st.TokenSHA256,
		st.Creator, millis(st.CreatedAt))
	if err != nil {
		return fmt.Errorf("store: creating study %s: %w", st.Code, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("store: creating study %s: %w", st.Code, err)
	} else if n == 0 {
		return domain.ErrExists
	}
	return nil
}

// Study implements domain.StudyStorage.
func (s *Store) Study(ctx context.Context, code string) (domain.Study, error) {
	var st domain.Study
	var design, rules string
	var created int64
	err := s.w.QueryRowContext(ctx, `SELECT code, name, design, rules, rules_n, salt, token_sha256, creator, created_at FROM studies WHERE code = ?`,
		code).Scan(&st.Code, &st.Name, &design, &rules, &st.RulesN, &st.Salt, &st.TokenSHA256, &st.Creator, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return st, domain.ErrNotFound
	}
	if err != nil {
		return st, fmt.Errorf("store: study %s: %w", code, err)
	}
	if err := json.Unmarshal([]byte(design), &st.Design); err != nil {
		return st, fmt.Errorf("store: study %s: design: %w", code, err)
	}
	if err := json.Unmarshal([]byte(rules), &st.Rules); err != nil {
		return st, fmt.Errorf("store: study %s: rules: %w", code, err)
	}
	st.CreatedAt = fromMillis(created)
	return st, nil
}

// ChangeStudyRules implements domain.StudyStorage: one insert, numbered
// and counted inside the statement; a trigger applies it.
func (s *Store) ChangeStudyRules(ctx context.Context, code string, rules []api.StudyRule, note string, at time.Time) error {
	b, err := json.Marshal(rules)
	if err != nil {
		return fmt.Errorf("store: study %s: %w", code, err)
	}
	_, err = s.w.ExecContext(ctx, `INSERT INTO study_rule_changes (study, n, at, rules, note, participants)
SELECT ?, COALESCE(MAX(n), 0) + 1, ?, ?, ?, (SELECT COUNT(*) FROM study_participants WHERE study = ?)
FROM study_rule_changes WHERE study = ?`, code, millis(at), string(b), note, code, code)
	if err != nil {
		return fmt.Errorf("store: study %s: changing the rules: %w", code, err)
	}
	return nil
}

// StudyRuleChanges implements domain.StudyStorage.
func (s *Store) StudyRuleChanges(ctx context.Context, code string) ([]api.StudyRuleChange, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT at, rules, note, participants FROM study_rule_changes WHERE study = ? ORDER BY n`, code)
	if err != nil {
		return nil, fmt.Errorf("store: study %s: rule changes: %w", code, err)
	}
	defer rows.Close()
	out := []api.StudyRuleChange{}
	for rows.Next() {
		var c api.StudyRuleChange
		var at int64
		var rules string
		if err := rows.Scan(&at, &rules, &c.Note, &c.Participants); err != nil {
			return nil, fmt.Errorf("store: study %s: rule changes: %w", code, err)
		}
		if err := json.Unmarshal([]byte(rules), &c.Rules); err != nil {
			return nil, fmt.Errorf("store: study %s: rule changes: %w", code, err)
		}
		c.At, c.AfterStart = fromMillis(at), c.Participants > 0
		out = append(out, c)
	}
	return out, rows.Err()
}

const participantColumns = `p.id, p.study, p.pid_sha256, p.ids, p.token_sha256, p.pseudonym, p.cell, p.visit, p.entered_at,
  p.consented_at, p.consent_version, p.check_answers, p.check_correct, p.checked_at, p.finished_at, p.verdicts, p.verdicts_n, p.excluded`

// participantDest returns the scan destinations of participantColumns and
// a function that finishes decoding into p.
func participantDest(p *domain.StudyParticipant) ([]any, func() error) {
	var ids, answers, verdicts string
	var entered, consented, checked, finished int64
	var excluded int
	dest := []any{&p.ID, &p.Study, &p.PIDHash, &ids, &p.TokenSHA256, &p.Pseudonym, &p.Cell, &p.Visit, &entered,
		&consented, &p.ConsentVersion, &answers, &p.CheckCorrect, &checked, &finished, &verdicts, &p.VerdictsN, &excluded}
	return dest, func() error {
		p.EnteredAt, p.ConsentedAt, p.CheckedAt, p.FinishedAt = fromMillis(entered), fromMillis(consented), fromMillis(checked), fromMillis(finished)
		p.Excluded = excluded == 1
		if err := json.Unmarshal([]byte(ids), &p.IDs); err != nil {
			return fmt.Errorf("store: participant %s: ids: %w", p.ID, err)
		}
		if answers != "" {
			if err := json.Unmarshal([]byte(answers), &p.CheckAnswers); err != nil {
				return fmt.Errorf("store: participant %s: answers: %w", p.ID, err)
			}
		}
		if verdicts != "" {
			if err := json.Unmarshal([]byte(verdicts), &p.Verdicts); err != nil {
				return fmt.Errorf("store: participant %s: verdicts: %w", p.ID, err)
			}
		}
		return nil
	}
}

func (s *Store) oneParticipant(ctx context.Context, where string, args ...any) (domain.StudyParticipant, error) {
	var p domain.StudyParticipant
	dest, finish := participantDest(&p)
	err := s.w.QueryRowContext(ctx, `SELECT `+participantColumns+` FROM study_participants p WHERE `+where, args...).Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return p, domain.ErrNotFound
	}
	if err != nil {
		return p, fmt.Errorf("store: study participant: %w", err)
	}
	return p, finish()
}

// EnterStudy implements domain.StudyStorage.
func (s *Store) EnterStudy(ctx context.Context, p domain.StudyParticipant) (bool, error) {
	ids, err := json.Marshal(p.IDs)
	if err != nil || p.IDs == nil {
		ids = []byte("{}")
	}
	res, err := s.w.ExecContext(ctx, `INSERT INTO study_participants (id, study, pid_sha256, ids, token_sha256, pseudonym, cell, visit, entered_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, p.ID, p.Study, p.PIDHash, string(ids), p.TokenSHA256, p.Pseudonym,
		p.Cell, p.Visit, millis(p.EnteredAt))
	if err != nil {
		return false, fmt.Errorf("store: entering study %s: %w", p.Study, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("store: entering study %s: %w", p.Study, err)
	}
	return n == 1, nil
}

// StudyParticipant implements domain.StudyStorage.
func (s *Store) StudyParticipant(ctx context.Context, study, pidHash string) (domain.StudyParticipant, error) {
	return s.oneParticipant(ctx, `p.study = ? AND p.pid_sha256 = ?`, study, pidHash)
}

// StudyParticipantByToken implements domain.StudyStorage.
func (s *Store) StudyParticipantByToken(ctx context.Context, tokenHash string) (domain.StudyParticipant, error) {
	return s.oneParticipant(ctx, `p.token_sha256 = ?`, tokenHash)
}

// once runs an UPDATE that writes at most once and reports whether it did.
func (s *Store) once(ctx context.Context, what, q string, args ...any) (bool, error) {
	res, err := s.w.ExecContext(ctx, q, args...)
	if err != nil {
		return false, fmt.Errorf("store: study participant: %s: %w", what, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("store: study participant: %s: %w", what, err)
	}
	return n == 1, nil
}

// StudyConsent implements domain.StudyStorage.
func (s *Store) StudyConsent(ctx context.Context, id, version string, at time.Time) (bool, error) {
	return s.once(ctx, "consent", `UPDATE study_participants SET consented_at = ?, consent_version = ? WHERE id = ? AND consented_at = 0`,
		millis(at), version, id)
}

// StudyCheck implements domain.StudyStorage.
func (s *Store) StudyCheck(ctx context.Context, id string, answers []int, correct int, at time.Time) (bool, error) {
	b, err := json.Marshal(answers)
	if err != nil {
		return false, err
	}
	return s.once(ctx, "check", `UPDATE study_participants SET check_answers = ?, check_correct = ?, checked_at = ? WHERE id = ? AND check_correct < 0`,
		string(b), correct, millis(at), id)
}

// StudyFinish implements domain.StudyStorage.
func (s *Store) StudyFinish(ctx context.Context, id string, at time.Time) (bool, error) {
	return s.once(ctx, "finish", `UPDATE study_participants SET finished_at = ? WHERE id = ? AND finished_at = 0`, millis(at), id)
}

// SetStudyVerdicts implements domain.StudyStorage.
func (s *Store) SetStudyVerdicts(ctx context.Context, id string, verdicts map[string]api.StudyVerdict, n int, excluded bool) error {
	b, err := json.Marshal(verdicts)
	if err != nil {
		return err
	}
	if _, err := s.w.ExecContext(ctx, `UPDATE study_participants SET verdicts = ?, verdicts_n = ?, excluded = ? WHERE id = ?`,
		string(b), n, b2i(excluded), id); err != nil {
		return fmt.Errorf("store: study participant %s: verdicts: %w", id, err)
	}
	return nil
}

// StudyRows implements domain.StudyStorage: each participant with its
// session (the pseudonym's session of the assigned visit) and run.
func (s *Store) StudyRows(ctx context.Context, code string) ([]domain.StudyRow, error) {
	cols := strings.ReplaceAll(sessionColumns, "\n", " ")
	var sc []string
	for _, c := range strings.Split(cols, ",") {
		sc = append(sc, "s."+strings.TrimSpace(c))
	}
	rows, err := s.r.QueryContext(ctx, `SELECT `+participantColumns+`, s.id IS NOT NULL, `+strings.Join(sessionNullable(sc), ", ")+`,
  r.run_id IS NOT NULL, COALESCE(r.created_at, 0), COALESCE(r.task, 0), COALESCE(r.compliance, 0), COALESCE(r.joint, 0), r.probe_correct
FROM study_participants p
LEFT JOIN sessions s ON s.participant = p.pseudonym AND s.visit = p.visit AND s.participant <> ''
LEFT JOIN runs r ON r.run_id = s.run_id AND s.run_id <> ''
WHERE p.study = ? ORDER BY p.entered_at, p.id`, code)
	if err != nil {
		return nil, fmt.Errorf("store: study %s: participants: %w", code, err)
	}
	defer rows.Close()
	var out []domain.StudyRow
	for rows.Next() {
		row, err := scanStudyRow(rows)
		if err != nil {
			return nil, fmt.Errorf("store: study %s: participants: %w", code, err)
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

// sessionNullable wraps the session columns of a LEFT JOIN so that a
// participant without a session scans as zero values.
func sessionNullable(cols []string) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		switch strings.TrimPrefix(c, "s.") {
		case "sealed", "private", "created_at", "touched_at", "actions":
			out[i] = "COALESCE(" + c + ", 0)"
		case "answer", "confidence":
			out[i] = c
		default:
			out[i] = "COALESCE(" + c + ", '')"
		}
	}
	return out
}

// scanStudyRow scans a row of StudyRows.
func scanStudyRow(sc scanner) (domain.StudyRow, error) {
	var row domain.StudyRow
	dest, finish := participantDest(&row.StudyParticipant)
	var hasSession, hasRun bool
	var sess session.Session
	var sealed, private int
	var created, touched, runAt int64
	var answer sql.NullInt64
	var conf sql.NullFloat64
	var task, comp, joint int
	var probe sql.NullInt64
	dest = append(dest, &hasSession, &sess.ID, &sess.Kind, &sess.Participant, &sess.Agent, &sess.Room, &sess.Suite, &sess.SuiteVersion,
		&sess.Visit, &sess.Norm, &sess.World, &sess.Condition, &sess.Family, &sealed, &private, &sess.ConsentVersion, &created, &touched,
		&sess.Actions, &answer, &conf, &sess.RunID, &hasRun, &runAt, &task, &comp, &joint, &probe)
	if err := sc.Scan(dest...); err != nil {
		return row, err
	}
	if err := finish(); err != nil {
		return row, err
	}
	if hasSession {
		sess.Sealed, sess.Private = sealed == 1, private == 1
		sess.CreatedAt, sess.TouchedAt = fromMillis(created), fromMillis(touched)
		if answer.Valid {
			k := int(answer.Int64)
			sess.Answer = &k
		}
		row.Session = &sess
	}
	if hasRun {
		out := &domain.RunOutcome{RunID: sess.RunID, CreatedAt: fromMillis(runAt), Task: task == 1, Compliance: comp == 1, Joint: joint == 1}
		if probe.Valid {
			c := probe.Int64 == 1
			out.ProbeCorrect = &c
		}
		row.Run = out
	}
	return row, nil
}

// TimedActions implements domain.StudyStorage.
func (s *Store) TimedActions(ctx context.Context, sessionID string) ([]domain.TimedAction, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT action, at FROM session_actions WHERE session = ? ORDER BY n`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("store: session actions: %w", err)
	}
	defer rows.Close()
	var out []domain.TimedAction
	for rows.Next() {
		var a domain.TimedAction
		var at int64
		if err := rows.Scan(&a.Action, &at); err != nil {
			return nil, fmt.Errorf("store: session actions: %w", err)
		}
		a.At = fromMillis(at)
		out = append(out, a)
	}
	return out, rows.Err()
}

// SuiteOutcomes implements domain.StudyStorage.
func (s *Store) SuiteOutcomes(ctx context.Context, suite, version string, abandonedBefore time.Time) ([]domain.CellOutcome, error) {
	var out []domain.CellOutcome
	rows, err := s.r.QueryContext(ctx, `SELECT norm, family, CASE WHEN variant = '' THEN condition ELSE condition || '+' || variant END,
  client, agent, provenance, COUNT(*), SUM(joint)
FROM runs WHERE suite = ? AND suite_version = ? AND room = ''
GROUP BY norm, family, condition, variant, client, agent, provenance`, suite, version)
	if err != nil {
		return nil, fmt.Errorf("store: suite outcomes: %w", err)
	}
	for rows.Next() {
		var c domain.CellOutcome
		if err := rows.Scan(&c.Norm, &c.Family, &c.Condition, &c.Client, &c.Agent, &c.Provenance, &c.Runs, &c.Joint); err != nil {
			rows.Close()
			return nil, fmt.Errorf("store: suite outcomes: %w", err)
		}
		out = append(out, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: suite outcomes: %w", err)
	}
	rows, err = s.r.QueryContext(ctx, `SELECT norm, family, condition, COUNT(*) FROM sessions
WHERE suite = ? AND suite_version = ? AND sealed = 1 AND room = '' AND kind = 'human' AND run_id = '' AND touched_at < ?
GROUP BY norm, family, condition`, suite, version, millis(abandonedBefore))
	if err != nil {
		return nil, fmt.Errorf("store: suite outcomes: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		c := domain.CellOutcome{Client: "human", Agent: "human", Provenance: api.ProvenanceStepped}
		if err := rows.Scan(&c.Norm, &c.Family, &c.Condition, &c.Abandoned); err != nil {
			return nil, fmt.Errorf("store: suite outcomes: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
