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
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/report"
)

// runColumns are the columns of runs in insert order.
const runColumns = `run_id, content_sha256, created_at, participant, room, consent_version, client, agent,
  suite, suite_version, visit, world, norm, family, condition, task, compliance, joint,
  violations_practice, violations_test, sanctions, repeats, probe_answer, probe_correct, probe_confidence,
  hash, sim_sha256, sim_version, catalog_version, record, verifier, variant, learned_from, day_repeat, provenance`

var insertRun = `INSERT INTO runs (` + runColumns + `)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT DO NOTHING`

// runArgs returns the insert arguments of a run: the summary columns are
// all taken from its record.
func runArgs(run domain.Run) ([]any, error) {
	rec := run.Record
	sc := rec.Scores
	if len(sc.Violations) != sim.Days {
		return nil, fmt.Errorf("store: run %s: %d days of violations, want %d", run.RunID, len(sc.Violations), sim.Days)
	}
	body, err := json.Marshal(rec)
	if err != nil {
		return nil, fmt.Errorf("store: run %s: %w", run.RunID, err)
	}
	var answer, correct, confidence any
	if p := rec.Probe; p != nil {
		answer, correct = p.Answer, b2i(p.Correct)
		if p.Confidence != nil {
			confidence = *p.Confidence
		}
	}
	var learned any
	dayRepeat := 0
	if src, ok := report.LearnedFrom(rec); ok {
		learned = src
		if src == 0 && len(sc.DayRepeats) > 0 && sc.DayRepeats[0] > 0 {
			dayRepeat = 1
		}
	}
	return []any{run.RunID, run.ContentSHA256, run.CreatedAt.UnixMilli(), run.Participant, run.Room, run.ConsentVersion,
		rec.Client, rec.Agent, rec.Suite, rec.SuiteVersion, rec.Visit, rec.World, rec.Norm, rec.Family, rec.Condition,
		b2i(sc.Task), b2i(sc.Compliance), b2i(sc.Joint), sc.Violations[0], sc.Violations[1], sc.SanctionsReceived, sc.Repeats,
		answer, correct, confidence, rec.Hash, rec.SimSHA256, rec.SimVersion, rec.Catalog, string(body), run.Verifier,
		rec.Variant, learned, dayRepeat, provenanceOf(run)}, nil
}

// provenanceOf is run's provenance, self-reported unless it says otherwise.
func provenanceOf(run domain.Run) string {
	if run.Provenance == "" {
		return api.ProvenanceSelfReported
	}
	return run.Provenance
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// PutRun implements domain.Storage.
func (s *Store) PutRun(ctx context.Context, run domain.Run) (domain.Run, bool, error) {
	args, err := runArgs(run)
	if err != nil {
		return domain.Run{}, false, err
	}
	res, err := s.w.ExecContext(ctx, insertRun, args...)
	if err != nil {
		if strings.Contains(err.Error(), "normgym: norm already played") {
			return domain.Run{}, false, domain.ErrNormPlayed
		}
		return domain.Run{}, false, fmt.Errorf("store: inserting run %s: %w", run.RunID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return domain.Run{}, false, fmt.Errorf("store: inserting run %s: %w", run.RunID, err)
	}
	if n == 0 {
		// Either the run id is taken or (runs_trajectory) the participant
		// has stored this trajectory of the visit under another id.
		got, err := s.runByID(ctx, s.w, run.RunID)
		if errors.Is(err, domain.ErrNotFound) && run.Participant != "" {
			got, err = s.trajectory(ctx, s.w, run.Participant, run.Record.Visit, run.Record.Hash)
		}
		return got, false, err
	}
	if run.Seq, err = res.LastInsertId(); err != nil {
		return domain.Run{}, false, fmt.Errorf("store: inserting run %s: %w", run.RunID, err)
	}
	return run, true, nil
}

const selectRun = `SELECT seq, run_id, content_sha256, created_at, participant, room, consent_version, verifier, provenance, record FROM runs`

func scanRun(sc scanner) (domain.Run, error) {
	var run domain.Run
	var created int64
	var body string
	if err := sc.Scan(&run.Seq, &run.RunID, &run.ContentSHA256, &created, &run.Participant, &run.Room, &run.ConsentVersion, &run.Verifier, &run.Provenance, &body); err != nil {
		return domain.Run{}, err
	}
	run.CreatedAt = time.UnixMilli(created).UTC()
	if err := json.Unmarshal([]byte(body), &run.Record); err != nil {
		return domain.Run{}, fmt.Errorf("store: run %s: record: %w", run.RunID, err)
	}
	return run, nil
}

func (s *Store) runByID(ctx context.Context, db *sql.DB, id string) (domain.Run, error) {
	run, err := scanRun(db.QueryRowContext(ctx, selectRun+` WHERE run_id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return domain.Run{}, domain.ErrNotFound
	}
	if err != nil {
		return domain.Run{}, fmt.Errorf("store: run %s: %w", id, err)
	}
	return run, nil
}

func (s *Store) trajectory(ctx context.Context, db *sql.DB, participant, visit, hash string) (domain.Run, error) {
	run, err := scanRun(db.QueryRowContext(ctx, selectRun+` WHERE participant = ? AND visit = ? AND hash = ? AND participant <> '' ORDER BY seq LIMIT 1`,
		participant, visit, hash))
	if errors.Is(err, sql.ErrNoRows) {
		return domain.Run{}, domain.ErrNotFound
	}
	if err != nil {
		return domain.Run{}, fmt.Errorf("store: run of %s on %s: %w", participant, visit, err)
	}
	return run, nil
}

// RunByTrajectory implements domain.Storage.
func (s *Store) RunByTrajectory(ctx context.Context, participant, visit, hash string) (domain.Run, error) {
	if participant == "" {
		return domain.Run{}, domain.ErrNotFound
	}
	return s.trajectory(ctx, s.r, participant, visit, hash)
}

// NormRun implements domain.Storage.
func (s *Store) NormRun(ctx context.Context, participant, norm, visit string) (domain.Run, error) {
	run, err := scanRun(s.r.QueryRowContext(ctx, selectRun+` WHERE participant = ? AND norm = ? AND visit <> ? AND participant <> '' ORDER BY seq LIMIT 1`,
		participant, norm, visit))
	if errors.Is(err, sql.ErrNoRows) {
		return domain.Run{}, domain.ErrNotFound
	}
	if err != nil {
		return domain.Run{}, fmt.Errorf("store: run of %s on norm %s: %w", participant, norm, err)
	}
	return run, nil
}

// Run implements domain.Storage.
func (s *Store) Run(ctx context.Context, runID string) (domain.Run, error) {
	return s.runByID(ctx, s.r, runID)
}

// Runs implements domain.Storage.
func (s *Store) Runs(ctx context.Context, f domain.RunFilter) ([]domain.Run, error) {
	q := selectRun + ` WHERE seq > ?`
	args := []any{f.After}
	if f.UpTo > 0 {
		q += ` AND seq <= ?`
		args = append(args, f.UpTo)
	}
	if f.Participant != "" {
		q += ` AND participant = ?`
		args = append(args, f.Participant)
	}
	if f.Room != "" {
		q += ` AND room = ?`
		args = append(args, f.Room)
	}
	q += ` ORDER BY seq LIMIT ?`
	limit := f.Limit
	if limit <= 0 {
		limit = 1000
	}
	args = append(args, limit)
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: runs: %w", err)
	}
	defer rows.Close()
	var out []domain.Run
	for rows.Next() {
		run, err := scanRun(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, run)
	}
	return out, rows.Err()
}

// LastSeq implements domain.Storage.
func (s *Store) LastSeq(ctx context.Context) (int64, error) {
	var seq int64
	if err := s.r.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM runs`).Scan(&seq); err != nil {
		return 0, fmt.Errorf("store: last run: %w", err)
	}
	return seq, nil
}
