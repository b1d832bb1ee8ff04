package sim_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
)

// The text renders every fact the sim judges on: a reader of the text
// alone (a model) can rebuild each tile's terrain, colour, zone and
// object (with a source's colour and whether it is ready), each agent's
// place, role, hat and load, the phase, and what each agent just did and
// whether it did nothing. TestTextRendersEveryFact rebuilds them from
// Text() at every step of whole visits and compares them with the frame.

// facts is what a reader rebuilds from one observation's text.
type facts struct {
	tiles  []sim.Tile // Stock is 1 for a ready source, else 0; Loose is not rendered
	agents []sim.Agent
	phase  string
	step   int
	// acts: each agent's act in the recap's step line, by name ("" if
	// there is no step line), and whether it did nothing.
	acts   map[string]string
	failed map[string]bool
}

var (
	reView   = regexp.MustCompile(`(?m)^Now: day \d+ of \d+ \(\w+ day\) · step (\d+) of \d+ · phase: (\w+)$`)
	reYou    = regexp.MustCompile(`(?m)^You \(@\) are at (\d+),(\d+) on (.*), carrying (.*)\.$`)
	reMember = regexp.MustCompile(`^  (\d) (\w+) \((\w+), (\w+) hat\) at (\d+),(\d+) \((.*)\), carrying (.*?)(, given one by you)?$`)
	reObject = regexp.MustCompile(`^(?:(\w+) )?(source|basket|bell|well|bin) (\d+),(\d+) \((.*)\)$`)
	reZone   = regexp.MustCompile(`^(\w+) x=(\d+)\.\.(\d+) y=(\d+)\.\.(\d+)$`)
	reStep   = regexp.MustCompile(`^Step (\d+), (\w+)\.(.*)$`)
	reAct    = regexp.MustCompile(`^(\w+) (.+?) (?:to|at) (\d+),(\d+) \((.*?)\)(, which did nothing)?$`)
)

var terrainOf = map[byte]string{'.': "path", '_': "floor", '"': "grass", ':': "sand", '=': "stone", '~': "water", '#': "wall"}

var colorOf = map[byte]string{'r': "red", 'b': "blue", 'y': "yellow", 'g': "green"}

// readTile reads appendTile's words: "blue grass, garden", "path, red source".
func readTile(s string) (t sim.Tile, err error) {
	parts := strings.Split(s, ", ")
	ground := strings.Fields(parts[0])
	switch len(ground) {
	case 1:
		t.Terrain = ground[0]
	case 2:
		t.Color, t.Terrain = ground[0], ground[1]
	default:
		return t, fmt.Errorf("tile %q: bad ground", s)
	}
	for _, p := range parts[1:] {
		w := strings.Fields(p)
		switch {
		case p == "market" || p == "garden" || p == "plaza":
			t.Zone = p
		case p == "ready":
			t.Stock = 1
		case p == "none ready":
		case len(w) == 2:
			t.ObjectColor, t.Object = w[0], w[1]
		case len(w) == 1:
			t.Object = w[0]
		default:
			return t, fmt.Errorf("tile %q: bad part %q", s, p)
		}
	}
	return t, nil
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// readCarrying reads "1 apple and 1 litter", "2 loaves", "nothing".
func readCarrying(s string) (goods, litter int, err error) {
	if s == "nothing" {
		return 0, 0, nil
	}
	for _, part := range strings.Split(s, " and ") {
		n, what, ok := strings.Cut(part, " ")
		k, err := strconv.Atoi(n)
		if !ok || err != nil || k <= 0 {
			return 0, 0, fmt.Errorf("carrying %q", s)
		}
		if what == "litter" {
			litter = k
		} else {
			goods = k
		}
	}
	return goods, litter, nil
}

// readFacts rebuilds the facts of an observation from its text alone.
func readFacts(text string, w, h int) (*facts, error) {
	recap, view := sim.SplitText(text)
	fx := &facts{tiles: make([]sim.Tile, w*h), acts: map[string]string{}, failed: map[string]bool{}}
	m := reView.FindStringSubmatch(view)
	if m == nil {
		return nil, fmt.Errorf("no view line")
	}
	fx.step, fx.phase = atoi(m[1]), m[2]
	lines := strings.Split(view, "\n")
	covered := make([]bool, w*h) // the map's symbol was an object or agent
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "Map ("):
			for y := 0; y < h; y++ {
				row := lines[i+2+y] + " "
				for x := 0; x < w; x++ {
					c0, c1 := row[3+3*x+1], row[3+3*x+2]
					t := &fx.tiles[y*w+x]
					t.Color = colorOf[c1]
					if terr, ok := terrainOf[c0]; ok {
						t.Terrain = terr
					} else {
						covered[y*w+x] = true
					}
				}
			}
		case strings.HasPrefix(l, "Objects:"):
			for _, item := range strings.Split(strings.TrimSuffix(strings.TrimPrefix(l, "Objects: "), "."), "; ") {
				om := reObject.FindStringSubmatch(item)
				if om == nil {
					return nil, fmt.Errorf("object %q", item)
				}
				t, err := readTile(om[5])
				if err != nil {
					return nil, err
				}
				t.Object, t.ObjectColor = om[2], om[1]
				k := atoi(om[4])*w + atoi(om[3])
				t.Zone = fx.tiles[k].Zone
				fx.tiles[k], covered[k] = t, false
			}
		case strings.HasPrefix(l, "Zones:"):
			for _, item := range strings.Split(strings.TrimSuffix(strings.TrimPrefix(l, "Zones: "), "."), "; ") {
				zm := reZone.FindStringSubmatch(item)
				if zm == nil {
					return nil, fmt.Errorf("zone %q", item)
				}
				for y := atoi(zm[4]); y <= atoi(zm[5]); y++ {
					for x := atoi(zm[2]); x <= atoi(zm[3]); x++ {
						fx.tiles[y*w+x].Zone = zm[1]
					}
				}
			}
		}
	}
	// Agents, and the tiles under them.
	ym := reYou.FindStringSubmatch(view)
	if ym == nil {
		return nil, fmt.Errorf("no You line")
	}
	me := sim.Agent{Name: "you", Role: "newcomer", Pos: sim.Pos{X: atoi(ym[1]), Y: atoi(ym[2])}}
	var err error
	if me.Goods, me.Litter, err = readCarrying(ym[4]); err != nil {
		return nil, err
	}
	fx.agents = append(fx.agents, me)
	under := []string{ym[3]}
	for _, l := range lines {
		mm := reMember.FindStringSubmatch(l)
		if mm == nil {
			continue
		}
		a := sim.Agent{Name: mm[2], Role: mm[3], Hat: mm[4], Pos: sim.Pos{X: atoi(mm[5]), Y: atoi(mm[6])}}
		if a.Goods, a.Litter, err = readCarrying(mm[8]); err != nil {
			return nil, err
		}
		if mm[9] != "" {
			a.Received = 1
		}
		fx.agents = append(fx.agents, a)
		under = append(under, mm[7])
	}
	for k, a := range fx.agents {
		t, err := readTile(under[k])
		if err != nil {
			return nil, err
		}
		i := a.Pos.Y*w + a.Pos.X
		if covered[i] {
			t.Stock = fx.tiles[i].Stock
			fx.tiles[i], covered[i] = t, false
		}
	}
	for i := range covered {
		if covered[i] {
			return nil, fmt.Errorf("tile %d,%d: the map hides it and nothing else says what it is", i%w, i/w)
		}
	}
	// The step just taken (the recap's last step line).
	for _, l := range strings.Split(recap, "\n") {
		sm := reStep.FindStringSubmatch(l)
		if sm == nil || atoi(sm[1]) != fx.step {
			continue
		}
		for _, item := range strings.Split(strings.TrimSuffix(sm[3], ";"), ";") {
			item = strings.TrimSpace(item)
			if names, ok := strings.CutSuffix(item, " wait"); ok {
				for _, n := range strings.Split(names, ", ") {
					fx.acts[n] = sim.Wait
				}
				continue
			}
			am := reAct.FindStringSubmatch(item)
			if am == nil {
				return nil, fmt.Errorf("act %q", item)
			}
			fx.acts[am[1]], fx.failed[am[1]] = am[2], am[6] != ""
		}
	}
	return fx, nil
}

// compareFacts reports the first fact of o the text got wrong.
func compareFacts(o *sim.Observation, fx *facts) error {
	f := &o.Frame
	if fx.phase != f.Phase || fx.step != f.Step {
		return fmt.Errorf("phase %s step %d, want %s %d", fx.phase, fx.step, f.Phase, f.Step)
	}
	for i := range f.Tiles {
		want := f.Tiles[i]
		want.Loose = 0
		if want.Object == "source" {
			want.Stock = min(want.Stock, 1)
		} else {
			want.Stock = 0
		}
		if got := fx.tiles[i]; got != want {
			return fmt.Errorf("tile %d,%d: read %+v, want %+v", i%f.Width, i/f.Width, got, want)
		}
	}
	for k, a := range f.Agents {
		got := fx.agents[k]
		if got.Name != a.Name || got.Role != a.Role || got.Hat != a.Hat || got.Pos != a.Pos ||
			got.Goods != a.Goods || got.Litter != a.Litter || got.Received != min(a.Received, 1) {
			return fmt.Errorf("agent %d: read %+v, want %+v", k, got, a)
		}
		if o.ActedIn == "" {
			continue
		}
		if got, want := fx.acts[a.Name], a.LastAction; got != want {
			return fmt.Errorf("%s's act: read %q, want %q", a.Name, got, want)
		}
		if got, want := fx.failed[a.Name], a.Failed; got != want {
			return fmt.Errorf("%s's act %q did nothing: read %v, want %v", a.Name, a.LastAction, got, want)
		}
	}
	return nil
}

func TestTextRendersEveryFact(t *testing.T) {
	tests := []struct{ visit, policy string }{
		{"orchard/place.color=blue/observe/s17", "greedy"},
		{"market/order.bell=market/peers/s4", "random"},
		{"park/social.avoid=red/solo/s9", "greedy"},
		{"harbor/resource.color=green/told/s12", "random"},
		{"library/disposal.at=bin/observe/s3", "observer"},
	}
	for _, tc := range tests {
		t.Run(tc.policy+"/"+tc.visit, func(t *testing.T) {
			t.Parallel()
			env, obs, err := sim.NewVisit(tc.visit)
			if err != nil {
				t.Fatal(err)
			}
			p, err := agents.New(tc.policy)
			if err != nil {
				t.Fatal(err)
			}
			var prev *sim.Observation
			for step := 0; ; step++ {
				fx, err := readFacts(obs.Text(), obs.Frame.Width, obs.Frame.Height)
				if err == nil {
					err = compareFacts(obs, fx)
				}
				if err == nil && prev != nil && obs.Day != prev.Day {
					err = checkDayEnd(obs, prev)
				}
				if err != nil {
					t.Fatalf("step %d of the visit: %v\n%s", step, err, obs.Text())
				}
				if env.Over() {
					return
				}
				res, err := env.Step(p.Act(obs))
				if err != nil {
					t.Fatal(err)
				}
				prev, obs = obs, res.Observation
			}
		})
	}
}

// checkDayEnd checks that the first observation of a day recaps the step
// that ended the day before: a step line of the next step number, with
// everyone's act.
func checkDayEnd(o, prev *sim.Observation) error {
	if o.DayEnd == "" {
		return fmt.Errorf("a new day's first observation has no DayEnd")
	}
	recap, _ := sim.SplitText(o.Text())
	if !strings.HasPrefix(recap, o.DayEnd+"\n") {
		return fmt.Errorf("the recap does not start with the day's end %q", o.DayEnd)
	}
	sm := reStep.FindStringSubmatch(o.DayEnd)
	if sm == nil || atoi(sm[1]) != prev.Frame.Step+1 {
		return fmt.Errorf("day end %q, want step %d", o.DayEnd, prev.Frame.Step+1)
	}
	for _, a := range prev.Frame.Agents {
		if !strings.Contains(o.DayEnd, a.Name) {
			return fmt.Errorf("day end %q does not say what %s did", o.DayEnd, a.Name)
		}
	}
	return nil
}

// TestMembersFailedActsMarked: a member's act that did nothing reads as
// such, like the newcomer's.
func TestMembersFailedActsMarked(t *testing.T) {
	_, obs, err := sim.NewVisit("orchard/place.color=blue/observe/s17")
	if err != nil {
		t.Fatal(err)
	}
	obs.ActedIn = obs.Frame.Phase
	for k := range obs.Frame.Agents {
		obs.Frame.Agents[k].LastAction = sim.Wait
	}
	m := &obs.Frame.Agents[2]
	m.LastAction, m.Failed = sim.Pick, true
	want := fmt.Sprintf("%s pick at %d,%d (", m.Name, m.Pos.X, m.Pos.Y)
	recap := obs.Recap()
	if !strings.Contains(recap, want) || !strings.Contains(recap, "), which did nothing;") {
		t.Errorf("recap %q does not say that %s's pick did nothing", recap, m.Name)
	}
}
