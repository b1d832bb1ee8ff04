// Package domain holds the stored things of the server that both the HTTP
// handlers (serve/server) and the stores (serve/store) use: the Storage
// contract, runs, rooms, members, the leaderboard's totals and the errors
// a store returns. It knows nothing of HTTP or SQL.
package domain

import (
	"context"
	"errors"
	"time"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/report"
)

// Storage is everything the server keeps. serve/store implements it on
// SQLite and on Cloudflare D1 with the same SQL. The contract is written
// so that no method needs a transaction: each write is one statement (the
// store keeps its aggregate tables with triggers), so a crash leaves
// either the whole run or nothing.
//
// Methods return ErrNotFound for a missing key and ErrExists for a taken
// one; any other error is internal.
type Storage interface {
	// PutRun stores run unless a run with its RunID exists or, for a
	// run with a Participant, a run of that participant with the same
	// Record.Visit and Record.Hash exists. It returns the run stored
	// under that id or trajectory (run itself, with Seq set, when
	// created) and whether it was created by this call.
	PutRun(ctx context.Context, run Run) (stored Run, created bool, err error)
	// Run returns the run with the id.
	Run(ctx context.Context, runID string) (Run, error)
	// RunByTrajectory returns the participant's run of the visit with the
	// trajectory hash; ErrNotFound for participant "".
	RunByTrajectory(ctx context.Context, participant, visit, hash string) (Run, error)
	// NormRun returns a run of the participant on the norm in another
	// visit than visit; ErrNotFound if there is none.
	NormRun(ctx context.Context, participant, norm, visit string) (Run, error)
	// Runs returns up to f.Limit runs matching f in Seq order.
	Runs(ctx context.Context, f RunFilter) ([]Run, error)
	// Board returns the leaderboard totals of a suite version; sealed
	// sessions last used at or after openSince and not finished count as
	// open (SessionCell.Open), older unfinished ones as abandoned.
	Board(ctx context.Context, suite, version string, openSince time.Time) (BoardTotals, error)
	// LastSeq returns the largest Seq stored (0: none); it must be cheap.
	LastSeq(ctx context.Context) (int64, error)
	// Census counts the runs with Seq ≤ upTo (0: all).
	Census(ctx context.Context, upTo int64) (Census, error)

	// CreateRoom stores a room; ErrExists if its code is taken.
	CreateRoom(ctx context.Context, room Room) error
	// Room returns the room with the code.
	Room(ctx context.Context, code string) (Room, error)
	// RoomStudents returns per-participant totals of a room's runs,
	// ordered by participant.
	RoomStudents(ctx context.Context, code string) ([]Student, error)
	// RoomProbes counts a room's probe answers by visit and option.
	RoomProbes(ctx context.Context, code string) ([]ProbeCount, error)
	// JoinRoom keeps m's nickname in its room: a new member, or a new
	// nickname for a member. It fails with ErrExists, changing nothing,
	// when another participant of the room has a nickname of m's Key, and
	// with ErrFull when the room has max members and m is not one of them.
	JoinRoom(ctx context.Context, m Member, max int) error
	// RoomMembers returns a room's members ordered by Key, each marked
	// Playing if it holds an assignment in the room made at or after
	// since.
	RoomMembers(ctx context.Context, code string, since time.Time) ([]Member, error)
	// RevealRoom records that the room's rule was revealed at at, unless
	// it was before (the first reveal's time stays); ErrNotFound for no
	// such room.
	RevealRoom(ctx context.Context, code string, at time.Time) error

	// PlayedNorms lists the norms of a participant's runs and sessions
	// (any room): a norm met in a session that expired counts.
	PlayedNorms(ctx context.Context, participant string) ([]string, error)
	// VisitLoads returns, per visit, the human runs plus the pending
	// assignments made at or after since, in a room ("" counts every
	// room for runs and the room-less scope for assignments).
	VisitLoads(ctx context.Context, room string, since time.Time) (map[string]int, error)
	// Assign holds visit for the participant in a room scope ("" for
	// none) unless an assignment made at or after since is pending
	// there; it returns the visit held. A run of the participant on the
	// visit ends the assignment.
	Assign(ctx context.Context, participant, room, visit string, at, since time.Time) (string, error)

	// Sessions (serve/session) are kept in the same store.
	SessionStore
	// OpenSessions returns the participant's sessions without a run in a
	// room scope ("" for none), the most recently used first.
	OpenSessions(ctx context.Context, participant, room string) ([]Session, error)
	// PlayedVisits lists the visits of the participant's sessions.
	PlayedVisits(ctx context.Context, participant string) ([]string, error)
	// AbandonedSessions returns up to limit sealed sessions (people's
	// outside rooms, keys' suite sessions) never finished and last used
	// before touchedBefore, in id order after the id after.
	AbandonedSessions(ctx context.Context, touchedBefore time.Time, after string, limit int) ([]Session, error)

	Close() error
}

// ErrNotFound and ErrExists are the Storage errors the server handles.
var (
	ErrNotFound = errors.New("domain: not found")
	ErrExists   = errors.New("domain: already exists")
	// ErrFull is JoinRoom's error for a room with no place left.
	ErrFull = errors.New("domain: the room is full")
	// ErrConflict is a write that lost a race: a session's action stored
	// out of order, a probe answered twice.
	ErrConflict = errors.New("domain: conflict")
	// ErrNormPlayed is PutRun's error for a human run on a norm its
	// participant already played in another visit.
	ErrNormPlayed = errors.New("domain: the participant already played this norm")
)

// Run is one verified run as stored.
type Run struct {
	// Seq is the store's sequence number, increasing with insertion.
	Seq   int64
	RunID string
	// ContentSHA256 is the hash of the submission as received: a
	// resubmission under the same RunID is a duplicate only if it matches.
	ContentSHA256  string
	CreatedAt      time.Time
	Participant    string
	Room           string
	ConsentVersion string
	// Verifier is how the server recomputed the record (Verifier.Kind):
	// "wasm" (replayed inside the sim.wasm of Record.SimSHA256) or
	// "native" (replayed by the Go core built from the source of that
	// sim.wasm, which did not run); "" for runs stored before schema 4.
	Verifier string
	// Provenance is how the server knows what the run says:
	// api.ProvenanceServer (a baseline it computed), ProvenanceStepped (it
	// stepped the sim for a session) or ProvenanceSelfReported (a
	// submitted record, replayed); "" is stored as self-reported.
	Provenance string
	// Record is the record the server recomputed; its Agent, Client,
	// Suite and SuiteVersion are the server's.
	Record sim.Record
}

// RunFilter selects runs for Storage.Runs: every set field must match.
type RunFilter struct {
	Participant string
	Room        string
	// After and UpTo bound Seq: After < Seq ≤ UpTo (UpTo 0: no bound).
	After, UpTo int64
	Limit       int
}

// Totals are the summed outcomes of a group of runs, as the store keeps
// them by trigger: report.Counts, the one thing every figure is computed
// from (Counts.Breakdown), so that the leaderboard and a report of the same
// runs cannot differ. Finished counts runs; Abandoned, filled from
// BoardTotals.Sessions, the sealed sessions left unfinished.
type Totals = report.Counts

// BoardTotals are a suite version's totals for the leaderboard.
type BoardTotals struct {
	Cells  []Cell
	Worlds []WorldCell
	// Sessions counts the sealed sessions (people's outside classrooms,
	// submitter keys' suite sessions) of each row, finished or not.
	Sessions []SessionCell
	// Owners counts the distinct participants of each row's sealed
	// sessions, by kind and agent.
	Owners map[[2]string]int
}

// SessionCell counts a suite version's sealed sessions that share kind
// (api.KindHuman or KindModel), agent, condition (with its variant) and
// family ("" under control): every one opened, those finished (stored as
// a run) and those still open within their time. The others were
// abandoned: they count in the figures, never as a success.
type SessionCell struct {
	Kind, Agent, Condition, Family string
	Opened, Finished, Open         int
}

// Abandoned is the number of the cell's sessions left unfinished past
// their time.
func (c SessionCell) Abandoned() int { return max(0, c.Opened-c.Finished-c.Open) }

// Cell is the totals of a suite version's runs that share client, agent,
// provenance, condition (with its variant), family ("" under control) and
// sim.wasm.
type Cell struct {
	Client, Agent, Provenance, Condition, Family, SimSHA256 string
	Totals
}

// WorldCell is the totals of a suite version's runs that share client,
// agent, provenance and world.
type WorldCell struct {
	Client, Agent, Provenance, World string
	Totals
}

// Census counts runs for an export's data card.
type Census struct {
	// MaxSeq is the largest Seq counted.
	MaxSeq       int64
	Runs         int
	Participants int
	ByClient     map[string]int
	BySuite      map[string]int
	// ByVerifier counts runs by Run.Verifier.
	ByVerifier map[string]int
	// ByProvenance counts runs by Run.Provenance.
	ByProvenance map[string]int
	Sims         []string
}

// Room is a classroom. The teacher's token is kept only as its hash.
type Room struct {
	// Code is the canonical join code (api.NormalizeRoomCode).
	Code        string
	Name        string
	Suite       string
	Visits      []string
	TokenSHA256 string
	CreatedAt   time.Time
	// Teacher is the label of the teacher key that created the room (""
	// when rooms are open to anyone).
	Teacher string
	// RevealedAt is when the teacher first revealed the room's rule (nil
	// before): until then a room where everyone plays the same visit
	// tells no student its visit, record or probe verdict.
	RevealedAt *time.Time
}

// Student is one participant's totals in a room.
type Student struct {
	Participant string
	Totals
	Last time.Time
}

// Member is a participant who joined a room with a nickname.
type Member struct {
	Room        string
	Participant string
	// Nickname is as nickname.Normalize returned it, and Key its
	// nickname.Key: unique in the room.
	Nickname, Key string
	JoinedAt      time.Time
	// Playing is set by RoomMembers (see there).
	Playing bool
}

// ProbeCount is how many runs of a visit chose one probe option.
type ProbeCount struct {
	Visit  string
	Answer int
	N      int
}
