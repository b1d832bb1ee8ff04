package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/normgym/normgym/serve/domain"
)

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
	var revealed sql.NullInt64
	err := s.r.QueryRowContext(ctx, `SELECT code, name, suite, visits, token_sha256, created_at, teacher, revealed_at FROM rooms WHERE code = ?`, code).
		Scan(&room.Code, &room.Name, &room.Suite, &visits, &room.TokenSHA256, &created, &room.Teacher, &revealed)
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
	if revealed.Valid {
		at := time.UnixMilli(revealed.Int64).UTC()
		room.RevealedAt = &at
	}
	return room, nil
}

// RevealRoom implements domain.Storage: one statement, which keeps the
// first reveal's time.
func (s *Store) RevealRoom(ctx context.Context, code string, at time.Time) error {
	res, err := s.w.ExecContext(ctx, `UPDATE rooms SET revealed_at = COALESCE(revealed_at, ?) WHERE code = ?`, at.UnixMilli(), code)
	if err != nil {
		return fmt.Errorf("store: revealing room %s: %w", code, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("store: revealing room %s: %w", code, err)
	} else if n == 0 {
		return domain.ErrNotFound
	}
	return nil
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

// joinRoom adds a member, or changes a member's nickname, in one
// statement (D1 has no transactions): the SELECT yields no row when the
// room is full and the participant is not in it, and the unique index on
// (room, nickname_key) refuses a nickname another member has.
const joinRoom = `INSERT INTO room_members (room, participant, nickname, nickname_key, created_at)
SELECT ?, ?, ?, ?, ?
WHERE (SELECT COUNT(*) FROM room_members WHERE room = ?) < ?
   OR EXISTS (SELECT 1 FROM room_members WHERE room = ? AND participant = ?)
ON CONFLICT (room, participant) DO UPDATE SET nickname = excluded.nickname, nickname_key = excluded.nickname_key`

// JoinRoom implements domain.Storage.
func (s *Store) JoinRoom(ctx context.Context, m domain.Member, max int) error {
	res, err := s.w.ExecContext(ctx, joinRoom, m.Room, m.Participant, m.Nickname, m.Key, m.JoinedAt.UnixMilli(),
		m.Room, max, m.Room, m.Participant)
	if err != nil {
		if strings.Contains(err.Error(), "UNIQUE constraint failed") {
			return domain.ErrExists
		}
		return fmt.Errorf("store: joining room %s: %w", m.Room, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("store: joining room %s: %w", m.Room, err)
	}
	if n == 0 {
		return domain.ErrFull
	}
	return nil
}

// RoomMembers implements domain.Storage.
func (s *Store) RoomMembers(ctx context.Context, code string, since time.Time) ([]domain.Member, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT m.participant, m.nickname, m.nickname_key, m.created_at,
  EXISTS (SELECT 1 FROM assignments a WHERE a.participant = m.participant AND a.room = m.room AND a.created_at >= ?)
FROM room_members m WHERE m.room = ? ORDER BY m.nickname_key, m.participant`, since.UnixMilli(), code)
	if err != nil {
		return nil, fmt.Errorf("store: room members: %w", err)
	}
	defer rows.Close()
	var out []domain.Member
	for rows.Next() {
		m := domain.Member{Room: code}
		var joined int64
		var playing int
		if err := rows.Scan(&m.Participant, &m.Nickname, &m.Key, &joined, &playing); err != nil {
			return nil, fmt.Errorf("store: room members: %w", err)
		}
		m.JoinedAt, m.Playing = time.UnixMilli(joined).UTC(), playing != 0
		out = append(out, m)
	}
	return out, rows.Err()
}
