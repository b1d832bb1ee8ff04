// Package wire holds the JSON requests and responses of sim.wasm's ABI
// (see wasm/ABI.md), shared by the guest (wasm/module) and the host
// (wasm/host) so that both sides agree on every field name.
//
// Every response that is not an error is one of the *Response types below.
// An error is always exactly Error's encoding: {"error":"..."}. No other
// response starts with the key "error", so a host can tell them apart from
// the first bytes (see IsError).
package wire

import (
	"bytes"

	"github.com/normgym/normgym/sim"
)

// ABI is the version of the export list and of the JSON shapes. It changes
// whenever a host written for one version could misread another.
const ABI = 1

// MaxInput is the largest request in bytes: in_ptr(n) returns 0 above it.
const MaxInput = 1 << 20

// MaxHandles is how many environments one module instance keeps open.
const MaxHandles = 256

// MaxBatch is how many visits one batched run request may name.
const MaxBatch = 4096

// Error is every failed call's response.
type Error struct {
	Error string `json:"error"`
}

// errorPrefix is how every Error encoding starts.
var errorPrefix = []byte(`{"error":`)

// IsError reports whether a response is an Error.
func IsError(resp []byte) bool { return bytes.HasPrefix(resp, errorPrefix) }

// Info is info()'s response.
type Info struct {
	ABI            int         `json:"abi"`
	SimVersion     string      `json:"sim_version"`
	CatalogVersion string      `json:"catalog_version"`
	Suites         []SuiteInfo `json:"suites"`
	Worlds         []sim.World `json:"worlds"`
	Agents         []string    `json:"agents"`
}

// SuiteInfo summarises a suite in Info.
type SuiteInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Visits  int    `json:"visits"`
}

// SuitesRequest asks for one suite by name, or every suite when Name is empty.
type SuitesRequest struct {
	Name string `json:"name,omitempty"`
}

// SuitesResponse is suites()'s response.
type SuitesResponse struct {
	Suites []sim.Suite `json:"suites"`
}

// ResetRequest starts a visit.
type ResetRequest struct {
	Visit string `json:"visit"`
}

// ResetResponse is reset()'s response.
type ResetResponse struct {
	Handle      int              `json:"handle"`
	Observation *sim.Observation `json:"observation"`
	Text        string           `json:"text"`
}

// HandleRequest names an open environment (close, observe, score, probe).
type HandleRequest struct {
	Handle int `json:"handle"`
}

// Closed is close()'s response.
type Closed struct {
	Closed bool `json:"closed"`
}

// StepRequest makes the newcomer act.
type StepRequest struct {
	Handle int    `json:"handle"`
	Action string `json:"action"`
	// TextOnly leaves the structured observation out of the response
	// (it is most of the cost of a step): for hosts that only send the
	// text form on, such as model harnesses.
	TextOnly bool `json:"text_only,omitempty"`
}

// StepResponse is step()'s response: sim.StepResult plus the text form,
// and where the visit stands (day, step, over) for text-only callers.
type StepResponse struct {
	Observation *sim.Observation `json:"observation"`
	Text        string           `json:"text"`
	Events      []sim.Event      `json:"events"`
	Terminated  bool             `json:"terminated"`
	Truncated   bool             `json:"truncated"`
	DayOver     bool             `json:"day_over"`
	Day         int              `json:"day"`
	Step        int              `json:"step"`
	Over        bool             `json:"over"`
}

// Done reports whether the visit is over.
func (r StepResponse) Done() bool { return r.Terminated || r.Truncated }

// Turn is the response as sim.Env's Turn.
func (r StepResponse) Turn() sim.Turn {
	return sim.Turn{Text: r.Text, Events: r.Events, Terminated: r.Terminated, Truncated: r.Truncated,
		DayOver: r.DayOver, Day: r.Day, Step: r.Step, Over: r.Over}
}

// ObserveResponse is observe()'s response.
type ObserveResponse struct {
	Observation *sim.Observation `json:"observation"`
	Text        string           `json:"text"`
}

// ScoreResponse is score()'s response.
type ScoreResponse struct {
	Scores sim.Scores `json:"scores"`
	Hash   string     `json:"hash"`
	Over   bool       `json:"over"`
}

// ProbeResponse is probe()'s response.
type ProbeResponse struct {
	Question string   `json:"question"`
	Options  []string `json:"options"`
}

// AnswerRequest answers the probe with a 0-based option index and, if
// given, a confidence in [0, 1] that the record carries.
type AnswerRequest struct {
	Handle     int      `json:"handle"`
	Answer     int      `json:"answer"`
	Confidence *float64 `json:"confidence,omitempty"`
}

// AnswerResponse is answer()'s response.
type AnswerResponse struct {
	Correct bool `json:"correct"`
}

// RecordRequest asks for an open environment's record.
type RecordRequest struct {
	Handle int    `json:"handle"`
	Agent  string `json:"agent"`
	Client string `json:"client"`
}

// RunRequest runs a built-in baseline over one visit (Visit) or several
// (Visits); exactly one of them is set.
type RunRequest struct {
	Visit  string   `json:"visit,omitempty"`
	Visits []string `json:"visits,omitempty"`
	Agent  string   `json:"agent"`
}

// RunBatchResponse is run()'s response to a request with Visits. A run
// with Visit responds with the sim.Record itself.
type RunBatchResponse struct {
	Records []sim.Record `json:"records"`
}

// ReplayResponse is replay()'s response: the record recomputed from the
// submitted one's visit, actions and probe answer, whether the submitted
// one agrees with it, and the fields where it does not.
type ReplayResponse struct {
	Record sim.Record `json:"record"`
	Match  bool       `json:"match"`
	Diffs  []string   `json:"diffs"`
}
