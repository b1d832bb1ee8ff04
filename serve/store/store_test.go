package store_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/normgym/normgym/serve/domain"
	"github.com/normgym/normgym/serve/store"
	"github.com/normgym/normgym/serve/store/storetest"
	"github.com/normgym/normgym/sim"
)

func TestStatements(t *testing.T) {
	script := `-- a comment
CREATE TABLE a (x INTEGER);

CREATE TRIGGER t AFTER INSERT ON a
BEGIN
  INSERT INTO b VALUES (1);
  UPDATE b SET y = 2;
END;
CREATE INDEX i ON a (x);
`
	got := store.Statements(script)
	if len(got) != 3 || !strings.HasPrefix(got[1], "CREATE TRIGGER") || !strings.HasSuffix(got[1], "END;") {
		t.Fatalf("statements: %q", got)
	}
	ms, err := store.Migrations()
	if err != nil || len(ms) == 0 || ms[0].Version != 1 {
		t.Fatalf("migrations: %v %v", ms, err)
	}
	for _, m := range ms {
		for _, st := range store.Statements(m.SQL) {
			// D1 takes statements one by one.
			if strings.Count(st, ";") > 1 && !strings.HasPrefix(st, "CREATE TRIGGER") {
				t.Errorf("migration %s: statement %q", m.Name, st)
			}
		}
	}
}

func TestMigrationsIdempotent(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "db")
	for i := 0; i < 2; i++ {
		s, err := store.Open(ctx, path, store.Options{})
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		ms, err := store.Migrations()
		if err != nil {
			t.Fatal(err)
		}
		if n := storetest.Count(t, s, "schema_migrations"); n != len(ms) {
			t.Errorf("open %d: %d migrations recorded", i, n)
		}
		var mode string
		s.DB().QueryRow(`PRAGMA journal_mode`).Scan(&mode)
		if mode != "wal" {
			t.Errorf("journal mode %q", mode)
		}
		if i == 1 {
			s.DB().Exec(`INSERT INTO schema_migrations VALUES (999, 'future', 0)`)
		}
		s.Close()
	}
	if _, err := store.Open(ctx, path, store.Options{}); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Errorf("opening a newer schema: %v", err)
	}
}

// run returns a run with consistent scores.
func run(i int, client, participant, room string) domain.Run {
	visit := []string{"orchard/place.color=blue/observe/s1", "harbor/none/control/s2", "orchard/place.color=blue/solo/s3"}[i%3]
	id, _ := sim.ParseVisitID(visit)
	rec := sim.Record{Visit: visit, World: id.World, Norm: id.Norm, Condition: id.Condition, Agent: client, Client: client,
		Hash: fmt.Sprintf("h%d", i), SimVersion: "2", Catalog: "c", SimSHA256: "s", Suite: "x", SuiteVersion: "1"}
	if id.Norm != "none" {
		rec.Family = "place"
		rec.Probe = &sim.ProbeResult{Answer: i % 4, Correct: i%4 == 0}
	}
	rec.Scores = sim.Scores{Task: i%2 == 0, Compliance: i%5 != 0, Violations: []int{i % 3, 0}, Sanctions: []int{0, 0}, Steps: []int{1, 1}}
	if !rec.Scores.Compliance {
		rec.Scores.Violations[1] = 1
	}
	rec.Scores.Joint = rec.Scores.Task && rec.Scores.Compliance
	rec.Scores.SanctionsReceived = i % 2
	return domain.Run{RunID: fmt.Sprintf("run-%012d", i), ContentSHA256: "c", CreatedAt: time.UnixMilli(int64(i)),
		Participant: participant, Room: room, ConsentVersion: "1", Verifier: []string{"wasm", "native"}[i%2], Record: rec}
}

func TestRunsAndTotals(t *testing.T) {
	ctx := context.Background()
	s := storetest.MustOpenDB(t)
	// A pending assignment that a run ends.
	if v, err := s.Assign(ctx, "p1", "", "orchard/place.color=blue/observe/s1", time.UnixMilli(5), time.UnixMilli(0)); err != nil || v == "" {
		t.Fatalf("assign: %q %v", v, err)
	}
	for i := 0; i < 300; i++ {
		client := []string{"human", "baseline", "model"}[i%3]
		p := ""
		if client == "human" {
			p = fmt.Sprintf("p%d", i%7)
		}
		got, created, err := s.PutRun(ctx, run(i, client, p, ""))
		if err != nil || !created || got.Seq != int64(i+1) {
			t.Fatalf("put %d: %v %v %d", i, created, err, got.Seq)
		}
	}
	// A second put of an id returns the stored run.
	dup := run(5, "model", "", "")
	dup.ContentSHA256 = "other"
	got, created, err := s.PutRun(ctx, dup)
	if err != nil || created || got.ContentSHA256 != "c" || got.Seq != 6 {
		t.Errorf("duplicate put: %+v %v %v", got, created, err)
	}
	// The trigger-kept tables agree with the runs.
	db := s.DB()
	var bad int
	err = db.QueryRow(`SELECT COUNT(*) FROM (
  SELECT suite, suite_version, client, agent, provenance, condition, family, sim_sha256,
    COUNT(*) AS n, SUM(task) AS t, SUM(joint) AS j, COUNT(probe_answer) AS pa, SUM(violations_test) AS vt
  FROM runs GROUP BY 1, 2, 3, 4, 5, 6, 7, 8) g
  LEFT JOIN cell_totals r USING (suite, suite_version, client, agent, provenance, condition, family, sim_sha256)
  WHERE r.runs IS NOT g.n OR r.task IS NOT g.t OR r.joint IS NOT g.j OR r.probe_answered IS NOT g.pa OR r.violations_test IS NOT g.vt`).Scan(&bad)
	if err != nil || bad != 0 {
		t.Errorf("%d totals rows disagree with runs (%v)", bad, err)
	}
	if n := storetest.Count(t, s, "assignments"); n != 0 {
		t.Errorf("%d assignments left after the run", n)
	}
	loads, err := s.VisitLoads(ctx, "", time.UnixMilli(0))
	if err != nil || loads["orchard/place.color=blue/observe/s1"] != 100 {
		t.Errorf("loads %v %v", loads, err)
	}
	board, err := s.Board(ctx, "x", "1", time.Now())
	var total, worlds domain.Totals
	for _, c := range board.Cells {
		total.Add(c.Totals)
	}
	for _, c := range board.Worlds {
		worlds.Add(c.Totals)
	}
	if err != nil || total != worlds || total.Runs != 300 {
		t.Errorf("totals hold %d runs, by world %d (%v)", total.Runs, worlds.Runs, err)
	}
	c, err := s.Census(ctx, 0)
	if err != nil || c.Runs != 300 || c.MaxSeq != 300 || c.Participants != 7 || c.ByClient["human"] != 100 || len(c.Sims) != 1 ||
		c.ByVerifier["wasm"] != 150 || c.ByVerifier["native"] != 150 {
		t.Errorf("census %+v %v", c, err)
	}
	for _, id := range []string{"run-000000000006", "run-000000000007"} {
		r, err := s.Run(ctx, id)
		if want := run(int(id[len(id)-1]-'0'), "", "", "").Verifier; err != nil || r.Verifier != want {
			t.Errorf("run %s: verifier %q (%v), want %q", id, r.Verifier, err, want)
		}
	}
	runs, err := s.Runs(ctx, domain.RunFilter{Participant: "p0", Limit: 1000})
	if err != nil || len(runs) != 15 {
		t.Errorf("p0 has %d runs (%v)", len(runs), err)
	}
	page, err := s.Runs(ctx, domain.RunFilter{After: 290, UpTo: 295, Limit: 3})
	if err != nil || len(page) != 3 || page[0].Seq != 291 {
		t.Errorf("page: %d runs %v", len(page), err)
	}
	// A row whose columns disagree cannot be written.
	_, err = db.Exec(`UPDATE runs SET joint = 1, task = 0 WHERE seq = 1`)
	if err == nil {
		t.Errorf("an inconsistent row was accepted")
	}
	if _, err := s.Run(ctx, "nope-nope-nope-nope"); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("missing run: %v", err)
	}
}

func TestTrajectoryOnce(t *testing.T) {
	ctx := context.Background()
	s := storetest.MustOpenDB(t)
	for i := 0; i < 2; i++ {
		p := []string{"p0", ""}[i]
		if _, created, err := s.PutRun(ctx, run(i, "human", p, "")); err != nil || !created {
			t.Fatalf("put %d: %v %v", i, created, err)
		}
	}
	// The same trajectory of a participant under another id is not
	// stored: PutRun returns the stored run; anonymous runs are not
	// matched.
	for _, tc := range []struct {
		name        string
		i           int
		participant string
		wantID      string // "" : created
	}{
		{"same participant, visit and hash", 0, "p0", "run-000000000000"},
		{"another participant", 0, "p1", ""},
		{"anonymous", 1, "", ""},
	} {
		r := run(tc.i, "human", tc.participant, "")
		r.RunID = "again-" + tc.name
		r.RunID = strings.ReplaceAll(r.RunID, " ", "-")
		got, created, err := s.PutRun(ctx, r)
		switch {
		case err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.wantID == "" && !created:
			t.Errorf("%s: not created (got %s)", tc.name, got.RunID)
		case tc.wantID != "" && (created || got.RunID != tc.wantID):
			t.Errorf("%s: created %v run %s, want the stored %s", tc.name, created, got.RunID, tc.wantID)
		}
	}
	if n := storetest.Count(t, s, "runs"); n != 4 {
		t.Errorf("%d runs stored, want 4", n)
	}
}

func TestRooms(t *testing.T) {
	ctx := context.Background()
	s := storetest.MustOpenDB(t)
	room := domain.Room{Code: "ABCDEF", Name: "n", Suite: "mini", Visits: []string{"a", "b"}, TokenSHA256: "t", CreatedAt: time.UnixMilli(1), Teacher: "school-3"}
	if err := s.CreateRoom(ctx, room); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateRoom(ctx, room); !errors.Is(err, domain.ErrExists) {
		t.Errorf("second room with one code: %v", err)
	}
	got, err := s.Room(ctx, "ABCDEF")
	if err != nil || got.Name != "n" || len(got.Visits) != 2 || !got.CreatedAt.Equal(room.CreatedAt) || got.Teacher != "school-3" {
		t.Errorf("room %+v %v", got, err)
	}
	if _, err := s.Room(ctx, "ZZZZZZ"); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("missing room: %v", err)
	}
	// Model runs: a person never meets one norm in two visits.
	for i := 0; i < 9; i++ {
		if _, _, err := s.PutRun(ctx, run(i, "model", fmt.Sprintf("kid-%d", i%2), "ABCDEF")); err != nil {
			t.Fatal(err)
		}
	}
	st, err := s.RoomStudents(ctx, "ABCDEF")
	if err != nil || len(st) != 2 || st[0].Participant != "kid-0" || st[0].Runs != 5 || st[1].Runs != 4 {
		t.Errorf("students %+v %v", st, err)
	}
	probes, err := s.RoomProbes(ctx, "ABCDEF")
	n := 0
	for _, p := range probes {
		n += p.N
	}
	if err != nil || n != 6 {
		t.Errorf("probes %+v (%d answers) %v", probes, n, err)
	}
}

// The database itself refuses a human run on a norm its participant
// already played in another visit (the server checks first; this closes
// the race between two submissions).
func TestNormOnceInTheDatabase(t *testing.T) {
	ctx := context.Background()
	s := storetest.MustOpenDB(t)
	if _, created, err := s.PutRun(ctx, run(0, "human", "p7", "")); err != nil || !created {
		t.Fatalf("first run: %v %v", created, err)
	}
	tests := []struct {
		name    string
		r       domain.Run
		wantErr error
	}{
		{"same norm, another visit", run(2, "human", "p7", ""), domain.ErrNormPlayed},
		{"another participant", run(2, "human", "p8", ""), nil},
		{"a model may", run(2, "model", "p7", ""), nil},
		{"same visit again", func() domain.Run {
			r := run(3, "human", "p7", "")
			r.Record.Visit = run(0, "", "", "").Record.Visit
			return r
		}(), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := storetest.Count(t, s, "runs")
			tt.r.RunID = "norm-once-" + strings.ReplaceAll(tt.name, " ", "-")
			_, _, err := s.PutRun(ctx, tt.r)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("PutRun = %v, want %v", err, tt.wantErr)
			}
			if got, want := storetest.Count(t, s, "runs"), before+map[bool]int{true: 1, false: 0}[tt.wantErr == nil]; got != want {
				t.Errorf("%d runs stored, want %d", got, want)
			}
		})
	}
}

// TestMigrationToVerifier: a database of schema 3 with a run and a room
// opens with schema 4 (the run's verifier and the room's teacher empty),
// and a migration 4 cut short after its first column is applied again.
func TestMigrationToVerifier(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := store.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
	}
	exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`)
	for _, m := range ms[:3] {
		for _, st := range store.Statements(m.SQL) {
			exec(st)
		}
		exec(`INSERT INTO schema_migrations VALUES (?, ?, 0)`, m.Version, m.Name)
	}
	exec(`INSERT INTO rooms (code, name, suite, visits, token_sha256, created_at) VALUES ('ABC234', '', 'mini', '[]', 't', 1)`)
	r := run(1, "model", "", "")
	body, _ := json.Marshal(r.Record)
	exec(`INSERT INTO runs (run_id, content_sha256, created_at, consent_version, client, agent, suite, suite_version, visit, world, norm,
  family, condition, task, compliance, joint, violations_practice, violations_test, sanctions, repeats, hash, sim_sha256, sim_version,
  catalog_version, record) VALUES ('old-run-00000001', 'c', 1, '1', 'model', 'm', 'x', '1', ?, 'harbor', 'none', '', 'control',
  0, 1, 0, 0, 0, 0, 0, 'h', 's', '2', 'c', ?)`, r.Record.Visit, string(body))
	// Migration 4 cut short: its first column is there, unrecorded.
	exec(`ALTER TABLE runs ADD COLUMN verifier TEXT NOT NULL DEFAULT ''`)
	db.Close()

	s, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n := storetest.Count(t, s, "schema_migrations"); n != len(ms) {
		t.Errorf("%d migrations recorded, want %d", n, len(ms))
	}
	old, err := s.Run(ctx, "old-run-00000001")
	if err != nil || old.Verifier != "" {
		t.Errorf("old run: verifier %q %v, want \"\"", old.Verifier, err)
	}
	room, err := s.Room(ctx, "ABC234")
	if err != nil || room.Teacher != "" {
		t.Errorf("old room: %+v %v", room, err)
	}
	c, err := s.Census(ctx, 0)
	if err != nil || c.ByVerifier[""] != 1 || c.ByProvenance["self-reported"] != 1 {
		t.Errorf("census of the old run: %+v %v", c, err)
	}
	// Schema 6: the old run was submitted (self-reported), and the totals
	// by provenance were recomputed from the runs.
	if old.Provenance != "self-reported" {
		t.Errorf("old run: provenance %q, want self-reported", old.Provenance)
	}
	b, err := s.Board(ctx, "x", "1", time.Now())
	if err != nil || len(b.Cells) != 1 || b.Cells[0].Runs != 1 || b.Cells[0].Provenance != "self-reported" || len(b.Worlds) != 1 {
		t.Errorf("totals after the migration: %+v %v", b, err)
	}
}
