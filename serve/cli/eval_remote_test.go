package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/domain"
	"github.com/normgym/normgym/serve/harness"
	"github.com/normgym/normgym/serve/server"
	"github.com/normgym/normgym/serve/session"
	"github.com/normgym/normgym/serve/store"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/prompt"
)

// liveServe runs `normgym serve` in this process (native stepping, no
// baselines, loose rate limits) with a submitter key labelled label, and
// returns its URL, the key and its database's path; the server stops
// when the test ends.
func liveServe(t *testing.T, label string, extra ...string) (url, key, db string) {
	t.Helper()
	dir := t.TempDir()
	key, line, err := server.NewSubmitterKey(label)
	if err != nil {
		t.Fatal(err)
	}
	keys := filepath.Join(dir, "submitters")
	if err := os.WriteFile(keys, []byte(line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	db = filepath.Join(dir, "normgym.db")
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--db", db, "--web", t.TempDir(), "--submitter-keys", keys,
			"--baselines", "none", "--step", "native", "--limit", "step=off", "--limit", "write=off", "--limit", "read=off"}, extra...), nil, pw, io.Discard)
		pw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Error("normgym serve did not stop")
		}
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "normgym: serving on "); ok {
				addr <- strings.Fields(a)[0]
			}
		}
		io.Copy(io.Discard, pr)
	}()
	select {
	case url = <-addr:
	case <-time.After(60 * time.Second):
		t.Fatal("normgym serve did not start")
	}
	return url, key, db
}

// suiteSize is the number of visits of a public suite.
func suiteSize(t *testing.T, name string) int {
	t.Helper()
	su, err := sim.LookupSuite(name)
	if err != nil {
		t.Fatal(err)
	}
	return len(su.Visits)
}

// TestEvalServer plays the whole mini suite through a live server's
// sealed sessions with eval --server: an interrupted run (--limit 4) is
// continued to the suite's end, every visit is a sealed one the server
// assigned (each of the suite's cells once), each record has its
// transcript, and the runs the server stored are the harness's records.
func TestEvalServer(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a whole suite")
	}
	setKey(t)
	url, key, db := liveServe(t, "remote-model")
	t.Setenv("NORMGYM_TEST_SUBMITTER", key)
	f := newFakeLLM(t, testKey, "fake-remote")
	f.record = false
	dir := t.TempDir()
	out := filepath.Join(dir, "remote.jsonl")
	args := func(extra ...string) []string {
		return append(evalArgs(f, dir, "--server", url, "--key-env", "NORMGYM_TEST_SUBMITTER", "--out", out), extra...)
	}
	if code, _, stderr := evalCLI(context.Background(), args("--limit", "4")...); code != 0 {
		t.Fatalf("the first 4: exit %d, stderr %q", code, stderr)
	}
	code, stdout, stderr := evalCLI(context.Background(), args()...)
	if code != 0 {
		t.Fatalf("the rest: exit %d, stderr %q", code, stderr)
	}
	miniN := suiteSize(t, "mini")
	if !strings.Contains(stdout, fmt.Sprintf("%d sealed visits of %d asked for", miniN, miniN)) || !strings.Contains(stderr, fmt.Sprintf("4 of %d visits already in", miniN)) {
		t.Errorf("summary:\n%s\nstderr:\n%s", stdout, stderr)
	}
	recs := readOut(t, out)
	mini, _ := sim.LookupSuite("mini")
	var cells, want []string
	for _, v := range mini.Visits {
		want = append(want, session.Cell(v))
	}
	trs, err := harness.LoadTranscripts(harness.TranscriptPath(out))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		x, _ := prompt.ReadExtra(r.Extra)
		if !session.SealedVisit(r.Visit) || r.Agent != "remote-model" || r.Client != "model" || r.Suite != "mini" || x.Model != "fake-remote" {
			t.Fatalf("record %s: agent %s client %s suite %s model %s", r.Visit, r.Agent, r.Client, r.Suite, x.Model)
		}
		if tr, ok := trs[x.RunID]; !ok || tr.Visit != r.Visit || len(tr.Steps) != len(x.StepLog) {
			t.Fatalf("record %s has no transcript of its %d requests", r.Visit, len(x.StepLog))
		}
		cells = append(cells, session.Cell(r.Visit))
	}
	slices.Sort(cells)
	slices.Sort(want)
	if !slices.Equal(cells, want) {
		t.Fatalf("the sealed visits' cells %v, want mini's %v", cells, want)
	}
	// The stored runs are the harness's records.
	runs := storedRuns(t, db, "model:remote-model")
	if len(runs) != len(recs) {
		t.Fatalf("%d runs stored, %d records", len(runs), len(recs))
	}
	byVisit := map[string]sim.Record{}
	for _, r := range recs {
		byVisit[r.Visit] = r
	}
	for _, run := range runs {
		r, ok := byVisit[run.Record.Visit]
		if !ok || run.Provenance != api.ProvenanceStepped || run.Record.Hash != r.Hash || !slices.Equal(run.Record.Actions, r.Actions) ||
			run.Record.Scores.Joint != r.Scores.Joint || run.Record.Agent != r.Agent {
			t.Fatalf("stored run %s differs from the harness's record", run.Record.Visit)
		}
	}
	// Nothing left: a third run plays nothing.
	calls := int(f.calls.Load())
	if code, stdout, stderr := evalCLI(context.Background(), args()...); code != 0 || !strings.Contains(stdout, fmt.Sprintf("%d sealed visits of %d asked for", miniN, miniN)) || f.calls.Load() != int64(calls) {
		t.Errorf("a third run: exit %d, %s %s, %d requests", code, stdout, stderr, f.calls.Load()-int64(calls))
	}
	checkBoardCoverage(t, url, "mini", "remote-model", len(mini.Visits))
}

// storedRuns opens the server's database and returns a participant's runs.
func storedRuns(t *testing.T, db, participant string) []domain.Run {
	t.Helper()
	st, err := store.Open(context.Background(), db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runs, err := st.Runs(context.Background(), domain.RunFilter{Participant: participant, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

// checkBoardCoverage wants the leaderboard's row of agent to have played
// n visits and to cover the whole suite.
func checkBoardCoverage(t *testing.T, url, suite, agent string, n int) {
	t.Helper()
	resp, err := http.Get(url + "/api/leaderboard?suite=" + suite)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var lb api.Leaderboard
	if err := json.NewDecoder(resp.Body).Decode(&lb); err != nil {
		t.Fatal(err)
	}
	for _, a := range lb.Agents {
		if a.Agent == agent && a.Provenance == api.ProvenanceStepped {
			c := a.Coverage
			if a.Visits != n || c == nil || c.Visits != n || c.SuiteVisits != n || c.SuiteCells == 0 || c.Cells != c.SuiteCells {
				t.Errorf("the %s row: %d visits, coverage %+v; want %d visits covering every cell", agent, a.Visits, c, n)
			}
			return
		}
	}
	t.Errorf("no server-stepped row of %s on the %s leaderboard", agent, suite)
}

// TestEvalServerPrivate runs a model on a server's private suite, which
// only the server holds: each record is what the server shows (scores,
// the probe's correctness, the run it stored), its transcript keeps what
// the model was sent, and no record or transcript names a private norm.
func TestEvalServerPrivate(t *testing.T) {
	setKey(t)
	url, key, db := liveServe(t, "private-model", "--private-catalog", filepath.Join("..", "server", "testdata", "private.json"))
	t.Setenv("NORMGYM_TEST_SUBMITTER", key)
	f := newFakeLLM(t, testKey, "fake-private")
	f.record = false
	dir := t.TempDir()
	out := filepath.Join(dir, "private.jsonl")
	for _, n := range []string{"2", "3"} {
		if code, _, stderr := evalCLI(context.Background(), evalArgs(f, dir, "--server", url, "--key-env", "NORMGYM_TEST_SUBMITTER",
			"--suite", "private", "--limit", n, "--out", out)...); code != 0 {
			t.Fatalf("--limit %s: exit %d, stderr %q", n, code, stderr)
		}
	}
	recs := readOut(t, out)
	runs := storedRuns(t, db, "model:private-model")
	if len(recs) != 3 || len(runs) != 3 {
		t.Fatalf("%d records, %d runs stored; want 3", len(recs), len(runs))
	}
	stored := map[string]domain.Run{}
	for _, run := range runs {
		stored[run.RunID] = run
	}
	trs, _ := harness.LoadTranscripts(harness.TranscriptPath(out))
	raw, _ := os.ReadFile(out)
	rawTr, _ := os.ReadFile(harness.TranscriptPath(out))
	for _, r := range recs {
		id, ok := strings.CutPrefix(r.Visit, "private:")
		run, found := stored[id]
		if !ok || !found || r.Suite != "private" || run.Record.Scores.Joint != r.Scores.Joint || !slices.Equal(run.Record.Actions, r.Actions) {
			t.Fatalf("record %s: not the stored run's", r.Visit)
		}
		x, _ := prompt.ReadExtra(r.Extra)
		tr := trs[x.RunID]
		if len(tr.Steps) == 0 || tr.Steps[0].Prompt == "" {
			t.Fatalf("the transcript of %s keeps no prompt", r.Visit)
		}
		for _, s := range []string{run.Record.Visit, run.Record.Norm} {
			if strings.Contains(string(raw), s) || strings.Contains(string(rawTr), s) {
				t.Fatalf("the results or transcripts name %q", s)
			}
		}
	}
}

// TestEvalServerPractice: without a key, eval --server plays the chosen
// visits as practice on the server (nothing stored), and a second run
// resumes from --out without a request.
func TestEvalServerPractice(t *testing.T) {
	setKey(t)
	url, _, db := liveServe(t, "unused")
	f := newFakeLLM(t, testKey, "fake-practice")
	f.record = false
	dir := t.TempDir()
	out := filepath.Join(dir, "practice.jsonl")
	args := evalArgs(f, dir, "--server", url, "--sample", "3", "--seed", "2", "--parallel", "2", "--out", out)
	if code, _, stderr := evalCLI(context.Background(), args...); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	calls := f.calls.Load()
	if code, _, stderr := evalCLI(context.Background(), args...); code != 0 || f.calls.Load() != calls {
		t.Fatalf("the second run: exit %d, %d requests, stderr %q", code, f.calls.Load()-calls, stderr)
	}
	recs := readOut(t, out)
	mini, _ := sim.LookupSuite("mini")
	var got []string
	for _, r := range recs {
		got = append(got, r.Visit)
		if r.Agent != "fake-practice" || r.Client != "model" {
			t.Errorf("record %s: agent %s client %s", r.Visit, r.Agent, r.Client)
		}
	}
	slices.Sort(got)
	want := slices.Sorted(slices.Values(sim.Sample(mini.Visits, 3, 2)))
	if !slices.Equal(got, want) {
		t.Errorf("visits %v, want the sample %v", got, want)
	}
	if runs := storedRuns(t, db, ""); len(runs) != 0 {
		t.Errorf("%d runs stored for practice", len(runs))
	}
}
