package prompt

import (
	"github.com/normgym/normgym/sim"
)

// Kind says what a request asks the model for.
type Kind string

// The kinds of request.
const (
	// AskStep asks for the step's action (ExtractAction).
	AskStep Kind = "step"
	// AskNotes asks for notes at the end of a practice day (Reflect).
	AskNotes Kind = "notes"
	// AskProbe asks the probe's answer (ExtractAnswer).
	AskProbe Kind = "probe"
)

// Model answers a request: kind says what it asks for, messages are what
// is sent. It returns the reply's text.
type Model func(kind Kind, messages []Message) string

// Play plays visit id in the native sim with model as the newcomer,
// exactly as the harnesses do (PROMPTS.md): one request per step with the
// observation's text as the new user turn; a reply without a valid ACTION
// line plays wait; under Reflect, after each practice day, a notes
// request whose reply ends the day; after the visit, the probe (not under
// control), whose answer is given to the sim when it parses. It returns
// the finished environment and the conversation. It is the reference that
// `normgym eval` and the browser's model mode are tested against, and
// what the cost estimator replays baselines through.
func Play(id string, v Variant, opt Options, model Model) (*sim.Visit, *Conversation, error) {
	env, obs, err := sim.NewVisit(id)
	if err != nil {
		return nil, nil, err
	}
	conv := NewConversation(v, opt)
	for !env.Over() {
		reply := model(AskStep, conv.Ask(obs.Text()))
		conv.Reply(reply)
		a, err := ExtractAction(reply)
		if err != nil {
			a = sim.Action{Verb: sim.Wait}
		}
		res, err := env.Step(a)
		if err != nil {
			return nil, nil, err
		}
		if res.DayOver && !res.Done() && v == Reflect {
			notes := model(AskNotes, conv.Ask(NotesPrompt(obs.Day, obs.Days, res.Events)))
			conv.Reply(notes)
			conv.EndDay(notes)
		}
		obs = res.Observation
	}
	if p := env.Probe(); p != nil {
		reply := model(AskProbe, conv.Ask(ProbePrompt(obs.Text(), p)))
		conv.Reply(reply)
		if k, err := ExtractAnswer(reply, len(p.Options)); err == nil {
			if _, err := env.Answer(k); err != nil {
				return nil, nil, err
			}
		}
	}
	return env, conv, nil
}
