package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/normgym/normgym/norms"
)

// privateFile is a private suite file of norms that are not public.
var privateFile = filepath.Join("..", "server", "testdata", "private.json")

// TestPrivateCatalogEndToEnd runs baselines and a model over a private
// suite file with --catalog, as a researcher does with what norms
// generate writes, and replays the records on the same file.
func TestPrivateCatalogEndToEnd(t *testing.T) {
	ps, err := loadPrivateFile(privateFile)
	if err != nil {
		t.Fatal(err)
	}
	public := map[string]bool{}
	for _, n := range norms.Default().Norms() {
		public[n.ID] = true
	}
	dir := t.TempDir()
	runOut := filepath.Join(dir, "run.jsonl")
	code, _, stderr := runCLI(t, "", "run", "--catalog", privateFile, "--agent", "oracle,greedy", "--limit", "4", "--out", runOut)
	if code != 0 {
		t.Fatalf("run --catalog: exit %d, %s", code, stderr)
	}
	if !strings.Contains(stderr, "native core") {
		t.Errorf("run --catalog without --native does not say it runs the native core: %q", stderr)
	}
	recs := readOut(t, runOut)
	if len(recs) != 8 {
		t.Fatalf("%d records, want 8", len(recs))
	}
	for _, r := range recs {
		if r.Suite != ps.Name || r.SuiteVersion != ps.Version || r.Catalog != ps.Catalog.Version() || public[r.Norm] {
			t.Errorf("record %s (%s): suite %s@%s catalog %s, want %s@%s catalog %s and a private norm",
				r.Visit, r.Agent, r.Suite, r.SuiteVersion, r.Catalog, ps.Name, ps.Version, ps.Catalog.Version())
		}
		if r.Agent == "oracle" && !r.Scores.Joint {
			t.Errorf("the oracle failed %s on the private catalog: %+v", r.Visit, r.Scores)
		}
	}

	setKey(t)
	f := newFakeLLM(t, testKey, "fake-private")
	evalOut := filepath.Join(dir, "eval.jsonl")
	args := []string{"eval", "--model", f.model, "--base-url", f.baseURL(), "--api-key-env", "NORMGYM_TEST_KEY",
		"--catalog", privateFile, "--limit", "1", "--parallel", "1", "--backoff", "1ms", "--cache", "off", "--out", evalOut}
	if code, _, stderr := evalCLI(context.Background(), args...); code != 0 {
		t.Fatalf("eval --catalog: exit %d, %s", code, stderr)
	}
	m := readOut(t, evalOut)
	if len(m) != 1 || m[0].Visit != ps.Visits[0] || m[0].Catalog != ps.Catalog.Version() || m[0].Client != "model" {
		t.Fatalf("eval --catalog records: %+v", m)
	}
	if code, stdout, stderr := evalCLI(context.Background(), append(args[:len(args)-2], "--dry-run")...); code != 0 || !strings.Contains(stdout, ps.Name+"@"+ps.Version) {
		t.Errorf("eval --catalog --dry-run: exit %d, %s %s", code, stdout, stderr)
	}

	for _, out := range []string{runOut, evalOut} {
		if code, stdout, stderr := runCLI(t, "", "replay", "--catalog", privateFile, out); code != 0 || !strings.Contains(stdout, "0 differ") {
			t.Errorf("replay --catalog %s: exit %d, %s %s", filepath.Base(out), code, stdout, stderr)
		}
	}
	code, stdout, _ := runCLI(t, "", "replay", "--native", runOut)
	if code == 0 || !strings.Contains(stdout, "--catalog") {
		t.Errorf("replay of private records on the public catalog: exit %d, want a refusal that names --catalog:\n%s", code, stdout)
	}
}

func TestPrivateCatalogUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"suite and catalog", []string{"run", "--catalog", privateFile, "--suite", "mini"}, "not both"},
		{"missing file", []string{"run", "--catalog", filepath.Join(t.TempDir(), "none.json")}, "--catalog"},
		{"not a suite file", []string{"run", "--catalog", filepath.Join("..", "..", "go.mod")}, "--catalog"},
		{"catalog on a server", []string{"eval", "--model", "m", "--base-url", "http://127.0.0.1:1/v1", "--server", "http://127.0.0.1:1", "--catalog", privateFile}, "--catalog plays"},
		{"replay file missing", []string{"replay", "--catalog", "nope.json", "x.jsonl"}, "--catalog"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, "", tc.args...)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, stderr, tc.want)
			}
		})
	}
}
