//go:build !js

package wasmtest

import (
	"context"
	"fmt"
	"testing"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
	"github.com/normgym/normgym/sim/prompt"
)

// ModelRun plays visit as `normgym eval` plays a model (prompt.Run, the
// native core), with a scripted model that takes the greedy baseline's
// actions, numbering its replies ("Reply 7: …") and sending reasoning
// beside them, and returns the record, its transcript and the new user
// turn of each request as the loop sent it. The greedy baseline is
// sanctioned on most non-control visits: a run to look at.
func ModelRun(tb testing.TB, visit string) (sim.Record, prompt.Transcript, []string) {
	tb.Helper()
	ctx := context.Background()
	env := &sim.Native{SimSHA256: "native"}
	var pol agents.Policy
	n := 0
	chat := func(ctx context.Context, req prompt.Request) (prompt.Reply, error) {
		n++
		if pol == nil {
			pol, _ = agents.ForEnv("greedy", env.Visit())
		}
		r := prompt.Reply{Reasoning: fmt.Sprintf("Thinking about request %d.", n), Attempts: 1,
			Usage: prompt.Usage{PromptTokens: prompt.Chars(req.Messages) / 4, CompletionTokens: 9}}
		switch req.Kind {
		case prompt.AskProbe:
			p, err := env.Probe(ctx)
			if err != nil {
				return r, err
			}
			r.Content = fmt.Sprintf("Reply %d: the rule, I think.\nANSWER: %d", n, pol.Answer(p)+1)
		default:
			o, err := env.Observe(ctx)
			if err != nil {
				return r, err
			}
			r.Content = fmt.Sprintf("Reply %d: on with the errand.\nACTION: %s", n, pol.Act(o))
		}
		return r, nil
	}
	s := prompt.Settings{Variant: prompt.Plain, Options: prompt.DefaultOptions(), Model: "scripted", RunID: fmt.Sprintf("run-%s", visit)}
	tr := prompt.Transcript{Visit: visit, Model: "scripted", RunID: s.RunID}
	var prompts []string
	rec, _, err := prompt.Run(ctx, env, visit, s, chat, func(ex prompt.Exchange) {
		tr.Add(ex, false)
		prompts = append(prompts, ex.Prompt)
	})
	if err != nil {
		tb.Fatal(err)
	}
	tr.Agent = rec.Agent
	return rec, tr, prompts
}

// SanctionedVisit returns the first visit of suite on whose practice day
// the greedy baseline is sanctioned.
func SanctionedVisit(tb testing.TB, suite string) string {
	tb.Helper()
	su, err := sim.LookupSuite(suite)
	if err != nil {
		tb.Fatal(err)
	}
	for _, v := range su.Visits {
		e, err := agents.Play(v, "greedy")
		if err != nil {
			tb.Fatal(err)
		}
		if e.Record("greedy", "baseline").Scores.SanctionsReceived > 0 {
			return v
		}
	}
	tb.Fatalf("no visit of %s where greedy is sanctioned", suite)
	return ""
}
