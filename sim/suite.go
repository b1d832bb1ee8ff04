package sim

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/normgym/normgym/norms"
)

// Suite is a versioned, fixed list of visit ids.
type Suite struct {
	Name        string   `json:"name"`
	Version     string   `json:"version"`
	Description string   `json:"description"`
	Visits      []string `json:"visits"`
}

// SuiteVersion is the version of how suites are versioned. A suite's own
// Version is SuiteVersion, "+", and the first 8 hex digits of a SHA-256
// of its name and visit list, so it changes whenever the visits it holds
// do (a norm added to the catalog, say), and results made for another
// list are refused.
//
// Version 3: suite versions come from their content.
const SuiteVersion = "3"

// suiteVersion is the version of suite name holding visits.
func suiteVersion(name string, visits []string) string {
	h := sha256.New()
	h.Write([]byte(name))
	for _, v := range visits {
		h.Write([]byte{'\n'})
		h.Write([]byte(v))
	}
	return SuiteVersion + "+" + hex.EncodeToString(h.Sum(nil))[:8]
}

// SuiteNames lists the suites in canonical order.
func SuiteNames() []string {
	return []string{"mini", "standard", "train", "heldout", "transfer", "hard", Harder}
}

// Suites returns every suite.
func Suites() []Suite {
	out := make([]Suite, 0, len(SuiteNames()))
	for _, n := range SuiteNames() {
		s, _ := LookupSuite(n)
		out = append(out, s)
	}
	return out
}

// Harder is the suite of the harder tier: the catalog's tier-2 norms
// (compound and conditional), which every other suite leaves out.
const Harder = "harder"

// tierNorms returns the norms of cat in tier t (1 or 2), and their
// families in catalog order.
func tierNorms(cat *norms.Catalog, t int) (ns []norms.Norm, families []string) {
	for _, n := range cat.Norms() {
		if Tier(n) == t {
			ns = append(ns, n)
			if len(families) == 0 || families[len(families)-1] != n.Family {
				families = append(families, n.Family)
			}
		}
	}
	return ns, families
}

// Tier is a norm's tier: 2 for the harder tier, else 1.
func Tier(n norms.Norm) int {
	if n.Tier == 2 {
		return 2
	}
	return 1
}

// heldoutFamily appears only in the heldout suite.
const heldoutFamily = "direction"

// LookupSuite builds the suite called name. Suites are computed from the
// catalog and the worlds, so they are the same on every host; a change to
// either that changes a suite's visits changes its version.
func LookupSuite(name string) (Suite, error) { return LookupSuiteIn(norms.Default(), name) }

// LookupSuiteIn builds the suite called name over the norms of cat
// instead of the public catalog (a researcher's catalog being checked, a
// generated one): the same composition, the same seeds for the same
// positions in the catalog.
func LookupSuiteIn(cat *norms.Catalog, name string) (Suite, error) {
	s, err := buildSuite(cat, name)
	if err != nil {
		return Suite{}, err
	}
	s.Version = suiteVersion(s.Name, s.Visits)
	return s, nil
}

// buildSuite lists the visits of the suite called name over cat.
func buildSuite(cat *norms.Catalog, name string) (Suite, error) {
	all, families := tierNorms(cat, 1)
	familyOf := func(fam string) []norms.Norm {
		var out []norms.Norm
		for _, n := range all {
			if n.Family == fam {
				out = append(out, n)
			}
		}
		return out
	}
	conds := []string{Observe, Peers, Solo, Told}
	worldsN := len(worlds)
	var visits []string
	add := func(world, norm, cond string, seed int) {
		visits = append(visits, VisitID{World: world, Norm: norm, Condition: cond, Seed: uint64(seed)}.String())
	}
	switch name {
	case "mini":
		// Two norms of each family under each learning condition, plus
		// control in every world but one.
		k := 0
		for fi, fam := range families {
			ns := familyOf(fam)
			for rep := 0; rep < 2; rep++ {
				n := ns[(rep*len(ns)/2+fi)%len(ns)]
				for ci, c := range conds {
					add(worlds[(fi+ci+rep)%worldsN].Name, n.ID, c, 100+k)
					k++
				}
			}
		}
		for wi := 0; wi < 4; wi++ {
			add(worlds[wi].Name, norms.NoNorm, Control, 100+k)
			k++
		}
		return Suite{Name: name, Visits: visits,
			Description: "quick checks: two norms per family under each learning condition, and control in four worlds"}, nil
	case "standard":
		// Every norm under every learning condition four times, worlds
		// rotating, plus 16 control visits per world.
		visits = everyNorm(all, 4, 1000)
		k := len(visits)
		for wi := range worlds {
			for rep := 0; rep < 16; rep++ {
				add(worlds[wi].Name, norms.NoNorm, Control, 1000+k)
				k++
			}
		}
		return Suite{Name: name, Visits: visits,
			Description: "the benchmark: every norm under observe, peers, solo and told four times, worlds balanced, and 80 control visits"}, nil
	case "transfer":
		// Every norm under observe and solo, the test day in another world:
		// does what was learnt carry over to a new place?
		k := 0
		for ni, n := range all {
			for ci, c := range []string{Observe, Solo} {
				w := (ni + ci) % worldsN
				visits = append(visits, VisitID{World: worlds[w].Name, TestWorld: worlds[(w+1+ni%(worldsN-1))%worldsN].Name,
					Norm: n.ID, Condition: c, Seed: uint64(9000 + k)}.String())
				k++
			}
		}
		return Suite{Name: name, Visits: visits,
			Description: "every norm under observe and solo with the test day in another world (transfer)"}, nil
	case "hard":
		// Every norm under observe with noisy and with delayed sanctions.
		k := 0
		for ni, n := range all {
			for vi, variant := range Variants() {
				visits = append(visits, VisitID{World: worlds[(ni+vi)%worldsN].Name, Norm: n.ID, Condition: Observe,
					Variant: variant, Seed: uint64(9500 + k)}.String())
				k++
			}
		}
		return Suite{Name: name, Visits: visits,
			Description: "every norm under observe with noisy (missed and false) and with delayed sanctions"}, nil
	case Harder:
		// Every tier-2 norm (compound, relational or turn-taking) under
		// every learning condition four times, worlds rotating: no single
		// feature of one act gives it away.
		hard, _ := tierNorms(cat, 2)
		return Suite{Name: name, Visits: everyNorm(hard, 4, 20000),
			Description: "the harder tier: every compound, relational and turn-taking norm under observe, peers, solo and told four times"}, nil
	case "train", "heldout":
		var keep []norms.Norm
		for _, n := range all {
			if isHeldout(n, familyOf(n.Family)) == (name == "heldout") {
				keep = append(keep, n)
			}
		}
		desc := "norms for fine-tuning; disjoint from heldout"
		if name == "heldout" {
			desc = "norms never in train: the whole " + heldoutFamily + " family and the last norm of every other family"
		}
		return Suite{Name: name, Visits: splitVisits(all, keep), Description: desc}, nil
	}
	return Suite{}, fmt.Errorf("sim: unknown suite %q (want one of %s)", name, strings.Join(SuiteNames(), ", "))
}

// everyNorm lists every norm of ns under every learning condition reps
// times, worlds rotating, seeds from base on.
func everyNorm(ns []norms.Norm, reps, base int) []string {
	var visits []string
	k := 0
	for ni, n := range ns {
		for ci, c := range []string{Observe, Peers, Solo, Told} {
			for rep := 0; rep < reps; rep++ {
				visits = append(visits, VisitID{World: worlds[(ni+ci+rep)%len(worlds)].Name, Norm: n.ID, Condition: c,
					Seed: uint64(base + k)}.String())
				k++
			}
		}
	}
	return visits
}

// splitVisits lists the norms keep (of all, whose order gives the seeds)
// under every learning condition three times: train's or heldout's.
func splitVisits(all, keep []norms.Norm) []string {
	var visits []string
	for ni, n := range all {
		if !slices.ContainsFunc(keep, func(m norms.Norm) bool { return m.ID == n.ID }) {
			continue
		}
		for ci, c := range []string{Observe, Peers, Solo, Told} {
			for rep := 0; rep < 3; rep++ {
				visits = append(visits, VisitID{World: worlds[(ni+ci+rep)%len(worlds)].Name, Norm: n.ID, Condition: c,
					Seed: uint64(5000 + ni*100 + ci*10 + rep)}.String())
			}
		}
	}
	return visits
}

// isHeldout reports whether a norm of family fam belongs to the heldout
// suite: every norm of the heldout family and the last norm of each other
// family.
func isHeldout(n norms.Norm, fam []norms.Norm) bool {
	if n.Family == heldoutFamily {
		return true
	}
	return fam[len(fam)-1].ID == n.ID
}
