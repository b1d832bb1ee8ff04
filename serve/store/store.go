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

	"github.com/normgym/normgym/serve/domain"
)

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

type scanner interface{ Scan(...any) error }
