package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	tests := []struct {
		name     string
		file     string
		code     int
		contains []string
	}{
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
