package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
)

// Paired compares two series' joint success over the visits both played
// in one group: the four counts of the paired table, the difference
// A − B with Newcombe's paired 95% interval, and the exact two-sided
// McNemar test on the discordant visits.
type Paired struct {
	// Group names the visits: "all", a condition key, a family or a tag.
	Group string `json:"group"`
	// On says it in words: "on observe", "on the place family"…
	On string `json:"on"`
	// N is the number of paired visits.
	N int `json:"n"`
	// Both, AOnly, BOnly and Neither count the visits where both
	// series, A alone, B alone and neither reached joint success.
	Both    int `json:"both"`
	AOnly   int `json:"a_only"`
	BOnly   int `json:"b_only"`
	Neither int `json:"neither"`
	// A and B are each series' joint success over these visits.
	A float64 `json:"a"`
	B float64 `json:"b"`
	// Diff is A − B; Lo and Hi its 95% interval (PairedInterval).
	Diff float64 `json:"diff"`
	Lo   float64 `json:"lo"`
	Hi   float64 `json:"hi"`
	// P is the exact two-sided McNemar p-value (McNemarExact).
	P float64 `json:"p"`
}

// Comparison is a paired comparison of two series (Compare).
type Comparison struct {
	A string `json:"a"`
	B string `json:"b"`
	// OnlyA and OnlyB count the visits only one series played: left out.
	OnlyA int `json:"only_a"`
	OnlyB int `json:"only_b"`
	// RepeatsA and RepeatsB count the records of a visit played more than
	// once by the same series: only its first record counts.
	RepeatsA    int      `json:"repeats_a"`
	RepeatsB    int      `json:"repeats_b"`
	All         Paired   `json:"all"`
	ByCondition []Paired `json:"by_condition"`
	ByFamily    []Paired `json:"by_family"`
	ByTag       []Paired `json:"by_tag"`
}

// Compare pairs a's and b's records by visit id and compares their joint
// success over all paired visits, by condition (variants and transfer
// visits apart), by family and by the norm's tag in cat.
func Compare(a, b Series, cat *norms.Catalog) Comparison {
	c := Comparison{A: a.Label, B: b.Label}
	firstA, repA := firstByVisit(a.Records)
	firstB, repB := firstByVisit(b.Records)
	c.RepeatsA, c.RepeatsB = repA, repB
	type pair struct{ a, b sim.Record }
	var pairs []pair
	seen := map[string]bool{}
	for _, r := range a.Records {
		if seen[r.Visit] {
			continue
		}
		seen[r.Visit] = true
		if rb, ok := firstB[r.Visit]; ok {
			pairs = append(pairs, pair{*firstA[r.Visit], *rb})
		} else {
			c.OnlyA++
		}
	}
	for v := range firstB {
		if _, ok := firstA[v]; !ok {
			c.OnlyB++
		}
	}
	type tally struct{ both, aOnly, bOnly, neither int }
	groups := map[string]*tally{}
	add := func(key string, p pair) {
		t := groups[key]
		if t == nil {
			t = &tally{}
			groups[key] = t
		}
		switch ja, jb := p.a.Scores.Joint, p.b.Scores.Joint; {
		case ja && jb:
			t.both++
		case ja:
			t.aOnly++
		case jb:
			t.bOnly++
		default:
			t.neither++
		}
	}
	conds, fams, tags := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, p := range pairs {
		add("all", p)
		ck := conditionGroup(p.a)
		conds[ck] = true
		add("c:"+ck, p)
		if p.a.Condition != sim.Control {
			fams[p.a.Family] = true
			add("f:"+p.a.Family, p)
			tg := Tag(cat, p.a)
			tags[tg] = true
			add("t:"+tg, p)
		}
	}
	mk := func(key, group, on string) Paired {
		t := groups[key]
		if t == nil {
			t = &tally{}
		}
		return NewPaired(group, on, t.both, t.aOnly, t.bOnly, t.neither)
	}
	c.All = mk("all", "all", "over all visits")
	for _, k := range orderKeys(conds, conditionGroupOrder()) {
		c.ByCondition = append(c.ByCondition, mk("c:"+k, k, "on "+k))
	}
	for _, k := range orderKeys(fams, cat.Families()) {
		c.ByFamily = append(c.ByFamily, mk("f:"+k, k, "on the "+k+" family"))
	}
	for _, k := range orderKeys(tags, Tags(cat)) {
		c.ByTag = append(c.ByTag, mk("t:"+k, k, "on "+k+" norms"))
	}
	return c
}

// firstByVisit maps each visit id to its first record, and counts the
// records that repeat a visit.
func firstByVisit(recs []sim.Record) (map[string]*sim.Record, int) {
	m := make(map[string]*sim.Record, len(recs))
	repeats := 0
	for i := range recs {
		if _, ok := m[recs[i].Visit]; ok {
			repeats++
			continue
		}
		m[recs[i].Visit] = &recs[i]
	}
	return m, repeats
}

// conditionGroup is the condition key a paired visit counts under: its
// ConditionKey, with " · new world" for a transfer visit.
func conditionGroup(r sim.Record) string {
	if IsTransfer(r) {
		return ConditionKey(r) + newWorld
	}
	return ConditionKey(r)
}

func conditionGroupOrder() []string {
	var out []string
	for _, c := range conditionOrder() {
		out = append(out, c, c+newWorld)
	}
	return out
}

// NewPaired returns the comparison of one group of n = both + aOnly +
// bOnly + neither paired visits.
func NewPaired(group, on string, both, aOnly, bOnly, neither int) Paired {
	p := Paired{Group: group, On: on, N: both + aOnly + bOnly + neither, Both: both, AOnly: aOnly, BOnly: bOnly, Neither: neither, P: 1}
	if p.N == 0 {
		return p
	}
	n := float64(p.N)
	p.A, p.B = round(float64(both+aOnly)/n), round(float64(both+bOnly)/n)
	d, lo, hi := PairedInterval(both, aOnly, bOnly, neither)
	p.Diff, p.Lo, p.Hi = round(d), round(lo), round(hi)
	p.P = McNemarExact(aOnly, bOnly)
	return p
}

// PairedInterval returns the difference of two paired proportions,
// (aOnly − bOnly)/n, and its 95% interval by Newcombe's method 10 (Stat.
// Med. 1998;17:2635–50): the Wilson score intervals [l1, u1] of A's
// proportion p1 and [l2, u2] of B's p2, combined with the correlation φ
// of the paired table (numerator max(both·neither − aOnly·bOnly − n/2, 0)
// when positive, 0 when a margin is empty):
//
//	lo = d − √((p1−l1)² − 2φ(p1−l1)(u2−p2) + (u2−p2)²)
//	hi = d + √((u1−p1)² − 2φ(u1−p1)(p2−l2) + (p2−l2)²)
//
// It needs n > 0.
func PairedInterval(both, aOnly, bOnly, neither int) (d, lo, hi float64) {
	n := both + aOnly + bOnly + neither
	nf := float64(n)
	a, b, c, e := float64(both), float64(aOnly), float64(bOnly), float64(neither)
	p1, p2 := (a+b)/nf, (a+c)/nf
	l1, u1 := wilson(both+aOnly, n)
	l2, u2 := wilson(both+bOnly, n)
	phi := 0.0
	if den := (a + b) * (c + e) * (a + c) * (b + e); den > 0 {
		num := a*e - b*c
		if num > 0 {
			num = math.Max(num-nf/2, 0)
		}
		phi = num / math.Sqrt(den)
	}
	d = p1 - p2
	dl := math.Sqrt(math.Max(0, (p1-l1)*(p1-l1)-2*phi*(p1-l1)*(u2-p2)+(u2-p2)*(u2-p2)))
	du := math.Sqrt(math.Max(0, (u1-p1)*(u1-p1)-2*phi*(u1-p1)*(p2-l2)+(p2-l2)*(p2-l2)))
	return d, math.Max(-1, d-dl), math.Min(1, d+du)
}

// McNemarExact returns the exact two-sided McNemar p-value of b and c
// discordant pairs: under no difference each discordant pair falls
// either way with probability 1/2, so p = min(1, 2·P(X ≤ min(b, c)))
// for X ~ Binomial(b + c, 1/2); 1 when there is no discordant pair.
func McNemarExact(b, c int) float64 {
	m := b + c
	if m == 0 {
		return 1
	}
	k := min(b, c)
	lgM, _ := math.Lgamma(float64(m + 1))
	sum := 0.0
	for i := 0; i <= k; i++ {
		li, _ := math.Lgamma(float64(i + 1))
		lr, _ := math.Lgamma(float64(m - i + 1))
		sum += math.Exp(lgM - li - lr - float64(m)*math.Ln2)
	}
	return math.Min(1, 2*sum)
}

// Sentence says in words what one group's comparison means: which
// series beats the other and by how much, when the interval excludes 0
// and p < 0.05; otherwise that no difference was detected.
func (c Comparison) Sentence(p Paired) string {
	if p.N == 0 {
		return fmt.Sprintf("%s and %s share no visits %s.", c.A, c.B, strings.TrimPrefix(p.On, "over "))
	}
	detail := fmt.Sprintf("n = %d paired visits; %d won by %s alone, %d by %s alone; exact McNemar %s",
		p.N, p.AOnly, c.A, p.BOnly, c.B, formatP(p.P))
	switch {
	case p.Lo > 0 && p.P < 0.05:
		return fmt.Sprintf("%s beats %s %s by %.2f [%.2f, %.2f] (%s).", c.A, c.B, p.On, p.Diff, p.Lo, p.Hi, detail)
	case p.Hi < 0 && p.P < 0.05:
		return fmt.Sprintf("%s beats %s %s by %.2f [%.2f, %.2f] (%s).", c.B, c.A, p.On, -p.Diff, -p.Hi, -p.Lo, detail)
	}
	return fmt.Sprintf("No difference detected between %s and %s %s: %s − %s = %+.2f [%+.2f, %+.2f] (%s).",
		c.A, c.B, p.On, c.A, c.B, p.Diff, p.Lo, p.Hi, detail)
}

func formatP(p float64) string {
	if p < 0.001 {
		return "p < 0.001"
	}
	return fmt.Sprintf("p = %.3f", p)
}

// Markdown returns the comparison as text: one sentence over all paired
// visits, then a table per breakdown (condition, family, tag) with each
// group's counts, difference, interval, p-value and sentence.
func (c Comparison) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s vs %s: paired joint success\n\n", c.A, c.B)
	b.WriteString("Over the visits both played (the same visit id): A − B with Newcombe's paired 95% interval (method 10) and the exact McNemar test on the visits where only one succeeded.\n\n")
	b.WriteString(c.Sentence(c.All) + "\n")
	if c.OnlyA > 0 || c.OnlyB > 0 {
		fmt.Fprintf(&b, "\nLeft out: %d visits only %s played, %d only %s played.\n", c.OnlyA, c.A, c.OnlyB, c.B)
	}
	if c.RepeatsA > 0 || c.RepeatsB > 0 {
		fmt.Fprintf(&b, "\nVisits played more than once count once, by their first record (%d later records of %s, %d of %s left out).\n", c.RepeatsA, c.A, c.RepeatsB, c.B)
	}
	for _, sec := range []struct {
		name string
		ps   []Paired
	}{{"condition", c.ByCondition}, {"family", c.ByFamily}, {"tag", c.ByTag}} {
		if len(sec.ps) == 0 {
			continue
		}
		t := table{head: []string{sec.name, "n", "both", c.A + " only", c.B + " only", "neither", c.A, c.B, c.A + " − " + c.B + " [95% CI]", "McNemar p"}}
		for _, p := range sec.ps {
			t.rows = append(t.rows, []string{p.Group, fmt.Sprint(p.N), fmt.Sprint(p.Both), fmt.Sprint(p.AOnly), fmt.Sprint(p.BOnly), fmt.Sprint(p.Neither),
				fmt.Sprintf("%.2f", p.A), fmt.Sprintf("%.2f", p.B), fmt.Sprintf("%+.2f [%+.2f, %+.2f]", p.Diff, p.Lo, p.Hi), formatP(p.P)})
		}
		fmt.Fprintf(&b, "\n## By %s\n\n", sec.name)
		writeMarkdownTable(&b, t)
		b.WriteString("\n")
		for _, p := range sec.ps {
			b.WriteString("- " + c.Sentence(p) + "\n")
		}
	}
	return b.String()
}
