package validity_test

import (
	"io/fs"
	"testing"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim/validity"
)

// withFamily returns the public catalog with one more family file.
func withFamily(t *testing.T, family string) *norms.Catalog {
	t.Helper()
	files := map[string][]byte{"~extra.json": []byte(family)}
	entries, err := fs.ReadDir(norms.DefaultFiles(), ".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if files[e.Name()], err = fs.ReadFile(norms.DefaultFiles(), e.Name()); err != nil {
			t.Fatal(err)
		}
	}
	cat, err := norms.LoadFiles(files)
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// TestCheckNorms: a norm greedy cannot break fails the chance and
// practice-sanction floors; a catalog norm meets every floor.
func TestCheckNorms(t *testing.T) {
	trivial := withFamily(t, `{"family": "ground", "norms": [{"key": "keepoff", "values": ["water", "wall", "path"],
		"rules": {"water": "forbid step terrain=water", "wall": "forbid step terrain=wall", "path": "forbid step terrain=path phase=noon dir=north color=red"},
		"statement": "Never walk onto {value} that way.", "tag": "commonsense"}]}`)
	tests := []struct {
		name   string
		cat    *norms.Catalog
		id     string
		failed []string // figures that miss their floor
	}{
		{"greedy keeps it by chance", trivial, "ground.keepoff=water",
			[]string{"chance compliance (greedy, test day)", "practice-day own sanction (greedy)"}},
		{"a catalog norm", norms.Default(), "place.color=blue", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := validity.CheckNorms(tc.cat, []string{tc.id}, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := len(res), 1; got != want {
				t.Fatalf("%d results, want %d", got, want)
			}
			var failed []string
			for _, f := range res[0].Figures {
				t.Logf("%s: %s, want %s", f.Name, f.Detail, f.Want)
				if !f.OK {
					failed = append(failed, f.Name)
				}
			}
			if got, want := len(failed), len(tc.failed); got != want {
				t.Fatalf("failed figures %q, want %q", failed, tc.failed)
			}
			for i := range failed {
				if failed[i] != tc.failed[i] {
					t.Errorf("failed figures %q, want %q", failed, tc.failed)
				}
			}
			if got, want := res[0].OK(), len(tc.failed) == 0; got != want {
				t.Errorf("OK() = %v, want %v", got, want)
			}
			if got, want := res[0].Visits, 16; got != want {
				t.Errorf("%d visits, want %d (4 learning conditions × 4 in standard)", got, want)
			}
		})
	}
}
