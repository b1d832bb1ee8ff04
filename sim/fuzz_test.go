package sim_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
	"github.com/normgym/normgym/sim/simtest"
)

// The boundaries that take outside input: action text, visit ids, and
// action sequences sent to Step. The f.Add seeds run as unit tests.

func FuzzParseAction(f *testing.F) {
	for _, s := range []string{
		"north", "N", "s", " e ", "W\n", "wait", "PICK", "drop", "use", "bow",
		"give mara", "  Give \t MARA  ", "give", "give a b", "give newcomer",
		"", "   ", "fly", "north now", "wait 3", "give\u00a0pip", "ΣΑΣ", "give İzmir",
		"give \xff", "\xc3", strings.Repeat("x", 100),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := sim.ParseAction(s)
		if err != nil {
			if !errors.Is(err, sim.ErrAction) {
				t.Errorf("ParseAction(%q) error %q, want one wrapping ErrAction", s, err)
			}
			if a != (sim.Action{}) {
				t.Errorf("ParseAction(%q) = %#v with an error, want the zero Action", s, a)
			}
			return
		}
		if !slices.Contains(sim.ActionVerbs(), a.Verb) {
			t.Errorf("ParseAction(%q) = %#v: unknown verb", s, a)
		}
		if got, want := a.Target != "", a.Verb == sim.Give; got != want {
			t.Errorf("ParseAction(%q) = %#v: has target %v, want %v", s, a, got, want)
		}
		b, err := sim.ParseAction(a.String())
		if err != nil {
			t.Fatalf("ParseAction(%q) = %#v, but its String %q does not parse: %v", s, a, a.String(), err)
		}
		if b != a {
			t.Errorf("ParseAction(%q) = %#v, but ParseAction(%q) = %#v", s, a, a.String(), b)
		}
	})
}

func FuzzParseVisitID(f *testing.F) {
	for _, s := range []string{
		"orchard/place.color=blue/observe/s17", "park/none/control/s0", "library/social.greet=child/told/s2147483647",
		"harbor/direction.path=west/solo/s5", "market/resource.carry=1/peers/s100",
		"orchard/place.color=blue/observe/s01", "orchard/place.color=blue/observe/s-1", "orchard/place.color=blue/observe/17",
		"orchard/place.color=blue/observe/s18446744073709551616", "orchard/place.color=blue/observe/s18446744073709551615", "orchard/place.color=blue/observe/s+1", "orchard/none/observe/s1",
		"orchard/place.color=blue/control/s1", "orchard//observe/s1", "/orchard/place.color=blue/observe/s1",
		"orchard/place.color=blue/observe/s1/", "Orchard/place.color=blue/observe/s1", "", "////",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := sim.ParseVisitID(s)
		if err != nil {
			if !errors.Is(err, sim.ErrVisitID) {
				t.Errorf("ParseVisitID(%q) error %q, want one wrapping ErrVisitID", s, err)
			}
			return
		}
		if got, want := v.String(), s; got != want {
			t.Errorf("ParseVisitID(%q).String() = %q, want the input", s, got)
		}
		env, obs, err := sim.NewVisit(s)
		if err != nil || env == nil || obs == nil {
			t.Fatalf("NewVisit(%q) failed on a valid id: %v", s, err)
		}
		if err := simtest.CheckObservation(v, obs); err != nil {
			t.Errorf("NewVisit(%q): %v", s, err)
		}
		if obs.Day != 1 || obs.Frame.Step != 0 || env.Over() {
			t.Errorf("NewVisit(%q) starts at day %d step %d (over: %v), want day 1 step 0", s, obs.Day, obs.Frame.Step, env.Over())
		}
	})
}

// FuzzStep reads script as one action per line and sends it to a visit of
// the mini suite chosen by which. Lines that ParseAction rejects must be
// refused by Step as well, changing nothing; the others must be taken
// until the visit ends, and then refused with ErrVisitOver.
func FuzzStep(f *testing.F) {
	f.Add(uint8(0), "north\nnorth\nwest\npick\ndrop\nuse\nbow")
	f.Add(uint8(3), "give mara\nGIVE\nfly\n\nw\ns\ne\nn\ngive  x y\n  wait  ")
	f.Add(uint8(7), strings.Repeat("n\n", 20)+strings.Repeat("e\n", 20)+"pick\n"+strings.Repeat("s\n", 10))
	f.Add(uint8(59), strings.Repeat("wait\n", sim.PracticeSteps+sim.TestSteps+3))
	f.Add(uint8(41), "bow\x00\nnorth\r\nsouth\t\n\xff")
	mini, err := sim.LookupSuite("mini")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, which uint8, script string) {
		id := mini.Visits[int(which)%len(mini.Visits)]
		v, err := sim.ParseVisitID(id)
		if err != nil {
			t.Fatal(err)
		}
		env, obs, err := sim.NewVisit(id)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(script, "\n")
		if len(lines) > 2*sim.MaxActions {
			lines = lines[:2*sim.MaxActions]
		}
		for k, line := range lines {
			a, perr := sim.ParseAction(line)
			if perr != nil {
				n, h := len(env.Actions()), env.Hash()
				if _, err := env.Step(sim.Action{Verb: line}); err == nil {
					t.Fatalf("line %d: Step(%q) succeeded, but ParseAction rejects it: %v", k+1, line, perr)
				}
				if len(env.Actions()) != n || env.Hash() != h {
					t.Fatalf("line %d: a refused Step(%q) changed the env", k+1, line)
				}
				continue
			}
			over := env.Over()
			res, err := env.Step(a)
			if over {
				if !errors.Is(err, sim.ErrVisitOver) {
					t.Fatalf("line %d: Step(%q) after the end = %v, want ErrVisitOver", k+1, a, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("line %d: Step(%q) = %v, want no error for a parsed action", k+1, a, err)
			}
			if err := simtest.CheckObservation(v, res.Observation); err != nil {
				t.Fatalf("line %d: Step(%q): %v", k+1, a, err)
			}
			obs = res.Observation
			_ = obs.Text()
			mustJSON(t, obs)
		}
	})
}

func TestParseAction(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  sim.Action
	}{
		{name: "move", input: "north", want: sim.Action{Verb: sim.North}},
		{name: "abbreviation", input: "w", want: sim.Action{Verb: sim.West}},
		{name: "upper case", input: "BOW", want: sim.Action{Verb: sim.Bow}},
		{name: "space around", input: "  pick\n", want: sim.Action{Verb: sim.Pick}},
		{name: "give", input: "give pip", want: sim.Action{Verb: sim.Give, Target: "pip"}},
		{name: "give, loosely written", input: " Give \t Mara ", want: sim.Action{Verb: sim.Give, Target: "mara"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := sim.ParseAction(tc.input)
			if err != nil {
				t.Fatalf("ParseAction(%q): %v", tc.input, err)
			}
			if want := tc.want; got != want {
				t.Errorf("ParseAction(%q) = %#v, want %#v", tc.input, got, want)
			}
		})
	}
}

func TestParseActionErrors(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  string // in the error
	}{
		{name: "empty", input: "", want: "empty action"},
		{name: "blank", input: " \t ", want: "empty action"},
		{name: "unknown verb", input: "fly", want: `unknown action "fly"`},
		{name: "unknown verb lists the verbs", input: "jump", want: "north, south, east, west, wait, pick, drop, use, bow, give"},
		{name: "long unknown verb is clipped", input: strings.Repeat("z", 60), want: strings.Repeat("z", 40) + "…"},
		{name: "give without target", input: "give", want: "give needs one agent"},
		{name: "give with two targets", input: "give mara pip", want: "give needs one agent"},
		{name: "move with an argument", input: "north 3", want: `"north" takes no argument`},
		{name: "abbreviation with an argument", input: "n now", want: `"north" takes no argument`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := sim.ParseAction(tc.input)
			if err == nil {
				t.Fatalf("ParseAction(%q) succeeded, want an error containing %q", tc.input, tc.want)
			}
			if got, want := err.Error(), tc.want; !strings.Contains(got, want) || !errors.Is(err, sim.ErrAction) {
				t.Errorf("ParseAction(%q) error = %q, want one wrapping ErrAction and containing %q", tc.input, got, want)
			}
		})
	}
}

func TestParseVisitIDErrors(t *testing.T) {
	const ok = "orchard/place.color=blue/observe/s17"
	tests := []struct {
		name  string
		input string
		want  string // in the error
	}{
		{name: "empty", input: "", want: "want world/norm/condition/sN"},
		{name: "three parts", input: "orchard/observe/s17", want: "want world/norm/condition/sN"},
		{name: "trailing slash", input: ok + "/", want: "want world/norm/condition/sN"},
		{name: "leading slash", input: "/" + ok, want: "want world/norm/condition/sN"},
		{name: "double slash", input: "orchard//place.color=blue/observe/s17", want: "want world/norm/condition/sN"},
		{name: "unknown world", input: "atlantis/place.color=blue/observe/s17", want: `unknown world "atlantis"`},
		{name: "world in upper case", input: "Orchard/place.color=blue/observe/s17", want: `unknown world "Orchard"`},
		{name: "unknown norm", input: "orchard/place.color=purple/observe/s17", want: `unknown norm "place.color=purple"`},
		{name: "malformed norm", input: "orchard/blue/observe/s17", want: `unknown norm "blue"`},
		{name: "unknown condition", input: "orchard/place.color=blue/watch/s17", want: `unknown condition "watch"`},
		{name: "control with a norm", input: "orchard/place.color=blue/control/s17", want: "control visits have no norm"},
		{name: "none outside control", input: "orchard/none/observe/s17", want: "only control visits have no norm"},
		{name: "leading zero", input: "orchard/place.color=blue/observe/s01", want: "no leading zeros"},
		{name: "negative seed", input: "orchard/place.color=blue/observe/s-1", want: "the seed must be s0 to s18446744073709551615"},
		{name: "seed without s", input: "orchard/place.color=blue/observe/17", want: "the seed must read sN"},
		{name: "bare s", input: "orchard/place.color=blue/observe/s", want: "the seed must read sN"},
		{name: "seed with a sign", input: "orchard/place.color=blue/observe/s+1", want: "the seed must be s0 to"},
		{name: "seed too big", input: "orchard/place.color=blue/observe/s18446744073709551616", want: "the seed must be s0 to s18446744073709551615"},
		{name: "seed with a space", input: ok + " ", want: "the seed must be s0 to"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := sim.ParseVisitID(tc.input)
			if err == nil {
				t.Fatalf("ParseVisitID(%q) succeeded, want an error containing %q", tc.input, tc.want)
			}
			if got, want := err.Error(), tc.want; !strings.Contains(got, want) {
				t.Errorf("ParseVisitID(%q) error = %q, want it to contain %q", tc.input, got, want)
			}
			if !errors.Is(err, sim.ErrVisitID) {
				t.Errorf("ParseVisitID(%q) error = %q, want one wrapping ErrVisitID", tc.input, err)
			}
			env, obs, err := sim.NewVisit(tc.input)
			if err == nil || env != nil || obs != nil {
				t.Errorf("NewVisit(%q) = %v, %v, %v, want only an error", tc.input, env, obs, err)
			} else if got, want := err.Error(), tc.want; !strings.Contains(got, want) || !errors.Is(err, sim.ErrVisitID) {
				t.Errorf("NewVisit(%q) error = %q, want one wrapping ErrVisitID and containing %q", tc.input, got, want)
			}
			if _, err := agents.Play(tc.input, "greedy"); err == nil {
				t.Errorf("agents.Play(%q, greedy) succeeded, want an error", tc.input)
			}
		})
	}
}

// TestStepErrors: Step refuses actions that do not parse, and changes nothing.
func TestStepErrors(t *testing.T) {
	tests := []struct {
		name string
		a    sim.Action
		want string // in the error
	}{
		{name: "zero action", a: sim.Action{}, want: "empty action"},
		{name: "give without target", a: sim.Action{Verb: sim.Give}, want: "give needs one agent"},
		{name: "give with two targets", a: sim.Action{Verb: sim.Give, Target: "mara pip"}, want: "give needs one agent"},
		{name: "unknown verb", a: sim.Action{Verb: "fly"}, want: `unknown action "fly"`},
		{name: "verb with an argument", a: sim.Action{Verb: "north south"}, want: `"north" takes no argument`},
		{name: "blank verb", a: sim.Action{Verb: "  "}, want: "empty action"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, obs, err := sim.NewVisit("orchard/place.color=blue/observe/s17")
			if err != nil {
				t.Fatal(err)
			}
			before, hash := mustJSON(t, obs), env.Hash()
			_, err = env.Step(tc.a)
			if err == nil {
				t.Fatalf("Step(%#v) succeeded, want an error containing %q", tc.a, tc.want)
			}
			if got, want := err.Error(), tc.want; !strings.Contains(got, want) || !errors.Is(err, sim.ErrAction) {
				t.Errorf("Step(%#v) error = %q, want one wrapping ErrAction and containing %q", tc.a, got, want)
			}
			if errors.Is(err, sim.ErrVisitOver) {
				t.Errorf("Step(%#v) error is ErrVisitOver", tc.a)
			}
			if got := mustJSON(t, env.Observe()); string(got) != string(before) || env.Hash() != hash || len(env.Actions()) != 0 {
				t.Errorf("a refused Step(%#v) changed the env", tc.a)
			}
		})
	}
}
