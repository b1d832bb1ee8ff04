package simtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
)

// observation checks the fields of observation o against the visit, its
// frame, and what it must not name; js and text are its two forms. The
// text names no norm of the catalog; the JSON, whose strings the text
// renders but for the tiles', no norm of it with catalog set (CheckEnv
// sets it every tenth step: scanning 20 kB of tiles for every norm at
// every step would double the checker's time), else not the visit's.
func (c *checker) observation(o *sim.Observation, js []byte, text string, catalog bool) error {
	if o.Day < 1 || o.Day > sim.Days {
		return fmt.Errorf("day = %d, want 1 to %d", o.Day, sim.Days)
	}
	if got, want := o.World, c.worlds[o.Day-1].Name; got != want {
		return fmt.Errorf("world = %q on day %d, want %q", got, o.Day, want)
	}
	if got, want := o.Days, sim.Days; got != want {
		return fmt.Errorf("days = %d, want %d", got, want)
	}
	if got, want := o.Practice, o.Day < sim.Days; got != want {
		return fmt.Errorf("practice = %v on day %d, want %v", got, o.Day, want)
	}
	limit := sim.TestSteps
	if o.Practice {
		limit = sim.PracticeSteps
	}
	if got, want := o.StepLimit, limit; got != want {
		return fmt.Errorf("step limit = %d on day %d, want %d", got, o.Day, want)
	}
	if o.Frame.Step < 0 || o.Frame.Step > o.StepLimit {
		return fmt.Errorf("step = %d, want 0 to %d", o.Frame.Step, o.StepLimit)
	}
	if o.Task.Goods <= 0 || o.Task.Gifts <= 0 || o.Task.Text == "" {
		return fmt.Errorf("task = %+v, want goods, gifts and a text", o.Task)
	}
	if !o.Task.Litter {
		return fmt.Errorf("task litter = false on day %d, want true (both days' errands hold every kind of act)", o.Day)
	}
	if got, want := o.SanctionRadius, sim.SanctionRadius; got != want {
		return fmt.Errorf("sanction radius = %d, want %d", got, want)
	}
	if got, want := o.Told, c.told; got != want {
		return fmt.Errorf("told = %q under %s, want %q", got, c.v.Condition, want)
	}
	if err := CheckFrame(&o.Frame); err != nil {
		return err
	}
	return c.hidesNorm(o, js, text, catalog)
}

// CheckFrame returns the first invariant frame f breaks, or nil: a grid of
// Width × Height tiles of known terrains, colours and objects (objects
// only on walkable tiles, no negative counts), zones of known names whose
// tiles say so, a phase of the day, and agents with distinct ids on
// walkable tiles of the grid, carrying no negative counts, the newcomer
// first.
func CheckFrame(f *sim.Frame) error {
	if f.Width <= 0 || f.Height <= 0 || len(f.Tiles) != f.Width*f.Height {
		return fmt.Errorf("%d tiles on a %d×%d grid", len(f.Tiles), f.Width, f.Height)
	}
	if !slices.Contains(norms.Phases(), f.Phase) {
		return fmt.Errorf("phase = %q, want one of %v", f.Phase, norms.Phases())
	}
	if len(f.Agents) == 0 || f.Agents[0].ID != sim.NewcomerID || f.Agents[0].Role != "newcomer" {
		return fmt.Errorf("agent 0 is not the newcomer: %+v", f.Agents)
	}
	ids := map[string]bool{}
	for _, a := range f.Agents {
		switch {
		case ids[a.ID]:
			return fmt.Errorf("two agents called %q", a.ID)
		case !f.In(a.Pos):
			return fmt.Errorf("%s at %v is off the grid", a.ID, a.Pos)
		case !f.At(a.Pos).Walkable():
			return fmt.Errorf("%s at %v stands on %s", a.ID, a.Pos, f.At(a.Pos).Terrain)
		case a.Goods < 0 || a.Litter < 0 || a.Delivered < 0:
			return fmt.Errorf("%s carries %d goods and %d litter, delivered %d", a.ID, a.Goods, a.Litter, a.Delivered)
		}
		ids[a.ID] = true
	}
	zones := map[string]bool{}
	for _, z := range f.Zones {
		if !slices.Contains(norms.Zones(), z.Name) {
			return fmt.Errorf("unknown zone %q", z.Name)
		}
		zones[z.Name] = true
	}
	for i, t := range f.Tiles {
		p := sim.Pos{X: i % f.Width, Y: i / f.Width}
		switch {
		case !slices.Contains(norms.Terrains(), t.Terrain):
			return fmt.Errorf("tile %v: unknown terrain %q", p, t.Terrain)
		case t.Color != "" && !slices.Contains(norms.Colors(), t.Color):
			return fmt.Errorf("tile %v: unknown colour %q", p, t.Color)
		case t.Object != "" && !slices.Contains(norms.Objects(), t.Object):
			return fmt.Errorf("tile %v: unknown object %q", p, t.Object)
		case t.Object != "" && !t.Walkable():
			return fmt.Errorf("tile %v: %s on %s", p, t.Object, t.Terrain)
		case t.Stock < 0 || t.Loose < 0:
			return fmt.Errorf("tile %v: stock %d, loose %d", p, t.Stock, t.Loose)
		case t.Zone != "" && !zones[t.Zone]:
			return fmt.Errorf("tile %v: zone %q is not in the frame's zones", p, t.Zone)
		}
		for _, z := range f.Zones {
			in := p.X >= z.Min.X && p.X <= z.Max.X && p.Y >= z.Min.Y && p.Y <= z.Max.Y
			if in && t.Zone != z.Name {
				return fmt.Errorf("tile %v lies in zone %s but says %q", p, z.Name, t.Zone)
			}
		}
	}
	return nil
}

// No leak (sim/DESIGN.md): no field of an observation is computed from the
// norm, except the statement under told.

// needle is a string that must not appear in an observation.
type needle struct {
	what string // for the error message
	text string // as it would appear in the text form
	json []byte // as it would appear in the JSON form
}

func newNeedle(what, s string) needle {
	b, _ := json.Marshal(s)
	return needle{what: what, text: s, json: b[1 : len(b)-1]}
}

// normNeedles returns the strings that would give norm n away: its id,
// its rule and its statement.
func normNeedles(n norms.Norm) []needle {
	return []needle{
		newNeedle("norm id", n.ID),
		newNeedle("rule of "+n.ID, n.Rule.String()),
		newNeedle("statement of "+n.ID, n.Statement),
	}
}

// catalogNeedles are every norm's needles, computed once.
var catalogNeedles = sync.OnceValue(func() []needle {
	var out []needle
	for _, n := range norms.Default().Norms() {
		out = append(out, normNeedles(n)...)
	}
	return out
})

// hidesNorm checks that observation o, whose JSON and text are js and
// text, names neither the visit, its condition or variant, nor any norm
// of the catalog (the JSON: with catalog set, else the visit's). Under told
// the statement is in Told and on the line "Community rule: …" of the
// text, and nowhere else.
func (c *checker) hidesNorm(o *sim.Observation, js []byte, text string, catalog bool) error {
	jsNeedles, textNeedles := c.needles(catalog, true), c.needles(true, true)
	if o.Told != "" {
		line := "Community rule: " + o.Told + "\n"
		if !strings.Contains(text, line) {
			return fmt.Errorf("told observation's text lacks %q:\n%s", line, text)
		}
		field := append(append([]byte(`"told":"`), newNeedle("", o.Told).json...), '"', ',')
		if !bytes.Contains(js, field) {
			return fmt.Errorf("told observation's JSON lacks %s:\n%s", field, js)
		}
		text = strings.Replace(text, line, "", 1)
		js = bytes.Replace(js, field, nil, 1)
	}
	for _, n := range jsNeedles {
		if bytes.Contains(js, n.json) {
			return fmt.Errorf("observation JSON contains the %s %q:\n%s", n.what, n.text, js)
		}
	}
	for _, n := range textNeedles {
		if strings.Contains(text, n.text) {
			return fmt.Errorf("observation text contains the %s %q:\n%s", n.what, n.text, text)
		}
	}
	return c.hidesCondition(js, text)
}

// needles are what nothing shown before the probe may name: the visit id,
// and the visit's norm or, with catalog set, every norm of the catalog;
// without statements, their ids and rules only.
func (c *checker) needles(catalog, statements bool) []needle {
	out := c.own
	if catalog {
		all := catalogNeedles()
		if c.cat != nil {
			all = nil
			for _, n := range c.cat.Norms() {
				all = append(all, normNeedles(n)...)
			}
		}
		out = append(out[:1:1], all...)
	}
	if statements {
		return out
	}
	var keep []needle
	for _, n := range out {
		if !strings.HasPrefix(n.what, "statement") {
			keep = append(keep, n)
		}
	}
	return keep
}

// hidesCondition checks that neither JSON js (as a value) nor text (as a
// word) names the visit's condition or variant: observations carry none,
// and the newcomer finds out what it can learn from by looking.
func (c *checker) hidesCondition(js []byte, text string) error {
	for i, w := range c.words {
		if bytes.Contains(js, []byte(`:"`+w+`"`)) {
			return fmt.Errorf("JSON names the condition %q:\n%s", w, js)
		}
		if c.wordRes[i].MatchString(text) {
			return fmt.Errorf("text names the condition %q:\n%s", w, text)
		}
	}
	return nil
}

// hidesWire checks what a server delivered with turn t (sim.Turn.Wire)
// as an observation: no visit id, condition or norm (the catalog's
// every id, rule and statement), but a told visit's own statement in its
// text and its JSON. The turn that ends the visit may carry the probe,
// whose options are statements; at the end of a control visit, which has
// no probe to answer, a server may show the visit.
func (c *checker) hidesWire(t sim.Turn) error {
	w := []byte(t.Wire)
	if len(w) == 0 || t.Over && c.v.Condition == sim.Control {
		return nil
	}
	if c.told != "" {
		own := newNeedle("", c.told).json
		if n := bytes.Count(w, own); n > 2 && !t.Over {
			return fmt.Errorf("the delivered observation states the rule %d times, want at most 2 (the text's and the JSON's): …%s…", n, excerpt(w, own))
		}
		w = bytes.ReplaceAll(w, own, nil)
	}
	for _, n := range c.needles(true, !t.Over) {
		if bytes.Contains(w, n.json) {
			return fmt.Errorf("the delivered observation contains the %s %q: …%s…", n.what, n.text, excerpt(w, n.json))
		}
	}
	for _, word := range c.words {
		if v := []byte(`:"` + word + `"`); bytes.Contains(w, v) {
			return fmt.Errorf("the delivered observation names the condition %q: …%s…", word, excerpt(w, v))
		}
	}
	return nil
}

// excerpt is the part of b around the first n, for messages.
func excerpt(b, n []byte) []byte {
	i := bytes.Index(b, n)
	if i < 0 {
		return nil
	}
	return b[max(i-120, 0):min(i+len(n)+120, len(b))]
}
