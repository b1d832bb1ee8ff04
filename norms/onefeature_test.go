package norms_test

import (
	"testing"

	"github.com/normgym/normgym/norms"
)

// TestOneFeatureRules: the grammar's one-feature rules are canonical,
// parse back to themselves, appear once each, hold every tier-1 norm of
// the public catalog and every non-conditional clause of the harder tier
// and of generated norms, hold no conditional clause (two features), and
// outnumber the catalog many times over.
func TestOneFeatureRules(t *testing.T) {
	rules := norms.OneFeatureRules()
	space := map[string]bool{}
	for _, r := range rules {
		text := r.String()
		if space[text] {
			t.Errorf("%q is listed twice", text)
		}
		space[text] = true
		back, err := norms.Parse(text)
		if err != nil {
			t.Errorf("%q does not parse: %v", text, err)
			continue
		}
		if got := back.String(); got != text {
			t.Errorf("%q parses back as %q", text, got)
		}
	}
	cat := norms.Default()
	tier1 := 0
	for _, n := range cat.Norms() {
		if n.Tier == 2 {
			continue
		}
		tier1++
		if !space[n.RuleText()] {
			t.Errorf("tier-1 norm %s (%q) is not a one-feature rule", n.ID, n.RuleText())
		}
	}
	tests := []struct {
		name string
		rule string
		in   bool
	}{
		{"partner of a tier-2 norm", "require use object=well before enter zone=market", true},
		{"greeting a hat", "require bow after meet hat=red", true},
		{"a use after a gift", "require use object=bell after give", true},
		{"a direction onto sand", "forbid step terrain=sand dir=west", true},
		{"disposal by phase", "forbid litter except phase=noon", true},
		{"carrying nothing", "forbid carry over=0", true},
		{"conditional clause: two features", "forbid step terrain=sand phase=noon", false},
		{"conditional entry", "forbid enter zone=garden phase=evening", false},
		{"an act around itself", "require bow before bow", false},
		{"a use before itself", "require use object=well before use object=well", false},
		{"a whole verb", "forbid pick", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := space[norms.MustParse(tc.rule).String()]; got != tc.in {
				t.Errorf("%q in the space = %v, want %v", tc.rule, got, tc.in)
			}
		})
	}
	for _, c := range norms.Candidates(3, 40, cat) {
		rs, err := norms.ParseRules(c.Rule)
		if err != nil {
			t.Fatal(err)
		}
		if partner := rs[len(rs)-1].String(); !space[partner] {
			t.Errorf("generated %s: partner clause %q is not a one-feature rule", c.ID(), partner)
		}
	}
	t.Logf("%d one-feature rules; %d tier-1 catalog norms", len(rules), tier1)
	if got, want := len(rules), 10*tier1; got < want {
		t.Errorf("%d one-feature rules, want at least %d (ten times the tier-1 catalog)", got, want)
	}
}
