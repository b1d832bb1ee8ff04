package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"

	"github.com/normgym/normgym/serve/internal/workers"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
	"github.com/normgym/normgym/sim/prompt"
)

// demo is one line of demos' output: a whole visit as one conversation.
type demo struct {
	Messages []prompt.Message `json:"messages"`
}

func cmdDemos(e *env) error {
	fs := e.flags("demos", "--agent A --suite S [--out F.jsonl] [--prompt V]",
		"Writes a baseline's visits as chat-format JSON Lines for fine-tuning: one line per visit, in suite\n"+
			"order, {\"messages\": [...]} with the system prompt a model gets under --prompt, then each step's\n"+
			"observation text (the user turn) and \"ACTION: <action>\" (the assistant turn), and at the end the\n"+
			"probe and \"ANSWER: <k>\". Visits run in the native Go core. A demo keeps every observation whole,\n"+
			"so that each action is trained with the view it was chosen on; eval sends past steps as their recaps\n"+
			"(see sim/prompt/PROMPTS.md).\n"+
			"Agents: "+strings.Join(agents.Names(), ", ")+" (observer and oracle are the useful teachers).")
	agent := fs.String("agent", "observer", "baseline whose visits to write")
	sel := addVisitFlags(fs, "train", "write")
	out := fs.String("out", defaultDemosOut, "write to this file, creating its folder (\"-\": standard output)")
	variantName := fs.String("prompt", string(prompt.Plain), "prompt variant: plain or norm-aware (reflect needs the model's own notes)")
	parallel := fs.Int("parallel", runtime.GOMAXPROCS(0), "visits run at once")
	pos, err := e.parse(fs)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError("demos takes no arguments, got %q", pos[0])
	}
	if _, err := agentNames(*agent); err != nil || strings.Contains(*agent, ",") || *agent == "all" {
		return usageError("demos needs one baseline, one of %s", strings.Join(agents.Names(), ", "))
	}
	variant, err := prompt.ParseVariant(*variantName)
	if err != nil {
		return usageError("%v", err)
	}
	if variant == prompt.Reflect {
		return usageError("demos cannot use the reflect prompt: its notes are the model's own (use plain or norm-aware)")
	}
	if *parallel < 1 {
		return usageError("--parallel must be at least 1")
	}
	_, visits, err := sel.resolve()
	if err != nil {
		return err
	}
	w := e.stdout
	if *out != "-" {
		f, err := createOut(*out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriter(w)
	n, err := writeDemos(e.ctx, bw, visits, *agent, variant, *parallel)
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return err
	}
	if *out != "-" {
		fmt.Fprintf(e.stderr, "normgym: wrote %d conversations (%s, %s prompt) to %s\n", n, *agent, variant, *out)
	}
	return nil
}

// writeDemos plays visits on parallel workers and writes their demos in
// the order of visits.
func writeDemos(ctx context.Context, w io.Writer, visits []string, agent string, v prompt.Variant, parallel int) (int, error) {
	lines := make([][]byte, len(visits))
	ready := make([]bool, len(visits))
	var (
		mu   sync.Mutex
		next int
	)
	err := workers.ForEach(ctx, len(visits), parallel, func(ctx context.Context, i int) error {
		msgs, err := demoConversation(ctx, visits[i], agent, v)
		var b []byte
		if err == nil {
			b, err = json.Marshal(demo{msgs})
		}
		if err != nil {
			return fmt.Errorf("%s: %w", visits[i], err)
		}
		mu.Lock()
		defer mu.Unlock()
		lines[i], ready[i] = append(b, '\n'), true
		for next < len(visits) && ready[next] && ctx.Err() == nil {
			if _, err := w.Write(lines[next]); err != nil {
				return err
			}
			lines[next] = nil
			next++
		}
		return nil
	})
	if err != nil {
		return next, err
	}
	return next, ctx.Err()
}

// demoConversation plays a visit with a baseline (exactly as agents.Play
// does) and returns it as a training conversation: the system prompt of v,
// each observation text whole and "ACTION: <action>", then the probe and
// "ANSWER: <k>". Unlike eval's requests (prompt.Conversation), past turns
// keep their view, so that each action is trained with the view it was
// chosen on.
func demoConversation(ctx context.Context, visit, agent string, v prompt.Variant) ([]prompt.Message, error) {
	env := new(sim.Native)
	t, err := env.Reset(ctx, visit)
	if err != nil {
		return nil, err
	}
	p, err := agents.ForEnv(agent, env.Visit())
	if err != nil {
		return nil, err
	}
	ms := []prompt.Message{{Role: "system", Content: prompt.SystemPrompt(v, nil)}}
	turn := func(user, reply string) {
		ms = append(ms, prompt.Message{Role: "user", Content: user}, prompt.Message{Role: "assistant", Content: reply})
	}
	for !t.Over {
		obs, err := env.Observe(ctx)
		if err != nil {
			return nil, err
		}
		a := p.Act(obs)
		next, err := env.Step(ctx, a.String())
		if err != nil {
			return nil, err
		}
		turn(t.Text, "ACTION: "+a.String())
		t = next
	}
	if pr, err := env.Probe(ctx); err == nil {
		turn(prompt.ProbePrompt(t.Text, pr), fmt.Sprintf("ANSWER: %d", p.Answer(pr)+1))
	} else if !errors.Is(err, sim.ErrNoProbe) {
		return nil, err
	}
	return ms, nil
}
