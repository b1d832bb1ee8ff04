package server

import (
	"net/http"
	"strings"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/sim"
)

// envHealth handles GET /health: OpenEnv's HealthResponse.
func (s *Server) envHealth(w http.ResponseWriter, r *http.Request) error {
	status := "healthy"
	if s.sessions == nil {
		status = "degraded"
	}
	return writeJSON(w, http.StatusOK, map[string]string{"status": status})
}

// envDescription is /metadata's description: what the environment is,
// its action, its reward and its reset parameters.
func envDescription() string {
	return "A newcomer in a small community does an ordinary errand while a hidden, arbitrary social norm is in force: " +
		"it can learn the norm from watching members, the sanctions they get and the sanctions it gets itself. A visit is a " +
		"practice day and a test day, then a probe (which of four statements was the rule). Action: {\"action\": A} with A one of " +
		strings.Join(sim.ActionVerbs(), ", ") + " (give NAME); after the visit {\"answer\": k} (0-based). Observation: text (what " +
		"a language model reads) and json (the same, structured), stage (play, probe, done). Reward: 0.0 at every step, then at " +
		"the end (done) the joint success, 1.0 if the test day's errand was done with no violation, else 0.0; the final " +
		"observation's metadata holds joint and probe_correct. Reset: seed draws the visit from the suite (train by default) in an " +
		"order stratified by norm × condition; episode_id names the episode and is echoed in the state. HTTP /reset and /step are " +
		"stateless as OpenEnv's; \"session\": true in a reset keeps a session (metadata.session_id, then session_id in each step); " +
		"/ws holds one per connection."
}

// envMetadata handles GET /metadata: OpenEnv's EnvironmentMetadata.
func (s *Server) envMetadata(w http.ResponseWriter, r *http.Request) error {
	return writeJSON(w, http.StatusOK, map[string]any{
		"name":              "NormGym",
		"description":       envDescription(),
		"readme_content":    nil,
		"version":           "sim " + sim.Version + ", sim.wasm " + s.verify.SHA256(),
		"author":            "NormGym",
		"documentation_url": nil,
	})
}

// envSchema handles GET /schema: OpenEnv's SchemaResponse, JSON schemas of
// the action, the observation and the state.
func (s *Server) envSchema(w http.ResponseWriter, r *http.Request) error {
	return writeJSON(w, http.StatusOK, map[string]any{"action": actionSchema(), "observation": observationSchema(), "state": stateSchema()})
}

// schemaObject is a JSON schema of an object with no other properties.
func schemaObject(title, description string, props map[string]any, required ...string) map[string]any {
	m := map[string]any{"title": title, "description": description, "type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		m["required"] = required
	}
	return m
}

// typed is a JSON schema of a type with a description.
func typed(typ any, description string) map[string]any {
	return map[string]any{"type": typ, "description": description}
}

func actionSchema() map[string]any {
	action := typed("string", "one of "+strings.Join(sim.ActionVerbs(), ", ")+"; give takes a member's name (give mara)")
	index := typed("integer", "the number of actions taken before this one: a step sent again with the same index is taken once "+
		"and answered as it was; another index than the session's count is refused (409) with that count")
	index["minimum"] = 0
	answer := typed("integer", "after the visit: the probe option believed to be the rule (0-based)")
	answer["minimum"], answer["maximum"] = 0, 3
	confidence := typed("number", "how sure the answer is, 0 to 1 (kept in the record)")
	confidence["minimum"], confidence["maximum"] = 0, 1
	return schemaObject("NormGymAction", "a move or act ({\"action\": ...}) or, after the visit, the probe's answer ({\"answer\": k})",
		map[string]any{"action": action, "index": index, "answer": answer, "confidence": confidence, "metadata": typed("object", "OpenEnv's Action.metadata")})
}

func observationSchema() map[string]any {
	stage := typed("string", "play: act; probe: answer the probe; done: the visit is over")
	stage["enum"] = []string{api.StagePlay, api.StageProbe, api.StageDone}
	return schemaObject("NormGymObservation", "what the newcomer sees after a reset or a step", map[string]any{
		"text":       typed("string", "the observation as text, rendered by the sim: what a language model reads"),
		"json":       typed("object", "sim.Observation as the sim encodes it (world, day, task, frame, events, done…)"),
		"stage":      stage,
		"actions":    typed("integer", "the actions taken so far"),
		"day":        typed("integer", "1 (practice) or 2 (test)"),
		"step":       typed("integer", "the step within the day"),
		"terminated": typed("boolean", "the visit ended because the test day's errand was done"),
		"truncated":  typed("boolean", "the visit ended because the test day ran out of steps"),
		"day_over":   typed("boolean", "a day ended on this step"),
		"probe":      typed([]string{"object", "null"}, "stage probe: {question, options}: which of four statements was the rule"),
		"result":     typed([]string{"object", "null"}, "stage done: scores, probe_correct, and the hash and record unless the visit is a private suite's"),
		"visit":      typed("string", "the visit id, once the visit is done (never a private suite's)"),
		"done":       typed("boolean", "the visit is done (after the probe's answer; a control visit has none)"),
		"reward": typed([]string{"number", "null"}, "null at a reset; 0.0 at every step until done, then the joint success: 1.0 if "+
			"the test day's errand was done with no violation, else 0.0"),
		"metadata": typed("object", "kind, sealed, suite, episode_id; session_id for a session; visit at a reset of a visit the "+
			"client chose; at done, joint and probe_correct (whether the probe's answer named the rule)"),
	})
}

func stateSchema() map[string]any {
	st := schemaObject("NormGymState", "OpenEnv's State of a session (a fresh environment's is {episode_id: null, step_count: 0})", map[string]any{
		"episode_id": typed([]string{"string", "null"}, "the client's name for the episode (its reset's episode_id), else one made by the server"),
		"step_count": typed("integer", "the actions taken"),
		"kind":       typed("string", "practice, model or human"),
		"sealed":     typed("boolean", "nothing names the visit before it is over"),
		"suite":      typed("string", "the suite of the visit"),
		"stage":      typed("string", "play, probe or done"),
		"day":        typed("integer", "1 or 2"),
		"step":       typed("integer", "the step within the day"),
		"over":       typed("boolean", "the last step was played"),
		"expires":    typed("string", "when an idle session expires (RFC 3339)"),
		"visit":      typed("string", "the visit id of a session the client chose, or of any once it is done"),
	}, "episode_id", "step_count")
	st["additionalProperties"] = true
	return st
}
