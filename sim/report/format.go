package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
)

// Groups names the breakdowns a table can show, in order.
var groupNames = []string{"condition", "family", "world"}

func groups(s Summary) []struct {
	name string
	m    map[string]Breakdown
	keys []string
} {
	fams := append(norms.Default().Families(), "control")
	return []struct {
		name string
		m    map[string]Breakdown
		keys []string
	}{
		{"condition", s.ByCondition, SortedKeys(s.ByCondition, conditionOrder())},
		{"family", s.ByFamily, SortedKeys(s.ByFamily, fams)},
		{"world", s.ByWorld, SortedKeys(s.ByWorld, sim.WorldNames())},
	}
}

// conditionOrder lists condition keys in canonical order: each condition,
// then its sanction variants.
func conditionOrder() []string {
	var out []string
	for _, c := range sim.Conditions() {
		out = append(out, c)
		if c != sim.Control {
			for _, v := range sim.Variants() {
				out = append(out, c+"+"+v)
			}
		}
	}
	return out
}

// FormatRate prints a rate as "0.94 [0.90, 0.97]".
func FormatRate(r Rate) string {
	if r.N == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f [%.2f, %.2f]", r.Rate, r.Lo, r.Hi)
}

// Markdown writes the summaries as Markdown tables: one overall table of
// agents, then agent × condition, agent × family and agent × world.
func Markdown(w io.Writer, sums []Summary) error {
	var b strings.Builder
	b.WriteString("| agent | visits | joint | task | compliance | probe | probe (told) | obs. gap |\n|---|---|---|---|---|---|---|---|\n")
	for _, s := range sums {
		gap := "–"
		if s.Gap != nil {
			gap = fmt.Sprintf("%+.2f", *s.Gap)
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | %s | %s |\n", s.Agent, s.Visits,
			FormatRate(s.Joint), FormatRate(s.Task), FormatRate(s.Compliance), FormatRate(s.Probe), FormatRate(s.ProbeTold), gap)
	}
	b.WriteString("\nTest-day compliance by what the newcomer could learn from on the practice day, and repeats within the day after its own sanction:\n\n")
	b.WriteString("| agent | condition | after own sanction | after witnessing only | after neither | repeat after own sanction |\n|---|---|---|---|---|---|\n")
	for _, s := range sums {
		findingsRow := func(key string, f Findings) {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", s.Agent, key, FormatRate(f.AfterOwn),
				FormatRate(f.AfterWitnessOnly), FormatRate(f.AfterNeither), FormatRate(f.RepeatAfterOwn))
		}
		findingsRow("all", s.Findings)
		for _, k := range SortedKeys(s.ByCondition, conditionOrder()) {
			if k != sim.Control {
				findingsRow(k, s.ByCondition[k].Findings)
			}
		}
	}
	for gi := range groupNames {
		fmt.Fprintf(&b, "\n| agent | %s | visits | joint | task | compliance | violations/day |\n|---|---|---|---|---|---|---|\n", groupNames[gi])
		for _, s := range sums {
			g := groups(s)[gi]
			for _, k := range g.keys {
				br := g.m[k]
				fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %s | %s |\n", s.Agent, k, br.Visits,
					FormatRate(br.Joint), FormatRate(br.Task), FormatRate(br.Compliance), perDay(br.Violations))
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func perDay(v []float64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprintf("%.2f", x)
	}
	return strings.Join(parts, " / ")
}

// CSV writes one row per agent × group × key, with rates and intervals;
// a rate over no visits is an empty cell.
func CSV(w io.Writer, sums []Summary) error {
	cw := csv.NewWriter(w)
	write := func(cells []string) { cw.Write(CSVRow(cells)) }
	write([]string{"agent", "group", "key", "visits", "joint", "joint_lo", "joint_hi", "task", "task_lo", "task_hi",
		"compliance", "compliance_lo", "compliance_hi", "probe", "probe_told", "violations_practice", "violations_test", "sanctions",
		"after_own_sanction", "after_witnessing_only", "after_neither", "repeat_after_own_sanction"})
	row := func(agent, group, key string, b Breakdown) {
		f := b.Findings
		cells := []string{agent, group, key, fmt.Sprint(b.Visits)}
		cells = append(cells, rateCSV(b.Joint, true)...)
		cells = append(cells, rateCSV(b.Task, true)...)
		cells = append(cells, rateCSV(b.Compliance, true)...)
		cells = append(cells, rateCSV(b.Probe, false)[0], rateCSV(b.ProbeTold, false)[0], dayCSV(b.Violations, 0), dayCSV(b.Violations, 1))
		sanctions := ""
		if b.Visits > 0 {
			sanctions = f4(b.Sanctions)
		}
		cells = append(cells, sanctions, rateCSV(f.AfterOwn, false)[0], rateCSV(f.AfterWitnessOnly, false)[0],
			rateCSV(f.AfterNeither, false)[0], rateCSV(f.RepeatAfterOwn, false)[0])
		write(cells)
	}
	for _, s := range sums {
		row(s.Agent, "all", "all", s.Breakdown)
		for _, g := range groups(s) {
			for _, k := range g.keys {
				row(s.Agent, g.name, k, g.m[k])
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

func f4(x float64) string { return fmt.Sprintf("%.4f", x) }

// rateCSV returns a rate's cells (with its interval's when interval is
// true): empty when it is over no visits, never a zero that reads as a
// result.
func rateCSV(r Rate, interval bool) []string {
	if r.N == 0 {
		return []string{"", "", ""}
	}
	if !interval {
		return []string{f4(r.Rate)}
	}
	return []string{f4(r.Rate), f4(r.Lo), f4(r.Hi)}
}

// dayCSV returns day d's mean violations, or "" when there is none.
func dayCSV(v []float64, d int) string {
	if d >= len(v) {
		return ""
	}
	return f4(v[d])
}

// Table writes a compact plain-text table for terminals: joint success by
// condition for each agent.
func Table(w io.Writer, sums []Summary) error {
	var b strings.Builder
	conds := sim.Conditions()
	nw := 10 // the agent column: as wide as the longest name
	for _, s := range sums {
		nw = max(nw, utf8.RuneCountInString(s.Agent))
	}
	fmt.Fprintf(&b, "%-*s %6s  %-20s", nw, "agent", "visits", "joint [95% CI]")
	for _, c := range conds {
		fmt.Fprintf(&b, "  %-8s", c)
	}
	b.WriteString("  task  compl  probe  gap\n")
	for _, s := range sums {
		fmt.Fprintf(&b, "%-*s %6d  %-20s", nw, s.Agent, s.Visits, FormatRate(s.Joint))
		for _, c := range conds {
			if br, ok := s.ByCondition[c]; ok {
				fmt.Fprintf(&b, "  %-8.2f", br.Joint.Rate)
			} else {
				fmt.Fprintf(&b, "  %-8s", "–")
			}
		}
		gap := "  –"
		if s.Gap != nil {
			gap = fmt.Sprintf("%+.2f", *s.Gap)
		}
		probe := "  –  "
		if s.Probe.N > 0 {
			probe = fmt.Sprintf("%.2f ", s.Probe.Rate)
		}
		fmt.Fprintf(&b, "  %.2f  %.2f   %s %s\n", s.Task.Rate, s.Compliance.Rate, probe, gap)
	}
	b.WriteString("\ntest-day compliance after the practice day's: own sanction | witnessing only | neither; repeat after own sanction\n")
	for _, s := range sums {
		f := s.Findings
		fmt.Fprintf(&b, "%-*s %-20s  %-20s  %-20s  %s\n", nw, s.Agent, FormatRate(f.AfterOwn), FormatRate(f.AfterWitnessOnly),
			FormatRate(f.AfterNeither), FormatRate(f.RepeatAfterOwn))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
