package chat

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/prompt"
	"github.com/normgym/normgym/web/internal/ui"
)

// Poster sends one HTTP POST and returns the status and body. err is for
// requests that got no HTTP answer at all (network, CORS, abort). In the
// browser it is fetch; in tests, net/http.
type Poster interface {
	Post(url string, header map[string]string, body []byte) (HTTPResponse, error)
}

// Config names the endpoint. APIKey is sent only to BaseURL, as a bearer
// token, and never written into records.
type Config struct {
	BaseURL string
	Model   string
	APIKey  string
}

// Endpoint is the chat-completions URL.
func (c Config) Endpoint() string {
	return strings.TrimRight(strings.TrimSpace(c.BaseURL), "/") + "/chat/completions"
}

// Host is the endpoint's host, recorded in extra.endpoint (as eval does).
func (c Config) Host() string {
	u := strings.TrimSpace(c.BaseURL)
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
	}
	if i := strings.IndexAny(u, "/?#"); i >= 0 {
		u = u[:i]
	}
	if i := strings.LastIndex(u, "@"); i >= 0 {
		u = u[i+1:]
	}
	return u
}

// Turn is one exchange of the transcript.
type Turn struct {
	// Kind is "step" or "probe".
	Kind   string
	Day    int
	Step   int
	Prompt string
	Reply  string
	// Action is what was sent to the sim ("wait" after a format error).
	Action      string
	FormatError bool
	Usage       Usage
	// Events are the step's events (to show sanctions in the transcript),
	// about Frame, the map after the step.
	Events []ui.Event
	Frame  *ui.Frame
}

// EndpointError is an answer from the endpoint that is not a usable
// completion. The run can resume: nothing was sent to the sim.
type EndpointError struct {
	// Status is the HTTP status, 0 when no answer came (network, CORS).
	Status  int
	Message string
	// RetryAfter is the answer's Retry-After header.
	RetryAfter string
}

func (e *EndpointError) Error() string {
	if e.Status == 0 {
		return "could not reach the endpoint: " + e.Message
	}
	return fmt.Sprintf("the endpoint answered %d: %s", e.Status, e.Message)
}

// Runner plays one visit with a model. Call Next until Done; after an
// error, calling Next again retries the same request.
type Runner struct {
	Play         *ui.Play
	Config       Config
	Turns        []Turn
	FormatErrors int
	Usage        Usage
	conv         *prompt.Conversation
	// pending is the request of a user turn asked but not yet answered
	// (an endpoint error): a retry sends it again unchanged.
	pending []Message
	// prev is the last request body answered (for Usage.UnsharedBytes).
	prev []byte
}

// NewRunner opens visit v for the model named in cfg.
func NewRunner(c *ui.Client, v ui.Resolved, cfg Config) (*Runner, error) {
	p, err := ui.NewPlay(c, v, cfg.Model, "model")
	if err != nil {
		return nil, err
	}
	p.Start()
	p.Begin()
	return &Runner{Play: p, Config: cfg, conv: prompt.NewConversation(Variant, Options())}, nil
}

// Done reports whether the visit is over and recorded.
func (r *Runner) Done() bool { return r.Play.Stage == ui.StageResult }

// Messages returns the request messages for the user turn user, under
// the history policy (prompt.Conversation): the system prompt, every
// earlier step cut back to its recap and reply, and user. Until the turn
// is answered, asking it again returns the same messages.
func (r *Runner) Messages(user string) []Message {
	if n := len(r.pending); n > 0 && r.pending[n-1].Content == user {
		return r.pending
	}
	r.pending = r.conv.Ask(user)
	return r.pending
}

// Next makes one request (a step, or the probe at the end) and applies
// its answer.
func (r *Runner) Next(p Poster) (Turn, error) {
	switch r.Play.Stage {
	case ui.StageConsent, ui.StageDay:
		r.Play.Start()
		r.Play.Begin()
	case ui.StageResult:
		return Turn{}, fmt.Errorf("chat: the visit is over")
	}
	if r.Play.Stage == ui.StageProbe {
		return r.probe(p)
	}
	o := r.Play.Obs()
	user := r.Play.Last.Text
	reply, usage, err := r.complete(p, user)
	if err != nil {
		return Turn{}, err
	}
	t := Turn{Kind: "step", Day: o.Day, Step: o.Frame.Step, Prompt: user, Reply: reply, Usage: usage}
	action := "wait"
	if a, err := prompt.ExtractAction(reply); err == nil {
		action = a.String()
	} else {
		t.FormatError = true
		r.FormatErrors++
	}
	t.Action = action
	resp, _, err := r.Play.Act(action)
	if err != nil {
		return t, err
	}
	t.Events = resp.Events
	if resp.Observation != nil {
		t.Frame = &resp.Observation.Frame
	}
	r.Turns = append(r.Turns, t)
	if r.Done() { // a control visit: no probe
		r.decorate()
	}
	return t, nil
}

func (r *Runner) probe(p Poster) (Turn, error) {
	pr := r.Play.Probe
	if pr == nil {
		return Turn{}, r.finish(-1)
	}
	user := prompt.ProbePrompt(r.Play.Last.Text, &sim.Probe{Question: pr.Question, Options: pr.Options})
	reply, usage, err := r.complete(p, user)
	if err != nil {
		return Turn{}, err
	}
	t := Turn{Kind: "probe", Prompt: user, Reply: reply, Usage: usage}
	k, err := prompt.ExtractAnswer(reply, len(pr.Options))
	if err != nil {
		t.FormatError = true
		r.FormatErrors++
		k = -1
	} else {
		t.Action = "answer " + fmt.Sprint(k+1)
	}
	r.Turns = append(r.Turns, t)
	return t, r.finish(k)
}

func (r *Runner) finish(k int) error {
	if err := r.Play.Finish(k, 0); err != nil {
		return err
	}
	r.decorate()
	return nil
}

// decorate adds the model run's details to the record.
func (r *Runner) decorate() {
	rec := r.Play.Record
	if rec.Probe != nil {
		rec.Probe.Confidence = nil // the model is not asked for one
	}
	rec.Extra = map[string]any{
		"model":          r.Config.Model,
		"endpoint":       r.Config.Host(),
		"prompt":         string(Variant),
		"prompt_version": prompt.PromptVersion,
		"history":        r.conv.History(),
		"format_errors":  r.FormatErrors,
		"requests":       len(r.Turns),
		"usage":          r.Usage,
		"app":            "normgym-web",
	}
}

func (r *Runner) complete(p Poster, user string) (string, Usage, error) {
	body, err := json.Marshal(Request{Model: r.Config.Model, Messages: r.Messages(user)})
	if err != nil {
		return "", Usage{}, err
	}
	h := map[string]string{"Content-Type": "application/json"}
	if k := strings.TrimSpace(r.Config.APIKey); k != "" {
		h["Authorization"] = "Bearer " + k
	}
	hr, err := p.Post(r.Config.Endpoint(), h, body)
	if err != nil {
		return "", Usage{}, &EndpointError{Message: err.Error()}
	}
	status, out := hr.Status, hr.Body
	var resp Response
	jerr := json.Unmarshal(out, &resp)
	if status < 200 || status > 299 {
		msg := strings.TrimSpace(string(out))
		if jerr == nil && resp.Error != nil && resp.Error.Message != "" {
			msg = resp.Error.Message
		}
		if len(msg) > 300 {
			msg = msg[:300] + "…"
		}
		if msg == "" {
			msg = "(empty body)"
		}
		return "", Usage{}, &EndpointError{Status: status, Message: msg, RetryAfter: hr.RetryAfter}
	}
	switch {
	case jerr != nil:
		return "", Usage{}, &EndpointError{Status: status, Message: "the answer is not chat-completions JSON: " + jerr.Error()}
	case resp.Error != nil:
		return "", Usage{}, &EndpointError{Status: status, Message: resp.Error.Message}
	case len(resp.Choices) == 0:
		return "", Usage{}, &EndpointError{Status: status, Message: "the answer has no choices"}
	}
	content := resp.Choices[0].Message.Content
	r.conv.Reply(content)
	r.pending = nil
	var u Usage
	if resp.Usage != nil {
		u = *resp.Usage
		r.Usage.PromptTokens += u.PromptTokens
		r.Usage.CompletionTokens += u.CompletionTokens
		if d := u.PromptTokensDetails; d != nil {
			r.Usage.CachedPromptTokens += d.CachedTokens
		}
	}
	r.Usage.RequestBytes += len(body)
	r.Usage.UnsharedBytes += len(body) - commonPrefix(r.prev, body)
	r.prev = body
	return content, u, nil
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
