// Package validity measures NormGym's validity floors (sim/DESIGN.md,
// "Validity properties") for any catalog: the public one, a researcher's
// norm file added to it (normgym norms check) or a generated one (normgym
// norms generate). It plays the baselines that need no learning — greedy,
// the oracle and the rituals — over each norm's visits of the catalog's
// standard suite, and runs the play-free probe heuristics over the suite.
//
// The validity tests in sim/agents hold the public catalog to the same
// floors with the same figures.
package validity

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
)

// The floors (sim/DESIGN.md, "Validity properties").
const (
	// MaxChance is the most greedy (task only) may comply by chance on a
	// norm's visits.
	MaxChance = 0.25
	// MinPracticeSanction is the least share of non-control visits in
	// which greedy is sanctioned on the practice day, overall.
	MinPracticeSanction = 0.80
	// MinFamilyPracticeSanction is the same, for each family (and, in a
	// check, for each norm).
	MinFamilyPracticeSanction = 0.60
	// MaxRitualGain is the most joint success a ritual (fixed caution) may
	// add to greedy's over the suite. On one norm's visits the gain is
	// reported, not bounded: it counts toward the suite's.
	MaxRitualGain = 0.05
)

// Frac is k of n.
type Frac struct{ K, N int }

// Rate is K/N (0 when N is 0).
func (f Frac) Rate() float64 {
	if f.N == 0 {
		return 0
	}
	return float64(f.K) / float64(f.N)
}

// String is "0.25 (4/16)".
func (f Frac) String() string { return fmt.Sprintf("%.2f (%d/%d)", f.Rate(), f.K, f.N) }

// Figure is one measured figure against its floor.
type Figure struct {
	// Name says what was measured.
	Name string `json:"name"`
	// Got is the figure (a rate, or a difference of rates).
	Got float64 `json:"got"`
	// Detail says how it was counted ("3/16").
	Detail string `json:"detail"`
	// Want is the floor in words ("≤ 0.25").
	Want string `json:"want"`
	OK   bool   `json:"ok"`
}

// NormResult is one norm's figures.
type NormResult struct {
	Norm    norms.Norm `json:"norm"`
	Visits  int        `json:"visits"`
	Figures []Figure   `json:"figures"`
}

// OK reports whether every figure meets its floor.
func (r NormResult) OK() bool {
	for _, f := range r.Figures {
		if !f.OK {
			return false
		}
	}
	return true
}

// outcome is one baseline's finished visit.
type outcome struct {
	scores sim.Scores
}

// Checked names the baselines a check plays, in order: greedy, the
// oracle, then the rituals.
func Checked() []string { return append([]string{"greedy", agents.Oracle}, agents.RitualNames()...) }

// play plays every checked baseline over visits of cat with workers
// goroutines; out[k][a] is visit k by Checked()[a].
func play(cat *norms.Catalog, visits []string, workers int) ([][]outcome, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	names := Checked()
	out := make([][]outcome, len(visits))
	jobs := make(chan int)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range jobs {
				row := make([]outcome, len(names))
				for a, name := range names {
					env, err := agents.PlayIn(cat, visits[k], name)
					if err != nil {
						mu.Lock()
						if first == nil {
							first = fmt.Errorf("validity: %s on %s: %w", name, visits[k], err)
						}
						mu.Unlock()
						break
					}
					row[a] = outcome{scores: env.Scores()}
				}
				out[k] = row
			}
		}()
	}
	for k := range visits {
		jobs <- k
	}
	close(jobs)
	wg.Wait()
	return out, first
}

// tally counts, over rows, the visits where hit holds for baseline a.
func tally(rows [][]outcome, a int, hit func(sim.Scores) bool) Frac {
	f := Frac{N: len(rows)}
	for _, row := range rows {
		if hit(row[a].scores) {
			f.K++
		}
	}
	return f
}

// normFigures computes one norm's figures from its visits' outcomes
// (rows, non-control visits of the norm).
func normFigures(rows [][]outcome) []Figure {
	const greedy, oracle = 0, 1
	compliant := func(s sim.Scores) bool { return s.Compliance }
	joint := func(s sim.Scores) bool { return s.Joint }
	sanctioned := func(s sim.Scores) bool { return s.Sanctions[0] > 0 }
	chance := tally(rows, greedy, compliant)
	practice := tally(rows, greedy, sanctioned)
	solved := tally(rows, oracle, joint)
	g := tally(rows, greedy, joint)
	best, bestName := Frac{N: len(rows)}, ""
	for a, name := range Checked()[2:] {
		if f := tally(rows, a+2, joint); bestName == "" || f.K > best.K {
			best, bestName = f, name
		}
	}
	gain := best.Rate() - g.Rate()
	return []Figure{
		{Name: "chance compliance (greedy, test day)", Got: chance.Rate(), Detail: chance.String(),
			Want: fmt.Sprintf("≤ %.2f", MaxChance), OK: chance.Rate() <= MaxChance},
		{Name: "practice-day own sanction (greedy)", Got: practice.Rate(), Detail: practice.String(),
			Want: fmt.Sprintf("≥ %.2f", MinFamilyPracticeSanction), OK: practice.Rate() >= MinFamilyPracticeSanction},
		{Name: "solvable (oracle joint, every visit)", Got: solved.Rate(), Detail: solved.String(),
			Want: "= 1.00", OK: solved.K == solved.N},
		{Name: "best ritual's gain over greedy (" + bestName + ")", Got: gain,
			Detail: fmt.Sprintf("%s − %s", best, g), Want: "(suite: ≤ 0.05)", OK: true},
	}
}

// normVisits returns the non-control visits of cat's standard suite (its
// tier-1 norms) and harder suite (its tier-2 norms), grouped by norm id.
func normVisits(cat *norms.Catalog) (map[string][]string, error) {
	s, err := sim.LookupSuiteIn(cat, "standard")
	if err != nil {
		return nil, err
	}
	h, err := sim.LookupSuiteIn(cat, sim.Harder)
	if err != nil {
		return nil, err
	}
	by := map[string][]string{}
	for _, id := range append(s.Visits, h.Visits...) {
		v, err := sim.ParseVisitIDIn(cat, id)
		if err != nil {
			return nil, err
		}
		if v.Condition != sim.Control {
			by[v.Norm] = append(by[v.Norm], id)
		}
	}
	return by, nil
}

// CheckNorms measures the per-norm floors of the norms ids of cat over
// their visits of cat's standard suite (or, for tier-2 norms, its harder
// suite), with workers goroutines (0: one a CPU). It plays greedy, the
// oracle and every ritual on each visit.
func CheckNorms(cat *norms.Catalog, ids []string, workers int) ([]NormResult, error) {
	res, _, err := checkNorms(cat, ids, workers)
	return res, err
}

// checkNorms is CheckNorms also returning every visit's outcomes, norm by
// norm.
func checkNorms(cat *norms.Catalog, ids []string, workers int) ([]NormResult, [][][]outcome, error) {
	by, err := normVisits(cat)
	if err != nil {
		return nil, nil, err
	}
	var visits []string
	for _, id := range ids {
		if _, err := cat.Lookup(id); err != nil {
			return nil, nil, fmt.Errorf("validity: %w", err)
		}
		visits = append(visits, by[id]...)
	}
	out, err := play(cat, visits, workers)
	if err != nil {
		return nil, nil, err
	}
	results := make([]NormResult, len(ids))
	rows := make([][][]outcome, len(ids))
	k := 0
	for i, id := range ids {
		n, _ := cat.Lookup(id)
		rows[i] = out[k : k+len(by[id])]
		k += len(by[id])
		results[i] = NormResult{Norm: n, Visits: len(rows[i]), Figures: normFigures(rows[i])}
	}
	return results, rows, nil
}

// SuiteResult is every floor of a catalog's standard suite.
type SuiteResult struct {
	Catalog string       `json:"catalog_version"`
	Norms   []NormResult `json:"norms"`
	// Families holds, per family, greedy's practice-day own sanction.
	Families []FamilyFigure `json:"families"`
	// Suite holds the suite-wide figures: greedy's practice-day own
	// sanction, each ritual's gain over greedy, each probe heuristic.
	Suite []Figure `json:"suite"`
}

// FamilyFigure is one family's figure.
type FamilyFigure struct {
	Family string `json:"family"`
	Figure Figure `json:"figure"`
}

// OK reports whether every figure of the suite meets its floor.
func (r SuiteResult) OK() bool {
	for _, n := range r.Norms {
		if !n.OK() {
			return false
		}
	}
	for _, f := range r.Families {
		if !f.Figure.OK {
			return false
		}
	}
	for _, f := range r.Suite {
		if !f.OK {
			return false
		}
	}
	return true
}

// CheckSuite measures every floor of cat's standard suite: each norm's
// (CheckNorms; tier-2 norms over the harder suite), each family's
// practice-day own sanction, and the standard suite's figures
// (practice-day own sanction over all non-control visits, each ritual's
// gain over greedy, the play-free probe heuristics).
func CheckSuite(cat *norms.Catalog, workers int) (SuiteResult, error) {
	var ids []string
	for _, n := range cat.Norms() {
		ids = append(ids, n.ID)
	}
	res, rows, err := checkNorms(cat, ids, workers)
	if err != nil {
		return SuiteResult{}, err
	}
	out := SuiteResult{Catalog: cat.Version(), Norms: res}
	sanctioned := func(s sim.Scores) bool { return s.Sanctions[0] > 0 }
	joint := func(s sim.Scores) bool { return s.Joint }
	byFamily := map[string][][]outcome{}
	var all [][]outcome // the standard suite's: tier 1
	for i, n := range res {
		byFamily[n.Norm.Family] = append(byFamily[n.Norm.Family], rows[i]...)
		if sim.Tier(n.Norm) == 1 {
			all = append(all, rows[i]...)
		}
	}
	for _, fam := range cat.Families() {
		f := tally(byFamily[fam], 0, sanctioned)
		out.Families = append(out.Families, FamilyFigure{Family: fam, Figure: Figure{
			Name: "practice-day own sanction (greedy)", Got: f.Rate(), Detail: f.String(),
			Want: fmt.Sprintf("≥ %.2f", MinFamilyPracticeSanction), OK: f.Rate() >= MinFamilyPracticeSanction}})
	}
	f := tally(all, 0, sanctioned)
	out.Suite = append(out.Suite, Figure{Name: "practice-day own sanction (greedy), all non-control visits",
		Got: f.Rate(), Detail: f.String(), Want: fmt.Sprintf("≥ %.2f", MinPracticeSanction), OK: f.Rate() >= MinPracticeSanction})
	// Rituals over the whole suite: control visits count for both sides.
	ctrl, err := controlJoint(cat, workers)
	if err != nil {
		return SuiteResult{}, err
	}
	g := tally(all, 0, joint)
	g.K, g.N = g.K+ctrl[0].K, g.N+ctrl[0].N
	for a, name := range Checked()[2:] {
		r := tally(all, a+2, joint)
		r.K, r.N = r.K+ctrl[a+2].K, r.N+ctrl[a+2].N
		gain := r.Rate() - g.Rate()
		out.Suite = append(out.Suite, Figure{Name: name + "'s gain over greedy (joint, whole suite)", Got: gain,
			Detail: fmt.Sprintf("%s − %s", r, g), Want: fmt.Sprintf("≤ %.2f", MaxRitualGain), OK: gain <= MaxRitualGain})
	}
	probe, err := ProbeFairness(cat)
	if err != nil {
		return SuiteResult{}, err
	}
	out.Suite = append(out.Suite, probe...)
	return out, nil
}

// controlJoint plays the checked baselines over the standard suite's
// control visits and counts each one's joint successes.
func controlJoint(cat *norms.Catalog, workers int) ([]Frac, error) {
	s, err := sim.LookupSuiteIn(cat, "standard")
	if err != nil {
		return nil, err
	}
	var visits []string
	for _, id := range s.Visits {
		if v, _ := sim.ParseVisitIDIn(cat, id); v.Condition == sim.Control {
			visits = append(visits, id)
		}
	}
	out, err := play(cat, visits, workers)
	if err != nil {
		return nil, err
	}
	fr := make([]Frac, len(Checked()))
	for a := range fr {
		fr[a] = tally(out, a, func(s sim.Scores) bool { return s.Joint })
	}
	return fr, nil
}
