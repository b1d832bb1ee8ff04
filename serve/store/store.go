// Package store keeps the NormGym server's data in SQL: it implements
// domain.Storage over database/sql. Open gives a SQLite file (pure Go,
// WAL); New takes any database/sql handle that speaks SQLite's dialect,
// such as Cloudflare D1's, and applies the same migrations.
//
// The SQL is written for both: positional '?' arguments only, no
// transaction needed for correctness (every write is one statement; the
// aggregate tables are kept by triggers inside it), upserts as
// INSERT … ON CONFLICT DO NOTHING or INSERT OR IGNORE + UPDATE.
package store

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/domain"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/report"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Store implements domain.Storage.
type Store struct {
	w, r   *sql.DB // writer and readers (the same handle unless Open split them)
	closer func() error
}

var _ domain.Storage = (*Store)(nil)

// New applies the migrations to db and returns a Store over it. Reads and
// writes share db; Close does not close it.
func New(ctx context.Context, db *sql.DB) (*Store, error) {
	s := &Store{w: db, r: db, closer: func() error { return nil }}
	if err := s.migrate(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Attach returns a Store over db without touching its schema: for hosts
// that apply the migrations beforehand (`wrangler d1 migrations apply` on
// Cloudflare D1, where every request starts a fresh process and checking
// the migrations each time would cost two queries per request).
func Attach(db *sql.DB) *Store {
	return &Store{w: db, r: db, closer: func() error { return nil }}
}

// Close closes what Open opened.
func (s *Store) Close() error { return s.closer() }

// Migration is one numbered schema file.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// Migrations returns the embedded migrations in order: the files
// migrations/NNNN_name.sql.
func Migrations() ([]Migration, error) {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var out []Migration
	for _, n := range names {
		base := strings.TrimSuffix(strings.TrimPrefix(n, "migrations/"), ".sql")
		num, _, _ := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("store: migration %s: the name must start with a positive number", n)
		}
		b, err := migrations.ReadFile(n)
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Version: v, Name: base, SQL: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	for i := 1; i < len(out); i++ {
		if out[i].Version == out[i-1].Version {
			return nil, fmt.Errorf("store: two migrations numbered %d", out[i].Version)
		}
	}
	return out, nil
}

// Statements splits a migration into statements: each ends with ';' at
// the end of a line, except inside CREATE TRIGGER, which ends at "END;".
// Comment lines are dropped.
func Statements(script string) []string {
	var out []string
	var cur []string
	trigger := false
	for _, line := range strings.Split(script, "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "--") {
			continue
		}
		if len(cur) == 0 {
			trigger = strings.HasPrefix(strings.ToUpper(t), "CREATE TRIGGER")
		}
		cur = append(cur, line)
		if (!trigger && strings.HasSuffix(t, ";")) || (trigger && strings.EqualFold(t, "END;")) {
			out = append(out, strings.TrimSpace(strings.Join(cur, "\n")))
			cur = nil
		}
	}
	if len(cur) > 0 {
		out = append(out, strings.TrimSpace(strings.Join(cur, "\n")))
	}
	return out
}

// migrate applies the migrations not yet recorded in schema_migrations.
// Every statement is idempotent (IF NOT EXISTS), so a migration cut short
// by a crash is simply applied again.
func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.w.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
  version    INTEGER PRIMARY KEY,
  name       TEXT    NOT NULL,
  applied_at INTEGER NOT NULL
)`); err != nil {
		return fmt.Errorf("store: migrations table: %w", err)
	}
	ms, err := Migrations()
	if err != nil {
		return err
	}
	applied := map[int]bool{}
	rows, err := s.w.QueryContext(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return fmt.Errorf("store: reading migrations: %w", err)
	}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			rows.Close()
			return err
		}
		applied[v] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	latest := 0
	for _, m := range ms {
		latest = max(latest, m.Version)
	}
	for v := range applied {
		if v > latest {
			return fmt.Errorf("store: the database has schema version %d, newer than this program's %d: upgrade normgym", v, latest)
		}
	}
	for _, m := range ms {
		if applied[m.Version] {
			continue
		}
		for _, st := range Statements(m.SQL) {
			if _, err := s.w.ExecContext(ctx, st); err != nil && !columnExists(st, err) {
				return fmt.Errorf("store: migration %s: %w\n%s", m.Name, err, st)
			}
		}
		if _, err := s.w.ExecContext(ctx, `INSERT OR IGNORE INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
			m.Version, m.Name, time.Now().UnixMilli()); err != nil {
			return fmt.Errorf("store: recording migration %s: %w", m.Name, err)
		}
	}
	return nil
}

// columnExists reports whether err is SQLite's answer to an ALTER TABLE …
// ADD COLUMN st whose column exists: a migration applied again after a
// crash cut it short (ALTER TABLE has no IF NOT EXISTS).
func columnExists(st string, err error) bool {
	return strings.HasPrefix(strings.ToUpper(st), "ALTER TABLE") && strings.Contains(strings.ToUpper(st), "ADD COLUMN") &&
		strings.Contains(err.Error(), "duplicate column name")
}

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

type scanner interface{ Scan(...any) error }

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

const totalsColumns = `runs, task, compliance, joint, probe_answered, probe_correct, violations_practice, violations_test, sanctions,
  told_answered, told_correct, learn_own, learn_own_ok, learn_witness, learn_witness_ok, learn_neither, learn_neither_ok, repeat_after_own`

func totalsDest(t *domain.Totals) []any {
	return []any{&t.Runs, &t.Task, &t.Compliance, &t.Joint, &t.ProbeAnswered, &t.ProbeCorrect, &t.Violations[0], &t.Violations[1], &t.Sanctions,
		&t.ToldAnswered, &t.ToldCorrect, &t.Learned[0], &t.LearnedOK[0], &t.Learned[1], &t.LearnedOK[1], &t.Learned[2], &t.LearnedOK[2], &t.RepeatAfterOwn}
}

// Board implements domain.Storage.
func (s *Store) Board(ctx context.Context, suite, version string) (domain.BoardTotals, error) {
	var b domain.BoardTotals
	rows, err := s.r.QueryContext(ctx, `SELECT client, agent, provenance, condition, family, sim_sha256, `+totalsColumns+`
FROM cell_totals WHERE suite = ? AND suite_version = ?`, suite, version)
	if err != nil {
		return b, fmt.Errorf("store: totals: %w", err)
	}
	for rows.Next() {
		var c domain.Cell
		if err := rows.Scan(append([]any{&c.Client, &c.Agent, &c.Provenance, &c.Condition, &c.Family, &c.SimSHA256}, totalsDest(&c.Totals)...)...); err != nil {
			rows.Close()
			return b, fmt.Errorf("store: totals: %w", err)
		}
		b.Cells = append(b.Cells, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return b, err
	}
	rows, err = s.r.QueryContext(ctx, `SELECT client, agent, provenance, world, `+totalsColumns+`
FROM world_cell_totals WHERE suite = ? AND suite_version = ?`, suite, version)
	if err != nil {
		return b, fmt.Errorf("store: totals: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var c domain.WorldCell
		if err := rows.Scan(append([]any{&c.Client, &c.Agent, &c.Provenance, &c.World}, totalsDest(&c.Totals)...)...); err != nil {
			return b, fmt.Errorf("store: totals: %w", err)
		}
		b.Worlds = append(b.Worlds, c)
	}
	return b, rows.Err()
}

// LastSeq implements domain.Storage.
func (s *Store) LastSeq(ctx context.Context) (int64, error) {
	var seq int64
	if err := s.r.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM runs`).Scan(&seq); err != nil {
		return 0, fmt.Errorf("store: last run: %w", err)
	}
	return seq, nil
}

// Census implements domain.Storage.
func (s *Store) Census(ctx context.Context, upTo int64) (domain.Census, error) {
	c := domain.Census{ByClient: map[string]int{}, BySuite: map[string]int{}, ByVerifier: map[string]int{}, ByProvenance: map[string]int{}, Sims: []string{}}
	if upTo <= 0 {
		var err error
		if upTo, err = s.LastSeq(ctx); err != nil {
			return c, err
		}
	}
	c.MaxSeq = upTo
	rows, err := s.r.QueryContext(ctx, `SELECT client, suite, sim_sha256, verifier, provenance, COUNT(*) FROM runs WHERE seq <= ? GROUP BY client, suite, sim_sha256, verifier, provenance`, upTo)
	if err != nil {
		return c, fmt.Errorf("store: census: %w", err)
	}
	sims := map[string]bool{}
	for rows.Next() {
		var client, suite, sha, verifier, prov string
		var n int
		if err := rows.Scan(&client, &suite, &sha, &verifier, &prov, &n); err != nil {
			rows.Close()
			return c, fmt.Errorf("store: census: %w", err)
		}
		c.Runs += n
		c.ByClient[client] += n
		c.BySuite[suite] += n
		c.ByVerifier[verifier] += n
		c.ByProvenance[prov] += n
		if !sims[sha] {
			sims[sha] = true
			c.Sims = append(c.Sims, sha)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return c, err
	}
	sort.Strings(c.Sims)
	err = s.r.QueryRowContext(ctx, `SELECT COUNT(DISTINCT participant) FROM runs WHERE participant <> '' AND seq <= ?`, upTo).Scan(&c.Participants)
	if err != nil {
		return c, fmt.Errorf("store: census: %w", err)
	}
	return c, nil
}

// CreateRoom implements domain.Storage.
func (s *Store) CreateRoom(ctx context.Context, room domain.Room) error {
	visits, err := json.Marshal(room.Visits)
	if err != nil {
		return err
	}
	res, err := s.w.ExecContext(ctx, `INSERT INTO rooms (code, name, suite, visits, token_sha256, created_at, teacher) VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (code) DO NOTHING`, room.Code, room.Name, room.Suite, string(visits), room.TokenSHA256, room.CreatedAt.UnixMilli(), room.Teacher)
	if err != nil {
		return fmt.Errorf("store: creating room: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("store: creating room: %w", err)
	} else if n == 0 {
		return domain.ErrExists
	}
	return nil
}

// Room implements domain.Storage.
func (s *Store) Room(ctx context.Context, code string) (domain.Room, error) {
	var room domain.Room
	var visits string
	var created int64
	err := s.r.QueryRowContext(ctx, `SELECT code, name, suite, visits, token_sha256, created_at, teacher FROM rooms WHERE code = ?`, code).
		Scan(&room.Code, &room.Name, &room.Suite, &visits, &room.TokenSHA256, &created, &room.Teacher)
	if errors.Is(err, sql.ErrNoRows) {
		return domain.Room{}, domain.ErrNotFound
	}
	if err != nil {
		return domain.Room{}, fmt.Errorf("store: room: %w", err)
	}
	if err := json.Unmarshal([]byte(visits), &room.Visits); err != nil {
		return domain.Room{}, fmt.Errorf("store: room %s: visits: %w", code, err)
	}
	room.CreatedAt = time.UnixMilli(created).UTC()
	return room, nil
}

// RoomStudents implements domain.Storage.
func (s *Store) RoomStudents(ctx context.Context, code string) ([]domain.Student, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT participant, COUNT(*), SUM(task), SUM(compliance), SUM(joint),
  SUM(probe_answer IS NOT NULL AND condition <> 'told'), SUM(condition <> 'told' AND COALESCE(probe_correct, 0) = 1),
  SUM(violations_practice), SUM(violations_test), SUM(sanctions),
  SUM(probe_answer IS NOT NULL AND condition = 'told'), SUM(condition = 'told' AND COALESCE(probe_correct, 0) = 1),
  SUM(COALESCE(learned_from, -1) = 0), SUM(COALESCE(learned_from, -1) = 0 AND compliance = 1),
  SUM(COALESCE(learned_from, -1) = 1), SUM(COALESCE(learned_from, -1) = 1 AND compliance = 1),
  SUM(COALESCE(learned_from, -1) = 2), SUM(COALESCE(learned_from, -1) = 2 AND compliance = 1),
  SUM(day_repeat), MAX(created_at)
FROM runs WHERE room = ? GROUP BY participant ORDER BY participant`, code)
	if err != nil {
		return nil, fmt.Errorf("store: room students: %w", err)
	}
	defer rows.Close()
	var out []domain.Student
	for rows.Next() {
		var st domain.Student
		var last int64
		dest := append([]any{&st.Participant}, totalsDest(&st.Totals)...)
		if err := rows.Scan(append(dest, &last)...); err != nil {
			return nil, fmt.Errorf("store: room students: %w", err)
		}
		st.Last = time.UnixMilli(last).UTC()
		out = append(out, st)
	}
	return out, rows.Err()
}

// RoomProbes implements domain.Storage.
func (s *Store) RoomProbes(ctx context.Context, code string) ([]domain.ProbeCount, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT visit, probe_answer, COUNT(*) FROM runs
WHERE room = ? AND probe_answer IS NOT NULL GROUP BY visit, probe_answer ORDER BY visit, probe_answer`, code)
	if err != nil {
		return nil, fmt.Errorf("store: room probes: %w", err)
	}
	defer rows.Close()
	var out []domain.ProbeCount
	for rows.Next() {
		var p domain.ProbeCount
		if err := rows.Scan(&p.Visit, &p.Answer, &p.N); err != nil {
			return nil, fmt.Errorf("store: room probes: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// PlayedNorms implements domain.Storage.
func (s *Store) PlayedNorms(ctx context.Context, participant string) ([]string, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT norm FROM runs WHERE participant = ? AND participant <> ''
UNION SELECT norm FROM sessions WHERE participant = ? AND participant <> ''`, participant, participant)
	if err != nil {
		return nil, fmt.Errorf("store: played norms: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// VisitLoads implements domain.Storage.
func (s *Store) VisitLoads(ctx context.Context, room string, since time.Time) (map[string]int, error) {
	out := map[string]int{}
	add := func(q string, args ...any) error {
		rows, err := s.r.QueryContext(ctx, q, args...)
		if err != nil {
			return fmt.Errorf("store: visit loads: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var v string
			var n int
			if err := rows.Scan(&v, &n); err != nil {
				return err
			}
			out[v] += n
		}
		return rows.Err()
	}
	var err error
	if room == "" {
		err = add(`SELECT visit, SUM(runs) FROM visit_plays GROUP BY visit`)
	} else {
		err = add(`SELECT visit, runs FROM visit_plays WHERE room = ?`, room)
	}
	if err != nil {
		return nil, err
	}
	if err := add(`SELECT visit, COUNT(*) FROM assignments WHERE room = ? AND created_at >= ? GROUP BY visit`, room, since.UnixMilli()); err != nil {
		return nil, err
	}
	return out, nil
}

// Assign implements domain.Storage.
func (s *Store) Assign(ctx context.Context, participant, room, visit string, at, since time.Time) (string, error) {
	if _, err := s.w.ExecContext(ctx, `DELETE FROM assignments WHERE participant = ? AND room = ? AND created_at < ?`,
		participant, room, since.UnixMilli()); err != nil {
		return "", fmt.Errorf("store: assign: %w", err)
	}
	if visit != "" {
		if _, err := s.w.ExecContext(ctx, `INSERT INTO assignments (participant, room, visit, created_at) VALUES (?, ?, ?, ?)
ON CONFLICT (participant, room) DO NOTHING`, participant, room, visit, at.UnixMilli()); err != nil {
			return "", fmt.Errorf("store: assign: %w", err)
		}
	}
	var held string
	err := s.w.QueryRowContext(ctx, `SELECT visit FROM assignments WHERE participant = ? AND room = ?`, participant, room).Scan(&held)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("store: assign: %w", err)
	}
	return held, nil
}
