package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

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

// Settings are how the browser plays: eval's defaults (prompt.Run's
// settings) with the plain prompt, temperature 0 and no max_tokens, as a
// client named "normgym-web".
func (c Config) Settings() prompt.Settings {
	temp := 0.0
	return prompt.Settings{Variant: Variant, Options: Options(), Model: c.Model, Endpoint: c.Host(),
		Temperature: &temp, App: "normgym-web"}
}

// Turn is one exchange of the transcript.
type Turn struct {
	// Kind is "step", "notes" or "probe".
	Kind   string
	Day    int
	Step   int
	Prompt string
	Reply  string
	// Action is what was sent to the sim ("wait" after a format error).
	Action      string
	FormatError bool
	Usage       prompt.Usage
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

// ErrClosed ends a run closed before its end.
var ErrClosed = errors.New("chat: the run was closed")

// Hooks are how a run reaches the page. They are called from the goroutine
// of Run.
type Hooks struct {
	// Turn is called after each request is applied, with the screen it
	// leads to (a step's; the last one for notes and the probe).
	Turn func(t Turn, shown ui.StepResponse)
	// Wait is called before a failed request is sent again, d from now
	// (retry number attempt); it does the waiting and returns false if
	// the run was stopped or closed meanwhile.
	Wait func(err error, d time.Duration, attempt int) bool
	// Hold is called when the run holds: after Stop (err nil), or after a
	// request that failed for good (err). The run goes on after Resume.
	Hold func(err error)
}

// Runner plays one visit with a model: prompt.Run, the one model loop, over
// the page's module (ui.Env) with the endpoint as its Chat. Run blocks
// until the visit is over or closed, so the page calls it in a goroutine
// and steers it with Stop, Resume and Close.
type Runner struct {
	Visit  ui.Resolved
	Config Config
	Env    *ui.Env
	// Last is the screen on show: the first, then each step's.
	Last ui.StepResponse
	// Turns are the exchanges so far; FormatErrors counts the replies
	// without a usable ACTION or ANSWER line.
	Turns        []Turn
	FormatErrors int
	// Record is the finished visit's record (nil until Done).
	Record *ui.Record

	mu      sync.Mutex
	stop    bool
	resume  chan struct{}
	closing chan struct{}
	closed  bool
}

// NewRunner opens visit v for the model named in cfg, showing its first
// screen (Last).
func NewRunner(c *ui.Client, v ui.Resolved, cfg Config) (*Runner, error) {
	env, first, err := c.Open(v.ID)
	if err != nil {
		return nil, err
	}
	return &Runner{Visit: v, Config: cfg, Env: env, Last: first, resume: make(chan struct{}, 1), closing: make(chan struct{})}, nil
}

// Done reports whether the visit is over and recorded.
func (r *Runner) Done() bool { return r.Record != nil }

// Stop asks the run to hold before its next request (Hooks.Hold with nil).
func (r *Runner) Stop() {
	r.mu.Lock()
	r.stop = true
	r.mu.Unlock()
}

// Stopping reports whether Stop was called and the run has not held yet.
func (r *Runner) Stopping() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stop
}

// Resume lets a held run go on. It never blocks.
func (r *Runner) Resume() {
	r.mu.Lock()
	r.stop = false
	r.mu.Unlock()
	select {
	case r.resume <- struct{}{}:
	default:
	}
}

// Close ends the run (Run returns ErrClosed) and frees the visit.
func (r *Runner) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed {
		r.closed = true
		close(r.closing)
	}
}

// Closed reports whether Close was called.
func (r *Runner) Closed() bool {
	select {
	case <-r.closing:
		return true
	default:
		return false
	}
}

// Run plays the visit to its end with p as the page's fetch, and sets
// Record. It returns ErrClosed if the run was closed first.
func (r *Runner) Run(p Poster, h Hooks) error {
	defer r.Env.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-r.closing:
			cancel()
		case <-ctx.Done():
		}
	}()
	rec, _, err := prompt.Run(ctx, r.Env, r.Visit.ID, r.Config.Settings(), r.chat(p, h), r.observe(h))
	if err != nil {
		if r.Closed() {
			return ErrClosed
		}
		return err
	}
	if r.Visit.Suite != "" {
		rec.Suite, rec.SuiteVersion = r.Visit.Suite, r.Visit.SuiteVersion
	}
	r.Record = &rec
	return nil
}

// observe keeps each exchange of the loop as a transcript turn and the
// screen it leads to.
func (r *Runner) observe(h Hooks) func(prompt.Exchange) {
	return func(ex prompt.Exchange) {
		t := Turn{Kind: string(ex.Kind), Day: ex.Day, Step: ex.Step, Prompt: ex.Prompt, Reply: ex.Reply.Content,
			Action: ex.Action, FormatError: ex.FormatError, Usage: ex.Reply.Usage}
		if ex.Kind == prompt.AskStep {
			if shown, err := ui.Shown(r.Env, ex.Turn); err == nil {
				r.Last = shown
				t.Events, t.Frame = shown.Events, &shown.Observation.Frame
			}
		}
		r.Turns = append(r.Turns, t)
		if t.FormatError {
			r.FormatErrors++
		}
		if h.Turn != nil {
			h.Turn(t, r.Last)
		}
	}
}

// chat is the loop's Chat: it sends a request to the endpoint, retries as
// Retry says (Hooks.Wait), and holds after Stop or a failure that is not
// retried (Hooks.Hold) until the run is resumed, sending it again.
func (r *Runner) chat(p Poster, h Hooks) prompt.Chat {
	policy := Retry()
	return func(ctx context.Context, req prompt.Request) (prompt.Reply, error) {
		start := time.Now()
		for attempt, sent := 0, 0; ; {
			if r.Stopping() {
				if err := r.hold(h, nil); err != nil {
					return prompt.Reply{}, err
				}
			}
			reply, err := r.complete(p, req)
			sent++
			if err == nil {
				reply.Latency, reply.Attempts = time.Since(start), sent
				return reply, nil
			}
			var e *EndpointError
			errors.As(err, &e)
			if d, ok := policy.Wait(prompt.Failure{Status: e.Status, RetryAfter: e.RetryAfter}, attempt, time.Now(), rand.Int64N); ok {
				attempt++
				if h.Wait == nil || h.Wait(err, d, attempt) {
					continue
				}
				if r.Closed() {
					return prompt.Reply{}, ErrClosed
				}
				attempt = 0 // stopped while waiting: held at the next pass
				continue
			}
			if err := r.hold(h, err); err != nil {
				return prompt.Reply{}, err
			}
			attempt = 0
		}
	}
}

// hold tells the page the run holds (after Stop: why nil) and waits for
// Resume or Close.
func (r *Runner) hold(h Hooks, why error) error {
	if h.Hold != nil {
		h.Hold(why)
	}
	select {
	case <-r.resume:
		return nil
	case <-r.closing:
		return ErrClosed
	}
}

// complete sends req to the endpoint and reads its answer.
func (r *Runner) complete(p Poster, req prompt.Request) (prompt.Reply, error) {
	body, err := req.Body()
	if err != nil {
		return prompt.Reply{}, err
	}
	h := map[string]string{"Content-Type": "application/json"}
	if k := strings.TrimSpace(r.Config.APIKey); k != "" {
		h["Authorization"] = "Bearer " + k
	}
	hr, err := p.Post(r.Config.Endpoint(), h, body)
	if err != nil {
		return prompt.Reply{}, &EndpointError{Message: err.Error()}
	}
	status, out := hr.Status, hr.Body
	var resp response
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
		return prompt.Reply{}, &EndpointError{Status: status, Message: msg, RetryAfter: hr.RetryAfter}
	}
	switch {
	case jerr != nil:
		return prompt.Reply{}, &EndpointError{Status: status, Message: "the answer is not chat-completions JSON: " + jerr.Error()}
	case resp.Error != nil:
		return prompt.Reply{}, &EndpointError{Status: status, Message: resp.Error.Message}
	case len(resp.Choices) == 0:
		return prompt.Reply{}, &EndpointError{Status: status, Message: "the answer has no choices"}
	}
	return prompt.Reply{Content: resp.Choices[0].Message.Content, Usage: resp.usage()}, nil
}
