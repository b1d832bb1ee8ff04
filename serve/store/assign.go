package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

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
