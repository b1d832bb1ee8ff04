package store

import (
	"context"
	"fmt"
)

// Coverage counts, per client, agent and provenance, the distinct cells
// (norm × condition, with its variant) of a suite version that its runs
// outside rooms hold: how much of the suite a leaderboard row has played.
// Keys are {client, agent, provenance}.
func (s *Store) Coverage(ctx context.Context, suite, version string) (map[[3]string]int, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT client, agent, provenance,
  COUNT(DISTINCT norm || '/' || condition || CASE WHEN variant = '' THEN '' ELSE '+' || variant END)
FROM runs WHERE suite = ? AND suite_version = ? AND room = '' GROUP BY client, agent, provenance`, suite, version)
	if err != nil {
		return nil, fmt.Errorf("store: coverage: %w", err)
	}
	defer rows.Close()
	out := map[[3]string]int{}
	for rows.Next() {
		var k [3]string
		var n int
		if err := rows.Scan(&k[0], &k[1], &k[2], &n); err != nil {
			return nil, fmt.Errorf("store: coverage: %w", err)
		}
		out[k] = n
	}
	return out, rows.Err()
}
