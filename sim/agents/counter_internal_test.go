package agents

import (
	"slices"
	"testing"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
)

// TestFeatureRules: every feature is a rule of the grammar, once.
func TestFeatureRules(t *testing.T) {
	seen := map[string]bool{}
	for _, text := range featureRules() {
		r, err := norms.Parse(text)
		if err != nil {
			t.Errorf("feature %q: %v", text, err)
			continue
		}
		if got := r.String(); got != text || seen[text] {
			t.Errorf("feature %q: canonical %q, seen before %v", text, got, seen[text])
		}
		seen[text] = true
	}
}

func TestCountingSuspects(t *testing.T) {
	tests := []struct {
		name       string
		sanctioned []float64
		clean      []float64
		want       []int
	}{
		{"never sanctioned", []float64{0, 0}, []float64{5, 0}, nil},
		{"sanctioned most times seen", []float64{3, 0}, []float64{1, 0}, []int{0}},
		{"sanctioned a few of many times", []float64{2, 4}, []float64{9, 0}, []int{1}},
		{"most suspicious first", []float64{2, 5, 3}, []float64{1, 0, 0}, []int{1, 2, 0}},
		{"half the times: suspected", []float64{2}, []float64{2}, []int{0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &counting{sanctioned: tc.sanctioned, unsanctioned: tc.clean}
			if got := c.suspects(nil); !slices.Equal(got, tc.want) {
				t.Errorf("suspects = %v, want %v", got, tc.want)
			}
		})
	}
	many := &counting{sanctioned: make([]float64, 10), unsanctioned: make([]float64, 10)}
	for h := range many.sanctioned {
		many.sanctioned[h] = float64(h + 1)
	}
	if got := len(many.suspects(nil)); got != maxSuspects {
		t.Errorf("%d suspects of 10 sanctioned features, want at most %d", got, maxSuspects)
	}
}

// TestCountingAnswer: the probe option sharing words with the features
// avoided wins.
func TestCountingAnswer(t *testing.T) {
	hyps := featureHypotheses()
	red := slices.IndexFunc(hyps, func(r norms.Rule) bool { return r.String() == "forbid step color=red" })
	c := &counting{sanctioned: make([]float64, len(hyps)), unsanctioned: make([]float64, len(hyps))}
	c.sanctioned[red] = 4
	p := &sim.Probe{Options: []string{"Bow before you take anything.", "Do not step on red tiles.", "Keep off the sand.", "Ring the bell before you go into the market."}}
	if got, want := c.answer(p, hyps), 1; got != want {
		t.Errorf("answer = %d (%q), want %d", got, p.Options[got], want)
	}
}
