package prompt

import (
	"context"
	"errors"
	"fmt"

	"github.com/normgym/normgym/sim"
)

// Settings say how a visit is played and what its record says of the
// model.
type Settings struct {
	Variant Variant
	Options Options
	// Model is the requests' model and the record's agent.
	Model string
	// Endpoint is the endpoint's host[:port] (extra.endpoint).
	Endpoint string
	// Temperature (nil: not sent) and MaxTokens (0: not sent) go into
	// every request.
	Temperature *float64
	MaxTokens   int
	// RunID and App go into extra as they are (see Extra).
	RunID, App string
}

// Exchange is one request of a visit and what became of it, as Run hands
// it to its observer.
type Exchange struct {
	Kind Kind
	// Day and Step say where the visit stood when the request was asked.
	Day, Step int
	// Prompt is the request's new user turn.
	Prompt string
	Reply  Reply
	// Action is what a step request sent to the sim ("wait" after a
	// format error); "answer k" (1-based) for a probe answered.
	Action      string
	FormatError bool
	// Turn is the sim's answer to a step request's action.
	Turn sim.Turn
}

// Run plays visit in env with chat as the newcomer, under the protocol
// of PROMPTS.md: one request per step with the turn's text as the new
// user turn (Conversation keeps the history); a reply without a valid
// ACTION line plays wait; under Reflect, after each practice day, a notes
// request whose reply ends the day; after the visit the probe (none under
// control), whose answer is given to env when it parses. observe, if not
// nil, sees each request once it is applied. It returns env's record
// (agent s.Model, client "model") with Extra set, and the extra itself.
//
// Run is the one model loop: `normgym eval` and the browser's model mode
// both call it, over their own Env and Chat. It does no I/O of its own.
// An error of chat or env ends it.
func Run(ctx context.Context, env sim.Env, visit string, s Settings, chat Chat, observe func(Exchange)) (sim.Record, Extra, error) {
	turn, err := env.Reset(ctx, visit)
	if err != nil {
		return sim.Record{}, Extra{}, err
	}
	p := newPlayer(ctx, s, chat)
	if observe != nil {
		p.observe = observe
	}
	for !turn.Over {
		if turn, err = p.step(env, turn); err != nil {
			return sim.Record{}, Extra{}, err
		}
	}
	if err := p.probe(env, turn); err != nil {
		return sim.Record{}, Extra{}, err
	}
	rec, err := env.Record(ctx, s.Model, "model")
	if err != nil {
		return sim.Record{}, Extra{}, err
	}
	p.x.Notes, p.x.History = p.conv.Notes(), p.conv.History()
	if rec.Extra, err = p.x.Map(); err != nil {
		return sim.Record{}, Extra{}, err
	}
	return rec, p.x, nil
}

// player is one Run in progress.
type player struct {
	ctx     context.Context
	s       Settings
	chat    Chat
	conv    *Conversation
	x       Extra
	prev    []byte // the visit's previous request body
	observe func(Exchange)
}

func newPlayer(ctx context.Context, s Settings, chat Chat) *player {
	x := Extra{Model: s.Model, Endpoint: s.Endpoint, Prompt: string(s.Variant), PromptVersion: PromptVersion,
		Sampling: Sampling{Temperature: s.Temperature, MaxTokens: s.MaxTokens}, RunID: s.RunID, App: s.App,
		StepLog: make([]StepLog, 0, sim.PracticeSteps+sim.TestSteps+2)}
	return &player{ctx: ctx, s: s, chat: chat, conv: NewConversation(s.Variant, s.Options), x: x, observe: func(Exchange) {}}
}

// ask sends the user turn with the conversation so far and keeps the
// reply.
func (p *player) ask(kind Kind, user string) (Reply, error) {
	req := Request{Kind: kind, Model: p.s.Model, Messages: p.conv.Ask(user), Temperature: p.s.Temperature, MaxTokens: p.s.MaxTokens}
	body, err := req.Body()
	if err != nil {
		return Reply{}, err
	}
	r, err := p.chat(p.ctx, req)
	if err != nil {
		return Reply{}, err
	}
	p.conv.Reply(r.Content)
	p.x.add(kind, r, len(body), len(body)-commonPrefix(p.prev, body))
	p.prev = body
	return r, nil
}

// step asks for the action at turn t, plays it and, under Reflect, asks
// for notes when a practice day ends.
func (p *player) step(env sim.Env, t sim.Turn) (sim.Turn, error) {
	r, err := p.ask(AskStep, t.Text)
	if err != nil {
		return t, fmt.Errorf("day %d step %d: %w", t.Day, t.Step, err)
	}
	ex := Exchange{Kind: AskStep, Day: t.Day, Step: t.Step, Prompt: t.Text, Reply: r}
	a, perr := ExtractAction(r.Content)
	if perr != nil {
		a = sim.Action{Verb: sim.Wait}
		p.x.formatError(r.Content)
		ex.FormatError = true
	}
	ex.Action = a.String()
	next, err := env.Step(p.ctx, ex.Action)
	if err != nil {
		return t, err
	}
	ex.Turn = next
	p.observe(ex)
	if next.DayOver && !next.Over && p.s.Variant == Reflect {
		user := NotesPrompt(t.Day, sim.Days, next.Events)
		notes, err := p.ask(AskNotes, user)
		if err != nil {
			return t, fmt.Errorf("notes after day %d: %w", t.Day, err)
		}
		p.conv.EndDay(notes.Content)
		p.observe(Exchange{Kind: AskNotes, Day: t.Day, Step: t.Step + 1, Prompt: user, Reply: notes})
	}
	return next, nil
}

// probe asks the probe after the last turn t, unless the visit has none,
// and gives env the answer when it parses.
func (p *player) probe(env sim.Env, t sim.Turn) error {
	pr, err := env.Probe(p.ctx)
	if errors.Is(err, sim.ErrNoProbe) {
		return nil
	} else if err != nil {
		return err
	}
	user := ProbePrompt(t.Text, pr)
	r, err := p.ask(AskProbe, user)
	if err != nil {
		return fmt.Errorf("probe: %w", err)
	}
	ex := Exchange{Kind: AskProbe, Day: t.Day, Step: t.Step, Prompt: user, Reply: r}
	k, perr := ExtractAnswer(r.Content, len(pr.Options))
	if perr != nil {
		p.x.ProbeFormatError = true
		p.x.StepLog[len(p.x.StepLog)-1].FormatError = true
		ex.FormatError = true
	} else {
		if _, err := env.Answer(p.ctx, k, nil); err != nil {
			return err
		}
		ex.Action = fmt.Sprint("answer ", k+1)
	}
	p.observe(ex)
	return nil
}
