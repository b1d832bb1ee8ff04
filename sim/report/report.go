// Package report aggregates visit records into the benchmark's summaries:
// rates with Wilson 95% intervals by agent, condition and family, and the
// observational-learning gap. It is pure: callers do the I/O.
package report

import (
	"math"
	"sort"

	"github.com/normgym/normgym/sim"
)

// Rate is a proportion K/N with its Wilson 95% interval.
type Rate struct {
	Rate float64 `json:"rate"`
	Lo   float64 `json:"lo"`
	Hi   float64 `json:"hi"`
	K    int     `json:"k"`
	N    int     `json:"n"`
}

// Wilson returns k/n with its Wilson score 95% interval. For n == 0 it
// returns a zero rate with the interval [0, 1].
func Wilson(k, n int) Rate {
	if n == 0 {
		return Rate{Hi: 1}
	}
	lo, hi := wilson(k, n)
	return Rate{Rate: round(float64(k) / float64(n)), Lo: round(lo), Hi: round(hi), K: k, N: n}
}

// z95 is the standard normal quantile of a two-sided 95% interval.
const z95 = 1.959963984540054

// wilson returns the Wilson score 95% interval of k/n (n > 0), unrounded.
func wilson(k, n int) (lo, hi float64) {
	const z = z95
	p := float64(k) / float64(n)
	nf := float64(n)
	den := 1 + z*z/nf
	mid := (p + z*z/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / den
	return math.Max(0, mid-half), math.Min(1, mid+half)
}

func round(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// Breakdown holds the headline rates of a group of visits.
type Breakdown struct {
	Visits     int  `json:"visits"`
	Joint      Rate `json:"joint"`
	Task       Rate `json:"task"`
	Compliance Rate `json:"compliance"`
	// Probe is the probe accuracy over visits that have a probe answer,
	// told visits apart: under told the rule was stated, so ProbeTold is
	// an upper bound, not learning.
	Probe     Rate `json:"probe"`
	ProbeTold Rate `json:"probe_told"`
	// Findings are the seed's two findings as figures (no control visits).
	Findings Findings `json:"findings"`
	// Violations is the newcomer's mean violations per day (index 0 practice).
	Violations []float64 `json:"violations_per_day"`
	// Sanctions is the mean number of sanctions received per visit.
	Sanctions float64 `json:"sanctions"`
}

// Summary is one agent's results over a set of records.
type Summary struct {
	Suite     string `json:"suite,omitempty"`
	Agent     string `json:"agent"`
	Visits    int    `json:"visits"`
	SimSHA256 string `json:"sim_sha256"`
	Breakdown
	ByCondition map[string]Breakdown `json:"by_condition"`
	ByFamily    map[string]Breakdown `json:"by_family"`
	ByWorld     map[string]Breakdown `json:"by_world"`
	// Gap is the observational-learning gap: joint(observe) − joint(solo),
	// present when both conditions have visits.
	Gap *float64 `json:"observational_gap,omitempty"`
}

// Findings put the seed's observations as figures: does the newcomer keep
// the norm on the test day after being sanctioned itself on the practice
// day, after only watching others be sanctioned, or after neither; and
// does it revise within the day after its own sanction.
type Findings struct {
	// AfterOwn is test-day compliance over visits where the newcomer was
	// sanctioned on the practice day.
	AfterOwn Rate `json:"after_own_sanction"`
	// AfterWitnessOnly is test-day compliance over visits where it was not,
	// but saw at least one member sanctioned that day.
	AfterWitnessOnly Rate `json:"after_witnessing_only"`
	// AfterNeither is test-day compliance over visits with no sanction on
	// the practice day at all.
	AfterNeither Rate `json:"after_neither"`
	// RepeatAfterOwn is the share of visits sanctioned on the practice day
	// where the newcomer broke the norm again later that same day.
	RepeatAfterOwn Rate `json:"repeat_after_own_sanction"`
}

// tally accumulates counts for a Breakdown. n counts every visit, fin the
// finished ones (all but abandoned sealed sessions, see Abandoned).
type tally struct {
	n, fin, joint, task, comp, probeN, probeK, sanctions int
	toldN, toldK                                         int
	viol                                                 []int
	// Findings: [own, witness only, neither] visits and compliant ones;
	// repeats after an own practice-day sanction.
	learnN, learnK [3]int
	repeatN        int
	repeatK        int
}

// OutcomeAbandoned marks a record that stands for a sealed session left
// unfinished past its time (a server export's {"abandoned": …} line):
// Extra["outcome"] holds it. Such a record has no actions, events or
// scores.
const OutcomeAbandoned = "abandoned"

// Abandoned reports whether r stands for an abandoned sealed session. It
// counts as a visit without success: in Visits, Joint and Task, whose
// denominators it joins; the figures that need a finished visit
// (compliance, violations, sanctions, the probe, the findings) are over
// the finished ones, as on the server's leaderboard.
func Abandoned(r sim.Record) bool { return r.Extra["outcome"] == OutcomeAbandoned }

func (t *tally) add(r sim.Record) {
	t.n++
	if Abandoned(r) {
		return
	}
	t.fin++
	s := r.Scores
	if s.Joint {
		t.joint++
	}
	if s.Task {
		t.task++
	}
	if s.Compliance {
		t.comp++
	}
	if r.Probe != nil {
		if r.Condition == sim.Told {
			t.toldN++
			if r.Probe.Correct {
				t.toldK++
			}
		} else {
			t.probeN++
			if r.Probe.Correct {
				t.probeK++
			}
		}
	}
	if k, ok := LearnedFrom(r); ok {
		t.learnN[k]++
		if s.Compliance {
			t.learnK[k]++
		}
		if k == 0 {
			t.repeatN++
			if len(s.DayRepeats) > 0 && s.DayRepeats[0] > 0 {
				t.repeatK++
			}
		}
	}
	t.sanctions += s.SanctionsReceived
	for len(t.viol) < len(s.Violations) {
		t.viol = append(t.viol, 0)
	}
	for d, v := range s.Violations {
		t.viol[d] += v
	}
}

// LearnedFrom says what a record's newcomer could learn from on the
// practice day: 0 its own sanction, 1 only others' sanctions, 2 neither;
// ok is false under control (nothing to learn) or for a record without
// scores.
func LearnedFrom(r sim.Record) (source int, ok bool) {
	if r.Condition == sim.Control || len(r.Scores.Sanctions) == 0 {
		return 0, false
	}
	if r.Scores.Sanctions[0] > 0 {
		return 0, true
	}
	for _, ev := range r.Events {
		if ev.Day == 1 && ev.Kind == "sanction" && ev.To != sim.NewcomerID {
			return 1, true
		}
	}
	return 2, true
}

func (t *tally) breakdown() Breakdown {
	b := Breakdown{Visits: t.n, Joint: Wilson(t.joint, t.n), Task: Wilson(t.task, t.n),
		Compliance: Wilson(t.comp, t.fin), Probe: Wilson(t.probeK, t.probeN), ProbeTold: Wilson(t.toldK, t.toldN),
		Violations: []float64{},
		Findings: Findings{AfterOwn: Wilson(t.learnK[0], t.learnN[0]), AfterWitnessOnly: Wilson(t.learnK[1], t.learnN[1]),
			AfterNeither: Wilson(t.learnK[2], t.learnN[2]), RepeatAfterOwn: Wilson(t.repeatK, t.repeatN)}}
	if t.fin > 0 {
		for _, v := range t.viol {
			b.Violations = append(b.Violations, round(float64(v)/float64(t.fin)))
		}
		b.Sanctions = round(float64(t.sanctions) / float64(t.fin))
	}
	return b
}

// Summarize groups records by agent (in first-seen order) and summarises each.
func Summarize(recs []sim.Record) []Summary {
	var order []string
	byAgent := map[string][]sim.Record{}
	for _, r := range recs {
		if _, ok := byAgent[r.Agent]; !ok {
			order = append(order, r.Agent)
		}
		byAgent[r.Agent] = append(byAgent[r.Agent], r)
	}
	out := make([]Summary, 0, len(order))
	for _, a := range order {
		out = append(out, SummarizeAgent(a, byAgent[a]))
	}
	return out
}

// SummarizeAgent summarises records of one agent.
func SummarizeAgent(agent string, recs []sim.Record) Summary {
	var all tally
	cond, fam, world := map[string]*tally{}, map[string]*tally{}, map[string]*tally{}
	get := func(m map[string]*tally, k string) *tally {
		if m[k] == nil {
			m[k] = &tally{}
		}
		return m[k]
	}
	s := Summary{Agent: agent, Visits: len(recs)}
	shas := map[string]bool{}
	for _, r := range recs {
		all.add(r)
		get(cond, ConditionKey(r)).add(r)
		f := r.Family
		if f == "" {
			f = "control"
		}
		get(fam, f).add(r)
		get(world, r.World).add(r)
		shas[r.SimSHA256] = true
		if s.Suite == "" {
			s.Suite = r.Suite
		}
	}
	s.SimSHA256 = joinKeys(shas)
	s.Breakdown = all.breakdown()
	s.ByCondition, s.ByFamily, s.ByWorld = breakdowns(cond), breakdowns(fam), breakdowns(world)
	o, okO := s.ByCondition[sim.Observe]
	so, okS := s.ByCondition[sim.Solo]
	if okO && okS {
		g := round(o.Joint.Rate - so.Joint.Rate)
		s.Gap = &g
	}
	return s
}

// ConditionKey is the condition a record counts under in breakdowns: the
// condition, with its sanction variant when there is one
// ("observe+noisy"), so that variants are never merged.
func ConditionKey(r sim.Record) string {
	if r.Variant != "" {
		return r.Condition + "+" + r.Variant
	}
	return r.Condition
}

func breakdowns(m map[string]*tally) map[string]Breakdown {
	out := make(map[string]Breakdown, len(m))
	for k, t := range m {
		out[k] = t.breakdown()
	}
	return out
}

func joinKeys(m map[string]bool) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	s := ""
	for i, k := range keys {
		if i > 0 {
			s += ","
		}
		s += k
	}
	return s
}

// SortedKeys returns a breakdown map's keys in canonical order: the
// conditions, families or worlds in their defined order, then the rest sorted.
func SortedKeys(m map[string]Breakdown, canonical []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, k := range canonical {
		if _, ok := m[k]; ok {
			out = append(out, k)
			seen[k] = true
		}
	}
	var rest []string
	for k := range m {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}
