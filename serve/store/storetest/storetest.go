// Package storetest opens real SQLite stores for tests.
package storetest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/normgym/normgym/serve/store"
)

// MustOpenDB opens a new SQLite database file in tb.TempDir() with the
// migrations applied, and closes it when the test ends.
func MustOpenDB(tb testing.TB) *store.Store {
	tb.Helper()
	s, err := store.Open(context.Background(), filepath.Join(tb.TempDir(), "normgym.db"), store.Options{})
	if err != nil {
		tb.Fatalf("opening the test database: %v", err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("closing the test database: %v", err)
		}
	})
	return s
}

// Count returns the number of rows of a table.
func Count(tb testing.TB, s *store.Store, table string) int {
	tb.Helper()
	var n int
	if err := s.DB().QueryRow(`SELECT COUNT(*) FROM ` + table).Scan(&n); err != nil {
		tb.Fatalf("counting %s: %v", table, err)
	}
	return n
}
