package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/normgym/normgym/serve/session"
)

var _ session.Store = (*Store)(nil)

const sessionColumns = `id, kind, participant, agent, room, suite, suite_version, visit, norm, world, condition, family,
  sealed, private, consent_version, created_at, touched_at, actions, answer, confidence, run_id`

func scanSession(sc scanner) (session.Session, error) {
	var s session.Session
	var sealed, private int
	var created, touched int64
	var answer sql.NullInt64
	var conf sql.NullFloat64
	if err := sc.Scan(&s.ID, &s.Kind, &s.Participant, &s.Agent, &s.Room, &s.Suite, &s.SuiteVersion, &s.Visit, &s.Norm,
		&s.World, &s.Condition, &s.Family, &sealed, &private, &s.ConsentVersion, &created, &touched, &s.Actions, &answer, &conf, &s.RunID); err != nil {
		return s, err
	}
	s.Sealed, s.Private = sealed == 1, private == 1
	s.CreatedAt, s.TouchedAt = time.UnixMilli(created).UTC(), time.UnixMilli(touched).UTC()
	if answer.Valid {
		k := int(answer.Int64)
		s.Answer = &k
	}
	if conf.Valid {
		c := conf.Float64
		s.Confidence = &c
	}
	return s, nil
}

func (s *Store) oneSession(ctx context.Context, where string, args ...any) (session.Session, error) {
	ss, err := scanSession(s.w.QueryRowContext(ctx, `SELECT `+sessionColumns+` FROM sessions WHERE `+where, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return session.Session{}, session.ErrNotFound
	}
	if err != nil {
		return session.Session{}, fmt.Errorf("store: session: %w", err)
	}
	return ss, nil
}

// CreateSession implements session.Store.
func (s *Store) CreateSession(ctx context.Context, ss session.Session, tokenHash string) error {
	res, err := s.w.ExecContext(ctx, `INSERT INTO sessions (id, token_sha256, kind, participant, agent, room, suite, suite_version,
  visit, norm, world, condition, family, sealed, private, consent_version, created_at, touched_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT DO NOTHING`, ss.ID, tokenHash, ss.Kind, ss.Participant, ss.Agent, ss.Room, ss.Suite, ss.SuiteVersion,
		ss.Visit, ss.Norm, ss.World, ss.Condition, ss.Family, b2i(ss.Sealed), b2i(ss.Private), ss.ConsentVersion,
		ss.CreatedAt.UnixMilli(), ss.TouchedAt.UnixMilli())
	if err != nil {
		return fmt.Errorf("store: creating a session: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("store: creating a session: %w", err)
	} else if n == 0 {
		return session.ErrExists
	}
	return nil
}

// SessionByToken implements session.Store. It reads through the writer
// so that a session just stepped is seen as it is.
func (s *Store) SessionByToken(ctx context.Context, tokenHash string) (session.Session, error) {
	return s.oneSession(ctx, `token_sha256 = ?`, tokenHash)
}

// OwnerSession implements session.Store.
func (s *Store) OwnerSession(ctx context.Context, participant, visit string) (session.Session, error) {
	if participant == "" {
		return session.Session{}, session.ErrNotFound
	}
	return s.oneSession(ctx, `participant = ? AND visit = ? AND participant <> ''`, participant, visit)
}

// OpenSessions returns the participant's sessions without a run in a room
// scope ("" for none), the most recently used first.
func (s *Store) OpenSessions(ctx context.Context, participant, room string) ([]session.Session, error) {
	return querySessions(ctx, s.w, "sessions", `WHERE participant = ? AND participant <> '' AND room = ? AND run_id = '' ORDER BY touched_at DESC`,
		participant, room)
}

// querySessions reads the sessions a query's where clause selects; what
// names them in errors.
func querySessions(ctx context.Context, db *sql.DB, what, where string, args ...any) ([]session.Session, error) {
	rows, err := db.QueryContext(ctx, `SELECT `+sessionColumns+` FROM sessions `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("store: %s: %w", what, err)
	}
	defer rows.Close()
	var out []session.Session
	for rows.Next() {
		ss, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("store: %s: %w", what, err)
		}
		out = append(out, ss)
	}
	return out, rows.Err()
}

// AbandonedSessions implements domain.Storage.
func (s *Store) AbandonedSessions(ctx context.Context, touchedBefore time.Time, after string, limit int) ([]session.Session, error) {
	return querySessions(ctx, s.r, "abandoned sessions", `WHERE sealed = 1 AND room = '' AND kind IN ('human', 'model') AND run_id = ''
  AND touched_at < ? AND id > ? ORDER BY id LIMIT ?`, touchedBefore.UnixMilli(), after, limit)
}

// PlayedVisits lists the visits of the participant's sessions.
func (s *Store) PlayedVisits(ctx context.Context, participant string) ([]string, error) {
	rows, err := s.w.QueryContext(ctx, `SELECT visit FROM sessions WHERE participant = ? AND participant <> ''`, participant)
	if err != nil {
		return nil, fmt.Errorf("store: sessions: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// Rekey implements session.Store.
func (s *Store) Rekey(ctx context.Context, id, tokenHash string) error {
	if _, err := s.w.ExecContext(ctx, `UPDATE sessions SET token_sha256 = ? WHERE id = ?`, tokenHash, id); err != nil {
		return fmt.Errorf("store: session token: %w", err)
	}
	return nil
}

// Actions implements session.Store.
func (s *Store) Actions(ctx context.Context, id string) ([]string, error) {
	rows, err := s.w.QueryContext(ctx, `SELECT action FROM session_actions WHERE session = ? ORDER BY n`, id)
	if err != nil {
		return nil, fmt.Errorf("store: session actions: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var a string
		if err := rows.Scan(&a); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// AppendAction implements session.Store: one insert, which a trigger
// checks (the n-th action follows n actions) and counts on the session.
func (s *Store) AppendAction(ctx context.Context, id string, n int, action string, at time.Time) error {
	_, err := s.w.ExecContext(ctx, `INSERT INTO session_actions (session, n, action, at) VALUES (?, ?, ?, ?)`, id, n, action, at.UnixMilli())
	if err != nil {
		if m := err.Error(); strings.Contains(m, "session action out of order") || strings.Contains(m, "UNIQUE") || strings.Contains(m, "PRIMARY KEY") {
			return session.ErrConflict
		}
		return fmt.Errorf("store: session action: %w", err)
	}
	return nil
}

// SetAnswer implements session.Store.
func (s *Store) SetAnswer(ctx context.Context, id string, k int, confidence *float64) error {
	var conf any
	if confidence != nil {
		conf = *confidence
	}
	res, err := s.w.ExecContext(ctx, `UPDATE sessions SET answer = ?, confidence = ? WHERE id = ? AND answer IS NULL`, k, conf, id)
	if err != nil {
		return fmt.Errorf("store: session answer: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("store: session answer: %w", err)
	} else if n == 0 {
		return session.ErrConflict
	}
	return nil
}

// SetRun implements session.Store.
func (s *Store) SetRun(ctx context.Context, id, runID string) error {
	if _, err := s.w.ExecContext(ctx, `UPDATE sessions SET run_id = ? WHERE id = ?`, runID, id); err != nil {
		return fmt.Errorf("store: session run: %w", err)
	}
	return nil
}

// PurgeSessions implements session.Store (a trigger deletes the actions).
func (s *Store) PurgeSessions(ctx context.Context, before time.Time) error {
	if _, err := s.w.ExecContext(ctx, `DELETE FROM sessions WHERE kind = 'practice' AND touched_at < ?`, before.UnixMilli()); err != nil {
		return fmt.Errorf("store: purging sessions: %w", err)
	}
	return nil
}
