package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/splitmix"
	"github.com/normgym/normgym/sim/validity"
)

const generateAbout = `Generates fresh norms for a private suite: new combinations of the grammar's
predicates, parameters and families (each a conditional clause and a clause of
another kind), with statements written by the catalog's templates, none of them
a public norm. Every candidate is checked as "norms check" checks a norm (chance
compliance, practice-day sanction, solvable by the oracle, on its 16 visits) and
replaced until N pass. Writes a private suite file (README: "A private suite"):
the families, and the visits of a suite of the same composition as standard on
seeds drawn from --seed, for "normgym serve --private-catalog FILE".`

// privateOut is the file generate writes: LoadPrivateSuite's format.
type privateOut struct {
	Name     string            `json:"name"`
	Families []json.RawMessage `json:"families"`
	Visits   []string          `json:"visits"`
}

func cmdNormsGenerate(e *env) error {
	fs := e.flags("norms generate", "--seed S --n N --out FILE [--workers N]", generateAbout)
	seed := fs.Uint64("seed", 0, "seed of the draw (the same seed writes the same file)")
	n := fs.Int("n", 40, "norms to generate (at least 6: two families of three)")
	out := fs.String("out", "", "file to write")
	workers := fs.Int("workers", 0, "goroutines playing visits (0: one a CPU)")
	pos, err := e.parse(fs)
	if err != nil {
		return err
	}
	switch {
	case len(pos) > 0:
		return usageError("norms generate takes no arguments, got %q", pos[0])
	case *out == "":
		return usageError("norms generate needs --out FILE")
	case *n < 6:
		return usageError("--n %d: want at least 6 (two families of at least three norms)", *n)
	}
	sel, results, tried, err := generateValid(e, *seed, *n, *workers)
	if err != nil {
		return err
	}
	files := norms.FamilyFiles(sel)
	cat, err := norms.LoadFiles(familyFiles(files))
	if err != nil {
		return err
	}
	visits, err := privateVisits(cat, *seed)
	if err != nil {
		return err
	}
	doc := privateOut{Name: "private", Visits: visits}
	for _, f := range files {
		doc.Families = append(doc.Families, json.RawMessage(f))
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(*out, append(data, '\n'), 0o644); err != nil {
		return err
	}
	printFigures(e.stdout, summary(results))
	fmt.Fprintf(e.stdout, "%d norms in %d families (catalog %s), all valid, from %d candidates; %d visits; wrote %s\n",
		len(sel), len(files), cat.Version(), tried, len(visits), *out)
	return nil
}

// generateValid draws candidates from seed and checks them until n pass.
// A failed candidate is replaced in place by the next one of its family,
// so the others keep their visits and their figures stay measured.
func generateValid(e *env, seed uint64, n, workers int) ([]norms.Candidate, []validity.NormResult, int, error) {
	pool := norms.Candidates(seed, 6*n+30, norms.Default())
	used := 0
	next := func(family string) (norms.Candidate, bool) {
		for ; used < len(pool); used++ {
			if family == "" || pool[used].Family == family {
				used++
				return pool[used-1], true
			}
		}
		return norms.Candidate{}, false
	}
	sel := balancedStart(pool, n)
	used = len(sel)
	results := make([]validity.NormResult, len(sel))
	todo := make([]int, len(sel))
	for i := range todo {
		todo[i] = i
	}
	for round := 1; len(todo) > 0; round++ {
		files := norms.FamilyFiles(sel)
		cat, err := norms.LoadFiles(familyFiles(files))
		if err != nil {
			return nil, nil, 0, err
		}
		ids := make([]string, len(todo))
		for k, i := range todo {
			ids[k] = sel[i].ID()
		}
		fmt.Fprintf(e.stderr, "norms generate: round %d: checking %d candidates\n", round, len(ids))
		res, err := validity.CheckNorms(cat, ids, workers)
		if err != nil {
			return nil, nil, 0, err
		}
		var again []int
		for k, i := range todo {
			results[i] = res[k]
			if res[k].OK() {
				continue
			}
			c, ok := next(sel[i].Family)
			if !ok {
				return nil, nil, 0, fmt.Errorf("norms generate: ran out of candidates of family %s after %d", sel[i].Family, used)
			}
			c.Value = sel[i].Value // the same id: the same place and visits
			sel[i] = c
			again = append(again, i)
		}
		todo = again
	}
	return sel, results, used, nil
}

// balancedStart takes the first n candidates, but at least three of each
// family of the pool's first two (a catalog family has three norms or
// more).
func balancedStart(pool []norms.Candidate, n int) []norms.Candidate {
	var fams []string
	for _, c := range pool {
		if !slices.Contains(fams, c.Family) {
			fams = append(fams, c.Family)
		}
	}
	count := map[string]int{}
	var sel []norms.Candidate
	for _, c := range pool {
		room := n - len(sel)
		short := 0
		for _, f := range fams {
			if f != c.Family {
				short += max(0, 3-count[f])
			}
		}
		if room > short {
			sel = append(sel, c)
			count[c.Family]++
		}
		if len(sel) == n {
			break
		}
	}
	// Renumber by family, in file order, so that ids say the order.
	slices.SortStableFunc(sel, func(a, b norms.Candidate) int { return strings.Compare(a.Family, b.Family) })
	for i := range sel {
		sel[i].Value = "n" + strconv.Itoa(100 + i)[1:]
	}
	return sel
}

// privateVisits lists the non-control visits of cat's standard suite
// (every norm under every learning condition four times, worlds
// rotating) on seeds drawn from seed instead of the public ones.
func privateVisits(cat *norms.Catalog, seed uint64) ([]string, error) {
	s, err := sim.LookupSuiteIn(cat, "standard")
	if err != nil {
		return nil, err
	}
	src := splitmix.New(seed ^ 0x7669736974) // "visit"
	var out []string
	for _, id := range s.Visits {
		v, err := sim.ParseVisitIDIn(cat, id)
		if err != nil {
			return nil, err
		}
		if v.Condition == sim.Control {
			continue
		}
		v.Seed = src.Uint64() >> 16 // 48 bits: short ids, never a public seed
		out = append(out, v.String())
	}
	return out, nil
}

// summary is the figures of results, worst first for each kind: what
// the generated catalog's norms measured.
func summary(results []validity.NormResult) []validity.Figure {
	if len(results) == 0 {
		return nil
	}
	worst := slices.Clone(results[0].Figures)
	for _, r := range results[1:] {
		for k, f := range r.Figures {
			if k < len(worst) && strings.HasPrefix(f.Want, "≤") && f.Got > worst[k].Got ||
				k < len(worst) && strings.HasPrefix(f.Want, "≥") && f.Got < worst[k].Got ||
				k < len(worst) && strings.HasPrefix(f.Want, "=") && f.Got < worst[k].Got {
				worst[k] = f
			}
		}
	}
	for k := range worst {
		worst[k].Name = "worst " + worst[k].Name
	}
	return worst
}
