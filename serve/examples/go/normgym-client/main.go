// Command normgym-client plays one NormGym visit as an OpenEnv client:
// it speaks only OpenEnv's protocol (meta-pytorch/OpenEnv,
// src/openenv/core/env_server/types.py), whose types it mirrors below —
// GET /health, /metadata, /schema and /state over HTTP, then one /ws
// session: reset (seed, episode_id), step until done, state, close. It
// decodes the server's answers as strictly as OpenEnv's pydantic models
// do (extra="forbid" where they forbid), so a field OpenEnv would refuse
// fails it. The policy (the greedy baseline, from sim/agents) reads the
// observation's JSON form; any agent reading observation.text works the
// same way.
//
//	go run ./serve/examples/go/normgym-client -server http://127.0.0.1:8080 -suite mini -seed 3
//
// With a submitter key (-key) and no -seed the visit is the key's next
// sealed visit of -suite, stored under the key's label; otherwise it is
// practice and nothing is stored.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/coder/websocket"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
)

// ResetRequest is OpenEnv's ResetRequest (extra fields allowed: NormGym's
// suite, visit and key).
type ResetRequest struct {
	Seed      *int   `json:"seed,omitempty"`
	EpisodeID string `json:"episode_id,omitempty"`
	Suite     string `json:"suite,omitempty"`
	Visit     string `json:"visit,omitempty"`
	Key       string `json:"key,omitempty"`
}

// WSMessage is OpenEnv's WSResetMessage, WSStepMessage, WSStateMessage
// and WSCloseMessage.
type WSMessage struct {
	Type string `json:"type"`
	Data any    `json:"data,omitempty"`
}

// WSResponse is OpenEnv's WSObservationResponse, WSStateResponse and
// WSErrorResponse (extra="forbid").
type WSResponse struct {
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

// StepResponse is the data of OpenEnv's WSObservationResponse:
// serialize_observation's shape, as ResetResponse and StepResponse
// (extra="forbid").
type StepResponse struct {
	Observation map[string]any `json:"observation"`
	Reward      *float64       `json:"reward"`
	Done        bool           `json:"done"`
	Metadata    map[string]any `json:"metadata"`
}

// State is OpenEnv's State (extra fields allowed).
type State struct {
	EpisodeID *string `json:"episode_id"`
	StepCount int     `json:"step_count"`
}

// HealthResponse is OpenEnv's HealthResponse (extra="forbid").
type HealthResponse struct {
	Status string `json:"status"`
}

// EnvironmentMetadata is OpenEnv's EnvironmentMetadata (extra="forbid").
type EnvironmentMetadata struct {
	Name             string  `json:"name"`
	Description      string  `json:"description"`
	ReadmeContent    *string `json:"readme_content"`
	Version          *string `json:"version"`
	Author           *string `json:"author"`
	DocumentationURL *string `json:"documentation_url"`
}

// SchemaResponse is OpenEnv's SchemaResponse (extra="forbid").
type SchemaResponse struct {
	Action      map[string]any `json:"action"`
	Observation map[string]any `json:"observation"`
	State       map[string]any `json:"state"`
}

// Outcome is what the example prints.
type Outcome struct {
	Health       string   `json:"health"`
	Name         string   `json:"name"`
	ActionSchema string   `json:"action_schema"`
	FreshState   State    `json:"fresh_state"`
	Visit        string   `json:"visit"`
	Actions      []string `json:"actions"`
	Hash         string   `json:"hash"`
	Reward       *float64 `json:"reward"`
	ProbeCorrect *bool    `json:"probe_correct"`
	RunID        string   `json:"run_id"`
	State        State    `json:"state"`
}

func main() {
	server := flag.String("server", "http://127.0.0.1:8080", "the NormGym server")
	suite := flag.String("suite", "mini", "the suite the visit is drawn from")
	seed := flag.Int("seed", -1, "the draw from -suite (practice); -1: a random one, or with -key the key's next sealed visit")
	visit := flag.String("visit", "", "a visit to play by its id (practice), instead of -suite and -seed")
	episode := flag.String("episode", "normgym-example", "the episode_id to name the episode (echoed in the state)")
	key := flag.String("key", "", "a submitter key: its sealed visits are stored under its label")
	flag.Parse()
	req := ResetRequest{EpisodeID: *episode, Key: *key}
	if *visit != "" {
		req.Visit = *visit
	} else {
		req.Suite = *suite
		if *seed >= 0 {
			req.Seed = seed
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	out, err := run(ctx, strings.TrimRight(*server, "/"), req)
	if err != nil {
		fmt.Fprintln(os.Stderr, "normgym-client:", err)
		os.Exit(1)
	}
	json.NewEncoder(os.Stdout).Encode(out)
}

// run reads the server's description over HTTP, then plays one visit
// over /ws.
func run(ctx context.Context, server string, req ResetRequest) (Outcome, error) {
	var out Outcome
	var health HealthResponse
	var meta EnvironmentMetadata
	var schema SchemaResponse
	for _, g := range []struct {
		path string
		v    any
	}{{"/health", &health}, {"/metadata", &meta}, {"/schema", &schema}, {"/state", &out.FreshState}} {
		if err := get(ctx, server+g.path, g.v); err != nil {
			return out, err
		}
	}
	out.Health, out.Name = health.Status, meta.Name
	out.ActionSchema, _ = schema.Action["title"].(string)
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(server, "http")+"/ws", nil)
	if err != nil {
		return out, err
	}
	defer c.CloseNow()
	c.SetReadLimit(16 << 20)
	if err := play(ctx, c, req, &out); err != nil {
		return out, err
	}
	// close: the server ends the connection without a reply.
	if err := send(ctx, c, WSMessage{Type: "close"}); err != nil {
		return out, err
	}
	if _, _, err := c.Read(ctx); websocket.CloseStatus(err) != websocket.StatusNormalClosure {
		return out, fmt.Errorf("after close: %v, want the connection closed", err)
	}
	return out, nil
}

// play resets, steps with the greedy baseline until done (answering the
// probe with the baseline's answer) and reads the state.
func play(ctx context.Context, c *websocket.Conn, req ResetRequest, out *Outcome) error {
	var r StepResponse
	if err := call(ctx, c, WSMessage{Type: "reset", Data: req}, "observation", &r); err != nil {
		return err
	}
	var policy agents.Policy
	for !r.Done {
		var action map[string]any
		switch r.Observation["stage"] {
		case "probe":
			p, _ := r.Observation["probe"].(map[string]any)
			action = map[string]any{"answer": answerOf(policy, p)}
		default:
			var obs sim.Observation
			b, _ := json.Marshal(r.Observation["json"])
			if err := json.Unmarshal(b, &obs); err != nil {
				return err
			}
			if policy == nil {
				policy, _ = agents.New("greedy")
			}
			a := policy.Act(&obs).String()
			action = map[string]any{"action": a}
			out.Actions = append(out.Actions, a)
		}
		r = StepResponse{}
		if err := call(ctx, c, WSMessage{Type: "step", Data: action}, "observation", &r); err != nil {
			return err
		}
	}
	out.Reward = r.Reward
	out.Visit, _ = r.Observation["visit"].(string)
	if res, ok := r.Observation["result"].(map[string]any); ok {
		out.Hash, _ = res["hash"].(string)
		out.RunID, _ = res["run_id"].(string)
	}
	if pc, ok := r.Metadata["probe_correct"].(bool); ok {
		out.ProbeCorrect = &pc
	}
	return call(ctx, c, WSMessage{Type: "state"}, "state", &out.State)
}

// answerOf is the baseline's answer to the probe (0 when it has none).
func answerOf(p agents.Policy, probe map[string]any) int {
	if p == nil || probe == nil {
		return 0
	}
	var sp sim.Probe
	b, _ := json.Marshal(probe)
	if json.Unmarshal(b, &sp) != nil {
		return 0
	}
	return p.Answer(&sp)
}

// call sends one message and decodes the reply's data, which must be of
// type want (an error reply is returned as an error).
func call(ctx context.Context, c *websocket.Conn, m WSMessage, want string, v any) error {
	if err := send(ctx, c, m); err != nil {
		return err
	}
	_, b, err := c.Read(ctx)
	if err != nil {
		return err
	}
	var r WSResponse
	if err := strict(b, &r); err != nil {
		return fmt.Errorf("the %s reply: %w", m.Type, err)
	}
	if r.Type == "error" {
		return fmt.Errorf("the server refused %s: %s", m.Type, r.Data)
	}
	if r.Type != want {
		return fmt.Errorf("%s answered with %q, want %q", m.Type, r.Type, want)
	}
	if _, ok := v.(*State); ok {
		return json.Unmarshal(r.Data, v) // State allows extra fields
	}
	return strict(r.Data, v)
}

func send(ctx context.Context, c *websocket.Conn, m WSMessage) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return c.Write(ctx, websocket.MessageText, b)
}

// get reads a JSON answer of a GET, strictly unless v is a State.
func get(ctx context.Context, url string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	if _, ok := v.(*State); ok {
		return json.Unmarshal(b, v)
	}
	if err := strict(b, v); err != nil {
		return fmt.Errorf("GET %s: %w", url, err)
	}
	return nil
}

// strict decodes one JSON value with no field v lacks (pydantic's
// extra="forbid").
func strict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("more than one JSON value")
	}
	return nil
}
