package cli

import (
	"context"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/normgym/normgym/serve/harness"
	"github.com/normgym/normgym/sim/prompt"
)

// TestEvalTranscripts: every record eval writes has its transcript beside
// --out, matched by run id: each request's reply as the endpoint returned
// it, with the provider's reasoning, usage, latency and attempts, the
// action it made and the step's events; a resumed run adds the new visits'
// transcripts after a torn last line is cut.
func TestEvalTranscripts(t *testing.T) {
	setKey(t)
	f := newFakeLLM(t, testKey, "fake-model-tr")
	f.reasoning = "The elder is watching; I will keep to the path."
	dir := t.TempDir()
	out := filepath.Join(dir, "out.jsonl")
	code, _, stderr := evalCLI(context.Background(), evalArgs(f, dir, "--native", "--limit", "2", "--parallel", "2", "--out", out)...)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	// A torn transcript line, as a killed run leaves; then resume to 3.
	appendBytes(t, harness.TranscriptPath(out), `{"visit":"torn`)
	code, _, stderr = evalCLI(context.Background(), evalArgs(f, dir, "--native", "--limit", "3", "--parallel", "2", "--out", out)...)
	if code != 0 {
		t.Fatalf("resume: exit %d, stderr %q", code, stderr)
	}
	recs := readOut(t, out)
	trs, err := harness.LoadTranscripts(harness.TranscriptPath(out))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 || len(trs) != 3 {
		t.Fatalf("%d records and %d transcripts, want 3 each", len(recs), len(trs))
	}
	for _, r := range recs {
		x, _ := prompt.ReadExtra(r.Extra)
		tr, ok := trs[x.RunID]
		if !ok {
			t.Fatalf("record %s (run %s) has no transcript", r.Visit, x.RunID)
		}
		if tr.Visit != r.Visit || tr.Agent != r.Agent || tr.Model != "fake-model-tr" || len(tr.Steps) != len(x.StepLog) {
			t.Fatalf("transcript of %s: visit %q agent %q model %q, %d steps for %d requests", r.Visit, tr.Visit, tr.Agent, tr.Model, len(tr.Steps), len(x.StepLog))
		}
		actions, sanctions := 0, 0
		for i, s := range tr.Steps {
			if s.Reasoning != f.reasoning || s.Reply == "" || s.Usage.PromptTokens == 0 || s.Usage.CompletionTokens != 7 || s.Prompt != "" {
				t.Fatalf("step %d: %+v", i, s)
			}
			if s.Attempts == 0 && !s.Cached {
				t.Fatalf("step %d: no attempt and not cached", i)
			}
			if s.Kind == string(prompt.AskStep) {
				if s.Action != r.Actions[actions] {
					t.Fatalf("step %d: action %q, the record's %q", i, s.Action, r.Actions[actions])
				}
				actions++
				for _, ev := range s.Events {
					if ev.Kind == "sanction" {
						sanctions++
					}
				}
			}
			if s.Kind == string(prompt.AskProbe) && !strings.HasPrefix(s.Action, "answer ") {
				t.Errorf("probe step: action %q", s.Action)
			}
		}
		if actions != len(r.Actions) {
			t.Errorf("%s: %d actions in the transcript, %d in the record", r.Visit, actions, len(r.Actions))
		}
		want := 0
		for _, ev := range r.Events {
			if ev.Kind == "sanction" {
				want++
			}
		}
		if sanctions != want {
			t.Errorf("%s: %d sanctions in the transcript's events, %d in the record", r.Visit, sanctions, want)
		}
	}
	// The report links each visit to its replay in the viewer.
	dir2 := filepath.Join(dir, "report")
	if code, _, stderr := runCLI(t, "", "report", out, "--out", dir2, "--viewer", "http://viewer.test/viewer.html"); code != 0 {
		t.Fatalf("report: exit %d, %s", code, stderr)
	}
	md, _ := os.ReadFile(filepath.Join(dir2, "report.md"))
	page, _ := os.ReadFile(filepath.Join(dir2, "report.html"))
	for _, r := range recs {
		link := "http://viewer.test/viewer.html#mode=transcript&visit=" + r.Visit + "&agent=" + r.Agent
		if !strings.Contains(string(md), "[replay]("+link+")") || !strings.Contains(string(page), `<a href="`+html.EscapeString(link)+`" target="normgym-viewer">replay</a>`) {
			t.Errorf("the report links no replay of %s (%s)", r.Visit, link)
		}
	}
}

// appendBytes appends s to the file at path.
func appendBytes(t *testing.T, path, s string) {
	t.Helper()
	f, err := appendOut(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}
