package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/serve/server"
	"github.com/normgym/normgym/sim"
)

// TestMain fails the package if a test left an out/ folder here: a test
// that runs a command writing by default into out/ must pass --out.
func TestMain(m *testing.M) {
	code := m.Run()
	if _, err := os.Stat("out"); err == nil {
		fmt.Fprintln(os.Stderr, "serve/cli: a test wrote into serve/cli/out (pass --out; then remove the folder)")
		code = 1
	}
	os.Exit(code)
}

// runCLI runs the command in-process and returns its exit code and output.
func runCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"no command", nil, ""},
		{"unknown command", []string{"fly"}, `unknown command "fly"`},
		{"unknown flag", []string{"norms", "--colour"}, "flag provided but not defined"},
		{"norms argument", []string{"norms", "extra"}, "takes no arguments"},
		{"unknown suite", []string{"run", "--suite", "huge", "--native"}, `unknown suite "huge"`},
		{"unknown agent", []string{"run", "--agent", "wizard", "--native"}, `unknown agent "wizard"`},
		{"bad parallel", []string{"run", "--parallel", "0", "--native"}, "--parallel"},
		{"show without visit", []string{"show"}, "needs one visit id"},
		{"show bad visit", []string{"show", "moon/none/control/s1"}, `unknown world "moon"`},
		{"replay without file", []string{"replay", "--native"}, "at least one results file"},
		{"report bad format", []string{"report", "--format", "pdf", "x.jsonl"}, "--format"},
		{"play without visit", []string{"play"}, "needs one visit id"},
		{"serve unknown limit class", []string{"serve", "--limit", "bogus=1/s"}, "CLASS one of read, write"},
		{"serve bad rate", []string{"serve", "--limit", "write=fast"}, "N/UNIT"},
		{"serve zero timeout", []string{"serve", "--read-timeout", "0s"}, "--read-timeout must be positive"},
		{"serve tiny body", []string{"serve", "--max-body", "10"}, "--max-body"},
		{"teacher-key without label", []string{"teacher-key"}, "needs one LABEL"},
		{"teacher-key email label", []string{"teacher-key", "ann@example.org"}, "no email"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, "", tt.args...)
			if got, want := code, 2; got != want {
				t.Errorf("exit code = %d, want %d (stderr %q)", got, want, stderr)
			}
			if !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr = %q, want it to contain %q", stderr, tt.want)
			}
		})
	}
}

func TestHelp(t *testing.T) {
	for _, c := range []string{"norms", "suites", "run", "replay", "report", "show", "play"} {
		t.Run(c, func(t *testing.T) {
			code, _, stderr := runCLI(t, "", c, "-h")
			if code != 0 || !strings.Contains(stderr, "Usage: normgym "+c) {
				t.Errorf("%s -h: code %d, stderr %q", c, code, stderr)
			}
		})
	}
}

func TestNormsJSON(t *testing.T) {
	code, out, _ := runCLI(t, "", "norms", "--json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var got []map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if want := len(norms.Default().Norms()); len(got) != want {
		t.Errorf("%d norms, want the catalog's %d", len(got), want)
	}
	for _, k := range []string{"id", "family", "deontic", "statement", "tag"} {
		if _, ok := got[0][k]; !ok {
			t.Errorf("norm JSON lacks %q", k)
		}
	}
}

func TestSuitesJSON(t *testing.T) {
	code, out, _ := runCLI(t, "", "suites", "--json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var got []suiteInfo
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	for _, s := range sim.Suites() {
		want[s.Name] = len(s.Visits)
	}
	for _, s := range got {
		if s.Visits != want[s.Name] || s.Version == "" {
			t.Errorf("suite %s: visits %d version %q, want %d and a version", s.Name, s.Visits, s.Version, want[s.Name])
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d suites, want %d", len(got), len(want))
	}
}

// runMini runs a few mini visits natively and returns the results file.
func runMini(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "r.jsonl")
	code, stdout, stderr := runCLI(t, "", "run", "--native", "--suite", "mini", "--agent", "greedy,oracle", "--limit", "6", "--out", out, "--json")
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	var sums []map[string]any
	if err := json.Unmarshal([]byte(stdout), &sums); err != nil {
		t.Fatalf("run --json: %v\n%s", err, stdout)
	}
	if len(sums) != 2 {
		t.Fatalf("%d summaries, want 2", len(sums))
	}
	for _, k := range []string{"suite", "agent", "visits", "sim_sha256", "joint", "task", "compliance", "by_condition", "by_family"} {
		if _, ok := sums[0][k]; !ok {
			t.Errorf("summary lacks %q", k)
		}
	}
	joint := sums[0]["joint"].(map[string]any)
	for _, k := range []string{"rate", "lo", "hi"} {
		if _, ok := joint[k]; !ok {
			t.Errorf("joint lacks %q", k)
		}
	}
	return out
}

func TestRunWritesRecords(t *testing.T) {
	out := runMini(t)
	recs, err := readRecords(out)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(recs), 12; got != want {
		t.Fatalf("%d records, want %d", got, want)
	}
	mini, _ := sim.LookupSuite("mini")
	for i, r := range recs {
		if want := mini.Visits[i%6]; r.Visit != want {
			t.Errorf("record %d visit %q, want %q (records in suite order)", i, r.Visit, want)
		}
		if r.Hash == "" || len(r.Actions) == 0 || r.SimSHA256 != "native" || r.SuiteVersion == "" {
			t.Errorf("record %d incomplete: %+v", i, r)
		}
	}
}

func TestReplayDetectsTampering(t *testing.T) {
	out := runMini(t)
	code, stdout, _ := runCLI(t, "", "replay", "--native", out)
	if code != 0 || !strings.Contains(stdout, "12 matched") {
		t.Fatalf("replay of honest records: exit %d\n%s", code, stdout)
	}
	recs, _ := readRecords(out)
	tamper := []struct {
		name string
		edit func(*sim.Record)
		want string
	}{
		{"hash", func(r *sim.Record) { r.Hash = strings.Repeat("0", 64) }, "hash"},
		{"score", func(r *sim.Record) { r.Scores.Joint = !r.Scores.Joint }, "scores.joint"},
		{"action", func(r *sim.Record) { r.Actions[0] = "bow" }, "not over"},
		{"extra action", func(r *sim.Record) { r.Actions = append(r.Actions, "wait") }, "ended after"},
		{"bad action", func(r *sim.Record) { r.Actions[1] = "fly" }, "unknown action"},
		{"old sim version", func(r *sim.Record) { r.SimVersion = "3" },
			"made by sim version 3; this replay runs sim version " + sim.Version + ": re-run the visit"},
		{"old catalog", func(r *sim.Record) { r.Catalog = "1"; r.Actions = r.Actions[:1] },
			"made with norm catalog version 1; this replay runs catalog version " + norms.Default().Version() + ": re-run the visit"},
		{"old suite version", func(r *sim.Record) { r.Suite, r.SuiteVersion = "mini", "2" },
			"made for suite mini version 2; this build's mini is version " + mustSuite(t, "mini").Version + " (its visits differ): re-run the suite"},
	}
	for _, tt := range tamper {
		t.Run(tt.name, func(t *testing.T) {
			r := recs[1]
			r.Actions = append([]string(nil), r.Actions...)
			tt.edit(&r)
			f := filepath.Join(t.TempDir(), "t.jsonl")
			var b bytes.Buffer
			writeRecord(&b, r)
			os.WriteFile(f, b.Bytes(), 0o644)
			code, stdout, _ := runCLI(t, "", "replay", "--native", f)
			if code != 1 || !strings.Contains(stdout, tt.want) {
				t.Errorf("exit %d, output %q; want exit 1 mentioning %q", code, stdout, tt.want)
			}
		})
	}
}

// mustSuite returns the suite called name.
func mustSuite(t *testing.T, name string) sim.Suite {
	t.Helper()
	s, err := sim.LookupSuite(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestReplayMalformedFile(t *testing.T) {
	f := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(f, []byte("{\"visit\": 3}\n"), 0o644)
	code, _, stderr := runCLI(t, "", "replay", "--native", f)
	if code != 1 || !strings.Contains(stderr, "bad.jsonl:1") {
		t.Errorf("exit %d, stderr %q; want 1 naming the line", code, stderr)
	}
}

func TestReportFormats(t *testing.T) {
	out := runMini(t)
	dir := t.TempDir()
	tests := []struct{ format, want string }{
		{"md", "| agent | condition |"},
		{"csv", "agent,group,key,visits,joint"},
		{"json", `"by_family"`},
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, "", "report", "--format", tt.format, "--svg", dir, out)
			if code != 0 || !strings.Contains(stdout, tt.want) {
				t.Errorf("exit %d (%s); output lacks %q:\n%s", code, stderr, tt.want, stdout)
			}
		})
	}
	for _, f := range []string{"joint-by-condition.svg", "violations-by-day.svg"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || !bytes.HasPrefix(b, []byte("<svg")) || !bytes.Contains(b, []byte("greedy")) {
			t.Errorf("%s: %v, want an SVG naming the agents", f, err)
		}
	}
}

func TestShowPrintsTheModelText(t *testing.T) {
	const visit = "park/order.bow=market/observe/s3"
	_, obs, err := sim.NewVisit(visit)
	if err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCLI(t, "", "show", visit)
	if code != 0 || out != obs.Text() {
		t.Errorf("show printed %q, want the observation text", out)
	}
}

func TestPlayWholeVisit(t *testing.T) {
	// Waiting through both days ends the visit; then answer the probe.
	input := strings.Repeat("\n", sim.PracticeSteps+sim.TestSteps) + "9\n2\n"
	code, out, stderr := runCLI(t, input, "play", "market/time.rest=noon/solo/s5")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	n, err := norms.Default().Lookup("time.rest=noon")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"The practice day is over", "Which of these", "joint success: false", "The rule was: " + n.Statement, "Trajectory hash:"} {
		if !strings.Contains(out, want) {
			t.Errorf("play output lacks %q", want)
		}
	}
}

func TestPlayRejectsUnknownActionsAndStops(t *testing.T) {
	code, out, stderr := runCLI(t, "fly\nquit\n", "play", "market/none/control/s5")
	if code != 1 || !strings.Contains(out, `unknown action "fly"`) || !strings.Contains(stderr, "stopped") {
		t.Errorf("exit %d, out %q, stderr %q", code, out, stderr)
	}
}

// TestOutDefaults: run, demos and eval write into out/ (created) when not
// given --out; eval names its file after the model.
func TestOutDefaults(t *testing.T) {
	f := newFakeLLM(t, testKey, "org/model 1")
	setKey(t)
	tests := []struct {
		name string
		args []string
		file string
	}{
		{"run", []string{"run", "--native", "--suite", "mini", "--agent", "greedy", "--limit", "1"}, "out/results.jsonl"},
		{"demos", []string{"demos", "--agent", "observer", "--suite", "train", "--limit", "1"}, "out/demos.jsonl"},
		{"eval", []string{"eval", "--model", f.model, "--base-url", f.baseURL(), "--api-key-env", "NORMGYM_TEST_KEY",
			"--suite", "mini", "--limit", "1", "--native", "--cache", "off"}, "out/org_model_1.jsonl"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			if code, _, stderr := runCLI(t, "", tt.args...); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			b, err := os.ReadFile(tt.file)
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			if got, want := bytes.Count(b, []byte("\n")), 1; got != want {
				t.Errorf("%s has %d lines, want %d", tt.file, got, want)
			}
		})
	}
}

func TestRunInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	code := Main(ctx, []string{"run", "--native", "--suite", "mini", "--agent", "greedy", "--out="}, strings.NewReader(""), &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "interrupted after") {
		t.Errorf("exit %d, stderr %q; want 1 and the interruption explained", code, errb.String())
	}
}

func TestTeacherKey(t *testing.T) {
	code, out, stderr := runCLI(t, "", "teacher-key", "school-3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	key := lines[0][strings.LastIndex(lines[0], " ")+1:]
	keys, err := server.ParseTeacherKeys(lines[len(lines)-1])
	if err != nil {
		t.Fatal(err)
	}
	if label, ok := keys.Label(key); !ok || label != "school-3" || !strings.HasPrefix(key, "ngt_") {
		t.Errorf("the printed line admits %q as %q (%v), want the printed key as school-3; output:\n%s", key, label, ok, out)
	}
	if strings.Contains(lines[len(lines)-1], key) {
		t.Error("the file line holds the key itself")
	}
}
