package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/normgym/normgym/serve/domain"
	"github.com/normgym/normgym/serve/store/storetest"
)

// TestRoomMembers: JoinRoom keeps one nickname per member, refuses a key
// another member holds and a newcomer to a full room, changing nothing;
// RoomMembers lists members by key with their pending assignments.
func TestRoomMembers(t *testing.T) {
	s := storetest.MustOpenDB(t)
	ctx := context.Background()
	at := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	m := func(room, p, nick, key string) domain.Member {
		return domain.Member{Room: room, Participant: p, Nickname: nick, Key: key, JoinedAt: at}
	}
	for _, tc := range []struct {
		name string
		m    domain.Member
		want error
	}{
		{"first", m("R1", "p1", "Seat 12", "seat12"), nil},
		{"again", m("R1", "p1", "Seat 12", "seat12"), nil},
		{"taken", m("R1", "p2", "seat12", "seat12"), domain.ErrExists},
		{"second", m("R1", "p2", "Blue Fox", "bluefox"), nil},
		{"full", m("R1", "p3", "Owl", "owl"), domain.ErrFull},
		{"a member renames in a full room", m("R1", "p1", "Red Fox", "redfox"), nil},
		{"a member takes another's", m("R1", "p1", "Blue-Fox", "bluefox"), domain.ErrExists},
		{"another room", m("R2", "p3", "Blue Fox", "bluefox"), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := storetest.Count(t, s, "room_members")
			err := s.JoinRoom(ctx, tc.m, 2)
			if !errors.Is(err, tc.want) {
				t.Fatalf("JoinRoom = %v, want %v", err, tc.want)
			}
			if err != nil && storetest.Count(t, s, "room_members") != before {
				t.Error("a refused join changed the members")
			}
		})
	}
	if _, err := s.Assign(ctx, "p2", "R1", "orchard/none/control/s1", at, at.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	ms, err := s.RoomMembers(ctx, "R1", at.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || ms[0].Nickname != "Blue Fox" || !ms[0].Playing || ms[1].Nickname != "Red Fox" || ms[1].Playing ||
		ms[1].Participant != "p1" || !ms[1].JoinedAt.Equal(at) {
		t.Errorf("members %+v", ms)
	}
	if ms, _ := s.RoomMembers(ctx, "R1", at.Add(time.Hour)); len(ms) != 2 || ms[0].Playing {
		t.Errorf("an expired assignment still counts as playing: %+v", ms)
	}
}

// TestRevealRoom: a room is unrevealed when created; RevealRoom records the
// first reveal's time and keeps it on a second reveal; an unknown room is
// ErrNotFound.
func TestRevealRoom(t *testing.T) {
	s := storetest.MustOpenDB(t)
	ctx := context.Background()
	at := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	room := domain.Room{Code: "ABCD-EFGH-JKMN", Visits: []string{"orchard/none/control/s1"}, TokenSHA256: "x", CreatedAt: at}
	if err := s.CreateRoom(ctx, room); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		code   string
		reveal time.Time // zero: read only
		err    error
		want   time.Time // zero: not revealed
	}{
		{name: "created", code: room.Code},
		{name: "revealed", code: room.Code, reveal: at.Add(time.Hour), want: at.Add(time.Hour)},
		{name: "revealed again", code: room.Code, reveal: at.Add(2 * time.Hour), want: at.Add(time.Hour)},
		{name: "no such room", code: "ZZZZ-ZZZZ-ZZZZ", reveal: at, err: domain.ErrNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.reveal.IsZero() {
				if err := s.RevealRoom(ctx, tc.code, tc.reveal); !errors.Is(err, tc.err) {
					t.Fatalf("RevealRoom = %v, want %v", err, tc.err)
				}
			}
			if tc.err != nil {
				return
			}
			got, err := s.Room(ctx, tc.code)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.want.IsZero() && got.RevealedAt != nil:
				t.Errorf("RevealedAt = %v, want nil", got.RevealedAt)
			case !tc.want.IsZero() && (got.RevealedAt == nil || !got.RevealedAt.Equal(tc.want)):
				t.Errorf("RevealedAt = %v, want %v", got.RevealedAt, tc.want)
			}
		})
	}
}
