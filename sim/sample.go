package sim

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/normgym/normgym/sim/splitmix"
)

// Stratified returns visits in a random order drawn from seed and balanced
// over the strata of a suite: every prefix of the order holds each norm as
// evenly as the visits allow, the conditions (with their variant) as
// evenly, and the worlds as evenly. It goes in rounds: each round takes
// one visit of every norm that has visits left, in a shuffled order of the
// norms, except that the norm able to give the condition drawn least so far
// goes first; a norm's visit is of its condition drawn least so far (among
// those it has left), and of the world drawn least so far within that
// cell. So a suite's order covers every norm once before any twice, and
// every condition within its first few visits, control (one norm's only)
// among them.
//
// It reads ids by their text (world/norm/condition/sN), not through a
// catalog, so a private suite's ids are ordered too; the result is a new
// slice holding every visit once per occurrence. The same visits and seed
// give the same order on every host: `normgym run`, `eval` and `demos`
// draw --sample from it, and the server's OpenEnv reset reads its seed as
// an index into it (seed 0's order), as it orders a submitter key's sealed
// visits.
func Stratified(visits []string, seed uint64) []string {
	r := splitmix.New(seedOf("stratified", strconv.FormatUint(seed, 10)))
	groups := map[string]*normGroup{}
	var names []string
	for i, v := range visits {
		_, norm, cond := visitStrata(v)
		g := groups[norm]
		if g == nil {
			g = &normGroup{cells: map[string][]int{}}
			groups[norm] = g
			names = append(names, norm)
		}
		if _, ok := g.cells[cond]; !ok {
			g.conds = append(g.conds, cond)
		}
		g.cells[cond] = append(g.cells[cond], i)
	}
	slices.Sort(names)
	shuffle(r, names)
	for _, n := range names {
		g := groups[n]
		slices.Sort(g.conds)
		shuffle(r, g.conds)
		for _, c := range g.conds {
			shuffle(r, g.cells[c])
		}
	}
	condDrawn, worldDrawn := map[string]int{}, map[string]int{}
	out := make([]string, 0, len(visits))
	for round := 0; len(out) < len(visits); round++ {
		left := slices.Clone(names) // the norms this round has still to take
		for len(left) > 0 {
			// The norm whose condition of choice was drawn least so far
			// goes next (the first such in the shuffled order): so every
			// condition comes early, even one few norms hold (control).
			k, c := -1, ""
			for j, n := range left {
				cj := groups[n].pickCondition(condDrawn, round)
				if cj != "" && (k < 0 || condDrawn[cj] < condDrawn[c]) {
					k, c = j, cj
				}
			}
			if k < 0 {
				break
			}
			g := groups[left[k]]
			left = slices.Delete(left, k, k+1)
			w := pickWorld(visits, g.cells[c], worldDrawn)
			i := g.cells[c][w]
			g.cells[c] = slices.Delete(g.cells[c], w, w+1)
			world, _, _ := visitStrata(visits[i])
			condDrawn[c]++
			worldDrawn[world]++
			out = append(out, visits[i])
		}
	}
	return out
}

// Sample returns n visits drawn from visits by Stratified under seed (its
// first n; all of them when n is 0 or at least their number).
func Sample(visits []string, n int, seed uint64) []string {
	s := Stratified(visits, seed)
	if n > 0 && n < len(s) {
		s = s[:n]
	}
	return s
}

// normGroup is one norm's visits by condition, in the order drawn.
type normGroup struct {
	conds []string
	cells map[string][]int // condition → indices into the visits, shuffled
}

// pickCondition returns the norm's condition with visits left that was
// drawn least so far, ties going to the first in the norm's shuffled
// order from a start that turns with the round; "" when none is left.
func (g *normGroup) pickCondition(drawn map[string]int, round int) string {
	best := ""
	for k := range g.conds {
		c := g.conds[(k+round)%len(g.conds)]
		if len(g.cells[c]) == 0 {
			continue
		}
		if best == "" || drawn[c] < drawn[best] {
			best = c
		}
	}
	return best
}

// pickWorld returns the position in cell of the visit whose world was
// drawn least so far (the first such).
func pickWorld(visits []string, cell []int, drawn map[string]int) int {
	best, bestN := 0, -1
	for k, i := range cell {
		w, _, _ := visitStrata(visits[i])
		if bestN < 0 || drawn[w] < bestN {
			best, bestN = k, drawn[w]
		}
	}
	return best
}

// shuffle permutes s in place (Fisher–Yates) with r.
func shuffle[T any](r *splitmix.Source, s []T) {
	for i := len(s) - 1; i > 0; i-- {
		j := int(r.Uint64() % uint64(i+1))
		s[i], s[j] = s[j], s[i]
	}
}

// visitStrata reads a visit id's world (with its test world, as in
// "orchard>harbor"), norm and condition (with its variant) from its text.
func visitStrata(v string) (world, norm, cond string) {
	parts := strings.Split(v, "/")
	if len(parts) != 4 {
		return v, v, v
	}
	return parts[0], parts[1], parts[2]
}

// Composition counts a set of visits by norm, condition (with its
// variant) and world: what a sample holds.
type Composition struct {
	Visits     int            `json:"visits"`
	Norms      map[string]int `json:"norms"`
	Conditions map[string]int `json:"conditions"`
	Worlds     map[string]int `json:"worlds"`
}

// Compose counts visits by their strata (read from the ids' text).
func Compose(visits []string) Composition {
	c := Composition{Visits: len(visits), Norms: map[string]int{}, Conditions: map[string]int{}, Worlds: map[string]int{}}
	for _, v := range visits {
		w, n, cond := visitStrata(v)
		c.Norms[n]++
		c.Conditions[cond]++
		c.Worlds[w]++
	}
	return c
}

// String says what the composition holds in one line: "40 visits: 39
// norms, 5 conditions (control 1, observe 10, …), 5 worlds". The norm
// "none" (control) counts as a norm.
func (c Composition) String() string {
	conds := make([]string, 0, len(c.Conditions))
	for k := range c.Conditions {
		conds = append(conds, k)
	}
	slices.Sort(conds)
	for i, k := range conds {
		conds[i] = fmt.Sprintf("%s %d", k, c.Conditions[k])
	}
	return fmt.Sprintf("%d visits: %d norms, %d conditions (%s), %d worlds", c.Visits, len(c.Norms), len(c.Conditions),
		strings.Join(conds, ", "), len(c.Worlds))
}
