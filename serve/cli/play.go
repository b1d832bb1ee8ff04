package cli

import (
	"bufio"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
)

func cmdShow(e *env) error {
	fs := e.flags("show", "VISIT [--json]", "Prints the text observation at a visit's start: exactly what a model sees.")
	asJSON := fs.Bool("json", false, "print the structured observation as JSON instead")
	pos, err := e.parse(fs)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError("show needs one visit id, as in orchard/place.color=blue/observe/s17")
	}
	env := new(sim.Native)
	turn, err := env.Reset(e.ctx, pos[0])
	if err != nil {
		return usageError("%v", err)
	}
	if *asJSON {
		obs, err := env.Observe(e.ctx)
		if err != nil {
			return err
		}
		return writeJSON(e.stdout, obs)
	}
	_, err = fmt.Fprint(e.stdout, turn.Text)
	return err
}

// keyActions maps shortcuts (and arrow-key escape sequences, which a
// terminal sends before Enter in line mode) to actions.
var keyActions = map[string]string{
	"\x1b[a": sim.North, "\x1b[b": sim.South, "\x1b[c": sim.East, "\x1b[d": sim.West,
	"k": sim.North, "j": sim.South, "l": sim.East, "h": sim.West,
	"": sim.Wait, ".": sim.Wait, "p": sim.Pick, "d": sim.Drop, "u": sim.Use, "b": sim.Bow,
}

func cmdPlay(e *env) error {
	fs := e.flags("play", "VISIT",
		"Plays a visit in the terminal as the newcomer. Type an action and Enter: north south east west\n"+
			"(or n s e w, h j k l, or an arrow key then Enter), wait (or just Enter), pick (p), drop (d),\n"+
			"use (u), bow (b), give NAME; quit to stop. The visit ends with the probe question and the score.")
	pos, err := e.parse(fs)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError("play needs one visit id, as in orchard/place.color=blue/observe/s17")
	}
	env := &sim.Native{SimSHA256: "native"}
	turn, err := env.Reset(e.ctx, pos[0])
	if err != nil {
		return usageError("%v", err)
	}
	in := bufio.NewScanner(e.stdin)
	fmt.Fprint(e.stdout, turn.Text)
	for n := 0; !turn.Over; {
		fmt.Fprint(e.stdout, "> ")
		if !in.Scan() {
			return fmt.Errorf("input ended before the visit did (%d actions taken)", n)
		}
		line := strings.ToLower(strings.TrimSpace(in.Text()))
		if line == "quit" || line == "q" {
			return fmt.Errorf("stopped after %d actions", n)
		}
		if a, ok := keyActions[line]; ok {
			line = a
		}
		next, err := env.Step(e.ctx, line)
		if errors.Is(err, sim.ErrAction) {
			fmt.Fprintln(e.stdout, strings.TrimPrefix(err.Error(), "sim: "))
			continue
		} else if err != nil {
			return err
		}
		n++
		if next.DayOver && !next.Over {
			fmt.Fprintln(e.stdout, "\n=== The practice day is over. The test day begins. ===")
		}
		fmt.Fprint(e.stdout, "\n", next.Text)
		turn = next
	}
	if err := askProbe(e, env, in); err != nil {
		return err
	}
	return playResult(e, env)
}

// askProbe asks the player the probe, unless the visit has none, and
// answers it with their choice.
func askProbe(e *env, env sim.Env, in *bufio.Scanner) error {
	p, err := env.Probe(e.ctx)
	if errors.Is(err, sim.ErrNoProbe) {
		return nil
	} else if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "\n%s\n", p.Question)
	for k, o := range p.Options {
		fmt.Fprintf(e.stdout, "  %d) %s\n", k+1, o)
	}
	for {
		fmt.Fprint(e.stdout, "Your answer (1-4): ")
		if !in.Scan() {
			return nil
		}
		k, err := strconv.Atoi(strings.TrimSpace(in.Text()))
		if err == nil && k >= 1 && k <= len(p.Options) {
			_, err := env.Answer(e.ctx, k-1, nil)
			return err
		}
	}
}

// playResult prints the finished visit's scores, its rule and hash.
func playResult(e *env, env sim.Env) error {
	r, err := env.Record(e.ctx, "human", "human")
	if err != nil {
		return err
	}
	s := r.Scores
	fmt.Fprintf(e.stdout, "\nTask done: %v · no violations on the test day: %v · joint success: %v\n", s.Task, s.Compliance, s.Joint)
	fmt.Fprintf(e.stdout, "Violations per day: %v · sanctions received: %d\n", s.Violations, s.SanctionsReceived)
	if n, err := norms.Default().Lookup(r.Norm); err == nil {
		fmt.Fprintf(e.stdout, "The rule was: %s\n", n.Statement)
	}
	if r.Probe != nil {
		fmt.Fprintf(e.stdout, "Your probe answer was %s.\n", map[bool]string{true: "right", false: "wrong"}[r.Probe.Correct])
	}
	fmt.Fprintf(e.stdout, "Trajectory hash: %s\n", r.Hash)
	return nil
}
