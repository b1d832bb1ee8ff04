package harness_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/normgym/normgym/serve/harness"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/prompt"
)

// waiter is a Chat whose model waits at every step and answers the probe
// with option 1.
func waiter(_ context.Context, req prompt.Request) (prompt.Reply, error) {
	if req.Kind == prompt.AskProbe {
		return prompt.Reply{Content: "ANSWER: 1"}, nil
	}
	return prompt.Reply{Content: "ACTION: wait"}, nil
}

// TestVisits plays visits on parallel workers over the native core: each
// record is the model's, of the suite, with a run id of its own, and made
// under the harness's settings (Settings.Check takes it back).
func TestVisits(t *testing.T) {
	suite, err := sim.LookupSuite("mini")
	if err != nil {
		t.Fatal(err)
	}
	s := harness.Settings{Variant: prompt.Plain, Options: prompt.DefaultOptions(), MaxTokens: 64}
	h := &harness.Harness{Chat: waiter, Endpoint: "llm.test", Model: "m", Settings: s, Suite: suite,
		NewEnv: func() sim.Env { return &sim.Native{SimSHA256: "native"} }}
	var mu sync.Mutex
	var recs []sim.Record
	var trs []prompt.Transcript
	n, err := h.Visits(context.Background(), suite.Visits[:3], 2, func(p harness.Played) error {
		mu.Lock()
		defer mu.Unlock()
		recs, trs = append(recs, p.Record), append(trs, p.Transcript)
		return nil
	})
	if err != nil || n != 3 || len(recs) != 3 {
		t.Fatalf("Visits = %d, %v; %d records", n, err, len(recs))
	}
	ids := map[string]bool{}
	for _, r := range recs {
		x, ok := prompt.ReadExtra(r.Extra)
		if !ok || r.Agent != "m" || r.Client != "model" || r.Suite != "mini" || x.Endpoint != "llm.test" || x.RunID == "" || ids[x.RunID] {
			t.Errorf("record %s: agent %q client %q suite %q extra %+v", r.Visit, r.Agent, r.Client, r.Suite, x)
		}
		ids[x.RunID] = true
	}
	for i, tr := range trs {
		x, _ := prompt.ReadExtra(recs[i].Extra)
		if tr.RunID != x.RunID || tr.Visit != recs[i].Visit || tr.Agent != "m" || len(tr.Steps) != len(x.StepLog) {
			t.Errorf("transcript %d: run %q visit %q agent %q, %d steps; want the record's (%d requests)", i, tr.RunID, tr.Visit, tr.Agent, len(tr.Steps), len(x.StepLog))
		}
	}
	if err := s.Check(recs, "native", "out.jsonl"); err != nil {
		t.Errorf("Check of the run's own records: %v", err)
	}
	other := s
	other.Options.FullReplies = true
	if err := other.Check(recs, "native", "out.jsonl"); !errors.Is(err, harness.ErrOtherSettings) || !strings.Contains(err.Error(), "full replies") {
		t.Errorf("Check under other settings = %v, want ErrOtherSettings naming full replies", err)
	}
	if err := s.Check(recs, "0123456789abcdef", "out.jsonl"); !errors.Is(err, harness.ErrOtherSettings) {
		t.Errorf("Check with another sim = %v, want ErrOtherSettings", err)
	}
	sum := harness.Summarize(recs, "m", "llm.test", prompt.Plain, 1)
	if sum.Eval.Visits != 3 || sum.Eval.Resumed != 1 || sum.Eval.Steps == 0 || sum.Eval.FormatErrors != 0 {
		t.Errorf("summary %+v", sum.Eval)
	}
}

// TestLoadResults: a torn last line is dropped (and the file rewritten
// without it), a bad line elsewhere is an error, a missing file holds
// nothing.
func TestLoadResults(t *testing.T) {
	dir := t.TempDir()
	good := `{"visit":"park/none/control/s5","agent":"m","client":"model"}`
	tests := []struct {
		name, content string
		want          int
		wantErr       bool
		after         string // the file after a load that rewrites it
	}{
		{"whole", good + "\n" + good + "\n", 2, false, good + "\n" + good + "\n"},
		{"torn last line", good + "\n" + `{"visit":"pa`, 1, false, good + "\n"},
		{"no newline at the end", good, 1, false, good + "\n"},
		{"bad line inside", `{"visit":1}` + "\n" + good + "\n", 0, true, ""},
		{"unknown field", `{"visit":"v","agent":"m","x":1}` + "\n", 0, true, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".jsonl")
			if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			var warn strings.Builder
			recs, err := harness.LoadResults(path, &warn, true)
			if (err != nil) != tc.wantErr || len(recs) != tc.want {
				t.Fatalf("LoadResults = %d records, %v", len(recs), err)
			}
			if tc.wantErr {
				return
			}
			if b, _ := os.ReadFile(path); string(b) != tc.after {
				t.Errorf("file after the load: %q, want %q", b, tc.after)
			}
		})
	}
	if recs, err := harness.LoadResults(filepath.Join(dir, "none.jsonl"), nil, true); err != nil || recs != nil {
		t.Errorf("a missing file: %v, %v", recs, err)
	}
}
