package report_test

import (
	"math"
	"strings"
	"testing"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/report"
)

func TestWilson(t *testing.T) {
	tests := []struct {
		name         string
		k, n         int
		rate, lo, hi float64
	}{
		{"none", 0, 0, 0, 0, 1},
		{"zero of ten", 0, 10, 0, 0, 0.2775},
		{"half", 50, 100, 0.5, 0.4038, 0.5962},
		{"all of twenty", 20, 20, 1, 0.8389, 1},
		{"half of ten", 5, 10, 0.5, 0.2366, 0.7634},
		{"all of ten", 10, 10, 1, 0.7225, 1},
		{"81 of 263", 81, 263, 0.308, 0.2553, 0.3662},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := report.Wilson(tt.k, tt.n)
			for _, c := range []struct {
				what      string
				got, want float64
			}{{"rate", r.Rate, tt.rate}, {"lo", r.Lo, tt.lo}, {"hi", r.Hi, tt.hi}} {
				if math.Abs(c.got-c.want) > 1e-4 {
					t.Errorf("Wilson(%d, %d) %s = %v, want %v", tt.k, tt.n, c.what, c.got, c.want)
				}
			}
		})
	}
}

func rec(agent, cond, family string, joint bool) sim.Record {
	return sim.Record{Agent: agent, Condition: cond, Family: family, World: "park",
		Scores: sim.Scores{Joint: joint, Task: true, Compliance: joint, Violations: []int{1, 0}}}
}

func TestSummarizeGroupsAndGap(t *testing.T) {
	recs := []sim.Record{
		rec("observer", sim.Observe, "place", true), rec("observer", sim.Observe, "time", true),
		rec("observer", sim.Solo, "place", false), rec("observer", sim.Solo, "time", true),
		rec("greedy", sim.Solo, "place", false),
	}
	sums := report.Summarize(recs)
	if got, want := len(sums), 2; got != want {
		t.Fatalf("%d summaries, want %d", got, want)
	}
	o := sums[0]
	if got, want := o.Agent, "observer"; got != want {
		t.Errorf("first agent = %q, want %q (first seen)", got, want)
	}
	if got, want := o.Joint.K, 3; got != want {
		t.Errorf("joint k = %d, want %d", got, want)
	}
	if o.Gap == nil || *o.Gap != 0.5 {
		t.Errorf("gap = %v, want 0.5 (1.0 observe − 0.5 solo)", o.Gap)
	}
	if got, want := o.ByFamily["place"].Joint.K, 1; got != want {
		t.Errorf("place joint k = %d, want %d", got, want)
	}
	if sums[1].Gap != nil {
		t.Errorf("greedy has no observe visits but a gap %v", *sums[1].Gap)
	}
	var md strings.Builder
	if err := report.Markdown(&md, sums); err != nil || !strings.Contains(md.String(), "| observer | observe | 2 |") {
		t.Errorf("markdown lacks the observer×observe row:\n%s", md.String())
	}
	if svg := report.Figures([]report.Series{{Label: "observer", Records: recs[:4]}}, norms.Default())[0].SVG(); !strings.HasPrefix(svg, "<svg") || !strings.Contains(svg, "observer") {
		t.Errorf("SVG lacks the agents")
	}
}

// TestAbandonedVisits: an abandoned sealed session is a visit without
// success (Visits, Joint, Task); the figures that need a finished visit
// stay over the finished ones.
func TestAbandonedVisits(t *testing.T) {
	done := sim.Record{Agent: "human", Client: "human", Condition: sim.Observe, Family: "place",
		Scores: sim.Scores{Task: true, Compliance: true, Joint: true, Violations: []int{2, 0}, Sanctions: []int{1, 0}, SanctionsReceived: 1}}
	left := sim.Record{Agent: "human", Client: "human", Condition: sim.Observe, Family: "place",
		Extra: map[string]any{"outcome": report.OutcomeAbandoned}}
	if report.Abandoned(done) || !report.Abandoned(left) {
		t.Fatal("Abandoned does not tell the two apart")
	}
	s := report.SummarizeAgent("human", []sim.Record{done, left})
	for _, tc := range []struct {
		name string
		k, n int
		gotK int
		gotN int
	}{
		{"joint", 1, 2, s.Joint.K, s.Joint.N},
		{"task", 1, 2, s.Task.K, s.Task.N},
		{"compliance", 1, 1, s.Compliance.K, s.Compliance.N},
		{"after own sanction", 1, 1, s.Findings.AfterOwn.K, s.Findings.AfterOwn.N},
	} {
		if tc.gotK != tc.k || tc.gotN != tc.n {
			t.Errorf("%s: %d/%d, want %d/%d", tc.name, tc.gotK, tc.gotN, tc.k, tc.n)
		}
	}
	if s.Visits != 2 || len(s.Violations) != 2 || s.Violations[0] != 2 {
		t.Errorf("visits %d, violations %v: want 2 visits, 2 practice-day violations per finished visit", s.Visits, s.Violations)
	}
}
