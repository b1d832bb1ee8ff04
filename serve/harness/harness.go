// Package harness is NormGym's model harness: it plays a suite's visits
// with a language model, many at once, under the model loop of sim/prompt
// (prompt.Run, the one loop the browser's model mode runs too), over any
// sim.Env (sim.wasm under wazero, or the native core) and any chat
// function (serve/llm's client). It also keeps a run's results file
// resumable (Settings, LoadResults), sums a run up (Summarize) and
// estimates one's cost without sending anything (EstimateRun). The
// `normgym eval` command (serve/cli) is its flags and its printing.
package harness

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"

	"github.com/normgym/normgym/serve/internal/workers"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/prompt"
)

// Harness plays visits with one model.
type Harness struct {
	// Chat sends a request to the model (llm.Client.Chat), retrying as it
	// will.
	Chat prompt.Chat
	// Endpoint is the endpoint's host[:port] (extra.endpoint).
	Endpoint string
	// Model is the model's name: sent with every request and the
	// records' agent.
	Model string
	// Settings are the run's prompt, history and sampling settings.
	Settings Settings
	// Suite names the suite the visits come from (the records' suite).
	Suite sim.Suite
	// NewEnv returns an Env for one visit at a time (the engine's).
	NewEnv func() sim.Env
}

// Played is a visit played: its record and its transcript (every reply as
// returned).
type Played struct {
	Record     sim.Record
	Transcript prompt.Transcript
}

// Visits plays visits on parallel workers and hands each finished visit
// to emit (called from the workers, one at a time per worker). The first
// error stops the others; visits in flight are then lost, not emitted.
// It returns how many visits were emitted. A visit "" is the one the Env
// is assigned (a server's sealed session).
func (h *Harness) Visits(ctx context.Context, visits []string, parallel int, emit func(Played) error) (int, error) {
	var (
		mu sync.Mutex
		n  int
	)
	err := workers.ForEach(ctx, len(visits), parallel, func(ctx context.Context, i int) error {
		r, err := h.Play(ctx, visits[i])
		if err != nil {
			if ctx.Err() != nil {
				return nil // stopped: another visit failed, or the run was interrupted
			}
			return fmt.Errorf("%s: %w", visits[i], err)
		}
		if err := emit(r); err != nil {
			return err
		}
		mu.Lock()
		n++
		mu.Unlock()
		return nil
	})
	if err != nil {
		return n, err
	}
	return n, ctx.Err()
}

// Visit plays one visit (prompt.Run) in a new Env and returns its record,
// with the suite and a fresh run id.
func (h *Harness) Visit(ctx context.Context, id string) (sim.Record, error) {
	p, err := h.Play(ctx, id)
	return p.Record, err
}

// Play plays one visit as Visit does and returns its transcript too: each
// request's reply as returned, with its usage, latency, retries and the
// events of the step it made.
func (h *Harness) Play(ctx context.Context, id string) (Played, error) {
	env := h.NewEnv()
	defer env.Close()
	s := h.Settings.Prompt(h.Model, h.Endpoint)
	s.RunID = NewRunID()
	tr := prompt.Transcript{Visit: id, Model: h.Model, RunID: s.RunID}
	var prompts []string
	rec, _, err := prompt.Run(ctx, env, id, s, h.Chat, func(ex prompt.Exchange) {
		tr.Add(ex, false)
		prompts = append(prompts, ex.Prompt)
	})
	if err != nil {
		return Played{}, err
	}
	if rec.Suite == "" || rec.SuiteVersion == "" { // a server's record names its suite
		rec.Suite, rec.SuiteVersion = h.Suite.Name, h.Suite.Version
	}
	tr.Visit, tr.Agent = rec.Visit, rec.Agent
	if _, err := sim.ParseVisitID(rec.Visit); err != nil {
		// A visit the viewer cannot replay (a private suite's, whose id
		// the server keeps): the transcript keeps what the model was sent.
		for i := range tr.Steps {
			tr.Steps[i].Prompt = prompts[i]
		}
	}
	if r, ok := env.(interface{ ResumedAt() int }); ok && r.ResumedAt() > 0 {
		// A server resumed the session mid-visit: the model's
		// conversation began there, which the record must say.
		tr.ResumedAt = r.ResumedAt()
		rec.Extra[ResumedAtKey] = tr.ResumedAt
	}
	return Played{Record: rec, Transcript: tr}, nil
}

// ResumedAtKey is the record's extra key that holds how many actions a
// server's session had taken when the harness took it up (a key's sealed
// session left mid-visit by an interrupted run, which the server resumes
// rather than restarts): the model's conversation began there.
const ResumedAtKey = "resumed_at_action"

// NewRunID returns a random submission id (see api.Submission).
func NewRunID() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
