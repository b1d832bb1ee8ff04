package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/serve/server"
)

// TestNormsCheck: "norms check" prints each norm's figures against their
// floors and a verdict, and exits 1 on a norm greedy keeps by chance and 0
// on valid ones.
func TestNormsCheck(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	trivial := write("trivial.json", `{"family": "ground", "norms": [
  {"key": "keepoff", "values": ["water", "wall"],
   "rules": {"water": "forbid step terrain=water", "wall": "forbid step terrain=wall"},
   "statements": {"water": "Never walk into the water.", "wall": "Never walk through a wall."},
   "tag": "commonsense"},
  {"key": "seat", "values": ["basket"], "rule": "forbid use object=basket", "statement": "Never sit on the basket.", "tag": "commonsense"}]}`)
	valid := write("valid.json", `{"family": "ground", "norms": [
  {"key": "bowon", "values": ["grass", "sand", "stone"], "rule": "require bow before step terrain={value}",
   "statement": "Bow before you step onto {value}.", "tag": "counterintuitive"}]}`)
	public, err := fs.ReadFile(norms.DefaultFiles(), "93-turn.json")
	if err != nil {
		t.Fatal(err)
	}
	inPlace := write("93-turn.json", string(public))
	tests := []struct {
		name     string
		file     string
		code     int
		contains []string
	}{
		{"a catalog file checked in place", inPlace, 0, []string{
			"turn.wait=gift (turn, counterintuitive)", "5 norms checked: all valid"}},
		{"greedy keeps it by chance", trivial, 1, []string{
			"ground.keepoff=water (ground, commonsense)", "chance compliance (greedy, test day)", "1.00 (16/16)", "want ≤ 0.25", "FAIL",
			"verdict: INVALID", "3 norms checked: 3 of 3 norms invalid"}},
		{"valid", valid, 0, []string{
			"ground.bowon=stone (ground, counterintuitive)", "solvable (oracle joint, every visit)", "verdict: valid",
			"probe heuristic: first option", "3 norms checked: all valid"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(t, "", "norms", "check", "--norms-only", tc.file)
			if code != tc.code {
				t.Errorf("exit %d, want %d\n%s%s", code, tc.code, out, errs)
			}
			for _, want := range tc.contains {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
		})
	}
	if code, _, errs := runCLI(t, "", "norms", "check"); code != 2 || !strings.Contains(errs, "needs at least one FILE") {
		t.Errorf("norms check with no file: exit %d, %q; want 2 and a usage error", code, errs)
	}
}

// TestNormsGenerate: generate writes fresh norms, none public, that all
// pass the check, in a file the server loads as a private suite of the
// standard composition (every norm under the four learning conditions four
// times); the same seed writes the same file.
func TestNormsGenerate(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "private.json")
	code, stdout, stderr := runCLI(t, "", "norms", "generate", "--seed", "7", "--n", "6", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "6 norms in 2 families") || !strings.Contains(stdout, "all valid") {
		t.Errorf("summary:\n%s", stdout)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := server.LoadPrivateSuite(data)
	if err != nil {
		t.Fatalf("the server refuses the generated file: %v", err)
	}
	if got, want := len(ps.Catalog.Norms()), 6; got != want {
		t.Errorf("%d norms, want %d", got, want)
	}
	if got, want := len(ps.Visits), 6*4*4; got != want {
		t.Errorf("%d visits, want %d (standard's composition)", got, want)
	}
	for _, n := range ps.Catalog.Norms() {
		if _, err := norms.Default().Lookup(n.ID); err == nil {
			t.Errorf("%s is a public norm", n.ID)
		}
	}
	if code, stdout, _ := runCLI(t, "", "norms", "check", "--norms-only", out); code != 0 || !strings.Contains(stdout, "6 norms checked: all valid") {
		t.Errorf("norms check on the generated file: exit %d\n%s", code, stdout)
	}
	// The file runs end to end: the oracle solves its visits on its norms.
	runOut := filepath.Join(dir, "run.jsonl")
	if code, _, stderr := runCLI(t, "", "run", "--catalog", out, "--agent", "oracle", "--sample", "12", "--out", runOut); code != 0 {
		t.Fatalf("run --catalog on the generated file: exit %d, %s", code, stderr)
	}
	recs, err := readRecords(runOut)
	if err != nil || len(recs) != 12 {
		t.Fatalf("run --catalog wrote %d records (%v), want 12", len(recs), err)
	}
	for _, r := range recs {
		if !r.Scores.Joint || r.Catalog != ps.Catalog.Version() {
			t.Errorf("oracle on %s: joint %v, catalog %s (want true, %s)", r.Visit, r.Scores.Joint, r.Catalog, ps.Catalog.Version())
		}
	}
	again := filepath.Join(dir, "again.json")
	if code, _, _ := runCLI(t, "", "norms", "generate", "--seed", "7", "--n", "6", "--out", again); code != 0 {
		t.Fatal("second run failed")
	}
	if b, _ := os.ReadFile(again); string(b) != string(data) {
		t.Error("the same seed wrote another file")
	}
}
