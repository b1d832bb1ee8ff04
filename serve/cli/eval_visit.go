package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/normgym/normgym/serve/llm"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/prompt"
)

// evaluator plays visits with a model.
type evaluator struct {
	client      *llm.Client
	steps       stepEngine
	model       string
	variant     prompt.Variant
	opt         prompt.Options
	temperature *float64
	maxTokens   int
	suite       sim.Suite
}

// runVisits plays visits on parallel workers and hands each finished
// record to emit (called from the workers, one at a time per worker). The
// first error stops the others; visits in flight are then lost, not
// emitted. It returns how many records were emitted.
func (ev *evaluator) runVisits(ctx context.Context, visits []string, parallel int, emit func(sim.Record) error) (int, error) {
	var (
		mu sync.Mutex
		n  int
	)
	err := forEach(ctx, len(visits), parallel, func(ctx context.Context, i int) error {
		r, err := ev.runVisit(ctx, visits[i])
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

// runVisit plays one visit: one request per step with the observation
// text as the user turn, notes at the end of each practice day under
// reflect, and the probe at the end.
func (ev *evaluator) runVisit(ctx context.Context, id string) (sim.Record, error) {
	v, obs, text, err := ev.steps.start(ctx, id)
	if err != nil {
		return sim.Record{}, err
	}
	defer v.close()
	conv := prompt.NewConversation(ev.variant, ev.opt)
	x := &evalExtra{Model: ev.model, Endpoint: ev.client.Host(), Prompt: string(ev.variant), PromptVersion: prompt.PromptVersion}
	x.Sampling.Temperature, x.Sampling.MaxTokens = ev.temperature, ev.maxTokens
	x.StepLog = make([]stepLog, 0, sim.PracticeSteps+sim.TestSteps+2)
	var prev []byte // the visit's previous request body
	ask := func(kind, user string) (string, error) {
		req := llm.Request{Model: ev.model, Messages: conv.Ask(user), Temperature: ev.temperature, MaxTokens: ev.maxTokens}
		body, err := req.Body()
		if err != nil {
			return "", err
		}
		r, err := ev.client.Chat(ctx, req)
		if err != nil {
			return "", err
		}
		conv.Reply(r.Content)
		x.add(kind, r, len(body), len(body)-commonPrefix(prev, body))
		prev = body
		return r.Content, nil
	}
	day, step, done, days := obs.Day, obs.Frame.Step, obs.Done, obs.Days
	for !done {
		reply, err := ask("", text)
		if err != nil {
			return sim.Record{}, fmt.Errorf("day %d step %d: %w", day, step, err)
		}
		a, perr := prompt.ExtractAction(reply)
		if perr != nil {
			a = sim.Action{Verb: sim.Wait}
			x.formatError(reply)
		}
		res, err := v.step(ctx, a.String())
		if err != nil {
			return sim.Record{}, err
		}
		if res.dayOver && !res.done && ev.variant == prompt.Reflect {
			notes, err := ask("notes", prompt.NotesPrompt(day, days, res.events))
			if err != nil {
				return sim.Record{}, fmt.Errorf("notes after day %d: %w", day, err)
			}
			conv.EndDay(notes)
		}
		text, day, step, done = res.text, res.day, res.step, res.done
	}
	p, err := v.probe(ctx)
	if err != nil {
		return sim.Record{}, err
	}
	if p != nil {
		reply, err := ask("probe", prompt.ProbePrompt(text, p))
		if err != nil {
			return sim.Record{}, fmt.Errorf("probe: %w", err)
		}
		if k, perr := prompt.ExtractAnswer(reply, len(p.Options)); perr != nil {
			x.ProbeFormatError = true
			x.StepLog[len(x.StepLog)-1].FormatError = true
		} else if err := v.answer(ctx, k); err != nil {
			return sim.Record{}, err
		}
	}
	rec, err := v.record(ctx, ev.model)
	if err != nil {
		return sim.Record{}, err
	}
	rec.Suite, rec.SuiteVersion = ev.suite.Name, ev.suite.Version
	x.Notes, x.History = conv.Notes(), conv.History()
	x.RunID = newRunID()
	if rec.Extra, err = toMap(x); err != nil {
		return sim.Record{}, err
	}
	return rec, nil
}

// commonPrefix returns the length of the longest common prefix of a and b.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// newRunID returns a random submission id (see api.Submission).
func newRunID() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func toMap(v any) (map[string]any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	return m, json.Unmarshal(b, &m)
}
