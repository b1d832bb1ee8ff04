package norms_test

import (
	"slices"
	"testing"

	"github.com/normgym/normgym/norms"
)

// TestCandidates: generated norms are new (none is a public norm), parse,
// load as catalog files, come out the same for the same seed and differ
// for another.
func TestCandidates(t *testing.T) {
	pub := norms.Default()
	a := norms.Candidates(7, 40, pub)
	if got, want := len(a), 40; got != want {
		t.Fatalf("%d candidates, want %d", got, want)
	}
	if b := norms.Candidates(7, 40, pub); !slices.Equal(a, b) {
		t.Error("the same seed gave other candidates")
	}
	if c := norms.Candidates(8, 40, pub); slices.Equal(a, c) {
		t.Error("another seed gave the same candidates")
	}
	files := map[string][]byte{}
	for i, f := range norms.FamilyFiles(a) {
		files[string(rune('a'+i))+".json"] = f
	}
	cat, err := norms.LoadFiles(files)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(cat.Norms()), len(a); got != want {
		t.Errorf("the files hold %d norms, want %d", got, want)
	}
	public := map[string]bool{}
	for _, n := range pub.Norms() {
		public[n.ID], public[n.RuleText()] = true, true
	}
	for _, c := range a {
		n, err := cat.Lookup(c.ID())
		if err != nil {
			t.Fatal(err)
		}
		if public[n.ID] || public[n.RuleText()] {
			t.Errorf("%s (%s) is a public norm", n.ID, n.RuleText())
		}
		if n.RuleText() != c.Rule || n.Statement != c.Statement || n.Tag != c.Tag || len(n.Rules()) != 2 {
			t.Errorf("%s loaded as %+v, want %+v", c.ID(), n, c)
		}
	}
}
