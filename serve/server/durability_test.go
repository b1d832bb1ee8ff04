package server_test

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/store"
	"github.com/normgym/normgym/sim"
)

// startServe starts the normgym binary's serve command on a free loopback
// port, with the flags in args beside the defaults, and returns its base
// URL.
func startServe(t *testing.T, bin, db string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	return startServeLog(t, bin, db, nil, args...)
}

// startServeLog is startServe writing the child's stderr (its JSON log)
// to stderr (nil: kept for the failure message only).
func startServeLog(t *testing.T, bin, db string, stderr *syncBuffer, args ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0", "--db", db, "--web", t.TempDir(), "--baselines", "none"}, args...)...)
	if stderr == nil {
		stderr = &syncBuffer{}
	}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			select {
			case line <- sc.Text():
			default:
			}
		}
	}()
	select {
	case l := <-line:
		m := regexp.MustCompile(`serving on (http://\S+)`).FindStringSubmatch(l)
		if m == nil {
			cmd.Process.Kill()
			t.Fatalf("unexpected first line: %q", l)
		}
		return cmd, m[1]
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("normgym serve did not start; stderr:\n%s", stderr.String())
	}
	return nil, ""
}

// syncBuffer is a bytes.Buffer safe to write from the child's stderr copier
// while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func post(url string, body []byte) (int, []byte, error) {
	resp, err := http.Post(url+"/api/runs", "application/json", bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// buildNormgym builds the normgym binary into dir.
func buildNormgym(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "normgym")
	build := exec.Command("go", "build", "-o", bin, "github.com/normgym/normgym/serve/cmd/normgym")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// sessionCall sends a session request to a running server.
func sessionCall(url, method, path, token string, body any) (int, api.SessionState, error) {
	b, _ := json.Marshal(body)
	req, err := http.NewRequest(method, url+path, bytes.NewReader(b))
	if err != nil {
		return 0, api.SessionState{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, api.SessionState{}, err
	}
	defer resp.Body.Close()
	var s api.SessionState
	err = json.NewDecoder(resp.Body).Decode(&s)
	return resp.StatusCode, s, err
}

// TestSessionKill SIGKILLs the real server while four sessions step at
// once: after a restart each session goes on from its stored actions,
// every acknowledged action among them (and at most the one in flight
// beyond), with the observation of the last acknowledged one when
// nothing more was stored. A session is resumed, never restarted.
func TestSessionKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the normgym binary")
	}
	dir := t.TempDir()
	bin := buildNormgym(t, dir)
	db := filepath.Join(dir, "normgym.db")
	cmd, url := startServe(t, bin, db)
	mini, _ := sim.LookupSuite("mini")
	const n = 4
	type sess struct {
		token string
		acked int
		last  api.SessionState
	}
	ss := make([]*sess, n)
	for i := range ss {
		st, s, err := sessionCall(url, "POST", "/api/sessions", "", api.SessionRequest{Visit: mini.Visits[i]})
		if err != nil || st != http.StatusCreated {
			t.Fatalf("opening a session: %d %v", st, err)
		}
		ss[i] = &sess{token: s.Session, last: s}
	}
	var total atomic.Int64
	var wg sync.WaitGroup
	moves := []string{"north", "east", "south", "west", "wait"}
	for i := range ss {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < 150; k++ {
				st, s, err := sessionCall(url, "POST", "/api/session/step", ss[i].token, api.SessionStep{Action: moves[(k+i)%len(moves)]})
				if err != nil || st != http.StatusOK {
					return // killed
				}
				ss[i].acked, ss[i].last = s.Actions, s
				total.Add(1)
			}
		}()
	}
	for total.Load() < 60 {
		time.Sleep(2 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	wg.Wait()
	cmd, url = startServe(t, bin, db)
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	for i, s := range ss {
		st, got, err := sessionCall(url, "GET", "/api/session", s.token, nil)
		if err != nil || st != http.StatusOK {
			t.Fatalf("session %d after the restart: %d %v", i, st, err)
		}
		if got.Actions < s.acked || got.Actions > s.acked+1 {
			t.Errorf("session %d: %d actions stored, %d acknowledged before SIGKILL", i, got.Actions, s.acked)
		}
		if got.Actions == s.acked && (string(got.Observation) != string(s.last.Observation) || got.Text != s.last.Text) {
			t.Errorf("session %d: the observation after the restart is not the last acknowledged one", i)
		}
		// It goes on.
		if st, next, err := sessionCall(url, "POST", "/api/session/step", s.token, api.SessionStep{Action: "wait"}); err != nil || st != http.StatusOK || next.Actions != got.Actions+1 {
			t.Errorf("session %d: a step after the restart: %d %v (%d actions)", i, st, err, next.Actions)
		}
	}
	t.Logf("%d steps acknowledged before SIGKILL", total.Load())
}

// TestDurabilityKill SIGKILLs the real server in the middle of a burst of
// submissions: after a restart every acknowledged run is there, and no
// row is half-written.
func TestDurabilityKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the normgym binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "normgym")
	build := exec.Command("go", "build", "-o", bin, "github.com/normgym/normgym/serve/cmd/normgym")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	db := filepath.Join(dir, "normgym.db")
	su, _ := sim.LookupSuite("mini")
	var pool []sim.Record
	for _, v := range su.Visits[:12] {
		for _, a := range []string{"greedy", "oracle", "random"} {
			pool = append(pool, record(t, v, a, "model"))
		}
	}
	cmd, url := startServe(t, bin, db)
	var (
		mu    sync.Mutex
		acked [][]byte // bodies answered 2xx
		sent  atomic.Int64
		stop  atomic.Bool
		wg    sync.WaitGroup
	)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; !stop.Load(); i += 8 {
				body, _ := json.Marshal(submission(pool[i%len(pool)], ""))
				sent.Add(1)
				st, _, err := post(url, body)
				if err == nil && st/100 == 2 {
					mu.Lock()
					acked = append(acked, body)
					mu.Unlock()
				}
			}
		}(w)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		if n >= 25 || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	stop.Store(true)
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	t.Logf("%d submissions sent, %d acknowledged before SIGKILL", sent.Load(), len(acked))
	if len(acked) == 0 {
		t.Fatal("nothing was acknowledged")
	}

	cmd, url = startServe(t, bin, db)
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	// Every acknowledged run is stored: resubmitting it is a duplicate.
	for _, body := range acked {
		st, b, err := post(url, body)
		var r api.SubmitResponse
		if err != nil || st != http.StatusOK || json.Unmarshal(b, &r) != nil || !r.Duplicate {
			t.Errorf("acknowledged run after restart: %d %s %v", st, b, err)
		}
	}
	// Every row is whole: its summary columns agree with its record, and
	// the totals agree with the rows.
	s, err := store.Open(context.Background(), db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n := checkRows(t, s.DB())
	if n < len(acked) {
		t.Errorf("%d rows, %d acknowledged", n, len(acked))
	}
}

// checkRows checks every run row against its record and the totals
// against the rows; it returns the number of rows.
func checkRows(t *testing.T, db *sql.DB) int {
	t.Helper()
	rows, err := db.Query(`SELECT run_id, client, agent, visit, world, norm, family, condition, task, compliance, joint,
  violations_practice, violations_test, sanctions, repeats, probe_answer, probe_correct, hash, sim_sha256, record FROM runs`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		n++
		var id, client, agent, visit, world, norm, family, cond, hash, sha, body string
		var task, comp, joint, v0, v1, sanc, rep int
		var pa, pc sql.NullInt64
		if err := rows.Scan(&id, &client, &agent, &visit, &world, &norm, &family, &cond, &task, &comp, &joint, &v0, &v1, &sanc, &rep, &pa, &pc, &hash, &sha, &body); err != nil {
			t.Fatal(err)
		}
		var r sim.Record
		if err := json.Unmarshal([]byte(body), &r); err != nil {
			t.Errorf("run %s: record %v", id, err)
			continue
		}
		sc := r.Scores
		ok := r.Client == client && r.Agent == agent && r.Visit == visit && r.World == world && r.Norm == norm && r.Family == family &&
			r.Condition == cond && b2i(sc.Task) == task && b2i(sc.Compliance) == comp && b2i(sc.Joint) == joint &&
			len(sc.Violations) == 2 && sc.Violations[0] == v0 && sc.Violations[1] == v1 && sc.SanctionsReceived == sanc &&
			sc.Repeats == rep && r.Hash == hash && r.SimSHA256 == sha && (r.Probe == nil) == !pa.Valid &&
			(r.Probe == nil || int64(r.Probe.Answer) == pa.Int64 && int64(b2i(r.Probe.Correct)) == pc.Int64)
		if !ok {
			t.Errorf("run %s: columns disagree with its record", id)
		}
	}
	// The totals count the runs a leaderboard row counts (schema 8): none of
	// a room, and a trajectory once per row.
	const counted = `WITH counted AS (SELECT * FROM runs r WHERE r.room = '' AND NOT EXISTS (SELECT 1 FROM runs d
  WHERE d.visit = r.visit AND d.hash = r.hash AND d.client = r.client AND d.agent = r.agent AND d.provenance = r.provenance
    AND d.suite = r.suite AND d.suite_version = r.suite_version AND d.room = '' AND d.seq < r.seq)) `
	var bad, bad2, total, total2, want int
	db.QueryRow(counted + `SELECT COUNT(*) FROM counted`).Scan(&want)
	db.QueryRow(`SELECT COALESCE(SUM(runs), 0) FROM cell_totals`).Scan(&total)
	db.QueryRow(`SELECT COALESCE(SUM(runs), 0) FROM world_cell_totals`).Scan(&total2)
	db.QueryRow(counted + `SELECT COUNT(*) FROM (SELECT suite, client, agent, provenance, condition, family, sim_sha256, COUNT(*) AS n, SUM(joint) AS j
  FROM counted GROUP BY 1, 2, 3, 4, 5, 6, 7) g LEFT JOIN cell_totals r USING (suite, client, agent, provenance, condition, family, sim_sha256)
  WHERE r.runs IS NOT g.n OR r.joint IS NOT g.j`).Scan(&bad)
	db.QueryRow(counted + `SELECT COUNT(*) FROM (SELECT suite, client, agent, provenance, world, COUNT(*) AS n, SUM(task) AS k
  FROM counted GROUP BY 1, 2, 3, 4, 5) g LEFT JOIN world_cell_totals r USING (suite, client, agent, provenance, world)
  WHERE r.runs IS NOT g.n OR r.task IS NOT g.k`).Scan(&bad2)
	if total != want || total2 != want || bad != 0 || bad2 != 0 {
		t.Errorf("totals hold %d and %d runs (%d and %d groups disagree), %d rows of which %d counted", total, total2, bad, bad2, n, want)
	}
	return n
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
