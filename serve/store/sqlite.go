//go:build !js

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"runtime"

	_ "modernc.org/sqlite" // the "sqlite" driver: pure Go

	"github.com/normgym/normgym/serve/domain"
)

// Open opens (creating if need be) the SQLite database file at path in
// WAL mode and applies the migrations. Writes go through one connection
// (SQLite has one writer; queuing in Go is cheaper than busy retries);
// reads use a small pool that never blocks on the writer.
//
// synchronous=NORMAL: a committed run survives the process being killed
// (the WAL is in the OS before PutRun returns); a power cut may lose the
// last commits. Pass Options.Synchronous "FULL" to fsync every commit.
func Open(ctx context.Context, path string, opts Options) (*Store, error) {
	if path == "" {
		return nil, errors.New("store: empty database path")
	}
	syncMode := opts.Synchronous
	if syncMode == "" {
		syncMode = "NORMAL"
	}
	switch syncMode {
	case "NORMAL", "FULL", "OFF":
	default:
		return nil, fmt.Errorf("store: synchronous must be NORMAL, FULL or OFF, not %q", syncMode)
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous("+syncMode+")")
	q.Add("_pragma", "foreign_keys(1)")
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
	w, err := sql.Open("sqlite", dsn+"&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("store: opening %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	if err := w.PingContext(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("store: opening %s: %w", path, err)
	}
	s := &Store{w: w, r: w}
	if err := s.migrate(ctx); err != nil {
		w.Close()
		return nil, err
	}
	r, err := sql.Open("sqlite", dsn+"&_pragma=query_only(1)")
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("store: opening %s: %w", path, err)
	}
	n := max(2, runtime.GOMAXPROCS(0))
	r.SetMaxOpenConns(n)
	r.SetMaxIdleConns(n)
	s.r = r
	s.closer = func() error {
		// Checkpoint so that the database file alone holds everything.
		_, cerr := w.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
		err := errors.Join(r.Close(), w.Close())
		if err == nil {
			err = cerr
		}
		return err
	}
	return s, nil
}

// Options configure Open.
type Options struct {
	// Synchronous is SQLite's synchronous setting under WAL: "NORMAL"
	// (default) or "FULL".
	Synchronous string
}

// BulkPut inserts runs in one transaction (SQLite only: for loading
// synthetic data in benchmarks and imports). Runs whose RunID exists are
// skipped.
func (s *Store) BulkPut(ctx context.Context, runs []domain.Run) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: bulk: %w", err)
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, insertRun)
	if err != nil {
		return fmt.Errorf("store: bulk: %w", err)
	}
	defer st.Close()
	for _, run := range runs {
		args, err := runArgs(run)
		if err != nil {
			return err
		}
		if _, err := st.ExecContext(ctx, args...); err != nil {
			return fmt.Errorf("store: bulk: run %s: %w", run.RunID, err)
		}
	}
	return tx.Commit()
}

// DB returns the writer handle, for tests and maintenance.
func (s *Store) DB() *sql.DB { return s.w }
