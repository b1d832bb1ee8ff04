package report

import (
	"math"
	"slices"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
)

// Cell is one point of a figure: a share with its Wilson 95% interval,
// or (Figure.Mean) a mean with its normal-approximation 95% interval.
// N == 0 is a cell with no data, drawn as missing, never as zero.
type Cell struct {
	Value float64 `json:"value"`
	Lo    float64 `json:"lo"`
	Hi    float64 `json:"hi"`
	// K is the count of successes of a share (0 for a mean).
	K int `json:"k"`
	// N is the number of visits the cell is over.
	N int `json:"n"`
}

// Figure is one chart's data: a cell for each drawn series and group.
type Figure struct {
	// Name is the figure's file name without ".svg".
	Name  string `json:"name"`
	Title string `json:"title"`
	// Caption says what is measured, over which visits.
	Caption string `json:"caption"`
	YTitle  string `json:"y_title"`
	XTitle  string `json:"x_title"`
	// Mean marks cells that are means per visit rather than shares.
	Mean   bool     `json:"mean,omitempty"`
	Groups []string `json:"groups"`
	// Series are the drawn series' labels, in drawing order.
	Series []string `json:"series"`
	// Cells[s][g] is series s in group g.
	Cells [][]Cell `json:"cells"`
	// Empty says what to run to fill a figure that has no data at all.
	Empty string `json:"empty,omitempty"`
}

// HasData reports whether any cell of the figure has visits.
func (f Figure) HasData() bool {
	for _, row := range f.Cells {
		for _, c := range row {
			if c.N > 0 {
				return true
			}
		}
	}
	return false
}

// The findings' groups: what the practice day taught.
const (
	LearnOwn      = "after own sanction"
	LearnWitness  = "after witnessing only"
	LearnNeither  = "after neither"
	sameWorld     = " · same world"
	newWorld      = " · new world"
	allConditions = "all conditions"
)

// Figures computes the report's figures for the drawn series, in order:
// joint success by condition, the findings (test-day compliance by what
// the practice day taught), repeats after an own sanction, joint success
// by family and by tag (commonsense or counterintuitive), transfer (same
// world vs new world), the hard variants, and violations by day.
func Figures(drawn []Series, cat *norms.Catalog) []Figure {
	conds := sim.Conditions()
	learnConds := slices.DeleteFunc(slices.Clone(conds), func(c string) bool { return c == sim.Control })
	figs := []Figure{
		shares(Figure{Name: "joint-by-condition", Title: "Joint success by condition",
			Caption: "Test-day task done with no violation; visits without a sanction variant, test day in the practice day's world.",
			YTitle:  "joint success (share of visits)", XTitle: "condition"},
			drawn, conds, false, func(r sim.Record) []string {
				return when(plain(r), r.Condition)
			}, joint),
		shares(Figure{Name: "findings", Title: "Test-day compliance by what the practice day taught",
			Caption: "Visits with a norm and no sanction variant, by whether the newcomer was sanctioned on the practice day, only saw others sanctioned, or neither.",
			YTitle:  "test-day compliance (share of visits)", XTitle: "on the practice day, the newcomer was…"},
			drawn, []string{LearnOwn, LearnWitness, LearnNeither}, true, func(r sim.Record) []string {
				k, ok := LearnedFrom(r)
				return when(ok && plain(r), []string{LearnOwn, LearnWitness, LearnNeither}[k])
			}, func(r sim.Record) bool { return r.Scores.Compliance }),
		shares(Figure{Name: "repeats", Title: "Repeats after an own sanction",
			Caption: "Visits where the newcomer was sanctioned on the practice day: the share where it broke the norm again later that day (lower is better).",
			YTitle:  "repeated the same day (share of visits)", XTitle: "condition"},
			drawn, append([]string{allConditions}, learnConds...), false, func(r sim.Record) []string {
				if k, ok := LearnedFrom(r); !ok || k != 0 || !plain(r) {
					return nil
				}
				return []string{allConditions, r.Condition}
			}, func(r sim.Record) bool { return len(r.Scores.DayRepeats) > 0 && r.Scores.DayRepeats[0] > 0 }),
		shares(Figure{Name: "joint-by-family", Title: "Joint success by norm family",
			Caption: "Visits with a norm (all learning conditions), no sanction variant, test day in the practice day's world.",
			YTitle:  "joint success (share of visits)", XTitle: "norm family (catalog)"},
			drawn, cat.Families(), false, func(r sim.Record) []string {
				return when(plain(r) && r.Condition != sim.Control, r.Family)
			}, joint),
		shares(Figure{Name: "commonsense", Title: "Joint success: commonsense vs counterintuitive norms",
			Caption: "Visits with a norm (all learning conditions), no sanction variant, by the catalog's tag of the norm.",
			YTitle:  "joint success (share of visits)", XTitle: "the norm, as the catalog tags it"},
			drawn, Tags(cat), true, func(r sim.Record) []string {
				return when(plain(r) && r.Condition != sim.Control, Tag(cat, r))
			}, joint),
		transferFigure(drawn),
		hardFigure(drawn),
		violationsFigure(drawn),
	}
	return figs
}

func joint(r sim.Record) bool { return r.Scores.Joint }

// when returns []string{key} if ok and key is not empty, else nil.
func when(ok bool, key string) []string {
	if !ok || key == "" {
		return nil
	}
	return []string{key}
}

// shares fills f with one share per drawn series and group: keys says
// which groups a record counts in, hit whether it is a success. The
// groups are those of canonical that hold records (all of them when
// fixed), then any other group the records name, sorted.
func shares(f Figure, drawn []Series, canonical []string, fixed bool, keys func(sim.Record) []string, hit func(sim.Record) bool) Figure {
	type kn struct{ k, n int }
	counts := make([]map[string]*kn, len(drawn))
	seen := map[string]bool{}
	for si, s := range drawn {
		counts[si] = map[string]*kn{}
		for _, r := range s.Records {
			for _, g := range keys(r) {
				c := counts[si][g]
				if c == nil {
					c = &kn{}
					counts[si][g] = c
				}
				c.n++
				if hit(r) {
					c.k++
				}
				seen[g] = true
			}
		}
	}
	if fixed {
		for _, g := range canonical {
			seen[g] = true
		}
	}
	f.Groups = orderKeys(seen, canonical)
	f.Series = labels(drawn)
	f.Cells = make([][]Cell, len(drawn))
	for si := range drawn {
		f.Cells[si] = make([]Cell, len(f.Groups))
		for gi, g := range f.Groups {
			if c := counts[si][g]; c != nil {
				w := Wilson(c.k, c.n)
				f.Cells[si][gi] = Cell{Value: w.Rate, Lo: w.Lo, Hi: w.Hi, K: c.k, N: c.n}
			}
		}
	}
	return f
}

func labels(ss []Series) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.Label
	}
	return out
}

// transferFigure compares joint success with the test day in the
// practice day's world and in a new one, for each condition that has
// transfer visits.
func transferFigure(drawn []Series) Figure {
	conds := map[string]bool{}
	for _, s := range drawn {
		for _, r := range s.Records {
			if IsTransfer(r) && r.Variant == "" {
				conds[r.Condition] = true
			}
		}
	}
	var canonical []string
	for _, c := range sim.Conditions() {
		canonical = append(canonical, c+sameWorld, c+newWorld)
	}
	f := Figure{Name: "transfer", Title: "Transfer: the test day in the same world or a new one",
		Caption: "Joint success under each condition that has transfer visits; same world: the visits without a sanction variant whose test day is in the practice day's world.",
		YTitle:  "joint success (share of visits)", XTitle: "condition · test-day world",
		Empty: "No transfer visits in these records: add those of normgym run --suite transfer."}
	return shares(f, drawn, canonical, false, func(r sim.Record) []string {
		switch {
		case r.Variant != "" || !conds[r.Condition]:
			return nil
		case IsTransfer(r):
			return []string{r.Condition + newWorld}
		}
		return []string{r.Condition + sameWorld}
	}, joint)
}

// hardFigure compares joint success under each condition that has
// sanction variants with the same condition under plain sanctions.
func hardFigure(drawn []Series) Figure {
	bases := map[string]bool{}
	for _, s := range drawn {
		for _, r := range s.Records {
			if r.Variant != "" {
				bases[r.Condition] = true
			}
		}
	}
	f := Figure{Name: "hard", Title: "Hard variants: noisy and delayed sanctions",
		Caption: "Joint success under each condition that has visits with a sanction variant (noisy: missed and false sanctions; delayed: two steps late), beside the same condition with plain sanctions.",
		YTitle:  "joint success (share of visits)", XTitle: "condition + sanction variant",
		Empty: "No visits with a sanction variant in these records: add those of normgym run --suite hard."}
	return shares(f, drawn, conditionOrder(), false, func(r sim.Record) []string {
		return when(bases[r.Condition] && !IsTransfer(r), ConditionKey(r))
	}, joint)
}

// violationsFigure draws the newcomer's mean violations per visit on each
// day, with a normal-approximation 95% interval.
func violationsFigure(drawn []Series) Figure {
	days := []string{"practice day", "test day"}
	f := Figure{Name: "violations-by-day", Title: "Violations per visit, by day",
		Caption: "The newcomer's mean number of violations of the norm per visit (visits with a norm and no sanction variant), with a 95% normal-approximation interval.",
		YTitle:  "violations per visit (mean)", XTitle: "day", Mean: true,
		Groups: days, Series: labels(drawn), Cells: make([][]Cell, len(drawn))}
	for si, s := range drawn {
		f.Cells[si] = make([]Cell, len(days))
		for d := range days {
			var xs []float64
			for _, r := range s.Records {
				if plain(r) && r.Condition != sim.Control && d < len(r.Scores.Violations) {
					xs = append(xs, float64(r.Scores.Violations[d]))
				}
			}
			f.Cells[si][d] = MeanCell(xs)
		}
	}
	return f
}

// MeanCell returns the mean of xs with its normal-approximation 95%
// interval (mean ± 1.96 standard errors, clipped at 0 below: counts are
// never negative). An empty xs gives a cell with no data.
func MeanCell(xs []float64) Cell {
	n := len(xs)
	if n == 0 {
		return Cell{}
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / float64(n)
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	half := 0.0
	if n > 1 {
		half = 1.959963984540054 * math.Sqrt(ss/float64(n-1)/float64(n))
	}
	return Cell{Value: round(mean), Lo: round(math.Max(0, mean-half)), Hi: round(mean + half), N: n}
}
