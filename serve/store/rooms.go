package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/normgym/normgym/serve/domain"
)

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
