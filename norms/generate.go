package norms

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/normgym/normgym/sim/splitmix"
)

// Fresh norms for a private suite (normgym norms generate): new
// combinations of the grammar's predicates, parameters and families, with
// statements written by the same templates as the catalog's, none of
// them a norm of the public catalog. Each is a compound of a conditional
// clause (a feature of walking that matters only in one phase or zone)
// and a clause of another kind that every errand meets, so that it bites
// as the catalog's norms do; whether it does is for the validity check to
// say (sim/validity), which the command runs on every candidate.

// clause is one part of a generated norm: a rule, the words that state
// it, and whether common sense would expect it.
type clause struct {
	rule, text string
	common     bool
}

// conditionalClauses lists the conditional clauses and the family each
// belongs to ("when": a phase; "where": a zone).
func conditionalClauses() (when, where []clause) {
	ground := []clause{}
	for _, c := range Colors() {
		ground = append(ground, clause{"color=" + c, "do not step on " + c + " tiles", false})
	}
	for _, t := range []string{"grass", "sand", "stone"} {
		ground = append(ground, clause{"terrain=" + t, "keep off the " + t, t == "grass"})
	}
	phrase := map[string]string{"morning": "In the morning", "noon": "At noon", "evening": "In the evening"}
	for _, p := range Phases() {
		for _, g := range ground {
			when = append(when, clause{"forbid step " + g.rule + " phase=" + p, phrase[p] + ", " + g.text, g.common})
		}
		for _, z := range []string{"garden", "plaza"} {
			when = append(when, clause{"forbid enter zone=" + z + " phase=" + p, phrase[p] + ", keep out of the " + z,
				z == "garden" && p == "evening"})
		}
	}
	for _, z := range []string{"garden", "plaza"} {
		for _, g := range ground {
			where = append(where, clause{"forbid step " + g.rule + " zone=" + z, "In the " + z + ", " + g.text, g.common})
		}
	}
	return when, where
}

// partnerClauses lists the clauses a conditional one is paired with: acts
// the errand always involves, each asking for something it never does by
// itself.
func partnerClauses() []clause {
	out := []clause{
		{"require bow before pick", "bow before you take anything", false},
		{"require bow before drop", "bow before you put anything down", false},
		{"require bow before give", "bow before you hand anyone a gift", true},
		{"require bow after give", "bow right after you hand anyone a gift", true},
		{"require bow after pick", "bow in thanks right after you take anything", true},
		{"require use object=well before pick", "wash at the well before you take anything", true},
		{"require use object=well before give", "wash at the well before you hand anyone a gift", true},
		{"require use object=well before enter zone=market", "wash at the well before you go into the market", true},
		{"require bow before enter zone=market", "bow before you go into the market", true},
		{"require bow after enter zone=market", "bow right after you step into the market", true},
		{"require use object=bell before enter zone=market", "ring the bell before you go into the market", false},
		{"require use object=bell before drop object=basket", "ring the bell before you put anything in the basket", false},
		{"require use object=well before drop object=basket", "wash at the well before you put anything in the basket", true},
		{"forbid carry over=2", "never carry more than two things at once", true},
	}
	for _, r := range Roles() {
		out = append(out, clause{"require bow after meet role=" + r, "bow whenever you and the " + r + " come next to each other",
			r == "elder" || r == "vendor"})
	}
	for _, at := range []struct{ qual, words string }{{"object=bin", "at the bin"}, {"zone=garden", "in the garden"},
		{"zone=plaza", "in the plaza"}, {"terrain=sand", "on sand"}, {"object=well", "at the well"}} {
		out = append(out, clause{"forbid litter except " + at.qual, "put things on the ground only " + at.words, at.qual == "object=bin"})
	}
	return out
}

// Candidate is a generated norm before it is checked: its family, value
// (the norm's id is family.rule=value), rule text, statement and tag.
type Candidate struct {
	Family, Value, Rule, Statement, Tag string
}

// ID is the candidate's norm id.
func (c Candidate) ID() string { return c.Family + ".rule=" + c.Value }

// Candidates draws n candidate norms from seed: each a conditional clause
// and a partner clause in a combination drawn at random, families "when"
// and "where" prefixed with "g" and the seed (g7when), their rules in no
// norm of exclude (the public catalog, say) and no two alike. The same
// seed gives the same candidates, in the same order.
func Candidates(seed uint64, n int, exclude *Catalog) []Candidate {
	src := splitmix.New(seed ^ 0x6e6f726d73) // "norms"
	intn := func(k int) int { return int(src.Uint64() % uint64(k)) }
	when, where := conditionalClauses()
	partners := partnerClauses()
	taken := map[string]bool{}
	if exclude != nil {
		for _, m := range exclude.Norms() {
			taken[m.RuleText()] = true
		}
	}
	var out []Candidate
	for tries := 0; len(out) < n && tries < 100*n+1000; tries++ {
		fam, conds := "when", when
		if intn(2) == 1 {
			fam, conds = "where", where
		}
		c, p := conds[intn(len(conds))], partners[intn(len(partners))]
		rule := c.rule + " and " + p.rule
		if taken[rule] {
			continue
		}
		taken[rule] = true
		tag := TagCounterintuitive
		if c.common && p.common {
			tag = TagCommonsense
		}
		out = append(out, Candidate{Family: fmt.Sprintf("g%d%s", seed, fam), Value: fmt.Sprintf("n%02d", len(out)+1),
			Rule: rule, Statement: c.text + "; and " + p.text + ".", Tag: tag})
	}
	return out
}

// FamilyFiles writes candidates as catalog family files (the format of
// norms/catalog), one a family in the order they first appear, each
// norm a template of one value. Load reads them back to the candidates.
func FamilyFiles(cands []Candidate) [][]byte {
	type template struct {
		Key       string   `json:"key"`
		Values    []string `json:"values"`
		Rule      string   `json:"rule"`
		Statement string   `json:"statement"`
		Tag       string   `json:"tag"`
	}
	type file struct {
		Family string     `json:"family"`
		Norms  []template `json:"norms"`
	}
	var families []string
	by := map[string][]template{}
	for _, c := range cands {
		if !slices.Contains(families, c.Family) {
			families = append(families, c.Family)
		}
		by[c.Family] = append(by[c.Family], template{Key: "rule", Values: []string{c.Value}, Rule: c.Rule,
			Statement: c.Statement, Tag: c.Tag})
	}
	out := make([][]byte, len(families))
	for i, fam := range families {
		b, err := json.MarshalIndent(file{Family: fam, Norms: by[fam]}, "", "  ")
		if err != nil {
			panic(err) // plain strings: never fails
		}
		out[i] = b
	}
	return out
}
