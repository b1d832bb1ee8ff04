package store

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"time"
)

//go:embed migrations/*.sql
var migrations embed.FS

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
